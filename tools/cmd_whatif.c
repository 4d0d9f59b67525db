/*
 * cmd_whatif.c - `cpt whatif TRACE|PAG --scale NAME=FACTOR ...`: the
 * predicted run time if procedures (trace) or labelled edges (PAG) took
 * FACTOR times as long, by simulation and on the fixed graph.  --cpus N
 * simulates N processors shared by the threads (for a program that ran
 * more threads than cores, traced with the cpu clock); --wake has every
 * woken thread pay the wake-up latency it had in the recording.  The
 * output is cp_whatif_out.h's.  A trace whose estimate is over the memory
 * budget (cp_budget.h), or any trace with --stream, is analysed out of
 * core (cp_stream.h): the fixed-graph prediction only, which stderr says
 * in one line.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_sampled.h"
#include "cp_stream.h"
#include "cp_whatif.h"
#include "cp_whatif_out.h"
#include "cpt.h"
#include "cpt_input.h"

#define MAX_SCALES 64

static int parse_scale(struct cpt_ctx *c, char *arg,
		       struct cp_whatif_scale *sc)
{
	char *eq = strrchr(arg, '='), *end;
	double f;

	if (!eq || eq == arg || !eq[1]) {
		snprintf(c->err, sizeof(c->err),
			 "--scale wants NAME=FACTOR, not '%s'", arg);
		return -1;
	}
	errno = 0;
	f = strtod(eq + 1, &end);
	if (errno || *end || !isfinite(f) || f < 0) {
		snprintf(c->err, sizeof(c->err),
			 "--scale %s: FACTOR must be a number >= 0", arg);
		return -1;
	}
	*eq = '\0';
	sc->name = arg;
	sc->factor = f;
	return 0;
}

/* --cpus N: 1 .. 4096 processors. */
static int parse_cpus(struct cpt_ctx *c, const char *arg, uint32_t *cpus)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < 1 || n > 4096) {
		snprintf(c->err, sizeof(c->err),
			 "--cpus wants a number of processors from 1 to 4096, "
			 "not '%s'", arg);
		return -1;
	}
	*cpus = (uint32_t)n;
	return 0;
}

enum { OPT_EXCLUSIVE = CPT_OPT_OWN, OPT_WAKE, OPT_CPUS, OPT_STREAM };

static const struct option whatif_options[] = {
	CPT_COMMON_LONGOPTS,
	{ "scale", required_argument, NULL, 's' },
	{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
	{ "wake", no_argument, NULL, OPT_WAKE },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "stream", no_argument, NULL, OPT_STREAM },
	{ NULL, 0, NULL, 0 },
};

struct wopts {
	struct cp_whatif_scale sc[MAX_SCALES];
	uint32_t nsc, cpus;
	bool exclusive, wake;
	bool stream;		/* --stream: out of core, always */
};

/* Options into @o; the input path into *@path.  -1 with c->err. */
static int parse(struct cpt_ctx *c, int argc, char **argv, struct wopts *o,
		 const char **path)
{
	int id;

	while ((id = cpt_getopt(c, argc, argv, ":o:s:", whatif_options)) !=
	       -1) {
		switch (id) {
		case 's':
			if (o->nsc == MAX_SCALES) {
				snprintf(c->err, sizeof(c->err),
					 "at most %d --scale options",
					 MAX_SCALES);
				return -1;
			}
			if (parse_scale(c, optarg, &o->sc[o->nsc++]))
				return -1;
			break;
		case OPT_EXCLUSIVE:
			o->exclusive = true;
			break;
		case OPT_WAKE:
			o->wake = true;
			break;
		case OPT_CPUS:
			if (parse_cpus(c, optarg, &o->cpus))
				return -1;
			break;
		case OPT_STREAM:
			o->stream = true;
			break;
		default:
			return -1;
		}
	}
	*path = cpt_one_input(c, argc, argv, "no trace or graph given");
	if (!*path)
		return -1;
	if (!o->nsc) {
		snprintf(c->err, sizeof(c->err),
			 "no --scale NAME=FACTOR given");
		return -1;
	}
	return 0;
}

/* The streaming what-if of the trace @path: the fixed graph only. */
static enum cpt_status whatif_stream(struct cpt_ctx *c, const char *path,
				     const struct wopts *o)
{
	struct cp_stream_opts so = {
		.exclusive = o->exclusive, .scale = o->sc, .nscale = o->nsc,
	};
	struct cp_tindex ix;
	struct cp_stream s;
	enum cpt_status st = cpt_stream_run(c, path, &so, &ix, &s);

	if (st)
		return st;
	cp_whatif_out_stream(c->out, &ix, o->sc, o->nsc, &s,
			     c->format == CPT_JSON);
	cpt_stream_close(&ix, &s);
	return CPT_OK;
}

/*
 * Streamed (1), in memory (0), or refused (-1 with c->err; *@st says
 * how): the replay's options and a plain PAG cannot be streamed.
 */
static int choose(struct cpt_ctx *c, const char *path, const struct wopts *o,
		  enum cpt_status *st)
{
	const char *bad = o->cpus ? "--cpus" : o->wake ? "--wake" :
			  c->procs == CP_PROCS_SAMPLED ? "--procedures sampled" :
			  NULL;
	int r;

	*st = CPT_USAGE;
	if (!cpt_is_trace(path)) {
		if (!o->stream)
			return 0;
		snprintf(c->err, sizeof(c->err), "%s: --stream needs a trace, "
			 "not a plain PAG", path);
		return -1;
	}
	r = cpt_choose_stream(c, path, o->stream, bad, "the fixed-graph "
			      "prediction only, no replay");
	if (r < 0 && !o->stream)
		*st = CPT_BAD_INPUT;
	return r;
}

enum cpt_status cpt_cmd_whatif(struct cpt_ctx *c, int argc, char **argv)
{
	struct wopts o = { .nsc = 0 };
	struct cp_whatif_result r;
	struct cp_input in;
	const char *path;
	enum cpt_status st;
	int ret;

	if (parse(c, argc, argv, &o, &path))
		return CPT_USAGE;
	ret = choose(c, path, &o, &st);
	if (ret < 0)
		return st;
	if (ret)
		return whatif_stream(c, path, &o);
	st = cpt_input_load(c, path, &in);
	if (st)
		return st;
	if ((o.cpus || o.wake) && !in.is_trace) {
		snprintf(c->err, sizeof(c->err),
			 "%s: %s needs a trace (a plain graph has no "
			 "events to replay)", path,
			 o.cpus ? "--cpus" : "--wake");
		cp_input_free(&in);
		return CPT_USAGE;
	}
	cpt_progress(c, "simulating", 0.0);
	if (in.is_trace)
		ret = cp_whatif_trace(&in.tp, o.sc, o.nsc, o.exclusive,
				      o.cpus, o.wake, &r, c->err,
				      sizeof(c->err));
	else
		ret = cp_whatif_pag(in.g, o.sc, o.nsc, &r, c->err,
				    sizeof(c->err));
	if (ret) {
		if (!in.is_trace) {
			/* name the file in the message */
			char tmp[sizeof(c->err)];

			snprintf(tmp, sizeof(tmp), "%s", c->err);
			snprintf(c->err, sizeof(c->err), "%s: %.900s", path,
				 tmp);
		}
		cp_input_free(&in);
		return CPT_BAD_INPUT;
	}
	st = cpt_open_out(c);
	if (st == CPT_OK) {
		cpt_progress_done(c);
		cp_whatif_out(c->out, &in, o.sc, o.nsc, o.exclusive, &r,
			      c->format == CPT_JSON);
	}
	cp_input_free(&in);
	return st;
}
