/*
 * cp_sites.h - where the program first used each object, for the trace
 * (CP_BLOCK_SITES, cp_trace_format.h): the analyzer names an object by
 * that function and source line, so that "mutex#12" in a report becomes
 * a lock the user can find in the code.
 *
 * When a record is made, its site is the return address of the wrapper
 * the program called: the record lookup, inlined into the wrapper, passes
 * __builtin_return_address(0), free until a record is made.  Where the
 * lookup was inlined into a helper of the tracer that the wrapper calls
 * rather than jumps to (the address then lies in the tracer's code: no
 * wrapper of GCC's build, several of clang's), the caller unwinds its own
 * stack (libgcc's unwinder, about a microsecond) to the first frame
 * outside the tracer.  In trace mode a synchronization object's record
 * also keeps the calls that led to its site, so that a program's own lock
 * layer (a lock() helper that every caller goes through) does not give
 * all its locks one name: the caller unwinds up to CP_SITE_DEPTH frames
 * outside the tracer, as long as the process's budget of such unwinds
 * (CP_SITES_STACKS records) lasts, and the innermost site alone after.
 * The record keeps its site for the exit report; in trace mode the
 * stacks (object, addresses) collect in a buffer of the thread that made
 * the record, which goes out as a SITE_STACKS block when full, at the
 * thread's exit, at the end and on the crash paths.
 * The tracer's code is told apart by address, which needs the tracer to
 * be a shared object (cp_modules_own_text): linked into the executable it
 * records no sites.  The unwinder takes the loader's lock, so its caller
 * must hold no lock that a thread inside the loader could wait for (the
 * record table's RCU read side included).
 *
 * Concurrency: any thread; a thread's buffer is its own.
 */
#ifndef CP_SITES_H
#define CP_SITES_H

#include <stdbool.h>
#include <stdint.h>

/* Start recording sites: every record keeps its own (cp_objrec.site, for
 * the exit report), and in trace mode they go to the trace (or not, see
 * above).  Start-up or a fork child, single-threaded, guard raised. */
void cp_sites_init(void);

/* Whether sites are recorded (cp_sites_init found the tracer's frames). */
bool cp_sites_enabled(void);

/* The site of return address @ra (minus one, in the call), or 0 when
 * sites are off or @ra is in the tracer's own code.  Any thread. */
uint64_t cp_sites_at(const void *ra);

/* Records made with their callers at most: past it, sites alone. */
#define CP_SITES_STACKS	16384

/* Whether records are kept with their callers now (trace mode, sites on,
 * the budget not spent). */
bool cp_sites_stacks_left(void);

/* The same, spending one from the budget when true.  Any thread. */
bool cp_sites_take_stack(void);

/* The code addresses of the calling thread's frames outside the tracer
 * (its own frames, a thread's start among them, are passed over),
 * innermost first, each a return address minus one: at most @max of them
 * into @pcs; returns how many (0: sites off, or no frame outside the
 * tracer).  Guard raised; no lock held. */
unsigned cp_sites_stack(uint64_t *pcs, unsigned max);

struct cp_thread;

/* Object @obj, whose record @t made, was first used at @pcs[0], reached
 * through the calls @pcs[1 .. @n-1] (@n at most CP_SITE_DEPTH; @n 0 or
 * @pcs[0] 0: unknown, nothing recorded).  Calling thread @t, guard
 * raised. */
void cp_sites_add(struct cp_thread *t, uint32_t obj, const uint64_t *pcs,
		  unsigned n);

/* @t exits: its buffer goes out and back to the pool.  Its thread. */
void cp_sites_thread_end(struct cp_thread *t);

/* Write out what is buffered, and the module map the addresses need.
 * Exit, before the trace's END. */
void cp_sites_finish(void);

#endif /* CP_SITES_H */
