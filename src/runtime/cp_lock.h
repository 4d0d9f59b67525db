/*
 * cp_lock.h - the tracer's own short lock: a test-and-test-and-set spin
 * lock that yields when contended.  It never goes through the pthread_*
 * names (no interposition, no recursion) and needs no initialisation
 * beyond zero.  For critical sections of a few hundred nanoseconds.
 *
 * Any thread, with its guard raised; not recursive (a holder that takes
 * it again spins for ever), and never from a signal handler that may have
 * interrupted a holder.  A critical section calls nothing that may block
 * or allocate through the program's allocator.
 */
#ifndef CP_LOCK_H
#define CP_LOCK_H

#include <sched.h>
#include <stdatomic.h>

static inline void cp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

struct cp_lock {
	atomic_int held;
};

/* Take @l: spin on a plain read, yield after 64 spins.  Acquire order. */
static inline void cp_lock_acquire(struct cp_lock *l)
{
	unsigned spins = 0;

	for (;;) {
		if (!atomic_exchange_explicit(&l->held, 1, memory_order_acquire))
			return;
		while (atomic_load_explicit(&l->held, memory_order_relaxed)) {
			if (++spins > 64) {
				sched_yield();
				spins = 0;
			} else {
				cp_cpu_relax();
			}
		}
	}
}

/* Let @l go; the holder only.  Release order. */
static inline void cp_lock_release(struct cp_lock *l)
{
	atomic_store_explicit(&l->held, 0, memory_order_release);
}

#endif /* CP_LOCK_H */
