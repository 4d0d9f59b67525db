
#include "cp_real.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "cp_die.h"

struct cp_real cp_real;

struct cp_real_row {
	size_t slot;		/* offset in struct cp_real */
	const char *name;
	const char *version;	/* NULL: default version */
	bool optional;		/* may be missing (CP_REAL_OPT_FUNCS) */
};

static const struct cp_real_row cp_real_rows[] = {
#define CP_REAL_ROW(ret, name, args, ver)				\
	{ offsetof(struct cp_real, name), #name, ver, false },
#define CP_REAL_OPT_ROW(ret, name, args, ver)				\
	{ offsetof(struct cp_real, name), #name, ver, true },
	CP_REAL_FUNCS(CP_REAL_ROW)
	CP_REAL_OPT_FUNCS(CP_REAL_OPT_ROW)
#undef CP_REAL_OPT_ROW
#undef CP_REAL_ROW
};

static void *lookup(const char *name, const char *version)
{
	void *f = NULL;

	if (version)
		f = dlvsym(RTLD_NEXT, name, version);
	if (!f)
		f = dlsym(RTLD_NEXT, name);
	return f;
}

void cp_real_late(void **slot, const char *name, const char *version)
{
	void *f = lookup(name, version);

	if (!f)
		cp_die("a wrapped function has no real definition");
	__atomic_store_n(slot, f, __ATOMIC_RELEASE);
}

/*
 * Whether this thread is resolving the table now.  A look-up that fails
 * (libgomp's functions, in a program without it) makes the dynamic loader
 * allocate its message, and a program's own allocator (redis links
 * jemalloc) may take a pthread lock on its first use: that lock's wrapper
 * needs its real function before the table is done, and gets it alone
 * (cp_real_one) instead of starting the table again, which recursed
 * until the stack ran out.
 */
static __thread bool cp_real_resolving
	__attribute__((tls_model("initial-exec")));

void cp_real_init(void)
{
	if (__atomic_load_n(&cp_real.ready, __ATOMIC_ACQUIRE) ||
	    cp_real_resolving)
		return;
	cp_real_resolving = true;
	for (size_t i = 0; i < sizeof(cp_real_rows) / sizeof(cp_real_rows[0]);
	     i++) {
		const struct cp_real_row *r = &cp_real_rows[i];
		void *f = lookup(r->name, r->version);

		if (!f && !r->optional)
			cp_die("a pthread function has no real definition");
		__atomic_store_n((void **)((char *)&cp_real + r->slot), f,
				 __ATOMIC_RELEASE);
	}
	cp_real_resolving = false;
	__atomic_store_n(&cp_real.ready, 1, __ATOMIC_RELEASE);
}

void *cp_real_one(void **slot, const char *name)
{
	for (size_t i = 0; i < sizeof(cp_real_rows) / sizeof(cp_real_rows[0]);
	     i++) {
		const struct cp_real_row *r = &cp_real_rows[i];
		void *f;

		if (strcmp(r->name, name))
			continue;
		f = lookup(r->name, r->version);
		if (!f && !r->optional)
			cp_die("a pthread function has no real definition");
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
		return f;
	}
	cp_die("a wrapped function has no row in the real table");
	return NULL;
}

/* Before the runtime's constructor (102), which turns on the lean lock
 * paths: they call cp_real's slots without checking ready. */
__attribute__((constructor(101)))
static void cp_real_ctor(void)
{
	cp_real_init();
}
