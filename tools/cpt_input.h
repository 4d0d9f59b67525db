/*
 * cpt_input.h - load what a graph verb analyses (cp_input.h): a trace,
 * read, symbolized and turned into its PAG, or a plain-text PAG, with
 * progress and salvage warnings on stderr.
 */
#ifndef CPT_INPUT_H
#define CPT_INPUT_H

#include "cp_budget.h"
#include "cp_input.h"
#include "cp_stream.h"
#include "cpt.h"

/*
 * The trace at @path against the memory budget (--memory, else
 * cp_budget_default): 1 if its estimate is over it, with "N events need
 * about X in memory, over the budget of Y" in @why; 0 if it fits, 2 if it
 * fits but is large enough to say so on stderr (@why says how it fits);
 * -1 with c->err when the file cannot be read.  @est gets the estimate.
 */
int cpt_input_budget(struct cpt_ctx *c, const char *path,
		     struct cp_budget_est *est, char *why, size_t whylen);

/*
 * In memory or out of core, for a verb with a streaming mode: @forced
 * (--stream) or the trace at @path over the budget (cpt_input_budget)
 * streams, and stderr says so in one line with @gives (what the mode
 * gives, as a phrase); a large trace that fits is told it runs in memory.
 * Returns 1 to stream, 0 for memory, -1 with c->err: the file cannot be
 * read, or streaming was chosen with an option it cannot honour (@bad,
 * NULL if none is given).
 */
int cpt_choose_stream(struct cpt_ctx *c, const char *path, bool forced,
		      const char *bad, const char *gives);

/*
 * Set @so's progress report, procedure source and samples' symbolizer
 * from @c (its --procedures and --debuginfo-path), as cpt_stream_run
 * does.  @c must outlive the pass.
 */
void cpt_stream_opts_init(struct cpt_ctx *c, struct cp_stream_opts *so);

/*
 * The streaming analysis (cp_stream.h) of the trace @path with @so (its
 * progress set to @c's) into @ix and @s, with the reader's salvage and
 * the pass's repairs said on stderr as the loader says them (--strict:
 * refused), then the output opened (cpt_open_out).  CPT_BAD_INPUT with c->err on failure;
 * else render to c->out and call cpt_stream_close().
 */
enum cpt_status cpt_stream_run(struct cpt_ctx *c, const char *path,
			       struct cp_stream_opts *so,
			       struct cp_tindex *ix, struct cp_stream *s);
/* A streaming pass: cp_stream_run's contract, @ctx the caller's. */
typedef int (*cpt_pass_fn)(void *ctx, struct cp_stream *s,
			   struct cp_tindex *ix,
			   const struct cp_stream_opts *so, char *err,
			   size_t errlen);
/* cpt_stream_run with @pass (called with @pass_ctx) for cp_stream_run:
 * one that runs more beside it (cpt whatif's replay). */
enum cpt_status cpt_stream_run_pass(struct cpt_ctx *c, const char *path,
				    struct cp_stream_opts *so,
				    struct cp_tindex *ix, struct cp_stream *s,
				    cpt_pass_fn pass, void *pass_ctx);
/* Free @s and close @ix (cpt_stream_run's results). */
void cpt_stream_close(struct cp_tindex *ix, struct cp_stream *s);

/*
 * Load @path into @in with the common options of @c (--strict,
 * --procedures, --debuginfo-path); CPT_BAD_INPUT with "FILE: reason" in
 * c->err on failure.  Free with cp_input_free().
 */
enum cpt_status cpt_input_load(struct cpt_ctx *c, const char *path,
			       struct cp_input *in);

#endif /* CPT_INPUT_H */
