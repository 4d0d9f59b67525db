/*
 * cpt.c - the cpthread analyzer's command table.
 *
 * Each verb lives in cmd_<verb>.c and returns a cpt_status with a
 * one-line reason; this file is the only place that prints errors and
 * chooses exit codes: 0 success, 1 bad input ("cpt: FILE: reason"), 2 usage
 * error (the reason and the verb's usage line), and for `cpt run` the
 * program's own status.  It also checks that everything written to the
 * output really got there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_version.h"
#include "cpt.h"

struct cpt_verb {
	const char *name;
	enum cpt_status (*fn)(struct cpt_ctx *c, int argc, char **argv);
	const char *usage;
	const char *help;
};

static const struct cpt_verb verbs[] = {
	{ "run", cpt_cmd_run,
	  "cpt run [--mode online|trace] [--clock wall|cpu] [--funcs a,b] "
	  "[--exclusive] [--report F] [--trace F] -- PROGRAM [ARGS...]",
	  "run a program under the tracer (preloaded unless it links "
	  "libcpthread)" },
	{ "report", cpt_cmd_report,
	  "cpt report TRACE|PAG [--k N] [--top N] [--exclusive] [--strict] "
	  "[--gprof GMON --exe PROGRAM] [--by program|thread|procedure|"
	  "object] [--procedures instrumented|sampled] [--debuginfo-path DIRS] "
	  "[--memory SIZE] [--stream] [--no-slack] [--format text|json|html] "
	  "[-o FILE]",
	  "critical-path report: CP, zeroing, Slack, MBM per procedure; "
	  "threads; objects (--stream, or over --memory: out of core)" },
	{ "paths", cpt_cmd_paths,
	  "cpt paths TRACE|PAG [--k N] [--full [M]] [--strict] "
	  "[--procedures instrumented|sampled] [--debuginfo-path DIRS] "
	  "[--memory SIZE] [--stream] [--format text|json] [-o FILE]",
	  "the N longest (near-critical) paths, edge by edge (--stream, or "
	  "over --memory: out of core, each path's deviation)" },
	{ "whatif", cpt_cmd_whatif,
	  "cpt whatif TRACE|PAG --scale NAME=FACTOR [--scale ...] "
	  "[--exclusive] [--cpus N] [--wake] [--strict] [--procedures "
	  "instrumented|sampled] [--debuginfo-path DIRS] "
	  "[--memory SIZE] [--stream|--in-memory] [--format text|json] "
	  "[-o FILE]",
	  "predicted run time if procedures took FACTOR times as long" },
	{ "export", cpt_cmd_export,
	  "cpt export TRACE|PAG --format chrome|folded|dot [--weight cp|cpu] "
	  "[--threads] [--no-flows] [--window FROM:TO] [--min-slice DUR] "
	  "[--max-edges N] [--strict] [--procedures instrumented|sampled] "
	  "[--debuginfo-path DIRS] [--memory SIZE] [-o FILE]",
	  "timeline (Chrome trace), flame graph stacks or dot graph" },
};

#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static void usage_all(FILE *f)
{
	fprintf(f, "usage: cpt VERB [OPTIONS]   (cpt help VERB for more)\n");
	for (size_t i = 0; i < NVERBS; i++)
		fprintf(f, "  %-7s %s\n", verbs[i].name, verbs[i].help);
}

static const struct cpt_verb *find_verb(const char *name)
{
	for (size_t i = 0; i < NVERBS; i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

/* Did every byte reach the output?  Returns 0 or -1 with c->err set. */
static int close_out(struct cpt_ctx *c)
{
	FILE *f = c->out;
	const char *name = c->outpath && strcmp(c->outpath, "-") ?
		c->outpath : "standard output";
	int bad;

	if (!f)
		return 0;
	c->out = NULL;
	bad = fflush(f) != 0 || ferror(f);
	if (f != stdout)
		bad = fclose(f) != 0 || bad;
	if (bad) {
		snprintf(c->err, sizeof(c->err), "%s: write error: %s", name,
			 strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* cpt help VERB: its usage and help on stdout; the exit code. */
static int verb_help(const struct cpt_verb *v)
{
	printf("usage: %s\n  %s\n", v->usage, v->help);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct cpt_ctx c;
	const struct cpt_verb *v;
	enum cpt_status st;

	memset(&c, 0, sizeof(c));
	if (argc < 2) {
		usage_all(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage_all(stdout);
		return fflush(stdout) || ferror(stdout) ? 1 : 0;
	}
	if (!strcmp(argv[1], "help")) {
		v = find_verb(argv[2]);
		if (!v) {
			fprintf(stderr, "cpt: unknown verb '%s'\n", argv[2]);
			usage_all(stderr);
			return 2;
		}
		return verb_help(v);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("cpt (cpthread) %s\n", CP_VERSION);
		return fflush(stdout) || ferror(stdout) ? 1 : 0;
	}
	v = find_verb(argv[1]);
	if (!v) {
		fprintf(stderr, "cpt: unknown verb '%s'\n", argv[1]);
		usage_all(stderr);
		return 2;
	}
	c.verb = v->name;
	cp_progress_init(&c.prog, stderr);
	optind = 0;	/* getopt starts afresh on the verb's argv */
	st = v->fn(&c, argc - 1, argv + 1);
	cpt_progress_done(&c);
	if (close_out(&c) && st == CPT_OK)
		st = CPT_BAD_INPUT;
	switch (st) {
	case CPT_OK:
		return 0;
	case CPT_CHILD:
		return c.child_status;
	case CPT_USAGE:
		if (c.help)	/* cpt VERB ... --help: as cpt help VERB */
			return verb_help(v);
		fprintf(stderr, "cpt: %s\nusage: %s\n", c.err, v->usage);
		return 2;
	case CPT_BAD_INPUT:
	default:
		fprintf(stderr, "cpt: %s\n", c.err);
		return 1;
	}
}
