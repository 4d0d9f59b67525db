/*
 * radix - parallel least-significant-digit radix sort of 64-bit keys.
 *
 * Phases:
 *   touch_pages     fault in both key arrays;                  sequential
 * then ROUNDS rounds, each sorting a fresh batch of keys in the same arrays:
 *   generate_keys   fill the input with the round's keys from a skewed
 *                   generator, and record their sum and a multiset
 *                   fingerprint;                               sequential
 *   per digit (8 passes of 8 bits), by threads created for the round,
 *   barrier between steps:
 *     count_digits    histogram of the digit over this thread's slice of
 *                     the keys: hist[thread][digit]
 *     prefix_sums     the histogram matrix is read column-wise (a
 *                     transpose): each thread takes a range of digits, sums
 *                     each digit over the threads and records where every
 *                     thread's keys of that digit start; the ranges' totals
 *                     are then scanned so the ranges line up
 *     scatter_keys    every thread moves its keys to their slots, stable
 *   check_sorted    keys in order, same sum and fingerprint; sequential
 *
 * -n SIZE is the number of keys of a round in millions (default 8).  The
 * rounds reuse the arrays so that the page faults of touch_pages, whose
 * cost varies widely on a virtual machine, stay a small part of the run.
 * Scalable procedures: generate_keys (base 2) and count_digits (base 1).
 */
#include "bench.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BITS 8
#define RADIX (1 << BITS)
#define PASSES (64 / BITS)
#define ROUNDS 10

struct sort {
	int threads;
	size_t n;
	uint64_t *keys[2];	/* source and destination, by pass parity */
	size_t *hist;		/* [thread][RADIX]: counts, then offsets */
	size_t *range_total;	/* [thread]: keys in the thread's digit range */
	pthread_barrier_t bar;
};

struct worker_arg {
	struct sort *s;
	int id;
};

static struct bench_knob knobs[] = {
	{ "generate_keys", 2, 0 },
	{ "count_digits", 1, 0 },
	{ NULL, 0, 0 },
};

#define K_GENERATE (&knobs[0])
#define K_COUNT (&knobs[1])

void touch_pages(void *p, size_t bytes);
void generate_keys(uint64_t *keys, size_t n, unsigned round, uint64_t *sum,
		   uint64_t *print);
void count_digits(struct sort *s, int id, const uint64_t *src, int shift);
void prefix_sums(struct sort *s, int id);
void scatter_keys(struct sort *s, int id, const uint64_t *src, uint64_t *dst,
		  int shift);
void *sort_worker(void *arg);
void check_sorted(const uint64_t *keys, size_t n, uint64_t sum,
		  uint64_t print);

/* A strong mix of a key, summed over the keys as a multiset fingerprint. */
BENCH_HOT uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	return k ^ (k >> 33);
}

/* Keys [lo, hi) of thread @id. */
BENCH_HOT void slice(const struct sort *s, int id, size_t *lo, size_t *hi)
{
	*lo = s->n * (size_t)id / (size_t)s->threads;
	*hi = s->n * (size_t)(id + 1) / (size_t)s->threads;
}

/*
 * Write every page of @p (@bytes long) once, so that the page faults of a
 * fresh allocation are paid here rather than in the first phase that
 * writes the array.  Main thread.
 */
BENCH_PROC void touch_pages(void *p, size_t bytes)
{
	memset(p, 0, bytes);
}

/*
 * Fill @keys with the @n keys of round @round (a mix of uniform and
 * clustered values, so the digits are unevenly used), their wrapping sum
 * in *@sum and the sum of their mix() in *@print.  The whole array is
 * generated base x FACTOR times: a repetition of one block would find it
 * in the cache and cost less than the first, a pass over the whole array
 * costs the same every time.  Main thread.
 */
BENCH_PROC void generate_keys(uint64_t *keys, size_t n, unsigned round,
			      uint64_t *sum, uint64_t *print)
{
	double started;
	unsigned r, reps = bench_unit_begin(K_GENERATE, round, &started);
	uint64_t s = 0, p = 0;
	size_t b, i;

	for (r = 0; r < reps; r++) {
		s = p = 0;
		for (b = 0; b < n; b += 4096) {
			size_t end = b + 4096 < n ? b + 4096 : n;
			uint64_t state = 0x1234567ULL + b +
					 ((uint64_t)round << 40);

			BENCH_OPAQUE(state);
			for (i = b; i < end; i++) {
				uint64_t x = bench_rand(&state);

				/* a quarter of the keys cluster near 2^40 */
				keys[i] = (x & 3) ? x :
					  (1ULL << 40) + (x >> 44);
				s += keys[i];
				p += mix(keys[i]);
			}
		}
		BENCH_CLOBBER();
	}
	*sum = s;
	*print = p;
	bench_unit_end(K_GENERATE, started);
}

/* hist[id][d] = keys of this thread's slice with digit d at @shift. */
BENCH_PROC void count_digits(struct sort *s, int id, const uint64_t *src,
			     int shift)
{
	size_t *h = s->hist + (size_t)id * RADIX, lo, hi, i;
	double started;
	unsigned r, reps = bench_unit_begin(K_COUNT, (uint64_t)shift / BITS,
					    &started);

	slice(s, id, &lo, &hi);
	for (r = 0; r < reps; r++) {
		const uint64_t *k = src;

		BENCH_OPAQUE(k);
		memset(h, 0, sizeof(size_t) * RADIX);
		for (i = lo; i < hi; i++)
			h[(k[i] >> shift) & (RADIX - 1)]++;
		BENCH_CLOBBER();
	}
	bench_unit_end(K_COUNT, started);
}

/*
 * Turn the counts into start offsets: offset(t, d) = keys with a smaller
 * digit + keys of digit d in threads before t.  Two steps separated by a
 * barrier; the caller waits at a barrier before and after.  All threads.
 */
BENCH_PROC void prefix_sums(struct sort *s, int id)
{
	int nt = s->threads, t, d;
	int d0 = RADIX * id / nt, d1 = RADIX * (id + 1) / nt;
	size_t run = 0, base = 0;

	/* step 1: this thread's digits, down the columns */
	for (d = d0; d < d1; d++) {
		for (t = 0; t < nt; t++) {
			size_t c = s->hist[(size_t)t * RADIX + d];

			s->hist[(size_t)t * RADIX + d] = run;
			run += c;
		}
	}
	s->range_total[id] = run;
	pthread_barrier_wait(&s->bar);
	/* step 2: shift by the keys in the digit ranges before this one */
	for (t = 0; t < id; t++)
		base += s->range_total[t];
	for (d = d0; d < d1; d++)
		for (t = 0; t < nt; t++)
			s->hist[(size_t)t * RADIX + d] += base;
}

/* Move this thread's keys to their slots in @dst, in order.  Stable. */
BENCH_PROC void scatter_keys(struct sort *s, int id, const uint64_t *src,
			     uint64_t *dst, int shift)
{
	size_t off[RADIX], lo, hi, i;

	memcpy(off, s->hist + (size_t)id * RADIX, sizeof(off));
	slice(s, id, &lo, &hi);
	for (i = lo; i < hi; i++) {
		uint64_t k = src[i];

		dst[off[(k >> shift) & (RADIX - 1)]++] = k;
	}
}

/* The PASSES passes of one thread.  Thread entry point. */
BENCH_PROC void *sort_worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct sort *s = wa->s;
	int pass;

	for (pass = 0; pass < PASSES; pass++) {
		const uint64_t *src = s->keys[pass % 2];
		uint64_t *dst = s->keys[(pass + 1) % 2];

		count_digits(s, wa->id, src, pass * BITS);
		pthread_barrier_wait(&s->bar);
		prefix_sums(s, wa->id);
		pthread_barrier_wait(&s->bar);
		scatter_keys(s, wa->id, src, dst, pass * BITS);
		pthread_barrier_wait(&s->bar);
	}
	return NULL;
}

/* Exit with a message unless @keys is sorted with the same multiset. */
BENCH_PROC void check_sorted(const uint64_t *keys, size_t n, uint64_t sum,
			     uint64_t print)
{
	uint64_t s = 0, p = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i && keys[i - 1] > keys[i])
			bench_fail("keys %zu and %zu out of order: %llx > %llx",
				   i - 1, i, (unsigned long long)keys[i - 1],
				   (unsigned long long)keys[i]);
		s += keys[i];
		p += mix(keys[i]);
	}
	if (s != sum || p != print)
		bench_fail("key multiset changed: sum %llx -> %llx, "
			   "fingerprint %llx -> %llx",
			   (unsigned long long)sum, (unsigned long long)s,
			   (unsigned long long)print, (unsigned long long)p);
}

int main(int argc, char **argv)
{
	struct bench_opts o = { .threads = 2, .size = 8 };
	struct sort s;
	struct worker_arg *args;
	pthread_t *tids;
	uint64_t sum, print, checksum = 0;
	unsigned round;
	double t0 = bench_now();
	int i;

	bench_init(argc, argv, &o, knobs, "keys per round in millions (8)");
	memset(&s, 0, sizeof(s));
	s.threads = o.threads;
	s.n = (size_t)o.size * 1000000;
	s.keys[0] = bench_alloc(sizeof(uint64_t) * s.n);
	s.keys[1] = bench_alloc(sizeof(uint64_t) * s.n);
	s.hist = bench_alloc(sizeof(size_t) * RADIX * (size_t)o.threads);
	s.range_total = bench_alloc(sizeof(size_t) * (size_t)o.threads);
	touch_pages(s.keys[0], sizeof(uint64_t) * s.n);
	touch_pages(s.keys[1], sizeof(uint64_t) * s.n);
	bench_phase("touch_pages");
	bench_check_rc(pthread_barrier_init(&s.bar, NULL,
					    (unsigned)o.threads), "barrier");
	tids = bench_alloc(sizeof(*tids) * (size_t)o.threads);
	args = bench_alloc(sizeof(*args) * (size_t)o.threads);
	for (round = 0; round < ROUNDS; round++) {
		generate_keys(s.keys[0], s.n, round, &sum, &print);
		for (i = 0; i < o.threads; i++) {
			args[i].s = &s;
			args[i].id = i;
			bench_check_rc(pthread_create(&tids[i], NULL,
						      sort_worker, &args[i]),
				       "pthread_create");
		}
		for (i = 0; i < o.threads; i++)
			bench_check_rc(pthread_join(tids[i], NULL),
				       "pthread_join");
		check_sorted(s.keys[PASSES % 2], s.n, sum, print);
		checksum = checksum * 31 + sum;
	}
	bench_phase("rounds");
	if (!o.quiet)
		printf("radix: %d rounds of %zu keys, %d passes, %d threads, "
		       "checksum %016llx, %.3f s\n", ROUNDS, s.n, PASSES,
		       o.threads, (unsigned long long)checksum,
		       bench_now() - t0);
	pthread_barrier_destroy(&s.bar);
	free(s.keys[0]);
	free(s.keys[1]);
	free(s.hist);
	free(s.range_total);
	free(tids);
	free(args);
	return 0;
}
