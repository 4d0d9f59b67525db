/*
 * fuzz_pag.c - fuzz target of the text PAG reader (cp_pag_read_stream)
 * and of what `cpt report GRAPH.pag` runs on a graph it accepts: CPM,
 * the per-label CP time, zeroing, Slack, the k longest paths and MBM.
 */
#include "fuzz.h"

#include <stdlib.h>

#include "cp_cpm.h"
#include "cp_kpaths.h"
#include "cp_mbm.h"
#include "cp_pag.h"
#include "cp_slack.h"
#include "cp_zero.h"

static void report(const struct cp_pag *g)
{
	uint32_t nl = g->nlabels;
	struct cp_groups gr = { .n = nl, .of = g->label };
	uint64_t *cp = calloc(nl + 1, sizeof(*cp));
	uint64_t *zl = calloc(nl + 1, sizeof(*zl));
	uint64_t *sl = calloc(nl + 1, sizeof(*sl));
	uint64_t *mb = calloc(nl + 1, sizeof(*mb));
	struct cp_cpm cpm;
	struct cp_kpaths kp;

	if (!cp || !zl || !sl || !mb || cp_cpm_run(&cpm, g, NULL))
		goto out;
	cp_cpm_group_time(&cpm, &gr, cp);
	if (!cp_zero_all(&cpm, &gr, NULL, zl) &&
	    !cp_slack_all(&cpm, &gr, NULL, sl) &&
	    !cp_kpaths_find(&kp, &cpm, 16)) {
		cp_mbm_compute(&kp, &gr, mb);
		cp_kpaths_free(&kp);
	}
	cp_cpm_free(&cpm);
out:
	free(cp);
	free(zl);
	free(sl);
	free(mb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* fmemopen wants a size of at least one byte */
	static const uint8_t empty[1] = { '\n' };
	struct cp_pag g;
	char err[512] = "";
	FILE *f;

	f = fmemopen((void *)(size ? data : empty), size ? size : 1, "r");
	if (!f)
		abort();
	if (cp_pag_read_stream(&g, f, CP_FUZZ_NAME, err, sizeof(err))) {
		cp_fuzz_check_err(err, CP_FUZZ_NAME);
	} else {
		report(&g);
		cp_pag_free(&g);
	}
	fclose(f);
	return 0;
}
