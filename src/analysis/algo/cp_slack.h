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

/*
 * A second thread's help with the walks of cp_slack_blocks_help (zeroing
 * runs beside Slack and mostly ends first): while the helper waits in
 * cp_slack_help_run, a walk with enough of its block left hands it half
 * of its lanes still walking, each thread then finishing the block with
 * its own copy of the scratch, and waits for it at the block's end.  A
 * lane's Slack is the same whichever thread walks it.
 * cp_slack_blocks_help tells the helper it is done on every return, so
 * cp_slack_help_run returns once both are; run them on two threads, or
 * one after the other in that order.  cp_slack_help_run returns 0, or -1
 * when a walk handed over ran out of memory (cp_slack_blocks_help then
 * fails too).
 */
struct cp_slack_help;
struct cp_slack_help *cp_slack_help_new(void);
void cp_slack_help_free(struct cp_slack_help *h);
int cp_slack_help_run(struct cp_slack_help *h);
int cp_slack_blocks_help(const struct cp_cuts *k, const struct cp_groups *gr,
			 const bool *only, uint64_t *slack,
			 struct cp_slack_help *h);
/* How many times lanes were handed to @h's helper so far. */
uint32_t cp_slack_help_parts(struct cp_slack_help *h);
/* Whether @h's helper waits for lanes now: it keeps waiting until a walk
 * hands it some or is done.  For tests that need hand-overs, which start
 * their walks once it does instead of racing the helper's start. */
bool cp_slack_help_idle(struct cp_slack_help *h);

/*
 * Set the fewest positions of a block left for a hand-over (default
 * 2^16; 0 also makes the walk look for an idle helper every 16 positions
 * instead of 4096).  Returns the previous value.  For tests.
 */
size_t cp_slack_set_fork_min(size_t n);

/* The same for @c, finding its cuts first. */
int cp_slack_all(const struct cp_cpm *c, const struct cp_groups *gr,
		 const bool *only, uint64_t *slack);

#endif /* CP_SLACK_H */
