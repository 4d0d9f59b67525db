/*
 * bench_fine.c - fine-grained locking programs for the runtime benchmark
 * (bench_fine.py runs them bare and under the tracer and compares).  Each
 * mode checks its own result (exit 1 and a line on stderr when wrong) and
 * prints "name value" lines on stdout.
 *
 * WORK is in ns, converted to units of work with the unit's time measured
 * first (thread CPU time, best of five); a negative WORK is -units, as
 * bench_fine.py passes it after calibrating once for all runs.
 *   calibrate   ns per unit of work
 *   recreate [ROUNDS [NLOCKS]]
 *        two threads take NLOCKS mutexes (1,024) in random order, 4 x
 *        NLOCKS pairs each a round; between rounds (20) the main thread
 *        destroys and re-initialises every mutex at the same address while
 *        the threads still have them in their record maps.  Check: every
 *        increment counted.  Prints objects: the (round, mutex) pairs
 *        that were locked, each of which a tracer must count as an object
 *        of its own, with all the pairs' operations (bench_fine.py
 *        --quick compares with the report).
 *
 *   barnes [BODIES [OPS [WORK]]]
 *        the lock traffic of SPLASH barnes, two threads: a quadtree of
 *        BODIES bodies built concurrently with a mutex per cell (heap
 *        nodes, descent without locks, the cell whose child changes is
 *        locked: thousands of distinct locks), then OPS iterations a
 *        thread of WORK ns of work (120) and one lock pair on one of 2,048
 *        cell mutexes in random order, one in 32 on one of four hot ones
 *        the two threads contend for.  Checks: every body in the tree
 *        once, in the cell its position selects; every increment counted.
 *   taskq [ROOTS [DEPTH [WORK]]]
 *        the task queues of fmm and radiosity, two threads: a mutex-
 *        protected deque per thread, tasks spawning three children down to
 *        DEPTH, popped from the own end, stolen from the other thread's
 *        far end when empty; every task of WORK ns (600) adds to one of 4,096
 *        patch accumulators under the patch's mutex.  Checks: the sum of
 *        all accumulators and the number of tasks run.
 *   manylocks [NLOCKS [PAIRS [WORK]]]
 *        one thread, uncontended lock+unlock pairs over NLOCKS distinct
 *        mutexes in a random order (a fresh permutation every 10^4 pairs
 *        or more, made outside the timed part); CPU ns per pair (the
 *        thread's CPU time: less disturbed by other tenants than the
 *        elapsed time).  With WORK (ns, default 0), that much work before
 *        each pair, and the CPU ns per iteration: what a lock pair adds
 *        where the processor cannot overlap it with more lock pairs.
 *
 * Outputs: elapsed_s (the computation; for manylocks the thread's CPU
 * time in it), pairs (lock pairs taken), and for manylocks pair_ns.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static volatile double sink;
static int work_units;

/* A unit of work: one step of a dependent floating-point chain. */
__attribute__((noinline)) static void work(int n)
{
	double x = 1.0;

	for (int i = 0; i < n; i++)
		x = x * 1.0000001 + 0.5;
	sink += x;
}

/* ns per unit of work: best of five rounds of 20,000 calls of 100 units
 * (calls as short as the programs make; about 2 ms a round). */
static double unit_ns(void)
{
	double best = 1e9;

	for (int r = 0; r < 5; r++) {
		double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

		for (int i = 0; i < 20000; i++)
			work(100);
		double ns = (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0) /
			    (20000 * 100) * 1e9;

		if (ns < best)
			best = ns;
	}
	return best;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void fail(const char *what, long got, long want)
{
	fprintf(stderr, "bench_fine: check failed: %s: %ld, expected %ld\n",
		what, got, want);
	exit(1);
}

static atomic_long pairs;
static _Thread_local long my_pairs;	/* added to pairs at the end */

static void run2(void *(*fn)(void *))
{
	pthread_t t[2];

	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fn, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

/* ---- barnes ----------------------------------------------------------- */

#define LEAF_MAX 8
#define MAX_DEPTH 24

struct node {
	pthread_mutex_t lk;		/* cells: guards child[] */
	_Atomic(struct node *) child[4];
	int leaf;			/* fixed at creation */
	int n;				/* leaf: bodies (parent's lock) */
	uint32_t body[LEAF_MAX];
};

static uint32_t *bx, *by;		/* body positions, 32-bit fixed point */
static long nbodies;
static struct node *root;
static long barnes_ops;
#define NCELL 2048
static pthread_mutex_t cell_lk[NCELL];
static long cell_count[NCELL];

static unsigned quad(uint32_t b, int depth)
{
	return ((bx[b] >> (31 - depth)) & 1) | (((by[b] >> (31 - depth)) & 1)
						 << 1);
}

static struct node *new_node(int leaf)
{
	struct node *c = calloc(1, sizeof(*c));

	if (!c) {
		perror("bench_fine");
		exit(1);
	}
	c->leaf = leaf;
	if (!leaf)
		pthread_mutex_init(&c->lk, NULL);
	return c;
}

/* A full leaf at @depth becomes a cell holding new leaves; not yet
 * published, so nothing else sees it. */
static struct node *split(const struct node *leaf, int depth)
{
	struct node *c = new_node(0);

	for (int i = 0; i < leaf->n; i++) {
		uint32_t b = leaf->body[i];
		unsigned q = quad(b, depth);
		struct node *l = atomic_load_explicit(&c->child[q],
						      memory_order_relaxed);

		if (!l) {
			l = new_node(1);
			atomic_store_explicit(&c->child[q], l,
					      memory_order_relaxed);
		}
		l->body[l->n++] = b;
	}
	return c;
}

/* Barnes's loadtree: descend without locks, lock the cell whose child
 * changes, look again under the lock. */
static void insert(uint32_t b)
{
	struct node *c = root;
	int depth = 0;

	for (;;) {
		unsigned q = quad(b, depth);
		struct node *ch = atomic_load_explicit(&c->child[q],
						       memory_order_acquire);

		if (ch && !ch->leaf) {
			c = ch;
			depth++;
			continue;
		}
		work(work_units);
		pthread_mutex_lock(&c->lk);
		my_pairs++;
		ch = atomic_load_explicit(&c->child[q], memory_order_relaxed);
		if (!ch) {
			ch = new_node(1);
			ch->body[ch->n++] = b;
			atomic_store_explicit(&c->child[q], ch,
					      memory_order_release);
		} else if (!ch->leaf) {
			pthread_mutex_unlock(&c->lk);
			continue;
		} else if (ch->n < LEAF_MAX || depth + 1 == MAX_DEPTH) {
			if (ch->n == LEAF_MAX)
				fail("bodies at one point", ch->n, LEAF_MAX);
			ch->body[ch->n++] = b;
		} else {
			/* the old leaf stays allocated: a racing reader may
			 * still look at it */
			struct node *nc = split(ch, depth + 1);

			atomic_store_explicit(&c->child[q], nc,
					      memory_order_release);
			pthread_mutex_unlock(&c->lk);
			continue;
		}
		pthread_mutex_unlock(&c->lk);
		return;
	}
}

/* Bodies under @c (at @depth, reached through the quadrants of @path),
 * each checked to lie in its cell. */
static long count_tree(const struct node *c, int depth, uint64_t px,
		       uint64_t py)
{
	long n = 0;

	if (c->leaf) {
		for (int i = 0; i < c->n; i++) {
			uint32_t b = c->body[i];

			if (depth && ((bx[b] >> (32 - depth)) != px ||
				      (by[b] >> (32 - depth)) != py))
				fail("body in the wrong cell", b, -1);
		}
		return c->n;
	}
	for (unsigned q = 0; q < 4; q++) {
		const struct node *ch = atomic_load(&c->child[q]);

		if (ch)
			n += count_tree(ch, depth + 1, px << 1 | (q & 1),
					py << 1 | (q >> 1));
	}
	return n;
}

static void *barnes_main(void *arg)
{
	long me = (long)arg;
	uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(me + 1);

	for (long b = me; b < nbodies; b += 2)
		insert((uint32_t)b);
	for (long i = 0; i < barnes_ops; i++) {
		uint64_t r = rnd(&s);
		unsigned k = (r & 31) == 0 ? (unsigned)(r >> 5) & 3 :
			     (unsigned)(r >> 8) % NCELL;

		work(work_units);
		pthread_mutex_lock(&cell_lk[k]);
		cell_count[k]++;
		pthread_mutex_unlock(&cell_lk[k]);
	}
	my_pairs += barnes_ops;
	atomic_fetch_add(&pairs, my_pairs);
	return NULL;
}

static void barnes(void)
{
	uint64_t s = 42;
	long total = 0;
	double t0;

	bx = malloc(nbodies * sizeof(*bx));
	by = malloc(nbodies * sizeof(*by));
	if (!bx || !by) {
		perror("bench_fine");
		exit(1);
	}
	for (long b = 0; b < nbodies; b++) {
		uint64_t r = rnd(&s);

		bx[b] = (uint32_t)r;
		by[b] = (uint32_t)(r >> 32);
	}
	for (int i = 0; i < NCELL; i++)
		pthread_mutex_init(&cell_lk[i], NULL);
	root = new_node(0);
	t0 = now_s();
	run2(barnes_main);
	printf("elapsed_s %.6f\n", now_s() - t0);
	if (count_tree(root, 0, 0, 0) != nbodies)
		fail("bodies in the tree", count_tree(root, 0, 0, 0), nbodies);
	for (int i = 0; i < NCELL; i++)
		total += cell_count[i];
	if (total != 2 * barnes_ops)
		fail("cell increments", total, 2 * barnes_ops);
	printf("pairs %ld\n", atomic_load(&pairs));
}

/* ---- taskq ------------------------------------------------------------ */

#define QCAP (1 << 16)
#define NPATCH 4096
#define FANOUT 3

struct task {
	uint32_t id;
	uint32_t depth;
};

struct deque {
	pthread_mutex_t lk;
	long head, tail;		/* steal at head, push/pop at tail */
	atomic_long size;		/* racy hint for thieves */
	struct task t[QCAP];
};

static struct deque dq[2];
static atomic_long outstanding;		/* tasks pushed, not yet finished */
static atomic_long tasks_run;
static int max_depth = 8;
static pthread_mutex_t patch_lk[NPATCH];
static long patch_sum[NPATCH];

static void push(struct deque *d, struct task tk)
{
	pthread_mutex_lock(&d->lk);
	if (d->tail - d->head == QCAP)
		fail("queue full", QCAP, QCAP);
	my_pairs++;
	d->t[d->tail++ % QCAP] = tk;
	atomic_store_explicit(&d->size, d->tail - d->head,
			      memory_order_relaxed);
	pthread_mutex_unlock(&d->lk);
}

/* Pop the own end (@own) or steal the far end; 0 when empty. */
static int pop(struct deque *d, int own, struct task *out)
{
	int got = 0;

	pthread_mutex_lock(&d->lk);
	my_pairs++;
	if (d->tail > d->head) {
		*out = own ? d->t[--d->tail % QCAP] : d->t[d->head++ % QCAP];
		atomic_store_explicit(&d->size, d->tail - d->head,
				      memory_order_relaxed);
		got = 1;
	}
	pthread_mutex_unlock(&d->lk);
	return got;
}

/* The value a task adds: its depth plus one. */
static void run_task(long me, struct task tk)
{
	unsigned p = (tk.id * 2654435761u) % NPATCH;

	work(work_units);
	pthread_mutex_lock(&patch_lk[p]);
	patch_sum[p] += tk.depth + 1;
	pthread_mutex_unlock(&patch_lk[p]);
	my_pairs++;
	if ((int)tk.depth < max_depth) {
		atomic_fetch_add(&outstanding, FANOUT);
		for (uint32_t k = 0; k < FANOUT; k++)
			push(&dq[me], (struct task){ tk.id * FANOUT + k + 1,
						     tk.depth + 1 });
	}
	atomic_fetch_add_explicit(&tasks_run, 1, memory_order_relaxed);
	atomic_fetch_sub(&outstanding, 1);
}

static void *taskq_main(void *arg)
{
	long me = (long)arg;
	struct task tk;

	while (atomic_load(&outstanding)) {
		if (pop(&dq[me], 1, &tk) ||
		    (atomic_load_explicit(&dq[1 - me].size,
					  memory_order_relaxed) &&
		     pop(&dq[1 - me], 0, &tk)))
			run_task(me, tk);
	}
	atomic_fetch_add(&pairs, my_pairs);
	return NULL;
}

static void taskq(long roots)
{
	long want_n = 0, want_sum = 0, level = roots, total = 0;
	double t0;

	for (int d = 0; d <= max_depth; d++) {
		want_n += level;
		want_sum += level * (d + 1);
		level *= FANOUT;
	}
	for (int i = 0; i < NPATCH; i++)
		pthread_mutex_init(&patch_lk[i], NULL);
	for (int i = 0; i < 2; i++)
		pthread_mutex_init(&dq[i].lk, NULL);
	atomic_store(&outstanding, roots);
	for (long i = 0; i < roots; i++)	/* all on thread 0: 1 steals */
		push(&dq[0], (struct task){ (uint32_t)(i * 1000003u), 0 });
	t0 = now_s();
	run2(taskq_main);
	printf("elapsed_s %.6f\n", now_s() - t0);
	for (int i = 0; i < NPATCH; i++)
		total += patch_sum[i];
	if (atomic_load(&tasks_run) != want_n)
		fail("tasks run", atomic_load(&tasks_run), want_n);
	if (total != want_sum)
		fail("patch sum", total, want_sum);
	printf("pairs %ld\n", atomic_load(&pairs));
}

/* ---- recreate --------------------------------------------------------- */

/*
 * Two workers take NLOCKS mutexes in random order; between rounds, while
 * they wait at a barrier, the main thread destroys and re-initialises
 * every mutex at the same address, so the workers' record maps name
 * records of objects that no longer exist (and, after grace periods,
 * memory reused for other objects).
 */
static pthread_mutex_t *rc_lk;
static long *rc_count, *rc_seen;	/* seen: counts at the last round */
static long rc_n, rc_pairs, rc_rounds;
static pthread_barrier_t rc_bar;

static void *recreate_main(void *arg)
{
	uint64_t s = 0x2545f4914f6cdd1dull * (uint64_t)((long)arg + 1);

	for (long r = 0; r < rc_rounds; r++) {
		pthread_barrier_wait(&rc_bar);	/* mutexes are fresh */
		for (long i = 0; i < rc_pairs; i++) {
			long k = (long)(rnd(&s) % (uint64_t)rc_n);

			pthread_mutex_lock(&rc_lk[k]);
			rc_count[k]++;
			pthread_mutex_unlock(&rc_lk[k]);
		}
		pthread_barrier_wait(&rc_bar);	/* round done */
	}
	return NULL;
}

static void recreate(long rounds, long n)
{
	pthread_t t[2];
	long total = 0, touched = 0;
	double t0;

	rc_n = n;
	rc_rounds = rounds;
	rc_pairs = 4 * n;
	rc_lk = malloc(n * sizeof(*rc_lk));
	rc_count = calloc(n, sizeof(*rc_count));
	rc_seen = calloc(n, sizeof(*rc_seen));
	if (!rc_lk || !rc_count || !rc_seen) {
		perror("bench_fine");
		exit(1);
	}
	for (long i = 0; i < n; i++)
		pthread_mutex_init(&rc_lk[i], NULL);
	pthread_barrier_init(&rc_bar, NULL, 3);
	t0 = now_s();
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, recreate_main, (void *)i);
	for (long r = 0; r < rounds; r++) {
		pthread_barrier_wait(&rc_bar);
		pthread_barrier_wait(&rc_bar);
		for (long i = 0; i < n; i++) {
			if (pthread_mutex_destroy(&rc_lk[i]) != 0)
				fail("mutex busy at destroy", i, -1);
			pthread_mutex_init(&rc_lk[i], NULL);
			touched += rc_count[i] != rc_seen[i];
			rc_seen[i] = rc_count[i];
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("elapsed_s %.6f\n", now_s() - t0);
	for (long i = 0; i < n; i++)
		total += rc_count[i];
	if (total != 2 * rounds * rc_pairs)
		fail("increments", total, 2 * rounds * rc_pairs);
	printf("pairs %ld\n", total);
	printf("objects %ld\n", touched);
}

/* ---- manylocks -------------------------------------------------------- */

static void manylocks(long n, long npairs, int units)
{
	pthread_mutex_t *m = malloc(n * sizeof(*m));
	uint32_t *perm = malloc(n * sizeof(*perm));
	uint64_t s = 7;
	/* sweeps of at least 10^4 pairs between clock reads */
	long done = 0, reps = n < 10000 ? 10000 / n : 1;
	double t0, el = 0;

	if (!m || !perm) {
		perror("bench_fine");
		exit(1);
	}
	for (long i = 0; i < n; i++) {
		pthread_mutex_init(&m[i], NULL);
		perm[i] = (uint32_t)i;
	}
	while (done < npairs) {
		/* a new order for every sweep, not timed */
		for (long i = n - 1; i > 0; i--) {
			long j = (long)(rnd(&s) % (uint64_t)(i + 1));
			uint32_t x = perm[i];

			perm[i] = perm[j];
			perm[j] = x;
		}
		t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		for (long k = 0; k < reps; k++) {
			for (long i = 0; i < n; i++) {
				if (units)
					work(units);
				pthread_mutex_lock(&m[perm[i]]);
				pthread_mutex_unlock(&m[perm[i]]);
			}
		}
		el += clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
		done += n * reps;
	}
	for (long i = 0; i < n; i++)
		if (pthread_mutex_trylock(&m[i]) != 0)
			fail("mutex left locked", i, -1);
	printf("elapsed_s %.6f\n", el);
	printf("pairs %ld\n", done);
	printf("pair_ns %.3f\n", el / (double)done * 1e9);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long a2 = argc > 2 ? atol(argv[2]) : 0;
	long a3 = argc > 3 ? atol(argv[3]) : 0;
	double ns = argc > 4 ? atof(argv[4]) : 0;

	if (!strcmp(mode, "barnes")) {
		work_units = ns < 0 ? (int)-ns :
			     (int)((ns > 0 ? ns : 120) / unit_ns() + 0.5);
		nbodies = a2 > 0 ? a2 : 1 << 17;
		barnes_ops = a3 > 0 ? a3 : 2000000;
		barnes();
	} else if (!strcmp(mode, "taskq")) {
		work_units = ns < 0 ? (int)-ns :
			     (int)((ns > 0 ? ns : 600) / unit_ns() + 0.5);
		if (a3 > 0)
			max_depth = (int)a3;
		taskq(a2 > 0 ? a2 : 64);
	} else if (!strcmp(mode, "manylocks")) {
		work_units = ns < 0 ? (int)-ns :
			     ns > 0 ? (int)(ns / unit_ns() + 0.5) : 0;
		manylocks(a2 > 0 ? a2 : 10000, a3 > 0 ? a3 : 10000000,
			  work_units);
	} else if (!strcmp(mode, "recreate")) {
		recreate(a2 > 0 ? a2 : 20, a3 > 0 ? a3 : 1024);
	} else if (!strcmp(mode, "calibrate")) {
		printf("unit_ns %.4f\n", unit_ns());
	} else {
		fprintf(stderr, "usage: %s barnes [BODIES [OPS [WORK]]] | "
			"taskq [ROOTS [DEPTH [WORK]]] | "
			"manylocks [NLOCKS [PAIRS [WORK]]] | "
			"recreate [ROUNDS [NLOCKS]] | calibrate\n", argv[0]);
		return 2;
	}
	return 0;
}
