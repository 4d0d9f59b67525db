/*
 * cp_samples.h - the CPU-time samples and the module map of a trace
 * (CP_BLOCK_SAMPLES and CP_BLOCK_MODULES of cp_trace_format.h), decoded
 * and validated.
 *
 * The trace reader hands every SAMPLES and MODULES block to
 * cp_samples_add_block() as it meets it, then calls cp_samples_finish()
 * once the threads are known.  A block that does not decode (a bad varint,
 * a depth above CP_SAMPLE_MAX_DEPTH, a module record cut short) makes the
 * whole trace unreadable, as any other corrupt block does.  Samples that
 * decode but cannot be placed are dropped and counted instead, so a report
 * can warn about them: samples of a thread with no events, and samples
 * whose wall or CPU time runs backwards in their thread (a later block
 * starting before the previous one ended).
 *
 * Built by the reader, read-only afterwards except for the attribution
 * fields that cp_sampled.c fills once, before anything reads them.
 * cp_tracepag.c reads the stacks that CP_TV_STACK vertices name.
 */
#ifndef CP_SAMPLES_H
#define CP_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_trace_format.h"

struct cp_trace;
struct cp_hotline;
struct cp_symbolizer;

struct cp_sample {
	uint64_t wall;		/* trace wall clock (the vertices' origin) */
	uint64_t cpu;		/* thread CPU time (cpu-clock origin) */
	uint64_t weight;	/* CPU ns the sample stands for */
	uint64_t pc_off;	/* its stack: cp_samples.pcs[pc_off..+depth] */
	uint32_t tid;
	uint16_t depth;		/* frames, innermost first */
	uint8_t flags;		/* CP_SAMPLE_TRUNCATED, _UNWIND_FAILED */
	bool used;		/* attribution: placed on the timeline */
	uint32_t ctx_v;		/* attribution: the thread vertex after
				 * which this sample's stack is current */
	uint32_t pos_v;		/* attribution: the vertex closing the
				 * segment the sample falls in (>= 1) */
};

/* One loaded object, as the runtime saw it. */
struct cp_module {
	uint64_t bias;		/* run-time minus link-time address */
	uint64_t lo, hi;	/* run-time range [lo, hi) */
	const uint8_t *build_id;	/* idlen bytes, NULL when none */
	uint32_t idlen;
	const char *path;	/* "[vdso]" for the vDSO */
	const uint8_t *image;	/* inline ELF image, or NULL */
	uint32_t image_size;
};

struct cp_samples {
	struct cp_sample *s;	/* kept samples: by thread, then in order */
	uint64_t n, cap;
	uint64_t *pcs;		/* every stack's PCs */
	uint64_t npcs, cap_pcs;
	uint64_t *thr_off;	/* [nthreads + 1]: thread tid's samples are
				 * s[thr_off[tid] .. thr_off[tid + 1]) */
	uint32_t nthreads;

	struct cp_module *mods;	/* union of the MODULES blocks */
	uint32_t nmods, cap_mods;
	uint8_t **chunks;	/* copies of the MODULES payloads */
	uint32_t nchunks, cap_chunks;

	/* counts for the report's warnings */
	uint64_t decoded;	/* samples in the file */
	uint64_t weight;	/* their weights: CPU ns they stand for */
	uint64_t unknown_thread;	/* dropped: thread without events */
	uint64_t backwards;	/* dropped: time ran backwards */
	uint64_t truncated;	/* kept, stack cut at MAX_DEPTH */
	uint64_t unwind_failed;	/* kept, unwinding stopped early */
	uint64_t outside;	/* attribution: outside the thread's life */
	uint64_t in_wait;	/* attribution: inside a wait segment */

	/* set by cp_sampled_apply() when the samples became the trace's
	 * procedure activity */
	bool active;
	char **names;		/* procedure names it interned */
	uint32_t nnames, cap_names;
	uint32_t *stk;		/* distinct stacks: indices into names[],
				 * outermost first */
	uint64_t *stk_off;	/* [nstacks + 1]: stack i is
				 * stk[stk_off[i] .. stk_off[i + 1]) */
	uint32_t nstacks;
	uint64_t used;		/* samples placed on the timeline */
	uint64_t used_weight;	/* their weights: CPU ns they stand for */
	struct cp_hotline *hot;	/* leaf lines, by samples (cp_sampled.h) */
	uint32_t nhot;
	struct cp_symbolizer *sym;	/* owns the frames' strings */
	struct cp_perfmap *jit;	/* names of code in no file, or NULL
				 * (cp_perfmap.h) */
};

/*
 * Decode one SAMPLES or MODULES block (@type) of thread @tid (the block
 * header's; SAMPLES only), @size payload bytes at @payload, into *@sp
 * (allocated on first use).  Returns 0, or -1 with a reason in @why and
 * the offending byte's offset within the payload in *@erroff.  Reader
 * context, single-threaded.
 */
int cp_samples_add_block(struct cp_samples **sp, uint32_t type, uint32_t tid,
			 const uint8_t *payload, uint32_t size, size_t *erroff,
			 char *why, size_t whylen);

/*
 * Once every block is read and @t's threads are known: drop (and count)
 * the samples of threads without events and those whose time runs
 * backwards, and index the rest by thread.  Returns 0 or -1 (out of
 * memory).  Reader context.
 */
int cp_samples_finish(struct cp_samples *s, const struct cp_trace *t);

/* The module whose range holds @addr, or NULL. */
const struct cp_module *cp_samples_module(const struct cp_samples *s,
					  uint64_t addr);

/* The PCs of sample @sm, innermost first. */
static inline const uint64_t *cp_sample_pcs(const struct cp_samples *s,
					    const struct cp_sample *sm)
{
	return s->pcs + sm->pc_off;
}

/* Free @s and everything it owns (NULL is fine). */
void cp_samples_free(struct cp_samples *s);

#endif /* CP_SAMPLES_H */
