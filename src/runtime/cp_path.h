/*
 * cp_path.h - a path value: what the online algorithm carries along a
 * path and stores in an object's record.
 *
 *   len       length of the longest path ending here (ns of useful time)
 *   share[i]  time selected procedure i holds on that path ([Hollingsworth98, Fig. 2])
 *   z[i]      len - net[i], where net[i] is the longest path ending here
 *             with procedure i's time set to zero (logical zeroing, Fig. 4)
 *
 * Keeping z rather than net makes advancing cheap: when a thread runs for
 * d ns, len grows by d, net[i] grows by d for every procedure not running,
 * so only the running procedures' share and z change.  A merge keeps the
 * longer len with its whole share vector, and the element-wise max of net.
 *
 * owner: the thread whose path this is a snapshot of (CP_PATH_MIXED when
 * several contributed).  A thread's path dominates, element by element,
 * every snapshot it published earlier, so merging one's own snapshot back
 * is skipped.  gen: the computation generation (cpthread_start starts a
 * new one); a value of another generation carries nothing.
 *
 * A path value is plain memory of cp_path_size(nsel) bytes with no lock
 * of its own: the functions here neither lock nor allocate, and whoever
 * holds the value decides who may call them on it (a thread's own path:
 * the owning thread; a record's: cp_objrec.h).  Lengths, shares and z are
 * ns of cp_rt.clock.
 */
#ifndef CP_PATH_H
#define CP_PATH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cp_debug.h"
#include "cp_die.h"

#define CP_PATH_MIXED UINT32_MAX

struct cp_path {
	uint64_t len;
	uint32_t owner;
	uint32_t gen;
	uint64_t v[];		/* share[nsel], then z[nsel] */
};

static inline size_t cp_path_size(unsigned nsel)
{
	return sizeof(struct cp_path) + 2 * nsel * sizeof(uint64_t);
}

static inline uint64_t *cp_path_share(struct cp_path *p)
{
	return p->v;
}

static inline uint64_t *cp_path_z(struct cp_path *p, unsigned nsel)
{
	return p->v + nsel;
}

static inline void cp_path_clear(struct cp_path *p, unsigned nsel,
				 uint32_t gen, uint32_t owner)
{
	p->len = 0;
	p->gen = gen;
	p->owner = owner;
	if (nsel)
		memset(p->v, 0, 2 * nsel * sizeof(uint64_t));
}

/*
 * Debug builds (CP_DEBUG): die unless @p is a path value, every share and
 * every z at most len (a procedure holds no more of a path than its
 * length; net = len - z is never negative).  O(nsel).  Any thread that
 * may read @p.
 */
static inline void cp_path_assert(const struct cp_path *p, unsigned nsel)
{
	if (!CP_DEBUG)
		return;
	for (unsigned i = 0; i < 2 * nsel; i++)
		if (p->v[i] > p->len)
			cp_die("path: a share or z exceeds the length");
}

/*
 * Debug builds (CP_DEBUG): die unless @dst dominates @src (cp_path_dominates)
 * after @src was merged into it: a merge never loses a path.  O(nsel).
 */
static inline void cp_path_assert_merged(const struct cp_path *dst,
					 const struct cp_path *src,
					 unsigned nsel);

/* On the release path of every lock: no library call without vectors. */
static inline void cp_path_copy(struct cp_path *dst, const struct cp_path *src,
				unsigned nsel)
{
	dst->len = src->len;
	dst->owner = src->owner;
	dst->gen = src->gen;
	if (nsel)
		memcpy(dst->v, src->v, 2 * nsel * sizeof(uint64_t));
	cp_path_assert(dst, nsel);
}

/*
 * dst = merge(dst, src): the path into a vertex with both as predecessors.
 * Returns how much dst->len grew.  Both must be of generation @gen or src
 * is ignored (an empty record, or one from before cpthread_start()).
 */
static inline uint64_t cp_path_merge(struct cp_path *dst,
				     const struct cp_path *src, unsigned nsel,
				     uint32_t gen)
{
	uint64_t grew = 0;

	if (src->gen != gen)
		return 0;
	if (dst->gen != gen) {
		uint32_t owner = dst->owner;

		cp_path_copy(dst, src, nsel);
		dst->owner = owner == src->owner ? owner : CP_PATH_MIXED;
		return src->len;
	}
	if (nsel == 0) {
		if (src->len > dst->len) {
			grew = src->len - dst->len;
			dst->len = src->len;
		}
		return grew;
	}

	uint64_t *dz = dst->v + nsel;
	const uint64_t *sz = src->v + nsel;
	uint64_t newlen = src->len > dst->len ? src->len : dst->len;

	for (unsigned i = 0; i < nsel; i++) {
		uint64_t nd = dst->len - dz[i];
		uint64_t ns = src->len - sz[i];

		dz[i] = newlen - (ns > nd ? ns : nd);
	}
	if (src->len > dst->len) {
		grew = src->len - dst->len;
		memcpy(dst->v, src->v, nsel * sizeof(uint64_t));
		dst->len = src->len;
	}
	cp_path_assert(dst, nsel);
	cp_path_assert_merged(dst, src, nsel);
	return grew;
}

/*
 * Whether merging @src into @dst would change nothing, now or after @dst
 * advances (advancing never shortens a length or a net): @src no longer
 * than @dst, and for every procedure its net no longer than @dst's.  Both
 * of the same generation.
 */
static inline bool cp_path_dominates(const struct cp_path *dst,
				     const struct cp_path *src, unsigned nsel)
{
	const uint64_t *dz = dst->v + nsel, *sz = src->v + nsel;

	if (src->len > dst->len)
		return false;
	for (unsigned i = 0; i < nsel; i++)
		if (src->len - sz[i] > dst->len - dz[i])
			return false;
	return true;
}

static inline void cp_path_assert_merged(const struct cp_path *dst,
					 const struct cp_path *src,
					 unsigned nsel)
{
	if (CP_DEBUG && !cp_path_dominates(dst, src, nsel))
		cp_die("path: a merge lost part of a path");
}

#endif /* CP_PATH_H */
