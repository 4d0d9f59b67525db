/*
 * cp_crash.c - fatal signals and _exit flush the trace (see cp_crash.h).
 */
#include "cp_crash.h"

#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include <unwind.h>

#include "cp_fds.h"
#include "cp_lock.h"
#include "cp_runtime.h"
#include "cp_sampler.h"
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

/* The walk of the stack at _exit (plain_exit). */
struct exit_walk {
	uintptr_t entry;	/* the executable's entry point (_start):
				 * the first thread's outermost frame */
	bool in_handler;	/* a frame interrupted by a signal */
	bool reached;		/* the thread's outermost frame */
};

static _Unwind_Reason_Code exit_step(struct _Unwind_Context *ctx, void *arg)
{
	struct exit_walk *w = arg;
	int sig_frame = 0;
	uintptr_t fn;

	(void)_Unwind_GetIPInfo(ctx, &sig_frame);
	if (sig_frame) {
		w->in_handler = true;
		return _URC_END_OF_STACK;
	}
	fn = _Unwind_GetRegionStart(ctx);
	if (fn && (fn == w->entry || fn == (uintptr_t)cp_trampoline)) {
		w->reached = true;
		return _URC_END_OF_STACK;
	}
	return _URC_NO_REASON;
}

/*
 * Whether _exit was called outside any signal handler: the thread's stack,
 * unwound from here, reaches its outermost frame (the executable's entry
 * point, or the trampoline of a thread the tracer started) without
 * crossing a signal frame.  A stack the unwinder cannot follow to its end
 * (code without unwind information, a thread started elsewhere) counts as
 * a handler's: the end is then taken as a crash.
 */
static bool plain_exit(void)
{
	struct exit_walk w = { .entry = (uintptr_t)getauxval(AT_ENTRY) };

	_Unwind_Backtrace(exit_step, &w);
	return w.reached && !w.in_handler;
}

/*
 * _exit outside a signal handler ends the run as exit() does: report,
 * trace complete (lbzip2 ends through _exit, dash too).  In a handler
 * only async-signal-safe steps are taken: the buffers are written, and
 * the trace is partial, as after a fatal signal; a process that saw
 * nothing (one thread, no object) then leaves no trace at all, and if it
 * is the program `cpt run` started (or one run without it), says so.
 */
void cp_crash_exit(void)
{
	static const char gone[] = "cpthread: the program ended through _exit "
				   "in a signal handler with one thread and "
				   "no synchronization seen: no report, no "
				   "trace\n";

	if (getpid() != cp_rt.pid)
		return;	/* a vfork child */
	if (!cp_tls.guard && plain_exit()) {
		cp_runtime_finish();
		return;
	}
	if (!cp_rt.trace || cp_rt.trace_fd < 0)
		return;
	if (cp_tls.guard || !cp_runtime_saw_nothing()) {
		cp_trace_crash_flush();
		return;
	}
	cp_tls.guard++;
	cp_trace_discard();
	cp_tls.guard--;
	if (!cp_rt.descendant && !cp_rt.forked_child && !cp_rt.cfg.quiet)
		cp_stderr_write(gone, sizeof(gone) - 1);
}
