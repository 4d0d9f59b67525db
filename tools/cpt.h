/*
 * cpt.h - what the cpt command table (cpt.c) and the verbs (cmd_*.c)
 * share: the result a verb returns, the common options, and the output
 * helpers of cpt_out.c.
 *
 * A verb never exits and never prints its own error: it fills ctx->err
 * with one line ("FILE: what is wrong") and returns a cpt_status; cpt.c
 * alone turns that into a message and an exit code.
 */
#ifndef CPT_H
#define CPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_emit.h"
#include "cp_progress.h"

enum cpt_status {
	CPT_OK = 0,		/* exit 0 */
	CPT_BAD_INPUT = 1,	/* exit 1: "cpt: <err>" */
	CPT_USAGE = 2,		/* exit 2: "cpt: <err>" and the usage line */
	CPT_CHILD = 3,		/* cpt run: exit with ctx->child_status */
};

enum cpt_format { CPT_TEXT, CPT_JSON, CPT_HTML };	/* html: report only */

struct cpt_ctx {
	const char *verb;
	enum cpt_format format;
	const char *outpath;	/* -o FILE, or NULL for stdout */
	FILE *out;		/* where the verb writes */
	char err[1024];		/* one line, without "cpt: " */
	int child_status;	/* CPT_CHILD: the exit code to return */
	struct cp_progress prog;	/* the progress line on stderr */
	int procs;		/* --procedures: enum cp_procsrc */
	const char *debuginfo;	/* --debuginfo-path DIRS, or NULL */
	bool strict;		/* --strict: refuse damaged or partial
				 * traces instead of salvaging them */
	uint64_t memory;	/* --memory SIZE in bytes, 0: the default
				 * (cp_budget_default) */
};

/* Verbs: parse argv (argv[0] is the verb), do the work. */
enum cpt_status cpt_cmd_run(struct cpt_ctx *c, int argc, char **argv);
enum cpt_status cpt_cmd_report(struct cpt_ctx *c, int argc, char **argv);
enum cpt_status cpt_cmd_paths(struct cpt_ctx *c, int argc, char **argv);
enum cpt_status cpt_cmd_whatif(struct cpt_ctx *c, int argc, char **argv);
enum cpt_status cpt_cmd_export(struct cpt_ctx *c, int argc, char **argv);

/* ---- cpt_out.c ------------------------------------------------------ */

/*
 * Common options: if argv[*i] is "--format X", "--format=X", "-o F",
 * "--output F", "--strict", "--procedures instrumented|sampled" or
 * "--debuginfo-path DIRS", consume it (advancing *i past its value) and
 * return 1;
 * return 0 if it is none of them, -1 on a bad value (ctx->err set).
 */
int cpt_common_opt(struct cpt_ctx *c, int argc, char **argv, int *i);
/* Parse a positive integer option value; -1 with ctx->err on error. */
int cpt_parse_u32(struct cpt_ctx *c, const char *opt, const char *s,
		  uint32_t *out);
/*
 * Parse a duration option value: a non-negative number with an optional
 * unit ns, us, ms or s (none: ns).  0, or -1 with ctx->err.
 */
int cpt_parse_ns(struct cpt_ctx *c, const char *opt, const char *s,
		 uint64_t *out);
/* Open the output (-o FILE or stdout); CPT_BAD_INPUT with err on failure. */
enum cpt_status cpt_open_out(struct cpt_ctx *c);

/* A JSON emitter on the output. */
void cpt_json_begin(struct cpt_ctx *c, struct cp_emit *e);

/* "40 ns", "1.50 us", "12.3 ms", "1.234 s" into @buf; returns @buf. */
const char *cpt_fmt_ns(char *buf, size_t len, uint64_t ns);
/* "12.5%" into @buf. */
const char *cpt_fmt_pct(char *buf, size_t len, double pct);

/*
 * Progress on stderr when it is a terminal and the work is long (@ctx is
 * the cpt_ctx; the signature of the analysis' progress callbacks).
 */
void cpt_progress(void *ctx, const char *phase, double frac);
/* Clear a progress line, if one was shown. */
void cpt_progress_done(struct cpt_ctx *c);

/* Is @path a trace (by its magic)? */
bool cpt_is_trace(const char *path);

#endif /* CPT_H */
