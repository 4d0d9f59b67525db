/*
 * preserve.c - every wrapped call, on its success and failure paths, with
 * its return value and errno printed.  The output must be the same bare,
 * preloaded and linked, in every tracer mode: the tracer must not change
 * what the program sees.
 *
 * errno is set to a sentinel before each call and printed after it, so a
 * tracer that clobbers errno on the way (its own clock or allocation
 * calls) shows up as well.  Only the main thread prints; helper threads
 * record their results, printed after a join, so the output does not
 * depend on scheduling.  Failures that need another thread to hold an
 * object use a holder thread that takes the object, says so on a
 * semaphore, and lets go when told.  Timeouts are short (20 ms) and are
 * only used where nobody can end the wait early.  C11 <threads.h> calls
 * print their thrd_* result by name.
 */
#include "wl.h"

#include <limits.h>
#include <threads.h>

#define SENTINEL 4242

static const char *err_name(long e)
{
	switch (e) {
	case 0: return "0";
	case EBUSY: return "EBUSY";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EDEADLK: return "EDEADLK";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case EAGAIN: return "EAGAIN";
	case EOVERFLOW: return "EOVERFLOW";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EOWNERDEAD: return "EOWNERDEAD";
	case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
	case SENTINEL: return "unchanged";
	default: return NULL;
	}
}

static void show(const char *label, long rc, int err)
{
	const char *rn = rc == -1 ? "-1" : err_name(rc);
	const char *en = err_name(err);

	if (rn)
		printf("%-44s = %s", label, rn);
	else
		printf("%-44s = %ld", label, rc);
	if (en)
		printf("  errno %s\n", en);
	else
		printf("  errno %d\n", err);
}

/* Run @expr with errno at the sentinel; print its value and errno. */
#define T(label, expr)						\
	do {							\
		long rc_;					\
		int e_;						\
		errno = SENTINEL;				\
		rc_ = (long)(expr);				\
		e_ = errno;					\
		show(label, rc_, e_);				\
	} while (0)

static struct timespec after_ms(clockid_t id, long ms)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	ts.tv_nsec += (ms % 1000) * 1000000L;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

static struct timespec bad_ts(void)
{
	struct timespec ts = after_ms(CLOCK_REALTIME, 1000);

	ts.tv_nsec = 1000000000L;	/* out of range */
	return ts;
}

/* ---------------------------------------------------------------- */
/* A holder thread: takes an object, posts "held", waits "release". */

enum hold_what {
	HOLD_MUTEX, HOLD_SPIN, HOLD_RDLOCK, HOLD_WRLOCK,
};

struct holder {
	pthread_t tid;
	enum hold_what what;
	void *obj;
	int unlock;		/* let go at the end (0: main unlocks) */
	sem_t held, release;
	int rc_take, rc_give;
};

static void *holder_main(void *arg)
{
	struct holder *h = arg;

	switch (h->what) {
	case HOLD_MUTEX:
		h->rc_take = pthread_mutex_lock(h->obj);
		break;
	case HOLD_SPIN:
		h->rc_take = pthread_spin_lock(h->obj);
		break;
	case HOLD_RDLOCK:
		h->rc_take = pthread_rwlock_rdlock(h->obj);
		break;
	case HOLD_WRLOCK:
		h->rc_take = pthread_rwlock_wrlock(h->obj);
		break;
	}
	sem_post(&h->held);
	wl_sem_wait(&h->release);
	if (!h->unlock)
		return NULL;
	switch (h->what) {
	case HOLD_MUTEX:
		h->rc_give = pthread_mutex_unlock(h->obj);
		break;
	case HOLD_SPIN:
		h->rc_give = pthread_spin_unlock(h->obj);
		break;
	case HOLD_RDLOCK:
	case HOLD_WRLOCK:
		h->rc_give = pthread_rwlock_unlock(h->obj);
		break;
	}
	return NULL;
}

static void hold(struct holder *h, enum hold_what what, void *obj,
		 int unlock)
{
	memset(h, 0, sizeof(*h));
	h->what = what;
	h->obj = obj;
	h->unlock = unlock;
	WL_OK(sem_init(&h->held, 0, 0));
	WL_OK(sem_init(&h->release, 0, 0));
	WL_OK(pthread_create(&h->tid, NULL, holder_main, h));
	wl_sem_wait(&h->held);
}

static void let_go(struct holder *h)
{
	WL_OK(sem_post(&h->release));
	WL_OK(pthread_join(h->tid, NULL));
	printf("  holder: take %s give %s\n", err_name(h->rc_take),
	       err_name(h->rc_give));
	WL_OK(sem_destroy(&h->held));
	WL_OK(sem_destroy(&h->release));
}

/* ---------------------------------------------------------------- */
/* Threads: create, join, tryjoin_np, timedjoin_np, exit, detach. */

static sem_t go;

static void *wait_go(void *arg)
{
	wl_sem_wait(&go);
	return arg;
}

static void *exit_42(void *arg)
{
	(void)arg;
	pthread_exit((void *)42);
}

static sem_t detached_done;

static void *detached_main(void *arg)
{
	(void)arg;
	sem_post(&detached_done);
	return NULL;
}

static void test_threads(void)
{
	pthread_t t;
	pthread_attr_t attr;
	struct timespec ts;
	void *ret = NULL;
	int rc;

	printf("== threads\n");
	WL_OK(sem_init(&go, 0, 0));
	T("pthread_create", pthread_create(&t, NULL, wait_go, (void *)7));
	T("pthread_tryjoin_np running", pthread_tryjoin_np(t, &ret));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("pthread_timedjoin_np running", pthread_timedjoin_np(t, &ret, &ts));
	/* no bad-timespec case: glibc 2.36 spins forever on EINVAL there */
	WL_OK(sem_post(&go));
	T("pthread_join", pthread_join(t, &ret));
	printf("  retval %ld\n", (long)ret);
	T("pthread_join self", pthread_join(pthread_self(), &ret));

	T("pthread_create (exits 42)", pthread_create(&t, NULL, exit_42, NULL));
	ts = after_ms(CLOCK_REALTIME, 60000);
	T("pthread_timedjoin_np", pthread_timedjoin_np(t, &ret, &ts));
	printf("  retval %ld\n", (long)ret);

	T("pthread_create", pthread_create(&t, NULL, wait_go, (void *)9));
	WL_OK(sem_post(&go));
	do {
		errno = SENTINEL;
		rc = pthread_tryjoin_np(t, &ret);
	} while (rc == EBUSY && (sched_yield(), 1));
	show("pthread_tryjoin_np finished", rc, errno);
	printf("  retval %ld\n", (long)ret);

	WL_OK(sem_init(&detached_done, 0, 0));
	WL_OK(pthread_attr_init(&attr));
	WL_OK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED));
	T("pthread_create detached", pthread_create(&t, &attr, detached_main,
						      NULL));
	WL_OK(pthread_attr_destroy(&attr));
	wl_sem_wait(&detached_done);
	T("pthread_create", pthread_create(&t, NULL, wait_go, NULL));
	T("pthread_detach", pthread_detach(t));
	WL_OK(sem_post(&go));
	/* go stays alive: the detached thread may still be leaving it. */
}

/* ---------------------------------------------------------------- */
/* Mutexes: normal, error-checking, recursive. */

static pthread_mutex_t m_normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_check = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t m_rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void timed_failures(pthread_mutex_t *m)
{
	struct timespec ts;

	T("  pthread_mutex_trylock held elsewhere", pthread_mutex_trylock(m));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("  pthread_mutex_timedlock held elsewhere",
	  pthread_mutex_timedlock(m, &ts));
	ts = bad_ts();
	T("  pthread_mutex_timedlock bad timespec",
	  pthread_mutex_timedlock(m, &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("  pthread_mutex_clocklock MONOTONIC",
	  pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &ts));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("  pthread_mutex_clocklock REALTIME",
	  pthread_mutex_clocklock(m, CLOCK_REALTIME, &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("  pthread_mutex_clocklock bad clock",
	  pthread_mutex_clocklock(m, CLOCK_PROCESS_CPUTIME_ID, &ts));
}

static void test_mutex(void)
{
	static const int types[] = {
		PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ERRORCHECK,
		PTHREAD_MUTEX_RECURSIVE,
	};
	static const char *const type_names[] = {
		"normal", "errorcheck", "recursive",
	};
	pthread_mutex_t dyn;
	pthread_mutexattr_t attr;
	struct holder h;
	struct timespec ts;
	int held, rc;

	printf("== mutex normal (static initializer)\n");
	T("pthread_mutex_lock", pthread_mutex_lock(&m_normal));
	T("pthread_mutex_trylock own", pthread_mutex_trylock(&m_normal));
	T("pthread_mutex_unlock", pthread_mutex_unlock(&m_normal));
	T("pthread_mutex_trylock", pthread_mutex_trylock(&m_normal));
	T("pthread_mutex_unlock", pthread_mutex_unlock(&m_normal));
	ts = after_ms(CLOCK_REALTIME, 1000);
	T("pthread_mutex_timedlock free", pthread_mutex_timedlock(&m_normal,
								  &ts));
	T("pthread_mutex_unlock", pthread_mutex_unlock(&m_normal));
	ts = after_ms(CLOCK_MONOTONIC, 1000);
	T("pthread_mutex_clocklock free",
	  pthread_mutex_clocklock(&m_normal, CLOCK_MONOTONIC, &ts));
	T("pthread_mutex_unlock", pthread_mutex_unlock(&m_normal));
	hold(&h, HOLD_MUTEX, &m_normal, 1);
	timed_failures(&m_normal);
	let_go(&h);
	T("pthread_mutex_lock after release", pthread_mutex_lock(&m_normal));
	T("pthread_mutex_unlock", pthread_mutex_unlock(&m_normal));

	printf("== mutex errorcheck (static initializer)\n");
	T("pthread_mutex_unlock not locked", pthread_mutex_unlock(&m_check));
	T("pthread_mutex_lock", pthread_mutex_lock(&m_check));
	T("pthread_mutex_lock again", pthread_mutex_lock(&m_check));
	T("pthread_mutex_trylock again", pthread_mutex_trylock(&m_check));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("pthread_mutex_timedlock again", pthread_mutex_timedlock(&m_check,
								   &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("pthread_mutex_clocklock again",
	  pthread_mutex_clocklock(&m_check, CLOCK_MONOTONIC, &ts));
	T("pthread_mutex_unlock", pthread_mutex_unlock(&m_check));
	T("pthread_mutex_unlock again", pthread_mutex_unlock(&m_check));
	hold(&h, HOLD_MUTEX, &m_check, 1);
	T("pthread_mutex_unlock not owner", pthread_mutex_unlock(&m_check));
	timed_failures(&m_check);
	let_go(&h);

	printf("== mutex recursive (static initializer)\n");
	T("pthread_mutex_lock 1", pthread_mutex_lock(&m_rec));
	T("pthread_mutex_lock 2", pthread_mutex_lock(&m_rec));
	T("pthread_mutex_trylock 3", pthread_mutex_trylock(&m_rec));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("pthread_mutex_timedlock 4", pthread_mutex_timedlock(&m_rec, &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("pthread_mutex_clocklock 5",
	  pthread_mutex_clocklock(&m_rec, CLOCK_MONOTONIC, &ts));
	for (int i = 5; i >= 1; i--)
		T("pthread_mutex_unlock", pthread_mutex_unlock(&m_rec));
	T("pthread_mutex_unlock not locked", pthread_mutex_unlock(&m_rec));
	hold(&h, HOLD_MUTEX, &m_rec, 1);
	T("pthread_mutex_unlock not owner", pthread_mutex_unlock(&m_rec));
	timed_failures(&m_rec);
	let_go(&h);

	printf("== mutex destroyed and re-created at one address\n");
	for (unsigned i = 0; i < 3; i++) {
		printf("  type %s\n", type_names[i]);
		WL_OK(pthread_mutexattr_init(&attr));
		WL_OK(pthread_mutexattr_settype(&attr, types[i]));
		T("  pthread_mutex_init", pthread_mutex_init(&dyn, &attr));
		WL_OK(pthread_mutexattr_destroy(&attr));
		held = pthread_mutex_lock(&dyn) == 0;
		printf("  pthread_mutex_lock: %d\n", held);
		rc = pthread_mutex_trylock(&dyn);
		held += rc == 0;
		printf("  pthread_mutex_trylock: %s\n", err_name(rc));
		if (types[i] != PTHREAD_MUTEX_NORMAL) {
			ts = after_ms(CLOCK_REALTIME, 20);
			rc = pthread_mutex_timedlock(&dyn, &ts);
			held += rc == 0;
			printf("  pthread_mutex_timedlock: %s\n",
			       err_name(rc));
		}
		T("  pthread_mutex_destroy locked",
		  pthread_mutex_destroy(&dyn));
		while (held-- > 0)
			T("  pthread_mutex_unlock", pthread_mutex_unlock(&dyn));
		T("  pthread_mutex_destroy", pthread_mutex_destroy(&dyn));
	}
}

/* ---------------------------------------------------------------- */
/* Robust mutexes: the owner ends holding the lock. */

static void *end_holding(void *m)
{
	WL_OK(pthread_mutex_lock(m));
	return NULL;
}

/* A thread takes @m and ends without unlocking it. */
static void orphan(pthread_mutex_t *m)
{
	pthread_t t;

	WL_OK(pthread_create(&t, NULL, end_holding, m));
	WL_OK(pthread_join(t, NULL));
}

static void test_robust(void)
{
	pthread_mutexattr_t attr;
	pthread_mutex_t m;
	struct timespec ts;

	printf("== mutex robust\n");
	WL_OK(pthread_mutexattr_init(&attr));
	WL_OK(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST));
	T("pthread_mutex_init robust", pthread_mutex_init(&m, &attr));
	orphan(&m);
	T("pthread_mutex_lock owner died", pthread_mutex_lock(&m));
	T("pthread_mutex_consistent", pthread_mutex_consistent(&m));
	T("pthread_mutex_unlock", pthread_mutex_unlock(&m));
	T("pthread_mutex_lock after consistent", pthread_mutex_lock(&m));
	T("pthread_mutex_unlock", pthread_mutex_unlock(&m));
	orphan(&m);
	T("pthread_mutex_trylock owner died", pthread_mutex_trylock(&m));
	T("pthread_mutex_consistent", pthread_mutex_consistent(&m));
	T("pthread_mutex_unlock", pthread_mutex_unlock(&m));
	orphan(&m);
	ts = after_ms(CLOCK_REALTIME, 60000);
	T("pthread_mutex_timedlock owner died",
	  pthread_mutex_timedlock(&m, &ts));
	T("pthread_mutex_unlock without consistent",
	  pthread_mutex_unlock(&m));
	T("pthread_mutex_lock not recoverable", pthread_mutex_lock(&m));
	T("pthread_mutex_trylock not recoverable", pthread_mutex_trylock(&m));
	T("pthread_mutex_destroy", pthread_mutex_destroy(&m));
	WL_OK(pthread_mutexattr_destroy(&attr));
}

/*
 * The mutexes whose robust-list link glibc uses or may use (robust,
 * priority-inheriting, process-shared): the tracer keeps its record hint
 * in that link of plain mutexes only, so after locks, tries and unlocks
 * the link must be as glibc leaves it, which is clear.
 */
static void mutex_link(const char *label, int robust, int proto,
		       int pshared)
{
	pthread_mutexattr_t attr;
	pthread_mutex_t m;

	WL_OK(pthread_mutexattr_init(&attr));
	WL_OK(pthread_mutexattr_setrobust(&attr, robust));
	WL_OK(pthread_mutexattr_setprotocol(&attr, proto));
	WL_OK(pthread_mutexattr_setpshared(&attr, pshared));
	WL_OK(pthread_mutex_init(&m, &attr));
	for (int i = 0; i < 3; i++) {
		WL_OK(pthread_mutex_lock(&m));
		WL_OK(pthread_mutex_unlock(&m));
		WL_OK(pthread_mutex_trylock(&m));
		WL_OK(pthread_mutex_unlock(&m));
	}
	printf("%-44s = %s\n", label,
	       m.__data.__list.__next || m.__data.__list.__prev ? "set" :
	       "clear");
	WL_OK(pthread_mutex_destroy(&m));
	WL_OK(pthread_mutexattr_destroy(&attr));
}

static void test_mutex_links(void)
{
	printf("== mutex robust-list links\n");
	mutex_link("robust mutex link after use", PTHREAD_MUTEX_ROBUST,
		   PTHREAD_PRIO_NONE, PTHREAD_PROCESS_PRIVATE);
	mutex_link("priority-inheriting mutex link after use",
		   PTHREAD_MUTEX_STALLED, PTHREAD_PRIO_INHERIT,
		   PTHREAD_PROCESS_PRIVATE);
	mutex_link("process-shared mutex link after use",
		   PTHREAD_MUTEX_STALLED, PTHREAD_PRIO_NONE,
		   PTHREAD_PROCESS_SHARED);
}

/* ---------------------------------------------------------------- */

static void test_spin(void)
{
	pthread_spinlock_t s;
	struct holder h;

	printf("== spin lock\n");
	T("pthread_spin_init", pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE));
	T("pthread_spin_lock", pthread_spin_lock(&s));
	T("pthread_spin_trylock own", pthread_spin_trylock(&s));
	T("pthread_spin_unlock", pthread_spin_unlock(&s));
	T("pthread_spin_trylock", pthread_spin_trylock(&s));
	T("pthread_spin_unlock", pthread_spin_unlock(&s));
	hold(&h, HOLD_SPIN, (void *)&s, 1);
	T("pthread_spin_trylock held elsewhere", pthread_spin_trylock(&s));
	let_go(&h);
	T("pthread_spin_lock after release", pthread_spin_lock(&s));
	T("pthread_spin_unlock", pthread_spin_unlock(&s));
	T("pthread_spin_destroy", pthread_spin_destroy(&s));
	T("pthread_spin_init again", pthread_spin_init(&s, 0));
	T("pthread_spin_trylock", pthread_spin_trylock(&s));
	T("pthread_spin_unlock", pthread_spin_unlock(&s));
	T("pthread_spin_destroy", pthread_spin_destroy(&s));
}

/* ---------------------------------------------------------------- */

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;

static void test_rwlock(void)
{
	pthread_rwlock_t dyn;
	struct holder h;
	struct timespec ts;

	printf("== rwlock (static initializer)\n");
	T("pthread_rwlock_rdlock", pthread_rwlock_rdlock(&rw));
	T("pthread_rwlock_rdlock again", pthread_rwlock_rdlock(&rw));
	T("pthread_rwlock_tryrdlock", pthread_rwlock_tryrdlock(&rw));
	T("pthread_rwlock_trywrlock own read", pthread_rwlock_trywrlock(&rw));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("pthread_rwlock_timedrdlock", pthread_rwlock_timedrdlock(&rw, &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("pthread_rwlock_clockrdlock",
	  pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &ts));
	for (int i = 0; i < 5; i++)
		T("pthread_rwlock_unlock", pthread_rwlock_unlock(&rw));

	T("pthread_rwlock_wrlock", pthread_rwlock_wrlock(&rw));
	T("pthread_rwlock_wrlock again", pthread_rwlock_wrlock(&rw));
	T("pthread_rwlock_rdlock own write", pthread_rwlock_rdlock(&rw));
	T("pthread_rwlock_tryrdlock own write", pthread_rwlock_tryrdlock(&rw));
	T("pthread_rwlock_trywrlock own write", pthread_rwlock_trywrlock(&rw));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("pthread_rwlock_timedrdlock own write",
	  pthread_rwlock_timedrdlock(&rw, &ts));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("pthread_rwlock_timedwrlock own write",
	  pthread_rwlock_timedwrlock(&rw, &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("pthread_rwlock_clockwrlock own write",
	  pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &ts));
	T("pthread_rwlock_unlock", pthread_rwlock_unlock(&rw));

	printf("  held for writing elsewhere\n");
	hold(&h, HOLD_WRLOCK, &rw, 1);
	T("  pthread_rwlock_tryrdlock", pthread_rwlock_tryrdlock(&rw));
	T("  pthread_rwlock_trywrlock", pthread_rwlock_trywrlock(&rw));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("  pthread_rwlock_timedrdlock", pthread_rwlock_timedrdlock(&rw, &ts));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("  pthread_rwlock_timedwrlock", pthread_rwlock_timedwrlock(&rw, &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("  pthread_rwlock_clockrdlock MONOTONIC",
	  pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &ts));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("  pthread_rwlock_clockwrlock REALTIME",
	  pthread_rwlock_clockwrlock(&rw, CLOCK_REALTIME, &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("  pthread_rwlock_clockrdlock bad clock",
	  pthread_rwlock_clockrdlock(&rw, CLOCK_PROCESS_CPUTIME_ID, &ts));
	T("  pthread_rwlock_clockwrlock bad clock",
	  pthread_rwlock_clockwrlock(&rw, CLOCK_PROCESS_CPUTIME_ID, &ts));
	ts = bad_ts();
	T("  pthread_rwlock_timedrdlock bad timespec",
	  pthread_rwlock_timedrdlock(&rw, &ts));
	T("  pthread_rwlock_timedwrlock bad timespec",
	  pthread_rwlock_timedwrlock(&rw, &ts));
	let_go(&h);

	printf("  held for reading elsewhere\n");
	hold(&h, HOLD_RDLOCK, &rw, 1);
	T("  pthread_rwlock_rdlock", pthread_rwlock_rdlock(&rw));
	T("  pthread_rwlock_unlock", pthread_rwlock_unlock(&rw));
	T("  pthread_rwlock_tryrdlock", pthread_rwlock_tryrdlock(&rw));
	T("  pthread_rwlock_unlock", pthread_rwlock_unlock(&rw));
	T("  pthread_rwlock_trywrlock", pthread_rwlock_trywrlock(&rw));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("  pthread_rwlock_timedwrlock", pthread_rwlock_timedwrlock(&rw, &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("  pthread_rwlock_clockwrlock",
	  pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &ts));
	let_go(&h);

	printf("  destroyed and re-created\n");
	for (int i = 0; i < 2; i++) {
		T("  pthread_rwlock_init", pthread_rwlock_init(&dyn, NULL));
		T("  pthread_rwlock_wrlock", pthread_rwlock_wrlock(&dyn));
		T("  pthread_rwlock_tryrdlock", pthread_rwlock_tryrdlock(&dyn));
		T("  pthread_rwlock_unlock", pthread_rwlock_unlock(&dyn));
		T("  pthread_rwlock_destroy", pthread_rwlock_destroy(&dyn));
	}
}

/* ---------------------------------------------------------------- */

struct bar_arg {
	pthread_barrier_t *b;
	int episodes;
	int serial, zero, other;
};

static void *bar_member(void *arg)
{
	struct bar_arg *a = arg;

	for (int i = 0; i < a->episodes; i++) {
		int rc = pthread_barrier_wait(a->b);

		if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
			a->serial++;
		else if (rc == 0)
			a->zero++;
		else
			a->other++;
	}
	return NULL;
}

static void barrier_round(pthread_barrier_t *b, unsigned count,
			  int episodes)
{
	struct bar_arg args[8];
	pthread_t t[8];
	int serial = 0, zero = 0, other = 0;

	for (unsigned i = 0; i < count; i++) {
		args[i] = (struct bar_arg){ b, episodes, 0, 0, 0 };
		if (i > 0)
			WL_OK(pthread_create(&t[i], NULL, bar_member,
					     &args[i]));
	}
	bar_member(&args[0]);
	for (unsigned i = 0; i < count; i++) {
		if (i > 0)
			WL_OK(pthread_join(t[i], NULL));
		serial += args[i].serial;
		zero += args[i].zero;
		other += args[i].other;
	}
	printf("  %u threads x %d episodes: SERIAL_THREAD %d, 0 %d, other %d\n",
	       count, episodes, serial, zero, other);
}

static void test_barrier(void)
{
	pthread_barrier_t b;

	printf("== barrier\n");
	T("pthread_barrier_init count 0", pthread_barrier_init(&b, NULL, 0));
	T("pthread_barrier_init count 3", pthread_barrier_init(&b, NULL, 3));
	barrier_round(&b, 3, 4);
	T("pthread_barrier_destroy", pthread_barrier_destroy(&b));
	T("pthread_barrier_init count 2 (same address)",
	  pthread_barrier_init(&b, NULL, 2));
	barrier_round(&b, 2, 3);
	T("pthread_barrier_destroy", pthread_barrier_destroy(&b));
	T("pthread_barrier_init count 1", pthread_barrier_init(&b, NULL, 1));
	T("pthread_barrier_wait alone", pthread_barrier_wait(&b));
	T("pthread_barrier_destroy", pthread_barrier_destroy(&b));
}

/* ---------------------------------------------------------------- */

static pthread_mutex_t cm = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cv_flag, cv_waiting;

struct cv_waiter {
	pthread_t tid;
	int timed;
	int rc_wait, rc_unlock;
};

static void *cv_waiter_main(void *arg)
{
	struct cv_waiter *w = arg;
	struct timespec ts = after_ms(CLOCK_REALTIME, 60000);

	pthread_mutex_lock(&cm);
	cv_waiting++;
	while (!cv_flag) {
		if (w->timed)
			w->rc_wait = pthread_cond_timedwait(&cv, &cm, &ts);
		else
			w->rc_wait = pthread_cond_wait(&cv, &cm);
	}
	w->rc_unlock = pthread_mutex_unlock(&cm);
	return NULL;
}

/* Start @n waiters; return with cm locked once all of them wait. */
static void cv_start(struct cv_waiter *w, int n, int timed)
{
	cv_flag = 0;
	cv_waiting = 0;
	for (int i = 0; i < n; i++) {
		w[i] = (struct cv_waiter){ .timed = timed };
		WL_OK(pthread_create(&w[i].tid, NULL, cv_waiter_main, &w[i]));
	}
	WL_OK(pthread_mutex_lock(&cm));
	while (cv_waiting < n) {
		WL_OK(pthread_mutex_unlock(&cm));
		sched_yield();
		WL_OK(pthread_mutex_lock(&cm));
	}
	cv_flag = 1;
}

static void cv_finish(struct cv_waiter *w, int n)
{
	for (int i = 0; i < n; i++) {
		WL_OK(pthread_join(w[i].tid, NULL));
		printf("  waiter %d: wait %s unlock %s\n", i,
		       err_name(w[i].rc_wait), err_name(w[i].rc_unlock));
	}
}

static void test_cond(void)
{
	struct cv_waiter w[2];
	struct timespec ts;
	pthread_cond_t dyn;
	pthread_condattr_t attr;

	printf("== condition variable\n");
	T("pthread_cond_signal no waiter", pthread_cond_signal(&cv));
	T("pthread_cond_broadcast no waiter", pthread_cond_broadcast(&cv));
	T("pthread_mutex_lock", pthread_mutex_lock(&cm));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("pthread_cond_timedwait", pthread_cond_timedwait(&cv, &cm, &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("pthread_cond_clockwait MONOTONIC",
	  pthread_cond_clockwait(&cv, &cm, CLOCK_MONOTONIC, &ts));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("pthread_cond_clockwait REALTIME",
	  pthread_cond_clockwait(&cv, &cm, CLOCK_REALTIME, &ts));
	T("pthread_cond_clockwait bad clock",
	  pthread_cond_clockwait(&cv, &cm, CLOCK_PROCESS_CPUTIME_ID, &ts));
	ts = bad_ts();
	T("pthread_cond_timedwait bad timespec",
	  pthread_cond_timedwait(&cv, &cm, &ts));
	T("pthread_mutex_unlock (still held)", pthread_mutex_unlock(&cm));

	printf("  signal to one waiter\n");
	cv_start(w, 1, 0);
	T("  pthread_cond_signal", pthread_cond_signal(&cv));
	T("  pthread_mutex_unlock", pthread_mutex_unlock(&cm));
	cv_finish(w, 1);
	printf("  signal to one timed waiter\n");
	cv_start(w, 1, 1);
	T("  pthread_mutex_unlock", pthread_mutex_unlock(&cm));
	T("  pthread_cond_signal", pthread_cond_signal(&cv));
	cv_finish(w, 1);
	printf("  broadcast to two waiters\n");
	cv_start(w, 2, 0);
	T("  pthread_cond_broadcast", pthread_cond_broadcast(&cv));
	T("  pthread_mutex_unlock", pthread_mutex_unlock(&cm));
	cv_finish(w, 2);

	printf("  monotonic condition variable, re-created\n");
	for (int i = 0; i < 2; i++) {
		WL_OK(pthread_condattr_init(&attr));
		WL_OK(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC));
		T("  pthread_cond_init", pthread_cond_init(&dyn, &attr));
		WL_OK(pthread_condattr_destroy(&attr));
		WL_OK(pthread_mutex_lock(&cm));
		ts = after_ms(CLOCK_MONOTONIC, 20);
		T("  pthread_cond_timedwait", pthread_cond_timedwait(&dyn, &cm,
								       &ts));
		WL_OK(pthread_mutex_unlock(&cm));
		T("  pthread_cond_destroy", pthread_cond_destroy(&dyn));
	}
}

/* ---------------------------------------------------------------- */

static sem_t poster_sem;

static void *poster(void *arg)
{
	(void)arg;
	sem_post(&poster_sem);
	return NULL;
}

static void test_sem(void)
{
	sem_t s;
	int v;
	struct timespec ts;
	pthread_t t;

	printf("== semaphore\n");
	T("sem_init above SEM_VALUE_MAX",
	  sem_init(&s, 0, (unsigned)SEM_VALUE_MAX + 1u));
	T("sem_init 2", sem_init(&s, 0, 2));
	T("sem_trywait", sem_trywait(&s));
	T("sem_wait", sem_wait(&s));
	T("sem_trywait empty", sem_trywait(&s));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("sem_timedwait empty", sem_timedwait(&s, &ts));
	ts = bad_ts();
	T("sem_timedwait bad timespec", sem_timedwait(&s, &ts));
	ts = after_ms(CLOCK_MONOTONIC, 20);
	T("sem_clockwait MONOTONIC empty",
	  sem_clockwait(&s, CLOCK_MONOTONIC, &ts));
	ts = after_ms(CLOCK_REALTIME, 20);
	T("sem_clockwait REALTIME empty",
	  sem_clockwait(&s, CLOCK_REALTIME, &ts));
	T("sem_clockwait bad clock",
	  sem_clockwait(&s, CLOCK_PROCESS_CPUTIME_ID, &ts));
	T("sem_post", sem_post(&s));
	ts = after_ms(CLOCK_REALTIME, 1000);
	T("sem_timedwait with token", sem_timedwait(&s, &ts));
	T("sem_post", sem_post(&s));
	ts = after_ms(CLOCK_MONOTONIC, 1000);
	T("sem_clockwait with token", sem_clockwait(&s, CLOCK_MONOTONIC, &ts));
	ts = bad_ts();
	T("sem_post", sem_post(&s));
	T("sem_timedwait bad timespec with token", sem_timedwait(&s, &ts));
	T("sem_getvalue", sem_getvalue(&s, &v));
	printf("  value %d\n", v);
	T("sem_destroy", sem_destroy(&s));

	T("sem_init 0 (same address)", sem_init(&s, 0, 0));
	T("sem_trywait", sem_trywait(&s));
	T("sem_destroy", sem_destroy(&s));

	WL_OK(sem_init(&poster_sem, 0, 0));
	WL_OK(pthread_create(&t, NULL, poster, NULL));
	T("sem_wait posted by a thread", sem_wait(&poster_sem));
	WL_OK(pthread_join(t, NULL));
	WL_OK(pthread_create(&t, NULL, poster, NULL));
	ts = after_ms(CLOCK_REALTIME, 60000);
	T("sem_timedwait posted by a thread", sem_timedwait(&poster_sem, &ts));
	WL_OK(pthread_join(t, NULL));
	T("sem_destroy", sem_destroy(&poster_sem));

	T("sem_init SEM_VALUE_MAX", sem_init(&s, 0, SEM_VALUE_MAX));
	T("sem_post at SEM_VALUE_MAX", sem_post(&s));
	T("sem_getvalue", sem_getvalue(&s, &v));
	printf("  value %d (SEM_VALUE_MAX %d)\n", v, SEM_VALUE_MAX);
	T("sem_trywait", sem_trywait(&s));
	T("sem_post", sem_post(&s));
	T("sem_destroy", sem_destroy(&s));
}

/* ---------------------------------------------------------------- */
/* C11 <threads.h>: results are thrd_* values, printed by name. */

static const char *c11_name(int rc)
{
	switch (rc) {
	case thrd_success: return "thrd_success";
	case thrd_busy: return "thrd_busy";
	case thrd_error: return "thrd_error";
	case thrd_nomem: return "thrd_nomem";
	case thrd_timedout: return "thrd_timedout";
	default: return "?";
	}
}

#define TC(label, expr)						\
	do {							\
		int rc_;					\
		int e_;						\
		errno = SENTINEL;				\
		rc_ = (expr);					\
		e_ = errno;					\
		printf("%-44s = %s  errno %s\n", label,	\
		       c11_name(rc_), err_name(e_) ? err_name(e_) : "?"); \
	} while (0)

static mtx_t c11_m;
static sem_t c11_held, c11_release;
static once_flag c11_once = ONCE_FLAG_INIT;
static int c11_once_runs;

/* Holds c11_m until told to let go; ends with thrd_exit(42). */
static int c11_holder(void *arg)
{
	(void)arg;
	if (mtx_lock(&c11_m) != thrd_success)
		abort();
	WL_OK(sem_post(&c11_held));
	wl_sem_wait(&c11_release);
	if (mtx_unlock(&c11_m) != thrd_success)
		abort();
	thrd_exit(42);
}

static int c11_returns_7(void *arg)
{
	(void)arg;
	return 7;
}

static void c11_once_fn(void)
{
	c11_once_runs++;
}

static void test_c11(void)
{
	struct timespec ts;
	mtx_t r;
	cnd_t c;
	thrd_t t;
	int res = 0;

	TC("mtx_init timed", mtx_init(&c11_m, mtx_timed));
	TC("mtx_trylock free", mtx_trylock(&c11_m));
	TC("mtx_trylock held by self", mtx_trylock(&c11_m));
	TC("mtx_unlock", mtx_unlock(&c11_m));
	TC("mtx_lock", mtx_lock(&c11_m));
	TC("mtx_unlock", mtx_unlock(&c11_m));
	TC("mtx_init recursive", mtx_init(&r, mtx_plain | mtx_recursive));
	TC("mtx_lock recursive", mtx_lock(&r));
	TC("mtx_trylock recursive again", mtx_trylock(&r));
	TC("mtx_unlock recursive inner", mtx_unlock(&r));
	TC("mtx_unlock recursive outer", mtx_unlock(&r));
	mtx_destroy(&r);

	WL_OK(sem_init(&c11_held, 0, 0));
	WL_OK(sem_init(&c11_release, 0, 0));
	TC("thrd_create holder", thrd_create(&t, c11_holder, NULL));
	wl_sem_wait(&c11_held);
	TC("mtx_trylock held by another", mtx_trylock(&c11_m));
	ts = after_ms(CLOCK_REALTIME, 20);
	TC("mtx_timedlock held by another (20 ms)",
	   mtx_timedlock(&c11_m, &ts));
	WL_OK(sem_post(&c11_release));
	TC("thrd_join holder", thrd_join(t, &res));
	printf("%-44s = %d\n", "holder's thrd_exit result", res);
	TC("mtx_lock after the holder", mtx_lock(&c11_m));

	TC("cnd_init", cnd_init(&c));
	TC("cnd_signal without waiters", cnd_signal(&c));
	TC("cnd_broadcast without waiters", cnd_broadcast(&c));
	ts = after_ms(CLOCK_REALTIME, 20);
	TC("cnd_timedwait (20 ms)", cnd_timedwait(&c, &c11_m, &ts));
	TC("mtx_unlock after the wait", mtx_unlock(&c11_m));
	cnd_destroy(&c);
	mtx_destroy(&c11_m);

	TC("thrd_create", thrd_create(&t, c11_returns_7, NULL));
	TC("thrd_join", thrd_join(t, &res));
	printf("%-44s = %d\n", "start routine's result", res);
	TC("thrd_create to detach", thrd_create(&t, c11_returns_7, NULL));
	TC("thrd_detach", thrd_detach(t));
	call_once(&c11_once, c11_once_fn);
	call_once(&c11_once, c11_once_fn);
	printf("%-44s = %d\n", "call_once runs of its function",
	       c11_once_runs);
}

int main(void)
{
	wl_init();
	test_threads();
	test_mutex();
	test_robust();
	test_mutex_links();
	test_spin();
	test_rwlock();
	test_barrier();
	test_cond();
	test_sem();
	test_c11();
	printf("preserve done\n");
	return 0;
}
