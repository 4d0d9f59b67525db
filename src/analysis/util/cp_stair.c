/*
 * cp_stair.c - the least of a set of values that expire (cp_stair.h).
 */
#include "cp_stair.h"

#include <stdlib.h>
#include <string.h>

#include "cp_par.h"

/* Index of the first entry alive at @until or later (s->n: none). */
static uint32_t find(const struct cp_stair *s, uint64_t until)
{
	uint32_t lo = s->lo, hi = s->n;

	/* most pushes land one or two entries from the front */
	for (int step = 0; step < 8 && lo < hi; step++, lo++)
		if (s->e[lo].until >= until)
			return lo;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->e[mid].until < until)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Move @n entries of @e from @from to @to (the ranges may overlap). */
static void move(struct cp_stair_entry *e, uint32_t to, uint32_t from,
		 uint32_t n)
{
	if (n > 16) {
		memmove(e + to, e + from, sizeof(*e) * n);
	} else if (to > from) {
		for (uint32_t x = n; x-- > 0;)
			e[to + x] = e[from + x];
	} else {
		for (uint32_t x = 0; x < n; x++)
			e[to + x] = e[from + x];
	}
}

/*
 * The entries' array, on lines of its own: the Slack walks keep a
 * staircase per lane and run two at once (cp_par.h's CP_PAR_APART).
 * NULL when out of memory; @cap a multiple of 8 (128 bytes).
 */
static struct cp_stair_entry *entries(uint32_t cap)
{
	return aligned_alloc(CP_PAR_APART,
			     sizeof(struct cp_stair_entry) * cap);
}

/* Room for one more entry at the back; -1 on OOM.  The entries may move
 * to the front of the array (s->lo becomes 0). */
static int room(struct cp_stair *s)
{
	struct cp_stair_entry *e;
	uint32_t ncap;

	if (s->n < s->cap)
		return 0;
	if (s->lo && s->lo >= s->cap / 2) {
		move(s->e, 0, s->lo, s->n - s->lo);
		s->n -= s->lo;
		s->lo = 0;
		return 0;
	}
	ncap = s->cap ? s->cap * 2 : 64;
	e = entries(ncap);
	if (!e)
		return -1;
	if (s->n)
		memcpy(e, s->e, sizeof(*e) * s->n);
	free(s->e);
	s->e = e;
	s->cap = ncap;
	return 0;
}

int cp_stair_push(struct cp_stair *s, uint64_t val, uint64_t until,
		  uint64_t now)
{
	uint32_t i, j, k, lo, d;

	if (cp_stair_min(s, now) == UINT64_MAX)
		cp_stair_clear(s);	/* every one expired */
	j = find(s, until);
	if (j < s->n && s->e[j].val <= val)
		return 0;		/* dominated */
	k = j < s->n && s->e[j].until == until ? j + 1 : j;
	for (i = j; i > s->lo && s->e[i - 1].val >= val; i--)
		;
	/* [i, k) are dominated by the new entry, which takes their place;
	 * the shorter side moves */
	lo = s->lo;
	if (k == i && lo > 0 && i - lo < s->n - i) {
		move(s->e, lo - 1, lo, i - lo);
		s->lo--;
		i--;
	} else if (k == i) {
		if (room(s))
			return -1;
		i -= lo - s->lo;	/* the entries moved down */
		move(s->e, i + 1, i, s->n - i);
		s->n++;
	} else if (k - i > 1) {
		d = k - i - 1;		/* entries to drop */
		if (i - lo < s->n - k) {
			move(s->e, lo + d, lo, i - lo);
			s->lo += d;
			i += d;
		} else {
			move(s->e, i + 1, k, s->n - k);
			s->n -= d;
		}
	}
	s->e[i] = (struct cp_stair_entry){ val, until };
	return 0;
}

int cp_stair_copy(struct cp_stair *dst, const struct cp_stair *src)
{
	uint32_t n = src->n - src->lo;

	cp_stair_clear(dst);
	if (n > dst->cap) {
		uint32_t cap = (n + 7) & ~7u;
		struct cp_stair_entry *e = entries(cap);

		if (!e)
			return -1;
		free(dst->e);
		dst->e = e;
		dst->cap = cap;
	}
	if (n)
		memcpy(dst->e, src->e + src->lo, sizeof(*dst->e) * n);
	dst->n = n;
	return 0;
}

void cp_stair_free(struct cp_stair *s)
{
	free(s->e);
	memset(s, 0, sizeof(*s));
}
