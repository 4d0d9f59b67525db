/*
 * wrap_sigmask.c - pthread_sigmask, sigprocmask: the sampler's signal stays
 * deliverable.
 *
 * Programs block every signal in their worker threads (xz blocks them all
 * around pthread_create, so its compression threads start and stay
 * masked).  The sampler's real-time signal, which the program never asked
 * for, would then stay pending and those threads would go unsampled.  The
 * wrappers take that signal out of the set the program blocks and keep,
 * per thread, whether the program believes it blocked, which is what the
 * old mask then shows: the program reads back exactly the masks it set.
 * A thread created by pthread_create inherits its creator's view, as it
 * inherits the mask (wrap_thread.c passes it over).
 *
 * The tracer's own threads (liburcu's hash-table worker, the reaper, the
 * periodic sampler) block every signal for life, whatever they ask for:
 * a signal the program sends to the process must reach one of its own
 * threads.  liburcu's worker leaves SIGUSR1 deliverable (its signal
 * flavour's), and a program that blocks SIGUSR1 everywhere to take it
 * with sigwaitinfo would otherwise see it run its handler, or the default
 * action end the process, on the tracer's thread.
 */
#include "wrap_common.h"
#include "wrap_sigmask.h"

#include <signal.h>

#include "cp_sampler.h"

/* Does the program believe the sampler's signal blocked in this thread? */
static __thread bool cp_sig_held __attribute__((tls_model("initial-exec")));
/* Is this one of the tracer's own threads? */
static __thread bool cp_sig_internal
	__attribute__((tls_model("initial-exec")));

void cp_signal_block_all(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	CP_REAL(pthread_sigmask)(SIG_SETMASK, &all, old);
}

void cp_signal_internal(void)
{
	cp_sig_internal = true;
	cp_signal_block_all(NULL);
}

static int set_mask(int (*real)(int, const sigset_t *, sigset_t *), int how,
		    const sigset_t *set, sigset_t *old)
{
	int sig = cp_sampler_signal();
	bool held = cp_sig_held;
	sigset_t copy;
	int rc;

	if (cp_sig_internal) {
		rc = real(how, set, old);
		cp_signal_block_all(NULL);
		return rc;
	}
	if (!sig)
		return real(how, set, old);
	if (set) {
		bool named = sigismember(set, sig) == 1;

		if (how == SIG_BLOCK)
			held = held || named;
		else if (how == SIG_UNBLOCK)
			held = held && !named;
		else if (how == SIG_SETMASK)
			held = named;
		copy = *set;
		sigdelset(&copy, sig);
		set = &copy;
	}
	rc = real(how, set, old);
	if (rc != 0)
		return rc;
	if (old) {
		if (cp_sig_held)
			sigaddset(old, sig);
		else
			sigdelset(old, sig);
	}
	cp_sig_held = held;
	return rc;
}

bool cp_signal_held(void)
{
	return cp_sig_held;
}

void cp_signal_inherit(bool held)
{
	cp_sig_held = held;
}

CP_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return set_mask(CP_REAL(pthread_sigmask), how, set, old);
}

CP_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return set_mask(CP_REAL(sigprocmask), how, set, old);
}
