#include "cp_procs.h"

#include <string.h>

#include "cp_runtime.h"
#include "cp_symbols.h"

struct cp_procs_slot cp_procs_table[CP_PROCS_HASH];
atomic_bool cp_procs_hooks_seen;
atomic_bool cp_procs_region_seen[64];
static bool cp_procs_symbol[CP_MAX_FUNCS];

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
