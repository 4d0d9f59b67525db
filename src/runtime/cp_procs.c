#include "cp_procs.h"

#include <string.h>

#include "cp_runtime.h"
#include "cp_symbols.h"

struct cp_procs_slot cp_procs_table[CP_PROCS_HASH];
atomic_bool cp_procs_hooks_seen;
atomic_bool cp_procs_region_seen[64];
static bool cp_procs_symbol[CP_MAX_FUNCS];
struct cp_procs_range cp_procs_ranges[CP_PROCS_MAX_RANGES];
unsigned cp_procs_nranges;
unsigned cp_procs_nsampled;
static bool cp_procs_by_samples[CP_MAX_FUNCS];

/* "f" itself or a GCC clone of it: "f.cold", "f.part.0", "f.isra.0". */
static bool same_function(const char *sym, const char *sel)
{
	size_t n = strlen(sel);

	return !strncmp(sym, sel, n) && (sym[n] == '\0' || sym[n] == '.');
}

static void add_range(uint64_t addr, uint64_t size, const char *name,
		      void *arg)
{
	(void)arg;
	if (!size)
		return;
	for (unsigned i = 0; i < cp_rt.nsel; i++) {
		struct cp_procs_range *r;

		if (!same_function(name, cp_rt.cfg.funcs[i]) ||
		    cp_procs_nranges == CP_PROCS_MAX_RANGES)
			continue;
		r = &cp_procs_ranges[cp_procs_nranges++];
		r->lo = (uintptr_t)addr;
		r->hi = (uintptr_t)(addr + size);
		r->idx = i;
		if (!cp_procs_by_samples[i]) {
			cp_procs_by_samples[i] = true;
			cp_procs_nsampled++;
		}
	}
}

void cp_procs_init(void)
{
	memset(cp_procs_table, 0, sizeof(cp_procs_table));
	cp_rt.nsel = cp_rt.cfg.nfuncs;
	for (unsigned i = 0; i < cp_rt.nsel; i++) {
		uint64_t a = cp_symbols_lookup(cp_rt.cfg.funcs[i]);
		unsigned h;

		cp_procs_symbol[i] = a != 0;
		if (!a)
			continue;
		h = (unsigned)((a >> 4) * 2654435761u) % CP_PROCS_HASH;
		while (cp_procs_table[h].addr)
			h = (h + 1) % CP_PROCS_HASH;
		cp_procs_table[h].addr = (uintptr_t)a;
		cp_procs_table[h].idx = (int)i;
	}
	cp_procs_nranges = 0;
	cp_procs_nsampled = 0;
	memset(cp_procs_by_samples, 0, sizeof(cp_procs_by_samples));
	if (!cp_rt.nsel)
		return;
	if (!cp_symbols_imports("__cyg_profile_func_enter"))
		cp_symbols_for_each(add_range, NULL);
	cp_symbols_for_each_lib(add_range, NULL);
}

bool cp_procs_sampled(unsigned i)
{
	return i < CP_MAX_FUNCS && cp_procs_by_samples[i];
}

int cp_procs_by_name(const char *name)
{
	for (unsigned i = 0; i < cp_rt.nsel; i++)
		if (!strcmp(cp_rt.cfg.funcs[i], name))
			return (int)i;
	return -1;
}

bool cp_procs_has_symbol(unsigned i)
{
	return i < CP_MAX_FUNCS && cp_procs_symbol[i];
}
