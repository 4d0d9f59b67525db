/*
 * wrap_dl.c - dlclose: in trace mode the objects loaded now join the
 * trace's module map before one of them may be unloaded, so that the
 * samples and sites taken in a plugin keep its name.  The map is
 * otherwise brought up to date when a thread ends and at exit, after a
 * program that loads a plugin, uses it and unloads it (ImageMagick's
 * coders, unloaded in its exit handler) has let it go.  Return value and
 * errno are the real call's.
 */
#include "wrap_common.h"

#include <dlfcn.h>

#include "cp_modules.h"

CP_EXPORT int dlclose(void *handle)
{
	struct cp_thread *t = cp_rt.trace ? cp_enter() : NULL;

	if (t) {
		int saved = errno;

		cp_modules_update();
		errno = saved;
		cp_leave();
	}
	return CP_REAL(dlclose)(handle);
}
