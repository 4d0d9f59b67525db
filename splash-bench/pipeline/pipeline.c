/*
 * pipeline - a four-stage signal-processing pipeline whose stages cost
 * different amounts, connected by bounded queues.
 *
 *   produce_block    (1 thread)   synthesize 4096 samples: a sum of tones
 *                                 with a chirp and noise
 *   transform_block  (-t threads) short-time spectrum (13 windowed 1024-
 *                                 point FFTs, log magnitudes, spectral
 *                                 centroid) and the 4096-point FFT of the
 *                                 whole block, checked by Parseval
 *   filter_block     (1 thread)   band-pass mask on the spectrum, inverse
 *                                 FFT back to samples
 *   digest_block     (1 thread)   in sequence order: quantize, hash, fold
 *                                 into the stream's running hash, and
 *                                 return the buffer to the free pool
 *
 * Queues: free pool -> produce: a semaphore counts free buffers;
 * produce -> transform: ring with a mutex and two condition variables;
 * transform -> filter: ring with two semaphores (slots, items) and a
 * mutex; filter -> digest: ring with a mutex and a condition variable,
 * then a reorder window (transform threads finish out of order).
 *
 * Check: every 37th block is recomputed sequentially after the run; its
 * hash must match bit for bit, and every block passed the Parseval check.
 *
 * -t THREADS is the number of transform threads (default 1: four threads
 * in all, transform-bound on two cores); -n SIZE the number of blocks
 * (default 1500).  Scalable procedures: transform_block (base 2),
 * filter_block and produce_block (base 1).
 */
#define _GNU_SOURCE
#include "bench.h"

#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#define N 4096			/* samples per block */
#define FRAME 1024		/* short-time frame */
#define HOP 256
#define NFRAMES ((N - FRAME) / HOP + 1)
#define POOL 16			/* buffers in flight */
#define RING 8			/* capacity of each queue */

struct block {
	long seq;
	double samples[N];
	double complex spec[N];
	double centroid;	/* mean spectral centroid of the frames */
	uint64_t hash;		/* digest of the filtered samples */
	int parseval_ok;
};

/* produce -> transform: mutex + condition variables */
struct cond_ring {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct block *slot[RING];
	int head, count;
};

/* transform -> filter: semaphores */
struct sem_ring {
	sem_t slots, items;
	pthread_mutex_t lock;
	struct block *slot[RING];
	int head, tail;
};

struct pipeline {
	long nblocks;
	int transformers;
	struct block *pool;
	sem_t free_count;	/* buffers in the free list */
	pthread_mutex_t free_lock;
	struct block *free_list[POOL];
	int nfree;
	struct cond_ring q1;	/* produce -> transform */
	struct sem_ring q2;	/* transform -> filter */
	struct cond_ring q3;	/* filter -> digest (unbounded in practice) */
	uint64_t stream_hash;
	uint64_t *block_hash;	/* by sequence number, for the check */
	long parseval_failures;
};

static struct bench_knob knobs[] = {
	{ "transform_block", 2, 0 },
	{ "filter_block", 1, 0 },
	{ "produce_block", 1, 0 },
	{ NULL, 0, 0 },
};

#define K_TRANSFORM (&knobs[0])
#define K_FILTER (&knobs[1])
#define K_PRODUCE (&knobs[2])

static double complex twiddle[N / 2];	/* e^{-2 pi i k / N} */
static double window[FRAME];		/* Hann */

void produce_block(struct block *b, long seq);
void transform_block(struct block *b);
void filter_block(struct block *b);
uint64_t digest_block(struct block *b);
void *producer(void *arg);
void *transformer(void *arg);
void *filterer(void *arg);
void *digester(void *arg);

/* ---- FFT --------------------------------------------------------------- */

/*
 * In-place radix-2 FFT of @x (length @n, a power of two dividing N);
 * @inverse conjugates the twiddles (no 1/n scaling).
 */
BENCH_HELPER void fft(double complex *x, int n, int inverse)
{
	int i, j, len, stride;

	for (i = 1, j = 0; i < n; i++) {
		int bit = n >> 1;

		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			double complex s = x[i];

			x[i] = x[j];
			x[j] = s;
		}
	}
	for (len = 2; len <= n; len <<= 1) {
		stride = N / len;
		for (i = 0; i < n; i += len) {
			int k;

			for (k = 0; k < len / 2; k++) {
				double complex w = twiddle[k * stride];
				double complex u, v;

				if (inverse)
					w = conj(w);
				u = x[i + k];
				v = x[i + k + len / 2] * w;
				x[i + k] = u + v;
				x[i + k + len / 2] = u - v;
			}
		}
	}
}

/* ---- the stages' work ------------------------------------------------ */

/* Samples of block @seq: tones, a chirp and noise.  Producer thread. */
BENCH_PROC void produce_block(struct block *b, long seq)
{
	double started;
	unsigned r, reps = bench_unit_begin(K_PRODUCE, (uint64_t)seq, &started);

	for (r = 0; r < reps; r++) {
		uint64_t rng = 0x5eed0000ULL + (uint64_t)seq;
		double t0 = (double)seq * N;
		int i;

		BENCH_OPAQUE(rng);
		for (i = 0; i < N; i++) {
			double t = t0 + i;

			b->samples[i] = sin(0.0123 * t) +
					0.5 * sin(0.2031 * t + 0.3) +
					0.25 * sin(1e-6 * t * t / N + 0.7) +
					0.3 * (bench_uniform(&rng) - 0.5);
		}
		BENCH_CLOBBER();
	}
	b->seq = seq;
	bench_unit_end(K_PRODUCE, started);
}

/*
 * The spectral analysis: mean spectral centroid over the short-time
 * frames, then the full spectrum (checked against the samples' energy by
 * Parseval).  The whole analysis runs base x FACTOR times.  Any
 * transformer thread.
 */
BENCH_PROC void transform_block(struct block *b)
{
	double started;
	unsigned r, reps = bench_unit_begin(K_TRANSFORM, (uint64_t)b->seq,
					    &started);

	for (r = 0; r < reps; r++) {
		double complex frame[FRAME];
		double csum = 0, et = 0, ef = 0;
		const double *s = b->samples;
		int f, k, i;

		BENCH_OPAQUE(s);
		for (f = 0; f < NFRAMES; f++) {
			double num = 0, den = 0;

			for (i = 0; i < FRAME; i++)
				frame[i] = s[f * HOP + i] * window[i];
			fft(frame, FRAME, 0);
			for (k = 1; k < FRAME / 2; k++) {
				double mag = log1p(cabs(frame[k]));

				num += k * mag;
				den += mag;
			}
			csum += den > 0 ? num / den : 0;
		}
		b->centroid = csum / NFRAMES;
		for (i = 0; i < N; i++) {
			b->spec[i] = s[i];
			et += s[i] * s[i];
		}
		fft(b->spec, N, 0);
		for (k = 0; k < N; k++)
			ef += creal(b->spec[k]) * creal(b->spec[k]) +
			      cimag(b->spec[k]) * cimag(b->spec[k]);
		b->parseval_ok = fabs(ef / N - et) <= 1e-9 * et;
		BENCH_CLOBBER();
	}
	bench_unit_end(K_TRANSFORM, started);
}

/*
 * Band-pass: keep the bins around the block's centroid, smooth the mask
 * edges, and transform back to samples.  Runs base x FACTOR times on a
 * copy of the spectrum.  Filter thread.
 */
BENCH_PROC void filter_block(struct block *b)
{
	double started;
	unsigned r, reps = bench_unit_begin(K_FILTER, (uint64_t)b->seq,
					    &started);
	static double complex work[N];	/* the filter thread's scratch */
	int k;

	for (r = 0; r < reps; r++) {
		double centre = b->centroid * N / FRAME;
		const double complex *spec = b->spec;

		BENCH_OPAQUE(spec);
		for (k = 0; k < N; k++) {
			int f = k <= N / 2 ? k : N - k;
			double d = (f - centre) / (0.15 * N);

			work[k] = spec[k] * exp(-d * d);
		}
		fft(work, N, 1);
		BENCH_CLOBBER();
	}
	for (k = 0; k < N; k++)
		b->samples[k] = creal(work[k]) / N;
	bench_unit_end(K_FILTER, started);
}

/* Hash of the quantized samples.  Digest thread (and the check). */
BENCH_PROC uint64_t digest_block(struct block *b)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)b->seq;
	int i;

	for (i = 0; i < N; i++) {
		int64_t q = llround(b->samples[i] * 65536.0);

		h = (h ^ (uint64_t)q) * 1099511628211ULL;
	}
	h ^= (uint64_t)llround(b->centroid * 1e6);
	return h;
}

/* ---- queues ------------------------------------------------------------- */

static void cond_ring_init(struct cond_ring *q)
{
	bench_check_rc(pthread_mutex_init(&q->lock, NULL), "mutex");
	bench_check_rc(pthread_cond_init(&q->not_empty, NULL), "cond");
	bench_check_rc(pthread_cond_init(&q->not_full, NULL), "cond");
	q->head = q->count = 0;
}

/* Append @b (NULL marks the end of the stream). */
BENCH_HELPER void cond_ring_put(struct cond_ring *q, struct block *b)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == RING)
		pthread_cond_wait(&q->not_full, &q->lock);
	q->slot[(q->head + q->count++) % RING] = b;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

BENCH_HELPER struct block *cond_ring_get(struct cond_ring *q)
{
	struct block *b;

	pthread_mutex_lock(&q->lock);
	while (q->count == 0)
		pthread_cond_wait(&q->not_empty, &q->lock);
	b = q->slot[q->head];
	q->head = (q->head + 1) % RING;
	q->count--;
	pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->lock);
	return b;
}

static void sem_ring_init(struct sem_ring *q)
{
	if (sem_init(&q->slots, 0, RING) || sem_init(&q->items, 0, 0))
		bench_fail("sem_init failed");
	bench_check_rc(pthread_mutex_init(&q->lock, NULL), "mutex");
	q->head = q->tail = 0;
}

BENCH_HELPER void sem_ring_put(struct sem_ring *q, struct block *b)
{
	while (sem_wait(&q->slots))
		;
	pthread_mutex_lock(&q->lock);
	q->slot[q->tail] = b;
	q->tail = (q->tail + 1) % RING;
	pthread_mutex_unlock(&q->lock);
	sem_post(&q->items);
}

BENCH_HELPER struct block *sem_ring_get(struct sem_ring *q)
{
	struct block *b;

	while (sem_wait(&q->items))
		;
	pthread_mutex_lock(&q->lock);
	b = q->slot[q->head];
	q->head = (q->head + 1) % RING;
	pthread_mutex_unlock(&q->lock);
	sem_post(&q->slots);
	return b;
}

/* ---- the stage threads ----------------------------------------------- */

/* Stage 1: take a free buffer, fill it, pass it on.  Thread entry. */
BENCH_PROC void *producer(void *arg)
{
	struct pipeline *p = arg;
	long seq;
	int i;

	for (seq = 0; seq < p->nblocks; seq++) {
		struct block *b;

		while (sem_wait(&p->free_count))
			;
		pthread_mutex_lock(&p->free_lock);
		b = p->free_list[--p->nfree];
		pthread_mutex_unlock(&p->free_lock);
		produce_block(b, seq);
		cond_ring_put(&p->q1, b);
	}
	for (i = 0; i < p->transformers; i++)
		cond_ring_put(&p->q1, NULL);
	return NULL;
}

/* Stage 2: analyse blocks until the end marker.  Thread entry. */
BENCH_PROC void *transformer(void *arg)
{
	struct pipeline *p = arg;
	struct block *b;

	while ((b = cond_ring_get(&p->q1))) {
		transform_block(b);
		sem_ring_put(&p->q2, b);
	}
	sem_ring_put(&p->q2, NULL);
	return NULL;
}

/* Stage 3: filter until every transformer has ended.  Thread entry. */
BENCH_PROC void *filterer(void *arg)
{
	struct pipeline *p = arg;
	int ended = 0;

	while (ended < p->transformers) {
		struct block *b = sem_ring_get(&p->q2);

		if (!b) {
			ended++;
			continue;
		}
		filter_block(b);
		cond_ring_put(&p->q3, b);
	}
	cond_ring_put(&p->q3, NULL);
	return NULL;
}

/*
 * Stage 4: digest blocks in sequence order (a reorder window of POOL
 * slots), fold them into the stream hash, recycle the buffers.  Thread
 * entry.
 */
BENCH_PROC void *digester(void *arg)
{
	struct pipeline *p = arg;
	struct block *window_slot[POOL] = { NULL };
	long next = 0;

	for (;;) {
		struct block *b = cond_ring_get(&p->q3);

		if (!b)
			break;
		if (b->seq < next || b->seq >= next + POOL ||
		    window_slot[b->seq % POOL])
			bench_fail("block %ld outside the reorder window at "
				   "%ld", b->seq, next);
		window_slot[b->seq % POOL] = b;
		while ((b = window_slot[next % POOL])) {
			window_slot[next % POOL] = NULL;
			b->hash = digest_block(b);
			p->block_hash[next] = b->hash;
			p->stream_hash = (p->stream_hash ^ b->hash) *
					 0x100000001b3ULL;
			if (!b->parseval_ok)
				p->parseval_failures++;
			next++;
			pthread_mutex_lock(&p->free_lock);
			p->free_list[p->nfree++] = b;
			pthread_mutex_unlock(&p->free_lock);
			sem_post(&p->free_count);
		}
	}
	if (next != p->nblocks)
		bench_fail("digested %ld of %ld blocks", next, p->nblocks);
	return NULL;
}

int main(int argc, char **argv)
{
	struct bench_opts o = { .threads = 1, .size = 1500 };
	struct pipeline p;
	pthread_t prod, filt, dig, *trans;
	struct block *check;
	double t0 = bench_now();
	long seq;
	int i;

	bench_init(argc, argv, &o, knobs, "blocks of 4096 samples (1500)");
	for (i = 0; i < N / 2; i++)
		twiddle[i] = cexp(-2.0 * M_PI * I * i / N);
	for (i = 0; i < FRAME; i++)
		window[i] = 0.5 - 0.5 * cos(2 * M_PI * i / (FRAME - 1));
	memset(&p, 0, sizeof(p));
	p.nblocks = o.size;
	p.transformers = o.threads;
	p.pool = bench_alloc(sizeof(struct block) * POOL);
	p.block_hash = bench_alloc(sizeof(uint64_t) * (size_t)p.nblocks);
	p.stream_hash = 1469598103934665603ULL;
	for (i = 0; i < POOL; i++)
		p.free_list[i] = &p.pool[i];
	p.nfree = POOL;
	if (sem_init(&p.free_count, 0, POOL))
		bench_fail("sem_init failed");
	bench_check_rc(pthread_mutex_init(&p.free_lock, NULL), "mutex");
	cond_ring_init(&p.q1);
	sem_ring_init(&p.q2);
	cond_ring_init(&p.q3);
	trans = bench_alloc(sizeof(*trans) * (size_t)o.threads);
	bench_check_rc(pthread_create(&prod, NULL, producer, &p), "create");
	for (i = 0; i < o.threads; i++)
		bench_check_rc(pthread_create(&trans[i], NULL, transformer,
					      &p), "create");
	bench_check_rc(pthread_create(&filt, NULL, filterer, &p), "create");
	bench_check_rc(pthread_create(&dig, NULL, digester, &p), "create");
	bench_check_rc(pthread_join(prod, NULL), "join");
	for (i = 0; i < o.threads; i++)
		bench_check_rc(pthread_join(trans[i], NULL), "join");
	bench_check_rc(pthread_join(filt, NULL), "join");
	bench_check_rc(pthread_join(dig, NULL), "join");
	bench_phase("stream");

	if (p.parseval_failures)
		bench_fail("%ld blocks failed the Parseval check",
			   p.parseval_failures);
	check = bench_alloc(sizeof(*check));
	for (seq = 0; seq < p.nblocks; seq += 37) {
		uint64_t h;

		produce_block(check, seq);
		transform_block(check);
		filter_block(check);
		h = digest_block(check);
		if (h != p.block_hash[seq])
			bench_fail("block %ld: hash %016llx in the pipeline, "
				   "%016llx sequentially", seq,
				   (unsigned long long)p.block_hash[seq],
				   (unsigned long long)h);
	}
	bench_phase("check");
	if (!o.quiet)
		printf("pipeline: %ld blocks, %d transform threads, stream "
		       "hash %016llx, %.3f s\n", p.nblocks, o.threads,
		       (unsigned long long)p.stream_hash, bench_now() - t0);
	free(check);
	free(trans);
	free(p.pool);
	free(p.block_hash);
	return 0;
}
