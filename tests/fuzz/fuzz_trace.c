/*
 * fuzz_trace.c - fuzz target of the trace reader (cp_trace_parse) and of
 * what `cpt report TRACE` runs on a trace it accepts: the trace PAG, the
 * profile (CPM, zeroing, Slack, k paths, MBM), the comparison with the CPU
 * profile and every text view, written to /dev/null.  HTML is left out:
 * it reruns the same analyses and only adds formatting.
 */
#include "fuzz.h"

#include <stdlib.h>

#include "cp_compare.h"
#include "cp_compare_out.h"
#include "cp_profile.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "cp_views.h"

/* Profile and print an accepted trace; a failure there must say why in
 * one line too. */
static void report(const struct cp_trace *t)
{
	struct cp_profile_opts po = { .k = 8, .top = 8 };
	struct cp_tracepag tp;
	struct cp_profile p;
	struct cp_compare cmp;
	char err[512] = "";

	if (cp_tracepag_build(&tp, t, err, sizeof(err))) {
		cp_fuzz_check_err(err, CP_FUZZ_NAME);
		return;
	}
	if (cp_profile_compute(&p, &tp, &po, err, sizeof(err))) {
		cp_fuzz_check_err(err, CP_FUZZ_NAME);
		cp_tracepag_free(&tp);
		return;
	}
	if (!cp_compare_build(&cmp, &p, NULL)) {
		cp_compare_out_text(cp_fuzz_sink(), &cmp, 10);
		cp_compare_free(&cmp);
	}
	for (enum cp_view v = CP_VIEW_PROGRAM; v <= CP_VIEW_OBJECT; v++)
		cp_views_print(cp_fuzz_sink(), &p, v, 10);
	cp_profile_free(&p);
	cp_tracepag_free(&tp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cp_trace t;
	char err[512] = "";

	if (cp_trace_parse(&t, CP_FUZZ_NAME, data, size, err, sizeof(err))) {
		cp_fuzz_check_err(err, CP_FUZZ_NAME);
		return 0;
	}
	report(&t);
	cp_trace_free(&t);
	return 0;
}
