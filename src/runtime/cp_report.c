/*
 * cp_report.c - results of the online computation.
 *
 * The global critical path at any moment is the merge of every thread's
 * path ([Hollingsworth98, Fig. 3]: the longest of the per-process samples, with
 * its shares); program end depends on every thread's last event.  Samples and
 * the result of cpthread_stop() are such merges; the exit report is the last
 * one.  Everything is written with write(2) from buffers of the private arena:
 * no stdio, no program heap.
 */
#include "cp_report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cp_alloc.h"
#include "cp_cpus.h"
#include "cp_emit.h"
#include "cp_fds.h"
#include "cp_items.h"
#include "cp_lock.h"
#include "cp_modules.h"
#include "cp_objrec.h"
#include "cp_outfile.h"
#include "cp_procs.h"
#include "cp_report_keys.h"
#include "cp_sampler.h"
#include "cp_symbols.h"
#include "cp_trace_format.h"
#include "cp_unseen.h"
#include "cp_version.h"

#define CP_MAX_SAMPLES 100000

struct cp_sample {
	uint64_t wall;
	struct cp_path *path;
};

static struct cp_lock cp_report_lock;
static struct cp_path *cp_frozen;	/* result of cpthread_stop() */
static struct cp_sample *cp_samples;
static uint32_t cp_nsamples, cp_cap_samples;
static uint64_t cp_final_len;

static struct cp_path *path_new(void)
{
	return cp_zalloc(cp_path_size(cp_rt.nsel));
}

void cp_report_global(struct cp_thread *caller, struct cp_path *out)
{
	uint32_t gen = atomic_load(&cp_rt.gen);

	cp_path_clear(out, cp_rt.nsel, gen, CP_PATH_MIXED);
	out->gen = gen;
	if (caller && !caller->exited)
		cp_thread_advance(caller, cp_thread_now(caller));
	for (struct cp_thread *t = cp_thread_all(); t; t = t->next)
		cp_path_merge(out, t->path, cp_rt.nsel, gen);
}

/* Into the final path @out: the paths of the threads still running at
 * the end, each with its useful time since its latest event
 * (cp_thread_end_live). */
static void merge_live_ends(struct cp_path *out)
{
	struct cp_path *p = NULL;

	for (struct cp_thread *t = cp_thread_all(); t; t = t->next) {
		if (!__atomic_load_n(&t->live_end, __ATOMIC_ACQUIRE) ||
		    !t->live_useful)
			continue;
		if (!p && !(p = path_new()))
			return;
		cp_path_copy(p, t->path, cp_rt.nsel);
		p->len += t->live_useful;
		cp_path_merge(out, p, cp_rt.nsel, out->gen);
	}
	cp_free(p);
}

void cp_report_sample(struct cp_thread *caller)
{
	struct cp_path *p = path_new();

	if (!p)
		return;
	cp_report_global(caller, p);
	cp_lock_acquire(&cp_report_lock);
	if (cp_nsamples == cp_cap_samples && cp_cap_samples < CP_MAX_SAMPLES) {
		uint32_t cap = cp_cap_samples ? cp_cap_samples * 2 : 64;
		struct cp_sample *ns = cp_realloc(cp_samples, cap * sizeof(*ns));

		if (ns) {
			cp_samples = ns;
			cp_cap_samples = cap;
		}
	}
	if (cp_nsamples < cp_cap_samples) {
		cp_samples[cp_nsamples].wall = cp_clock_wall() - cp_rt.start_wall;
		cp_samples[cp_nsamples++].path = p;
		p = NULL;
	}
	cp_lock_release(&cp_report_lock);
	cp_free(p);
}

void cp_report_freeze(struct cp_thread *caller)
{
	struct cp_path *p = path_new();

	if (!p)
		return;
	cp_report_global(caller, p);
	cp_lock_acquire(&cp_report_lock);
	cp_free(cp_frozen);
	cp_frozen = p;
	cp_lock_release(&cp_report_lock);
}

void cp_report_unfreeze(void)
{
	cp_lock_acquire(&cp_report_lock);
	cp_free(cp_frozen);
	cp_frozen = NULL;
	cp_lock_release(&cp_report_lock);
}

void cp_report_reset(void)
{
	memset(&cp_report_lock, 0, sizeof(cp_report_lock));
	cp_frozen = NULL;
	cp_samples = NULL;
	cp_nsamples = cp_cap_samples = 0;
	cp_final_len = 0;
}

uint64_t cp_report_length(void)
{
	return cp_final_len;
}

/* ---- output ---------------------------------------------------------- */

struct fdsink {
	int fd;
	size_t n;
	bool failed;
	int err;		/* errno of the failed write */
	char buf[16384];
};

static void sink_flush(struct fdsink *s)
{
	if (!s->failed && s->n) {
		s->err = cp_fd_write_all(s->fd, s->buf, s->n);
		s->failed = s->err != 0;
	}
	s->n = 0;
}

static void sink_write(void *ctx, const char *b, size_t len)
{
	struct fdsink *s = ctx;

	while (len > 0) {
		size_t room = sizeof(s->buf) - s->n;
		size_t k = len < room ? len : room;

		memcpy(s->buf + s->n, b, k);
		s->n += k;
		b += k;
		len -= k;
		if (s->n == sizeof(s->buf))
			sink_flush(s);
	}
}

static void sink_printf(struct fdsink *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sink_printf(struct fdsink *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	if (n > 0)
		sink_write(s, line, (size_t)n);
}

/* Everything the report shows, gathered once. */
struct summary {
	struct cp_path *cp;	/* the final critical path */
	uint64_t elapsed, useful, wait;
	uint32_t nthreads;
	uint64_t proc_cpu[CP_MAX_FUNCS];
	uint64_t nobjects;	/* live + retired */
	struct cp_objstat top[CP_OBJSTAT_TOP];	/* live and destroyed */
	uint32_t ntop;
	bool stopped;
};

static void collect_object(struct cp_objrec *r, void *arg)
{
	struct summary *s = arg;
	struct cp_objstat st;

	s->nobjects++;
	cp_objstat_of(r, &st);
	cp_objstat_insert(s->top, &s->ntop, &st);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *proc_source(unsigned i)
{
	if (atomic_load(&cp_procs_region_seen[i]))
		return "region";
	if (cp_procs_sampled(i) && !(atomic_load(&cp_procs_hooks_seen) &&
				     cp_procs_has_symbol(i)))
		return cp_sampler_kind() ? "function (sampled)" :
			"function (not sampled)";
	if (cp_procs_has_symbol(i))
		return atomic_load(&cp_procs_hooks_seen) ? "function" :
			"function (no hooks ran)";
	return "not found";
}

/* Plain sentences for the cases where the numbers say little. */
static void notes(struct summary *s, void (*say)(void *, const char *),
		  void *arg)
{
	char line[512];

	if (cp_runtime_saw_nothing())
		say(arg, "No synchronization was seen: the critical path is "
			 "simply the one thread's run time.");
	if (s->elapsed < 1000000) {
		snprintf(line, sizeof(line), "The run lasted only %.0f us: too "
			 "short for the figures to mean much.",
			 (double)s->elapsed / 1e3);
		say(arg, line);
	}
	for (unsigned i = 0; i < cp_rt.nsel; i++) {
		const char *src = proc_source(i);

		if (!strcmp(src, "not found")) {
			snprintf(line, sizeof(line), "%s: no function of that "
				 "name in the symbols of the executable or its "
				 "libraries, and no region of that name ran; "
				 "nothing to report for it.",
				 cp_rt.cfg.funcs[i]);
			say(arg, line);
		} else if (!strcmp(src, "function (not sampled)")) {
			snprintf(line, sizeof(line), "%s: the program was not "
				 "built with -finstrument-functions and sampling "
				 "is off, so its time could not be attributed.",
				 cp_rt.cfg.funcs[i]);
			say(arg, line);
		} else if (!strcmp(src, "function (no hooks ran)")) {
			snprintf(line, sizeof(line), "%s: the program was not "
				 "built with -finstrument-functions, so its "
				 "time could not be attributed.",
				 cp_rt.cfg.funcs[i]);
			say(arg, line);
		}
	}
	if (s->stopped)
		say(arg, "The computation was stopped by cpthread_stop(): the "
			 "figures cover the run up to that point.");
	if (*cp_unseen_blocked_note())
		say(arg, cp_unseen_blocked_note());
	if (*cp_unseen_children_note())
		say(arg, cp_unseen_children_note());
	if (*cp_unseen_outside_note())
		say(arg, cp_unseen_outside_note());
	if (*cp_unseen_spin_note())
		say(arg, cp_unseen_spin_note());
	if (*cp_unseen_library_note())
		say(arg, cp_unseen_library_note());
	if (cp_rt.clock == CP_CLOCK_WALL &&
	    cp_cpus_note(line, sizeof(line), s->useful, s->elapsed,
			 cp_rt.ncpus))
		say(arg, line);
}

static void say_json(void *arg, const char *line)
{
	cp_emit_str(arg, NULL, line);
}

static void say_stderr(void *arg, const char *line)
{
	sink_printf(arg, "cpthread: %s\n", line);
}

/* Who wrote the report, how the run was measured, and its totals. */
static void json_header(struct cp_emit *e, const struct summary *s)
{
	enum cp_sampler_kind kind = cp_sampler_kind();
	uint64_t len = s->cp->len;

	cp_emit_str(e, CP_KEY_TOOL, "cpthread");
	cp_emit_str(e, CP_KEY_VERSION, CP_VERSION);
	cp_emit_str(e, CP_KEY_MODE, cp_rt.trace ? "trace" : "online");
	cp_emit_str(e, CP_KEY_CLOCK,
		    cp_rt.clock == CP_CLOCK_CPU ? "cpu" : "wall");
	cp_emit_u64(e, CP_KEY_PID, (uint64_t)cp_rt.pid);
	cp_emit_str(e, CP_KEY_EXE, cp_symbols_exe());
	cp_emit_obj_begin(e, CP_KEY_SAMPLING);
	cp_emit_str(e, CP_KEY_MECHANISM, kind == CP_SAMPLER_PERF ? "perf" :
		    kind == CP_SAMPLER_TIMER ? "timer" : "off");
	cp_emit_u64(e, CP_KEY_HZ, kind ? cp_rt.cfg.sampling_hz : 0);
	cp_emit_u64(e, CP_KEY_SAMPLES, cp_sampler_samples());
	cp_emit_obj_end(e);
	cp_emit_u64(e, CP_KEY_THREADS, s->nthreads);
	cp_emit_u64(e, CP_KEY_ELAPSED_NS, s->elapsed);
	cp_emit_u64(e, CP_KEY_CPU_NS, s->useful);
	cp_emit_u64(e, CP_KEY_WAIT_NS, s->wait);
	cp_emit_f64(e, CP_KEY_PARALLELISM, s->elapsed ?
		    (double)s->useful / (double)s->elapsed : 0.0);
	cp_emit_f64(e, CP_KEY_MAX_PARALLELISM, len ?
		    (double)s->useful / (double)len : 0.0);
	cp_emit_bool(e, CP_KEY_STOPPED, s->stopped);
}

/* "critical_path": the final length and each selected procedure's part. */
static void json_critical_path(struct cp_emit *e, const struct summary *s)
{
	uint64_t len = s->cp->len;
	const uint64_t *share = cp_path_share(s->cp);
	const uint64_t *z = cp_path_z(s->cp, cp_rt.nsel);

	cp_emit_obj_begin(e, CP_KEY_CRITICAL_PATH);
	cp_emit_u64(e, CP_KEY_LENGTH_NS, len);
	cp_emit_arr_begin(e, CP_KEY_PROCEDURES);
	for (unsigned i = 0; i < cp_rt.nsel; i++) {
		cp_emit_obj_begin(e, NULL);
		cp_emit_str(e, CP_KEY_NAME, cp_rt.cfg.funcs[i]);
		cp_emit_u64(e, CP_KEY_CP_NS, share[i]);
		cp_emit_u64(e, CP_KEY_CP_ZERO_NS, z[i]);
		cp_emit_u64(e, CP_KEY_CPU_NS, s->proc_cpu[i]);
		cp_emit_f64(e, CP_KEY_CP_PCT, pct(share[i], len));
		cp_emit_f64(e, CP_KEY_CP_ZERO_PCT, pct(z[i], len));
		cp_emit_f64(e, CP_KEY_CPU_PCT, pct(s->proc_cpu[i], s->useful));
		cp_emit_str(e, CP_KEY_SOURCE, proc_source(i));
		if (cp_procs_sampled(i))
			cp_emit_u64(e, CP_KEY_SAMPLES,
				    cp_sampler_proc_samples(i));
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
	cp_emit_obj_end(e);
}

/* "threads_detail": every thread of the registry, in binding order. */
static void json_threads(struct cp_emit *e)
{
	cp_emit_arr_begin(e, CP_KEY_THREADS_DETAIL);
	for (struct cp_thread *t = cp_thread_all(); t; t = t->next) {
		char name[16];

		cp_emit_obj_begin(e, NULL);
		cp_emit_u64(e, CP_KEY_TID, t->tid);
		cp_emit_str(e, CP_KEY_NAME, cp_thread_name(t, name));
		if (t->parent == UINT32_MAX)
			cp_emit_null(e, CP_KEY_PARENT);
		else
			cp_emit_u64(e, CP_KEY_PARENT, t->parent);
		cp_emit_u64(e, CP_KEY_LEN_NS, cp_thread_len_end(t));
		cp_emit_u64(e, CP_KEY_USEFUL_NS, cp_thread_useful_end(t));
		cp_emit_u64(e, CP_KEY_WAIT_NS, cp_thread_wait_end(t));
		cp_emit_u64(e, CP_KEY_UNEXPLAINED_WAIT_NS, cp_unseen_of(t));
		cp_emit_u64(e, CP_KEY_CHILD_WAIT_NS,
			    cp_unseen_children_of(t));
		cp_emit_u64(e, CP_KEY_OUTSIDE_WAIT_NS,
			    cp_unseen_outside_of(t));
		cp_emit_u64(e, CP_KEY_SPIN_NS, cp_unseen_spin_of(t));
		cp_emit_bool(e, CP_KEY_EXITED, t->exited);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
}

/* An object's (or a kind's destroyed objects') operations, contended
 * operations, waiting and path gain, ns. */
static void json_object_counts(struct cp_emit *e, uint64_t ops,
			       uint64_t contended, uint64_t wait_ns,
			       uint64_t gain_ns)
{
	cp_emit_u64(e, CP_KEY_OPS, ops);
	cp_emit_u64(e, CP_KEY_CONTENDED, contended);
	cp_emit_u64(e, CP_KEY_WAIT_NS, wait_ns);
	cp_emit_u64(e, CP_KEY_CP_GAIN_NS, gain_ns);
}

/*
 * The module holding code address @site, by its file name into *@mod, and
 * the address's link-time address in it into *@off.  False when unknown.
 */
static bool site_module(uint64_t site, const char **mod, uint64_t *off)
{
	const char *path, *slash;

	if (!site || !cp_modules_locate(site, &path, off))
		return false;
	slash = strrchr(path, '/');
	*mod = slash ? slash + 1 : path;
	return true;
}

/*
 * An object's "site": its pc, the executable's function holding it (null
 * in a library or a stripped executable), and the module holding it (the
 * executable or a library) with the offset in it (the link-time address,
 * what addr2line takes); null when unknown.
 */
static void json_site(struct cp_emit *e, uint64_t site)
{
	const char *fn = site ? cp_symbols_name_at(site) : NULL, *mod;
	char pc[24];
	uint64_t off;

	if (!site) {
		cp_emit_null(e, CP_KEY_SITE);
		return;
	}
	snprintf(pc, sizeof(pc), "0x%lx", (unsigned long)site);
	cp_emit_obj_begin(e, CP_KEY_SITE);
	cp_emit_str(e, CP_KEY_PC, pc);
	if (fn)
		cp_emit_str(e, CP_KEY_FUNCTION, fn);
	else
		cp_emit_null(e, CP_KEY_FUNCTION);
	if (site_module(site, &mod, &off)) {
		snprintf(pc, sizeof(pc), "0x%lx", (unsigned long)off);
		cp_emit_str(e, CP_KEY_MODULE, mod);
		cp_emit_str(e, CP_KEY_OFFSET, pc);
	}
	cp_emit_obj_end(e);
}

/* "objects" (the most waited-on, live or destroyed), "objects_total",
 * and "objects_destroyed" (the totals of destroyed objects per kind). */
static void json_objects(struct cp_emit *e, const struct summary *s)
{
	cp_emit_arr_begin(e, CP_KEY_OBJECTS);
	for (uint32_t i = 0; i < s->ntop; i++) {
		const struct cp_objstat *r = &s->top[i];
		char addr[24];

		snprintf(addr, sizeof(addr), "0x%lx", (unsigned long)r->addr);
		cp_emit_obj_begin(e, NULL);
		cp_emit_u64(e, CP_KEY_ID, r->id);
		cp_emit_str(e, CP_KEY_KIND, cp_obj_kind_name(r->kind));
		if (!cp_obj_kind_has_addr(r->kind))
			cp_emit_null(e, CP_KEY_ADDRESS);
		else
			cp_emit_str(e, CP_KEY_ADDRESS, addr);
		json_object_counts(e, r->ops, r->contended, r->wait_ns,
				   r->gain_ns);
		cp_emit_bool(e, CP_KEY_UNTRACKED, r->untracked);
		json_site(e, r->site);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
	cp_emit_u64(e, CP_KEY_OBJECTS_TOTAL, s->nobjects);
	cp_emit_arr_begin(e, CP_KEY_OBJECTS_DESTROYED);
	for (unsigned k = 1; k <= CP_OBJ_KIND_MAX; k++) {
		const struct cp_objrec_retired *rr = &cp_objrec_retired[k];

		if (!rr->objects)
			continue;
		cp_emit_obj_begin(e, NULL);
		cp_emit_str(e, CP_KEY_KIND, cp_obj_kind_name(k));
		cp_emit_u64(e, CP_KEY_OBJECTS, rr->objects);
		json_object_counts(e, rr->ops, rr->contended, rr->wait_ns,
				   rr->gain_ns);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
}

/* "samples": the global path at each sample, with the procedures' part. */
static void json_samples(struct cp_emit *e)
{
	cp_emit_arr_begin(e, CP_KEY_SAMPLES);
	for (uint32_t k = 0; k < cp_nsamples; k++) {
		struct cp_path *p = cp_samples[k].path;

		cp_emit_obj_begin(e, NULL);
		cp_emit_u64(e, CP_KEY_T_NS, cp_samples[k].wall);
		cp_emit_u64(e, CP_KEY_LENGTH_NS, p->len);
		cp_emit_arr_begin(e, CP_KEY_PROCEDURES);
		for (unsigned i = 0; i < cp_rt.nsel; i++) {
			cp_emit_obj_begin(e, NULL);
			cp_emit_str(e, CP_KEY_NAME, cp_rt.cfg.funcs[i]);
			cp_emit_u64(e, CP_KEY_CP_NS, cp_path_share(p)[i]);
			cp_emit_u64(e, CP_KEY_CP_ZERO_NS,
				    cp_path_z(p, cp_rt.nsel)[i]);
			cp_emit_obj_end(e);
		}
		cp_emit_arr_end(e);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
}

/* Write the JSON report (keys: cp_report_keys.h) to @fd; 0 or the errno
 * of a failed write. */
static int write_json(struct summary *s, int fd)
{
	struct fdsink *sink = cp_zalloc(sizeof(*sink));
	struct cp_emit e;
	int err;

	if (!sink)
		return ENOMEM;
	sink->fd = fd;
	cp_emit_init(&e, sink_write, sink, true);
	cp_emit_obj_begin(&e, NULL);
	json_header(&e, s);
	json_critical_path(&e, s);
	json_threads(&e);
	json_objects(&e, s);
	json_samples(&e);
	cp_emit_arr_begin(&e, CP_KEY_NOTES);
	notes(s, say_json, &e);
	cp_emit_arr_end(&e);
	cp_emit_obj_end(&e);
	cp_emit_end(&e);
	sink_flush(sink);
	err = sink->failed ? sink->err : 0;
	cp_free(sink);
	return err;
}

static void fmt_s(char *buf, size_t n, uint64_t ns)
{
	snprintf(buf, n, "%.3f s", (double)ns / 1e9);
}

static void write_stderr(struct summary *s)
{
	struct fdsink *o = cp_zalloc(sizeof(*o));
	uint64_t len = s->cp->len;
	uint64_t *share = cp_path_share(s->cp);
	uint64_t *z = cp_path_z(s->cp, cp_rt.nsel);
	char a[32], b[32], c[32];

	if (!o)
		return;
	o->fd = cp_stderr_fd();
	if (o->fd < 0) {	/* the program closed or moved its stderr */
		cp_free(o);
		return;
	}
	fmt_s(a, sizeof(a), len);
	fmt_s(b, sizeof(b), s->elapsed);
	sink_printf(o, "cpthread: critical path %s of %s elapsed (%s clock, "
		    "%u threads, max parallelism %.2f)\n", a, b,
		    cp_rt.clock == CP_CLOCK_CPU ? "cpu" : "wall", s->nthreads,
		    len ? (double)s->useful / (double)len : 0.0);
	if (cp_rt.nsel) {
		sink_printf(o, "cpthread:   %-24s %12s %7s %12s %12s %7s\n",
			    "procedure", "CP time", "CP%", "CP zeroing",
			    "CPU time", "CPU%");
		for (unsigned i = 0; i < cp_rt.nsel; i++) {
			fmt_s(a, sizeof(a), share[i]);
			fmt_s(b, sizeof(b), z[i]);
			fmt_s(c, sizeof(c), s->proc_cpu[i]);
			sink_printf(o, "cpthread:   %-24.24s %12s %6.1f%% %12s "
				    "%12s %6.1f%%\n", cp_rt.cfg.funcs[i], a,
				    pct(share[i], len), b, c,
				    pct(s->proc_cpu[i], s->useful));
		}
	}
	if (s->ntop && cp_objstat_weight(&s->top[0])) {
		const struct cp_objstat *r = &s->top[0];
		const char *fn = r->site ? cp_symbols_name_at(r->site) : NULL;
		const char *mod;
		char where[64], at[32];
		uint64_t off;

		/* a library's or a stripped executable's code by module and
		 * offset */
		if (!fn && site_module(r->site, &mod, &off)) {
			snprintf(where, sizeof(where), "%.40s+0x%lx", mod,
				 (unsigned long)off);
			fn = where;
		}
		fmt_s(a, sizeof(a), r->wait_ns);
		/* a channel's address is a made-up key: no "at" */
		if (!cp_obj_kind_has_addr(r->kind))
			at[0] = 0;
		else
			snprintf(at, sizeof(at), "at 0x%lx ",
				 (unsigned long)r->addr);
		sink_printf(o, "cpthread: most waited-on object: %s %u %s"
			    "%s%s%s(%lu ops, %s waiting)\n",
			    cp_obj_kind_name(r->kind), r->id, at,
			    fn ? "first used in " : "", fn ? fn : "",
			    fn ? " " : "", (unsigned long)r->ops, a);
	}
	notes(s, say_stderr, o);
	if (cp_rt.report_path[0])
		sink_printf(o, "cpthread: report written to %s\n",
			    cp_rt.report_path);
	sink_flush(o);
	cp_free(o);
}

bool cp_report_write(struct cp_thread *caller)
{
	struct summary *s = cp_zalloc(sizeof(*s));
	struct cp_path *final = path_new();

	if (!s || !final) {
		cp_free(s);
		cp_free(final);
		return true;
	}
	(void)caller;		/* advanced by the exit path already */
	cp_report_global(NULL, final);
	merge_live_ends(final);
	cp_lock_acquire(&cp_report_lock);
	if (cp_frozen) {
		cp_path_copy(final, cp_frozen, cp_rt.nsel);
		s->stopped = true;
	}
	cp_lock_release(&cp_report_lock);
	s->cp = final;
	cp_final_len = final->len;
	s->elapsed = cp_clock_wall() - cp_rt.start_wall;
	for (struct cp_thread *t = cp_thread_all(); t; t = t->next) {
		s->nthreads++;
		s->useful += cp_thread_useful_end(t);
		s->wait += cp_thread_wait_end(t);
		for (unsigned i = 0; i < cp_rt.nsel; i++)
			s->proc_cpu[i] += t->proc_cpu[i];
	}
	cp_objrec_for_each(collect_object, s);
	cp_items_for_each(collect_object, s);	/* items still in flight */
	for (unsigned k = 1; k <= CP_OBJ_KIND_MAX; k++)
		s->nobjects += cp_objrec_retired[k].objects;
	{
		struct cp_objstat gone[CP_OBJSTAT_TOP];
		uint32_t n = cp_objrec_retired_top(gone);

		for (uint32_t i = 0; i < n; i++)
			cp_objstat_insert(s->top, &s->ntop, &gone[i]);
		n = cp_items_retired_top(gone);	/* items dequeued */
		for (uint32_t i = 0; i < n; i++)
			cp_objstat_insert(s->top, &s->ntop, &gone[i]);
	}
	if (cp_rt.descendant && cp_runtime_saw_nothing()) {
		cp_free(s);
		cp_free(final);
		return false;
	}

	if (cp_rt.report_path[0]) {
		int saved = errno, fd, err;

		cp_runtime_anchor(cp_rt.report_path,
				  sizeof(cp_rt.report_path));
		fd = cp_outfile_create(cp_rt.report_path,
				       sizeof(cp_rt.report_path),
				       !cp_rt.cfg.report_tmpl[0], "report", 0);
		err = fd < 0 ? -fd : write_json(s, fd);

		if (fd >= 0 && close(fd) && !err && errno != EINTR)
			err = errno;
		if (err) {
			cp_warn("cannot write the report %s: %s%s",
				cp_rt.report_path, strerror(err),
				fd >= 0 ? "; the report is incomplete" : "");
			cp_rt.report_path[0] = '\0';
		}
		errno = saved;
	}
	if (!cp_rt.cfg.quiet)
		write_stderr(s);
	cp_free(s);
	cp_free(final);
	return true;
}
