/*
 * wrap_signal.c - sigaction(), signal(), _exit(), _Exit(): the tracer's
 * fatal-signal handler stays first and the program's runs after it; the
 * program is shown its own dispositions (rules: src/runtime/cp_crash.c).
 */
#include "wrap_common.h"

#include <string.h>

#include "cp_crash.h"

CP_EXPORT int sigaction(int sig, const struct sigaction *act,
			struct sigaction *old)
{
	int ret;

	if (cp_guard || !cp_crash_owns(sig))
		return CP_REAL(sigaction)(sig, act, old);
	cp_guard++;
	ret = cp_crash_sigaction(sig, act, old);
	cp_guard--;
	return ret;
}

/* glibc's signal(): BSD semantics (handler kept, calls restarted). */
CP_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act, old;
	int ret;

	if (cp_guard || !cp_crash_owns(sig))
		return CP_REAL(signal)(sig, handler);
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	sigaddset(&act.sa_mask, sig);
	act.sa_flags = SA_RESTART;
	cp_guard++;
	ret = cp_crash_sigaction(sig, &act, &old);
	cp_guard--;
	if (ret)
		return SIG_ERR;
	return old.sa_flags & SA_SIGINFO ? (sighandler_t)(void *)old.sa_sigaction :
	       old.sa_handler;
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
