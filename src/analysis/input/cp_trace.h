/*
 * cp_trace.h - reading and validating a cpthread trace (.cpt).
 *
 * The reader turns the file described by cp_trace_format.h into per-thread
 * arrays of vertices with absolute timestamps, an object table, a symbol
 * table and the region strings.  It checks everything it reads, so the
 * layers above (cp_tracepag.c, cp_whatif.c) may trust that every object id
 * is defined, every thread id is known, every CONSUME range points at
 * PUBLISHes that exist, every JOIN has the child's exit vertex (exit_v) and
 * every LEAVE has an ENTER.  Without CP_TRACE_STRICT, what breaks one of
 * these is repaired or made inert instead of refusing the file.
 *
 * A struct cp_trace is built once and is read-only afterwards; concurrent
 * readers may share it.
 */
#ifndef CP_TRACE_H
#define CP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_prefetch.h"
#include "cp_trace_format.h"

/*
 * One vertex of a thread (a non-metadata event), as the analyses keep it:
 * 16 bytes, a vertex per event being the largest array of the analysis.
 * Its payload is beside it in a struct cp_targ (cp_trace_thread.a).
 */
struct cp_tvert {
	uint64_t ts;	/* clock value at the vertex (absolute) */
	uint32_t obj;	/* REQUEST, PUBLISH, CONSUME, FAIL: object id,
			 * 0 for none (a join's REQUEST) */
	uint8_t op;	/* kind | CP_EVF_WAIT | CP_EVF_SHARED */
};

/*
 * A vertex's payload, read by the graph's builder, the replay and the dot
 * export only, so a verb that runs none of them after the build drops it
 * (cp_trace_drop_replay).  Packed to 4-byte alignment: 12 bytes, not 16.
 */
struct __attribute__((packed, aligned(4))) cp_targ {
	uint64_t arg;	/* PUBLISH: seq; CONSUME: seq_lo; ENTER: address;
			 * THREAD_START: parent tid + 1; THREAD_CREATE,
			 * THREAD_JOIN: child tid; REGION_*: string id;
			 * CP_TV_STACK: stack id */
	uint32_t cnt;	/* CONSUME: count */
};

/*
 * A whole event, vertex and payload in one: what the decoder makes, the
 * out-of-core cursor hands out (cp_tcursor.h) and the replay reads.
 */
struct cp_tev {
	uint64_t ts;
	uint64_t arg;
	uint32_t obj;
	uint32_t cnt;
	uint8_t op;
};

/*
 * An analyzer-internal vertex kind, never in a file: from here on the
 * thread runs in sampled call stack @arg of cp_trace.samples (written by
 * cp_sampled.c, read by cp_tracepag.c).  Below CP_EV_META_FIRST, so it
 * is a vertex like any other; it depends on nothing.
 */
#define CP_TV_STACK	47

/* The kind of an op byte (a vertex's or an event's). */
static inline unsigned cp_op_kind(uint8_t op)
{
	return op & CP_EV_KIND_MASK;
}

/* Whether an op byte's thread waited before it. */
static inline bool cp_op_waits(uint8_t op)
{
	return (op & CP_EVF_WAIT) != 0;
}

/* A read (shared) acquire of an rwlock: CONSUME with CP_EVF_SHARED. */
static inline bool cp_op_shared(uint8_t op)
{
	return (op & CP_EVF_SHARED) != 0;
}

static inline unsigned cp_tvert_kind(const struct cp_tvert *v)
{
	return cp_op_kind(v->op);
}

static inline bool cp_tvert_waits(const struct cp_tvert *v)
{
	return cp_op_waits(v->op);
}

static inline bool cp_tvert_shared(const struct cp_tvert *v)
{
	return cp_op_shared(v->op);
}

static inline unsigned cp_tev_kind(const struct cp_tev *e)
{
	return cp_op_kind(e->op);
}

static inline bool cp_tev_waits(const struct cp_tev *e)
{
	return cp_op_waits(e->op);
}

static inline bool cp_tev_shared(const struct cp_tev *e)
{
	return cp_op_shared(e->op);
}

/* The whole event of vertex @v with payload @a. */
static inline struct cp_tev cp_tev_of(const struct cp_tvert *v,
				      const struct cp_targ *a)
{
	return (struct cp_tev){ .ts = v->ts, .arg = a->arg, .obj = v->obj,
				.cnt = a->cnt, .op = v->op };
}

struct cp_trace_thread {
	uint32_t tid;
	uint32_t nv;			/* vertices */
	struct cp_tvert *v;		/* [nv] in program order */
	struct cp_targ *a;		/* [nv] their payloads; NULL after
					 * cp_trace_drop_replay */
	uint64_t *wall;			/* [nv] wall clock (HAS_WALL) or NULL */
	bool has_info;			/* a THREAD block was read */
	struct cp_thread_info info;	/* valid when has_info */
	char *name;			/* from the THREAD block, or NULL */
	uint32_t parent;		/* parent tid, UINT32_MAX for none */
	uint32_t create_v;		/* vertex of the parent's CREATE of this
					 * thread, or UINT32_MAX */
	uint32_t exit_v;		/* index of THREAD_EXIT or UINT32_MAX */
};

/*
 * Where the program first used an object (the trace's SITES): the code
 * address in its call into the tracer, and that address symbolized
 * (cp_sampled_name_site).  The names belong to the trace's symbolizer.
 */
struct cp_site {
	uint64_t pc;		/* 0: unknown */
	const char *fn;		/* its function, or NULL */
	const char *file;	/* its source file, or NULL */
	uint32_t line;		/* 0: unknown */
	uint32_t ncallers;	/* of callers[] */
	struct cp_site *callers;	/* [ncallers] the calls that led to
				 * the site, innermost first, each named as a
				 * site (no callers of its own); in a pool of
				 * the trace (cp_trace.site_callers) or of the
				 * stream's result */
};

struct cp_trace_obj {
	uint8_t kind;		/* enum cp_obj_kind (0: a runtime-internal
				 * record with no events) */
	bool defined;		/* an OBJ_DEF was read */
	bool untracked;		/* OBJ_UNTRACK seen somewhere */
	uint64_t addr;		/* address in the traced program */
	uint64_t extra;		/* barrier count, sem initial value */
	struct cp_site site;	/* where the program first used it */
	uint32_t npub;		/* PUBLISH events of the object */
	uint32_t pub_off;	/* its publishes: cp_trace.pub[pub_off..] */
	bool sparse;		/* its sequences are not 1..npub (reader) */
	uint32_t nfilled;	/* (reader) */
};

/* Where a PUBLISH is: sorted by (object, seq) in cp_trace.pub. */
struct cp_trace_pub {
	uint64_t seq;
	uint32_t tid;
	uint32_t vi;		/* vertex index in the thread */
};

struct cp_trace_sym {
	uint64_t addr;
	uint64_t size;
	const char *name;	/* points into the mapped file copy */
};

struct cp_trace_str {
	uint32_t id;
	const char *text;
};

struct cp_trace_kv {
	const char *key;
	const char *value;
};

struct cp_trace {
	char *path;			/* file name used in messages */
	uint32_t clock;			/* enum cp_trace_clock */
	uint32_t flags;			/* CP_TRACE_* */
	uint64_t pid;
	uint64_t start_realtime_ns;
	uint64_t start_wall_ns;

	uint32_t nthreads;		/* every tid a block, the END block or
					 * a THREAD_CREATE names */
	struct cp_trace_thread *threads;	/* [nthreads] by tid */
	uint32_t nobjs;			/* object ids are 1..nobjs-1 */
	struct cp_trace_obj *objs;	/* [nobjs], objs[0] unused */
	struct cp_trace_pub *pub;	/* all publishes, by (obj, seq); NULL
					 * after cp_trace_drop_replay */
	uint64_t npub;

	struct cp_trace_sym *syms;	/* sorted by address */
	uint32_t nsyms;
	struct cp_trace_str *strs;	/* sorted by id */
	uint32_t nstrs;
	struct cp_site *site_callers;	/* the pool of the objects' sites'
					 * callers */
	struct cp_trace_kv *info;	/* INFO block pairs, file order */
	uint32_t ninfo;

	uint64_t nvertices;		/* all threads */
	uint64_t nevents;		/* from the END block */
	uint64_t online_len_ns;		/* from the END block */
	bool has_startstop;		/* CP_START or CP_STOP seen */

	char *strbuf;			/* copy of every string block */
	char *synth;			/* names made up for region ids no
					 * STRINGS block defines (salvage) */

	/*
	 * Salvage (without CP_TRACE_STRICT).  A trace without its END block
	 * (the run crashed or was killed, or the disk filled) is read up to
	 * its last complete block and marked partial; a damaged block is
	 * skipped; an inconsistent event is repaired or made inert (see
	 * cp_trace.c) and counted.  Each of @partial_why and @repair_why is
	 * one line for humans.
	 */
	bool partial;			/* no END block: what ran is not all */
	char partial_why[256];		/* what was missing, what was assumed */
	uint64_t nrepairs;		/* events or blocks dropped/repaired */
	char repair_why[256];		/* the first of them, with its offset */
	struct cp_samples *samples;	/* SAMPLES and MODULES blocks
					 * (cp_samples.h), NULL if none */
};

/*
 * Why a trace's graph cannot be measured: every path is at most the sum of
 * the useful times (cp_cpm.h), which must fit in 64 bits.  The reader lets
 * a thread's clock jump forward by any amount, so only the sum can tell;
 * the trace PAG builder and the streaming pass refuse such a trace with
 * "PATH: " and this.
 */
#define CP_TRACE_TOO_LONG "the threads' useful times add up past " \
	"2^64-1 ns (timestamps far apart in a damaged trace)"

/* cp_trace_parse_flags() flags. */
#define CP_TRACE_STRICT	0x1u	/* refuse any damage, as version 1 did */

/*
 * Parse @len bytes at @buf as a trace named @name (for messages), salvaging
 * what a damaged or partial trace holds (see struct cp_trace).  Returns
 * 0 with @t filled, or -1 with "NAME: what is wrong (offset N)" in @err and
 * @t empty.  Never reads outside [buf, buf+len).  @buf may be freed after
 * the call: everything is copied.
 */
int cp_trace_parse(struct cp_trace *t, const char *name, const void *buf,
		   size_t len, char *err, size_t errlen);
/* cp_trace_parse with CP_TRACE_* @flags (cp_trace_parse: none). */
int cp_trace_parse_flags(struct cp_trace *t, const char *name,
			 const void *buf, size_t len, unsigned flags,
			 char *err, size_t errlen);
/* Read and parse the file @path (mapped read-only); as cp_trace_parse. */
int cp_trace_read(struct cp_trace *t, const char *path, char *err,
		  size_t errlen);
/* cp_trace_read with CP_TRACE_* @flags. */
int cp_trace_read_flags(struct cp_trace *t, const char *path,
			unsigned flags, char *err, size_t errlen);
/* Free what @t owns. */
void cp_trace_free(struct cp_trace *t);

/* True if @path is a regular file that starts with CP_TRACE_MAGIC (a pipe
 * or device is never sniffed: that would consume what it reads). */
bool cp_trace_is_trace(const char *path);

/*
 * Name of the procedure at @addr: the symbol starting there, else the one
 * containing it, else "0x..." written into @buf.  Returns @buf or a name
 * owned by @t.
 */
const char *cp_trace_sym_name(const struct cp_trace *t, uint64_t addr,
			      char *buf, size_t len);
/* Text of region string @id, or NULL (the reader checked every id used). */
const char *cp_trace_string(const struct cp_trace *t, uint32_t id);
/* Value of INFO key @key, or NULL. */
const char *cp_trace_info(const struct cp_trace *t, const char *key);

/* Where @t's threads split into two runs of about equal vertices,
 * [0, mid) and [mid, nthreads): work by thread on both cores. */
uint32_t cp_trace_split_threads(const struct cp_trace *t);

/*
 * The PUBLISHes of object @obj with seq in [lo, lo+cnt): returns a pointer
 * to the first of @cnt consecutive entries of cp_trace.pub, or NULL if any
 * is missing (never for a range the reader accepted).
 */
const struct cp_trace_pub *cp_trace_find_pub(const struct cp_trace *t,
					     uint32_t obj, uint64_t lo,
					     uint64_t cnt);

/*
 * Where the PUBLISH of sequence @lo of object @obj sits when the object's
 * sequences are 1..npub (the dense case: the reader then placed each at
 * its index), or NULL when @lo is out of that range or there is no
 * table.  The entry's seq tells whether it is that publish.
 */
static inline const struct cp_trace_pub *cp_trace_pub_slot(
	const struct cp_trace *t, uint32_t obj, uint64_t lo)
{
	if (!obj || obj >= t->nobjs || !t->pub || lo < 1 ||
	    lo > t->objs[obj].npub)
		return NULL;
	return t->pub + t->objs[obj].pub_off + lo - 1;
}

/* How many vertices ahead a walk calls cp_trace_pub_prefetch. */
#define CP_TRACE_PUB_AHEAD 16

/*
 * Start fetching the slot of the publish table that vertex @i of @th
 * will read or write if it is of kind @kind (CP_EV_PUBLISH: the reader
 * placing it; CP_EV_CONSUME: a look-up of the publish it took), the dense
 * case's slot; nothing past the thread's end.  A walk over a thread's
 * vertices calls it CP_TRACE_PUB_AHEAD vertices ahead: the table is
 * reached at random, a miss each.  Finding the slot reads the object's
 * entry, itself reached at random (10^5 objects on a water trace), so
 * that of the vertex CP_TRACE_PUB_AHEAD further on is fetched too.
 */
static inline void cp_trace_pub_prefetch(const struct cp_trace *t,
					 const struct cp_trace_thread *th,
					 uint32_t i, unsigned kind)
{
	const struct cp_trace_pub *pb;
	uint32_t j = i + CP_TRACE_PUB_AHEAD;

	if (j < th->nv && cp_tvert_kind(&th->v[j]) == kind &&
	    th->v[j].obj < t->nobjs)
		cp_prefetch_read(&t->objs[th->v[j].obj].npub);
	if (i >= th->nv || cp_tvert_kind(&th->v[i]) != kind)
		return;
	pb = cp_trace_pub_slot(t, th->v[i].obj, th->a[i].arg);
	if (!pb)
		return;
	if (kind == CP_EV_PUBLISH)
		cp_prefetch_write(pb);
	else
		cp_prefetch_read(pb);
}

/*
 * Free what only the graph's builder, a replay (cp_replay.c: what-if) and
 * the dot export read once the graph is built, for a caller that runs
 * neither: the publish table (16 bytes per PUBLISH) and the vertices'
 * payloads (12 bytes a vertex).  cp_trace_find_pub then finds nothing
 * and every thread's @a is NULL.  Not while another thread reads @t.
 */
void cp_trace_drop_replay(struct cp_trace *t);

/* Name of event kind @kind ("PUBLISH", ...), "?" if unknown. */
const char *cp_trace_kind_name(unsigned kind);

#endif /* CP_TRACE_H */
