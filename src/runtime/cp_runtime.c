/*
 * cp_runtime.c - start-up, exit and fork of the tracer.
 *
 * How a thread ends.  A thread the tracer created ends its path in the
 * trampoline (wrap_thread.c), on return, pthread_exit or cancellation,
 * before any thread-specific data destructor runs; from then on its
 * guard stays raised.  Other threads (main, adopted ones) end theirs in
 * the destructor of cp_exit_key, which runs after liburcu-bp's: that one
 * unregisters the thread while holding liburcu-bp's own mutexes, and a
 * traced lock there would register the thread again and wait for them.
 * So a followed thread that liburcu-bp no longer knows is not traced
 * (cp_objrec_thread_begin), whichever way it ends.
 *
 * How the process ends.  POSIX ends a process when its last thread ends,
 * as if by exit(0); glibc does so when its count of threads reaches zero.
 * The tracer's own threads (liburcu's workers, the sampler) count there
 * and never end, so the tracer keeps its own count of the program's
 * threads, cp_live, and calls exit(0) itself when it reaches zero.  A
 * thread leaves the count in the last round of thread-specific data
 * destructors (the destructor of cp_exit_key sets its value again until
 * then), as late as a library can see a thread end; the exit handlers
 * then write the report and the trace as after any exit().  A thread that
 * calls exit() never leaves the count, so only the last thread to end
 * through pthread_exit, cancellation or return can make that call.  A
 * thread of the process that is neither counted nor the tracer's (one
 * running before start-up, or created behind the wrappers' back; only
 * /proc/self/stat knows how many there are) is waited for, by a reaper
 * thread if it takes long.
 */

#include "cp_runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "cp_alloc.h"
#include "cp_clock.h"
#include "cp_cpus.h"
#include "cp_fds.h"
#include "cp_items.h"
#include "cp_objrec.h"
#include "cp_online.h"
#include "cp_procs.h"
#include "cp_report.h"
#include "cp_sampler.h"
#include "cp_sites.h"
#include "cp_symbols.h"
#include "cp_thread.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"

struct cp_runtime cp_rt = { .trace_fd = -1 };
__thread struct cp_tls cp_tls __attribute__((tls_model("initial-exec")));

static bool cp_initialized;
static atomic_bool cp_finished;
static pthread_key_t cp_exit_key;
static atomic_uint cp_live;		/* program threads not yet ended */
static atomic_uint cp_internal;		/* tracer threads at work */
static atomic_bool cp_main_gone;	/* the initial thread has ended */
/* destructor rounds of cp_exit_key seen by this (ending) thread */
static __thread unsigned cp_exit_rounds
	__attribute__((tls_model("initial-exec")));

/* Threads of the process now (/proc/self/stat), 0 if unknown. */
static unsigned threads_now(void)
{
	char buf[1024];
	const char *p;
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	unsigned field = 2;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the command name may hold anything */
	if (!p)
		return 0;
	while (*p && field < 20)	/* field 20: num_threads */
		if (*p++ == ' ')
			field++;
	return (unsigned)strtoul(p, NULL, 10);
}

/* Threads other than the caller that may be left when the program has
 * none: the tracer's, and the initial thread as a zombie. */
static unsigned tracer_threads(bool caller_initial)
{
	return atomic_load(&cp_internal) +
	       (atomic_load(&cp_main_gone) && !caller_initial);
}

/*
 * A tracer thread that ends the process once the threads the count does
 * not know (created behind the wrappers' back) have ended too.
 */
static void *reaper_main(void *arg)
{
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = 10000000 };

	(void)arg;
	while (!atomic_load(&cp_finished)) {
		unsigned n = threads_now();

		if (n != 0 && n <= tracer_threads(false))
			exit(0);
		nanosleep(&tick, NULL);
	}
	return NULL;	/* another thread called exit() */
}

/*
 * The last counted thread is ending: end the process as glibc would, once
 * no thread is left but this one and the tracer's (threads that left the
 * count just before may still be finishing their exit: wait for them).  A
 * thread the count does not know still running after 100 ms: a reaper
 * thread ends the process when that one has ended too.
 */
static void end_process(void)
{
	const struct timespec ms = { .tv_sec = 0, .tv_nsec = 1000000 };
	bool initial = gettid() == getpid();
	pthread_attr_t attr;
	pthread_t id;

	for (int i = 0; i < 100; i++) {
		unsigned n = threads_now();

		if (n == 0 || atomic_load(&cp_finished))
			return;
		if (n <= 1 + tracer_threads(initial))
			exit(0);
		nanosleep(&ms, NULL);
	}
	cp_tls.guard++;		/* a tracer thread */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&id, &attr, reaper_main, NULL) != 0)
		cp_warn("cannot start a thread to end the process; it ends "
			"when the tracer's threads do");
	pthread_attr_destroy(&attr);
	cp_tls.guard--;
}

/*
 * Runs at the end of every thread that has a state: ends its path if the
 * trampoline did not (a thread the tracer did not create), then keeps
 * itself for the last destructor round, where the thread leaves cp_live.
 */
static void thread_key_destructor(void *arg)
{
	struct cp_thread *t = arg;

	cp_tls.guard++;
	if (!atomic_load(&cp_finished))
		cp_thread_exit(t);
	if (++cp_exit_rounds < PTHREAD_DESTRUCTOR_ITERATIONS &&
	    pthread_setspecific(cp_exit_key, t) == 0) {
		cp_tls.guard--;
		return;
	}
	cp_tls.guard--;
	if (gettid() == getpid())
		atomic_store(&cp_main_gone, true);
	if (atomic_fetch_sub(&cp_live, 1) == 1 && !atomic_load(&cp_finished))
		end_process();	/* the last thread of the program ended */
}

/* Writable destination?  A missing file needs a writable directory. */
static bool path_writable(const char *path)
{
	char dir[PATH_MAX];
	const char *slash;

	if (access(path, F_OK) == 0)
		return access(path, W_OK) == 0;
	slash = strrchr(path, '/');
	if (!slash)
		return access(".", W_OK | X_OK) == 0;
	if (slash == path)
		return access("/", W_OK | X_OK) == 0;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return access(dir, W_OK | X_OK) == 0;
}

/*
 * The directory the process started in (its name and identity), where
 * relative output paths are taken: a report is created at exit, after a
 * program (a daemon) may have moved to another directory.  "" when its
 * name could not be had: paths then stay relative to wherever it is.
 */
static char cp_start_dir[PATH_MAX];
static dev_t cp_start_dev;
static ino_t cp_start_ino;

static void note_start_dir(void)
{
	struct stat st;

	if (!getcwd(cp_start_dir, sizeof(cp_start_dir)) ||
	    cp_start_dir[0] != '/' || stat(".", &st)) {
		cp_start_dir[0] = '\0';
		return;
	}
	cp_start_dev = st.st_dev;
	cp_start_ino = st.st_ino;
}

/* @p (@len bytes) with directory @dir put before it; false (@p as it
 * was) when there is no @dir or no room. */
static bool prefix_dir(char *p, size_t len, const char *dir)
{
	size_t d = strlen(dir), n = strlen(p);

	if (!d || d + 1 + n >= len)
		return false;
	memmove(p + d + 1, p, n + 1);
	memcpy(p, dir, d);
	p[d] = '/';
	return true;
}

bool cp_runtime_absolute(const char *p, char *out, size_t len)
{
	size_t n = strlen(p);

	if (n >= len)
		return false;
	memcpy(out, p, n + 1);
	return p[0] == '/' || prefix_dir(out, len, cp_start_dir);
}

void cp_runtime_anchor(char *p, size_t len)
{
	struct stat st;

	if (!p[0] || p[0] == '/')
		return;
	if (cp_rt.descendant && cp_rt.cfg.root_dir[0])
		prefix_dir(p, len, cp_rt.cfg.root_dir);
	else if (cp_start_dir[0] &&
		 (stat(".", &st) || st.st_dev != cp_start_dev ||
		  st.st_ino != cp_start_ino))
		prefix_dir(p, len, cp_start_dir);
}

static void setup_outputs(bool child)
{
	int saved = errno;

	cp_config_path(cp_rt.cfg.report_tmpl, "json", cp_rt.pid, child,
		       cp_rt.report_path, sizeof(cp_rt.report_path));
	cp_runtime_anchor(cp_rt.report_path, sizeof(cp_rt.report_path));
	if (!path_writable(cp_rt.report_path)) {
		cp_warn("CPTHREAD_REPORT: cannot write %s (%s); no JSON report "
			"for this run", cp_rt.report_path, strerror(errno));
		cp_rt.report_path[0] = '\0';
	}
	cp_rt.trace = cp_rt.cfg.mode == CP_MODE_TRACE;
	cp_rt.trace_fd = -1;
	if (cp_rt.trace) {
		cp_config_path(cp_rt.cfg.trace_tmpl, "cpt", cp_rt.pid, child,
			       cp_rt.trace_path, sizeof(cp_rt.trace_path));
		cp_runtime_anchor(cp_rt.trace_path, sizeof(cp_rt.trace_path));
		int rc = cp_trace_open();

		if (rc) {
			cp_warn("CPTHREAD_TRACE: cannot create %s (%s); running "
				"in online mode", cp_rt.trace_path, strerror(-rc));
			cp_rt.trace = false;
			cp_rt.trace_path[0] = '\0';
		}
	}
	cp_sites_init();
	errno = saved;
}

/* The first thread (or the forking one in a child). */
static struct cp_thread *bind_first_thread(void)
{
	struct cp_thread *t = cp_thread_new(NULL);

	if (!t)
		return NULL;
	cp_online_thread_start(t);
	pthread_setspecific(cp_exit_key, t);
	return t;
}

static void *sampler_main(void *arg)
{
	struct timespec ts;

	(void)arg;
	cp_tls.guard = 1;	/* tracer-internal thread: never traced */
	ts.tv_sec = cp_rt.cfg.sample_ms / 1000;
	ts.tv_nsec = (long)(cp_rt.cfg.sample_ms % 1000) * 1000000L;
	while (!atomic_load(&cp_finished)) {
		nanosleep(&ts, NULL);
		if (atomic_load(&cp_finished) || !cp_rt.tracing)
			break;
		cp_report_sample(NULL);
	}
	return NULL;
}

static void start_sampler(void)
{
	pthread_t id;
	pthread_attr_t attr;

	if (!cp_rt.cfg.sample_ms)
		return;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&id, &attr, sampler_main, NULL) != 0)
		cp_warn("CPTHREAD_SAMPLE_MS: cannot start the sampler; no "
			"samples");
	pthread_attr_destroy(&attr);
}

/* Tracing ends (or cannot go on): the hooks, and the lean paths, which
 * read only their own flags, go straight to the real calls from now on. */
static void cp_runtime_stop(void)
{
	cp_rt.lean_locks = false;
	cp_rt.lean_far = false;
	cp_rt.tracing = false;
}

/*
 * The C locale, in which the report and the summary are written at exit
 * (cp_runtime_finish): a program may have chosen one whose decimal point
 * is a comma (setlocale(LC_ALL, "") under LANG=de_DE.UTF-8), which put
 * "1,63" into the JSON report.  (locale_t)0 when it could not be had.
 */
static locale_t cp_c_locale;

__attribute__((constructor(102)))
static void cp_runtime_init(void)
{
	int saved = errno;

	if (cp_initialized)
		return;
	cp_initialized = true;
	cp_tls.guard++;
	cp_stderr_init();
	cp_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	cp_config_load(&cp_rt.cfg);
	if (cp_rt.cfg.mode == CP_MODE_OFF)
		goto out;
	cp_clock_init();
	if (cp_alloc_init() || cp_objrec_init()) {
		cp_warn("cannot set up the tracer's memory; tracing is off");
		goto out;
	}
	cp_items_init();
	cp_rt.clock = cp_rt.cfg.clock;
	cp_symbols_load();
	cp_procs_init();
	atomic_store(&cp_rt.gen, 1);
	atomic_store(&cp_rt.next_tid, 0);
	cp_rt.pid = getpid();
	cp_thread_comm(gettid(), cp_rt.comm0);
	cp_rt.ncpus = cp_cpus_count();
	cp_rt.start_wall = cp_clock_wall();
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		cp_rt.start_realtime = (uint64_t)ts.tv_sec * 1000000000u +
				       (uint64_t)ts.tv_nsec;
	}
	cp_rt.descendant = cp_rt.cfg.root_pid > 0 &&
			   cp_rt.cfg.root_pid != cp_rt.pid;
	note_start_dir();
	setup_outputs(cp_rt.descendant);
	cp_sampler_init();
	pthread_key_create(&cp_exit_key, thread_key_destructor);
	atomic_store(&cp_live, 1);
	if (!bind_first_thread()) {
		cp_warn("cannot set up the tracer's memory; tracing is off");
		goto out;
	}
	cp_rt.lean_far = cp_rt.clock == CP_CLOCK_WALL &&
			 cp_clock_calib.use_tsc &&
			 !(cp_procs_nsampled && cp_sampler_kind());
	cp_rt.lean_locks = cp_rt.lean_far && !cp_rt.trace && !cp_rt.nsel;
	cp_rt.tracing = true;
	/* quick_exit() runs the at_quick_exit handlers, last registered
	 * first, then _exit()s inside libc (past the _exit wrapper): this
	 * one, registered before the program's, ends the run as exit()
	 * does, after the program's handlers ran traced */
	at_quick_exit(cp_runtime_finish);
	start_sampler();
out:
	cp_tls.guard--;
	errno = saved;
}

struct cp_thread *cp_runtime_adopt(void)
{
	struct cp_thread *t;

	if (!cp_initialized || atomic_load(&cp_finished))
		return NULL;
	cp_tls.guard++;
	t = cp_thread_new(NULL);
	if (t) {
		cp_online_thread_start(t);
		atomic_fetch_add(&cp_live, 1);
		pthread_setspecific(cp_exit_key, t);
	}
	cp_tls.guard--;
	return t;
}

void cp_runtime_bind_exit(struct cp_thread *t)
{
	pthread_setspecific(cp_exit_key, t);
}

void cp_runtime_thread_coming(void)
{
	atomic_fetch_add(&cp_live, 1);
}

void cp_runtime_thread_failed(void)
{
	atomic_fetch_sub(&cp_live, 1);
}

void cp_runtime_internal_thread(bool begin)
{
	if (begin)
		atomic_fetch_add(&cp_internal, 1);
	else
		atomic_fetch_sub(&cp_internal, 1);
}

bool cp_runtime_saw_nothing(void)
{
	return cp_runtime_alone() && cp_objrec_none_made();
}

void cp_runtime_finish(void)
{
	struct cp_thread *t;
	locale_t prev;
	int saved = errno;

	if (!cp_rt.tracing || atomic_exchange(&cp_finished, true))
		return;
	cp_tls.guard++;
	/* the figures in the C locale's notation, whatever the program's */
	prev = cp_c_locale ? uselocale(cp_c_locale) : (locale_t)0;
	t = cp_tls.self;
	cp_runtime_stop();	/* other threads' next calls go straight */
	if (t && !t->exited) {
		/* The exiting thread's last event: program end follows it. */
		uint64_t now = cp_thread_now(t);

		cp_thread_advance(t, now);
		if (t->tb)
			cp_tb_commit(t->tb, cp_tb_vertex(t->tb,
				CP_EV_PROCESS_EXIT, now, cp_rt.clock ==
				CP_CLOCK_CPU ? t->wall_now : UINT64_MAX));
	}
	/* the threads still running end here too */
	for (struct cp_thread *o = cp_thread_all(); o; o = o->next)
		if (o != t)
			cp_thread_end_live(o);
	cp_sampler_finish();
	if (!cp_report_write(t) && cp_rt.trace) {
		cp_trace_discard();	/* a descendant that saw nothing */
	} else if (cp_rt.trace) {
		cp_sites_finish();
		cp_trace_finish(cp_thread_all(), cp_report_length());
	}
	if (prev)
		uselocale(prev);
	cp_tls.guard--;
	errno = saved;
}

bool cp_runtime_exec_begin(void)
{
	if (!cp_rt.tracing || cp_tls.guard || atomic_load(&cp_finished) ||
	    getpid() != cp_rt.pid || cp_runtime_alone())
		return false;
	cp_runtime_finish();
	return true;
}

void cp_runtime_exec_failed(int err)
{
	cp_warn("an exec failed (%s); the report and trace above end at it, "
		"the program goes on untraced", strerror(err));
	errno = err;
}

__attribute__((destructor(101)))
static void cp_runtime_fini(void)
{
	cp_runtime_finish();
}

void cp_runtime_prefork(void)
{
	urcu_bp_before_fork();
}

void cp_runtime_postfork_parent(void)
{
	urcu_bp_after_fork_parent();
}

/*
 * The child starts fresh: only the forking thread exists, with an empty
 * path, its own object table, report and trace named by its own pid.  The
 * parent's structures are left behind (their locks may be held by threads
 * that do not exist here).
 */
void cp_runtime_postfork_child(void)
{
	urcu_bp_after_fork_child();
	if (!cp_rt.tracing)
		return;
	cp_rt.pid = getpid();
	cp_rt.forked_child = true;
	cp_rt.descendant = cp_rt.cfg.root_pid > 0;	/* not the root's pid */
	cp_rt.start_wall = cp_clock_wall();
	atomic_fetch_add(&cp_rt.gen, 1);
	atomic_store(&cp_rt.next_tid, 0);
	atomic_store(&cp_live, 1);	/* the forking thread alone */
	cp_thread_reset_registry();
	cp_report_reset();
	memset(cp_objrec_retired, 0, sizeof(cp_objrec_retired));
	cp_items_init();
	if (cp_objrec_init()) {
		cp_runtime_stop();
		return;
	}
	setup_outputs(true);
	cp_sampler_postfork_child();
	if (!bind_first_thread())
		cp_runtime_stop();
}
