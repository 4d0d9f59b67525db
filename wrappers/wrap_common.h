/*
 * wrap_common.h - what every wrapper family includes.
 */
#ifndef WRAP_COMMON_H
#define WRAP_COMMON_H

#include <errno.h>

#include "cp_objrec.h"
#include "cp_online.h"
#include "cp_real.h"
#include "cp_runtime.h"
#include "cp_trace_format.h"

/* The record of a synchronization object, or NULL (out of memory). */
static inline struct cp_objrec *sync_rec(struct cp_thread *t, const void *o,
					 unsigned kind)
{
	return cp_objrec_get(t, o, CP_NS_SYNC, kind, 0);
}

/* Object (re)initialised or destroyed: its record starts fresh. */
static inline void forget_sync(const void *o)
{
	if (cp_enter()) {
		cp_objrec_forget(o, CP_NS_SYNC);
		cp_leave();
	}
}

#endif /* WRAP_COMMON_H */
