/*
 * cp_runtime.c - start-up, exit and fork of the tracer.
 */

#include "cp_runtime.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "cp_alloc.h"
#include "cp_clock.h"
#include "cp_items.h"
#include "cp_objrec.h"
#include "cp_online.h"
#include "cp_procs.h"
#include "cp_report.h"
#include "cp_sampler.h"
#include "cp_symbols.h"
#include "cp_thread.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"

struct cp_runtime cp_rt = { .trace_fd = -1 };
__thread unsigned cp_guard __attribute__((tls_model("initial-exec")));
__thread struct cp_thread *cp_self __attribute__((tls_model("initial-exec")));

static bool cp_initialized;
static atomic_bool cp_finished;
static pthread_key_t cp_exit_key;

/* Thread-exit safety net: runs for a thread that ends without passing
 * through the trampoline's exit (cancellation). */
static void thread_key_destructor(void *arg)
{
	struct cp_thread *t = arg;

	cp_guard++;
	if (t && !atomic_load(&cp_finished))
		cp_thread_exit(t);
	cp_guard--;
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

static void setup_outputs(bool child)
{
	int saved = errno;

	cp_config_path(cp_rt.cfg.report_tmpl, "json", cp_rt.pid, child,
		       cp_rt.report_path, sizeof(cp_rt.report_path));
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
		int rc = cp_trace_open();

		if (rc) {
			cp_warn("CPTHREAD_TRACE: cannot create %s (%s); running "
				"in online mode", cp_rt.trace_path, strerror(-rc));
			cp_rt.trace = false;
			cp_rt.trace_path[0] = '\0';
		}
	}
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
	cp_guard = 1;		/* tracer-internal thread: never traced */
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

__attribute__((constructor(101)))
static void cp_runtime_init(void)
{
	int saved = errno;

	if (cp_initialized)
		return;
	cp_initialized = true;
	cp_guard++;
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
	cp_rt.start_wall = cp_clock_wall();
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		cp_rt.start_realtime = (uint64_t)ts.tv_sec * 1000000000u +
				       (uint64_t)ts.tv_nsec;
	}
	setup_outputs(false);
	cp_sampler_init();
	pthread_key_create(&cp_exit_key, thread_key_destructor);
	if (!bind_first_thread()) {
		cp_warn("cannot set up the tracer's memory; tracing is off");
		goto out;
	}
	cp_rt.lean_locks = !cp_rt.trace && cp_rt.clock == CP_CLOCK_WALL &&
			   cp_clock_calib.use_tsc &&
			   !(cp_procs_nsampled && cp_sampler_kind());
	cp_rt.tracing = true;
	start_sampler();
out:
	cp_guard--;
	errno = saved;
}

struct cp_thread *cp_runtime_adopt(void)
{
	struct cp_thread *t;

	if (!cp_initialized || atomic_load(&cp_finished))
		return NULL;
	cp_guard++;
	t = cp_thread_new(NULL);
	if (t) {
		cp_online_thread_start(t);
		pthread_setspecific(cp_exit_key, t);
	}
	cp_guard--;
	return t;
}

void cp_runtime_bind_exit(struct cp_thread *t)
{
	pthread_setspecific(cp_exit_key, t);
}

void cp_runtime_finish(void)
{
	struct cp_thread *t;
	int saved = errno;

	if (!cp_rt.tracing || atomic_exchange(&cp_finished, true))
		return;
	cp_guard++;
	t = cp_self;
	cp_rt.tracing = false;	/* other threads' next calls go straight */
	if (t && !t->exited) {
		/* The exiting thread's last event: program end follows it. */
		uint64_t now = cp_thread_now(t);

		cp_thread_advance(t, now);
		if (t->tb)
			cp_tb_commit(t->tb, cp_tb_vertex(t->tb,
				CP_EV_PROCESS_EXIT, now, cp_rt.clock ==
				CP_CLOCK_CPU ? t->wall_now : UINT64_MAX));
	}
	cp_sampler_finish();
	cp_report_write(t);
	if (cp_rt.trace)
		cp_trace_finish(cp_thread_all(), cp_report_length());
	cp_guard--;
	errno = saved;
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
	cp_rt.start_wall = cp_clock_wall();
	atomic_fetch_add(&cp_rt.gen, 1);
	atomic_store(&cp_rt.next_tid, 0);
	cp_thread_reset_registry(NULL);
	cp_report_reset();
	memset(cp_objrec_retired, 0, sizeof(cp_objrec_retired));
	cp_items_init();
	if (cp_objrec_init()) {
		cp_rt.tracing = false;
		return;
	}
	setup_outputs(true);
	cp_sampler_postfork_child();
	if (!bind_first_thread())
		cp_rt.tracing = false;
}
