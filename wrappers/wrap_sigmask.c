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
 */
#include "wrap_common.h"
#include "wrap_sigmask.h"

#include <signal.h>

#include "cp_sampler.h"

/* Does the program believe the sampler's signal blocked in this thread? */
static __thread bool cp_sig_held __attribute__((tls_model("initial-exec")));

static int set_mask(int (*real)(int, const sigset_t *, sigset_t *), int how,
		    const sigset_t *set, sigset_t *old)
{
	int sig = cp_sampler_signal();
	bool held = cp_sig_held;
	sigset_t copy;
	int rc;

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
