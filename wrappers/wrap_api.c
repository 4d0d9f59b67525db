/*
 * wrap_api.c - the public annotations of include/cpthread.h.  Each is a
 * guarded call into the runtime; with tracing off it returns at once.
 */
#include "wrap_common.h"

#include "cpthread.h"

CP_EXPORT void cpthread_enqueue(const void *queue, const void *item)
{
	struct cp_thread *t = cp_enter();

	(void)queue;
	if (!t)
		return;
	cp_online_enqueue(t, item);
	cp_leave();
}

CP_EXPORT void cpthread_dequeue(const void *queue, const void *item)
{
	struct cp_thread *t = cp_enter();

	(void)queue;
	if (!t)
		return;
	cp_online_dequeue(t, item);
	cp_leave();
}

CP_EXPORT void cpthread_untrack(const void *object)
{
	struct cp_thread *t = cp_enter();

	if (!t)
		return;
	cp_objrec_untrack(t, object);
	cp_leave();
}

CP_EXPORT void cpthread_region_begin(const char *name)
{
	struct cp_thread *t = cp_enter();

	if (!t || !name) {
		if (t)
			cp_leave();
		return;
	}
	cp_online_region(t, name, true);
	cp_leave();
}

CP_EXPORT void cpthread_region_end(const char *name)
{
	struct cp_thread *t = cp_enter();

	if (!t || !name) {
		if (t)
			cp_leave();
		return;
	}
	cp_online_region(t, name, false);
	cp_leave();
}

CP_EXPORT void cpthread_start(void)
{
	struct cp_thread *t = cp_enter();

	if (!t)
		return;
	cp_online_start(t);
	cp_leave();
}

CP_EXPORT void cpthread_stop(void)
{
	struct cp_thread *t = cp_enter();

	if (!t)
		return;
	cp_online_stop(t);
	cp_leave();
}

CP_EXPORT void cpthread_sample(void)
{
	struct cp_thread *t = cp_enter();

	if (!t)
		return;
	cp_online_sample(t);
	cp_leave();
}
