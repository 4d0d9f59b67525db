/*
 * cp_tsan.h - tell ThreadSanitizer about an ordering it cannot see.
 *
 * liburcu is a system library built without TSan: when the tracer
 * publishes a record through cds_lfht_add_unique (a full barrier inside
 * liburcu-cds) and another thread reaches it through cds_lfht_lookup
 * (rcu_dereference), TSan sees the initialising writes and the reads but
 * not the edge between them.  cp_tsan_release(p) before the publication
 * and cp_tsan_acquire(p) where a reader gets the pointer state that edge
 * for TSan.  Outside a TSan build both compile to nothing.  Any thread;
 * @p is only an address naming the edge, never dereferenced.
 */
#ifndef CP_TSAN_H
#define CP_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define CP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CP_TSAN 1
#endif
#endif

#ifdef CP_TSAN
#include <sanitizer/tsan_interface.h>
#define cp_tsan_release(p) __tsan_release((void *)(p))
#define cp_tsan_acquire(p) __tsan_acquire((void *)(p))
#else
#define cp_tsan_release(p) ((void)(p))
#define cp_tsan_acquire(p) ((void)(p))
#endif

#endif /* CP_TSAN_H */
