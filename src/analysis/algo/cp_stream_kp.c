/*
 * cp_stream_kp.c - the k longest paths in the out-of-core pass
 * (cp_stream.h): the sidetrack enumeration of cp_kpaths.c (Eppstein's),
 * turned around so that the forward pass can build it.
 *
 * cp_kpaths.c measures every path against the longest continuation from
 * each vertex to the end, which takes a backward pass.  On the reversed
 * graph the roles swap: the longest path *ending* at a vertex is what the
 * forward pass keeps anyway (len), and the tree edge into a vertex is the
 * side a merge takes (the longer; ties: the thread's own, as
 * cp_stream_merge_into).  Each dependency merge is a max of two paths (a
 * CONSUME of several sequences merges one record after another: a chain
 * of zero-weight virtual vertices, with the same paths and lengths as the
 * graph's hub), so the shorter side is a sidetrack of delta = the longer
 * len - its len.  Every source-to-sink path is then the tree path back
 * from the sink with some sidetracks taken, and its length is the
 * critical path's minus their deltas.
 *
 * H(v), the sidetracks along v's tree path back to the source keyed by
 * delta, is a persistent leftist heap: a segment leaves it as it is; a
 * merge inserts the sidetrack into the longer side's H, the node carrying
 * the shorter side's H (where a path that takes the sidetrack goes on).
 * A thread and a record hold a root each.  At the end the threads' last
 * vertices are merged the same way into the sink (each has an edge to
 * it, cp_tracepag.c), and the paths come out of the path graph as in
 * cp_kpaths.c: a path is its parent's sidetracks and one node N more;
 * taking it offers N's heap children in N's place (cost - key(N) +
 * key(child)) and the root of N's own heap after it (cost + its key).
 * Every sidetrack set is reached once, cheapest first.
 *
 * Memory.  Nodes live to the end (the heaps share them), and an insert
 * copies the heap's right spine (log2 of its size at most), so keeping
 * every sidetrack would cost memory in proportion to the events.  Those
 * dearer than a bound are not kept.  The bound starts unbounded; when the
 * nodes reach kp_cap it falls to the largest 2^b - 1 under which at most
 * half of the sidetracks kept so far lie (a histogram of their deltas' bit
 * lengths), and again each time half the room left to 2 kp_cap is used;
 * once it is 0, or the room is nearly gone, no sidetrack is kept any more
 * (strict), so there are never more than 2 kp_cap nodes (24 bytes each:
 * what the copies of a node share, the heap its sidetrack turns onto
 * among it, is kept in the sidetrack), nor more sidetracks (48 bytes).
 * A path whose sidetracks' deltas add up to at most the final bound had
 * them all kept, and so had every longer path: the paths found up to
 * that cost are the longest ones (among equal lengths, maybe others).
 * Past it a longer path might be missing, so the result stops there and
 * says so (paths_cut).
 *
 * MBM (cp_stream_opts.mbm_k).  A path's time in procedure i is the
 * sink's tree share of i plus, for each of its sidetracks, the shorter
 * side's share minus the longer's at that merge (the stretches between
 * sidetracks are tree paths, whose share the records carry).  The paths
 * pass numbers its merges; after it, cp_stream_kp_want keeps the numbers
 * of the paths' own sidetracks, and the records pass that follows (the
 * capture pass: the same schedule, so the same numbers) takes the
 * followed procedures' lanes at those merges only.  MBM(i) is then the
 * least over the paths of the path's time in i plus its shortfall
 * (cp_mbm.h), over the exact paths found.
 *
 * Cost: O(log h) per sidetrack kept (h its heap's size), O(1) per merge
 * otherwise, O(k log k) for the enumeration; MBM, one more pass and
 * O(k x followed procedures).
 */
#include "cp_stream_int.h"

#include <stdlib.h>

#include "cp_candheap.h"
#include "cp_grow.h"

static uint32_t rank_of(const struct sp *p, uint32_t h)
{
	return h == NONE ? 0 : p->kn[h].rank;
}

/* The most nodes, and sidetracks (each has a node), the heaps may hold
 * ("Memory", above; a few more for an insert's copies at the limit), over
 * every pass: a pass again with more room reuses the arrays, whose pages
 * the pass before wrote (fresh pages cost the kernel's clearing).  A
 * small trace cannot fill that room: an insert copies at most its heap's
 * rank, about log2 of the sidetracks, and there are at most as many
 * sidetracks as merges, so the room reserved is at most four entries a
 * merge for each bit of the event count, counting a merge per event and
 * one per thread (its end's, into the sink).  More merges than that
 * would make the arrays double, as cp_grow32_upto does past its bound.
 * Reserving a thousand-event trace 100 MB of untouched pages costs
 * nothing but address space, except where every byte is accounted: a
 * sanitizer's shadow, a ulimit -v. */
static uint64_t kp_most(const struct sp *p)
{
	uint64_t room = 2 * (p->kp_max > p->kp_cap ? p->kp_max : p->kp_cap) +
			64;
	uint64_t merges = p->ix->t.nevents + p->ix->t.nthreads + 64;
	uint64_t fit = 4 * merges * (64 - (uint64_t)__builtin_clzll(merges));

	return fit < room ? fit : room;
}

/* Room for one node more: its index (the caller fills it), or NONE when
 * out of memory. */
static uint32_t node_new(struct sp *p)
{
	if (cp_grow32_upto((void **)&p->kn, sizeof(*p->kn), &p->cap_kn,
			   p->nkn + 1ull, kp_most(p)))
		return NONE;
	return p->nkn++;
}

/*
 * Heap @h with a node of @key and @side inserted, persistently: the nodes
 * on the way down @h's right spine are copied, the rest shared.  On ties
 * the new node goes on top (nothing copied).  NONE: no memory.
 */
static uint32_t heap_insert(struct sp *p, uint32_t h, uint64_t key,
			    uint32_t side)
{
	uint32_t c, r;

	if (h == NONE || key <= p->kn[h].key) {
		c = node_new(p);
		if (c == NONE)
			return NONE;
		p->kn[c] = (struct cp_kp_node){ .key = key, .l = h, .r = NONE,
						.side = side, .rank = 1 };
		return c;
	}
	r = heap_insert(p, p->kn[h].r, key, side);
	if (r == NONE)
		return NONE;
	c = node_new(p);
	if (c == NONE)
		return NONE;
	p->kn[c] = p->kn[h];
	p->kn[c].r = r;
	if (rank_of(p, p->kn[c].l) < rank_of(p, r)) {
		p->kn[c].r = p->kn[c].l;
		p->kn[c].l = r;
	}
	p->kn[c].rank = 1 + rank_of(p, p->kn[c].r);
	return c;
}

/* Bit length of @d: 0 for 0, j for 2^(j-1) <= d < 2^j. */
static unsigned bit_len(uint64_t d)
{
	return d ? 64 - (unsigned)__builtin_clzll(d) : 0;
}

/* Is a sidetrack of delta @d kept? */
static bool keep(const struct sp *p, uint64_t d)
{
	return d < p->kp_bound || (d == p->kp_bound && !p->kp_strict);
}

/* The nodes reached the limit: lower the bound ("Memory", above). */
static void lower_bound(struct sp *p)
{
	uint64_t half = p->nkside / 2, cum = 0, nb;
	int b = -1;

	for (int j = 0; j < 65 && cum + p->kp_hist[j] <= half; j++) {
		cum += p->kp_hist[j];
		b = j;
	}
	nb = b < 0 ? 0 : b >= 64 ? UINT64_MAX : (1ull << b) - 1;
	if (nb >= p->kp_bound)
		nb = p->kp_bound / 2;
	if (p->kp_bound == 0 || p->nkn >= 2 * p->kp_cap - p->kp_cap / 64) {
		nb = 0;		/* the room is gone: keep nothing more */
		p->kp_strict = true;
	}
	p->kp_bound = nb;
	/* half the room left to the next lowering: 2 kp_cap in all */
	p->kp_limit = p->nkn + (2 * p->kp_cap - p->nkn) / 2;
}

int cp_stream_kp_grow(struct sp *p, uint32_t need)
{
	uint32_t c = p->cap_rkp, c2 = p->cap_rkp;

	if (cp_grow32((void **)&p->rhp, sizeof(*p->rhp), &c, need) ||
	    cp_grow32((void **)&p->rend, sizeof(*p->rend), &c2, need))
		return -1;
	p->cap_rkp = c;
	return 0;
}

void cp_stream_kp_rec(struct sp *p, const struct sth *t, uint32_t r)
{
	p->rhp[r] = t->hp;
	p->rend[r] = (struct cp_kp_end){ (uint32_t)(t - p->th), t->last_wall };
}

/* One side of a merge: its length, heap, where it ends, its lanes
 * (the share lanes the MBM reads) and, a record's, their origin (thin
 * records, cp_stream_rec.c; CP_ORG_WHOLE: a thread's). */
struct side {
	uint64_t len;
	uint32_t h;
	struct cp_kp_end e;
	const uint64_t *vec;
	uint64_t org;
};

/* The capture pass: the lanes of merge @m if it is wanted (the next in
 * kp_want; the merges come in the same order as in the paths pass). */
static void capture(struct sp *p, uint64_t m, const struct side *win,
		    const struct side *lose)
{
	uint32_t n = p->ntr;

	while (p->kp_wi < p->nwant && p->kp_want[p->kp_wi] == m) {
		uint64_t *ds = p->kp_ds + (size_t)p->kp_wi++ * n;

		if (win->org != CP_ORG_WHOLE || lose->org != CP_ORG_WHOLE)
			p->spoiled = true;	/* a thin record's lanes */

		for (uint32_t i = 0; i < n; i++)
			ds[i] = lose->vec[i] - win->vec[i];	/* mod 2^64 */
	}
}

/*
 * (thin records) The origin a sidetrack made at the merge of @a and @b
 * keeps for cp_stream_kp_want, which marks it if MBM's capture will read
 * the merge: the record side's (a merge has at most one, but for a fold
 * or a hub's, whose two are marked at once), or CP_KP_ORG_WHOLE.
 */
static uint64_t side_org(struct sp *p, const struct side *a,
			 const struct side *b)
{
	uint64_t o = a->org != CP_ORG_WHOLE ? a->org : b->org;

	if (a->org != CP_ORG_WHOLE && b->org != CP_ORG_WHOLE) {
		cp_stream_org_mark(p, b->org);
		o = a->org;
	}
	if (o != CP_ORG_WHOLE && o >= CP_KP_ORG_WHOLE) {
		cp_stream_org_mark(p, o);	/* past 2^56 records */
		o = CP_ORG_WHOLE;
	}
	return o == CP_ORG_WHOLE ? CP_KP_ORG_WHOLE : o;
}

/*
 * Merge @b into *@a (before the caller merges lengths and lanes): the
 * shorter (ties: @b) becomes a sidetrack into @to through @obj, of kind
 * @kind_b when it is @b, else @kind_a; a->h and a->e become the merged
 * path's.
 */
static void merge(struct sp *p, struct side *a, const struct side *b,
		  const struct cp_kp_end *to, uint32_t obj, uint8_t kind_b,
		  uint8_t kind_a)
{
	bool bwin = b->len > a->len;
	const struct side *win = bwin ? b : a, *lose = bwin ? a : b;
	uint64_t d = win->len - lose->len, m = p->kp_nmerge++;
	uint32_t side, root;
	struct cp_kp_side *s;

	if (p->kp_capture) {
		capture(p, m, win, lose);
		return;
	}
	if (!keep(p, d)) {
		a->h = win->h;
		a->e = win->e;
		return;
	}
	side = p->nkside;
	if (cp_grow32_upto((void **)&p->kside, sizeof(*p->kside),
			   &p->cap_kside, side + 1ull, kp_most(p))) {
		p->nomem = true;
		return;
	}
	s = &p->kside[side];
	*s = (struct cp_kp_side){
		.from_wall = lose->e.wall, .to_wall = to->wall, .m = m,
		.from_tid = lose->e.tid, .to_tid = to->tid, .obj = obj,
		.sub = lose->h, .org = side_org(p, a, b),
		.kind = bwin ? kind_a : kind_b,
	};
	root = heap_insert(p, win->h, d, side);
	if (root == NONE) {
		p->nomem = true;
		return;
	}
	p->nkside++;
	p->kp_hist[bit_len(d)]++;
	a->h = root;
	a->e = win->e;
	if (p->nkn >= p->kp_limit)
		lower_bound(p);
}

/* Thread @t's path as a side (its end: before its current vertex). */
static struct side thread_side(const struct sth *t)
{
	return (struct side){ t->len, t->hp, t->kend, t->vec, CP_ORG_WHOLE };
}

/* Record @r as a side. */
static struct side rec_side(const struct sp *p, uint32_t r)
{
	return (struct side){ p->rlen[r], p->rhp[r], p->rend[r],
			      p->rvec + r * (size_t)p->vn,
			      p->org_on ? p->rorg[r] : CP_ORG_WHOLE };
}

/* The merge into @t from @b at its current vertex. */
static void into_thread(struct sp *p, struct sth *t, const struct side *b,
			uint32_t obj, uint8_t kind_b, uint8_t kind_a)
{
	struct side a = thread_side(t);
	struct cp_kp_end to = { (uint32_t)(t - p->th), t->last_wall };

	merge(p, &a, b, &to, obj, kind_b, kind_a);
	t->hp = a.h;
	t->kend = a.e;
}

void cp_stream_kp_consume(struct sp *p, struct sth *t, uint32_t r)
{
	struct side b = rec_side(p, r);

	into_thread(p, t, &b, t->nx.obj, CP_SDEV_OBJECT, CP_SDEV_PROGRAM);
}

void cp_stream_kp_join(struct sp *p, struct sth *t, uint32_t c)
{
	const struct sth *ch = &p->th[c];
	struct side b = { ch->len, ch->hp, { c, ch->last_wall }, ch->vec,
			  CP_ORG_WHOLE };

	into_thread(p, t, &b, NONE, CP_SDEV_JOIN, CP_SDEV_PROGRAM);
}

/* The merge of @b into the group record @a. */
static void into_group(struct sp *p, uint32_t a, const struct side *b)
{
	struct side g = rec_side(p, a);
	struct cp_kp_end to = { NONE, p->kp_now };

	merge(p, &g, b, &to, p->kp_obj, CP_SDEV_GROUP, CP_SDEV_GROUP);
	p->rhp[a] = g.h;
	p->rend[a] = g.e;
}

void cp_stream_kp_group_thread(struct sp *p, uint32_t a, const struct sth *t)
{
	/* the publish is the thread's current vertex */
	struct side b = { t->len, t->hp,
			  { (uint32_t)(t - p->th), t->last_wall }, t->vec,
			  CP_ORG_WHOLE };

	into_group(p, a, &b);
}

void cp_stream_kp_group_rec(struct sp *p, uint32_t a, uint32_t r)
{
	struct side b = rec_side(p, r);

	into_group(p, a, &b);
}

/* Add @x to the candidate heap @c of *@n (room made by the caller). */
static void push(struct cp_cand *c, uint32_t *n, struct cp_cand x)
{
	c[*n] = x;
	cp_cand_up(c, (*n)++);
}

/* Sidetrack @side as a deviation, times from @t0. */
static struct cp_stream_dev dev_of(const struct sp *p, uint32_t side,
				   uint64_t t0)
{
	const struct cp_kp_side *s = &p->kside[side];
	struct cp_stream_dev d = {
		.kind = s->kind, .obj = s->obj,
		.obj_kind = s->obj < p->nobj && p->obj[s->obj].defined ?
			    p->obj[s->obj].kind : CP_SDEV_NOKIND,
		.from_tid = s->from_tid, .to_tid = s->to_tid,
	};

	d.from_ns = s->from_wall > t0 ? s->from_wall - t0 : 0;
	d.to_ns = s->to_wall > t0 ? s->to_wall - t0 : 0;	/* END: 0 */
	return d;
}

/*
 * Enumerate from the sink's heap @h (path 0 of length @len) at most
 * p->kp_k paths into s->paths, the times from @t0.  0, or -1 (memory).
 */
static int enumerate(struct sp *p, uint32_t h, uint64_t len, uint64_t t0)
{
	struct cp_stream *s = p->s;
	uint32_t k = p->kp_k, n = 0, nc = 0;
	/* each path taken adds at most three candidates and takes one; a
	 * candidate's a is its heap node */
	struct cp_cand *c = malloc((2 * (size_t)k + 2) * sizeof(*c));

	s->paths = malloc((size_t)k * sizeof(*s->paths));
	p->kp_pw = malloc((size_t)k * sizeof(*p->kp_pw));
	if (!c || !s->paths || !p->kp_pw) {
		free(c);
		return -1;
	}
	p->kp_pw[0] = NONE;
	s->paths[n++] = (struct cp_stream_path){ .len = len,
						 .parent = UINT32_MAX };
	if (h != NONE)
		push(c, &nc, (struct cp_cand){ p->kn[h].key, 0, h, 0 });
	while (n < k && nc) {
		struct cp_cand q = cp_cand_pop(c, &nc);
		const struct cp_kp_node *N = &p->kn[q.a];
		uint32_t kids[2] = { N->l, N->r }, sub = p->kside[N->side].sub;

		if (q.cost > p->kp_bound) {
			s->paths_cut = true;
			break;
		}
		s->paths[n] = (struct cp_stream_path){
			.len = len - q.cost, .parent = q.par,
			.dev = dev_of(p, N->side, t0),
		};
		p->kp_pw[n] = N->side;
		for (int i = 0; i < 2; i++)
			if (kids[i] != NONE)
				push(c, &nc, (struct cp_cand){
					q.cost - N->key + p->kn[kids[i]].key,
					q.par, kids[i], 0 });
		if (sub != NONE)
			push(c, &nc, (struct cp_cand){
				q.cost + p->kn[sub].key, n, sub, 0 });
		n++;
	}
	free(c);
	s->npaths = n;
	return 0;
}

/*
 * (MBM) From the capture pass: each path's share lanes, its parent's plus
 * its sidetrack's difference (the critical path's: @sink, the sink's tree
 * path's), and each tracked procedure's MBM over them, the least over
 * paths of its time on the path plus the path's shortfall
 * (cp_mbm.h).  0, or -1 (memory).
 */
static int mbm(struct sp *p, const uint64_t *sink)
{
	struct cp_stream *s = p->s;
	uint32_t n = p->ntr, np = s->npaths;
	uint64_t *d = malloc(((size_t)np * n + 1) * sizeof(*d));
	uint64_t *best = malloc(((size_t)n + 1) * sizeof(*best));

	if (!d || !best) {
		free(d);
		free(best);
		return -1;
	}
	for (uint32_t j = 0; j < np; j++) {
		uint64_t *dj = d + (size_t)j * n;
		uint64_t short_by = s->paths[0].len - s->paths[j].len;

		for (uint32_t i = 0; i < n; i++) {
			dj[i] = j == 0 ? sink[i] :
				d[(size_t)s->paths[j].parent * n + i] +
				p->kp_ds[(size_t)p->kp_pw[j] * n + i];
			if (j == 0 || dj[i] + short_by < best[i])
				best[i] = dj[i] + short_by;
		}
	}
	for (uint32_t i = 0; np && i < s->nprocs; i++) {
		if (p->trk[i] == NONE)
			continue;
		s->procs[i].has_mbm = true;
		s->procs[i].mbm_ns = best[p->trk[i]];
	}
	s->mbm_paths = np;
	free(d);
	free(best);
	return 0;
}

void cp_stream_kp_end(struct sp *p, uint32_t tid)
{
	const struct sth *t = &p->th[tid];
	struct side b = { t->len, t->hp, { tid, t->last_wall }, t->vec,
			  CP_ORG_WHOLE };
	struct side acc = { p->kp_alen, p->kp_ah, p->kp_ae, p->kp_avec,
			    CP_ORG_WHOLE };
	struct cp_kp_end sink = { NONE, 0 };

	if (!p->kp_any) {
		acc = b;
		p->kp_any = true;
	} else if (b.len > acc.len ||
		   (b.len == acc.len && tid < acc.e.tid)) {
		/* the longer wins, of the same length the first thread
		 * (cp_stream_cp_end's): the tree's lanes are its */
		merge(p, &b, &acc, &sink, NONE, CP_SDEV_END, CP_SDEV_END);
		acc = b;
	} else {
		merge(p, &acc, &b, &sink, NONE, CP_SDEV_END, CP_SDEV_END);
	}
	p->kp_alen = acc.len;
	p->kp_ah = acc.h;
	p->kp_ae = acc.e;
	p->kp_avec = acc.vec;
}

int cp_stream_kp_finish(struct sp *p)
{
	struct cp_stream *s = p->s;
	uint64_t t0 = UINT64_MAX;

	for (uint32_t tid = 0; tid < p->nt; tid++)
		if (p->th[tid].any && p->th[tid].first_wall < t0)
			t0 = p->th[tid].first_wall;
	if (p->kp_capture)
		return p->kp_any ? mbm(p, p->kp_avec) : 0;
	s->paths_asked = p->kp_k;
	s->paths_bound = p->kp_bound;
	s->kp_kept = p->nkside;
	s->kp_nodes = p->nkn;
	if (!p->kp_any)
		return 0;
	if (enumerate(p, p->kp_ah, p->kp_alen, t0))
		return -1;
	/* MBM asked with no procedure followed: no capture pass, and the
	 * paths it would be over are these */
	if (p->mbm_k > 1 && !p->ntr)
		s->mbm_paths = s->npaths;
	return 0;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int cp_stream_kp_want(struct sp *p)
{
	uint32_t np = p->s->npaths, n = 0;

	p->kp_want = malloc(((size_t)np + 1) * sizeof(*p->kp_want));
	p->kp_ds = malloc(((size_t)np * p->ntr + 1) * sizeof(*p->kp_ds));
	if (!p->kp_want || !p->kp_ds)
		return -1;
	for (uint32_t j = 1; j < np; j++) {
		const struct cp_kp_side *sd = &p->kside[p->kp_pw[j]];

		p->kp_want[n++] = sd->m;
		if (sd->org != CP_KP_ORG_WHOLE)	/* the capture reads it */
			cp_stream_org_mark(p, sd->org);
	}
	qsort(p->kp_want, n, sizeof(*p->kp_want), by_u64);
	p->nwant = 0;
	for (uint32_t j = 0; j < n; j++)
		if (!p->nwant || p->kp_want[p->nwant - 1] != p->kp_want[j])
			p->kp_want[p->nwant++] = p->kp_want[j];
	/* each path's sidetrack by its place among the wanted merges */
	for (uint32_t j = 1; j < np; j++) {
		uint64_t m = p->kside[p->kp_pw[j]].m;
		uint32_t lo = 0, hi = p->nwant;

		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (p->kp_want[mid] <= m)
				lo = mid;
			else
				hi = mid;
		}
		p->kp_pw[j] = lo;
	}
	/* the heaps have given what they hold: the capture needs none */
	free(p->kn);
	free(p->kside);
	p->kn = NULL;
	p->kside = NULL;
	p->nkn = p->cap_kn = p->nkside = p->cap_kside = 0;
	p->kp_capture = true;
	p->kp_nmerge = 0;
	p->kp_wi = 0;
	return 0;
}

void cp_stream_kp_again(struct sp *p)
{
	struct cp_stream *s = p->s;

	/* the nodes' and sidetracks' arrays stay, for the next pass to
	 * write over (kp_most) */
	free(p->kp_pw);
	free(s->paths);
	p->kp_pw = NULL;
	s->paths = NULL;
	p->nkn = p->nkside = 0;
	s->npaths = 0;
	s->paths_cut = false;
	p->kp_strict = false;
	p->kp_nmerge = 0;
	memset(p->kp_hist, 0, sizeof(p->kp_hist));
}

void cp_stream_kp_free(struct sp *p)
{
	free(p->rhp);
	free(p->rend);
	free(p->kn);
	free(p->kside);
	free(p->kp_want);
	free(p->kp_ds);
	free(p->kp_pw);
}
