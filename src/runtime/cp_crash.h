/*
 * cp_crash.h - the trace's crash paths: fatal signals and _exit.
 *
 * In trace mode the tracer handles every signal whose default action ends
 * the process (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS,
 * SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ).  Its
 * handler stays first: the program's
 * own sigaction(), signal(), bsd_signal(), sysv_signal(), sigset() and
 * sigignore() calls are recorded here (and reported back to
 * it by sigaction) while the kernel keeps the tracer's handler, installed
 * with the program's mask and SA_RESTART/SA_ONSTACK/SA_NODEFER flags so
 * that system calls behave as they would.  When a signal arrives:
 *   - the program's disposition is the default: every thread's buffered
 *     events are written (cp_trace_crash_flush), the default is restored
 *     and the program dies of the same signal (a fault the kernel raised
 *     is left to happen again, so the core shows the faulting
 *     instruction; any other signal is raised again);
 *   - the program has a handler: it runs, exactly as the kernel would have
 *     run it (SA_SIGINFO, SA_RESETHAND honoured); nothing is flushed, as
 *     the program may recover (its own end comes through exit, _exit,
 *     abort or a default disposition, all of which flush);
 *   - the program ignores it: the kernel ignores it too (SIG_IGN is
 *     installed for real).
 * _exit and _Exit end the run as exit() does (report, complete trace),
 * except in a signal handler or a vfork child: in a handler every buffer
 * is written out, as on a fatal signal (cp_crash_exit).
 * A SIGXFSZ or SIGPIPE that the tracer's own trace write raises is
 * swallowed: the write fails and is reported, the program goes on.
 *
 * quick_exit() writes the trace and the report as exit() does, through an
 * at_quick_exit handler of the runtime's (cp_runtime.c).
 *
 * Limits: siginterrupt() is not followed (signal() keeps SA_RESTART); a
 * disposition changed by one thread while another receives the signal
 * may be seen half-updated.
 */
#ifndef CP_CRASH_H
#define CP_CRASH_H

#include <signal.h>
#include <stdbool.h>

/* Take over the fatal signals (see above).  Idempotent; start-up or a fork
 * child, guard raised. */
void cp_crash_arm(void);

/* True if signal @sig is handled here (the wrappers route sigaction and
 * signal for it to cp_crash_sigaction).  Any thread. */
bool cp_crash_owns(int sig);

/*
 * sigaction() as the program sees it for a signal cp_crash_owns: @old
 * receives the program's own disposition, @act replaces it, the kernel
 * keeps the tracer's handler.  Returns what sigaction returns (0, or -1
 * with errno).  Any thread, guard raised.
 */
int cp_crash_sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old);

/* Before _exit/_Exit in the traced process (not a vfork child): outside
 * a signal handler, cp_runtime_finish(); in one, write every buffer out
 * (async-signal-safe).  Any thread. */
void cp_crash_exit(void);

#endif /* CP_CRASH_H */
