/*
 * cp_slack.h - the Slack metric ([HollingsworthMiller94]): per activity group,
 * the guaranteed improvement, i.e. how much of the group's time on the critical
 * path can be removed while that path stays critical, so that the run shortens
 * by exactly as much.  CP time is the upper bound of what tuning the group can
 * give, Slack the lower bound, logical zeroing in between.
 *
 * Exactly: walking the critical path (the one cp_cpm_run chose) from its
 * start, each of the group's CP edges is shortened as much as its own weight
 * and every slack segment spanning it (an off-CP path from a split node to
 * a merge node of the CP, [HollingsworthMiller94, §3]) allow, given the
 * reductions already made; Slack is the total.  Only the group's edges on the
 * CP are reduced. See cp_slack.c for the reading of the paper and the proof
 * that this is the largest such reduction.
 */
#ifndef CP_SLACK_H
#define CP_SLACK_H

#include "cp_cuts.h"

struct cp_slack_ws;	/* private workspace shared by cp_slack_group calls */

/*
 * Workspace for @c's graph: its cuts (cp_cuts.h), scratch for the walks
 * and their heaps.  Returns NULL when memory runs out.
 */
struct cp_slack_ws *cp_slack_ws_new(const struct cp_cpm *c);
void cp_slack_ws_free(struct cp_slack_ws *ws);

/*
 * Slack of group @gid.  One pass in topological order over each block
 * where the group has CP time, with a heap of the active slack segments:
 * O((v+e) log e) at most; nothing for a group without CP time.  Only reads
 * @c and @gr; @ws is modified (one thread per workspace).  Returns the
 * Slack (<= the group's CP time), or UINT64_MAX when memory runs out.
 */
uint64_t cp_slack_group(struct cp_slack_ws *ws, const struct cp_groups *gr,
			uint32_t gid);

/*
 * Fill @slack[@gr->n] with every group's Slack (@only as in
 * cp_zero_blocks), block by block of @k: per block, one walk for all the
 * groups with CP time there.  Returns 0, or -1 when memory runs out.  Only
 * reads @k and @gr.
 */
int cp_slack_blocks(const struct cp_cuts *k, const struct cp_groups *gr,
		    const bool *only, uint64_t *slack);

/* The same for @c, finding its cuts first. */
int cp_slack_all(const struct cp_cpm *c, const struct cp_groups *gr,
		 const bool *only, uint64_t *slack);

#endif /* CP_SLACK_H */
