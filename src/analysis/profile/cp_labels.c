/*
 * cp_labels.c - the procedure table's measures by edge label, for a
 * plain-text PAG (cp_labels.h): one CPM pass, zeroing and Slack per label,
 * the k longest paths for the MBM.  O(k·e) time for the paths, O(e) for
 * the rest.
 */
#include "cp_labels.h"

#include <stdlib.h>
#include <string.h>

#include "cp_cpm.h"
#include "cp_kpaths.h"
#include "cp_mbm.h"
#include "cp_slack.h"
#include "cp_zero.h"

#define LABELS_K_DEFAULT 100

/* By CP time, then weight, then name. */
static int cmp_label(const void *a, const void *b)
{
	const struct cp_label_prof *x = a, *y = b;

	if (x->cp_ns != y->cp_ns)
		return x->cp_ns > y->cp_ns ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cp_labels_compute(struct cp_labels *lb, const struct cp_pag *g,
		      uint32_t k)
{
	uint32_t nl = g->nlabels;
	struct cp_groups gr = { .n = nl, .of = g->label };
	struct cp_cpm cpm;
	struct cp_kpaths kp;
	uint64_t *cp = calloc(nl + 1, sizeof(*cp));
	uint64_t *zl = calloc(nl + 1, sizeof(*zl));
	uint64_t *sl = calloc(nl + 1, sizeof(*sl));
	uint64_t *mb = calloc(nl + 1, sizeof(*mb));
	bool cpm_ok = false, kp_ok = false;
	int ret = -1;

	memset(lb, 0, sizeof(*lb));
	lb->rows = calloc(nl + 1, sizeof(*lb->rows));
	if (!cp || !zl || !sl || !mb || !lb->rows)
		goto out;
	if (cp_cpm_run(&cpm, g, NULL))
		goto out;
	cpm_ok = true;
	cp_cpm_group_time(&cpm, &gr, cp);
	if (cp_zero_all(&cpm, &gr, NULL, zl) ||
	    cp_slack_all(&cpm, &gr, NULL, sl))
		goto out;
	if (cp_kpaths_find(&kp, &cpm, k ? k : LABELS_K_DEFAULT))
		goto out;
	kp_ok = true;
	if (cp_mbm_compute(&kp, &gr, mb))
		goto out;
	for (uint32_t l = 0; l < nl; l++)
		lb->rows[l] = (struct cp_label_prof){
			.name = g->labels[l], .cp_ns = cp[l],
			.zero_ns = cpm.length - zl[l], .slack_ns = sl[l],
			.mbm_ns = mb[l],
		};
	for (uint32_t e = 0; e < g->ne; e++) {
		lb->total += g->w[e];
		if (g->label[e] != CP_PAG_NONE)
			lb->rows[g->label[e]].weight += g->w[e];
	}
	qsort(lb->rows, nl, sizeof(*lb->rows), cmp_label);
	lb->n = nl;
	lb->length = cpm.length;
	lb->npaths = kp.n;
	ret = 0;
out:
	if (kp_ok)
		cp_kpaths_free(&kp);
	if (cpm_ok)
		cp_cpm_free(&cpm);
	free(cp);
	free(zl);
	free(sl);
	free(mb);
	if (ret)
		cp_labels_free(lb);
	return ret;
}

void cp_labels_free(struct cp_labels *lb)
{
	free(lb->rows);
	memset(lb, 0, sizeof(*lb));
}
