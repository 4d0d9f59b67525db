/*
 * cpt_input.h - load what a graph verb analyses (cp_input.h): a trace,
 * read, symbolized and turned into its PAG, or a plain-text PAG, with
 * progress and salvage warnings on stderr.
 */
#ifndef CPT_INPUT_H
#define CPT_INPUT_H

#include "cp_input.h"
#include "cpt.h"

/*
 * Load @path into @in with the common options of @c (--strict,
 * --procedures, --debuginfo-path); CPT_BAD_INPUT with "FILE: reason" in
 * c->err on failure.  Free with cp_input_free().
 */
enum cpt_status cpt_input_load(struct cpt_ctx *c, const char *path,
			       struct cp_input *in);

#endif /* CPT_INPUT_H */
