/*
 * cp_twins.h - which members of a family own the same set of items:
 * groups of edges that would each walk the same lane of an algorithm,
 * where one walk can serve them all (Slack's lanes over a block's
 * critical-path edges, zeroing's over the graph's edges or classes).
 *
 * Protocol, for members 0 .. n-1 and items fed in increasing order:
 *  1. cp_twins_reset, then cp_twins_note(j, item) for every item every
 *     member owns;
 *  2. cp_twins_match: members with the same count and hash of their items
 *     are taken for twins, the least index of each family its
 *     representative (rep[j] == j);
 *  3. the same items again, each one first cp_twins_seen for all its
 *     members, then cp_twins_check for all of them: a member with an
 *     item its representative lacks walks alone after all (rep[j] = j).
 *     With as many items as its representative, all of them its
 *     representative's, its set is the same: a hash collision costs a
 *     walk, never a result.
 * Cost: O(n log n) and O(1) per (member, item); 52 bytes per member.
 * One thread per struct.
 */
#ifndef CP_TWINS_H
#define CP_TWINS_H

#include <stdint.h>

#include "cp_hash.h"

struct cp_twins_m {
	uint64_t h;		/* the hash of its items */
	uint32_t n;		/* how many */
	uint32_t j;		/* its index (cp_twins_match's sort) */
	uint32_t seen;		/* (step 3) the last item it owns */
};

struct cp_twins {
	uint32_t *rep;		/* [n] each member's representative */
	struct cp_twins_m *m;	/* [n] */
	struct cp_twins_m *sorted;	/* [n] scratch */
	uint32_t n, cap;
};

/* Room for @n members, no twin yet (rep[j] == j).  0, or -1 (memory:
 * @t keeps what it had). */
int cp_twins_reset(struct cp_twins *t, uint32_t n);
void cp_twins_free(struct cp_twins *t);

/* Step 1: member @j owns @item. */
static inline void cp_twins_note(struct cp_twins *t, uint32_t j,
				 uint32_t item)
{
	t->m[j].h = cp_hash_mix(t->m[j].h, item);
	t->m[j].n++;
}

/* Step 2; returns how many members are their own representative. */
uint32_t cp_twins_match(struct cp_twins *t);

/* Step 3: member @j owns @item (all of the item's members, then ...). */
static inline void cp_twins_seen(struct cp_twins *t, uint32_t j,
				 uint32_t item)
{
	t->m[j].seen = item;
}

/* ... each of them checked against its representative. */
static inline void cp_twins_check(struct cp_twins *t, uint32_t j,
				  uint32_t item)
{
	if (t->m[t->rep[j]].seen != item)
		t->rep[j] = j;
}

/*
 * Step @step of an item: 0 cp_twins_note, 1 cp_twins_seen, 2
 * cp_twins_check, for each of its @k owners @ids, which @j_of maps to
 * their members (ids of @nids at most; a member of t->n or more: not one).
 */
static inline void cp_twins_item(struct cp_twins *t, unsigned step,
				 uint32_t item, const uint32_t *ids,
				 uint32_t k, const uint32_t *j_of,
				 uint32_t nids)
{
	for (uint32_t x = 0; x < k; x++) {
		uint32_t j = ids[x] < nids ? j_of[ids[x]] : UINT32_MAX;

		if (j >= t->n)
			continue;
		if (step == 0)
			cp_twins_note(t, j, item);
		else if (step == 1)
			cp_twins_seen(t, j, item);
		else
			cp_twins_check(t, j, item);
	}
}

/* After step 3 (or after step 2 when it found none): how many members
 * have a twin to take their result from.  They are also added to a
 * count for the whole process, cp_twins_total(). */
uint32_t cp_twins_done(const struct cp_twins *t);

/* How many members cp_twins_done() counted, over the process's life.
 * For tests: that an algorithm's twins were found and left out. */
uint64_t cp_twins_total(void);

#endif /* CP_TWINS_H */
