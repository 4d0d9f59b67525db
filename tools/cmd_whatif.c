/*
 * cmd_whatif.c - `cpt whatif TRACE|PAG --scale NAME=FACTOR ...`: the
 * predicted run time if procedures (trace) or labelled edges (PAG) took
 * FACTOR times as long, by simulation and on the fixed graph.  --cpus N
 * simulates N processors shared by the threads (for a program that ran
 * more threads than cores, traced with the cpu clock); --wake has every
 * woken thread pay the wake-up latency it had in the recording.  The
 * output is cp_whatif_out.h's.  A trace is analysed out of core, over
 * the file (cp_stream.h for the fixed graph, cp_stream_replay.h for the
 * replay), with --stream or when its estimate is over the memory budget
 * (cp_budget.h), which stderr says in one line; and quietly when it fits
 * and the streamed document is the in-memory one (a clean trace, no
 * --cpus or --wake), because that is faster and
 * smaller (doc/design.md §6).  Otherwise it is loaded.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_sampled.h"
#include "cp_symbolize.h"
#include "cp_stream.h"
#include "cp_stream_replay.h"
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

enum { OPT_EXCLUSIVE = CPT_OPT_OWN, OPT_WAKE, OPT_CPUS, OPT_STREAM,
       OPT_IN_MEMORY };

static const struct option whatif_options[] = {
	CPT_COMMON_LONGOPTS,
	{ "scale", required_argument, NULL, 's' },
	{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
	{ "wake", no_argument, NULL, OPT_WAKE },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "stream", no_argument, NULL, OPT_STREAM },
	{ "in-memory", no_argument, NULL, OPT_IN_MEMORY },
	{ NULL, 0, NULL, 0 },
};

struct wopts {
	struct cp_whatif_scale sc[MAX_SCALES];
	uint32_t nsc, cpus;
	bool exclusive, wake;
	bool stream;		/* --stream: out of core, always */
	bool in_memory;		/* --in-memory: loaded, unless over budget */
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
		case OPT_IN_MEMORY:
			o->in_memory = true;
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

/*
 * The samples each scaling of @o rests on into @ns[0..o->nsc) from the
 * streamed @s (its procedures' counts, as cp_sampled_count's); @ns, or
 * NULL when the procedures are not sampled.
 */
static const uint64_t *stream_samples(const struct cp_stream *s,
				      const struct wopts *o, uint64_t *ns)
{
	if (!s->sampled)
		return NULL;
	for (uint32_t i = 0; i < o->nsc; i++) {
		ns[i] = UINT64_MAX;
		for (uint32_t k = 0; k < s->nprocs; k++)
			if (!strcmp(s->procs[k].name, o->sc[i].name))
				ns[i] = s->procs[k].samples;
	}
	return ns;
}

/* Why the replay of @rp is not given, or NULL if it is. */
static const char *no_replay(const struct cp_sreplay *rp,
			     const struct cp_stream *s)
{
	if (!rp->clean)
		return rp->why;
	return s->nrepairs ? "the trace holds dependencies on events it does "
			     "not hold" : NULL;
}

/* cpt_stream_run_pass's pass: both predictions, the replay into @ctx
 * (a struct cp_sreplay). */
static int whatif_pass(void *ctx, struct cp_stream *s, struct cp_tindex *ix,
		       const struct cp_stream_opts *so, char *err,
		       size_t errlen)
{
	return cp_stream_whatif_run(ix, so, s, ctx, err, errlen);
}

/* Write the streamed what-if of @ix: the fixed graph @s, the replays @rp. */
static void stream_write(struct cpt_ctx *c, const struct cp_tindex *ix,
			 const struct wopts *o, const struct cp_stream *s,
			 const struct cp_sreplay *rp)
{
	uint64_t ns[MAX_SCALES];
	struct cp_whatif_result r;

	cp_stream_whatif_result(s, rp, &r);
	cp_whatif_out_stream(c->out, ix, o->sc, o->nsc, o->exclusive, &r,
			     no_replay(rp, s), stream_samples(s, o, ns),
			     c->format == CPT_JSON);
}

/* The streaming what-if of the trace @path (--stream, over budget). */
static enum cpt_status whatif_stream(struct cpt_ctx *c, const char *path,
				     const struct wopts *o)
{
	struct cp_stream_opts so = {
		.exclusive = o->exclusive, .scale = o->sc, .nscale = o->nsc,
		.lengths_only = true,
	};
	struct cp_sreplay rp;
	struct cp_tindex ix;
	struct cp_stream s;
	enum cpt_status st = cpt_stream_run_pass(c, path, &so, &ix, &s,
						 whatif_pass, &rp);

	if (st)
		return st;
	if (cp_whatif_check_range(path, s.useful_ns, s.scaled_ns, s.wait_ns,
				  o->sc, o->nsc, c->err, sizeof(c->err))) {
		cpt_stream_close(&ix, &s);
		return CPT_BAD_INPUT;
	}
	stream_write(c, &ix, o, &s, &rp);
	cpt_stream_close(&ix, &s);
	return CPT_OK;
}

/*
 * Can every scaled name be an instrumented procedure or region of @t: a
 * symbol (or its demangled name) or a region's string?  If one cannot,
 * the streaming pass would not find it (a procedure known from sampled
 * stacks only, or a typo): in a trace with samples the loader then finds
 * it or says so, without a pass in vain.
 */
static bool names_known(const struct cp_trace *t, const struct wopts *o)
{
	for (uint32_t i = 0; i < o->nsc; i++) {
		bool found = false;

		for (uint32_t k = 0; k < t->nsyms && !found; k++) {
			char *dm = cp_symbolize_demangle(t->syms[k].name);

			found = !strcmp(dm ? dm : t->syms[k].name,
					o->sc[i].name);
			free(dm);
		}
		for (uint32_t k = 0; k < t->nstrs && !found; k++)
			found = !strcmp(t->strs[k].text, o->sc[i].name);
		if (!found)
			return false;
	}
	return true;
}

/*
 * The default for a trace that fits: streamed, when the streamed document
 * is the in-memory one (doc/design.md §6): a clean trace, nothing the
 * reader would repair.  Returns true with *@st when it wrote the output
 * or found a scaled name to be no procedure of the clean trace (the
 * loader would say the same, after reading it all), false when the trace
 * is to be loaded instead (anything else amiss, errors included: the
 * loader says them).
 */
static bool whatif_quiet(struct cpt_ctx *c, const char *path,
			 const struct wopts *o, enum cpt_status *st)
{
	struct cp_stream_opts so = {
		.exclusive = o->exclusive, .scale = o->sc, .nscale = o->nsc,
		.lengths_only = true,
	};
	struct cp_sreplay rp;
	struct cp_tindex ix;
	struct cp_stream s;
	bool done = false;
	int ret;

	cpt_stream_opts_init(c, &so);
	if (cp_tindex_open(&ix, path, c->err, sizeof(c->err)))
		return false;
	/* sampled procedures (their names known only once symbolized): a
	 * name that is none fails the passes */
	ret = ix.t.partial || ix.t.nrepairs ||
	      (ix.t.samples && ix.t.samples->n &&
	       (c->procs == CP_PROCS_INSTRUMENTED ||
		cp_stream_procs_instrumented(&ix)) && !names_known(&ix.t, o)) ?
	      -1 : cp_stream_whatif_run(&ix, &so, &s, &rp, c->err,
					sizeof(c->err));
	if (ret == CP_STREAM_NO_PROC && !ix.t.nrepairs) {
		*st = CPT_BAD_INPUT;
		cp_tindex_close(&ix);
		return true;
	}
	if (ret) {
		c->err[0] = '\0';
		cp_tindex_close(&ix);
		return false;
	}
	/* one that could wrap is left to the loader, which says so */
	if (!ix.t.nrepairs && !no_replay(&rp, &s) &&
	    !cp_whatif_check_range(path, s.useful_ns, s.scaled_ns, s.wait_ns,
				   o->sc, o->nsc, c->err, sizeof(c->err))) {
		*st = cpt_open_out(c);
		cp_sampled_warn(stderr, "cpt: warning", &ix.t);
		if (*st == CPT_OK) {
			cpt_progress_done(c);
			stream_write(c, &ix, o, &s, &rp);
		}
		done = true;
	}
	c->err[0] = '\0';
	cpt_stream_close(&ix, &s);
	return done;
}

/*
 * Streamed (1), in memory (0), streamed if clean, else in memory (2), or
 * refused (-1 with c->err; *@st says how): a plain PAG, the replay's
 * --cpus and --wake are not streamed.
 */
static int choose(struct cpt_ctx *c, const char *path, const struct wopts *o,
		  enum cpt_status *st)
{
	const char *bad = o->cpus ? "--cpus" : o->wake ? "--wake" : NULL;
	struct cp_budget_est est;
	char why[200];
	int r;

	*st = CPT_USAGE;
	if (!cpt_is_trace(path)) {
		if (!o->stream)
			return 0;
		snprintf(c->err, sizeof(c->err), "%s: --stream needs a trace, "
			 "not a plain PAG", path);
		return -1;
	}
	if (!o->stream && !o->in_memory && !bad) {
		r = cpt_input_budget(c, path, &est, why, sizeof(why));
		if (r < 0) {
			*st = CPT_BAD_INPUT;
			return -1;
		}
		if (r != 1)
			return 2;
	}
	r = cpt_choose_stream(c, path, o->stream, bad, "both predictions, "
			      "no --cpus or --wake");
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
	/* the replay on processors holds more (a page's peak) */
	c->use = o.cpus || o.wake ? CP_BUDGET_PAGE : CP_BUDGET_GRAPH;
	ret = choose(c, path, &o, &st);
	if (ret < 0)
		return st;
	if (ret == 1)
		return whatif_stream(c, path, &o);
	if (ret == 2 && whatif_quiet(c, path, &o, &st))
		return st;
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
