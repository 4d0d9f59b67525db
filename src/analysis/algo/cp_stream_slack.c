/*
 * cp_stream_slack.c - Slack out of core: the records pass (cp_stream.c)
 * writes what each vertex's edges are to a scratch file (cp_spill.h),
 * and a walk of that file from its end computes the followed procedures'
 * Slack, equal to cp_slack.c's.
 *
 * Why backwards.  cp_slack.c walks the graph in topological order and
 * needs at every edge the latest time of its head, which only a backward
 * pass gives; the streaming pass only goes forward.  But Slack is the
 * optimum of a linear program over the critical path C's edges (cp_slack.c
 * states it: reduce the procedure's edges of C, at most by their weights,
 * while every segment, an off-C route between two C vertices, keeps its
 * slack), and that program is the same for the reversed graph G^R, whose
 * paths are G's read backwards, with C^R as its critical path.  So the
 * walk runs on G^R, in the reverse of the pass's order (a topological
 * order of G^R), and what it needs of G^R is forward information of G:
 *  - the latest time of a vertex u in G^R is L - et(u), L the critical
 *    path's length and et(u) the longest path into u, the pass's len;
 *  - C^R starts at the sink's winner and follows, vertex by vertex, the
 *    in-edge each vertex took its len from (the pass's tree, whose
 *    shares are the CP times);
 *  - a vertex's edges, their weights and the followed procedures' share
 *    of each thread segment, all known when the pass processes it.
 * The walk itself is cp_slack.c's, lane by lane for the procedures given
 * Slack (cpt report --top's, as in memory) with CP time: A(x), the
 * longest path in G^R into x from C's vertices at their reduced times
 * (C vertex c: L - et(c) - d(c)), flows from x to the tail u of each of
 * its G in-edges (u -> x of weight w), which is pushed as a segment edge
 * of value L - et(u) - w - A(x), alive until the walk reaches u; at a C
 * vertex whose C^R in-edge holds the procedure's time, d = min(d + its
 * share, least value alive).  A lane is done when it has passed all its
 * CP time (d cannot change after, as in cp_slack.c), and the walk when
 * every lane is: it reads the file only back to the earliest of the
 * lanes' CP time.
 *
 * The virtual start and end.  A path of G that ends at a leaf other than
 * C's goes to a virtual end: in G^R, the walk starts every thread's last
 * vertex at A = 0 with a segment of value L - et alive until it.  Doing
 * so for a last vertex that is not a leaf adds only constraints the
 * longer paths through it already impose.  A root of G (a thread's first
 * vertex with no in-edge) gets a segment of value L - A that never
 * expires, as cp_slack.c's leaves do.
 *
 * The file (cp_stream_slfile.h) is the pass's graph, a record per vertex
 * in the pass's order: a publish record is its publisher's vertex, whose
 * consumers' A flows into the record's slot, and which takes the slot's
 * value when the walk reaches it; folded records and hubs are virtual
 * vertices of their own.
 *
 * Both cores: the lanes are split between two walks of the file, each
 * following C itself (cp_stream_sl_walk(), by their estimated cost:
 * deal()).  A walk that follows C alone finds each lane's shares of C's
 * edges ahead first (cp_stream_cshares.h), on the core of one walk while
 * the other starts; they bound which segments can count at all, and the
 * others are not pushed.
 *
 * The headline's procedure (sp.busy_k): the walk that has its lane also
 * writes, as it passes them, C's segments that hold its time on the wall
 * clock (a sampled segment's pieces placed in it as cp_sampled.c places
 * its stack switches) to a second scratch file, last first, which
 * cp_stream_busy.c reads back.
 *
 * Fetching ahead: when the slots' rows of A pass SCOUT_BYTES, a walk
 * reads the slots a record publishes some records before it walks it,
 * and starts fetching their rows (scout()).
 *
 * Memory: the shares ahead, 16 MB at most; per walk 28 bytes a thread
 * (its et, wall clock, mask and slot); per lane 40 bytes a thread slot
 * (its A and its segment in thread_seg()'s tree), 8 a record slot, and
 * the other segments alive that no other dominates (cp_stair.h).  A
 * thread takes a slot when the
 * walk first meets it (its last vertex, or the JOIN of it) and gives it
 * back at its first vertex, so the slots are about the threads alive at
 * once, not all of them: a program that makes a thread per task has
 * hundreds of thousands.
 */
#include "cp_stream_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp_debug.h"
#include "cp_die.h"
#include "cp_par.h"
#include "cp_prefetch.h"
#include "cp_spill.h"
#include "cp_stair.h"
#include "cp_stream_cshares.h"
#include "cp_stream_slfile.h"
#include "cp_varint.h"

/* Debug invariants: type-checked always, run when this is true. */
static const bool cp_stream_sl_debug = CP_DEBUG;

#define CP_SL_SLOTS 16	/* thread slots a walk starts with (grow_slots()) */

/* How many records ahead of the walk scout() looks, and the rows of A
 * (a slot's for each lane) past which it does: smaller, they stay in the
 * core's cache (water of 13,824 cells, 11 lanes: 1.2 MB; a cholesky, 0.7
 * MB; a lock-heavy trace of 17 slots). */
#define SCOUT_AHEAD 8
#define SCOUT_BYTES ((size_t)1 << 20)

/*
 * @n items of @size bytes, zeroed, on lines no other walk touches; NULL
 * when out of memory.  The two walks run at once on the two cores and
 * each writes its state at every record: its struct walk and its arrays,
 * most a few words long when the program has few threads, which one
 * malloc after another put side by side.  Both are kept CP_PAR_APART
 * from the other walk's (a walk took 0.8-2.0 s on a trace of 10^7
 * events, 0.8-1.3 s since).
 */
static void *walk_calloc(size_t n, size_t size)
{
	size_t b = n * size, r;
	void *a;

	if (size && n > (SIZE_MAX - CP_PAR_APART) / size)
		return NULL;
	r = (b + CP_PAR_APART - 1) / CP_PAR_APART * CP_PAR_APART;
	a = aligned_alloc(CP_PAR_APART, r ? r : CP_PAR_APART);
	if (a)
		memset(a, 0, r);
	return a;
}

/* *@a, @n items of @size bytes of which the first @old are kept, moved
 * to a walk_calloc() array.  0, or -1 (memory: *@a kept). */
static int walk_regrow(void *a, size_t old, size_t n, size_t size)
{
	void **pa = a, *b = walk_calloc(n, size);

	if (!b)
		return -1;
	memcpy(b, *pa, old * size);
	free(*pa);
	*pa = b;
	return 0;
}

/* The walk's state: per lane (a followed procedure with CP time) its d,
 * CP time not passed, live segments and the values A + 1 (0: no path
 * from C reaches the vertex) of each thread's next vertex and each slot. */
struct walk {
	_Alignas(CP_PAR_APART) struct sp *p;	/* (walk_calloc()) */
	uint64_t L, N;		/* CP length; vertices in the file */
	uint32_t nl, nslot;
	uint32_t k[CP_STREAM_TRACK];	/* a lane's tracked index */
	uint32_t lead[CP_STREAM_TRACK];	/* the lane it shares a walk with
					 * (itself: it leads the walk) */
	uint32_t nmemb;		/* lanes led by another, CP time left */
	uint64_t live;		/* leading lanes still walking */
	uint64_t d[CP_STREAM_TRACK], rem[CP_STREAM_TRACK];
	uint64_t cown[CP_STREAM_TRACK];	/* share of the C^R edge into the
					 * next C vertex */
	struct cp_stair seg[CP_STREAM_TRACK];
	struct cp_stream_cs *cs;	/* C's shares ahead (NULL: none) */
	struct cp_stream_cs *fill;	/* to find first (cp_stream_cs_fill()), or NULL */
	uint32_t col[CP_STREAM_TRACK];	/* a lane's column in cs */
	uint64_t solo;		/* lanes that lead no other (regroup()) */
	uint64_t *tv;		/* [nl x 2P] each open thread's pending
				 * thread edge's segment value, a min-tree
				 * per lane over the thread slots
				 * (thread_seg()) */
	uint32_t P;		/* thread slots: a power of two */
	uint32_t *tslot;	/* [nt] a thread's slot + 1; 0: not met
				 * yet (A = 0, its end's segment on the
				 * staircase); GONE: its first vertex was
				 * walked (A unreached) */
	uint32_t *sfree;	/* [P] slots given back, nsfree of them */
	uint32_t nsfree, nsused;	/* and slots ever taken */
	uint64_t ax[CP_STREAM_TRACK];	/* A + 1 of the vertex walked */
	uint64_t *ta, *ra;	/* [P x nl] a thread slot's, [nslot x nl] */
	uint64_t *tet, *tmask;	/* [nt] et and mask of the next vertex */
	uint64_t *twall;	/* [nt] and its wall clock */
	bool busy;		/* it has sp.busy_k's lane: C's segments of
				 * that procedure go to the second file */
	uint64_t ba, bb;	/* the segment not yet written, [ba, bb) */
	uint32_t btid;		/* of thread btid (UINT32_MAX: none) */
	int ptr;		/* where C goes on: a thread's next vertex */
	uint32_t ptr_id;	/* or a slot's record */
	uint64_t cf;		/* that vertex's position in the file */
	uint64_t now;		/* the walk's position: N - 1 - f */
	bool scout;		/* fetch slots' rows ahead (scout()) */
	uint8_t *buf;		/* the chunk read */
	size_t cap_buf;
	int ret;		/* walk_run()'s: 0, -1 (memory), -2 (a
				 * record the pass did not write), or an
				 * errno of the file's, negated, - 2 */
	uint64_t f;		/* the position of the next record back */
	bool progress;		/* report progress (the calling thread) */
	/* the timeline's critical path (p->tl, one walk's): C's useful
	 * segments go to it; tl_on until C's first vertex is walked */
	struct cp_timeline *tl;
	bool tl_on;
};

/* Has the walk more to do: a lane's CP time, or C for the timeline? */
static bool walking(const struct walk *w)
{
	return w->live || w->tl_on;
}

/* @a + @b, or UINT64_MAX past it. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The value L - @et - @wt - @a of a segment, 0 if that is negative
 * (cannot be, but a damaged trace must not wrap it). */
static uint64_t seg_val(uint64_t L, uint64_t et, uint64_t wt, uint64_t a)
{
	uint64_t s = sat_add(sat_add(et, wt), a);

	return s < L ? L - s : 0;
}

/* Push lane @l's segment of value @v alive until position @until
 * (UINT64_MAX: never expires), unless d can never reach it while it is
 * alive.  0, or -1 (memory). */
static int push(struct walk *w, uint32_t l, uint64_t v, uint64_t until)
{
	uint64_t room = w->rem[l];

	/* (C's shares ahead, struct cp_stream_cs: the lane's own while it leads
	 * no other, else C's edges whole) */
	if (w->cs && until != UINT64_MAX) {
		uint32_t c = w->solo >> l & 1 ? w->col[l] : w->cs->nc - 1;
		uint64_t ahead = cp_stream_cs_span(w->cs, c, w->now, until);

		if (ahead < room)
			room = ahead;
	}
	if (v >= sat_add(w->d[l], room))
		return 0;
	return cp_stair_push(&w->seg[l], v, until, w->now);
}

/*
 * A thread's segment edges come one after another: the edge u -> x from
 * its next vertex u to the vertex x just walked is alive from x until
 * the walk reaches u, where the edge into u takes its place.  So each
 * thread has at most one alive, and rather than pushing every one on the
 * staircase (half of its pushes on a lock-heavy trace), each lane keeps
 * the open threads' current ones in a min-tree over their slots; a query
 * at a C vertex takes the least of the tree's root and the staircase.  An
 * edge that is C's own, or that no path from C reaches, is no segment
 * (UINT64_MAX).  (A thread's first segment, its last vertex's edge to the
 * virtual end, goes on the staircase: thread_ends().)
 */
static void thread_seg(struct walk *w, uint32_t l, uint32_t slot, uint64_t v)
{
	uint64_t *tr = w->tv + (size_t)l * 2 * w->P;
	uint32_t i = w->P + slot;

	if (tr[i] == v)
		return;		/* (C's own thread: UINT64_MAX again) */
	tr[i] = v;
	for (i >>= 1; i; i >>= 1) {
		uint64_t m = tr[2 * i] < tr[2 * i + 1] ? tr[2 * i] :
							 tr[2 * i + 1];

		if (tr[i] == m)
			break;		/* nor any above it */
		tr[i] = m;
	}
}

/* The least of lane @l's open threads' segment values. */
static uint64_t thread_min(const struct walk *w, uint32_t l)
{
	return w->tv[(size_t)l * 2 * w->P + 1];
}

/* The in-edge of weight @wt from a vertex of et @et at @f, whose A + 1
 * lane values are at @dst: the walked vertex's A flows into them, and
 * the edge, unless it is C's own (@onc), is a segment.  A segment is
 * queried only at C's vertices, so one that dies before the next is not
 * pushed.  0, or -1. */
static int edge(struct walk *w, uint64_t *dst, uint64_t wt, uint64_t et,
		uint64_t f, bool onc)
{
	bool seg = !onc && f <= w->cf;
	uint64_t until = w->N - 1 - f;

	for (uint64_t m = w->live; m; m &= m - 1) {
		uint32_t l = (uint32_t)__builtin_ctzll(m);
		uint64_t a = w->ax[l], aw = sat_add(a, wt);

		if (!a)
			continue;
		if (aw > dst[l])
			dst[l] = aw;
		if (seg && push(w, l, seg_val(w->L, et, wt, a - 1), until))
			return -1;
	}
	return 0;
}

/* The thread edge of weight @wt from the vertex of et @et of the thread
 * in @slot into the vertex walked: its A flows into the thread's next
 * vertex (@dst), and the edge, unless it is C's own (@onc), is the
 * thread's segment. */
static void thread_edge(struct walk *w, uint64_t *dst, uint32_t slot,
			uint64_t wt, uint64_t et, bool onc)
{
	for (uint64_t m = w->live; m; m &= m - 1) {
		uint32_t l = (uint32_t)__builtin_ctzll(m);
		uint64_t a = w->ax[l], aw = sat_add(a, wt);

		if (a && aw > dst[l])
			dst[l] = aw;
		thread_seg(w, l, slot, !a || onc ? UINT64_MAX :
				       seg_val(w->L, et, wt, a - 1));
	}
}

#define GONE UINT32_MAX

/* Twice the thread slots: the trees rebuilt over them, the rows of A
 * kept.  0, or -1 (memory). */
static int grow_slots(struct walk *w)
{
	uint32_t P = w->P, P2 = 2 * P, nl = w->nl;
	uint64_t *tv;

	if (P >= (1u << 30))
		return -1;
	if (walk_regrow(&w->ta, (size_t)P * nl + 1, (size_t)P2 * nl + 1,
			sizeof(*w->ta)) ||
	    walk_regrow(&w->sfree, P, P2, sizeof(*w->sfree)))
		return -1;
	tv = walk_calloc((size_t)nl * 2 * P2 + 1, sizeof(*tv));
	if (!tv)
		return -1;
	for (uint32_t l = 0; l < nl; l++) {
		const uint64_t *o = w->tv + (size_t)l * 2 * P;
		uint64_t *n = tv + (size_t)l * 2 * P2;

		memcpy(n + P2, o + P, P * sizeof(*n));
		memset(n + P2 + P, 0xff, P * sizeof(*n));
		for (uint32_t i = P2 - 1; i; i--)
			n[i] = n[2 * i] < n[2 * i + 1] ? n[2 * i] :
							 n[2 * i + 1];
	}
	free(w->tv);
	w->tv = tv;
	w->P = P2;
	return 0;
}

/* Thread @tid's slot, taken when the walk first meets it with A + 1 = 1
 * in every lane (A = 0: the virtual end follows every thread's last
 * vertex), or 0 once its first vertex was walked (only a file the pass
 * did not write meets it again).  NONE: no memory. */
static uint32_t thread_slot(struct walk *w, uint32_t tid)
{
	uint32_t t = w->tslot[tid], s;

	if (t && t != GONE)
		return t - 1;
	if (w->nsfree)
		s = w->sfree[--w->nsfree];
	else if (w->nsused < w->P || !grow_slots(w))
		s = w->nsused++;
	else
		return NONE;
	for (uint32_t l = 0; l < w->nl; l++)
		w->ta[(size_t)s * w->nl + l] = t == GONE ? 0 : 1;
	w->tslot[tid] = s + 1;
	return s;
}

/* Thread @tid's first vertex was walked: its slot, whose segment the
 * caller ended, goes back. */
static void thread_gone(struct walk *w, uint32_t tid, uint32_t slot)
{
	w->tslot[tid] = GONE;
	w->sfree[w->nsfree++] = slot;
}

/* Which leading lanes lead no other (w->solo), after the groups
 * changed: push() bounds their segments by their own shares ahead. */
static void regroup(struct walk *w)
{
	uint64_t leads = 0;

	for (uint32_t m = 0; m < w->nl; m++)
		if (w->lead[m] != m)
			leads |= (uint64_t)1 << w->lead[m];
	w->solo = ~leads;
}

/*
 * The lanes of a walk share one walk, their leader's, for as long as they
 * hold the same share of every C edge walked: their d, A and segments
 * are then the same, but for the segments push() leaves out, which the
 * leader, the lane of the most CP time (walk_init()), leaves out for
 * the fewest.  Where their shares of the C edge into the next C vertex
 * differ, the lanes that differ from the leader part, those of the same
 * share together (the first, of the most CP time, leading), each new
 * group with a copy of the leader's state.  On traces of sampled
 * programs, chains of single callers make many lanes of the same CP time
 * (zstd: 39 procedures with CP time, 13 distinct), and the procedures
 * of a serial start have no share of C's edges after it (a cholesky: 10
 * of the 20 given Slack), so the walk back to it goes with one lane for
 * them all.  0, or -1 (memory).
 */
static int split(struct walk *w)
{
	uint32_t nl = w->nl, from[CP_STREAM_TRACK];
	bool parted = false;

	for (uint32_t m = 0; m < nl; m++) {
		uint32_t l = w->lead[m], h;

		from[m] = l;
		if (l == m || w->cown[m] == w->cown[l] ||
		    !(w->live >> l & 1))
			continue;
		for (h = l + 1; h < m; h++)	/* a group parted just now */
			if (w->lead[h] == h && from[h] == l &&
			    w->cown[h] == w->cown[m])
				break;
		parted = true;
		if (h < m) {
			w->lead[m] = h;
			continue;
		}
		w->lead[m] = m;
		w->nmemb--;
		w->d[m] = w->d[l];
		w->ax[m] = w->ax[l];
		if (cp_stair_copy(&w->seg[m], &w->seg[l]))
			return -1;
		memcpy(w->tv + (size_t)m * 2 * w->P,
		       w->tv + (size_t)l * 2 * w->P,
		       2 * (size_t)w->P * sizeof(*w->tv));
		for (uint32_t t = 0; t < w->nsused; t++)
			w->ta[(size_t)t * nl + m] = w->ta[(size_t)t * nl + l];
		for (uint32_t r = 0; r < w->nslot; r++)
			w->ra[(size_t)r * nl + m] = w->ra[(size_t)r * nl + l];
		w->live |= (uint64_t)1 << m;
	}
	if (parted)
		regroup(w);
	return 0;
}

/* The walked vertex (et @et) is on C: d where the C^R edge into it holds
 * a lane's time, its A from d, and the lanes that passed all their CP
 * time stop (a lane led by another with its d then).  0, or -1
 * (memory). */
static int on_c(struct walk *w, uint64_t et)
{
	if (w->nl > 1 && split(w))
		return -1;
	for (uint64_t m = w->live; m; m &= m - 1) {
		uint32_t l = (uint32_t)__builtin_ctzll(m);

		if (w->cown[l]) {
			uint64_t q = cp_stair_min(&w->seg[l], w->now);
			uint64_t nd = sat_add(w->d[l], w->cown[l]);

			if (thread_min(w, l) < q)
				q = thread_min(w, l);

			w->d[l] = nd < q ? nd : q;
			/* the shares of C's edges add up to the CP time
			 * (the same tree); cp_stream_sl_walk() checks that
			 * every lane ran out of it */
			w->rem[l] -= w->cown[l] < w->rem[l] ? w->cown[l] :
							      w->rem[l];
			if (!w->rem[l]) {
				w->live &= ~((uint64_t)1 << l);
				continue;
			}
		}
		w->ax[l] = seg_val(w->L, et, 0, w->d[l]) + 1;
	}
	for (uint32_t m = 0; w->nmemb && m < w->nl; m++) {
		uint32_t l = w->lead[m];

		if (l == m || !w->cown[m])
			continue;
		/* its share is its leader's (split()), its CP time no more */
		w->rem[m] -= w->cown[m] < w->rem[m] ? w->cown[m] : w->rem[m];
		if (!w->rem[m]) {
			w->lead[m] = m;
			w->d[m] = w->d[l];
			w->nmemb--;
			regroup(w);
		}
	}
	return 0;
}

/* Write the segment [w->ba, w->bb) of thread w->btid to the second file
 * (cp_stream_busy.c reads it), as three words.  When the file fails, the
 * walk stops writing it (sl->iv.err, or ENOMEM). */
static void busy_write(struct walk *w)
{
	struct cp_spill *iv = &w->p->sl->iv;
	uint8_t *q = NULL;

	if (w->btid == UINT32_MAX)
		return;
	if (iv->fd >= 0 || !cp_spill_open(iv))
		q = cp_spill_room(iv, 24);
	if (!q) {
		iv->err = iv->err ? iv->err : errno ? errno : ENOMEM;
		w->busy = false;
		return;
	}
	memcpy(q, &(uint64_t){ w->btid }, 8);
	memcpy(q + 8, &w->ba, 8);
	memcpy(q + 16, &w->bb, 8);
	cp_spill_done(iv, q + 24);
	w->btid = UINT32_MAX;
}

/*
 * (w->busy) C's segment [@a, @b) of thread @tid on the wall clock holds
 * the headline's procedure's time.  One that touches the segment not yet
 * written, on the same thread, joins it (the walk meets a thread's run of
 * C segments last first, a segment's pieces first first); an empty one
 * says nothing (its useful time took no wall time).
 */
static void busy_seg(struct walk *w, uint32_t tid, uint64_t a, uint64_t b)
{
	if (b <= a)
		return;
	if (tid == w->btid && b == w->ba) {
		w->ba = a;
		return;
	}
	if (tid == w->btid && a == w->bb) {
		w->bb = b;
		return;
	}
	busy_write(w);
	if (!w->busy)
		return;
	w->btid = tid;
	w->ba = a;
	w->bb = b;
}

/* The lanes' shares of a segment of @dt under @mask into @c (added). */
static void shares(const struct walk *w, uint64_t *c, uint64_t mask,
		   uint64_t dt)
{
	for (uint32_t l = 0; l < w->nl; l++)
		if (mask >> w->k[l] & 1)
			c[l] += dt;
}

/* C goes on along thread @tid's edge into the vertex walked, from its
 * vertex at @f, on the wall clock from @wa to @wb: the lanes' shares of
 * it, of @wt under the thread's mask, or the @npc pieces at @pc (the
 * record ends at @e); the headline's procedure's segments (w->busy).
 * 0, or -2 (a piece the pass did not write). */
static int along_thread(struct walk *w, uint32_t tid, uint64_t f,
			uint64_t wt, uint64_t wa, uint64_t wb,
			const uint8_t *pc, uint64_t npc, const uint8_t *e)
{
	uint32_t bk = w->p->busy_k;
	uint64_t mk, dt, o = 0;

	w->ptr = PTR_THREAD;
	w->ptr_id = tid;
	w->cf = f;
	if (!pc) {
		shares(w, w->cown, w->tmask[tid], wt);
		if (w->busy && wt && w->tmask[tid] >> bk & 1)
			busy_seg(w, tid, wa, wb);
		if (w->tl && wt)
			cp_timeline_cp(w->tl, tid, wa, wb);
		return 0;
	}
	for (uint64_t i = 0; i < npc; i++, o += dt) {
		uint64_t a, b;

		if (cp_uv_get(&pc, e, &mk) || cp_uv_get(&pc, e, &dt))
			return -2;
		shares(w, w->cown, mk, dt);
		if (!dt)
			continue;
		a = cp_stream_wall_in(wa, wb, wt, o);
		b = cp_stream_wall_in(wa, wb, wt, o + dt);
		if (w->busy && mk >> bk & 1)
			busy_seg(w, tid, a, b);
		if (w->tl)	/* a piece: an edge of its own in memory */
			cp_timeline_cp(w->tl, tid, a, b);
	}
	return 0;
}

#define GET(v)	do { if (cp_uv_get(&q, e, &(v))) return -2; } while (0)

/*
 * The @nin inputs at [@q, @e) of the record walked (at @f, of et @et):
 * the walked vertex's A flows into each one's thread or slot, and C goes
 * on along input @cwin (from 1; 0: C does not).  0, -1 (memory) or -2 (a
 * record the pass did not write).
 */
static int walk_inputs(struct walk *w, const uint8_t *q, const uint8_t *e,
		       uint64_t f, uint64_t et, uint64_t nin, uint64_t cwin)
{
	uint32_t nl = w->nl;

	for (uint64_t j = 0; j < nin; j++) {
		uint64_t id, egap, dpos, *dst;

		GET(id);
		GET(egap);
		GET(dpos);
		if (egap > et || dpos > f)
			return -2;
		if (id & 1) {
			uint32_t s;

			if (id >> 1 >= w->p->nt)
				return -2;
			s = thread_slot(w, (uint32_t)(id >> 1));
			if (s == NONE)
				return -1;
			dst = w->ta + (size_t)s * nl;
		} else {
			if (id >> 1 >= w->nslot)
				return -2;
			dst = w->ra + (size_t)(id >> 1) * nl;
		}
		if (cwin == j + 1) {
			w->ptr = id & 1 ? PTR_THREAD : PTR_SLOT;
			w->ptr_id = (uint32_t)(id >> 1);
			w->cf = f - dpos;
		}
		if (edge(w, dst, 0, et - egap, f - dpos, cwin == j + 1))
			return -1;
	}
	return q == e ? 0 : -2;
}

/* Walk one record [q, e) at file position @f.  0, -1 (memory) or -2
 * (a record the pass did not write). */
static int walk_one(struct walk *w, const uint8_t *q, const uint8_t *e,
		    uint64_t f)
{
	struct sp *p = w->p;
	uint32_t nl = w->nl, tid = 0, ts = 0;
	uint64_t x, et, *ta = NULL, wx = 0;
	struct cp_stream_slf_rec h;
	int r;
	bool c;

	if (cp_stream_slf_head(q, e, &h))
		return -2;
	if (h.flags & F_VIRT) {
		if (h.id >= w->nslot)
			return -2;
		et = h.et;
		memcpy(w->ax, w->ra + h.id * nl, nl * sizeof(*w->ax));
		memset(w->ra + h.id * nl, 0, nl * sizeof(*w->ra));
		c = w->ptr == PTR_SLOT && w->ptr_id == h.id;
	} else {
		if (h.id >= p->nt)
			return -2;
		tid = (uint32_t)h.id;
		ts = thread_slot(w, tid);
		if (ts == NONE)
			return -1;
		ta = w->ta + (size_t)ts * nl;
		et = w->tet[tid];
		wx = w->twall[tid];
		if (h.wd > wx)
			return -2;
		memcpy(w->ax, ta, nl * sizeof(*w->ax));
		c = w->ptr == PTR_THREAD && w->ptr_id == tid;
		for (uint64_t n = h.npub; n; n--) {
			uint64_t *ra;

			if (cp_uv_get(&h.pub, e, &x) || x >= w->nslot)
				return -2;
			ra = w->ra + (size_t)x * nl;
			for (uint32_t l = 0; l < nl; l++)
				if (ra[l] > w->ax[l])
					w->ax[l] = ra[l];
			memset(ra, 0, nl * sizeof(*ra));
			c |= w->ptr == PTR_SLOT && w->ptr_id == x;
		}
	}
	/* C's vertices are where cs_record() finds them */
	if (cp_stream_sl_debug && c && f != w->cf)
		cp_die("stream: C's vertex is not where its edge says");
	if (c) {
		if (on_c(w, et))
			return -1;
		for (uint32_t l = 0; l < nl; l++)
			w->cown[l] = 0;
		w->ptr = PTR_NONE;
		if (!h.win && !(h.flags & (F_VIRT | F_FIRST)) &&
		    (r = along_thread(w, tid, f - h.dprev, h.wt, wx - h.wd, wx,
				      h.pc, h.npc, e)))
			return r;
	}
	if (!(h.flags & F_VIRT)) {
		if (h.flags & F_FIRST) {
			memset(ta, 0, nl * sizeof(*ta));
			for (uint64_t m = w->live; m; m &= m - 1) {
				uint32_t l = (uint32_t)__builtin_ctzll(m);

				/* the thread has no edge before it */
				thread_seg(w, l, ts, UINT64_MAX);
				/* a root: its paths end at the virtual end */
				if (!h.nin && w->ax[l] &&
				    push(w, l, seg_val(w->L, 0, 0, w->ax[l] - 1),
					 UINT64_MAX))
					return -1;
			}
			thread_gone(w, tid, ts);
		} else {
			if (sat_add(h.gap, h.wt) > et || h.dprev > f)
				return -2;
			memset(ta, 0, nl * sizeof(*ta));
			thread_edge(w, ta, ts, h.wt, et - h.gap - h.wt,
				    c && !h.win);
			w->tet[tid] = et - h.gap - h.wt;
			w->twall[tid] = wx - h.wd;
		}
		if (h.flags & F_PIECES)
			w->tmask[tid] = h.mask0;
	}
	r = walk_inputs(w, h.in, e, f, et, h.nin, c ? h.win : 0);
	if (c && w->ptr == PTR_NONE)	/* C's first vertex */
		w->tl_on = false;
	return r;
}

#undef GET

/* By the position of a thread's last vertex, last first. */
static int by_lastf(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? 1 : x[0] > y[0] ? -1 : 0;
}

/* The last vertices of the threads that ran but C's (@cpt), last first:
 * [i][0] a vertex's position, [i][1] its thread, into *@ends (free() it)
 * and *@n, for both walks (thread_ends()).  0, or -1 (memory). */
static int last_vertices(const struct sp *p, uint32_t cpt,
			 uint64_t (**ends)[2], uint32_t *n)
{
	uint64_t (*end)[2] = malloc((p->nt + 1) * sizeof(*end));

	*ends = end;
	*n = 0;
	if (!end)
		return -1;
	for (uint32_t tid = 0; tid < p->nt; tid++)
		if (p->th[tid].any && tid != cpt) {
			end[*n][0] = p->sl->lastf[tid];
			end[(*n)++][1] = tid;
		}
	qsort(end, *n, sizeof(*end), by_lastf);
	return 0;
}

/* Every thread's last vertex but C's, the @n of @end (last_vertices()),
 * has an edge to the virtual end, a segment alive until the walk reaches
 * that vertex: on the staircase of each leading lane, pushed in the order
 * they expire.  0, or -1 (memory). */
static int thread_ends(struct walk *w, const uint64_t (*end)[2], uint32_t n)
{
	struct cp_stream_sl *sl = w->p->sl;
	int ret = 0;

	for (uint64_t m = w->live; m && !ret; m &= m - 1) {
		uint32_t l = (uint32_t)__builtin_ctzll(m);

		for (uint32_t i = 0; i < n && !ret; i++)
			ret = push(w, l, seg_val(w->L, sl->endet[end[i][1]], 0,
						 0),
				   w->N - 1 - end[i][0]);
	}
	return ret;
}

/* Set up the walk of the @nl lanes @k (tracked indices) from the pass's
 * end: their CP time, the threads' last vertices (A = 0, a segment of the
 * virtual start each; the @nend of @end, last_vertices()), C's end.  0,
 * or -1 (memory). */
static int walk_init(struct walk *w, struct sp *p, const uint32_t *k,
		     uint32_t nl, const uint64_t (*end)[2], uint32_t nend,
		     struct cp_stream_cs *cs, uint32_t col0)
{
	struct cp_stream_sl *sl = p->sl;
	uint64_t L;
	uint32_t cpt = cp_stream_cp_end(p, &L);

	w->p = p;
	w->N = sl->nsteps;
	w->f = w->N - 1;
	w->nslot = p->nrec;
	w->L = L;
	/* the lanes by CP time, the most first, all led by the first
	 * (split()) */
	for (uint32_t l = 0; l < nl; l++) {
		uint64_t cp = p->th[cpt].vec[k[l]];
		uint32_t at = l;

		for (; at > 0 && w->rem[at - 1] < cp; at--) {
			w->k[at] = w->k[at - 1];
			w->rem[at] = w->rem[at - 1];
			w->col[at] = w->col[at - 1];
		}
		w->k[at] = k[l];
		w->rem[at] = cp;
		w->col[at] = col0 + l;
		w->lead[l] = 0;
	}
	w->live = nl ? 1 : 0;
	w->nmemb = nl ? nl - 1 : 0;
	w->nl = nl;
	w->cs = cs;
	w->scout = (size_t)w->nslot * nl * sizeof(*w->ra) > SCOUT_BYTES;
	regroup(w);
	/* the timeline follows C even with no lane */
	w->tl_on = w->tl && cpt != NONE;
	if (!w->nl && !w->tl_on)
		return 0;
	for (w->P = 1; w->P < p->nt && w->P < CP_SL_SLOTS; w->P *= 2)
		;
	w->tv = walk_calloc((size_t)w->nl * 2 * w->P + 1, sizeof(*w->tv));
	if (!w->tv)
		return -1;
	memset(w->tv, 0xff, (size_t)w->nl * 2 * w->P * sizeof(*w->tv));
	w->ta = walk_calloc((size_t)w->P * w->nl + 1, sizeof(*w->ta));
	w->sfree = walk_calloc(w->P, sizeof(*w->sfree));
	w->tslot = walk_calloc(p->nt ? p->nt : 1, sizeof(*w->tslot));
	w->ra = walk_calloc((size_t)(w->nslot ? w->nslot : 1) * w->nl + 1,
			    sizeof(*w->ra));
	w->tet = walk_calloc(p->nt, sizeof(*w->tet));
	w->tmask = walk_calloc(p->nt, sizeof(*w->tmask));
	w->twall = walk_calloc(p->nt, sizeof(*w->twall));
	if (!w->ta || !w->sfree || !w->tslot || !w->ra || !w->tet ||
	    !w->tmask || !w->twall)
		return -1;
	w->ptr = PTR_THREAD;
	w->ptr_id = cpt;
	w->cf = sl->lastf[cpt];
	/* a thread that did not run has zeros there, as here */
	memcpy(w->tet, sl->endet, p->nt * sizeof(*w->tet));
	memcpy(w->tmask, sl->endmask, p->nt * sizeof(*w->tmask));
	memcpy(w->twall, sl->endwall, p->nt * sizeof(*w->twall));
	return thread_ends(w, end, nend);
}

static void walk_free(struct walk *w)
{
	free(w->tv);
	free(w->ta);
	free(w->tslot);
	free(w->sfree);
	free(w->ra);
	free(w->tet);
	free(w->tmask);
	free(w->twall);
	free(w->buf);
	for (uint32_t l = 0; l < CP_STREAM_TRACK; l++)
		cp_stair_free(&w->seg[l]);
}

/* Start fetching slot @slot's row of A, if the walk has it. */
static void fetch_row(const struct walk *w, uint64_t slot)
{
	const char *r;

	if (slot >= w->nslot)
		return;
	r = (const char *)(w->ra + (size_t)slot * w->nl);
	for (size_t o = 0; o < w->nl * sizeof(*w->ra); o += 64)
		cp_prefetch_write(r + o);
}

/*
 * The record [@q, @e), some records ahead of the walk: start fetching the
 * rows of A it reads when the walk reaches it, its slot's (a virtual
 * vertex) or those of the slots it publishes, which the walk last wrote
 * when it met their consumers, often thousands of records before (water,
 * a lock per cell: a sixth of the CPU of a streamed report waited for
 * them).  Unchecked: walk_one() checks the record.
 */
static void scout(const struct walk *w, const uint8_t *q, const uint8_t *e)
{
	struct cp_stream_slf_rec h;
	uint64_t x;

	if (cp_stream_slf_start(q, e, &h, &q))
		return;
	if (h.flags & F_VIRT) {
		fetch_row(w, h.id);
		return;
	}
	while (h.npub-- && !cp_uv_get(&h.pub, e, &x))
		fetch_row(w, x);
}

/* The record before the one ending at *@se, if the chunk from @b holds
 * one: scouted, and *@se moved to its start. */
static void scout_next(const struct walk *w, const uint8_t *b,
		       const uint8_t **se)
{
	uint64_t l;
	const uint8_t *be = *se > b ? cp_stream_slf_len(b, *se, &l) : NULL;

	if (!be || l > (uint64_t)(be - b)) {
		*se = b;
		return;
	}
	scout(w, be - l, be);
	*se = be - l;
}

/* The @nrec records of the chunk of @len bytes in w->buf, walked last
 * first; *@f: the position of its last, counted down.  0, -1 or -2 as
 * walk_one(). */
static int walk_chunk(struct walk *w, uint32_t len, uint32_t nrec,
		      uint64_t *f)
{
	const uint8_t *b = w->buf, *e = b + len, *se = e;
	uint32_t n = 0;

	if (*f + 1 < nrec)
		return -2;
	for (int i = 0; w->scout && i < SCOUT_AHEAD; i++)
		scout_next(w, b, &se);
	while (e > b && walking(w)) {
		uint64_t l;
		const uint8_t *be = cp_stream_slf_len(b, e, &l);
		int ret;

		if (!be || l > (uint64_t)(be - b) || ++n > nrec)
			return -2;
		if (w->scout)
			scout_next(w, b, &se);
		w->now = w->N - 1 - *f;
		ret = walk_one(w, be - l, be, *f);
		if (ret)
			return ret;
		e = be - l;
		(*f)--;
	}
	return !walking(w) || n == nrec ? 0 : -2;
}

/* Walk the file back until the lanes are done; the result in w->ret. */
static void walk_run(void *arg)
{
	struct walk *w = arg;
	struct sp *p = w->p;
	const struct cp_spill *sp = &p->sl->sp;

	if (w->fill)
		cp_stream_cs_fill(w->fill);

	for (uint32_t i = sp->nchunk; i-- > 0 && walking(w) && !w->ret;) {
		if (cp_spill_read(sp, i, &w->buf, &w->cap_buf)) {
			w->ret = -2 - errno;
			return;
		}
		w->ret = walk_chunk(w, sp->chunk[i].len, sp->chunk[i].nrec,
				    &w->f);
		if (w->progress && p->progress)
			p->progress(p->progress_ctx, "Slack",
				    ((double)(sp->nchunk - i) / sp->nchunk +
				     p->pass) / p->npass);
	}
	if (w->busy)
		busy_write(w);
}

/* Whether the walk follows tracked index @k. */
static bool lane_on(const struct sp *p, uint32_t k)
{
	return p->sl_lanes >> k & 1;
}

/*
 * Deal the lanes (the procedures given Slack, sp.sl_lanes, with CP time
 * on C, which ends at thread @cpt, @L long) to the two walks: into @k[h],
 * @n[h] of them, and @w[h].busy for sp.busy_k's.  The lanes of one CP
 * time go together (they share their work: split()).  A group is taken
 * to cost its walk a fixed part plus a part that grows with its CP time
 * (the segments it keeps: on the lock trace its pushes went as its share
 * of C, on water less so), L + 2 * its CP time; walk 0 starts with 3L/2
 * for the walk of C alone it does first; the dearest group first, each
 * goes to the walk with the less.  Against dealing them in turn, the
 * slower walk took 8-13 % less time on water and the lock trace.
 */
static void deal(struct sp *p, uint32_t cpt, uint64_t L,
		 uint32_t (*k)[CP_STREAM_TRACK], uint32_t *n, struct walk *w)
{
	const uint64_t *cp = p->th[cpt].vec;
	uint32_t g[CP_STREAM_TRACK], ng = 0;
	double load[2] = { 1.5 * (double)L, 0 };

	/* the groups by their first lane, dearest first (insertion: a few
	 * dozen at most) */
	for (uint32_t i = 0; i < p->ntr; i++) {
		bool seen = false;
		uint32_t at;

		for (uint32_t j = 0; j < i && !seen; j++)
			seen = lane_on(p, j) && cp[j] == cp[i];
		if (!cp[i] || seen || !lane_on(p, i))
			continue;
		for (at = ng++; at > 0 && cp[g[at - 1]] < cp[i]; at--)
			g[at] = g[at - 1];
		g[at] = i;
	}
	for (uint32_t x = 0; x < ng; x++) {
		uint32_t i = g[x], h = load[0] <= load[1] ? 0 : 1;

		load[h] += (double)L + 2.0 * (double)cp[i];
		for (uint32_t j = i; j < p->ntr; j++)
			if (lane_on(p, j) && cp[j] == cp[i]) {
				w[h].busy |= j == p->busy_k;
				k[h][n[h]++] = j;
			}
	}
}

/*
 * The lanes are the procedures given Slack with CP time, split between two
 * walks of the file on both cores (cp_par_two; each reads the file and
 * follows C itself, and walks as far back as its own lanes need); the
 * lanes of one CP time go to the same walk, whose lanes share their work
 * while they can (split()).
 */
int cp_stream_sl_walk(struct sp *p)
{
	struct cp_stream_sl *sl = p->sl;
	struct walk w[2] = { { .btid = UINT32_MAX }, { .btid = UINT32_MAX } };
	uint32_t k[2][CP_STREAM_TRACK], n[2] = { 0, 0 };
	uint32_t cpt, nend;
	uint64_t (*end)[2] = NULL;
	struct cp_stream_cs *cs = NULL;
	uint64_t L;
	int ret = 0;

	if (cp_spill_flush(&sl->sp)) {
		p->s->slack_err = sl->sp.err;
		return 0;
	}
	cpt = cp_stream_cp_end(p, &L);
	if (cpt != NONE && p->s->slack_asked)
		deal(p, cpt, L, k, n, w);
	w[0].tl = p->tl;
	cs = cp_stream_cs_new(p, k, n);
	if (last_vertices(p, cpt, &end, &nend) ||
	    walk_init(&w[0], p, k[0], n[0], end, nend, cs, 0) ||
	    walk_init(&w[1], p, k[1], n[1], end, nend, cs, n[0])) {
		ret = -1;
		goto out;
	}
	free(end);
	end = NULL;
	w[0].progress = true;	/* on the calling thread: cp_par_two's
				 * second job */
	w[0].fill = cs;		/* which starts by finding C's shares */
	cp_par_two(n[1] ? (size_t)sl->nsteps : 0, walk_run, &w[1], walk_run,
		   &w[0]);
	for (int h = 0; h < 2; h++) {
		if (w[h].ret == -1) {
			ret = -1;
			goto out;
		}
		if (w[h].ret < -2) {	/* the file failed */
			p->s->slack_err = -2 - w[h].ret;
			goto out;
		}
		/* a record the pass did not write, or a lane's CP time
		 * not all found: the two sides of the file disagree */
		if (w[h].ret == -2 || w[h].live || w[h].nmemb ||
		    w[h].tl_on)
			cp_die("stream: the Slack walk lost the critical path");
	}
	if (p->tl)
		p->tl->has_cp = true;
	for (int h = 0; h < 2; h++) {
		uint64_t walked = w[h].N - 1 - w[h].f;

		for (uint32_t l = 0; l < w[h].nl; l++)
			p->slk[w[h].k[l]] = w[h].d[w[h].lead[l]];
		if (walked > p->s->slack_walked)
			p->s->slack_walked = walked;
	}
	p->s->slack_bytes = sl->sp.off;
	p->has_slack = p->s->slack_asked;
out:
	free(end);
	cp_stream_cs_free(cs);
	walk_free(&w[0]);
	walk_free(&w[1]);
	return ret;
}
