/*
 * cpthread.h - the public interface of the cpthread critical-path profiler.
 *
 * A program linked with -lcpthread (or run with libcpthread.so preloaded)
 * is profiled without any of these calls; they refine what the profiler
 * sees.  Every call is safe from any thread at any time, and costs almost
 * nothing when the tracer is off (CPTHREAD_MODE=off).  A program built
 * with -DCPTHREAD_NO_ANNOTATIONS gets empty inline versions instead, so the
 * same source builds without the library (a plain or gprof build).
 *
 * None of these calls returns a value, and none can make the program
 * fail: when the tracer cannot follow one (out of its own memory, tracing
 * off), the annotation is dropped.  The addresses passed
 * are only used as names; cpthread never reads or writes through them and
 * keeps nothing the caller owns, except a region's @name (see below).
 *
 * Citations in [brackets] name the papers listed in doc/references.md of
 * the source tree (installed as share/doc/cpthread/references.md).
 */
#ifndef CPTHREAD_H
#define CPTHREAD_H

#ifdef __cplusplus
extern "C" {
#endif

/* The version: the one definition, CMake reads it for PROJECT_VERSION. */
#define CPTHREAD_VERSION_MAJOR 0
#define CPTHREAD_VERSION_MINOR 1

#ifndef CPTHREAD_NO_ANNOTATIONS

/*
 * Work queues.  Tell cpthread that @item entered (enqueue) or left
 * (dequeue) the queue @queue.  The dequeue of an item then depends on the
 * enqueue of that same item only [Hollingsworth98, Fig. 11 right], not
 * on every earlier holder of the queue's lock; pair these calls with
 * cpthread_untrack() on the queue's lock.  @item is any address that is
 * unique among the items in flight.
 */
void cpthread_enqueue(const void *queue, const void *item);
void cpthread_dequeue(const void *queue, const void *item);

/*
 * Make @object (a mutex, spin lock, rwlock, condition variable, semaphore
 * or barrier) create no dependency edges from now on: typically a work
 * queue's own lock once its items are tracked.  Waits on it still count as
 * waiting, not as useful time.
 */
void cpthread_untrack(const void *object);

/*
 * A named region counts as a procedure named @name: select it with
 * CPTHREAD_FUNCS=name like any function.  Regions nest; begin and end must
 * pair on the same thread.  @name must stay valid until the program exits
 * (a string literal is the usual choice).
 */
void cpthread_region_begin(const char *name);
void cpthread_region_end(const char *name);

/*
 * Start or stop the critical-path computation during the run
 * [Hollingsworth98, §2.3].  The computation runs from program start
 * unless stopped; cpthread_start() after a stop begins a new interval
 * whose result replaces the previous one in the report.
 */
void cpthread_start(void);
void cpthread_stop(void);

/* Record an intermediate sample of the critical path now: the report's
 * "samples" list gets its length and the procedures' shares. */
void cpthread_sample(void);

#else /* CPTHREAD_NO_ANNOTATIONS */

static inline void cpthread_enqueue(const void *q, const void *i) { (void)q; (void)i; }
static inline void cpthread_dequeue(const void *q, const void *i) { (void)q; (void)i; }
static inline void cpthread_untrack(const void *o) { (void)o; }
static inline void cpthread_region_begin(const char *n) { (void)n; }
static inline void cpthread_region_end(const char *n) { (void)n; }
static inline void cpthread_start(void) { }
static inline void cpthread_stop(void) { }
static inline void cpthread_sample(void) { }

#endif /* CPTHREAD_NO_ANNOTATIONS */

#ifdef __cplusplus
}
#endif

#endif /* CPTHREAD_H */
