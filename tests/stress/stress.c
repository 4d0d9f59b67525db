/*
 * stress.c - a random synchronization workload, fixed by a seed, for the
 * online/offline agreement test (check_stress.c).
 *
 *   stress SEED [PERCENT [REPEAT]]
 *
 * The seed fixes everything but timing: the number of threads (4-6, main
 * included), of rounds, and each thread's sequence of operations.  What
 * the interleaving decides (who takes a lock first, whether a trylock
 * succeeds, which waiter a signal wakes) is left to the run, so every run
 * of one seed is a different graph of the same program.  PERCENT (default
 * 100) scales every burn; REPEAT (default 1) runs the rounds that many
 * times over (long traces: several buffers per thread).
 *
 * A round of every thread:
 *   phase 1   "free" operations: CPU burns; nested mutexes taken in one
 *             global order (a spin lock last); a recursive mutex taken 1-3
 *             times; trylocks and timedlocks with short deadlines; spin
 *             locks; rwlock read/write (also try, and reads taken twice);
 *             producing a cond-variable ticket (signal or broadcast);
 *             semaphore posts and trywaits (a token got is posted back);
 *             enqueueing an item; nested and recursive procedure calls;
 *             regions; creating a helper thread (which runs free
 *             operations of its own, then returns or calls pthread_exit)
 *             and joining it
 *   [barrier] in some rounds (every thread alike)
 *   phase 2   waits, mixed with more free operations: a ticket from the
 *             cond variable (predicate loop), a semaphore token (both
 *             sometimes by timed waits with short deadlines, retried), an
 *             item from the work queue
 *   barrier
 *
 * Why it never deadlocks, whatever the interleaving: a free operation
 * only ever waits for a lock, and locks are held only around free
 * operations, taken in one global order (trylocks wait for nothing), so
 * every free operation ends; a helper does free operations only.  So
 * every thread finishes phase 1.  The waits of phase 2 of round r take at
 * most what was produced before round r plus what phase 1 of round r
 * produces (the plan counts it), so every wait ends once phase 1 is done
 * everywhere; production in phase 2 is a surplus carried on (so a
 * repetition of the rounds starts with at least what the first did).  A trywait
 * that gets a token posts it back.  The barriers are reached by every
 * thread the same number of times.  No thread waits while holding a lock.
 *
 * The work queue's lock is untracked and its items are annotated; the
 * number of items is counted by a silent (untracked) semaphore, so a
 * dequeue depends on its item's enqueue only.
 *
 * Procedures (built with -finstrument-functions): stress_nest (recursive),
 * stress_leaf, stress_crit (inside lock holds), stress_consume (holds a
 * cond wait), stress_helper (a helper thread's body); regions "region_a"
 * (nested in itself, inside procedures) and "region_b" (open across a
 * barrier).  STRESS_NO_REGIONS=1 leaves the regions out.
 */
#include "wl.h"

#include <stdbool.h>

#define MAX_THREADS	6
#define MAX_ROUNDS	6
#define MAX_OPS		24	/* per thread, round and phase */
#define MAX_HELPER_OPS	6
#define NMUTEX		4
#define NSPIN		2
#define NRW		2
#define MAX_ITEMS	65536

enum op_kind {
	OP_BURN,
	OP_LOCKS,	/* a: mask of mutexes, b: 1 = a spin lock last */
	OP_RECURSIVE,	/* a: depth */
	OP_TRYLOCK,	/* a: mutex, b: 1 = timedlock (short deadline) */
	OP_SPIN,	/* a: spin lock */
	OP_RDLOCK,	/* a: rwlock, b: 1 = try, 2 = twice (recursive) */
	OP_WRLOCK,	/* a: rwlock, b: 1 = try */
	OP_PRODUCE,	/* b: 1 = broadcast */
	OP_POST,
	OP_TRYWAIT,
	OP_ENQUEUE,
	OP_NEST,	/* a: depth, b: 1 = region_a inside */
	OP_REGION,	/* a: nesting of region_a */
	OP_HELPER,	/* a | b << 8: helper index */
	/* phase 2 only */
	OP_CONSUME,	/* b: 1 = timed waits (short deadlines, retried) */
	OP_WAIT,	/* b: 1 = timed waits (short deadlines, retried) */
	OP_DEQUEUE,
	OP_FREE_KINDS = OP_HELPER + 1,
};

struct op {
	uint8_t kind;
	uint8_t a, b;
	uint16_t us;	/* burn, microseconds (times SCALE) */
};

struct seq {
	uint32_t n;
	struct op op[MAX_OPS];
};

struct helper {
	uint32_t n;
	bool pthread_exit;	/* ends with pthread_exit() */
	struct op op[MAX_HELPER_OPS];
};

/* The plan: everything the seed decides. */
static uint32_t nthreads, nrounds;
static struct seq plan[MAX_THREADS][MAX_ROUNDS][2];
static bool mid_barrier[MAX_ROUNDS];	/* barrier between the phases */
static bool region_b_across[MAX_THREADS][MAX_ROUNDS];
static struct helper helpers[MAX_THREADS * MAX_ROUNDS * MAX_OPS];
static uint32_t nhelpers;
static unsigned percent = 100, repeat = 1;

/* The objects. */
static pthread_mutex_t mutex[NMUTEX];
static pthread_mutex_t rec;
static pthread_spinlock_t spin[NSPIN];
static pthread_rwlock_t rw[NRW];
static pthread_barrier_t barrier;
static pthread_mutex_t cmutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static unsigned tickets;	/* protected by cmutex */
static sem_t sem;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;	/* untracked */
static sem_t qcount;		/* silent: items in the queue */
static int items[MAX_ITEMS];	/* their addresses are the items */
static unsigned qhead, qtail, nitems;	/* under qlock */
static volatile unsigned sink;

/* ---- the seed ------------------------------------------------------- */

static uint64_t rng;

static WL_NOINSTR uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static WL_NOINSTR unsigned pick(unsigned lo, unsigned hi)
{
	return lo + (unsigned)(rnd() % (hi - lo + 1));
}

/* Production of each kind by one free operation (for the balance). */
struct prod {
	unsigned tickets, tokens, items;
};

static WL_NOINSTR void count_prod(const struct op *o, struct prod *p)
{
	if (o->kind == OP_PRODUCE)
		p->tickets++;
	else if (o->kind == OP_POST)
		p->tokens++;
	else if (o->kind == OP_ENQUEUE)
		p->items++;
	else if (o->kind == OP_HELPER)
		for (uint32_t i = 0; i < helpers[o->a].n; i++)
			count_prod(&helpers[o->a].op[i], p);
}

/* A random free operation; @helper_ok: may create a helper. */
static WL_NOINSTR struct op free_op(bool helper_ok)
{
	struct op o = { .us = (uint16_t)pick(10, 300) };
	unsigned k = pick(0, helper_ok ? OP_FREE_KINDS - 1 : OP_HELPER - 1);

	o.kind = (uint8_t)k;
	switch (k) {
	case OP_LOCKS:
		o.a = (uint8_t)pick(1, (1u << NMUTEX) - 1);
		o.b = (uint8_t)pick(0, 1);
		break;
	case OP_RECURSIVE:
		o.a = (uint8_t)pick(1, 3);
		break;
	case OP_TRYLOCK:
		o.a = (uint8_t)pick(0, NMUTEX - 1);
		o.b = (uint8_t)pick(0, 1);
		break;
	case OP_SPIN:
		o.a = (uint8_t)pick(0, NSPIN - 1);
		o.us = (uint16_t)pick(5, 60);
		break;
	case OP_RDLOCK:
		o.a = (uint8_t)pick(0, NRW - 1);
		o.b = (uint8_t)(pick(0, 3) == 0 ? pick(1, 2) : 0);
		break;
	case OP_WRLOCK:
		o.a = (uint8_t)pick(0, NRW - 1);
		o.b = pick(0, 3) == 0;
		break;
	case OP_PRODUCE:
		o.b = (uint8_t)pick(0, 1);
		break;
	case OP_NEST:
		o.a = (uint8_t)pick(1, 4);
		o.b = (uint8_t)pick(0, 1);
		break;
	case OP_REGION:
		o.a = (uint8_t)pick(1, 2);
		break;
	case OP_HELPER: {
		struct helper *h = &helpers[nhelpers];

		h->n = pick(1, MAX_HELPER_OPS);
		h->pthread_exit = pick(0, 1);
		for (uint32_t i = 0; i < h->n; i++)
			h->op[i] = free_op(false);
		/* index stored in a and b (up to 65535 helpers) */
		o.a = (uint8_t)(nhelpers & 0xff);
		o.b = (uint8_t)(nhelpers >> 8);
		nhelpers++;
		break;
	}
	default:
		break;
	}
	return o;
}

static WL_NOINSTR unsigned helper_index(const struct op *o)
{
	return o->a | (unsigned)o->b << 8;
}

static WL_NOINSTR void make_plan(uint64_t seed)
{
	struct prod carry = { 0, 0, 0 };

	rng = seed * 0x2545f4914f6cdd1du + 1;
	nthreads = pick(4, MAX_THREADS);
	nrounds = pick(3, MAX_ROUNDS);
	for (uint32_t r = 0; r < nrounds; r++) {
		struct prod made = carry;
		unsigned want[3];

		mid_barrier[r] = pick(0, 3) == 0;
		for (uint32_t t = 0; t < nthreads; t++) {
			struct seq *s = &plan[t][r][0];

			s->n = pick(3, 9);
			for (uint32_t i = 0; i < s->n; i++) {
				s->op[i] = free_op(true);
				count_prod(&s->op[i], &made);
			}
			region_b_across[t][r] = pick(0, 3) == 0;
		}
		/* phase 2: waits, at most what is there, spread at random */
		want[0] = pick(0, made.tickets);
		want[1] = pick(0, made.tokens);
		want[2] = pick(0, made.items);
		for (uint32_t t = 0; t < nthreads; t++)
			plan[t][r][1].n = 0;
		for (unsigned k = 0; k < 3; k++) {
			for (unsigned i = 0; i < want[k]; i++) {
				struct seq *s;
				uint32_t t = pick(0, nthreads - 1);

				s = &plan[t][r][1];
				if (s->n >= MAX_OPS - 4)
					continue;	/* fewer waits: fine */
				s->op[s->n].kind = (uint8_t)(OP_CONSUME + k);
				s->op[s->n].b = pick(0, 3) == 0;
				s->op[s->n].us = (uint16_t)pick(10, 200);
				s->n++;
				if (k == 0)
					made.tickets--;
				else if (k == 1)
					made.tokens--;
				else
					made.items--;
			}
		}
		/* shuffle each phase 2 and add a few free operations (their
		 * production is surplus for later rounds) */
		for (uint32_t t = 0; t < nthreads; t++) {
			struct seq *s = &plan[t][r][1];
			unsigned extra = pick(0, 3);

			for (unsigned i = 0; i < extra && s->n < MAX_OPS; i++) {
				s->op[s->n] = free_op(false);
				count_prod(&s->op[s->n], &made);
				s->n++;
			}
			for (uint32_t i = s->n; i > 1; i--) {
				uint32_t j = pick(0, i - 1);
				struct op tmp = s->op[i - 1];

				s->op[i - 1] = s->op[j];
				s->op[j] = tmp;
			}
		}
		carry = made;
	}
}

/* ---- the operations ------------------------------------------------- */

/* STRESS_NO_REGIONS=1 in the environment: no region annotations (the
 * procedures alone). */
static bool no_regions;

static WL_NOINSTR void region_begin(const char *name)
{
	if (!no_regions)
		cpthread_region_begin(name);
}

static WL_NOINSTR void region_end(const char *name)
{
	if (!no_regions)
		cpthread_region_end(name);
}

static WL_NOINSTR void burn_us(unsigned us)
{
	uint64_t end = wl_now(wl_clock_id) + (uint64_t)us * percent * 10u;

	do {
		for (unsigned i = 0; i < 50; i++)
			sink += i;
	} while (wl_now(wl_clock_id) < end);
}

__attribute__((noipa)) void stress_leaf(unsigned us);
__attribute__((noipa)) void stress_nest(unsigned depth, unsigned us,
					bool region);
__attribute__((noipa)) void stress_crit(unsigned us);
__attribute__((noipa)) void stress_consume(unsigned us, bool timed);
__attribute__((noipa)) void *stress_helper(void *arg);

__attribute__((noipa)) void stress_leaf(unsigned us)
{
	burn_us(us);
}

/* Recursive: the inclusive time of a procedure active several times. */
__attribute__((noipa)) void stress_nest(unsigned depth, unsigned us,
					bool region)
{
	burn_us(us / 2);
	if (region)
		region_begin("region_a");
	if (depth > 1)
		stress_nest(depth - 1, us, region);
	else
		stress_leaf(us);
	if (region)
		region_end("region_a");
	burn_us(us / 4);
}

__attribute__((noipa)) void stress_crit(unsigned us)
{
	burn_us(us);
}

static void do_locks(unsigned mask, bool with_spin, unsigned us)
{
	for (unsigned i = 0; i < NMUTEX; i++)
		if (mask & (1u << i))
			WL_OK(pthread_mutex_lock(&mutex[i]));
	if (with_spin)
		WL_OK(pthread_spin_lock(&spin[mask % NSPIN]));
	stress_crit(us / 2);
	if (with_spin)
		WL_OK(pthread_spin_unlock(&spin[mask % NSPIN]));
	burn_us(us / 2);
	/* release in a mixed order: unlocking never waits */
	for (unsigned i = 0; i < NMUTEX; i++) {
		unsigned j = (i + mask) % NMUTEX;

		if (mask & (1u << j))
			WL_OK(pthread_mutex_unlock(&mutex[j]));
	}
}

static void do_recursive(unsigned depth, unsigned us)
{
	WL_OK(pthread_mutex_lock(&rec));
	burn_us(us / 4);
	if (depth > 1)
		do_recursive(depth - 1, us);
	else
		stress_crit(us / 2);
	WL_OK(pthread_mutex_unlock(&rec));
	burn_us(us / 4);
}

static void do_rw(const struct op *o)
{
	pthread_rwlock_t *l = &rw[o->a];
	bool read = o->kind == OP_RDLOCK;
	int rc;

	if (o->b == 1)
		rc = read ? pthread_rwlock_tryrdlock(l)
			  : pthread_rwlock_trywrlock(l);
	else
		rc = read ? pthread_rwlock_rdlock(l) : pthread_rwlock_wrlock(l);
	if (rc != 0 && rc != EBUSY)
		WL_OK(rc);
	if (rc == 0) {
		if (o->b == 2) {
			/* a second read share: glibc's default rwlock
			 * prefers readers, so this never waits for a
			 * writer that waits for us */
			burn_us(o->us / 4);
			WL_OK(pthread_rwlock_rdlock(l));
			stress_crit(o->us / 2);
			WL_OK(pthread_rwlock_unlock(l));
		}
		stress_crit(o->us);
		WL_OK(pthread_rwlock_unlock(l));
	} else {
		burn_us(o->us / 2);
	}
}

static void produce(bool broadcast, unsigned us)
{
	burn_us(us / 2);
	WL_OK(pthread_mutex_lock(&cmutex));
	tickets++;
	burn_us(us / 4);
	if (broadcast)
		WL_OK(pthread_cond_broadcast(&cond));
	else
		WL_OK(pthread_cond_signal(&cond));
	WL_OK(pthread_mutex_unlock(&cmutex));
}

/* CLOCK_REALTIME @us microseconds from now. */
static WL_NOINSTR struct timespec deadline(unsigned us)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)us * 1000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

__attribute__((noipa)) void stress_consume(unsigned us, bool timed)
{
	WL_OK(pthread_mutex_lock(&cmutex));
	while (tickets == 0) {
		if (timed) {
			struct timespec ts = deadline(100);
			int rc = pthread_cond_timedwait(&cond, &cmutex, &ts);

			if (rc != ETIMEDOUT)
				WL_OK(rc);
		} else {
			WL_OK(pthread_cond_wait(&cond, &cmutex));
		}
	}
	tickets--;
	WL_OK(pthread_mutex_unlock(&cmutex));
	burn_us(us);
}

static void enqueue(unsigned us)
{
	burn_us(us);
	WL_OK(pthread_mutex_lock(&qlock));
	if (nitems == MAX_ITEMS) {
		fprintf(stderr, "stress: too many items\n");
		abort();
	}
	cpthread_enqueue(&qlock, &items[nitems]);
	nitems++;
	qtail++;
	WL_OK(pthread_mutex_unlock(&qlock));
	WL_OK(sem_post(&qcount));
}

static void dequeue(unsigned us)
{
	wl_sem_wait(&qcount);
	WL_OK(pthread_mutex_lock(&qlock));
	if (qhead == qtail) {
		fprintf(stderr, "stress: queue empty after its count\n");
		abort();
	}
	cpthread_dequeue(&qlock, &items[qhead]);
	qhead++;
	WL_OK(pthread_mutex_unlock(&qlock));
	burn_us(us);
}

static void run_op(const struct op *o);

__attribute__((noipa)) void *stress_helper(void *arg)
{
	const struct helper *h = arg;

	for (uint32_t i = 0; i < h->n; i++)
		run_op(&h->op[i]);
	if (h->pthread_exit)
		pthread_exit(NULL);
	return NULL;
}

static void run_op(const struct op *o)
{
	pthread_t th;
	int rc;

	switch (o->kind) {
	case OP_BURN:
		burn_us(o->us);
		break;
	case OP_LOCKS:
		do_locks(o->a, o->b, o->us);
		break;
	case OP_RECURSIVE:
		do_recursive(o->a, o->us);
		break;
	case OP_TRYLOCK:
		if (o->b) {
			struct timespec ts = deadline(o->us / 4);

			rc = pthread_mutex_timedlock(&mutex[o->a], &ts);
			if (rc == ETIMEDOUT)
				rc = EBUSY;
		} else {
			rc = pthread_mutex_trylock(&mutex[o->a]);
		}
		if (rc != 0 && rc != EBUSY)
			WL_OK(rc);
		if (rc == 0) {
			stress_crit(o->us);
			WL_OK(pthread_mutex_unlock(&mutex[o->a]));
		} else {
			burn_us(o->us / 2);
		}
		break;
	case OP_SPIN:
		WL_OK(pthread_spin_lock(&spin[o->a]));
		burn_us(o->us);
		WL_OK(pthread_spin_unlock(&spin[o->a]));
		break;
	case OP_RDLOCK:
	case OP_WRLOCK:
		do_rw(o);
		break;
	case OP_PRODUCE:
		produce(o->b, o->us);
		break;
	case OP_POST:
		burn_us(o->us);
		WL_OK(sem_post(&sem));
		break;
	case OP_TRYWAIT:
		burn_us(o->us / 2);
		if (sem_trywait(&sem) == 0) {
			burn_us(o->us / 2);
			WL_OK(sem_post(&sem));
		} else if (errno != EAGAIN) {
			perror("sem_trywait");
			abort();
		}
		break;
	case OP_ENQUEUE:
		enqueue(o->us);
		break;
	case OP_NEST:
		stress_nest(o->a, o->us, o->b);
		break;
	case OP_REGION:
		region_begin("region_a");
		burn_us(o->us / 2);
		if (o->a > 1) {
			region_begin("region_a");
			stress_leaf(o->us / 2);
			region_end("region_a");
		}
		region_end("region_a");
		break;
	case OP_HELPER:
		WL_OK(pthread_create(&th, NULL, stress_helper,
				     &helpers[helper_index(o)]));
		burn_us(o->us / 2);
		WL_OK(pthread_join(th, NULL));
		break;
	case OP_CONSUME:
		stress_consume(o->us, o->b);
		break;
	case OP_WAIT:
		if (o->b) {
			for (;;) {
				struct timespec ts = deadline(100);

				if (sem_timedwait(&sem, &ts) == 0)
					break;
				if (errno != ETIMEDOUT && errno != EINTR) {
					perror("sem_timedwait");
					abort();
				}
			}
		} else {
			wl_sem_wait(&sem);
		}
		burn_us(o->us);
		break;
	case OP_DEQUEUE:
		dequeue(o->us);
		break;
	default:
		fprintf(stderr, "stress: bad op %u\n", o->kind);
		abort();
	}
}

static void barrier_wait(void)
{
	int rc = pthread_barrier_wait(&barrier);

	if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
		WL_OK(rc);
}

static void *worker(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	bool region_b = false;

	for (uint32_t k = 0; k < nrounds * repeat; k++) {
		uint32_t r = k % nrounds;

		for (uint32_t i = 0; i < plan[t][r][0].n; i++)
			run_op(&plan[t][r][0].op[i]);
		if (mid_barrier[r])
			barrier_wait();
		for (uint32_t i = 0; i < plan[t][r][1].n; i++)
			run_op(&plan[t][r][1].op[i]);
		if (region_b_across[t][r] && !region_b) {
			region_begin("region_b");
			region_b = true;
		}
		barrier_wait();
		if (region_b && !region_b_across[t][r]) {
			region_end("region_b");
			region_b = false;
		}
	}
	if (region_b)
		region_end("region_b");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	pthread_mutexattr_t ra;
	unsigned long long seed;

	wl_init();
	if (argc < 2 || sscanf(argv[1], "%llu", &seed) != 1) {
		fprintf(stderr, "usage: stress SEED [SCALE]\n");
		return 2;
	}
	if (argc > 2)
		percent = (unsigned)atoi(argv[2]);
	if (argc > 3)
		repeat = (unsigned)atoi(argv[3]);
	if (percent < 1 || repeat < 1) {
		fprintf(stderr, "stress: PERCENT and REPEAT are at least 1\n");
		return 2;
	}
	make_plan(seed);
	no_regions = getenv("STRESS_NO_REGIONS") &&
		     strcmp(getenv("STRESS_NO_REGIONS"), "1") == 0;

	for (unsigned i = 0; i < NMUTEX; i++)
		WL_OK(pthread_mutex_init(&mutex[i], NULL));
	WL_OK(pthread_mutexattr_init(&ra));
	WL_OK(pthread_mutexattr_settype(&ra, PTHREAD_MUTEX_RECURSIVE));
	WL_OK(pthread_mutex_init(&rec, &ra));
	WL_OK(pthread_mutexattr_destroy(&ra));
	for (unsigned i = 0; i < NSPIN; i++)
		WL_OK(pthread_spin_init(&spin[i], PTHREAD_PROCESS_PRIVATE));
	for (unsigned i = 0; i < NRW; i++)
		WL_OK(pthread_rwlock_init(&rw[i], NULL));
	WL_OK(pthread_barrier_init(&barrier, NULL, nthreads));
	WL_OK(sem_init(&sem, 0, 0));
	wl_silent_init(&qcount);
	cpthread_untrack(&qlock);

	for (uint32_t t = 1; t < nthreads; t++)
		WL_OK(pthread_create(&th[t], NULL, worker,
				     (void *)(uintptr_t)t));
	worker((void *)0);
	for (uint32_t t = 1; t < nthreads; t++)
		WL_OK(pthread_join(th[t], NULL));
	printf("stress %llu: %u threads, %u rounds, %u helpers, %u items\n",
	       seed, nthreads, nrounds, nhelpers, nitems);
	return 0;
}
