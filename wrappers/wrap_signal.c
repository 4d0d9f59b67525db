/*
 * wrap_signal.c - sigaction(), signal() and glibc's other ways of setting a
 * disposition (sysv_signal, __sysv_signal, bsd_signal, sigset, sigignore),
 * _exit(), _Exit(): the tracer's fatal-signal handler stays first and the
 * program's runs after it; the program is shown its own dispositions
 * (rules: src/runtime/cp_crash.c).  quick_exit() needs no wrapper: the
 * runtime registers its own at_quick_exit handler (cp_runtime.c).
 */
#include "wrap_common.h"

#include <string.h>

#include "cp_crash.h"

CP_EXPORT int sigaction(int sig, const struct sigaction *act,
			struct sigaction *old)
{
	int ret;

	if (cp_tls.guard || !cp_crash_owns(sig))
		return CP_REAL(sigaction)(sig, act, old);
	cp_tls.guard++;
	ret = cp_crash_sigaction(sig, act, old);
	cp_tls.guard--;
	return ret;
}

/* Not declared by <signal.h> under _GNU_SOURCE; glibc exports it. */
sighandler_t bsd_signal(int sig, sighandler_t handler);

/*
 * Replace the program's disposition of owned signal @sig by @act (NULL:
 * only read it).  Returns the previous handler, or SIG_ERR with errno set.
 * Guard not raised.
 */
static sighandler_t swap_handler(int sig, const struct sigaction *act)
{
	struct sigaction old;
	int ret;

	cp_tls.guard++;
	ret = cp_crash_sigaction(sig, act, &old);
	cp_tls.guard--;
	if (ret)
		return SIG_ERR;
	return old.sa_flags & SA_SIGINFO ? (sighandler_t)(void *)old.sa_sigaction :
	       old.sa_handler;
}

/*
 * Give owned signal @sig the program's @handler with sa_flags @flags,
 * @sig blocked while it runs if @mask_self: what glibc's signal-family
 * functions ask of sigaction.  Returns as swap_handler.
 */
static sighandler_t set_handler(int sig, sighandler_t handler, int flags,
				bool mask_self)
{
	struct sigaction act;

	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	if (mask_self)
		sigaddset(&act.sa_mask, sig);
	act.sa_flags = flags;
	return swap_handler(sig, &act);
}

/* The call goes to the real function: not a signal of the tracer's, or
 * SIG_ERR (which the real function refuses with EINVAL). */
static bool not_ours(int sig, sighandler_t handler)
{
	return cp_tls.guard || !cp_crash_owns(sig) || handler == SIG_ERR;
}

/* glibc's signal() and bsd_signal(): BSD semantics (handler kept, calls
 * restarted, the signal blocked in its handler). */
CP_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	if (not_ours(sig, handler))
		return CP_REAL(signal)(sig, handler);
	return set_handler(sig, handler, SA_RESTART, true);
}

CP_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	if (not_ours(sig, handler))
		return CP_REAL(bsd_signal)(sig, handler);
	return set_handler(sig, handler, SA_RESTART, true);
}

/* System V semantics: the handler runs once (reset to the default before
 * it runs), unmasked, calls not restarted.  signal() in a program built
 * without _DEFAULT_SOURCE (-std=c11) is __sysv_signal. */
CP_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	if (not_ours(sig, handler))
		return CP_REAL(sysv_signal)(sig, handler);
	return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

CP_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
	if (not_ours(sig, handler))
		return CP_REAL(__sysv_signal)(sig, handler);
	return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

/*
 * sigset(): SIG_HOLD blocks @sig and leaves its disposition; any other
 * @disp becomes the disposition (no flags) and @sig is unblocked.  Returns
 * SIG_HOLD if @sig was blocked before, else the previous handler.
 */
CP_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	sigset_t one, was;
	sighandler_t prev;

	if (not_ours(sig, disp))
		return CP_REAL(sigset)(sig, disp);
	sigemptyset(&one);
	sigaddset(&one, sig);
	if (disp == SIG_HOLD) {
		if (CP_REAL(sigprocmask)(SIG_BLOCK, &one, &was))
			return SIG_ERR;
		return sigismember(&was, sig) ? SIG_HOLD :
		       swap_handler(sig, NULL);
	}
	prev = set_handler(sig, disp, 0, false);
	if (prev == SIG_ERR || CP_REAL(sigprocmask)(SIG_UNBLOCK, &one, &was))
		return SIG_ERR;
	return sigismember(&was, sig) ? SIG_HOLD : prev;
}

CP_EXPORT int sigignore(int sig)
{
	if (not_ours(sig, SIG_IGN))
		return CP_REAL(sigignore)(sig);
	return set_handler(sig, SIG_IGN, 0, false) == SIG_ERR ? -1 : 0;
}

/* The process ends without exit handlers: its buffered events first. */
CP_EXPORT void _exit(int status)
{
	cp_crash_exit();
	CP_REAL(_exit)(status);
	__builtin_unreachable();
}

CP_EXPORT void _Exit(int status)
{
	cp_crash_exit();
	CP_REAL(_Exit)(status);
	__builtin_unreachable();
}
