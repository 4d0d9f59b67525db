/*
 * cpt_input.h - load what a graph verb analyses (cp_input.h): a trace,
 * read, symbolized and turned into its PAG, or a plain-text PAG, with
 * progress and salvage warnings on stderr.
 */
#ifndef CPT_INPUT_H
#define CPT_INPUT_H

#include "cp_budget.h"
#include "cp_input.h"
#include "cpt.h"

/*
 * The trace at @path against the memory budget (--memory, else
 * cp_budget_default): 1 if its estimate is over it, with "N events need
 * about X in memory, over the budget of Y" in @why; 0 if it fits, 2 if it
 * fits but is large enough to say so on stderr (@why says how it fits);
 * -1 with c->err when the file cannot be read.  @est gets the estimate.
 */
int cpt_input_budget(struct cpt_ctx *c, const char *path,
		     struct cp_budget_est *est, char *why, size_t whylen);

/*
 * Load @path into @in with the common options of @c (--strict,
 * --procedures, --debuginfo-path); CPT_BAD_INPUT with "FILE: reason" in
 * c->err on failure.  Free with cp_input_free().
 */
enum cpt_status cpt_input_load(struct cpt_ctx *c, const char *path,
			       struct cp_input *in);

#endif /* CPT_INPUT_H */
