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

int cpt_common_opt(struct cpt_ctx *c, int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	if (!strncmp(a, "--format=", 9))
		return set_format(c, a + 9) ? -1 : 1;
	if (!strcmp(a, "--strict")) {
		c->strict = true;
		return 1;
	}
	if (!strncmp(a, "--output=", 9)) {
		c->outpath = a + 9;
		return 1;
	}
	if (!strncmp(a, "--memory=", 9))
		return set_memory(c, a + 9) ? -1 : 1;
	if (strcmp(a, "--format") && strcmp(a, "-o") && strcmp(a, "--output") &&
	    strcmp(a, "--procedures") && strcmp(a, "--debuginfo-path") &&
	    strcmp(a, "--memory"))
		return 0;
	if (*i + 1 >= argc) {
		snprintf(c->err, sizeof(c->err), "%s needs a value", a);
		return -1;
	}
	(*i)++;
	if (!strcmp(a, "--format"))
		return set_format(c, argv[*i]) ? -1 : 1;
	if (!strcmp(a, "--procedures")) {
		c->procs = cp_procsrc_parse(argv[*i]);
		if (c->procs < 0) {
			snprintf(c->err, sizeof(c->err), "--procedures "
				 "instrumented or sampled, not '%s'", argv[*i]);
			return -1;
		}
		return 1;
	}
	if (!strcmp(a, "--debuginfo-path")) {
		c->debuginfo = argv[*i];
		return 1;
	}
	if (!strcmp(a, "--memory"))
		return set_memory(c, argv[*i]) ? -1 : 1;
	c->outpath = argv[*i];
	return 1;
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

void cpt_json_begin(struct cpt_ctx *c, struct cp_emit *e)
{
	cp_emit_init(e, cp_emit_file_write, c->out, true);
}

const char *cpt_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	double v = (double)ns;

	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.2f us", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", v / 1e6);
	else
		snprintf(buf, len, "%.3f s", v / 1e9);
	return buf;
}

const char *cpt_fmt_pct(char *buf, size_t len, double pct)
{
	snprintf(buf, len, "%.1f%%", pct);
	return buf;
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
