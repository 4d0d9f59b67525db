/*
 * cp_sampler.h - per-thread CPU-time sampling of call stacks.
 *
 * Every traced thread gets a source of signals that fires after each
 * period of its own CPU time (CPTHREAD_SAMPLING_HZ), delivered to that
 * very thread:
 *   perf   a perf_event_open task-clock event of the thread, user space
 *          only, whose overflow raises the sampler's signal on the thread
 *          (O_ASYNC, F_SETSIG, F_SETOWN_EX/F_OWNER_TID).  The event is
 *          armed for one overflow at a time (PERF_EVENT_IOC_REFRESH): a
 *          thread that blocks the signal holds at most one pending, never
 *          a queue that could overflow into SIGIO.
 *   timer  a POSIX timer on CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID
 *          (one pending signal at most by construction): `auto`'s choice
 *          up to the kernel's tick rate (cheaper: no cost at context
 *          switches, cp_sampler.c's choose()), and the fallback when the
 *          kernel refuses perf events.
 * The handler unwinds the interrupted thread by DWARF CFI (.eh_frame)
 * with libgcc's unwinder, which finds objects through glibc's
 * _dl_find_object: lock-free and allocation-free, so it may run in a
 * signal handler.  (libunwind's shared library was not used: it exports
 * the _Unwind_* ABI and would take over C++ exception handling in the
 * traced program.)  The stack, innermost first, lands in the thread's
 * sample buffer with the trace's wall clock and the thread's CPU time;
 * a full buffer is written as one CP_BLOCK_SAMPLES block (write() is
 * async-signal-safe), the rest at thread exit, process exit or crash.
 *
 * Online, the handler also tallies, per selected procedure found by
 * sampling (cp_procs.h), the CPU time of the samples whose stack holds it
 * (struct cp_smp_tally); advancing the thread (cp_thread_advance) splits
 * the interval's useful time among those procedures by the fraction of the
 * interval's sampled CPU time that held each.  A sample weighs the CPU
 * time since the thread's previous one, not 1: a signal delivered late
 * (a busy CPU, a timer checked at the tick) stands for the longer period
 * it closes, so late samples do not bias the shares.  An interval without
 * samples (shorter than a period) is split like the thread's latest
 * interval that had some.
 *
 * What the program keeps: its handlers and masks (the sampler uses one
 * real-time signal of its own, SA_RESTART, which the program cannot block:
 * wrap_signal.c leaves it out of the masks the program sets and shows the
 * program the masks it asked for; only sigsuspend-like calls' temporary
 * masks may block it, while the thread sleeps; the handler holds every
 * other signal but the faults while it runs, so the program's handlers
 * never find the program inside it), its SIGPROF and setitimer timers
 * (under timer sampling a SIGPROF due while the handler runs goes to
 * another thread: README, "Sampling"), errno; fds
 * are close-on-exec and timers die at exec; a forked child closes the
 * parent's events and samples itself.
 *
 * Concurrency: one state per thread.  Its handler and its owner never run
 * at once (the handler interrupts the owner); the exit and crash paths of
 * another thread take a state over with a compare-and-swap of `state`
 * (idle -> closed), which a running handler holds at busy.
 */
#ifndef CP_SAMPLER_H
#define CP_SAMPLER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cp_config.h"

struct cp_thread;

/* Mechanism in use (0 when off). */
enum cp_sampler_kind {
	CP_SAMPLER_NONE = 0,
	CP_SAMPLER_PERF = 1,
	CP_SAMPLER_TIMER = 2,
};

/*
 * Decide whether and how to sample (trace mode, or selected procedures
 * found by sampling), install the handler, write the trace's first module
 * map.  The reason sampling is off or degraded is one line on stderr.
 * Returns the mechanism chosen.  Start-up, single-threaded, after the
 * trace is open and the procedures are resolved.
 */
enum cp_sampler_kind cp_sampler_init(void);
/* The mechanism chosen by cp_sampler_init. */
enum cp_sampler_kind cp_sampler_kind(void);
/* The sampler's real-time signal, 0 when it does not sample.  Any thread,
 * async-signal-safe (set once at start-up). */
int cp_sampler_signal(void);

/* Start sampling the calling thread, whose state is @t.  Owning thread,
 * guard raised. */
void cp_sampler_thread_start(struct cp_thread *t);
/* Stop sampling the calling thread and write out its samples.  Owning
 * thread, guard raised; idempotent. */
void cp_sampler_thread_stop(struct cp_thread *t);
/* Process exit: stop every thread's sampling and write out every buffer,
 * and the module map's late additions.  Single caller (the exit path),
 * before the trace's END block. */
void cp_sampler_finish(void);
/* Forked child: drop the parent's events and buffers; re-arm happens when
 * the child's thread is bound.  Call after the child's trace is open. */
void cp_sampler_postfork_child(void);

/*
 * One thread's online tally: written by the thread's signal handler,
 * read by the thread itself (cp_sampler_split), which the handler
 * interrupts; the signal fences order the two (no other thread looks).
 */
struct cp_smp_tally {
	atomic_uint hits[CP_MAX_FUNCS];	/* samples holding procedure i */
	atomic_ulong w;			/* CPU ns they stand for */
	atomic_ulong hw[CP_MAX_FUNCS];	/* of it, holding procedure i */
	/* owner only */
	uint64_t seen_w, seen_hw[CP_MAX_FUNCS];
	/* the latest interval with samples: CPU ns, and holding i */
	uint64_t held_w, held[CP_MAX_FUNCS];
};

/* Count a sample standing for @weight CPU ns (0 counts as 1) whose stack
 * holds the selected procedures of bitmask @mask.  The thread's handler,
 * async-signal-safe. */
void cp_smp_tally_add(struct cp_smp_tally *ta, uint64_t mask,
		      uint64_t weight);
/* Split @d ns of useful time among the first @nsel procedures: add to
 * @part[i] the share of @d that the samples since the last call (else
 * those of the latest call that had some) held i, by CPU time.  Returns
 * false, adding nothing, while no sample has been counted.  The owning
 * thread. */
bool cp_smp_tally_split(struct cp_smp_tally *ta, unsigned nsel, uint64_t d,
			uint64_t *part);

/* The start routine of every traced thread (wrappers/wrap_thread.c): the
 * unwinder ends a thread's stack at its frame.  Weak: the runtime's unit
 * tests link no wrappers. */
void *cp_trampoline(void *arg) __attribute__((weak));

/* Samples taken so far in all threads; and those whose stack held
 * selected procedure @i.  Any thread (racy sums of live counters). */
uint64_t cp_sampler_samples(void);
uint64_t cp_sampler_proc_samples(unsigned i);

#endif /* CP_SAMPLER_H */
