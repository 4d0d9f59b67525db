/*
 * cp_stream_int.h - the out-of-core pass's shared state and the calls
 * between its parts: cp_stream.c (the driver), cp_stream_rec.c (publish
 * records, freeing and folding), cp_stream_sched.c (the schedule and the
 * census), cp_stream_procs.c (procedure stacks).  Private to them.  All
 * calls run on the pass's one thread, on the struct sp of one run.
 */
#ifndef CP_STREAM_INT_H
#define CP_STREAM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_hash.h"
#include "cp_stream.h"

#define NONE UINT32_MAX

/* A thread's state in a pass.  ST_UNBORN: its first vertex is a START
 * whose CREATE has not run; it waits outside the heap and the blocked
 * list (a program can make millions of threads, most of them not yet
 * created at any moment), parked, until create() schedules it.  After
 * the survey such a thread's first block is not even read before its
 * CREATE (sth.unread, sp.born). */
enum { ST_READY, ST_BLOCKED, ST_DONE, ST_UNBORN };

/* A procedure or region open on a thread's stack. */
struct frame {
	uint64_t tag;		/* 0: ENTER; region id + 1: a region */
	uint32_t proc;
	bool first;		/* the procedure was not on the stack yet */
	double f0;		/* (records, what-if) the factor before it */
	uint64_t u0;		/* (survey) the thread's useful time then */
};

/* A vertex: its thread (NONE: none) and wall clock; (k paths) where a
 * path ends, (views) who published a record. */
struct cp_kp_end {
	uint32_t tid;
	uint64_t wall;
};

/* (k paths) A sidetrack kept: the deviation cp_stream_dev says. */
struct cp_kp_side {
	uint64_t from_wall, to_wall;	/* where it leaves and rejoins
					 * (struct cp_kp_end, unpadded) */
	uint64_t m;		/* the merge it was made at (kp_nmerge) */
	uint32_t from_tid, to_tid;
	uint32_t obj;
	uint32_t sub;		/* the heap of the path it turns onto */
	/* (thin records) the origin (sp.rorg) of the lanes of the record
	 * on one side, for MBM's capture, or CP_KP_ORG_WHOLE */
	uint64_t org : 56;
	uint64_t kind : 8;	/* enum cp_stream_dev_kind */
};

#define CP_KP_ORG_WHOLE ((1ull << 56) - 1)

/* (k paths) A node of the persistent leftist heaps of sidetracks. */
struct cp_kp_node {
	uint64_t key;		/* its sidetrack's delta */
	uint32_t l, r;		/* children, or NONE */
	uint32_t side;		/* its sidetrack in sp.kside (the copies of
				 * a node share it) */
	uint8_t rank;		/* null-path length: at most log2 of the
				 * nodes + 1 */
};

/*
 * What only a thread that is running needs: its procedure stack and the
 * locks it holds.  A pass makes it at the thread's first vertex (a
 * streaming replay at its first stack change, cp_stream_frames()) and
 * frees it at the thread's end (cp_stream_stk_free).  Apart from struct
 * sth because a program that makes a thread per task has millions of
 * threads but few running at once.  act and oth point into the same
 * block, ntr entries each.
 */
struct sth_stk {
	struct frame *fr;	/* [cap_fr] its open frames, depth of them */
	uint64_t depth, cap_fr;
	uint32_t *cnt;		/* [cap_cnt] frames open per procedure */
	uint32_t cap_cnt;
	uint32_t nact;
	uint32_t *act;		/* [nact] tracked indices on the stack */
	uint32_t *oth;		/* (records, p->ncx) [noth] the tracked
				 * indices whose other-mode lane the time
				 * counts for: inclusive, the innermost
				 * frame's; exclusive, those on the stack */
	uint32_t noth;
	uint32_t nheld, cap_held;
	uint32_t *held;		/* [nheld] locks it holds */
	uint64_t hmark;		/* useful time when @held last changed */
	uint64_t mark;		/* (survey, exclusive) useful time when the
				 * stack's top last changed */
};

/* A thread of the pass. */
struct sth {
	struct cp_tcursor *cur;	/* its cursor, from its first read to its
				 * end (cursor_free()): a program that makes
				 * a thread per task has few alive at once */
	struct cp_tev nx;	/* the next vertex, not yet processed */
	uint64_t key;		/* its wall clock: the heap key */
	uint64_t nvi;		/* its index in the thread */
	uint8_t state;
	bool created;		/* its creator's CREATE was processed */
	bool any;		/* a vertex was processed */
	bool unread;		/* (ST_UNBORN, after the survey) @nx is not
				 * read yet: nothing of the thread is */
	uint32_t joins_left;	/* (records) JOINs of it still to come */
	uint64_t prev_ts, first_wall, last_wall;
	uint64_t len;		/* longest path ending at the last vertex */
	uint64_t pending;	/* useful time not spread over share/d yet */
	uint64_t useful;	/* all useful time so far */
	uint64_t *vec;		/* [vn]: share[ntr], d[ntr], then the what-if
				 * lane (the scaled length), if any */
	double fac;		/* (records, what-if) its segments' factor */
	struct sth_stk *k;	/* while it runs, else NULL */
	uint32_t create_rec;	/* the record it left (records pass) */
	uint32_t wait_obj;	/* what it is blocked on: object, or NONE */
	uint32_t wait_c;	/* a CONSUME's sequences before lo + wait_c
				 * were found (they stay) */
	uint32_t tlane;		/* its CP-time lane + 1, or 0: none (a zeroed
				 * sth has none: cp_stream_replay.c's) */
	uint64_t sk;		/* (sampled) its next sample to place
				 * (survey) or switch to (records) */
	uint64_t sc;		/* (sampled, records) its next sample to
				 * count on the path */
	uint32_t stack;		/* (sampled, records) its current stack */
	/* (k paths) the heap of the sidetracks along its longest path,
	 * and where that path's last vertex before the current one is */
	uint32_t hp;
	struct cp_kp_end kend;
};

/* An object of the pass: one per object id, so the program that makes
 * an object per task has millions; fields in falling size, none padded. */
struct sobj {
	uint64_t smax;		/* highest sequence published so far */
	uint64_t lag;		/* (from the survey) largest CONSUME lag */
	uint64_t w;		/* (survey) 1..w are all published */
	uint64_t *pend;		/* (survey) published sequences above w */
	uint32_t *ring;		/* (records) records in publish order, from
				 * head, in cap (a power of two) slots */
	uint64_t *bits;		/* (census) sequences the file publishes */
	uint64_t nbits;		/* words at @bits */
	uint64_t cmax;		/* (from the survey) highest sequence a
				 * CONSUME holds */
	uint64_t ncons;		/* (from the survey) its CONSUMEs */
	uint64_t cleft;		/* (records) its CONSUMEs still to come */
	uint64_t lo_max;	/* highest CONSUME low end so far */
	uint64_t m;		/* smax when the last CONSUME ran */
	uint64_t hub_lo;	/* (records) see @hub */
	uint64_t addr;		/* its definition's (OBJ_DEF) */
	/* its figures, each pass from zero */
	uint64_t ops, waits, wait_ns, held_ns, gain_ns;
	uint32_t npend, cap_pend;	/* of @pend */
	uint32_t cap, head, n;		/* of @ring */
	uint32_t agg1;		/* (records) 1 + the record folding every
				 * sequence in (lo_max, m], or 0 */
	uint32_t agg2;		/* (records) the same for those above
				 * m + 1 */
	uint32_t hub;		/* (records) 1 + the hub of the range
				 * hub_lo .. hub_lo + hub_cnt - 1, or 0 */
	uint32_t hub_cnt;
	uint32_t lane;		/* its CP lanes' index, or NONE */
	bool nofold;		/* (from the survey) its CONSUMEs break the
				 * folding rule ("Folding",
				 * cp_stream_rec.c) */
	/* its definition (the survey's OBJ_DEF / OBJ_UNTRACK) */
	bool defined, untracked;
	uint8_t kind;
};

/* One run: both passes' state. */
struct sp {
	struct cp_tindex *ix;
	struct cp_stream *s;
	bool records;		/* second pass: keep path records */
	bool hasw;
	uint32_t nt;
	struct sth *th;		/* [nt] */
	struct sobj *obj;	/* [nobj] by id; room for cap_obj */
	uint32_t nobj, cap_obj;
	uint32_t *heap, nheap;
	uint32_t *blocked, nblocked;
	uint32_t nunborn;	/* threads ST_UNBORN */
	/* procedures: names interned as cp_tracepag.c does */
	char **pname;
	uint32_t cap_procs;
	struct cp_smap names;
	struct cp_map2 procmap;	/* (addr, 0) / (region id, 1) -> proc */
	/* a record's values (vec): the lanes a merge takes from the longer
	 * path (share[ntr], held on the CP[nob], CP edges[nob], thread CP
	 * time[ntt], CP samples[ncs], the other mode's share[ncx]: nsh in
	 * all),
	 * then d[ntr], then the what-if lane */
	uint32_t ntr;		/* tracked procedures */
	uint32_t nob;		/* tracked objects */
	uint32_t ntt;		/* tracked threads */
	uint32_t ncs;		/* (sampled) CP sample lanes: ntr and one
				 * for all samples, else 0 */
	uint32_t ncx;		/* the tracked procedures' CP time in the
				 * other mode (inclusive: exclusive of
				 * callees; exclusive: inclusive): ntr */
	uint32_t nsh;		/* ntr + 2 * nob + ntt + ncs + ncx */
	uint32_t nlane;		/* what-if lanes: 0, 1 (@pf), or one per
				 * scaling of cp_stream_opts.lanes (@lq) */
	uint32_t vn;		/* values per record: nsh + ntr + nlane */
	double *pf;		/* (what-if) [nprocs] a procedure's factor */
	const struct cp_whatif_scale *sc;
	uint32_t nsc;
	const struct cp_whatif_scale *lanes;	/* (what-if lanes) [nlane] */
	uint32_t *lq;		/* (what-if lanes) [nlane] the procedure
				 * lane i scales, or NONE */
	uint32_t *trk;		/* [nprocs] tracked index, or NONE */
	uint32_t *ttrk;		/* [nt] a thread's CP-time lane, or NONE */
	/* a thread's lanes (vec) are kept from its first vertex only while
	 * a JOIN may still merge them or it ends the critical path so far
	 * (thread_release()); what the figures read of the others is taken
	 * as each ends */
	uint32_t *njoin;	/* (from the survey) [nt] its JOINs */
	uint64_t *born;		/* (from the survey) bit per thread: its
				 * first vertex is a START that waits for
				 * a CREATE (the same in every pass) */
	uint32_t cbest;		/* (records) the ended thread that ends the
				 * critical path so far (cp_stream_cp_end's
				 * rule), or NONE */
	uint64_t *zbest;	/* (records) [ntr] the most len - d[k] of an
				 * ended thread (CP zeroing) */
	uint64_t *lbest;	/* (records) [nlane] the longest of each
				 * what-if lane of an ended thread */
	uint64_t tlive;		/* (records) threads holding lanes */
	uint32_t *hubm;		/* (records) a hub's members */
	uint32_t cap_hubm;
	bool nomem;		/* (survey) the metadata hook ran out */
	struct cp_tprefetch *tpf;	/* this pass's decoding ahead, or NULL */
	int pass_ret;		/* the pass's result (0, or -1) */
	/* sampled procedures (cp_stream_samp.c) */
	struct cp_samples *sm;	/* the trace's samples, or NULL */
	bool drop_procs;	/* procedure events are dropped */
	bool saw_procs;		/* (survey) a procedure event was seen */
	bool smp;		/* the samples are the procedures */
	uint64_t *su;		/* [sm->n] a used sample's useful time */
	uint64_t *sM;		/* [sm->n] where its stack becomes current */
	uint32_t *sid;		/* [sm->n] its stack */
	uint32_t *sfull;	/* a stack's procs: as sm->stk, by stk_off */
	uint32_t *sdoff;	/* [nstacks + 1] a stack's distinct procs */
	uint32_t *sdist;	/* are sdist[sdoff[i] .. sdoff[i + 1]) */
	uint32_t *sinner;	/* [nstacks] its innermost proc, or NONE */
	/* publish records */
	uint64_t *rlen, *rseq;	/* [nrec] a record's len and sequence */
	uint64_t *rvec;		/* [nrec * 2 * ntr] its share[], d[] */
	uint32_t *rnext;	/* [nrec] next free record */
	uint32_t nrec, caprec, freel;
	uint64_t live;		/* records alive */
	/* thin records ("Thin records", cp_stream_rec.c): while org_on,
	 * rorg[r] is the ordinal (among the pass's records, s->records
	 * before it) of the record whose share lanes @r holds, or
	 * CP_ORG_WHOLE when they are a thread's, all there */
	bool org_on;
	bool thin_mark;		/* (MBM's paths pass) a merge that takes a
				 * record's share lanes into a thread sets
				 * its origin's bit in thin_need */
	bool thin;		/* (the records pass after it) a record not
				 * marked leaves out share[] (nsh lanes) */
	bool thin_nomem;	/* the marks could not all be kept */
	bool spoiled;		/* (thin) a merge met a record without the
				 * lanes it takes: the pass runs again whole */
	uint64_t *rorg;		/* [cap_rorg] */
	uint32_t cap_rorg;
	uint64_t *thin_need;	/* bit per record ordinal */
	uint64_t cap_need;	/* its words */
	uint32_t mbm_k;		/* cp_stream_opts.mbm_k */
	/* the k longest paths (cp_stream_kp.c): k, or 0 */
	uint32_t kp_k;
	uint32_t *rhp;		/* [nrec] a record's heap */
	struct cp_kp_end *rend;	/* [nrec] where its path ends */
	struct cp_kp_node *kn;
	uint32_t nkn, cap_kn;
	struct cp_kp_side *kside;
	uint32_t nkside, cap_kside;
	uint64_t kp_bound;	/* sidetracks dearer are not kept */
	bool kp_strict;		/* nor, then, those of delta kp_bound */
	uint64_t kp_cap;	/* nodes wanted at most */
	uint64_t kp_max;	/* kp_cap at most, over the passes again */
	uint64_t kp_limit;	/* nodes at which the bound is lowered */
	uint64_t kp_hist[65];	/* kept sidetracks by bit length of delta */
	uint64_t kp_now;	/* the vertex processed: its wall clock */
	uint32_t kp_obj;	/* and its object */
	uint32_t cap_rkp;	/* room in rhp and rend */
	uint64_t kp_nmerge;	/* merges so far in the pass */
	/* the ended threads' paths merged into the sink so far (as each
	 * ends, so that its lanes need not outlive it): the longest's
	 * length, heap, end and lanes */
	bool kp_any;
	uint64_t kp_alen;
	uint32_t kp_ah;
	struct cp_kp_end kp_ae;
	const uint64_t *kp_avec;
	/* (MBM) the capture pass: the merges the paths' sidetracks were
	 * made at, ascending, and the share lanes' difference (shorter
	 * side's minus longer's) at each, [nwant x ntr] */
	bool kp_capture;
	uint64_t *kp_want;
	uint32_t nwant, kp_wi;
	uint64_t *kp_ds;
	uint32_t *kp_pw;	/* [npaths] a path's sidetrack: in kside,
				 * then (capture) in kp_want */
	uint64_t done;		/* vertices processed in this pass */
	unsigned pass, npass;	/* passes run, and in all (progress) */
	bool *made;		/* (census) [nt] a CREATE of the thread */
	struct cp_map2 far;	/* (census) (obj, seq) published, seq past
				 * the event count */
	bool excl;		/* exclusive procedure times */
	uint32_t track;		/* most procedures, objects and threads
				 * followed: CP_STREAM_TRACK, or 0
				 * (cp_stream_opts.lengths_only) */
	void (*progress)(void *ctx, const char *phase, double frac);
	void *progress_ctx;
	/* Slack: the records pass's file (cp_stream_slfile.c), or NULL;
	 * after the walk, each tracked procedure's Slack */
	struct cp_stream_sl *sl;
	uint64_t sl_event_bytes;	/* the room check's (cp_stream_opts) */
	bool has_slack;
	uint64_t slk[CP_STREAM_TRACK];
	uint64_t sl_lanes;	/* bit k: tracked index k is top (the
				 * lanes the walk follows) */
	/* the headline's procedure (cp_stream_opts.headline): its index in
	 * cp_stream.procs or NONE, and whether it wants the busy share */
	uint32_t hl;
	bool hl_busy;
	/* the headline's procedure if it wants the busy share and Slack is
	 * walked: its tracked index, whose C segments the walk writes down,
	 * or NONE */
	uint32_t busy_k;
	/* the views' breakdowns (cp_stream_opts.views): the survey sums
	 * the waits and CPU times; the last records pass the dependencies,
	 * from each record's publisher (the last to publish of those it
	 * folds) and wall clock then, and the one a CONSUME takes */
	bool views;
	bool vw_deps;		/* this pass counts the dependencies */
	struct cp_kp_end *rpub;	/* [nrec] a record's publisher: its
				 * thread and wall clock */
	uint32_t cap_rpub;
	struct cp_kp_end vpub;	/* (a CONSUME) the releaser so far; tid
				 * NONE: none */
	/* the timeline (cp_stream_opts.timeline; cp_stream_timeline.c):
	 * &s->tl or NULL; the last records pass draws the rows (tl_rows),
	 * Slack's walk the critical path; the useful segment being cut
	 * into pieces: its wall clock [tl_wa, tl_wb], weight and the
	 * pieces' time so far */
	struct cp_timeline *tl;
	bool tl_rows;
	uint64_t tl_wa, tl_wb, tl_wt, tl_o;
};

/* A record's share lanes are a thread's, all there (sp.rorg). */
#define CP_ORG_WHOLE UINT64_MAX

/* Where a record's lanes are (struct sp). */
static inline uint32_t cp_stream_d(const struct sp *p, uint32_t k)
{
	return p->nsh + k;
}

static inline uint32_t cp_stream_whatif(const struct sp *p)
{
	return p->nsh + p->ntr;
}

static inline uint32_t cp_stream_held(const struct sp *p, uint32_t j)
{
	return p->ntr + j;
}

static inline uint32_t cp_stream_cross(const struct sp *p, uint32_t j)
{
	return p->ntr + p->nob + j;
}

static inline uint32_t cp_stream_tcp(const struct sp *p, uint32_t m)
{
	return p->ntr + 2 * p->nob + m;
}

static inline uint32_t cp_stream_cps(const struct sp *p, uint32_t k)
{
	return p->ntr + 2 * p->nob + p->ntt + k;
}

static inline uint32_t cp_stream_cpx(const struct sp *p, uint32_t k)
{
	return p->ntr + 2 * p->nob + p->ntt + p->ncs + k;
}

/* ---- the views' breakdowns (cp_stream_views.c) ------------------------ */

/* (survey) @w of thread @tid's useful time in procedure @proc (NONE:
 * outside any). */
void cp_stream_view_cpu(struct sp *p, uint32_t tid, uint32_t proc,
			uint64_t w);
/* (survey) Thread @tid waited @w on object @obj (0: a join). */
void cp_stream_view_wait(struct sp *p, uint32_t tid, uint32_t obj,
			 uint64_t w);
/* (last records pass) A dependency into @tid released by @rel (NONE:
 * none known). */
void cp_stream_view_dep(struct sp *p, uint32_t rel, uint32_t tid);
/* (last records pass) Record @r was made by publisher @pub (its thread
 * and wall clock then); record @a takes in a publisher @pub, a fold's or
 * a publish folded straight in, when it is the later; a CONSUME merges
 * record @r (its releaser so far in sp.vpub). */
void cp_stream_view_rec(struct sp *p, uint32_t r, struct cp_kp_end pub);
/* Record @r's publisher; tid NONE when it has none (memory ran out, which
 * stops the pass). */
static inline struct cp_kp_end cp_stream_view_pub(const struct sp *p,
						  uint32_t r)
{
	return r < p->cap_rpub ? p->rpub[r] : (struct cp_kp_end){ NONE, 0 };
}
void cp_stream_view_fold(struct sp *p, uint32_t a, struct cp_kp_end pub);
void cp_stream_view_take(struct sp *p, uint32_t r);

/* ---- the timeline (cp_stream_timeline.c) ----------------------------- */

/* (after the survey) s->tl over the threads' first to last vertex, each
 * thread's row spanning its own.  0, or -1 (memory). */
int cp_stream_tl_start(struct sp *p, uint32_t width);
/* (last records pass) Thread @tid's segment into its vertex being
 * processed: a wait, or (@waited false) a useful one of @dt, whose pieces
 * cp_stream_tl_piece() then draws. */
void cp_stream_tl_seg(struct sp *p, uint32_t tid, const struct sth *t,
		      bool waited, uint64_t dt);
/* (last records pass) The next piece, of @dt, of the useful segment
 * cp_stream_tl_seg() began, under @t's stack now. */
void cp_stream_tl_piece(struct sp *p, uint32_t tid, const struct sth *t,
			uint64_t dt);

/* The wall clock at @o into a segment of weight @wt from @wa to @wb, as
 * cp_sampled.c places a stack switch in it. */
static inline uint64_t cp_stream_wall_in(uint64_t wa, uint64_t wb,
					 uint64_t wt, uint64_t o)
{
	if (!wt || wb <= wa)
		return wa;
	return wa + (uint64_t)((unsigned __int128)(wb - wa) * o / wt);
}

/* ---- records (cp_stream_rec.c) --------------------------------------- */

/* Merge record (@len2, @vec2) into (@len, @vec): zero-weight edge. */
void cp_stream_merge_into(const struct sp *p, uint64_t *len, uint64_t *vec,
			  uint64_t len2, const uint64_t *vec2);
/* Merge record (@len, @vec) into @t's, flushing @t first. */
void cp_stream_merge(struct sp *p, struct sth *t, uint64_t len,
		     const uint64_t *vec);
/* A copy of @t's record (flushed), for sequence @seq; NONE: no memory. */
uint32_t cp_stream_rec_new(struct sp *p, const struct sth *t, uint64_t seq);
/* Return record @r to the free list. */
void cp_stream_rec_free(struct sp *p, uint32_t r);
/* (thin records) Record ordinal @org's share lanes are read. */
void cp_stream_org_mark(struct sp *p, uint64_t org);

/* (thin records) Record @r merges into thread @t: the longer path's
 * share lanes go on, so if it is @r's they must be there. */
static inline void cp_stream_org_read(struct sp *p, const struct sth *t,
				      uint32_t r)
{
	uint64_t org;

	if (!p->org_on || p->rlen[r] <= t->len ||
	    (org = p->rorg[r]) == CP_ORG_WHOLE)
		return;
	if (p->thin)
		p->spoiled = true;
	else
		cp_stream_org_mark(p, org);
}

/* (thin records) A path of @len merges into record @a, its share lanes
 * those of record @r (NONE: a thread's, all there). */
static inline void cp_stream_org_into(struct sp *p, uint32_t a, uint64_t len,
				      uint32_t r)
{
	if (p->org_on && len > p->rlen[a])
		p->rorg[a] = r == NONE ? CP_ORG_WHOLE : p->rorg[r];
}
/* cp_stream_obj_at's growth of the table to hold @id. */
struct sobj *cp_stream_obj_grow(struct sp *p, uint32_t id);

/* Object @id's state, the table grown to hold it; NULL: no memory. */
static inline struct sobj *cp_stream_obj_at(struct sp *p, uint32_t id)
{
	return id < p->nobj ? &p->obj[id] : cp_stream_obj_grow(p, id);
}
/* Append record @r to @o's ring.  0, or -1 (memory). */
int cp_stream_ring_push(struct sobj *o, uint32_t r);
/* Free @o's records no later CONSUME can hold (the lag rule). */
void cp_stream_ring_trim(struct sp *p, struct sobj *o);
/* (survey) Has @o's sequence @seq been published? */
bool cp_stream_seen(const struct sobj *o, uint64_t seq);
/* (survey) Note that @o's @seq is published.  0, or -1 (memory). */
int cp_stream_see(struct sobj *o, uint64_t seq);
/* Can a CONSUME still to come hold @o's sequence @seq?  (Records pass.) */
static inline bool cp_stream_rec_wanted(const struct sobj *o, uint64_t seq)
{
	return o->cleft && seq <= o->cmax;
}
/* The aggregate slot sequence @q of @o folds into; NULL: its own record. */
uint32_t *cp_stream_fold_slot(struct sobj *o, uint64_t q);
/* (records) Before a CONSUME of @o's @lo .. @lo + @cnt - 1 (two or
 * more, @o not folded) and its Slack vertex: the range's hub, made or
 * kept ("Hubs", cp_stream_rec.c).  0, or -1 (memory). */
int cp_stream_hub(struct sp *p, struct sobj *o, uint64_t lo, uint32_t cnt);
/* Merge into @t the records of @o's sequences lo .. lo+cnt-1. */
void cp_stream_consume_records(struct sp *p, struct sth *t, struct sobj *o,
			       uint64_t lo, uint32_t cnt);
/* A CONSUME of @o (@lo, @cnt) ran: lag, folding rule, lo_max and m; the
 * object's records all freed after its last. */
void cp_stream_consumed(struct sp *p, struct sobj *o, uint64_t lo,
			uint32_t cnt);

/* ---- the k longest paths (cp_stream_kp.c) ---------------------------- */

/*
 * Each merge of two paths, before the lengths and lanes are merged: the
 * shorter one (ties: the one merged in) becomes a sidetrack, and the
 * merged path's heap and end are the longer one's; the capture pass
 * (MBM) takes the share lanes of the merges it wants instead.  Out of
 * memory: p->nomem.
 */
/* (records) Record @r merges into @t (a CONSUME's range). */
void cp_stream_kp_consume(struct sp *p, struct sth *t, uint32_t r);
/* (records) Thread @c's end merges into @t (a JOIN). */
void cp_stream_kp_join(struct sp *p, struct sth *t, uint32_t c);
/* (records) @t's path (its PUBLISH) merges into the record @a of a group
 * of publishes consumed together (cp_stream_rec.c's folding). */
void cp_stream_kp_group_thread(struct sp *p, uint32_t a,
			       const struct sth *t);
/* (records) Record @r merges into the group record @a likewise. */
void cp_stream_kp_group_rec(struct sp *p, uint32_t a, uint32_t r);

/* (records) Room for @need records' heaps.  0, or -1. */
int cp_stream_kp_grow(struct sp *p, uint32_t need);
/* (records) Record @r is made from @t's path. */
void cp_stream_kp_rec(struct sp *p, const struct sth *t, uint32_t r);
/* (records) Thread @tid ended: its path merges into the sink's. */
void cp_stream_kp_end(struct sp *p, uint32_t tid);
/* After a records pass: the paths into p->s (after the capture pass: the
 * MBM into p->s's procedures).  0, or -1 (memory). */
int cp_stream_kp_finish(struct sp *p);
/* (MBM) After the paths pass and its cp_stream_kp_finish: which merges
 * the capture pass takes the lanes of; the records start again.  0, or
 * -1 (memory). */
int cp_stream_kp_want(struct sp *p);
/* (after a paths pass and its cp_stream_kp_finish, the paths cut) Drop
 * the heaps and the paths for a paths pass again, p->kp_cap grown. */
void cp_stream_kp_again(struct sp *p);
/* Free the k paths' pass state. */
void cp_stream_kp_free(struct sp *p);

/* After the records pass: the thread whose last vertex ends the critical
 * path (the first of the longest), NONE when none ran; its length into
 * *@len. */
uint32_t cp_stream_cp_end(const struct sp *p, uint64_t *len);

/* ---- Slack (cp_stream_slfile.c, cp_stream_slack.c) -------------------- */

/*
 * The records pass writes each vertex's in-edges to a file (p->sl set),
 * which cp_stream_sl_walk() reads back from its end.  Every call but
 * cp_stream_sl_start() only when p->sl; out of memory: p->nomem.
 */
/* Make p->sl and its file; when the file cannot be made, p->s->slack_err
 * says why and p->sl stays NULL.  0, or -1 (memory). */
int cp_stream_sl_start(struct sp *p);
/* @t's vertex @tid is processed from here ... */
void cp_stream_sl_begin(struct sp *p, uint32_t tid, const struct sth *t);
/* ... a piece of its useful segment of @dt, under @t's stack ... */
void cp_stream_sl_piece(struct sp *p, const struct sth *t, uint64_t dt);
/* ... record @r merges into it (before the merge) ... */
void cp_stream_sl_in_rec(struct sp *p, uint32_t r);
/* ... thread @c's end merges into it (a JOIN; before the merge) ... */
void cp_stream_sl_in_join(struct sp *p, uint32_t c);
/* ... record @r is made from it.  0, or -1 (memory) ... */
int cp_stream_sl_rec(struct sp *p, uint32_t r);
/* ... thread @tid's path (its PUBLISH), or record @r, merges into the
 * group record @a (before the merge) ... */
void cp_stream_sl_group_thread(struct sp *p, uint32_t a, uint32_t tid);
void cp_stream_sl_group_rec(struct sp *p, uint32_t a, uint32_t r);
/* ... to here: the vertex is written. */
void cp_stream_sl_end_step(struct sp *p, const struct sth *t);
/* Between two vertices: the hub @h of the @n records @m (its winner the
 * first of the longest) as a vertex of its own (cp_stream_rec.c's
 * hubs). */
void cp_stream_sl_hub(struct sp *p, uint32_t h, const uint32_t *m,
		      uint32_t n);
/* After the records pass: the walk back, into p->slk and p->has_slack
 * (p->s->slack_err when the file failed).  0, or -1 (memory). */
int cp_stream_sl_walk(struct sp *p);
/* The file of p->busy_k's C segments the walk wrote (cp_stream_busy.c
 * reads it), fd -1 when none was. */
struct cp_spill *cp_stream_sl_segments(struct sp *p);
/* Free p->sl. */
void cp_stream_sl_free(struct sp *p);

/* ---- the headline's busy share (cp_stream_busy.c) --------------------- */

/* After the walk, which wrote p->busy_k's C segments: the other threads'
 * busy share over them, as cp_compare.c measures it in memory, or -1
 * (none, one thread, or the segments' file failed).  0, or -1 (memory). */
int cp_stream_busy_measure(struct sp *p, double *busy);

/* ---- objects and lanes (cp_stream_objs.c) --------------------------- */

/* A key to choose the followed by (largest first), and its owner. */
struct cp_stream_key {
	uint64_t key;
	uint32_t id;
};

/* (survey) An OBJ_DEF or OBJ_UNTRACK a cursor passed; @ctx the sp. */
void cp_stream_meta(void *ctx, const struct cp_trd_ev *ev);
/* Vertex @v of @t, of an object: its operation, its wait (@dt if
 * @waited), its lock acquire or release.  0, or -1 (memory). */
int cp_stream_obj_vertex(struct sp *p, struct sth *t,
			 const struct cp_tev *v, bool waited, uint64_t dt);
/* @t's last vertex is processed: its held time is charged. */
void cp_stream_obj_end(struct sp *p, struct sth *t);
/* (records) A CONSUME of @o by @t merged its records; @own was @t's path
 * before: path gain, CP edge. */
void cp_stream_obj_consumed(struct sp *p, struct sth *t, struct sobj *o,
			    uint64_t own);
/* Sort @ord largest first (ties: lower id); how many of the @n are
 * followed (at most p->track). */
uint32_t cp_stream_pick(const struct sp *p, struct cp_stream_key *ord,
			uint32_t n);
/* (after the survey) The objects' and threads' lanes.  0, or -1. */
int cp_stream_choose_lanes(struct sp *p);
/* The objects' figures into s->objs, CP lanes from @vec (NULL: none).
 * 0, or -1 (memory). */
int cp_stream_obj_results(struct sp *p, const uint64_t *vec);

/* ---- sampled procedures (cp_stream_samp.c) --------------------------- */

/* Is @kind an ENTER, LEAVE, REGION_BEGIN or REGION_END? */
static inline bool cp_stream_is_proc(unsigned kind)
{
	return kind == CP_EV_ENTER || kind == CP_EV_LEAVE ||
	       kind == CP_EV_REGION_BEGIN || kind == CP_EV_REGION_END;
}

/* (survey) Place thread @tid's samples up to its next vertex @v (before
 * its segment is counted). */
void cp_stream_smp_place(struct sp *p, uint32_t tid, struct sth *t,
			 const struct cp_tev *v);
/* (survey) Thread @tid ended: its samples left are outside its life. */
void cp_stream_smp_end(struct sp *p, uint32_t tid);
/*
 * The samples' stacks symbolized beside the survey: reading the debug
 * information takes a tenth of a second or more, which the survey's
 * second core, decoding ahead for it, has to spare.  Whether the report
 * takes its procedures from the samples is known only after the survey
 * (it may see procedure events), so the result is kept until then.  The
 * symbolizer reads the samples' stacks and the modules and writes its
 * own members of cp_samples (sym, hot, the stacks); the survey writes
 * only each sample's used flag and the placement counters.
 */
struct cp_stream_sym {
	const struct cp_stream_opts *o;
	struct cp_trace *t;
	uint32_t *sid;		/* by sample, once run; else NULL */
	int ret;		/* the symbolizer's: 0, or -1 with err */
	bool ran;
	char err[512];
};

/* Set up @y for the trace of @p under @o: true when the samples may be
 * wanted, and cp_stream_smp_sym_run(@y) is to run beside the survey. */
bool cp_stream_smp_early(const struct sp *p, const struct cp_stream_opts *o,
			 struct cp_stream_sym *y);
/* Symbolize @arg's samples (a struct cp_stream_sym; cp_par_two job). */
void cp_stream_smp_sym_run(void *arg);
/* (after the survey) Take the procedures from the samples if @o says so:
 * symbolize (or take @y's stacks when it ran: it then holds none),
 * each sample's switch point, CPU time and samples per procedure.  0, or
 * -1 with "PATH: reason" in @err. */
int cp_stream_smp_setup(struct sp *p, const struct cp_stream_opts *o,
			struct cp_stream_sym *y, char *err, size_t errlen);
/* (records) A useful segment of @dt on thread @tid: its pieces between
 * stack switches into @t's pending time (and what-if lane), the samples
 * in it counted on @t's path. */
int cp_stream_smp_segment(struct sp *p, uint32_t tid, struct sth *t,
			  uint64_t dt);
/* The samples' CP counts of the tracked procedures from @vec. */
void cp_stream_smp_results(struct sp *p, const uint64_t *vec);

/* ---- schedule (cp_stream_sched.c) ------------------------------------ */

/* Does thread @a run before thread @b (next vertex's wall clock, tid)? */
static inline bool cp_stream_before(const struct sp *p, uint32_t a,
				    uint32_t b)
{
	const struct sth *x = &p->th[a], *y = &p->th[b];

	return x->key != y->key ? x->key < y->key : a < b;
}
/* Make @tid runnable: into the heap, ordered by cp_stream_before(). */
void cp_stream_heap_push(struct sp *p, uint32_t tid);
/* The runnable thread that runs first, taken out of the heap. */
uint32_t cp_stream_heap_pop(struct sp *p);
/* Has @t's next vertex its dependencies? If not, t->wait_obj says why. */
bool cp_stream_ready(struct sp *p, struct sth *t);
/* Threads blocked on @obj (NONE: a thread) now ready go to the heap;
 * @seq: the sequence of @obj just published (0 with NONE). */
void cp_stream_wake(struct sp *p, uint32_t obj, uint64_t seq);
/* Every thread left is blocked: census or cycle break.  0, or -1. */
int cp_stream_unstick(struct sp *p);

/* ---- procedure stacks (cp_stream_procs.c) ---------------------------- */

/* @t's empty stacks (t->k), room for @ntr tracked procedures on them.
 * 0, or -1 (memory). */
int cp_stream_stk_new(struct sth *t, uint32_t ntr);
/* @t has ended: its stacks go (t->k NULL; nothing if it had none). */
void cp_stream_stk_free(struct sth *t);
/* Procedure id of @name, interned; NONE when out of memory. */
uint32_t cp_stream_intern(struct sp *p, const char *name);
/* (sampled) @t's stack becomes @proc[0 .. @n), outermost first.  0, or
 * -1 (memory). */
int cp_stream_set_stack(struct sp *p, struct sth *t, const uint32_t *proc,
			uint32_t n);
/* Spread @t's pending useful time over its stacked tracked procs. */
void cp_stream_flush(struct sp *p, struct sth *t);
/* Close @t's innermost frame. */
void cp_stream_pop(struct sp *p, struct sth *t);
/* cp_stream_calls for a vertex that changes the stack. */
int cp_stream_frames(struct sp *p, struct sth *t, const struct cp_tev *v);

/* The stack change of vertex @v on @t (ENTER, LEAVE, regions; nothing
 * for any other vertex).  0, or -1 (memory). */
static inline int cp_stream_calls(struct sp *p, struct sth *t,
				  const struct cp_tev *v)
{
	return cp_stream_is_proc(cp_tev_kind(v)) ? cp_stream_frames(p, t, v)
						 : 0;
}
/* (records, what-if) Grow @t's scaled length by a useful segment of @dt. */
void cp_stream_lane_add(struct sp *p, struct sth *t, uint64_t dt);

#endif /* CP_STREAM_INT_H */
