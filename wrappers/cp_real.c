
#include "cp_real.h"

#include <dlfcn.h>
#include <stddef.h>

#include "cp_die.h"

struct cp_real cp_real;

struct cp_real_row {
	size_t slot;		/* offset in struct cp_real */
	const char *name;
	const char *version;	/* NULL: default version */
};

static const struct cp_real_row cp_real_rows[] = {
#define CP_REAL_ROW(ret, name, args, ver)				\
	{ offsetof(struct cp_real, name), #name, ver },
	CP_REAL_FUNCS(CP_REAL_ROW)
#undef CP_REAL_ROW
};

void cp_real_init(void)
{
	if (__atomic_load_n(&cp_real.ready, __ATOMIC_ACQUIRE))
		return;
	for (size_t i = 0; i < sizeof(cp_real_rows) / sizeof(cp_real_rows[0]);
	     i++) {
		const struct cp_real_row *r = &cp_real_rows[i];
		void *f = NULL;

		if (r->version)
			f = dlvsym(RTLD_NEXT, r->name, r->version);
		if (!f)
			f = dlsym(RTLD_NEXT, r->name);
		if (!f)
			cp_die("a pthread function has no real definition");
		*(void **)((char *)&cp_real + r->slot) = f;
	}
	__atomic_store_n(&cp_real.ready, 1, __ATOMIC_RELEASE);
}

__attribute__((constructor(101)))
static void cp_real_ctor(void)
{
	cp_real_init();
}
