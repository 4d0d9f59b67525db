/*
 * fuzz_gprof.c - fuzz target of the gprof flat-profile reader
 * (cp_gprof_parse) and of what `cpt report TRACE --gprof GMON --exe EXE`
 * does with an accepted profile: look procedures up by name and join them
 * with a critical-path profile (cp_compare_build), then print the
 * comparison.  The critical-path profile is built once, at start-up, from
 * a real trace of the corpus (CP_FUZZ_PROFILE_TRACE, the funcs workload).
 */
#include "fuzz.h"

#include <stdlib.h>

#include "cp_compare.h"
#include "cp_compare_out.h"
#include "cp_gprof.h"
#include "cp_profile.h"
#include "cp_trace.h"
#include "cp_tracepag.h"

static struct cp_trace fz_trace;
static struct cp_tracepag fz_tp;
static struct cp_profile fz_prof;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct cp_profile_opts po = { .k = 8 };
	char err[512];

	(void)argc;
	(void)argv;
	if (cp_trace_read(&fz_trace, CP_FUZZ_PROFILE_TRACE, err,
			  sizeof(err)) ||
	    cp_tracepag_build(&fz_tp, &fz_trace, err, sizeof(err)) ||
	    cp_profile_compute(&fz_prof, &fz_tp, &po, err, sizeof(err))) {
		fprintf(stderr, "fuzz_gprof: %s\n", err);
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cp_gprof gp = { .n = 0 };
	struct cp_compare cmp;
	char err[512] = "";

	if (cp_gprof_parse(&gp, (const char *)data, size, CP_FUZZ_NAME, err,
			   sizeof(err))) {
		cp_fuzz_check_err(err, CP_FUZZ_NAME);
		return 0;
	}
	/* every row must be found by its name */
	for (uint32_t i = 0; i < gp.n; i++)
		if (cp_gprof_find(&gp, gp.e[i].name) == NULL)
			abort();
	if (!cp_compare_build(&cmp, &fz_prof, &gp)) {
		cp_compare_out_text(cp_fuzz_sink(), &cmp, 10);
		cp_compare_free(&cmp);
	}
	cp_gprof_free(&gp);
	return 0;
}
