/*
 * cp_unseen.h - synchronization the tracer does not see.
 *
 * Under the wall clock a thread's useful time is its wall time minus the
 * waits the wrappers saw.  A thread that blocks where no wrapper looks (a
 * raw futex, a lock or barrier of the program's own, a sleep, a library
 * that synchronizes by itself) has that time counted as useful work, and
 * the critical path may be overstated.  The kernel splits a thread's wall
 * time into time on a processor, time runnable in a run queue (preempted)
 * and the rest, blocked (/proc/<pid>/task/<tid>/schedstat).  Blocked time
 * beyond the wrapped waits is unexplained.  The estimate errs low, never
 * high: processor time spent spinning inside a wrapped wait lowers it.
 * Spinning outside every wrapper is processor time, which no clock tells
 * from work; under the cpu clock blocking costs nothing, so only the wall
 * clock is measured.
 *
 * Waiting for a child process (wait, waitpid, wait3, wait4, waitid:
 * wrappers/wrap_wait.c) is blocking the tracer knows: the child's run is
 * on the waiting thread's critical path, which the time, counted as
 * useful, stands for.  It is reported in a note of its own, not as
 * unexplained (a shell's main thread waits for its children most of the
 * run).
 *
 * Libraries known to synchronize by themselves (LLVM's and Intel's
 * OpenMP runtimes, TBB) are named when loaded: their waits are unseen
 * however they wait.  libgomp is modelled (wrappers/wrap_gomp.c).
 */
#ifndef CP_UNSEEN_H
#define CP_UNSEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_thread.h"

/*
 * A thread's unexplained waiting is reported past both.  The floor is
 * well above what a traced program blocks outside its waits on an idle
 * machine anyway (page faults, thread creation and exit: a few ms), so
 * the note means synchronization it missed.
 */
#define CP_UNSEEN_MIN_NS 30000000ull	/* 30 ms */
#define CP_UNSEEN_MIN_SHARE 0.10	/* of its useful time */

/* Thread @ostid's time on a processor and runnable in a run queue so far,
 * ns (/proc/self/task/<ostid>/schedstat); 0, or -1 when the kernel does
 * not tell.  Any thread. */
int cp_unseen_schedstat(int ostid, uint64_t *cpu, uint64_t *runq);

/* Is thread @ostid running or runnable now (state R in /proc)?  False
 * when unknown.  Any thread. */
bool cp_unseen_running(int ostid);

/*
 * Blocked time of @t beyond its wrapped waits and the tracer's own (its
 * tracer_wait_ns), ns, from its start (its creation; for a thread the
 * kernel ran before the tracer saw it, the tracer's first sight, the
 * kernel's counters then subtracted) to its latest event (0 under the
 * cpu clock, or when the kernel does not tell).
 * Reads /proc: at thread exit on the owning thread (cp_thread_exit keeps
 * the result in t->unseen_ns), or at the report for a live thread.
 */
uint64_t cp_unseen_blocked(const struct cp_thread *t);

/*
 * @t's unexplained waiting, ns: its blocked time beyond its wrapped waits
 * (t->unseen_ns of an exited thread, else cp_unseen_blocked(@t)) less
 * what its waits for child processes explain.  The report, at exit.
 */
uint64_t cp_unseen_of(const struct cp_thread *t);

/* The part of @t's blocked time beyond its wrapped waits that its waits
 * for child processes explain, ns.  The report, at exit. */
uint64_t cp_unseen_children_of(const struct cp_thread *t);

/* @t waited @ns for a child process (wrap_wait.c).  Owning thread. */
void cp_unseen_child_wait(struct cp_thread *t, uint64_t ns);

/*
 * Waiting outside the process: a sleep (wrap_sleep.c), a readiness wait
 * (poll, select, epoll) or a channel's read that no write of the process
 * ended (wrap_chan.c) is
 * blocking the tracer knows but has no edge for (a socket to another
 * process, a timer); its time stays useful, standing for that outside
 * work, and is said apart from unexplained waiting, as child waits are.
 */
uint64_t cp_unseen_outside_of(const struct cp_thread *t);

/* @t waited @ns for something outside the process.  Owning thread. */
void cp_unseen_outside_wait(struct cp_thread *t, uint64_t ns);

/*
 * Spinning.  A thread that spin-waits outside every wrapper (a loop of
 * the program's own polling a flag; libstdc++'s C++20 waits poll a few
 * times, yielding, before they reach FUTEX_WAIT, which wrap_futex.c
 * sees) is busy, and no clock tells that from work.  Many such loops
 * yield the processor between polls, and sched_yield is wrapped
 * (wrap_futex.c): the time from one yield to the next, when the thread
 * recorded no event between them and ran less than CP_UNSEEN_POLL_NS of
 * processor time between them (a poll, not work), is counted as
 * spinning: its wall time under the wall clock (a busy machine's
 * time-slices given to others included, as in useful time), its CPU time
 * under the cpu clock.  It errs low: the polls before the first yield and
 * after the last are not counted.  Nor is spinning after the thread's
 * latest event, which is outside its useful time (a pool thread that
 * spins until the process exits: OpenBLAS's workers do): it counts once
 * an event follows it.
 */
#define CP_UNSEEN_POLL_NS 50000ull	/* 50 us */

/* @t calls sched_yield.  Owning thread. */
void cp_unseen_yield(struct cp_thread *t);

/* @t's spinning so far, ns (the report, at exit). */
uint64_t cp_unseen_spin_of(const struct cp_thread *t);

/*
 * The sentences for the report, computed once at exit and kept (the trace
 * writer repeats them in its INFO block): which threads waited how long
 * unexplained, which waited how long for child processes or for events
 * from outside the process, which spun how
 * long, and which self-synchronizing library is loaded.  "" when there
 * is nothing to say.
 * Exit path, one thread.
 */
const char *cp_unseen_blocked_note(void);
const char *cp_unseen_children_note(void);
const char *cp_unseen_outside_note(void);
const char *cp_unseen_spin_note(void);
const char *cp_unseen_library_note(void);

#endif /* CP_UNSEEN_H */
