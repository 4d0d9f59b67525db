/*
 * cp_zero.h - logical zeroing ([Hollingsworth98, §2.4], [HollingsworthMiller94,
 * Fig. 5]): the critical path length if every edge of activity group i weighed
 * zero, the graph's structure kept.  CP zeroing of i = length - zeroed length.
 *
 * A group with no time on the chosen critical path cannot shorten it (that
 * path keeps its length), so its zeroed length is the CP length without a
 * pass; the same holds within each block between cut vertices of the
 * critical path (cp_cuts.h), so a group costs a pass over the blocks where
 * it has CP time only, O(v+e) at most.
 * Groups come in either form of struct cp_groups: one per edge, or several
 * per edge (inclusive procedure time: zeroing i zeroes every edge that
 * lists i).
 */
#ifndef CP_ZERO_H
#define CP_ZERO_H

#include "cp_cuts.h"

/*
 * Longest root-to-leaf path of @c's graph and weights with group @gid's
 * edges at weight zero, by one pass over the whole graph.  @scratch has
 * room for nv words.  Only reads.
 */
uint64_t cp_zero_group(const struct cp_cpm *c, const struct cp_groups *gr,
		       uint32_t gid, uint64_t *scratch);

/*
 * Fill @newlen[@gr->n] with the zeroed CP length of every group, block by
 * block of @k.  With @only non-NULL, groups with @only[i] false are
 * skipped and get the CP length (for "zero the top groups" on huge
 * graphs).  Returns 0, or -1 when memory runs out.  Only reads @k and @gr.
 */
int cp_zero_blocks(const struct cp_cuts *k, const struct cp_groups *gr,
		   const bool *only, uint64_t *newlen);

/* The same for @c, finding its cuts first. */
int cp_zero_all(const struct cp_cpm *c, const struct cp_groups *gr,
		const bool *only, uint64_t *newlen);

#endif /* CP_ZERO_H */
