/*
 * wrap_wait.c - wait, waitpid, wait3, wait4 and waitid: a thread blocked
 * until a child process changes state.  No edge (the child is another
 * process, with a trace of its own under cpt run); the time stays useful,
 * standing for the child's run on the waiting thread's critical path, and
 * is counted (cp_unseen_child_wait) so that the report tells it from
 * blocking the tracer cannot explain.  A shell's main thread waits for
 * its children most of the run.  Return values and errno are the real
 * calls'.
 */
#include "wrap_common.h"

#include "cp_unseen.h"

/* The end of a wait for a child (@c->t0 its start), returned or
 * cancelled: its time counted as such. */
static void child_wait_end(const struct cp_cancel *c)
{
	uint64_t t1 = cp_clock_wall();

	cp_unseen_child_wait(c->t, t1 > c->t0 ? t1 - c->t0 : 0);
}

CP_EXPORT pid_t wait(int *status)
{
	CP_WRAP_TIMED(pid_t, CP_REAL(wait)(status),
		      child_wait_end);
}

CP_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	CP_WRAP_TIMED(pid_t, CP_REAL(waitpid)(pid, status, options),
		      child_wait_end);
}

CP_EXPORT pid_t wait3(int *status, int options, struct rusage *usage)
{
	CP_WRAP_TIMED(pid_t, CP_REAL(wait3)(status, options, usage),
		      child_wait_end);
}

CP_EXPORT pid_t wait4(pid_t pid, int *status, int options,
		      struct rusage *usage)
{
	CP_WRAP_TIMED(pid_t, CP_REAL(wait4)(pid, status, options, usage),
		      child_wait_end);
}

CP_EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	CP_WRAP_TIMED(int, CP_REAL(waitid)(idtype, id, info, options),
		      child_wait_end);
}
