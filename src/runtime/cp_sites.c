/*
 * cp_sites.c - the sites of objects (see cp_sites.h).
 *
 * Each thread that makes records writes its site stacks into a buffer of its
 * own (no lock, no line shared with another thread making records), taken
 * from a pool at its first stack and given back at its exit.  A buffer
 * goes out as one SITE_STACKS block when full, when its thread exits, at the
 * trace's end and on the crash paths.  Buffers are never freed, so the
 * crash path may walk them all at any moment.
 */
#include "cp_sites.h"

#include <stdatomic.h>
#include <unwind.h>

#include "cp_alloc.h"
#include "cp_modules.h"
#include "cp_runtime.h"
#include "cp_thread.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"
#include "cp_varint.h"

#define CP_SITES_BUF	2048	/* bytes of stacks before a block goes out */

struct cp_sites_buf {
	struct cp_sites_buf *next;	/* the pool, never unlinked */
	atomic_bool owned;		/* a thread writes into it */
	atomic_size_t len;		/* bytes of whole stacks (release) */
	uint8_t b[CP_SITES_BUF + (2 + CP_SITE_DEPTH) * CP_VARINT_MAX];
};

static uintptr_t cp_own_lo, cp_own_hi;	/* the tracer's code */
static bool cp_own_looked;	/* at the first start; a fork child's is the
				 * same (and its loader lock may be held) */
static bool cp_sites_on;
static bool cp_sites_armed;	/* crash_flush registered */
static _Atomic(struct cp_sites_buf *) cp_sites_pool;
static atomic_uint cp_sites_stacks;	/* records made with their callers */

/* Write @sb's stacks as one block and empty it; its owner, or alone. */
static void flush_buf(struct cp_sites_buf *sb)
{
	size_t n = atomic_load_explicit(&sb->len, memory_order_acquire);

	if (n)
		cp_trace_write_block(CP_BLOCK_SITE_STACKS, 0, sb->b, n);
	atomic_store_explicit(&sb->len, 0, memory_order_relaxed);
}

/* Crash path: every buffer's whole stacks (a writer mid-stack has not
 * moved its length yet). */
static void crash_flush(void)
{
	for (struct cp_sites_buf *sb = atomic_load(&cp_sites_pool); sb;
	     sb = sb->next)
		flush_buf(sb);
}

static _Unwind_Reason_Code unwind_nothing(struct _Unwind_Context *ctx,
					  void *arg)
{
	(void)ctx;
	(void)arg;
	return _URC_END_OF_STACK;
}

void cp_sites_init(void)
{
	/* a fork child: the parent's buffers hold the parent's stacks, and
	 * their owners other than the forking thread do not exist here */
	for (struct cp_sites_buf *sb = atomic_load(&cp_sites_pool); sb;
	     sb = sb->next) {
		atomic_store(&sb->len, 0);
		atomic_store(&sb->owned, false);
	}
	if (!cp_own_looked)
		cp_modules_own_text(&cp_own_lo, &cp_own_hi);
	cp_own_looked = true;
	cp_sites_on = cp_own_hi > cp_own_lo;
	if (!cp_sites_on || cp_sites_armed)	/* a fork child: done */
		return;
	/* the unwinder's one-time set-up, here rather than in a wrapper */
	_Unwind_Backtrace(unwind_nothing, NULL);
	cp_trace_at_crash(crash_flush);	/* writes nothing without a trace */
	cp_sites_armed = true;
}

bool cp_sites_enabled(void)
{
	return cp_sites_on;
}

uint64_t cp_sites_at(const void *ra)
{
	uintptr_t a = (uintptr_t)ra;

	if (!cp_sites_on || !a || (a >= cp_own_lo && a < cp_own_hi))
		return 0;
	return a - 1;
}

bool cp_sites_stacks_left(void)
{
	return cp_sites_on && cp_rt.trace &&
	       atomic_load_explicit(&cp_sites_stacks, memory_order_relaxed) <
		       CP_SITES_STACKS;
}

bool cp_sites_take_stack(void)
{
	return cp_sites_stacks_left() &&
	       atomic_fetch_add_explicit(&cp_sites_stacks, 1,
					 memory_order_relaxed) <
		       CP_SITES_STACKS;
}

/* The frames cp_sites_stack collects. */
struct stack_walk {
	uint64_t *pcs;
	unsigned n, max;
};

static _Unwind_Reason_Code outside_frames(struct _Unwind_Context *ctx,
					  void *arg)
{
	struct stack_walk *w = arg;
	uintptr_t ip = _Unwind_GetIP(ctx);

	if (ip == 0)
		return _URC_END_OF_STACK;
	if (ip >= cp_own_lo && ip < cp_own_hi)
		return _URC_NO_REASON;	/* the tracer's (a thread's start) */
	w->pcs[w->n++] = ip - 1;
	return w->n < w->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

unsigned cp_sites_stack(uint64_t *pcs, unsigned max)
{
	struct stack_walk w = { pcs, 0, max };

	if (cp_sites_on && max)
		_Unwind_Backtrace(outside_frames, &w);
	return w.n;
}

/* A buffer for the calling thread: a free one of the pool, else a new
 * one pushed onto it; NULL when out of memory. */
static struct cp_sites_buf *take_buf(void)
{
	struct cp_sites_buf *sb;

	for (sb = atomic_load(&cp_sites_pool); sb; sb = sb->next) {
		bool free = false;

		if (atomic_compare_exchange_strong(&sb->owned, &free, true))
			return sb;
	}
	sb = cp_zalloc(sizeof(*sb));
	if (!sb)
		return NULL;
	atomic_store(&sb->owned, true);
	sb->next = atomic_load(&cp_sites_pool);
	while (!atomic_compare_exchange_weak(&cp_sites_pool, &sb->next, sb))
		;
	return sb;
}

void cp_sites_add(struct cp_thread *t, uint32_t obj, const uint64_t *pcs,
		  unsigned n)
{
	struct cp_sites_buf *sb = t->sites;
	size_t len;
	uint8_t *p;

	if (!cp_sites_on || !cp_rt.trace || !n || !pcs[0])
		return;
	if (n > CP_SITE_DEPTH)
		n = CP_SITE_DEPTH;
	if (!sb && !(sb = t->sites = take_buf()))
		return;
	len = atomic_load_explicit(&sb->len, memory_order_relaxed);
	p = cp_uv_put(cp_uv_put(sb->b + len, obj), n);
	for (unsigned i = 0; i < n; i++)
		p = cp_uv_put(p, pcs[i]);
	atomic_store_explicit(&sb->len, (size_t)(p - sb->b),
			      memory_order_release);
	if ((size_t)(p - sb->b) >= CP_SITES_BUF)
		flush_buf(sb);
}

void cp_sites_thread_end(struct cp_thread *t)
{
	struct cp_sites_buf *sb = t->sites;

	if (!sb)
		return;
	t->sites = NULL;
	flush_buf(sb);
	atomic_store(&sb->owned, false);
}

void cp_sites_finish(void)
{
	if (!cp_sites_on || !cp_rt.trace)
		return;
	/* the threads still running have stopped tracing (exit) */
	for (struct cp_sites_buf *sb = atomic_load(&cp_sites_pool); sb;
	     sb = sb->next)
		flush_buf(sb);
	cp_modules_update();
}
