/*
 * wrap_futex.c - futexes a program calls through syscall(3): the waits of
 * C++20's std::latch, std::barrier, std::counting_semaphore and
 * std::atomic<T>::wait in libstdc++, and of hand-written futex code.
 *
 * A FUTEX_WAIT that returns woken, or finds the word changed (EAGAIN),
 * depends on the latest FUTEX_WAKE of the same address (a signal record,
 * replaced by every wake, keyed by the address).  A wait that times out
 * or is interrupted gets no edge, and a waiter that finds its condition
 * met makes no call at all: the store that released it is invisible.
 * glibc's own futexes (its mutexes, conditions, barriers) are system calls
 * made inside libc, never seen here; the pthread wrappers model those.
 * Every other system call goes straight to the real syscall(3).
 */
#include "wrap_common.h"

#include <linux/futex.h>
#include <stdarg.h>
#include <sys/syscall.h>

#include "cp_unseen.h"

/*
 * syscall(3) reads six arguments whatever the call; so does this.  The
 * sixth comes from the caller's stack even when the caller passed fewer,
 * as in glibc's own syscall(): AddressSanitizer would call that read an
 * underflow of the caller's frame, so it is not instrumented.
 */
__attribute__((no_sanitize_address))
CP_EXPORT long syscall(long nr, ...)
{
	long a[6], rc;
	struct cp_thread *t;
	struct cp_objrec *r;
	struct cp_wait w;
	va_list ap;
	int cmd, err;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
#define REAL_SYSCALL CP_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	if (nr != SYS_futex)
		return REAL_SYSCALL;
	cmd = (int)a[1] & FUTEX_CMD_MASK;
	if (cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET &&
	    cmd != FUTEX_WAKE && cmd != FUTEX_WAKE_BITSET)
		return REAL_SYSCALL;
	t = cp_enter();
	if (!t)
		return REAL_SYSCALL;
	r = cp_objrec_get(t, (const void *)a[0], CP_NS_MODEL, CP_OBJ_COND, 0);
	if (!r) {
		cp_leave();
		return REAL_SYSCALL;
	}
	if (cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET) {
		/* wake: publish the waker's path, then wake */
		cp_online_signal(t, r, false);
		cp_leave();
		return REAL_SYSCALL;
	}
	cp_online_wait_begin(t, r, &w);
	cp_pause();
	rc = REAL_SYSCALL;
	err = errno;
	cp_resume();
	if (rc == 0 || err == EAGAIN)
		cp_online_signal_take(t, r, &w, false);
	else
		cp_online_failed(t, r, &w);
	cp_leave();
	errno = err;
	return rc;
#undef REAL_SYSCALL
}

/*
 * sched_yield: the poll of a spin-wait the tracer does not see (the
 * waits above before they call FUTEX_WAIT, or instead of it), counted as
 * spinning (cp_unseen.h).  The call itself is the real one.
 */
CP_EXPORT int sched_yield(void)
{
	struct cp_thread *t = cp_enter();

	if (t) {
		cp_unseen_yield(t);
		cp_leave();
	}
	return CP_REAL(sched_yield)();
}
