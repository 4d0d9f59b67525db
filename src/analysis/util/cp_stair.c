/*
 * cp_stair.c - the least of a set of values that expire (cp_stair.h).
 *
 * The blocks are numbered in order from 0, the front block (s->f), to
 * nblocks() - 1; block k > 0 is s->d[s->dl + k - 1].
 */
#include "cp_stair.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cp_par.h"

/* A block's first array: 1 KB. */
enum { FIRST_CAP = 64 };

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
 * @bytes rounded up, on lines of their own: the Slack walks keep a
 * staircase per lane and run two at once (cp_par.h's CP_PAR_APART).
 * NULL when out of memory.
 */
static size_t apart_size(size_t bytes)
{
	return (bytes + CP_PAR_APART - 1) / CP_PAR_APART * CP_PAR_APART;
}

static void *apart(size_t bytes)
{
	return aligned_alloc(CP_PAR_APART, apart_size(bytes));
}

static struct cp_stair_entry *entries(uint32_t cap)
{
	return apart(sizeof(struct cp_stair_entry) * cap);
}

static uint32_t nblocks(const struct cp_stair *s)
{
	return 1 + s->nd - s->dl;
}

static struct cp_stair_blk *blk(struct cp_stair *s, uint32_t k)
{
	return k ? &s->d[s->dl + k - 1] : &s->f;
}

/* Room for one more slot at the directory's back; -1 on OOM.  The
 * blocks' numbers stay. */
static int dir_room(struct cp_stair *s)
{
	struct cp_stair_blk *d;
	size_t bytes;

	if (s->nd < s->dcap)
		return 0;
	if (s->dl) {
		memmove(s->d, s->d + s->dl, sizeof(*d) * (s->nd - s->dl));
		s->nd -= s->dl;
		s->dl = 0;
		return 0;
	}
	bytes = apart_size(sizeof(*d) * (s->dcap ? 2 * (size_t)s->dcap : 4));
	d = apart(bytes);
	if (!d)
		return -1;
	if (s->nd)
		memcpy(d, s->d, sizeof(*d) * s->nd);
	free(s->d);
	s->d = d;
	s->dcap = (uint32_t)(bytes / sizeof(*d));
	return 0;
}

/* @b becomes block @k (> 0), the blocks from @k on moving up one.  -1 on
 * OOM (nothing changed). */
static int dir_insert(struct cp_stair *s, uint32_t k, struct cp_stair_blk b)
{
	uint32_t at;

	if (k == 1 && s->dl) {
		s->d[--s->dl] = b;
		return 0;
	}
	if (dir_room(s))
		return -1;
	at = s->dl + k - 1;
	memmove(&s->d[at + 1], &s->d[at], sizeof(b) * (s->nd - at));
	s->d[at] = b;
	s->nd++;
	return 0;
}

void cp_stair_next_block(struct cp_stair *s)
{
	free(s->f.e);
	s->f = s->d[s->dl++];
}

uint64_t cp_stair_size(const struct cp_stair *s)
{
	uint64_t n = s->f.n - s->f.lo;

	for (uint32_t i = s->dl; i < s->nd; i++)
		n += s->d[i].n - s->d[i].lo;
	return n;
}

void cp_stair_clear(struct cp_stair *s)
{
	for (uint32_t i = s->dl; i < s->nd; i++)
		free(s->d[i].e);
	s->dl = s->nd = 0;
	s->f.lo = s->f.n = 0;
}

/* Index in block @b of its first entry alive at @until or later (b->n:
 * none). */
static uint32_t find_in(const struct cp_stair_blk *b, uint64_t until)
{
	uint32_t lo = b->lo, hi = b->n;

	/* most pushes land one or two entries from the front */
	for (int step = 0; step < 8 && lo < hi; step++, lo++)
		if (b->e[lo].until >= until)
			return lo;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b->e[mid].until < until)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The until of block @b's last entry (@b holds one). */
static uint64_t last_until(const struct cp_stair_blk *b)
{
	return b->e[b->n - 1].until;
}

/* The first entry alive at @until or later: index *@j of block *@bi; if
 * none is, the last block's end.  Every block of @s holds an entry. */
static void find(struct cp_stair *s, uint64_t until, uint32_t *bi,
		 uint32_t *j)
{
	uint32_t lo = 0, hi = nblocks(s) - 1;

	/* most pushes land in the front block */
	if (lo < hi && last_until(&s->f) < until) {
		lo = 1;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (last_until(blk(s, mid)) < until)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	*bi = lo;
	*j = find_in(blk(s, lo), until);
}

/* Block @b, full, below CP_STAIR_BLOCK entries: twice the room.  -1 on
 * OOM. */
static int grow(struct cp_stair_blk *b)
{
	uint32_t cap = 2 * b->cap < CP_STAIR_BLOCK ? 2 * b->cap :
		       CP_STAIR_BLOCK;
	struct cp_stair_entry *e = entries(cap);

	if (!e)
		return -1;
	memcpy(e + b->lo, b->e + b->lo, sizeof(*e) * (b->n - b->lo));
	free(b->e);
	b->e = e;
	b->cap = cap;
	return 0;
}

/* Block *@bi, full, splits in two; the place *@j (an index in it, or its
 * end) moves with its entries.  -1 on OOM (nothing changed). */
static int split(struct cp_stair *s, uint32_t *bi, uint32_t *j)
{
	struct cp_stair_blk *b, *up;
	struct cp_stair_entry *e = entries(CP_STAIR_BLOCK);
	uint32_t half;

	if (!e || dir_insert(s, *bi + 1, (struct cp_stair_blk){
				     e, 0, 0, CP_STAIR_BLOCK })) {
		free(e);
		return -1;
	}
	b = blk(s, *bi);
	up = blk(s, *bi + 1);
	half = b->lo + (b->n - b->lo) / 2;
	up->n = b->n - half;
	memcpy(up->e, b->e + half, sizeof(*e) * up->n);
	b->n = half;
	if (*j > half) {	/* (at half: the lower block's end) */
		(*bi)++;
		*j -= half;
	}
	return 0;
}

/* Room in block *@bi, full, for one entry at *@j: its entries move to
 * its front, or it grows, or it splits (both updated).  -1 on OOM. */
static int block_room(struct cp_stair *s, uint32_t *bi, uint32_t *j)
{
	struct cp_stair_blk *b = blk(s, *bi);

	if (b->lo >= b->cap / 2) {
		move(b->e, 0, b->lo, b->n - b->lo);
		*j -= b->lo;
		b->n -= b->lo;
		b->lo = 0;
		return 0;
	}
	return b->cap < CP_STAIR_BLOCK ? grow(b) : split(s, bi, j);
}

/* Put (@val, @until) before the entry at *@j of block *@bi (or at the
 * block's end), where it ends up given back.  -1 on OOM. */
static int insert(struct cp_stair *s, uint32_t *bi, uint32_t *j,
		  uint64_t val, uint64_t until)
{
	struct cp_stair_blk *b = blk(s, *bi);
	bool front = b->lo > 0 && *j - b->lo < b->n - *j;

	if (!front && b->n == b->cap) {
		if (block_room(s, bi, j))
			return -1;
		b = blk(s, *bi);
		front = b->lo > 0 && *j - b->lo < b->n - *j;
	}
	/* the shorter side moves */
	if (front) {
		move(b->e, b->lo - 1, b->lo, *j - b->lo);
		b->lo--;
		(*j)--;
	} else {
		move(b->e, *j + 1, *j, b->n - *j);
		b->n++;
	}
	b->e[*j] = (struct cp_stair_entry){ val, until };
	return 0;
}

/* Blocks [@first, @bi) are empty: they go, block @bi taking the front if
 * @first is 0. */
static void drop_blocks(struct cp_stair *s, uint32_t first, uint32_t bi)
{
	for (uint32_t k = first; k < bi; k++)
		free(blk(s, k)->e);
	if (!first) {
		s->f = *blk(s, bi);
		s->dl += bi;
	} else {
		uint32_t at = s->dl + first - 1;

		memmove(&s->d[at], &s->d[at + bi - first],
			sizeof(*s->d) * (s->nd - at - (bi - first)));
		s->nd -= bi - first;
	}
}

/* The entries of value @val or more at the end of the blocks before
 * block @bi, a run that reaches back from @bi's front, go. */
static void drop_before(struct cp_stair *s, uint32_t bi, uint64_t val)
{
	uint32_t first = bi;

	while (first > 0) {
		struct cp_stair_blk *p = blk(s, first - 1);
		uint32_t k = p->n;

		while (k > p->lo && p->e[k - 1].val >= val)
			k--;
		p->n = k;
		if (k > p->lo)
			break;
		first--;
	}
	if (first < bi)
		drop_blocks(s, first, bi);
}

int cp_stair_push(struct cp_stair *s, uint64_t val, uint64_t until,
		  uint64_t now)
{
	struct cp_stair_blk *b;
	uint32_t bi, i, j, k, d;
	bool back;

	if (cp_stair_min(s, now) == UINT64_MAX) {
		/* none, or every one expired: the front block alone */
		if (!s->f.e) {
			s->f.e = entries(FIRST_CAP);
			if (!s->f.e)
				return -1;
			s->f.cap = FIRST_CAP;
		}
		s->f.e[0] = (struct cp_stair_entry){ val, until };
		s->f.lo = 0;
		s->f.n = 1;
		return 0;
	}
	find(s, until, &bi, &j);
	b = blk(s, bi);
	if (j < b->n && b->e[j].val <= val)
		return 0;		/* dominated */
	k = j < b->n && b->e[j].until == until ? j + 1 : j;
	for (i = j; i > b->lo && b->e[i - 1].val >= val; i--)
		;
	/* [i, k) are dominated by the new entry, which takes their place
	 * (the shorter side moves), and so may the last entries of the
	 * blocks before when the run reaches its block's front (an entry
	 * put there stays in block bi: a split keeps the lower half) */
	back = i == b->lo && bi > 0;
	d = k - i;
	if (!d) {
		if (insert(s, &bi, &i, val, until))
			return -1;
	} else {
		if (--d && i - b->lo < b->n - k) {
			move(b->e, b->lo + d, b->lo, i - b->lo);
			b->lo += d;
			i += d;
		} else if (d) {
			move(b->e, i + 1, k, b->n - k);
			b->n -= d;
		}
		b->e[i] = (struct cp_stair_entry){ val, until };
	}
	if (back)
		drop_before(s, bi, val);
	return 0;
}

/* Block @dst holds a copy of @src's entries, in its array if large
 * enough.  -1 on OOM. */
static int copy_block(struct cp_stair_blk *dst, const struct cp_stair_blk *src)
{
	uint32_t m = src->n - src->lo;

	if (m && dst->cap < m) {
		uint32_t cap = m > FIRST_CAP ? (m + 7) & ~7u : FIRST_CAP;
		struct cp_stair_entry *e = entries(cap);

		if (!e)
			return -1;
		free(dst->e);
		dst->e = e;
		dst->cap = cap;
	}
	if (m)
		memcpy(dst->e, src->e + src->lo, sizeof(*dst->e) * m);
	dst->lo = 0;
	dst->n = m;
	return 0;
}

int cp_stair_copy(struct cp_stair *dst, const struct cp_stair *src)
{
	cp_stair_clear(dst);
	if (copy_block(&dst->f, &src->f))
		goto oom;
	for (uint32_t i = src->dl; i < src->nd; i++) {
		struct cp_stair_blk b = { 0 };

		if (copy_block(&b, &src->d[i]))
			goto oom;
		if (dir_insert(dst, nblocks(dst), b)) {
			free(b.e);
			goto oom;
		}
	}
	return 0;
oom:
	cp_stair_free(dst);
	return -1;
}

void cp_stair_free(struct cp_stair *s)
{
	cp_stair_clear(s);
	free(s->f.e);
	free(s->d);
	memset(s, 0, sizeof(*s));
}
