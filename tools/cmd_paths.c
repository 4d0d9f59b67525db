/*
 * cmd_paths.c - `cpt paths TRACE|PAG --k N [--full [M]]`: the N longest
 * root-to-leaf paths (near-critical paths), longest first, each with its
 * length and where it leaves the path it deviates from; --full M spells
 * the first M paths edge by edge, bare --full all of them.  The output is
 * cp_paths_out.h's.
 */
#include <stdlib.h>
#include <string.h>

#include "cp_cpm.h"
#include "cp_kpaths.h"
#include "cp_paths_out.h"
#include "cpt.h"
#include "cpt_input.h"

#define PATHS_K_DEFAULT 10

enum { OPT_FULL = CPT_OPT_OWN };

static const struct option paths_options[] = {
	CPT_COMMON_LONGOPTS,
	{ "k", required_argument, NULL, 'k' },
	{ "full", optional_argument, NULL, OPT_FULL },
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

/* Options into @k and @nfull; the input path into *@path.  -1 with
 * c->err. */
static int parse(struct cpt_ctx *c, int argc, char **argv, uint32_t *k,
		 uint32_t *nfull, const char **path)
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
		default:
			return -1;
		}
	}
	*path = cpt_one_input(c, argc, argv, "no trace or graph given");
	return *path ? 0 : -1;
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

	if (parse(c, argc, argv, &k, &po.nfull, &path))
		return CPT_USAGE;
	c->use = CP_BUDGET_PATHS;
	c->npaths = k;
	po.json = c->format == CPT_JSON;
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
