/*
 * cp_replay_int.h - the what-if replay's simulation (cp_replay.c's
 * model), shared by the in-memory replay (cp_replay.c) and the one over
 * the trace file (cp_stream_replay.c).  The simulation sees each thread's
 * current vertex only; where the vertices come from, where a publish's
 * simulated time is kept and what a wake-up costs are the caller's, given
 * as struct cp_rsim_ops.  Private to those two files.
 *
 * Concurrency: one simulation belongs to one thread.
 */
#ifndef CP_REPLAY_INT_H
#define CP_REPLAY_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_replay.h"
#include "cp_trace.h"

#define CP_RSIM_NONE UINT32_MAX
#define CP_RSIM_NEVER UINT64_MAX

/* CP_RS_SEEN: only inside the debug invariants' check (cp_replay.c) */
enum { CP_RS_IDLE, CP_RS_READY, CP_RS_BLOCKED, CP_RS_DONE, CP_RS_SEEN };
enum { CP_RMODE_REPLAY, CP_RMODE_LOCK, CP_RMODE_SEM, CP_RMODE_RW };

/* A thread of the simulation. */
struct cp_rth {
	const struct cp_tev *v;	/* its current vertex; NULL at its end
				 * (or none: an empty thread) */
	struct cp_tev ev;	/* @v when the trace is in memory */
	uint64_t tie;		/* recorded wall time of @v */
	uint8_t state;		/* CP_RS_* */
	bool granted;		/* a lock or token was handed over */
	bool forced;		/* its acquire is let through (Tries) */
	uint64_t arrive;	/* arrival time at @v */
	uint64_t grant;		/* time of the hand-over */
	uint64_t last;		/* time of the latest vertex */
	uint64_t exit;		/* time of THREAD_EXIT, NEVER before */
	uint32_t next;		/* next in a waiting list */
	uint32_t joiners;	/* list of threads joining this one */
};

/* A thread holding read shares of an rwlock. */
struct cp_rreader {
	uint32_t tid;
	uint32_t depth;		/* recursive read holds */
};

/* An object of the simulation. */
struct cp_robj {
	uint32_t holder;	/* lock holder (rwlock: the writer), NONE */
	uint32_t depth;		/* recursive holds */
	uint64_t last_seq;	/* recorded seq of the latest release */
	uint64_t last_wseq;	/* rwlock: same, latest write release */
	uint64_t tokens;	/* semaphore */
	uint64_t debt;		/* semaphore: tokens lent (forced) */
	uint32_t waiters;	/* list of threads waiting for it */
	uint8_t mode;		/* CP_RMODE_* */
	uint32_t nrd, cap_rd;	/* rwlock: threads holding read shares */
	struct cp_rreader *rd;	/* [nrd] */
};

/* A PUBLISH as the simulation knows it. */
struct cp_rpub {
	uint64_t time;		/* simulated time, NEVER before */
	uint32_t waiters;	/* list of threads waiting for it */
};

struct cp_rhent {
	uint64_t key;
	uint64_t tie;
	uint32_t tid;
};

struct cp_rsim;

/* What the caller provides (ctx: cp_rsim.ctx). */
struct cp_rsim_ops {
	/* The PUBLISH of @obj's @seq; made (time NEVER) if @make and it is
	 * not known.  NULL if there is none (!@make), or when no CONSUME can
	 * need it any more (a publish is then not kept), or out of memory
	 * (set s->oom). */
	struct cp_rpub *(*pub)(struct cp_rsim *s, uint32_t obj, uint64_t seq,
			       bool make);
	/* Thread @tid's vertex happened at s->th[tid].last: move to its next
	 * (v, tie, arrive = last + the segment into it); false at its end. */
	bool (*next)(struct cp_rsim *s, uint32_t tid);
	/* (optional) @tid's PUBLISH @p happened. */
	void (*published)(struct cp_rsim *s, uint32_t tid, struct cp_rpub *p);
	/* (optional, NULL: none) the recorded wake-up latency of @tid's
	 * current vertex, a CONSUME that waited; of its JOIN of @c; of child
	 * @c's start after @tid's CREATE. */
	uint64_t (*consume_latency)(struct cp_rsim *s, uint32_t tid);
	uint64_t (*join_latency)(struct cp_rsim *s, uint32_t tid, uint32_t c);
	uint64_t (*start_latency)(struct cp_rsim *s, uint32_t tid, uint32_t c);
};

struct cp_rsim {
	const struct cp_rsim_ops *ops;
	void *ctx;		/* the caller's */
	struct cp_rth *th;	/* [nt] */
	uint32_t nt;
	struct cp_robj *ob;	/* [nobj], by object id */
	uint32_t nobj;
	struct cp_rhent *heap;	/* [nt] runnable threads */
	uint32_t nheap;
	uint64_t end;		/* latest simulated time */
	uint64_t reordered;
	uint64_t forced;	/* acquires let through (Tries) */
	uint64_t npop;		/* (debug) pops, to pace the invariants'
				 * check */
	bool oom;
};

/* Make @tid runnable at @key (it must be ready: th[tid].v set). */
void cp_rsim_push(struct cp_rsim *s, uint32_t tid, uint64_t key);
/*
 * Run the simulation from the runnable threads until none is left,
 * forcing tries (cp_replay.c, Tries) while any can be; then @r: the
 * length (s->end), the counts and whether threads were left blocked
 * (deadlock).  Returns 0, or -1 when out of memory.
 */
int cp_rsim_run(struct cp_rsim *s, struct cp_replay_result *r);
/*
 * How object @o is simulated: a mutex or spinlock as a lock, a semaphore
 * with max(@extra, @cnt0) tokens (its initial value, or the waits that
 * took an initial token in the recording), an rwlock unless @rw_broken
 * (rw_classify, cp_replay.c) or @extra is CP_RWLOCK_ORDERED, anything
 * else or anything @untracked by its recorded dependencies.
 */
void cp_rsim_obj_init(struct cp_robj *o, uint8_t kind, bool untracked,
		      uint64_t extra, uint64_t cnt0, bool rw_broken);
/* Free what the simulation's objects hold (rwlock readers). */
void cp_rsim_free_objs(struct cp_rsim *s);

#endif /* CP_REPLAY_INT_H */
