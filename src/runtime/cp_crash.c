/*
 * cp_crash.c - fatal signals and _exit flush the trace (see cp_crash.h).
 */
#include "cp_crash.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cp_lock.h"
#include "cp_runtime.h"
#include "cp_tracebuf.h"

static const int cp_crash_sigs[] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS,
	SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ,
};

#define CP_NSIGS (sizeof(cp_crash_sigs) / sizeof(cp_crash_sigs[0]))

/* Per signal number: handled here, and the program's own disposition. */
static bool cp_owned[NSIG];
static struct sigaction cp_prog[NSIG];
static struct cp_lock cp_crash_lock;	/* program-side updates */

bool cp_crash_owns(int sig)
{
	return sig > 0 && sig < NSIG &&
	       __atomic_load_n(&cp_owned[sig], __ATOMIC_ACQUIRE);
}

/* Faults the kernel raises on an instruction that will fault again. */
static bool is_fault(int sig, const siginfo_t *si)
{
	return si && si->si_code > 0 &&
	       (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
		sig == SIGILL || sig == SIGTRAP || sig == SIGSYS);
}

/* The program dies of @sig as it would have without the tracer. */
static void die(int sig, const siginfo_t *si)
{
	struct sigaction dfl;
	sigset_t set;

	cp_tls.guard++;
	cp_trace_crash_flush();
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	cp_tls.guard--;
	if (is_fault(sig, si))
		return;	/* the instruction faults again, unhandled */
	raise(sig);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static void cp_crash_handler(int sig, siginfo_t *si, void *uc)
{
	struct sigaction pa;
	int saved = errno;

	if ((sig == SIGXFSZ || sig == SIGPIPE) && cp_tb_writing)
		return;	/* the tracer's own write: it fails, and says so */
	memcpy(&pa, &cp_prog[sig], sizeof(pa));
	/* the kernel reads the union as SIG_DFL/SIG_IGN whatever the flags */
	if (pa.sa_handler == SIG_DFL) {
		die(sig, si);
		errno = saved;
		return;
	}
	if (pa.sa_handler == SIG_IGN) {
		errno = saved;
		return;
	}
	if (pa.sa_flags & SA_RESETHAND) {
		cp_prog[sig].sa_handler = SIG_DFL;
		cp_prog[sig].sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
	}
	errno = saved;
	if (pa.sa_flags & SA_SIGINFO)
		pa.sa_sigaction(sig, si, uc);
	else
		pa.sa_handler(sig);
}

/* What the kernel gets for the program's disposition @prog of @sig. */
static void kernel_action(const struct sigaction *prog, struct sigaction *k)
{
	memset(k, 0, sizeof(*k));
	if (prog->sa_handler == SIG_IGN) {
		k->sa_handler = SIG_IGN;
		sigemptyset(&k->sa_mask);
		return;
	}
	k->sa_sigaction = cp_crash_handler;
	k->sa_flags = SA_SIGINFO | SA_ONSTACK;
	if (prog->sa_handler == SIG_DFL) {
		sigemptyset(&k->sa_mask);
		return;
	}
	k->sa_flags = SA_SIGINFO |
		      (prog->sa_flags & (SA_ONSTACK | SA_RESTART | SA_NODEFER));
	k->sa_mask = prog->sa_mask;
}

void cp_crash_arm(void)
{
	for (size_t i = 0; i < CP_NSIGS; i++) {
		int sig = cp_crash_sigs[i];
		struct sigaction cur, k;

		if (cp_owned[sig] || sigaction(sig, NULL, &cur))
			continue;
		cp_prog[sig] = cur;	/* ignored stays ignored for real */
		kernel_action(&cur, &k);
		if (sigaction(sig, &k, NULL) == 0)
			__atomic_store_n(&cp_owned[sig], true,
					 __ATOMIC_RELEASE);
	}
}

int cp_crash_sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old)
{
	struct sigaction k;
	int ret = 0;

	cp_lock_acquire(&cp_crash_lock);
	if (old)
		*old = cp_prog[sig];
	if (act) {
		kernel_action(act, &k);
		ret = sigaction(sig, &k, NULL);
		if (ret == 0)
			cp_prog[sig] = *act;
	}
	cp_lock_release(&cp_crash_lock);
	return ret;
}

/*
 * A process that saw nothing (one thread, no object: a shell, which ends
 * through _exit, running a script's commands) leaves no partial trace
 * behind: it is removed, as at exit (cp_report_write).  The root process
 * says so, since the file it was asked for is not there; a descendant of
 * `cpt run`'s is silent.  Only write(2) here: _exit may be called in a
 * signal handler.
 */
void cp_crash_exit(void)
{
	static const char gone[] = "cpthread: the program ended through _exit "
				   "with one thread and no synchronization "
				   "seen: no report, no trace\n";

	if (!cp_rt.trace || cp_rt.trace_fd < 0 || getpid() != cp_rt.pid)
		return;
	if (cp_tls.guard || !cp_runtime_saw_nothing()) {
		cp_trace_crash_flush();
		return;
	}
	cp_tls.guard++;
	cp_trace_discard();
	cp_tls.guard--;
	if (!cp_rt.descendant && !cp_rt.cfg.quiet &&
	    write(STDERR_FILENO, gone, sizeof(gone) - 1) < 0)
		return;	/* nowhere to say it */
}
