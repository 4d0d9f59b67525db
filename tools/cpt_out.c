/*
 * cpt_out.c - output helpers shared by the cpt verbs: common options,
 * the output file, number formatting and progress on stderr.
 */
#include "cpt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cp_trace.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
	if (strcmp(a, "--format") && strcmp(a, "-o") && strcmp(a, "--output"))
		return 0;
	if (*i + 1 >= argc) {
		snprintf(c->err, sizeof(c->err), "%s needs a value", a);
		return -1;
	}
	(*i)++;
	if (!strcmp(a, "--format"))
		return set_format(c, argv[*i]) ? -1 : 1;
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

	(void)frac;
	if (!c || !isatty(STDERR_FILENO))
		return;
	if (!c->t0)
		c->t0 = now_s();
	if (now_s() - c->t0 < 0.5)
		return;		/* short analyses stay quiet */
	fprintf(stderr, "\rcpt: %s ...%-20s", phase, "");
	c->progress_shown = true;
}

void cpt_progress_done(struct cpt_ctx *c)
{
	if (c->progress_shown) {
		fprintf(stderr, "\r%-60s\r", "");
		c->progress_shown = false;
	}
}

bool cpt_is_trace(const char *path)
{
	return cp_trace_is_trace(path);
}
