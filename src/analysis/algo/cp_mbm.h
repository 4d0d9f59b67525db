/*
 * cp_mbm.h - the Maximum Benefit Metric ([Alexander94, §VI]): for each activity
 * group i, over the k longest paths P_1 (the CP) .. P_k,
 *
 *	MBM_k(i) = min over j <= k of ( d(i on P_j) + (d(CP) - d(P_j)) )
 *
 * the most that making activity i free can shorten the run, as far as the
 * k paths can tell.  MBM_1(i) is i's CP time; MBM_k falls as k grows.
 */
#ifndef CP_MBM_H
#define CP_MBM_H

#include "cp_kpaths.h"

/*
 * Fill @mbm[@gr->n] with MBM_n(i) over the @kp->n paths found (n >= 1; with
 * no path every MBM is 0).  Weights are those the paths were found with.
 * Time O(min(sum of the paths' differences, vertices) x groups per edge
 * + paths x groups), memory O(groups + vertices).
 * Returns 0, or -1 when memory runs out.  Only reads @kp.
 */
int cp_mbm_compute(const struct cp_kpaths *kp, const struct cp_groups *gr,
		   uint64_t *mbm);

/*
 * The same with a budget of @budget continuation edges for the walk
 * between a path and its parent (cp_mbm.c); spent, the rest comes from
 * one pass over the least-slack forest.  cp_mbm_compute gives it a few
 * per vertex; 0 takes the forest's pass at once (the tests compare the
 * two ways).
 */
int cp_mbm_compute_budget(const struct cp_kpaths *kp,
			  const struct cp_groups *gr, uint64_t *mbm,
			  uint64_t budget);

#endif /* CP_MBM_H */
