/*
 * cp_runtime.h - process-wide state of the tracer and the re-entry guard.
 *
 * Start-up (constructor) reads the configuration, calibrates the clock,
 * creates the private arena and the object table, adopts the first thread
 * and opens the trace.  Exit (destructor) folds every thread into the
 * final critical path and writes the report.  A forked child starts over.
 *
 * cp_rt is written at start-up, in a forked child before it runs any
 * program code, and (gen, next_tid) atomically; every other thread only
 * reads it.
 */
#ifndef CP_RUNTIME_H
#define CP_RUNTIME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cp_config.h"

struct cp_thread;

struct cp_runtime {
	struct cp_config cfg;
	bool tracing;		/* hooks run (mode != off, started, !finished) */
	bool lean_locks;	/* mutexes and spin locks may take the inline
				 * lean paths of cp_online.h: online mode,
				 * wall clock from the TSC, no procedure
				 * selected (set at start-up, after the real
				 * functions were resolved); implies tracing
				 * (cleared with it), so that the inline
				 * paths read one flag */
	bool lean_far;		/* the general lock wrappers try the lean
				 * paths first (online or trace mode, wall
				 * clock from the TSC, no procedure found by
				 * sampling; procedures selected or not);
				 * implies tracing, as lean_locks does */
	bool trace;		/* trace mode: events are recorded */
	unsigned clock;		/* enum cp_trace_clock */
	unsigned nsel;		/* selected procedures */
	atomic_uint gen;	/* computation generation, from 1 */
	atomic_uint next_tid;
	pid_t pid;
	char comm0[16];		/* the process's name (comm) at start: a
				 * thread's name is its own when it differs */
	unsigned ncpus;		/* processors it may run on at start, 0:
				 * unknown (cp_cpus.h) */
	uint64_t start_wall;	/* cp_clock_wall() at start (~0) */
	uint64_t start_realtime;
	bool forked_child;
	bool descendant;	/* not the process cpt run started, but one
				 * it ran (a script's commands...): its files
				 * carry its pid, and when it saw nothing (one
				 * thread, no object) it leaves none */
	char report_path[PATH_MAX];	/* "" = no JSON report */
	char trace_path[PATH_MAX];
	int trace_fd;			/* -1 without a trace */
};

extern struct cp_runtime cp_rt;

/* What every wrapper reads first, in one TLS object so that a wrapper
 * finds both from one address (it keeps one register, not two, over the
 * real call). */
struct cp_tls {
	unsigned guard;		/* re-entry guard: >0 while the tracer
				 * itself runs on this thread, so the locks
				 * taken by the tracer, liburcu, jemalloc
				 * and stdio go straight to the real
				 * functions; tracer-internal threads keep
				 * it at 1 for life */
	struct cp_thread *self;	/* this thread's state, NULL until
				 * adopted */
};

extern __thread struct cp_tls cp_tls __attribute__((tls_model("initial-exec")));

/* State of a thread the tracer did not see start (created before start-up
 * or outside the wrappers); NULL when tracing is off.  Calling thread. */
struct cp_thread *cp_runtime_adopt(void);

/*
 * Enter the tracer from a wrapper: the calling thread's state with the
 * guard raised, or NULL when the call must go straight to the real
 * function (tracing off, nested inside the tracer, internal thread).
 */
static inline struct cp_thread *cp_enter(void)
{
	struct cp_thread *t;

	if (__builtin_expect(cp_tls.guard != 0 || !cp_rt.tracing, 0))
		return NULL;
	t = cp_tls.self;
	if (__builtin_expect(t == NULL, 0)) {
		t = cp_runtime_adopt();
		if (!t)
			return NULL;
	}
	cp_tls.guard++;
	return t;
}

/*
 * cp_enter() for the lean lock paths: the calling thread's state with the
 * guard raised when those paths apply, else NULL (then nothing changed and
 * the general wrapper runs).  @far: for the general wrappers' second try,
 * which serves trace mode too.  Adopts no thread.
 */
static inline struct cp_thread *cp_enter_lean(bool far)
{
	struct cp_thread *t;

	if (__builtin_expect(cp_tls.guard != 0 ||
			     !(far ? cp_rt.lean_far : cp_rt.lean_locks),
			     0))
		return NULL;
	t = cp_tls.self;
	if (t)
		cp_tls.guard = 1;
	return t;
}

/* Leave the tracer: lower the guard that cp_enter() or cp_enter_lean()
 * raised (call only when they returned a state).  Calling thread. */
static inline void cp_leave(void)
{
	cp_tls.guard--;
}

/* Between the hooks of a wrapper, the guard is lowered around the real
 * (possibly blocking) call, so a signal handler that runs meanwhile is
 * traced like any code, never inside a half-done hook. */
static inline void cp_pause(void)
{
	cp_tls.guard--;
}

static inline void cp_resume(void)
{
	cp_tls.guard++;
}

/* Arrange for cp_thread_exit(@t) when the calling thread ends, however
 * it ends.  Calling thread, guard raised. */
void cp_runtime_bind_exit(struct cp_thread *t);
/*
 * The count of program threads that ends the process (cp_runtime.c):
 * thread_coming() before the real pthread_create of a traced thread
 * (which then ends through the trampoline and cp_runtime_bind_exit()),
 * thread_failed() if that create failed.  Any thread.
 */
void cp_runtime_thread_coming(void);
void cp_runtime_thread_failed(void);
/* A tracer thread begins (@begin) or ends its work; the process does not
 * wait for it to end.  The tracer thread itself. */
void cp_runtime_internal_thread(bool begin);
/* No thread but the first has run in this process (a fork child: since
 * it started over).  Any thread; async-signal-safe (one load). */
static inline bool cp_runtime_alone(void)
{
	return atomic_load_explicit(&cp_rt.next_tid, memory_order_relaxed) <=
	       1;
}

/* One thread and no synchronization object (no record made) in this
 * process so far: nothing for the tracer to report.  Any thread;
 * async-signal-safe (two loads). */
bool cp_runtime_saw_nothing(void);
/*
 * A relative output path @p (@len bytes) made absolute where it belongs:
 * a descendant's in the directory cpt run started in (wherever a script
 * went meanwhile, its files are beside the run's, and a program it execs
 * after a cd finds its trace under the same name: cp_outfile.h); else in
 * the directory this process started in, once the program has left it
 * (a forked child, a report at exit).  Unchanged while the program is
 * still there, so messages name the file as the user did.  Start-up, fork
 * child, exit.
 */
void cp_runtime_anchor(char *p, size_t len);
/* Output path @p, as cp_runtime_anchor left it, made absolute into @out
 * (@len bytes): a relative one is in the directory the process started
 * in.  False when that cannot be had.  Any thread. */
bool cp_runtime_absolute(const char *p, char *out, size_t len);
/* Finish now: final path, report, trace closed.  Once (later calls
 * return); the destructor, or exit() from any thread. */
void cp_runtime_finish(void);
/*
 * Before an exec replaces this process's image: a process that has run
 * threads (cp_runtime_alone false) finishes now, report and trace as at
 * exit (a process that never gets to exit would lose both; the new image,
 * traced again if it is, writes its own under the next free names).
 * Nothing for one that stayed one thread (a forked child about to exec,
 * a launcher such as an interpreter whose own locks are all it took: the
 * new image takes its names over) or a vfork child (the parent's tracer).
 * True when it finished.  The exec wrappers, any thread.
 */
bool cp_runtime_exec_begin(void);
/* The exec after a cp_runtime_exec_begin that finished failed (@err):
 * say that the report ends there.  Errno is preserved. */
void cp_runtime_exec_failed(int err);
/* fork() support, around the real fork in the wrapper: liburcu's fork
 * handlers, and in the child a fresh tracer state of its one thread (new
 * generation, object table, report and trace of its own pid; the
 * parent's structures are left behind).  The forking thread. */
void cp_runtime_prefork(void);
void cp_runtime_postfork_parent(void);
void cp_runtime_postfork_child(void);

#endif /* CP_RUNTIME_H */
