/*
 * cp_labels.h - the report of a plain-text PAG: the procedure table's
 * measures by edge label (CP time, CP zeroing, Slack, MBM over the k
 * longest paths, total weight), the way cp_profile.h gives them by
 * procedure for a trace.
 *
 * Concurrency: the graph is only read; the result belongs to the caller.
 */
#ifndef CP_LABELS_H
#define CP_LABELS_H

#include <stdint.h>

#include "cp_pag.h"

/* One label's measures, in the graph's weight units. */
struct cp_label_prof {
	const char *name;	/* the graph's label string (not owned) */
	uint64_t weight;	/* total weight of its edges */
	uint64_t cp_ns;		/* its weight on the critical path */
	uint64_t zero_ns;	/* CP length saved if it took no time */
	uint64_t slack_ns;	/* Slack (the saving guaranteed) */
	uint64_t mbm_ns;	/* Maximum Benefit Metric */
};

struct cp_labels {
	uint32_t n;			/* = the graph's nlabels */
	struct cp_label_prof *rows;	/* by CP time, then weight, name */
	uint64_t total;			/* weight of all edges */
	uint64_t length;		/* critical path length */
	uint32_t npaths;		/* paths the MBM was taken over */
};

/*
 * Compute @lb for @g, the MBM over its @k longest paths (0: 100).
 * Returns 0, or -1 when memory runs out (@lb then holds nothing).
 * Free with cp_labels_free().
 */
int cp_labels_compute(struct cp_labels *lb, const struct cp_pag *g,
		      uint32_t k);
void cp_labels_free(struct cp_labels *lb);

#endif /* CP_LABELS_H */
