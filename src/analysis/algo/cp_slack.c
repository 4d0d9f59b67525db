/*
 * cp_slack.c - the Slack metric (Hollingsworth & Miller, "Slack: A New
 * Performance Metric for Parallel Programs", 1994: [HollingsworthMiller94]).
 *
 * Our reading of the paper.  Critical path time is an upper bound on what
 * tuning a procedure can buy: shorten it and another, slightly shorter path
 * may become critical.  Slack is the matching lower bound: how much of the
 * procedure's time on the critical path can be removed while that path
 * stays critical, i.e. while the run shortens by exactly as much.  The paper
 * computes it in three phases:
 *  1. the critical path C (here: cp_cpm_run's choice);
 *  2. a forward pass that finds the slack segments: an off-C path that
 *     leaves C at a split node s and rejoins it at a merge node m, with
 *     potential slack = (length of C from s to m) - (length of the off path);
 *  3. a walk along C from its start with, per procedure, a table of active
 *     segments: entering a split activates the segment with its potential
 *     slack, leaving its merge retires it; at each call of the procedure on
 *     C the procedure's Slack grows by the least remaining slack of its
 *     active segments (we also cap it by the call's duration: a call cannot
 *     shrink below zero), and that amount is taken from each of them.
 * A path that starts off C at another root splits from a virtual start, one
 * that ends at another leaf merges into a virtual end.
 *
 * Phase 3 is the greedy solution of a small linear program.  Let x_p be the
 * reduction of the p-th edge of C (only the procedure's edges, at most
 * their weight) and X(p) = x_0 + .. + x_{p-1}.  C stays critical iff every
 * path P keeps len'(P) <= L - X(n), i.e. x(C \ P) <= L - len(P); C \ P is
 * covered by P's segments and L - len(P) is the sum of their potential
 * slacks, so the constraints are exactly  X(m) - X(s) <= ps(s,m)  for every
 * segment.  Interval constraints like these are solved optimally by filling
 * from the left (exchange argument: moving reduction to an earlier edge
 * never breaks a segment that the later edge's segments did not), so the
 * walk computes the largest guaranteed reduction.
 *
 * Where we differ from the paper's phase 2.  Its messages keep only the
 * longer of two off-path arrivals at an off-C merge and record the other
 * as a segment ending at the second split, which can understate the slack
 * of overlapping segments.  We compute the walk exactly, per procedure i:
 * with d(q) = X(q) chosen so far,
 *
 *	d(q) = min( d(q-1) + [edge q-1 of C is i's] w,
 *		    min over segments s < q <= m of d(s) + ps(s,m) ).
 *
 * The segment minimum needs no enumeration of (s,m) pairs.  Give every C
 * vertex c_s the reduced time et - d(s) and every other vertex v the
 * longest-path time A(v) from those (one forward pass); a segment crossing
 * q has an edge (v,v') that crosses the topological cut before c_q, and
 *
 *	d(s) + ps(s,m) >= lt[v'] - w(v,v') - A(v),
 *
 * with equality for the best segment through that edge (lt from the CPM is
 * the latest time of v' in the unreduced graph: the segments' suffixes lie
 * after c_q and are not yet reduced).  So the walk is one pass over the
 * vertices in topological order with a set of the edges that leave C's
 * processed part: an edge enters when its tail is processed with value
 * lt[head] - w - A(tail) and expires when the pass moves beyond its head;
 * at each C vertex the set's least value is the least remaining segment
 * slack, in the paper's terms.  Virtual edges start -> off-C root (value lt[r])
 * and off-C leaf -> end (value L - A(leaf), never expiring) model the
 * virtual start and end.  (Kahn's order puts every root first, so the
 * start edges only matter for other topological orders; the end edges
 * matter always: a leaf may come early in the order.)  An edge of value
 * >= d_i(C) can never bind (d never exceeds it) and is not pushed; after
 * i's last edge on C, d cannot change and the pass stops.  slack_lanes()
 * describes three more savings.
 *
 * Blocks.  Slack is the sum of the Slacks of the blocks between the cut
 * vertices of C (cp_cuts.c proves it), so the walk runs block by block,
 * and only in the blocks where i has CP time.  Within a block every group
 * with CP time there walks at once, one lane each (as zeroing does): the
 * graph is read once per block, each lane keeps its own d, A values and
 * segments.  On barrier-synchronised traces a block is a phase between two
 * barriers, so a procedure costs nothing in the phases where it is not on
 * C.
 *
 * Pruning by total slack.  As for zeroing (cp_cuts.c), only edges of
 * total slack TS(e) < d_i(C within the block) can matter.  A pushed edge
 * has val < d + rem, and d + rem never grows (d grows by at most what rem
 * loses), so val < d_i(C); and val = lt[h] - w - A(t) >= TS(e), as A <= et.
 * A(v) matters only for the v it is pushed or relaxed from on such edges,
 * and the in-edge (u,v) that gives A(v) = A(u) + w then has TS(u,v) = lt[v]
 * - w - et[u] <= lt[v] - A(v) <= val: so does the whole chain back to C.
 * The walk applies this as its push filter; it does not build the pruned
 * subgraph, which would save little: over the walks of a report of the
 * 10^6-edge generated trace 82 % of the edges walked have TS below the
 * lane's CP time in the block (86 % on a raytrace run).
 *
 * Complexity per block: O((v_b + e_b) * lanes + pushes * log) time for the
 * groups with CP time in it, at most O((v + e) log e) per group as before;
 * scratch for lanes x the block's window (cp_cuts_win: a ring of rows
 * by topological position plus a slot per edge that spans more, a few
 * hundred rows on a trace; capped at CP_SLACK_WORDS words per vertex of
 * the graph: a window of n rows and slots walks at most words/n lanes at
 * once, at least two), 4 bytes per C edge, the shares ahead (at most
 * AHEAD_BYTES) and per lane the edges alive at once that no other one
 * dominates (16 bytes each: O(e) only in the worst case; cp_stair.h).  A
 * procedure without CP time costs nothing.  Slack <= zeroing benefit <= CP
 * time.
 */
#include "cp_slack.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_twins.h"
#include "cp_stair.h"

#define CP_SLACK_LANES 32	/* most groups in one walk of a block */
#define CP_SLACK_WORDS 4	/* scratch words per vertex of the graph */
#define AHEAD_SHIFT 4		/* the finest chunk: 16 block positions */
#define AHEAD_BYTES (4u << 20)	/* most bytes of the shares ahead */

/* One group's walk through a block. */
struct lane {
	uint32_t gid;
	uint32_t first;		/* index in C of its first CP edge here */
	uint32_t next;		/* ... of its next one from the current C
				 * vertex on, or the block's end */
	uint32_t stop;		/* block index of its last CP edge's head */
	uint32_t nextq;		/* block index of the next query that
				 * counts: the head of edge @next */
	uint64_t d, rem;	/* reduction so far; CP time not passed */
	struct cp_stair segs;	/* the live segments: their values and
				 * expiry indices */
};

struct cp_slack_ws {
	const struct cp_cuts *k;
	struct cp_cuts own;	/* the cuts, when the workspace found them */
	uint32_t *roots;	/* [nroots] roots not on C */
	uint32_t nroots;
	uint32_t *mask;		/* [npath] lanes owning each C edge of the
				 * block walked */
	uint64_t *ahead;	/* the shares ahead (ahead_init()): row j,
				 * lane l is l's CP time in the C edges whose
				 * heads lie in the block's first j chunks */
	size_t cap_ahead;	/* words in ahead */
	unsigned shift;		/* a chunk is 2^shift block positions */
	uint64_t *a;		/* reduced arrival times A, lane by lane:
				 * the window's ring rows, then its far
				 * slots (cp_cuts_win) */
	struct cp_cuts_win win;	/* the window of the block walked */
	size_t words;		/* most words a may have */
	size_t room;		/* words in a */
	uint32_t *lane_of;	/* [groups] lane of a group, or NONE */
	uint32_t ngroups;
	struct cp_twins tw;	/* the groups of a block: twins() */
	uint64_t *before;	/* [groups] the Slack of the block's j-th group
				 * before it (twins()'s members) */
	uint32_t *uniq;		/* [groups] the groups a block walks */
	struct lane lane[CP_SLACK_LANES];
};

/* A workspace on the cuts @k (NULL: find them, for @c). */
static struct cp_slack_ws *ws_new(const struct cp_cpm *c,
				  const struct cp_cuts *k)
{
	const struct cp_pag *g = c->g;
	struct cp_slack_ws *ws = calloc(1, sizeof(*ws));

	if (!ws)
		return NULL;
	if (!k) {
		if (cp_cuts_find(&ws->own, c)) {
			free(ws);
			return NULL;
		}
		k = &ws->own;
	}
	ws->k = k;
	ws->words = CP_SLACK_WORDS * ((size_t)g->nv + 1);
	ws->roots = malloc(sizeof(*ws->roots) * ((size_t)g->nv + 1));
	ws->mask = malloc(sizeof(*ws->mask) * ((size_t)c->npath + 1));
	if (!ws->roots || !ws->mask) {
		cp_slack_ws_free(ws);
		return NULL;
	}
	for (uint32_t v = 0; v < g->nv; v++)
		if (k->pos[v] == CP_PAG_NONE && cp_pag_is_root(g, v))
			ws->roots[ws->nroots++] = v;
	return ws;
}

struct cp_slack_ws *cp_slack_ws_new(const struct cp_cpm *c)
{
	return ws_new(c, NULL);
}

void cp_slack_ws_free(struct cp_slack_ws *ws)
{
	if (!ws)
		return;
	cp_cuts_free(&ws->own);
	free(ws->roots);
	free(ws->mask);
	cp_big_free(ws->ahead);
	cp_big_free(ws->a);
	cp_cuts_win_free(&ws->win);
	free(ws->lane_of);
	cp_twins_free(&ws->tw);
	free(ws->before);
	free(ws->uniq);
	for (uint32_t l = 0; l < CP_SLACK_LANES; l++)
		cp_stair_free(&ws->lane[l].segs);
	free(ws);
}

/*
 * Set up the lanes of the @nl groups ws->lane[l].gid for block @b: which
 * of the block's C edges each owns (ws->mask), its first and last, its CP
 * time.  Returns the block index where the last lane stops, or
 * CP_PAG_NONE when no group has CP time in the block.
 */
static uint32_t lanes_init(struct cp_slack_ws *ws, const struct cp_groups *gr,
			   uint32_t b, uint32_t nl)
{
	const struct cp_cuts *k = ws->k;
	const struct cp_cpm *c = k->c;
	const struct cp_pag *g = c->g;
	uint32_t q0 = k->pfirst[b], q1 = k->pfirst[b + 1];
	uint32_t last[CP_SLACK_LANES], end = CP_PAG_NONE;

	for (uint32_t l = 0; l < nl; l++) {
		ws->lane[l].first = CP_PAG_NONE;
		ws->lane[l].rem = 0;
		ws->lane_of[ws->lane[l].gid] = l;
	}
	for (uint32_t q = q0; q < q1; q++) {
		uint32_t e = c->path[q], n;
		const uint32_t *ids;
		uint32_t m = 0;

		n = c->w[e] ? cp_groups_of(gr, e, &ids) : 0;
		for (uint32_t x = 0; x < n; x++) {
			uint32_t l = ids[x] < gr->n ? ws->lane_of[ids[x]]
						    : CP_PAG_NONE;

			if (l >= nl)
				continue;
			m |= 1u << l;
			if (ws->lane[l].first == CP_PAG_NONE)
				ws->lane[l].first = q;
			last[l] = q;
			ws->lane[l].rem += c->w[e];
		}
		ws->mask[q] = m;
	}
	for (uint32_t l = 0; l < nl; l++) {
		struct lane *ln = &ws->lane[l];

		ws->lane_of[ln->gid] = CP_PAG_NONE;
		ln->d = 0;
		cp_stair_clear(&ln->segs);
		if (ln->first == CP_PAG_NONE) {
			ln->stop = CP_PAG_NONE;
			continue;
		}
		ln->next = ln->first;
		ln->stop = k->rank[g->head[c->path[last[l]]]] - k->vfirst[b];
		ln->nextq = k->rank[g->head[c->path[ln->first]]] -
			    k->vfirst[b];
		if (end == CP_PAG_NONE || ln->stop > end)
			end = ln->stop;
	}
	return end;
}

/*
 * The shares ahead of the @nl lanes of block @b, set up by lanes_init():
 * ws->ahead's rows, a chunk of 2^ws->shift block positions each (the
 * finest that AHEAD_BYTES holds), sum each lane's CP time in the C edges
 * whose heads lie in the chunks before.  A segment pushed at position i
 * and alive until r can lower the lane's d only at the C vertices in
 * (i, r], and there d is at most its value at i plus the lane's CP time
 * in the C edges into them: at most row (r >> shift) + 1 less row
 * i >> shift.  0, or -1 on OOM.
 */
static int ahead_init(struct cp_slack_ws *ws, uint32_t b, uint32_t nl)
{
	const struct cp_cuts *k = ws->k;
	const struct cp_cpm *c = k->c;
	const struct cp_pag *g = c->g;
	uint32_t p0 = k->vfirst[b], span = cp_cuts_vlast(k, b) - p0;
	unsigned s = AHEAD_SHIFT;
	size_t rows, words;

	while (s < 31 && ((size_t)(span >> s) + 2) * nl * sizeof(uint64_t) >
			 AHEAD_BYTES)
		s++;
	rows = (size_t)(span >> s) + 2;
	words = rows * nl;
	if (words > ws->cap_ahead) {
		cp_big_free(ws->ahead);
		ws->cap_ahead = 0;
		ws->ahead = cp_big_malloc(sizeof(*ws->ahead) * words);
		if (!ws->ahead)
			return -1;
		ws->cap_ahead = words;
	}
	ws->shift = s;
	memset(ws->ahead, 0, sizeof(*ws->ahead) * words);
	for (uint32_t q = k->pfirst[b]; q < k->pfirst[b + 1]; q++) {
		uint32_t e = c->path[q], m = ws->mask[q];
		uint64_t *row;

		if (!m)
			continue;
		row = ws->ahead +
		      (((size_t)(k->rank[g->head[e]] - p0) >> s) + 1) * nl;
		for (; m; m &= m - 1)
			row[__builtin_ctz(m)] += c->w[e];
	}
	for (size_t j = 1; j < rows; j++)
		for (uint32_t l = 0; l < nl; l++)
			ws->ahead[j * nl + l] += ws->ahead[(j - 1) * nl + l];
	return 0;
}

/* Lane @ln at the C vertex at block position @i, whose C edge, of
 * weight @w, is its group's: d is the least of d + w and the least
 * segment alive.  Returns its new d + rem.  Part of walk(). */
static inline uint64_t lane_query(struct lane *ln, uint64_t w, uint32_t i)
{
	uint64_t cand = ln->d + w, m = cp_stair_min(&ln->segs, i);

	ln->rem -= w;
	ln->d = m < cand ? m : cand;
	return ln->d + ln->rem;
}

/* Lane @l's CP time (of @nl lanes) in the C edges into the C vertices
 * at block positions (@i, @r], or more (ahead_init()). */
static inline uint64_t ahead_of(const struct cp_slack_ws *ws, uint32_t l,
				uint32_t nl, uint32_t i, uint32_t r)
{
	return ws->ahead[((size_t)(r >> ws->shift) + 1) * nl + l] -
	       ws->ahead[(size_t)(i >> ws->shift) * nl + l];
}

/*
 * Where a walk of a block stands before the vertex at block index @i:
 * its lanes still walking (@act), their next query and bound, and how far
 * it is in the window's far edges.  A walk starts from one, and hands one
 * over with half its lanes (struct part).
 */
struct walk_at {
	uint32_t i, fi, nfar, na;
	uint32_t act[CP_SLACK_LANES];
	uint32_t nq[CP_SLACK_LANES];
	uint64_t lim[CP_SLACK_LANES];
};

/* Lanes handed to the helper: a copy of the workspace with its own ring
 * and the lanes it walks (their segments moved to it), where the walk
 * stands, and the sums to add to. */
struct part {
	struct cp_slack_ws ws;
	uint32_t b, nl;
	struct walk_at at;
	uint64_t *sum;
};

struct cp_slack_help {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_bool idle;	/* the helper waits for lanes */
	bool done;		/* the walks hand over nothing more */
	bool busy;		/* the helper walks a part */
	struct part *part;	/* handed over, not taken yet */
	uint32_t parts;		/* handed over so far */
	int ret;		/* -1: a part ran out of memory */
};

/* The fewest block positions left for a hand-over, and how often the walk
 * looks for an idle helper (a mask of the block index). */
static atomic_size_t fork_min = 1u << 16;

static int walk(struct cp_slack_ws *ws, uint32_t b, uint32_t nl,
		uint64_t *sum, struct cp_slack_help *help,
		const struct walk_at *from);

/*
 * Hand half of the *@na lanes of @at to @help's idle helper: the walk of
 * block @b in @ws stands at index @i, far edge @fi, far slot @nfar (@at
 * takes those first).  The lanes handed over leave @at and *@na (the
 * walk's least next query, over more lanes, stays a lower bound until
 * its next C vertex recomputes it).  Nothing when the helper is not idle
 * or memory runs out: the walk keeps them.  Returns whether it handed
 * some.
 */
static bool hand_over(struct cp_slack_ws *ws, uint32_t b, uint32_t nl,
		      uint64_t *sum, struct cp_slack_help *help,
		      struct walk_at *at, uint32_t i, uint32_t fi,
		      uint32_t nfar, uint32_t *na)
{
	size_t words = (size_t)nl * ((size_t)ws->win.rows + ws->win.nfar);
	struct part *pt;
	uint64_t *ring;
	uint32_t keep = *na / 2;

	if (!atomic_load_explicit(&help->idle, memory_order_relaxed))
		return false;
	at->i = i;
	at->fi = fi;
	at->nfar = nfar;
	at->na = *na;
	pt = malloc(sizeof(*pt));
	ring = cp_big_malloc(sizeof(*ring) * (words ? words : 1));
	if (!pt || !ring) {
		free(pt);
		cp_big_free(ring);
		return false;
	}
	pthread_mutex_lock(&help->mu);
	if (!atomic_load(&help->idle) || help->part) {
		pthread_mutex_unlock(&help->mu);
		free(pt);
		cp_big_free(ring);
		return false;
	}
	pt->ws = *ws;	/* shared: the cuts, mask and window, read only until
			 * the part is done (the walk waits for it) */
	pt->ws.a = ring;
	memcpy(ring, ws->a, sizeof(*ring) * words);
	pt->b = b;
	pt->nl = nl;
	pt->sum = sum;
	pt->at = *at;
	pt->at.na = 0;
	for (uint32_t x = keep; x < at->na; x++) {
		uint32_t l = at->act[x];

		pt->at.act[pt->at.na++] = l;
		ws->lane[l].segs = (struct cp_stair){ 0 };	/* moved */
	}
	at->na = *na = keep;
	help->part = pt;
	help->parts++;
	atomic_store(&help->idle, false);
	pthread_cond_broadcast(&help->cv);
	pthread_mutex_unlock(&help->mu);
	return true;
}

/* Wait until the helper walked what it was handed; its result. */
static int wait_helper(struct cp_slack_help *help)
{
	int ret;

	pthread_mutex_lock(&help->mu);
	while (help->part || help->busy)
		pthread_cond_wait(&help->cv, &help->mu);
	ret = help->ret;
	pthread_mutex_unlock(&help->mu);
	return ret;
}

/*
 * The walk of block @b for the groups of the @nl lanes set up by
 * lanes_init(), side by side; each lane's Slack in the block is added to
 * @sum[its group].  -1 on OOM.
 *
 * Per lane, d starts at 0 in every block: the block's problem is the
 * whole graph's shifted by the d reached at its first cut, and every value
 * below (A, the segments') shifts with it.  A(v) is pushed along the block's
 * edges into ws->a, indexed by the vertex's place in the block; edges that
 * pass over the block's last cut are left out (cp_cuts.c: they never
 * bind).  Before a lane's first CP edge nothing is reduced: d = 0 and A(v)
 * = et[v].  Only a query at a C vertex whose incoming C edge is the
 * group's can change d: at any other the least segment is at least d (a
 * segment that was alive at the previous query bounded d there; one that
 * splits there has value d + ps).  So a lane queries its segments only there,
 * and looks for its next such C vertex only when it passed the last one;
 * an edge is pushed only if it is still alive at the next query that
 * counts (most thread segments start and end between two of them), and
 * only if its value is below d + rem, rem being the group's CP time in
 * the block not yet passed: d can grow by no more than that, so a larger
 * value can never be the minimum that counts.  Nor can a value of d plus
 * the group's CP time in the C edges into the vertices it is alive at, or
 * more (ahead_init() keeps a bound of that time).  On a water trace
 * (`water -n 186624`) that leaves 12.1 of the 26.8 million pushes, on a
 * cholesky one 3.7 of 6.7; on a lock trace of 10^7 events, whose one
 * block is too long for fine chunks, 22.0 of 22.1.  A lane stops at the head
 * of its group's last CP edge in the block; the walk, when every lane has.
 */
static int slack_lanes(struct cp_slack_ws *ws, uint32_t b, uint32_t nl,
		       uint64_t *sum, struct cp_slack_help *help)
{
	const struct cp_cuts *k = ws->k;
	const struct cp_cpm *c = k->c;
	const uint32_t *rank = k->rank;
	struct walk_at at = { .i = 0 };

	for (uint32_t l = 0; l < nl; l++) {
		if (ws->lane[l].stop == CP_PAG_NONE)
			continue;
		at.act[at.na++] = l;
		at.nq[l] = ws->lane[l].nextq;
		at.lim[l] = ws->lane[l].rem;
	}
	for (uint32_t i = 0; b == 0 && i < ws->nroots; i++) {
		uint32_t r = ws->roots[i];	/* block 0: p0 = 0 */

		for (uint32_t x = 0; x < at.na; x++) {
			struct lane *ln = &ws->lane[at.act[x]];

			if (c->lt[r] < ln->rem && rank[r] >= ln->nextq &&
			    cp_stair_push(&ln->segs, c->lt[r], rank[r], 0))
				return -1;
		}
	}
	memset(ws->a, 0, sizeof(*ws->a) * nl *
			 ((size_t)ws->win.rows + ws->win.nfar));
	return walk(ws, b, nl, sum, help, &at);
}

/* Lane @l (@ln) of block @b has passed critical-path position @q: its
 * next edge of the path in its mask from @q on, and that edge's head's
 * position in the block (UINT32_MAX: none left), which it returns.  Part
 * of walk(). */
static inline uint32_t lane_next(const struct cp_slack_ws *ws,
				 struct lane *ln, uint32_t l, uint32_t b,
				 uint32_t q)
{
	const struct cp_cuts *k = ws->k;
	const struct cp_cpm *c = k->c;
	uint32_t end = k->pfirst[b + 1];

	ln->next = q;
	while (ln->next < end && !(ws->mask[ln->next] >> l & 1))
		ln->next++;
	ln->nextq = ln->next == end ? UINT32_MAX :
		    k->rank[c->g->head[c->path[ln->next]]] - k->vfirst[b];
	return ln->nextq;
}

/*
 * The walk of block @b for the lanes of @from on (see slack_lanes()),
 * their Slack added to @sum; with @help (NULL: none), half of the lanes
 * still walking go to its helper when it is idle and enough of the block
 * is left, and the walk returns once the helper is done with them too.
 * -1 on OOM.
 *
 * The inner loop of Slack (every vertex and edge of a block, per pass):
 * its lane arrays live in registers and on its stack, and only small
 * inline steps are split out (cp_cuts_win_merge_far, lane_next); a
 * split into a seeding step and a per-C-vertex step could not be shown
 * to cost nothing (`bench_graph -e 1e6`: the difference was within the
 * runs' noise).
 */
static int walk(struct cp_slack_ws *ws, uint32_t b, uint32_t nl,
		uint64_t *sum, struct cp_slack_help *help,
		const struct walk_at *from)
{
	const struct cp_cuts *k = ws->k;
	const struct cp_cpm *c = k->c;
	const struct cp_pag *g = c->g;
	const uint32_t *rank = k->rank, *pos = k->pos;
	uint32_t p0 = k->vfirst[b], p1 = cp_cuts_vlast(k, b);
	struct walk_at at = *from;
	uint32_t *act = at.act, na = at.na;	/* lanes still walking */
	uint32_t *nq = at.nq, minq = UINT32_MAX;	/* their nextq */
	uint64_t *lim = at.lim;			/* their d + rem */
	uint64_t *a = ws->a, *far = a + (size_t)ws->win.rows * nl;
	uint32_t ring = ws->win.rows - 1, nfar = at.nfar, fi = at.fi;
	size_t fmin = atomic_load_explicit(&fork_min, memory_order_relaxed);
	uint32_t every = fmin ? 4095 : 15;
	bool handed = false;
	int ret = 0;

	for (uint32_t x = 0; x < na; x++)
		minq = nq[act[x]] < minq ? nq[act[x]] : minq;
	for (uint32_t i = at.i; na; i++) {
		uint32_t v = g->topo[p0 + i], q = pos[v];
		uint32_t cpe = CP_PAG_NONE;
		uint64_t av[CP_SLACK_LANES], *ai = a + (size_t)(i & ring) * nl;

		if (help && !(i & every) && na >= 2 &&
		    (size_t)(p1 - p0 - i) >= fmin &&
		    hand_over(ws, b, nl, sum, help, &at, i, fi, nfar, &na))
			handed = true;
		fi = cp_cuts_win_merge_far(&ws->win, far, nl, p0 + i, fi, ai);

		if (q != CP_PAG_NONE) {
			uint32_t ein = q > 0 ? c->path[q - 1] : CP_PAG_NONE;

			minq = UINT32_MAX;
			for (uint32_t x = 0; x < na; x++) {
				uint32_t l = act[x];
				struct lane *ln = &ws->lane[l];

				if (q > ln->first &&
				    (ws->mask[q - 1] >> l & 1))
					lim[l] = lane_query(ln, c->w[ein], i);
				if (i == ln->stop) {
					sum[ln->gid] += ln->d;
					act[x--] = act[--na];
					continue;
				}
				if (q >= ln->first && ln->next < q)
					nq[l] = lane_next(ws, ln, l, b, q);
				minq = nq[l] < minq ? nq[l] : minq;
				av[l] = c->et[v] - ln->d;
			}
			cpe = q < c->npath ? c->path[q] : CP_PAG_NONE;
		} else {
			bool leaf = g->out_off[v] == g->out_off[v + 1];

			for (uint32_t x = 0; x < na; x++) {
				uint32_t l = act[x];

				av[l] = ai[l];
				if (leaf && c->length - av[l] < lim[l] &&
				    cp_stair_push(&ws->lane[l].segs,
						  c->length - av[l],
						  UINT32_MAX, i)) {
					ret = -1;
					goto out;
				}
			}
		}
		memset(ai, 0, sizeof(*ai) * nl);	/* row of i + rows */
		cp_cuts_heads_prefetch(k, p0 + i + 2 * CP_CUTS_AHEAD, p1,
				       c->lt);
		cp_cuts_win_prefetch(k, &ws->win, b, p0 + i + CP_CUTS_AHEAD,
				     p1, a, nl);
		for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			uint32_t e = g->out_e[j], h = g->head[e], r = rank[h];
			uint64_t w = c->w[e], *th, ls;

			if (r > p1)
				continue;	/* passes over the last cut */
			if (cp_cuts_win_far(&ws->win, p0 + i, r))
				th = far + (size_t)nfar++ * nl;
			else
				th = a + (size_t)((r - p0) & ring) * nl;
			r -= p0;
			for (uint32_t x = 0; x < na; x++) {
				uint32_t l = act[x];
				uint64_t f = av[l] + w;

				th[l] = f > th[l] ? f : th[l];
			}
			if (e == cpe || r < minq)
				continue;
			ls = c->lt[h] - w;
			for (uint32_t x = 0; x < na; x++) {
				uint32_t l = act[x];
				uint64_t val = ls - av[l];

				if (r >= nq[l] && val < lim[l] &&
				    val < ws->lane[l].d +
					  ahead_of(ws, l, nl, i, r) &&
				    cp_stair_push(&ws->lane[l].segs, val, r,
						  i)) {
					ret = -1;
					goto out;
				}
			}
		}
	}
out:
	if (handed && wait_helper(help))
		ret = -1;
	return ret;
}

/* A part's lanes walked: their segments and the ring freed. */
static void part_free(struct part *pt)
{
	for (uint32_t x = 0; x < pt->at.na; x++)
		cp_stair_free(&pt->ws.lane[pt->at.act[x]].segs);
	cp_big_free(pt->ws.a);
	free(pt);
}

struct cp_slack_help *cp_slack_help_new(void)
{
	struct cp_slack_help *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	return h;
}

void cp_slack_help_free(struct cp_slack_help *h)
{
	if (!h)
		return;
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h);
}

int cp_slack_help_run(struct cp_slack_help *h)
{
	pthread_mutex_lock(&h->mu);
	for (;;) {
		struct part *pt;
		int r;

		atomic_store(&h->idle, !h->done);
		while (!h->part && !h->done)
			pthread_cond_wait(&h->cv, &h->mu);
		if (!h->part)
			break;
		pt = h->part;
		h->part = NULL;
		h->busy = true;
		pthread_mutex_unlock(&h->mu);
		r = walk(&pt->ws, pt->b, pt->nl, pt->sum, NULL, &pt->at);
		part_free(pt);
		pthread_mutex_lock(&h->mu);
		h->busy = false;
		if (r)
			h->ret = -1;
		pthread_cond_broadcast(&h->cv);
	}
	atomic_store(&h->idle, false);
	pthread_mutex_unlock(&h->mu);
	return h->ret;
}

/* No more lanes for the helper: it returns once it is done. */
static void help_done(struct cp_slack_help *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->done = true;
	atomic_store(&h->idle, false);
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

uint32_t cp_slack_help_parts(struct cp_slack_help *h)
{
	uint32_t n;

	pthread_mutex_lock(&h->mu);
	n = h->parts;
	pthread_mutex_unlock(&h->mu);
	return n;
}

bool cp_slack_help_idle(struct cp_slack_help *h)
{
	return atomic_load(&h->idle);
}

size_t cp_slack_set_fork_min(size_t n)
{
	return atomic_exchange(&fork_min, n);
}

/*
 * Twins.  A lane's walk depends on the graph and on which of the block's
 * C edges are its group's, nothing else: the segments, A and d follow
 * from those.  Groups that own the same C edges of a block so have the
 * same Slack there, and only one of them walks.  They are common: an
 * inclusive profile gives a procedure whose only caller is another the
 * same edges as that caller wherever it runs (a chain of them on a
 * sampled zstd: 39 procedures with CP time, 13 distinct; on a lock
 * trace, a worker and the loop it runs, and a libc wrapper and its
 * callee).
 *
 * twins() finds those among the @ng groups @in (with CP time in block
 * @b), in ws->tw (cp_twins.h: member j is group in[j]), the C edges'
 * positions their items.  Returns how many groups walk, their gids in
 * ws->uniq; -1 when out of memory.
 */
static int64_t twins(struct cp_slack_ws *ws, const struct cp_groups *gr,
		     uint32_t b, const uint32_t *in, uint32_t ng)
{
	const struct cp_cuts *k = ws->k;
	const struct cp_cpm *c = k->c;
	struct cp_twins *tw = &ws->tw;
	uint32_t q0 = k->pfirst[b], q1 = k->pfirst[b + 1], nu = 0;

	if (cp_twins_reset(tw, ng))
		return -1;
	for (uint32_t j = 0; j < ng; j++)
		ws->lane_of[in[j]] = j;
	/* step 0 notes the items; steps 1 and 2 check the twins found */
	for (uint32_t pass = 0; pass < 2; pass++) {
		if (pass == 1 && cp_twins_match(tw) == ng)
			break;
		for (uint32_t q = q0; q < q1; q++) {
			uint32_t e = c->path[q], n;
			const uint32_t *ids = NULL;

			n = c->w[e] ? cp_groups_of(gr, e, &ids) : 0;
			for (uint32_t step = pass; step <= 2 * pass; step++)
				cp_twins_item(tw, step, q, ids, n, ws->lane_of,
					      gr->n);
		}
	}
	cp_twins_done(tw);
	for (uint32_t j = 0; j < ng; j++) {
		ws->lane_of[in[j]] = CP_PAG_NONE;
		if (tw->rep[j] == j)
			ws->uniq[nu++] = in[j];
	}
	return nu;
}

/*
 * Add the Slack in block @b of the @ng groups @in (with CP time there) to
 * @slack[group], as many at once as the scratch allows.  -1 on OOM.
 */
static int slack_block(struct cp_slack_ws *ws, const struct cp_groups *gr,
		       uint32_t b, const uint32_t *in, uint32_t ng,
		       uint64_t *slack, struct cp_slack_help *help)
{
	size_t size;
	uint32_t most, nu = ng;
	const uint32_t *walks = in;

	if (cp_cuts_win_plan(ws->k, b, &ws->win))
		return -1;
	size = (size_t)ws->win.rows + ws->win.nfar;
	most = ws->words / size < CP_SLACK_LANES ?
	       (uint32_t)(ws->words / size) : CP_SLACK_LANES;
	most = most ? most : 1;

	if (ws->ngroups < gr->n) {
		uint32_t *lo = realloc(ws->lane_of,
				       sizeof(*lo) * ((size_t)gr->n + 1));

		if (!lo)
			return -1;
		memset(lo + ws->ngroups, 0xff,
		       sizeof(*lo) * (gr->n - ws->ngroups));
		ws->lane_of = lo;
		free(ws->before);
		free(ws->uniq);
		ws->before = malloc(sizeof(*ws->before) * ((size_t)gr->n + 1));
		ws->uniq = malloc(sizeof(*ws->uniq) * ((size_t)gr->n + 1));
		if (!ws->before || !ws->uniq)
			return -1;
		ws->ngroups = gr->n;
	}
	if (ng > 1) {
		int64_t n = twins(ws, gr, b, in, ng);

		if (n < 0)
			return -1;
		nu = (uint32_t)n;
		walks = ws->uniq;
		for (uint32_t j = 0; j < ng; j++)
			ws->before[j] = slack[in[j]];
	}
	for (uint32_t s = 0; s < nu; s += most) {
		uint32_t nl = nu - s < most ? nu - s : most, end;

		if (nl * size > ws->room) {
			cp_big_free(ws->a);
			ws->room = nl * size;
			ws->a = cp_big_malloc(sizeof(*ws->a) * ws->room);
			if (!ws->a)
				return -1;
		}

		for (uint32_t l = 0; l < nl; l++)
			ws->lane[l].gid = walks[s + l];
		end = lanes_init(ws, gr, b, nl);
		if (end != CP_PAG_NONE && (ahead_init(ws, b, nl) ||
					   slack_lanes(ws, b, nl, slack, help)))
			return -1;
	}
	/* the twins' Slack here is the one they walked with's */
	for (uint32_t j = 0; nu < ng && j < ng; j++) {
		uint32_t r = ws->tw.rep[j];

		if (r != j)
			slack[in[j]] += slack[in[r]] - ws->before[r];
	}
	return 0;
}

uint64_t cp_slack_group(struct cp_slack_ws *ws, const struct cp_groups *gr,
			uint32_t gid)
{
	uint64_t *sum = calloc((size_t)gr->n + 1, sizeof(*sum)), out;

	if (!sum)
		return UINT64_MAX;
	for (uint32_t b = 0; b < ws->k->nb; b++) {
		if (slack_block(ws, gr, b, &gid, 1, sum, NULL)) {
			free(sum);
			return UINT64_MAX;
		}
	}
	out = sum[gid];
	free(sum);
	return out;
}

int cp_slack_blocks(const struct cp_cuts *k, const struct cp_groups *gr,
		    const bool *only, uint64_t *slack)
{
	return cp_slack_blocks_help(k, gr, only, slack, NULL);
}

int cp_slack_blocks_help(const struct cp_cuts *k, const struct cp_groups *gr,
			 const bool *only, uint64_t *slack,
			 struct cp_slack_help *help)
{
	struct cp_slack_ws *ws = NULL;
	uint32_t *mark, *in;
	int ret = -1;

	memset(slack, 0, sizeof(*slack) * gr->n);
	if (k->c->npath == 0) {
		help_done(help);
		return 0;
	}
	mark = calloc((size_t)gr->n + 1, sizeof(*mark));
	in = malloc(sizeof(*in) * ((size_t)gr->n + 1));
	ws = mark && in ? ws_new(k->c, k) : NULL;
	if (!ws)
		goto out;
	for (uint32_t b = 0; b < k->nb; b++) {
		uint32_t ng = cp_cuts_groups(k, gr, only, b, mark, in);

		if (ng && slack_block(ws, gr, b, in, ng, slack, help))
			goto out;
	}
	ret = 0;
out:
	help_done(help);	/* every part handed over is done by now */
	cp_slack_ws_free(ws);
	free(mark);
	free(in);
	return ret;
}

int cp_slack_all(const struct cp_cpm *c, const struct cp_groups *gr,
		 const bool *only, uint64_t *slack)
{
	return cp_cuts_run(c, cp_slack_blocks, gr, only, slack);
}
