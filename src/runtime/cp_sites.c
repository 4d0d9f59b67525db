/*
 * cp_sites.c - the sites of objects (see cp_sites.h).
 */
#include "cp_sites.h"

#include <unwind.h>

#include "cp_lock.h"
#include "cp_modules.h"
#include "cp_runtime.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"
#include "cp_varint.h"

#define CP_SITES_BUF	4096	/* bytes of pairs before a block goes out */

static uintptr_t cp_own_lo, cp_own_hi;	/* the tracer's code */
static bool cp_own_looked;	/* at the first start; a fork child's is the
				 * same (and its loader lock may be held) */
static bool cp_sites_on;
static bool cp_sites_armed;	/* crash_flush registered */

static struct cp_lock cp_sites_lock;
static uint8_t cp_sites_buf[CP_SITES_BUF + 2 * CP_VARINT_MAX];
static size_t cp_sites_len;

/* Write the buffer as one block; under cp_sites_lock, or alone. */
static void flush_locked(void)
{
	if (cp_sites_len)
		cp_trace_write_block(CP_BLOCK_SITES, 0, cp_sites_buf,
				     cp_sites_len);
	cp_sites_len = 0;
}

/* Crash path: whatever is buffered (a writer mid-pair has not moved the
 * length yet, so the block holds whole pairs). */
static void crash_flush(void)
{
	flush_locked();
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
	/* a fork child: the parent's other threads may have held these */
	atomic_store(&cp_sites_lock.held, 0);
	cp_sites_len = 0;
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

static _Unwind_Reason_Code first_outside(struct _Unwind_Context *ctx,
					 void *arg)
{
	uint64_t *pc = arg;
	uintptr_t ip = _Unwind_GetIP(ctx);

	if (ip == 0)
		return _URC_END_OF_STACK;
	if (ip >= cp_own_lo && ip < cp_own_hi)
		return _URC_NO_REASON;
	*pc = ip - 1;
	return _URC_END_OF_STACK;
}

uint64_t cp_sites_at(const void *ra)
{
	uintptr_t a = (uintptr_t)ra;

	if (!cp_sites_on || !a || (a >= cp_own_lo && a < cp_own_hi))
		return 0;
	return a - 1;
}

uint64_t cp_sites_caller(void)
{
	uint64_t pc = 0;

	if (cp_sites_on)
		_Unwind_Backtrace(first_outside, &pc);
	return pc;
}

void cp_sites_add(uint32_t obj, uint64_t pc)
{
	uint8_t *p;

	if (!cp_sites_on || !cp_rt.trace || !pc)
		return;
	cp_lock_acquire(&cp_sites_lock);
	p = cp_sites_buf + cp_sites_len;
	p = cp_uv_put(p, obj);
	p = cp_uv_put(p, pc);
	cp_sites_len = (size_t)(p - cp_sites_buf);
	if (cp_sites_len >= CP_SITES_BUF)
		flush_locked();
	cp_lock_release(&cp_sites_lock);
}

void cp_sites_finish(void)
{
	if (!cp_sites_on || !cp_rt.trace)
		return;
	cp_lock_acquire(&cp_sites_lock);
	flush_locked();
	cp_lock_release(&cp_sites_lock);
	cp_modules_update();
}
