/*
 * wrap_instrument.c - the -finstrument-functions entry and exit hooks:
 * procedure activity for the selected procedures (and every procedure in
 * trace mode).
 */
#include "wrap_common.h"

#include "cp_procs.h"

#define CP_NOINSTR __attribute__((no_instrument_function))

CP_EXPORT CP_NOINSTR void __cyg_profile_func_enter(void *fn, void *site);
CP_EXPORT CP_NOINSTR void __cyg_profile_func_exit(void *fn, void *site);

static CP_NOINSTR void hooks_seen(void)
{
	if (!atomic_load_explicit(&cp_procs_hooks_seen, memory_order_relaxed))
		atomic_store(&cp_procs_hooks_seen, true);
}

/* Online mode without selected procedures: the hooks have nothing to
 * follow, and return before anything else (they run on every call). */
static inline CP_NOINSTR bool nothing_to_follow(void)
{
	return cp_rt.nsel == 0 && !cp_rt.trace;
}

void __cyg_profile_func_enter(void *fn, void *site)
{
	struct cp_thread *t;

	(void)site;
	if (nothing_to_follow()) {
		hooks_seen();
		return;
	}
	t = cp_enter();
	if (!t)
		return;
	hooks_seen();
	cp_online_proc_enter(t, (uintptr_t)fn);
	cp_leave();
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	struct cp_thread *t;

	(void)site;
	if (nothing_to_follow())
		return;
	t = cp_enter();
	if (!t)
		return;
	cp_online_proc_leave(t, (uintptr_t)fn);
	cp_leave();
}
