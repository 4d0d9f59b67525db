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

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_budget.h"
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
	enum cp_budget_use use;	/* what the verb holds beside the graph,
				 * for the memory estimate */
	uint32_t npaths;	/* near-critical paths it searches */
	bool budget_checked;	/* the verb weighed the trace against the
				 * budget and said what it chose: the
				 * loader does not do it again */
	bool help;		/* the verb's options held --help or -h */
};

/* Verbs: parse argv (argv[0] is the verb), do the work. */
enum cpt_status cpt_cmd_run(struct cpt_ctx *c, int argc, char **argv);
enum cpt_status cpt_cmd_report(struct cpt_ctx *c, int argc, char **argv);
enum cpt_status cpt_cmd_paths(struct cpt_ctx *c, int argc, char **argv);
enum cpt_status cpt_cmd_whatif(struct cpt_ctx *c, int argc, char **argv);
enum cpt_status cpt_cmd_export(struct cpt_ctx *c, int argc, char **argv);

/* ---- cpt_out.c ------------------------------------------------------ */

/*
 * Options: each verb parses its argv with getopt_long(3) through
 * cpt_getopt(), one option table per verb; a verb that reads a trace
 * starts it with CPT_COMMON_LONGOPTS (and has 'o' among its short
 * options; run has neither).  "--top 5" and "--top=5" both work
 * everywhere.  Ids of the common options:
 */
enum {
	CPT_OPT_FORMAT = 0x100,	/* --format text|json[|html] */
	CPT_OPT_STRICT,		/* --strict */
	CPT_OPT_PROCEDURES,	/* --procedures instrumented|sampled */
	CPT_OPT_DEBUGINFO,	/* --debuginfo-path DIRS */
	CPT_OPT_MEMORY,		/* --memory SIZE */
	CPT_OPT_OWN = 0x200,	/* a verb's own long-only options */
};

#define CPT_COMMON_LONGOPTS						\
	{ "format", required_argument, NULL, CPT_OPT_FORMAT },		\
	{ "output", required_argument, NULL, 'o' },			\
	{ "strict", no_argument, NULL, CPT_OPT_STRICT },		\
	{ "procedures", required_argument, NULL, CPT_OPT_PROCEDURES },	\
	{ "debuginfo-path", required_argument, NULL, CPT_OPT_DEBUGINFO },	\
	{ "memory", required_argument, NULL, CPT_OPT_MEMORY }

/*
 * The next option of @argv (argv[0] is the verb) by getopt_long(3) with
 * @shortopts (which must start with ':') and @longopts, the common options
 * applied on the way; its value in optarg.  Returns
 * the option's id, -1 when the options end (the operands are then
 * argv[optind..argc), moved behind the options), or '?' on an unknown
 * option, a missing value or a bad common one, with c->err set.  cpt.c
 * resets getopt before it calls a verb.
 */
int cpt_getopt(struct cpt_ctx *c, int argc, char **argv,
	       const char *shortopts, const struct option *longopts);
/*
 * The one operand of a verb that reads one input: argv[optind] when there
 * is exactly one; NULL with c->err ("@none" when there is none).
 */
const char *cpt_one_input(struct cpt_ctx *c, int argc, char **argv,
			  const char *none);
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
