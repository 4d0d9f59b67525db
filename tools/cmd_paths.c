/*
 * cmd_paths.c - `cpt paths TRACE|PAG --k N [--full [M]]`: the N longest
 * root-to-leaf paths (near-critical paths), longest first, each with its
 * length and where it leaves the path it deviates from; --full M spells
 * the first M paths edge by edge, bare --full all of them.  A trace over
 * --memory, or with --stream, is analysed out of core (cp_stream_kp.c):
 * each path's length, parent and deviation, not its edges.  The output
 * is cp_paths_out.h's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_cpm.h"
#include "cp_kpaths.h"
#include "cp_paths_out.h"
#include "cp_stream.h"
#include "cpt.h"
#include "cpt_input.h"

#define PATHS_K_DEFAULT 10

enum { OPT_FULL = CPT_OPT_OWN, OPT_STREAM };

static const struct option paths_options[] = {
	CPT_COMMON_LONGOPTS,
	{ "k", required_argument, NULL, 'k' },
	{ "full", optional_argument, NULL, OPT_FULL },
	{ "stream", no_argument, NULL, OPT_STREAM },
	{ NULL, 0, NULL, 0 },
};

/*
 * --full N or --full=N: the first N paths; bare --full: all of them.  A
 * number after a bare --full is its value (getopt only takes "--full=N").
 */
static int parse_full(struct cpt_ctx *c, int argc, char **argv,
		      uint32_t *nfull)
{
	const char *v = optarg;

	if (!v && optind < argc && argv[optind][0] >= '0' &&
	    argv[optind][0] <= '9')
		v = argv[optind++];
	*nfull = UINT32_MAX;
	return v ? cpt_parse_u32(c, "--full", v, nfull) : 0;
}

/* Options into @k, @nfull and @stream; the input path into *@path.  -1
 * with c->err. */
static int parse(struct cpt_ctx *c, int argc, char **argv, uint32_t *k,
		 uint32_t *nfull, bool *stream, const char **path)
{
	int id;

	while ((id = cpt_getopt(c, argc, argv, ":o:k:", paths_options)) !=
	       -1) {
		switch (id) {
		case 'k':
			if (cpt_parse_u32(c, "--k", optarg, k))
				return -1;
			break;
		case OPT_FULL:
			if (parse_full(c, argc, argv, nfull))
				return -1;
			break;
		case OPT_STREAM:
			*stream = true;
			break;
		default:
			return -1;
		}
	}
	*path = cpt_one_input(c, argc, argv, "no trace or graph given");
	return *path ? 0 : -1;
}

/* The k longest paths of the trace @path, streamed (cp_stream_kp.c). */
static enum cpt_status paths_stream(struct cpt_ctx *c, const char *path,
				    uint32_t k)
{
	struct cp_stream_opts so = { .lengths_only = true, .kpaths = k };
	struct cp_tindex ix;
	struct cp_stream s;
	enum cpt_status st = cpt_stream_run(c, path, &so, &ix, &s);

	if (st)
		return st;
	cp_paths_stream_out(c->out, path, &s, k, c->format == CPT_JSON);
	if (s.paths_passes > 1)
		fprintf(stderr, "cpt: %s: the paths took %u passes: the "
			"sidetracks kept could not tell which come next until "
			"the heaps had room for %" PRIu64 " nodes\n", path,
			s.paths_passes, s.kp_room);
	if (s.paths_cut)
		fprintf(stderr, "cpt: %s: %u of the %u paths: the sidetracks "
			"kept cannot tell which come next (--memory SIZE)\n",
			path, s.npaths, k);
	cpt_stream_close(&ix, &s);
	return CPT_OK;
}

enum cpt_status cpt_cmd_paths(struct cpt_ctx *c, int argc, char **argv)
{
	const char *path;
	struct cp_paths_opts po = {
		.progress = cpt_progress, .progress_ctx = c,
	};
	uint32_t k = PATHS_K_DEFAULT;
	struct cp_input in;
	struct cp_cpm cpm;
	struct cp_kpaths kp;
	enum cpt_status st;
	bool stream = false;
	int mode;

	if (parse(c, argc, argv, &k, &po.nfull, &stream, &path))
		return CPT_USAGE;
	c->use = CP_BUDGET_PATHS;
	c->npaths = k;
	po.json = c->format == CPT_JSON;
	if (cpt_is_trace(path)) {
		mode = cpt_choose_stream(c, path, stream, po.nfull ?
					 "--full (paths edge by edge)" : NULL,
					 "each path's length and deviation, "
					 "not its edges");
		if (mode < 0)
			return stream ? CPT_USAGE : CPT_BAD_INPUT;
		if (mode)
			return paths_stream(c, path, k);
	} else if (stream) {
		snprintf(c->err, sizeof(c->err), "%s: --stream needs a trace, "
			 "not a plain PAG", path);
		return CPT_USAGE;
	}
	st = cpt_input_load(c, path, &in);
	if (st)
		return st;
	if (in.is_trace)
		cp_trace_drop_replay(&in.t);	/* the graph has the edges */
	cpt_progress(c, "critical path", 0.0);
	if (cp_cpm_run(&cpm, in.g, NULL)) {
		snprintf(c->err, sizeof(c->err), "%s: out of memory", path);
		cp_input_free(&in);
		return CPT_BAD_INPUT;
	}
	cp_cpm_drop_et(&cpm);	/* k paths read the latest times only */
	cpt_progress(c, "near-critical paths", 0.0);
	if (cp_kpaths_find(&kp, &cpm, k)) {
		snprintf(c->err, sizeof(c->err), "%s: out of memory", path);
		cp_cpm_free(&cpm);
		cp_input_free(&in);
		return CPT_BAD_INPUT;
	}
	st = cpt_open_out(c);
	if (st == CPT_OK) {
		cpt_progress_done(c);
		if (cp_paths_out(c->out, &in, &kp, &po)) {
			snprintf(c->err, sizeof(c->err), "%s: out of memory",
				 path);
			st = CPT_BAD_INPUT;
		}
		cpt_progress_done(c);
	}
	cp_kpaths_free(&kp);
	cp_cpm_free(&cpm);
	cp_input_free(&in);
	return st;
}
