/*
 * cp_procs.h - the selected procedures (CPTHREAD_FUNCS, up to 64).
 *
 * A selected name is matched against the executable's function symbols
 * (for the -finstrument-functions hooks) and against region names
 * (cpthread_region_begin).  Lookups are read-only after start-up.
 *
 * A selected function of a shared library, or of an executable not built
 * with -finstrument-functions (it does not import
 * __cyg_profile_func_enter), is found by sampling instead: its address
 * ranges (the function and GCC's clones of it, "f.cold", "f.part.0",
 * "f.isra.0"...) are matched against the sampled call stacks
 * (cp_sampler.h).  Should the executable's hooks run after all (a program
 * linked statically with the tracer defines them itself), they are exact
 * and the samples of its functions stand down.
 *
 * The tables below are written by cp_procs_init() only; afterwards any
 * thread reads them without a lock (the hooks do, on every call).  The
 * two *_seen flags are set by any thread, relaxed.
 */
#ifndef CP_PROCS_H
#define CP_PROCS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Resolve cp_rt.cfg.funcs; sets cp_rt.nsel.  Start-up, single-threaded. */
void cp_procs_init(void);

#define CP_PROCS_HASH 256
struct cp_procs_slot {
	uintptr_t addr;
	int idx;
};
extern struct cp_procs_slot cp_procs_table[CP_PROCS_HASH];
extern atomic_bool cp_procs_hooks_seen;	/* an instrument hook ran */
extern atomic_bool cp_procs_region_seen[64];	/* region of name i ran */

/* Index of the selected procedure at @fn, or -1.  Any thread. */
static inline int cp_procs_by_addr(uintptr_t fn)
{
	unsigned h = (unsigned)((fn >> 4) * 2654435761u) % CP_PROCS_HASH;

	while (cp_procs_table[h].addr) {
		if (cp_procs_table[h].addr == fn)
			return cp_procs_table[h].idx;
		h = (h + 1) % CP_PROCS_HASH;
	}
	return -1;
}

#define CP_PROCS_MAX_RANGES 256
/* Run-time address range of a sampled procedure (or of one of its
 * clones). */
struct cp_procs_range {
	uintptr_t lo, hi;	/* [lo, hi) */
	unsigned idx;		/* selected procedure */
};
extern struct cp_procs_range cp_procs_ranges[CP_PROCS_MAX_RANGES];
extern unsigned cp_procs_nranges;
/* Selected procedures with at least one range (0: no sampling needed). */
extern unsigned cp_procs_nsampled;

/* Whether selected procedure @i is attributed from samples (while no
 * hook has run, for one with a symbol in the executable).  Any thread. */
bool cp_procs_sampled(unsigned i);

/* Index of the selected procedure named @name, or -1.  Any thread. */
int cp_procs_by_name(const char *name);
/* Whether selected procedure @i has a function symbol.  Any thread. */
bool cp_procs_has_symbol(unsigned i);

#endif /* CP_PROCS_H */
