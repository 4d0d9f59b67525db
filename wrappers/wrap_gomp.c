/*
 * wrap_gomp.c - OpenMP through GCC's libgomp ABI: the GOMP_* entry points
 * that gcc -fopenmp emits, and the omp_*_lock family.
 *
 * libgomp makes its team threads with pthread_create (wrapped, so they
 * are traced threads) and keeps them for later regions, waiting in its
 * own barriers and futexes, which no wrapper sees.  The model is laid on
 * top, with records of the CP_NS_MODEL namespace keyed by the addresses
 * of the wrappers' own frames:
 *
 *   region fork   each member's entry of the region's function <- the
 *                 encountering thread's GOMP_parallel (the function is
 *                 wrapped: omp_member)
 *   region join   the encountering thread's return <- every member's exit
 *                 of the function and every task of the region (the
 *                 implicit barrier)
 *   barrier       GOMP_barrier and the implicit barriers of a worksharing
 *                 end (loop, sections, single copy): a barrier of the
 *                 team, every departure <- every arrival of the episode
 *   critical      GOMP_critical_*, GOMP_atomic_*, omp_*_lock: locks
 *   ordered       a lock of the region: the ordered blocks run in
 *                 iteration order, each entry after the previous exit
 *   task          the task's start <- its creation (a work item, keyed by
 *                 the argument block libgomp copies it into); taskwait
 *                 and taskgroup end <- the completions of the current
 *                 task's children
 *   depend        an rwlock per dependence address (CP_NS_DEPEND), taken
 *                 for reading or writing at the task's start and released
 *                 at its end; taskwait depend takes what such a start
 *                 would, without holding it
 *   taskloop      each task of the loop as a task (libgomp makes them
 *                 inside the call, through the wrappers' copy and run
 *                 functions); the loop's end <- their completions, unless
 *                 nogroup
 *
 * Waiting: a member waits from its exit of a region's function to its
 * entry of the next one (omp_idle), and inside every wrapped wait; the
 * encountering thread from its fork to its own entry of the function.  A
 * task that a waiting thread runs (libgomp runs queued tasks in its
 * barriers and taskwaits) interrupts the wait: cp_online_task_start ends
 * it, and it begins again when the task ends.
 *
 * Not modelled: the inoutset dependence kind, doacross loops,
 * cancellation edges, and a task completed inside an
 * explicit barrier is joined at the next taskwait or the region's end
 * rather than at that barrier.
 */
#include "wrap_common.h"

#include <stdalign.h>
#include <string.h>

#include "cp_alloc.h"

/* libgomp has no public header of its ABI: the prototypes come from the
 * real-function table. */
#define OMP_PROTO(ret, name, args, ver) CP_EXPORT ret name args;
CP_REAL_GOMP_FUNCS(OMP_PROTO)
#undef OMP_PROTO

/* A parallel region, on the encountering thread's stack. */
struct omp_region {
	void (*fn)(void *);
	void *data;
	char fork, join, bar, copy, ord;	/* keys of its records */
	atomic_bool barrier_used;	/* the team's barrier has a record */
	const void *site;	/* the construct in the program: the site of
				 * its records (cp_sites.h) */
};

/* A task, implicit (a member's run of the region's function) or
 * explicit, while it runs. */
struct omp_ctx {
	const void *children;	/* key of its children's completions */
	struct omp_region *region;
};

static __thread struct omp_ctx *omp_cur
	__attribute__((tls_model("initial-exec")));
/* The wrapped wait this thread is in, into which libgomp may run tasks. */
static __thread struct cp_wait *omp_waiting
	__attribute__((tls_model("initial-exec")));
/* A member's wait between two regions (and the encountering thread's at
 * a region's end). */
static __thread struct cp_wait omp_idle
	__attribute__((tls_model("initial-exec")));

/* The record of a modelled object, its site (if new) the OpenMP construct
 * at @site that it belongs to: these records are first used in libgomp's
 * frames (a worker starting, a task ending), where the caller is not the
 * program. */
static struct cp_objrec *model_rec(struct cp_thread *t, const void *key,
				   unsigned kind, uint64_t extra,
				   const void *site)
{
	return cp_objrec_get_at(t, key, CP_NS_MODEL, kind, extra, site);
}

/* ---- regions ---------------------------------------------------------- */

/* The region's function as each member runs it. */
static void omp_member(void *p)
{
	struct omp_region *g = p;
	struct omp_ctx ctx = { &ctx, g }, *outer = omp_cur;
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;

	if (t) {
		/* Since its latest event the thread was in libgomp: idle in
		 * the pool, starting (a new thread spins at libgomp's dock
		 * until the team is complete), or forking the team. */
		if (omp_waiting != &omp_idle)
			cp_online_wait_restart(t, &omp_idle);
		omp_waiting = NULL;
		t->idle = false;
		r = model_rec(t, &g->fork, CP_OBJ_COND, 0, g->site);
		if (r)
			cp_online_signal_take(t, r, &omp_idle, false);
		r = model_rec(t, ctx.children, CP_OBJ_COND, 0, g->site);
		if (r)
			cp_online_signal_reset(r);
		cp_leave();
	}
	omp_cur = &ctx;
	g->fn(g->data);
	omp_cur = outer;
	t = cp_enter();
	if (!t)
		return;
	r = model_rec(t, &g->join, CP_OBJ_COND, 0, g->site);
	if (r)
		cp_online_signal(t, r, true);
	cp_online_wait_restart(t, &omp_idle);
	omp_waiting = &omp_idle;
	t->idle = true;		/* libgomp may end the thread there */
	cp_leave();
}

/* Before the region: publish the fork.  False when not traced. */
static bool omp_fork(struct omp_region *g)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;

	if (!t)
		return false;
	r = model_rec(t, &g->fork, CP_OBJ_COND, 0, g->site);
	if (r)
		cp_online_signal(t, r, false);
	atomic_init(&g->barrier_used, false);
	cp_leave();
	return r != NULL;
}

/* After the region: take the join, end the wait begun at this thread's
 * own exit of the function, drop the team's barrier record. */
static void omp_joined(struct omp_region *g)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;
	int err = errno;

	if (!t)
		return;
	r = model_rec(t, &g->join, CP_OBJ_COND, 0, g->site);
	if (r)
		cp_online_signal_take(t, r, omp_waiting == &omp_idle ?
				      &omp_idle : NULL, true);
	omp_waiting = NULL;
	t->idle = false;
	if (atomic_load(&g->barrier_used))
		cp_objrec_forget(&g->bar, CP_NS_MODEL);
	cp_leave();
	errno = err;
}

/* A region entry point: @call runs the real one with omp_member and &g
 * in place of the program's function and data. */
#define OMP_REGION(fn, data, call)					\
	do {								\
		struct omp_region g = { .fn = (fn), .data = (data),	\
			.site = __builtin_return_address(0) };		\
									\
		if (!omp_fork(&g)) {					\
			g.fn = NULL;					\
			call;						\
			return;						\
		}							\
		call;							\
		omp_joined(&g);						\
	} while (0)

#define OMP_FN (g.fn ? omp_member : fn)
#define OMP_DATA (g.fn ? (void *)&g : data)

CP_EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned n,
			     unsigned flags)
{
	OMP_REGION(fn, data, CP_REAL_OPT(GOMP_parallel)(OMP_FN, OMP_DATA, n,
							flags));
}

CP_EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data,
				      unsigned n, unsigned count,
				      unsigned flags)
{
	OMP_REGION(fn, data, CP_REAL_OPT(GOMP_parallel_sections)(OMP_FN,
		   OMP_DATA, n, count, flags));
}

/* Combined parallel loops with a chunk size. */
#define OMP_PARALLEL_LOOP(name)						\
CP_EXPORT void name(void (*fn)(void *), void *data, unsigned n,		\
		    long start, long end, long incr, long chunk,	\
		    unsigned flags)					\
{									\
	OMP_REGION(fn, data, CP_REAL_OPT(name)(OMP_FN, OMP_DATA, n,	\
		   start, end, incr, chunk, flags));			\
}

/* ... and with the schedule of the run time. */
#define OMP_PARALLEL_LOOP_RT(name)					\
CP_EXPORT void name(void (*fn)(void *), void *data, unsigned n,		\
		    long start, long end, long incr, unsigned flags)	\
{									\
	OMP_REGION(fn, data, CP_REAL_OPT(name)(OMP_FN, OMP_DATA, n,	\
		   start, end, incr, flags));				\
}

OMP_PARALLEL_LOOP(GOMP_parallel_loop_static)
OMP_PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
OMP_PARALLEL_LOOP(GOMP_parallel_loop_guided)
OMP_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
OMP_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)
OMP_PARALLEL_LOOP_RT(GOMP_parallel_loop_runtime)
OMP_PARALLEL_LOOP_RT(GOMP_parallel_loop_nonmonotonic_runtime)
OMP_PARALLEL_LOOP_RT(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* ---- waits: barriers, taskwait ---------------------------------------- */

/* A wrapped wait in progress (guard paused between begin and end). */
struct omp_wait {
	struct cp_thread *t;
	struct cp_objrec *r;	/* barrier: the team's; else NULL */
	struct cp_wait w;
	struct cp_wait *outer;	/* omp_waiting before it */
};

/* Arrive at the team's barrier.  False when not traced (no region: a
 * team of one). */
static bool omp_barrier_begin(struct omp_wait *b)
{
	struct omp_region *g = omp_cur ? omp_cur->region : NULL;

	b->t = cp_enter();
	if (!b->t)
		return false;
	if (g) {
		atomic_store(&g->barrier_used, true);
		b->r = model_rec(b->t, &g->bar, CP_OBJ_BARRIER,
				 (uint64_t)CP_REAL_OPT(omp_get_num_threads)(),
				 g->site);
	}
	if (!g || !b->r) {
		cp_leave();
		return false;
	}
	cp_online_barrier_arrive(b->t, b->r, &b->w);
	b->outer = omp_waiting;
	omp_waiting = &b->w;
	cp_pause();
	return true;
}

static void omp_barrier_end(struct omp_wait *b)
{
	int err = errno;

	cp_resume();
	omp_waiting = b->outer;
	cp_online_barrier_depart(b->t, b->r, &b->w, 0);
	cp_leave();
	errno = err;
}

/* The team's barrier around @call. */
#define OMP_BARRIER(call)						\
	do {								\
		struct omp_wait b;					\
									\
		if (!omp_barrier_begin(&b)) {				\
			call;						\
			return;						\
		}							\
		call;							\
		omp_barrier_end(&b);					\
	} while (0)

/* ... for the entry points that return whether the region was
 * cancelled. */
#define OMP_BARRIER_RET(call)						\
	do {								\
		struct omp_wait b;					\
		bool ret;						\
									\
		if (!omp_barrier_begin(&b))				\
			return call;					\
		ret = call;						\
		omp_barrier_end(&b);					\
		return ret;						\
	} while (0)

CP_EXPORT void GOMP_barrier(void)
{
	OMP_BARRIER(CP_REAL_OPT(GOMP_barrier)());
}

CP_EXPORT bool GOMP_barrier_cancel(void)
{
	OMP_BARRIER_RET(CP_REAL_OPT(GOMP_barrier_cancel)());
}

/* The end of a worksharing loop or sections construct (not nowait). */
CP_EXPORT void GOMP_loop_end(void)
{
	OMP_BARRIER(CP_REAL_OPT(GOMP_loop_end)());
}

CP_EXPORT bool GOMP_loop_end_cancel(void)
{
	OMP_BARRIER_RET(CP_REAL_OPT(GOMP_loop_end_cancel)());
}

CP_EXPORT void GOMP_sections_end(void)
{
	OMP_BARRIER(CP_REAL_OPT(GOMP_sections_end)());
}

CP_EXPORT bool GOMP_sections_end_cancel(void)
{
	OMP_BARRIER_RET(CP_REAL_OPT(GOMP_sections_end_cancel)());
}

/*
 * single copyprivate: the thread that ran the block publishes at
 * GOMP_single_copy_end, and the others, waiting in GOMP_single_copy_start
 * for its data, take that (a signal record of the region).  That thread's
 * own wait at the end for the others to arrive is a wait without an edge.
 */
static void *omp_single_copy(void *data, bool end)
{
	struct omp_region *g = omp_cur ? omp_cur->region : NULL;
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r = NULL;
	struct cp_wait w, *outer;
	void *ret = NULL;
	int err;

	if (t && g)
		r = model_rec(t, &g->copy, CP_OBJ_COND, 0, g->site);
	if (!r) {
		if (t)
			cp_leave();
		if (!end)
			return CP_REAL_OPT(GOMP_single_copy_start)();
		CP_REAL_OPT(GOMP_single_copy_end)(data);
		return NULL;
	}
	if (end)
		cp_online_signal(t, r, false);
	cp_online_wait_begin(t, r, &w);
	outer = omp_waiting;
	omp_waiting = &w;
	cp_pause();
	if (end)
		CP_REAL_OPT(GOMP_single_copy_end)(data);
	else
		ret = CP_REAL_OPT(GOMP_single_copy_start)();
	err = errno;
	cp_resume();
	omp_waiting = outer;
	cp_online_signal_take(t, r, &w, false);
	cp_leave();
	errno = err;
	return ret;
}

CP_EXPORT void *GOMP_single_copy_start(void)
{
	return omp_single_copy(NULL, false);
}

CP_EXPORT void GOMP_single_copy_end(void *data)
{
	omp_single_copy(data, true);
}

/* End wait @w by taking the completions published to @key since its last
 * take (a task's children, a taskloop's tasks), at the construct @site.
 * Guard raised. */
static void omp_children_taken(struct cp_thread *t, const void *key,
			       struct cp_wait *w, const void *site)
{
	struct cp_objrec *r = model_rec(t, key, CP_OBJ_COND, 0, site);

	if (r)
		cp_online_signal_take(t, r, w, true);
	else
		cp_online_failed(t, NULL, w);
}

/* Wait for the current task's children: taskwait and taskgroup end, at
 * @site. */
static void omp_children_wait(void (*real)(void), const void *site)
{
	struct cp_thread *t = cp_enter();
	struct cp_wait w, *outer;
	int err;

	if (!t || !omp_cur) {
		if (t)
			cp_leave();
		real();
		return;
	}
	cp_online_wait_begin(t, NULL, &w);
	outer = omp_waiting;
	omp_waiting = &w;
	cp_pause();
	real();
	err = errno;
	cp_resume();
	omp_waiting = outer;
	omp_children_taken(t, omp_cur->children, &w, site);
	cp_leave();
	errno = err;
}

CP_EXPORT void GOMP_taskwait(void)
{
	omp_children_wait(CP_REAL_OPT(GOMP_taskwait),
			  __builtin_return_address(0));
}

/* A taskgroup's end waits for every descendant; the model takes the
 * children's completions (a child that waits for its own children, as
 * recursive tasks do, covers its descendants). */
CP_EXPORT void GOMP_taskgroup_end(void)
{
	omp_children_wait(CP_REAL_OPT(GOMP_taskgroup_end),
			  __builtin_return_address(0));
}

/* ---- task dependences ------------------------------------------------ */

/*
 * A depend clause's item: the address and whether the task writes it
 * (out, inout, mutexinoutset) or only reads it (in).  Its record is an
 * rwlock's, in the CP_NS_DEPEND namespace: a task takes each of its items
 * when it starts, for reading or writing, and releases them when it ends.
 * libgomp starts a task only once the sibling tasks it depends on have
 * ended, so at that moment the record holds exactly what the rwlock
 * protocol gives: for a reader the path of the last writer to end, for a
 * writer that and the paths of the readers that ended since.
 */
struct omp_dep {
	const void *addr;
	uintptr_t writes;
};

/* The kinds a depend object (omp_depend_t: address, kind) holds, in
 * libgomp's numbering. */
enum { OMP_DEP_IN = 1, OMP_DEP_OUT, OMP_DEP_INOUT, OMP_DEP_MUTEXINOUTSET };

/* GOMP_task's flag saying its depend array is given. */
#define OMP_TASK_FLAG_DEPEND (1u << 3)

/* How many items libgomp's depend array @d lists. */
static size_t omp_deps_count(void *const *d)
{
	return d ? (uintptr_t)d[0] ? (uintptr_t)d[0] : (uintptr_t)d[1] : 0;
}

/*
 * The items of @d into @out (room for omp_deps_count(@d)); returns how
 * many it stored.  The array comes in two layouts: {n, nout, address...},
 * the nout writers first; or {0, n, nout, nmutex, nin, address...}, the
 * out and inout addresses, the mutexinoutset ones, the in ones, then
 * pointers to depend objects.  An object's kind past mutexinoutset
 * (inoutset: unordered among themselves) is left out.
 */
static size_t omp_deps_parse(void *const *d, struct omp_dep *out)
{
	size_t n = omp_deps_count(d), nw, nplain, k = 0;
	void *const *a;

	if (!n)
		return 0;
	if ((uintptr_t)d[0]) {
		nw = (uintptr_t)d[1];
		nplain = n;
		a = d + 2;
	} else {
		nw = (uintptr_t)d[2] + (uintptr_t)d[3];
		nplain = nw + (uintptr_t)d[4];
		a = d + 5;
	}
	for (size_t i = 0; i < n; i++) {
		const void *addr = a[i];
		uintptr_t kind;

		if (i < nplain) {
			kind = i < nw ? OMP_DEP_OUT : OMP_DEP_IN;
		} else {
			void *const *obj = a[i];

			addr = obj[0];
			kind = (uintptr_t)obj[1];
			if (kind < OMP_DEP_IN || kind > OMP_DEP_MUTEXINOUTSET)
				continue;
		}
		out[k].addr = addr;
		out[k].writes = kind != OMP_DEP_IN;
		k++;
	}
	return k;
}

/* The record of a dependence's address, its site (if new) the construct
 * at @site. */
static struct cp_objrec *omp_dep_rec(struct cp_thread *t,
				     const struct omp_dep *d,
				     const void *site)
{
	return cp_objrec_get_at(t, d->addr, CP_NS_DEPEND, CP_OBJ_RWLOCK,
				CP_RWLOCK_ORDERED, site);
}

/* Take (@start) or release the @n items at @deps: the task starts or
 * ends (its construct at @site).  Calling thread, guard raised. */
static void omp_deps_hold(struct cp_thread *t, const struct omp_dep *deps,
			  size_t n, bool start, const void *site)
{
	for (size_t i = 0; i < n; i++) {
		struct cp_objrec *r = omp_dep_rec(t, &deps[i], site);

		if (!r)
			continue;
		if (start)
			cp_online_lock_acquired(t, r, NULL, !deps[i].writes);
		else
			cp_online_rw_release(t, r, deps[i].writes);
	}
}

/*
 * taskwait depend: wait for the sibling tasks the items name (the last
 * writer of each, and for a written item the readers since), as the
 * task starts of omp_deps_hold would take them, without holding them.
 */
CP_EXPORT void GOMP_taskwait_depend(void **depend)
{
	struct cp_thread *t = cp_enter();
	size_t n = omp_deps_count(depend), k = 0;
	struct omp_dep one, *deps = &one;
	struct cp_wait w, *outer, *ends = &w;
	int err;

	if (t && n > 1)
		deps = cp_zalloc(n * sizeof(*deps));
	if (!t || !deps) {
		if (t)
			cp_leave();
		CP_REAL_OPT(GOMP_taskwait_depend)(depend);
		return;
	}
	k = omp_deps_parse(depend, deps);
	cp_online_wait_begin(t, NULL, &w);
	outer = omp_waiting;
	omp_waiting = &w;
	cp_pause();
	CP_REAL_OPT(GOMP_taskwait_depend)(depend);
	err = errno;
	cp_resume();
	omp_waiting = outer;
	/* the first observation ends the wait */
	for (size_t i = 0; i < k; i++) {
		struct cp_objrec *r = omp_dep_rec(t, &deps[i],
						  __builtin_return_address(0));

		if (r) {
			cp_online_rw_observe(t, r, ends, deps[i].writes);
			ends = NULL;
		}
	}
	if (ends)
		cp_online_failed(t, NULL, ends);
	if (deps != &one)
		cp_free(deps);
	cp_leave();
	errno = err;
}

/* ---- tasks ------------------------------------------------------------ */

/* The head libgomp copies in front of the program's argument block; the
 * task's dependences (ndeps struct omp_dep) follow it. */
struct omp_task_head {
	void (*fn)(void *);
	struct omp_region *region;
	const void *parent;	/* the creating task's children key */
	const void *site;	/* the task construct in the program */
	size_t off;		/* offset of the program's block */
	size_t ndeps;
};

static struct omp_dep *omp_task_deps(void *block)
{
	return (struct omp_dep *)((char *)block + sizeof(struct omp_task_head));
}

/* What GOMP_task passes as data: the head, the depend array (read while
 * libgomp copies the task, when it is still the creator's), the program's
 * block, and the wait of an undeferred task for its predecessors. */
struct omp_task_src {
	struct omp_task_head h;
	void *const *depend;
	void (*cpyfn)(void *, void *);
	void *data;
	long size;
	struct cp_wait *wait;	/* NULL once ended */
	struct cp_wait *outer;	/* omp_waiting before it */
};

/* End @s's wait for its predecessors, on the creating thread: libgomp
 * copies an undeferred task once they have ended, and the enqueue there
 * must not count the wait as work.  Guard raised. */
static void omp_task_waited(struct cp_thread *t, struct omp_task_src *s)
{
	if (!s->wait)
		return;
	cp_online_failed(t, NULL, s->wait);
	omp_waiting = s->outer;
	s->wait = NULL;
}

/* libgomp's copy into the task's storage; the creation edge leaves from
 * here, keyed by that storage. */
static void omp_task_copy(void *dst, void *src)
{
	struct omp_task_src *s = src;
	struct omp_task_head *h = dst;
	struct cp_thread *t;

	memcpy(h, &s->h, sizeof(s->h));
	h->ndeps = omp_deps_parse(s->depend, omp_task_deps(dst));
	if (s->cpyfn)
		s->cpyfn((char *)dst + s->h.off, s->data);
	else if (s->size > 0)
		memcpy((char *)dst + s->h.off, s->data, (size_t)s->size);
	t = cp_enter();
	if (t) {
		omp_task_waited(t, s);
		cp_online_enqueue(t, dst);
		cp_leave();
	}
}

/*
 * Run the task whose storage is @item (its work-item key and the key of
 * its children's completions), described by @h with its dependences at
 * @deps, on the program's block @data: its start takes its creation and
 * dependences, ending the wait libgomp runs it in; its end publishes its
 * completion to its parent and to the region's join.
 */
static void omp_task_body(void *item, const struct omp_task_head *h,
			  const struct omp_dep *deps, void *data)
{
	struct omp_ctx ctx = { item, h->region }, *outer = omp_cur;
	struct cp_wait *w = omp_waiting;
	struct cp_thread *t;
	struct cp_objrec *r;

	t = cp_enter();
	if (t) {
		cp_online_task_start(t, item, w);
		omp_deps_hold(t, deps, h->ndeps, true, h->site);
		t->idle = false;
		r = model_rec(t, item, CP_OBJ_COND, 0, h->site);
		if (r)
			cp_online_signal_reset(r);
		omp_waiting = NULL;
		cp_leave();
	}
	omp_cur = &ctx;
	h->fn(data);
	omp_cur = outer;
	t = cp_enter();
	if (!t)
		return;
	omp_deps_hold(t, deps, h->ndeps, false, h->site);
	if (h->parent &&
	    (r = model_rec(t, h->parent, CP_OBJ_COND, 0, h->site)))
		cp_online_signal(t, r, true);
	if (h->region && (r = model_rec(t, &h->region->join, CP_OBJ_COND, 0,
					 h->region->site)))
		cp_online_signal(t, r, true);
	if (w)
		cp_online_wait_restart(t, w);
	omp_waiting = w;
	t->idle = w == &omp_idle;
	cp_leave();
}

static void omp_task_run(void *arg)
{
	struct omp_task_head h;

	memcpy(&h, arg, sizeof(h));
	omp_task_body(arg, &h, omp_task_deps(arg), (char *)arg + h.off);
}

CP_EXPORT void GOMP_task(void (*fn)(void *), void *data,
			 void (*cpyfn)(void *, void *), long size, long align,
			 bool if_clause, unsigned flags, void **depend,
			 int priority, void *detach)
{
	struct cp_thread *t = cp_enter();
	struct omp_task_src s;
	size_t a = align > 0 ? (size_t)align : 1, room;
	struct cp_wait w;

	if (!t) {
		CP_REAL_OPT(GOMP_task)(fn, data, cpyfn, size, align, if_clause,
				       flags, depend, priority, detach);
		return;
	}
	s.h.fn = fn;
	s.h.region = omp_cur ? omp_cur->region : NULL;
	s.h.parent = omp_cur ? omp_cur->children : NULL;
	s.h.site = __builtin_return_address(0);
	s.depend = flags & OMP_TASK_FLAG_DEPEND ? depend : NULL;
	room = sizeof(s.h) + omp_deps_count(s.depend) * sizeof(struct omp_dep);
	s.h.off = (room + a - 1) / a * a;
	s.h.ndeps = 0;
	s.cpyfn = cpyfn;
	s.data = data;
	s.size = size;
	s.wait = NULL;
	s.outer = omp_waiting;
	if (a < alignof(struct omp_task_head))
		a = alignof(struct omp_task_head);
	/* An undeferred task (if(0)) with dependences runs here once its
	 * predecessors have ended: the time until libgomp copies it is a
	 * wait (tasks run meanwhile interrupt it). */
	if (!if_clause && s.depend) {
		cp_online_wait_begin(t, NULL, &w);
		s.wait = omp_waiting = &w;
	}
	cp_leave();
	CP_REAL_OPT(GOMP_task)(omp_task_run, &s, omp_task_copy,
			       (long)s.h.off + (size > 0 ? size : 0), (long)a,
			       if_clause, flags, depend, priority, detach);
	if (s.wait) {		/* not copied: cancelled */
		int err = errno;

		t = cp_enter();
		if (t) {
			omp_task_waited(t, &s);
			cp_leave();
		}
		errno = err;
	}
}

/* ---- taskloop --------------------------------------------------------- */

/* GOMP_taskloop's flag: no implicit taskgroup around the loop. */
#define OMP_TASK_FLAG_NOGROUP (1u << 11)

/*
 * The block libgomp copies for each task of a taskloop.  libgomp writes
 * the task's iteration bounds into its first two words and reads the
 * third (the reduction's descriptor) from the block it is given, both in
 * the program's block layout; the runner hands the bounds on to the
 * program's block, which follows at task.off.
 */
struct omp_loop_head {
	uint64_t bounds[2];
	void *reduction;
	struct omp_task_head task;
};

/* What GOMP_taskloop passes as data. */
struct omp_loop_src {
	struct omp_loop_head h;
	void (*cpyfn)(void *, void *);
	void *data;
	long size;
	struct cp_wait *wait;	/* the creating thread's, or NULL */
};

/* libgomp's copy of one task (on the creating thread, which waits for
 * the loop's tasks meanwhile unless it is nogroup: the copy is work). */
static void omp_loop_copy(void *dst, void *src)
{
	struct omp_loop_src *s = src;
	char *prog = (char *)dst + s->h.task.off;
	struct cp_thread *t = cp_enter();

	if (t && s->wait)
		cp_online_failed(t, NULL, s->wait);
	if (t)
		cp_leave();
	memcpy(dst, &s->h, sizeof(s->h));
	if (s->cpyfn)
		s->cpyfn(prog, s->data);
	else if (s->size > 0)
		memcpy(prog, s->data, (size_t)s->size);
	t = cp_enter();
	if (t) {
		cp_online_enqueue(t, dst);
		if (s->wait)
			cp_online_wait_restart(t, s->wait);
		cp_leave();
	}
}

static void omp_loop_run(void *arg)
{
	struct omp_loop_head h;
	char *prog;

	memcpy(&h, arg, sizeof(h));
	prog = (char *)arg + h.task.off;
	memcpy(prog, h.bounds, sizeof(h.bounds));
	omp_task_body(arg, &h.task, NULL, prog);
}

/* A GOMP_taskloop or GOMP_taskloop_ull call: its arguments but the four
 * the wrapper replaces. */
struct omp_loop_call {
	bool ull;		/* GOMP_taskloop_ull: bounds unsigned */
	unsigned flags;
	unsigned long num_tasks;
	int priority;
	uint64_t start, end, step;	/* long or unsigned long long */
	const void *site;	/* the taskloop construct in the program */
};

/* The real function of @c's kind, called with @fn, @data, @cpyfn,
 * @size, @align and the rest of @c. */
static void omp_loop_real(const struct omp_loop_call *c, void (*fn)(void *),
			  void *data, void (*cpyfn)(void *, void *),
			  long size, long align)
{
	if (c->ull)
		CP_REAL_OPT(GOMP_taskloop_ull)(fn, data, cpyfn, size, align,
					       c->flags, c->num_tasks,
					       c->priority, c->start, c->end,
					       c->step);
	else
		CP_REAL_OPT(GOMP_taskloop)(fn, data, cpyfn, size, align,
					   c->flags, c->num_tasks, c->priority,
					   (long)c->start, (long)c->end,
					   (long)c->step);
}

/*
 * A taskloop's tasks are tasks whose creation libgomp makes inside the
 * call: each is copied through omp_loop_copy and runs through
 * omp_loop_run.  Unless nogroup, the call then waits for them in an
 * implicit taskgroup of its own: they publish their completions to a key
 * of this frame, which the end takes.
 */
static void omp_taskloop(const struct omp_loop_call *c, void (*fn)(void *),
			 void *data, void (*cpyfn)(void *, void *),
			 long size, long align)
{
	struct cp_thread *t = cp_enter();
	struct omp_loop_src s;
	size_t a = align > 0 ? (size_t)align : 1;
	bool group_wait = !(c->flags & OMP_TASK_FLAG_NOGROUP);
	char group;
	struct cp_wait w, *outer = omp_waiting;
	struct cp_objrec *r;
	int err;

	if (!t || size < 2 * (long)sizeof(uint64_t)) {
		if (t)
			cp_leave();
		omp_loop_real(c, fn, data, cpyfn, size, align);
		return;
	}
	memset(&s, 0, sizeof(s));
	memcpy(&s.h, data, size < (long)offsetof(struct omp_loop_head, task) ?
	       (size_t)size : offsetof(struct omp_loop_head, task));
	s.h.task.fn = fn;
	s.h.task.region = omp_cur ? omp_cur->region : NULL;
	s.h.task.parent = group_wait ? &group :
			  omp_cur ? omp_cur->children : NULL;
	s.h.task.site = c->site;
	s.h.task.off = (sizeof(s.h) + a - 1) / a * a;
	s.cpyfn = cpyfn;
	s.data = data;
	s.size = size;
	if (a < alignof(struct omp_loop_head))
		a = alignof(struct omp_loop_head);
	if (group_wait) {
		r = model_rec(t, &group, CP_OBJ_COND, 0, c->site);
		if (r)
			cp_online_signal_reset(r);
		cp_online_wait_begin(t, NULL, &w);
		s.wait = &w;
	}
	omp_waiting = s.wait;
	cp_leave();
	omp_loop_real(c, omp_loop_run, &s, omp_loop_copy,
		      (long)s.h.task.off + size, (long)a);
	err = errno;
	omp_waiting = outer;
	t = cp_enter();
	if (!t)
		return;
	if (group_wait) {
		omp_children_taken(t, &group, &w, c->site);
		cp_objrec_forget(&group, CP_NS_MODEL);
	}
	cp_leave();
	errno = err;
}

CP_EXPORT void GOMP_taskloop(void (*fn)(void *), void *data,
			     void (*cpyfn)(void *, void *), long size,
			     long align, unsigned flags,
			     unsigned long num_tasks, int priority,
			     long start, long end, long step)
{
	const struct omp_loop_call c = { false, flags, num_tasks, priority,
		(uint64_t)start, (uint64_t)end, (uint64_t)step,
		__builtin_return_address(0) };

	omp_taskloop(&c, fn, data, cpyfn, size, align);
}

CP_EXPORT void GOMP_taskloop_ull(void (*fn)(void *), void *data,
				 void (*cpyfn)(void *, void *), long size,
				 long align, unsigned flags,
				 unsigned long num_tasks, int priority,
				 unsigned long long start,
				 unsigned long long end,
				 unsigned long long step)
{
	const struct omp_loop_call c = { true, flags, num_tasks, priority,
		start, end, step, __builtin_return_address(0) };

	omp_taskloop(&c, fn, data, cpyfn, size, align);
}

/* ---- critical sections and locks -------------------------------------- */

/* Keys of the unnamed critical section and of GOMP_atomic's lock. */
static const char omp_critical_key, omp_atomic_key;

/* Acquire @key around @call: acquire n depends on release n-1. */
#define OMP_LOCK(key, call)						\
	do {								\
		struct cp_thread *t = cp_enter();			\
		struct cp_objrec *r;					\
		struct cp_wait w;					\
		int err;						\
									\
		if (!t || !(r = sync_rec(t, key, CP_OBJ_MUTEX))) {	\
			if (t)						\
				cp_leave();				\
			call;						\
			return;						\
		}							\
		cp_online_wait_begin(t, r, &w);				\
		cp_pause();						\
		call;							\
		err = errno;						\
		cp_resume();						\
		cp_online_lock_acquired(t, r, &w, false);		\
		cp_leave();						\
		errno = err;						\
	} while (0)

/* Publish the holder's path, then @call releases @key. */
#define OMP_UNLOCK(key, call)						\
	do {								\
		struct cp_thread *t = cp_enter();			\
		struct cp_objrec *r;					\
									\
		if (t) {						\
			r = sync_rec(t, key, CP_OBJ_MUTEX);		\
			if (r)						\
				cp_online_lock_release(t, r);		\
			cp_leave();					\
		}							\
		call;							\
	} while (0)

/* A test: an acquire without a wait when @ok (an expression of rc). */
#define OMP_TEST(key, call, ok)						\
	do {								\
		struct cp_thread *t;					\
		struct cp_objrec *r;					\
		int rc = call, err = errno;				\
									\
		if (!(ok) || !(t = cp_enter()))				\
			return rc;					\
		r = sync_rec(t, key, CP_OBJ_MUTEX);			\
		if (r)							\
			cp_online_lock_acquired(t, r, NULL, false);	\
		cp_leave();						\
		errno = err;						\
		return rc;						\
	} while (0)

CP_EXPORT void GOMP_critical_start(void)
{
	OMP_LOCK(&omp_critical_key, CP_REAL_OPT(GOMP_critical_start)());
}

CP_EXPORT void GOMP_critical_end(void)
{
	OMP_UNLOCK(&omp_critical_key, CP_REAL_OPT(GOMP_critical_end)());
}

/* A named critical section: libgomp's lock pointer lives at @pptr. */
CP_EXPORT void GOMP_critical_name_start(void **pptr)
{
	OMP_LOCK(pptr, CP_REAL_OPT(GOMP_critical_name_start)(pptr));
}

CP_EXPORT void GOMP_critical_name_end(void **pptr)
{
	OMP_UNLOCK(pptr, CP_REAL_OPT(GOMP_critical_name_end)(pptr));
}

CP_EXPORT void GOMP_atomic_start(void)
{
	OMP_LOCK(&omp_atomic_key, CP_REAL_OPT(GOMP_atomic_start)());
}

CP_EXPORT void GOMP_atomic_end(void)
{
	OMP_UNLOCK(&omp_atomic_key, CP_REAL_OPT(GOMP_atomic_end)());
}

/* An ordered block: libgomp makes each wait for its turn in
 * GOMP_ordered_start (outside a region: a team of one, no edge). */
CP_EXPORT void GOMP_ordered_start(void)
{
	struct omp_region *g = omp_cur ? omp_cur->region : NULL;

	if (!g) {
		CP_REAL_OPT(GOMP_ordered_start)();
		return;
	}
	OMP_LOCK(&g->ord, CP_REAL_OPT(GOMP_ordered_start)());
}

CP_EXPORT void GOMP_ordered_end(void)
{
	struct omp_region *g = omp_cur ? omp_cur->region : NULL;

	if (!g) {
		CP_REAL_OPT(GOMP_ordered_end)();
		return;
	}
	OMP_UNLOCK(&g->ord, CP_REAL_OPT(GOMP_ordered_end)());
}

CP_EXPORT void omp_set_lock(void *l)
{
	OMP_LOCK(l, CP_REAL_OPT(omp_set_lock)(l));
}

CP_EXPORT void omp_unset_lock(void *l)
{
	OMP_UNLOCK(l, CP_REAL_OPT(omp_unset_lock)(l));
}

CP_EXPORT int omp_test_lock(void *l)
{
	OMP_TEST(l, CP_REAL_OPT(omp_test_lock)(l), rc != 0);
}

/* A nestable lock publishes at every unset: the last one before another
 * thread's set is the outermost, the one that hands it over. */
CP_EXPORT void omp_set_nest_lock(void *l)
{
	OMP_LOCK(l, CP_REAL_OPT(omp_set_nest_lock)(l));
}

CP_EXPORT void omp_unset_nest_lock(void *l)
{
	OMP_UNLOCK(l, CP_REAL_OPT(omp_unset_nest_lock)(l));
}

CP_EXPORT int omp_test_nest_lock(void *l)
{
	OMP_TEST(l, CP_REAL_OPT(omp_test_nest_lock)(l), rc > 0);
}
