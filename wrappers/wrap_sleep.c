/*
 * wrap_sleep.c - sleep, usleep, nanosleep and clock_nanosleep: a thread
 * waiting for a timer.  No edge (nothing in the process ends a sleep); the
 * time stays useful, standing for the wait the program asked for on the
 * thread's critical path, and is counted as waiting outside the process
 * (cp_unseen_outside_wait) so that the report tells it from blocking the
 * tracer cannot explain.  A server's housekeeping threads sleep most of
 * the run.  (glibc's sleep and usleep call nanosleep inside the library,
 * where no wrapper sees it: each is wrapped itself.)  Return values and
 * errno are the real calls'.
 */
#include "wrap_common.h"

#include "cp_unseen.h"

/* The end of a sleep (@c->t0 its start), returned or cancelled. */
static void slept(const struct cp_cancel *c)
{
	uint64_t t1 = cp_clock_wall();

	cp_unseen_outside_wait(c->t, t1 > c->t0 ? t1 - c->t0 : 0);
}

CP_EXPORT unsigned sleep(unsigned s)
{
	CP_WRAP_TIMED(unsigned, CP_REAL(sleep)(s), slept);
}

CP_EXPORT int usleep(useconds_t us)
{
	CP_WRAP_TIMED(int, CP_REAL(usleep)(us), slept);
}

CP_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	CP_WRAP_TIMED(int, CP_REAL(nanosleep)(req, rem), slept);
}

CP_EXPORT int clock_nanosleep(clockid_t id, int flags,
			      const struct timespec *req,
			      struct timespec *rem)
{
	CP_WRAP_TIMED(int, CP_REAL(clock_nanosleep)(id, flags, req, rem),
		      slept);
}
