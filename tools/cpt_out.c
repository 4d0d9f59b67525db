/*
 * cpt_out.c - output helpers shared by the cpt verbs: common options,
 * the output file, number formatting and progress on stderr.
 */
#include "cpt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_budget.h"
#include "cp_sampled.h"
#include "cp_trace.h"

static int set_format(struct cpt_ctx *c, const char *v)
{
	if (!strcmp(v, "text")) {
		c->format = CPT_TEXT;
	} else if (!strcmp(v, "json")) {
		c->format = CPT_JSON;
	} else if (!strcmp(v, "html") && c->verb &&
		   !strcmp(c->verb, "report")) {
		c->format = CPT_HTML;
	} else {
		snprintf(c->err, sizeof(c->err),
			 "unknown format '%s' (text or json%s)", v,
			 c->verb && !strcmp(c->verb, "report") ? " or html" :
			 "");
		return -1;
	}
	return 0;
}

/* --memory SIZE: the budget of an in-memory analysis (cp_budget.h). */
static int set_memory(struct cpt_ctx *c, const char *s)
{
	if (!cp_budget_parse(s, &c->memory))
		return 0;
	snprintf(c->err, sizeof(c->err), "--memory takes a size such as "
		 "800M or 16G, not '%s'", s);
	return -1;
}

/*
 * Apply common option @id ('o' or a CPT_OPT_* below CPT_OPT_OWN) with
 * value @arg: 1 if it is one, 0 if not, -1 on a bad value (c->err set).
 */
static int common_opt(struct cpt_ctx *c, int id, const char *arg)
{
	switch (id) {
	case CPT_OPT_FORMAT:
		return set_format(c, arg) ? -1 : 1;
	case CPT_OPT_STRICT:
		c->strict = true;
		return 1;
	case 'o':
		c->outpath = arg;
		return 1;
	case CPT_OPT_MEMORY:
		return set_memory(c, arg) ? -1 : 1;
	case CPT_OPT_PROCEDURES:
		c->procs = cp_procsrc_parse(arg);
		if (c->procs < 0) {
			snprintf(c->err, sizeof(c->err), "--procedures "
				 "instrumented or sampled, not '%s'", arg);
			return -1;
		}
		return 1;
	case CPT_OPT_DEBUGINFO:
		c->debuginfo = arg;
		return 1;
	default:
		return 0;
	}
}

int cpt_getopt(struct cpt_ctx *c, int argc, char **argv,
	       const char *shortopts, const struct option *longopts)
{
	int id, r;

	opterr = 0;
	do {
		id = getopt_long(argc, argv, shortopts, longopts, NULL);
		r = common_opt(c, id, optarg);
	} while (r > 0);
	if (r < 0)
		return '?';
	if (id == ':') {
		snprintf(c->err, sizeof(c->err), "%s needs a value",
			 argv[optind - 1]);
		return '?';
	}
	if (id == '?') {
		/* the verb stops on it as on any usage error; main() then
		 * prints the verb's help and succeeds */
		c->help = optopt == 'h' ||
			  (!optopt && !strcmp(argv[optind - 1], "--help"));
		if (optopt)
			snprintf(c->err, sizeof(c->err),
				 "unknown option '-%c'", optopt);
		else
			snprintf(c->err, sizeof(c->err),
				 "unknown option '%s'", argv[optind - 1]);
	}
	return id;
}

const char *cpt_one_input(struct cpt_ctx *c, int argc, char **argv,
			  const char *none)
{
	if (optind >= argc) {
		snprintf(c->err, sizeof(c->err), "%s", none);
		return NULL;
	}
	if (optind + 1 < argc) {
		snprintf(c->err, sizeof(c->err),
			 "one input only ('%s' and '%s')", argv[optind],
			 argv[optind + 1]);
		return NULL;
	}
	return argv[optind];
}

int cpt_parse_u32(struct cpt_ctx *c, const char *opt, const char *s,
		  uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > UINT32_MAX ||
	    *s == '-') {
		snprintf(c->err, sizeof(c->err),
			 "%s wants a positive integer, not '%s'", opt, s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int cpt_parse_ns(struct cpt_ctx *c, const char *opt, const char *s,
		 uint64_t *out)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		      { "", 1 } };
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!errno && end != s && *s != '-' && v >= 0) {
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (strcmp(end, units[i].suffix))
				continue;
			v *= units[i].scale;
			if (v < 1.8e19) {
				*out = (uint64_t)(v + 0.5);
				return 0;
			}
		}
	}
	snprintf(c->err, sizeof(c->err), "%s wants a duration such as 250us, "
		 "1.5ms or 2s (plain numbers are ns), not '%s'", opt, s);
	return -1;
}

enum cpt_status cpt_open_out(struct cpt_ctx *c)
{
	if (!c->outpath || !strcmp(c->outpath, "-")) {
		c->out = stdout;
		return CPT_OK;
	}
	c->out = fopen(c->outpath, "w");
	if (!c->out) {
		snprintf(c->err, sizeof(c->err), "%s: %s", c->outpath,
			 strerror(errno));
		c->out = NULL;
		return CPT_BAD_INPUT;
	}
	return CPT_OK;
}

void cpt_progress(void *ctx, const char *phase, double frac)
{
	struct cpt_ctx *c = ctx;

	/* not while the result itself goes to the terminal */
	if (!c || (c->out && isatty(fileno(c->out))))
		return;
	cp_progress_set(&c->prog, phase, frac);
}

void cpt_progress_done(struct cpt_ctx *c)
{
	cp_progress_clear(&c->prog);
}

bool cpt_is_trace(const char *path)
{
	return cp_trace_is_trace(path);
}
