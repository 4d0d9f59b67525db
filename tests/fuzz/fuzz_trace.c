/*
 * fuzz_trace.c - fuzz target of the trace reader (cp_trace_parse) and of
 * what `cpt report TRACE` runs on a trace it accepts: the trace PAG, the
 * profile (CPM, zeroing, Slack, k paths, MBM), the comparison with the CPU
 * profile, every text view and the HTML page (its timeline; not its
 * what-if, whose replays fuzz_replay.c covers), written to /dev/null.
 * The same bytes also go through the out-of-core analysis (`cpt report
 * --stream` with its MBM and comparison, text, JSON and the page's
 * timeline, `cpt paths --stream`), from an in-memory file, whenever its
 * index accepts them.
 */
#include "fuzz.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cp_compare.h"
#include "cp_compare_out.h"
#include "cp_html.h"
#include "cp_kpaths.h"
#include "cp_paths_out.h"
#include "cp_profile.h"
#include "cp_profile_timeline.h"
#include "cp_stream.h"
#include "cp_stream_out.h"
#include "cp_stream_prof.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "cp_views.h"

/* The HTML page of @in (no what-if rows) to the sink. */
static void page(struct cp_html_in *in)
{
	struct cp_whatif_top wt = { .factor = 0.5 };
	char err[512];

	in->wt = &wt;
	if (cp_html_write(cp_fuzz_sink(), in, NULL, err, sizeof(err)))
		abort();	/* out of memory on a small input */
}

/* The streaming analysis of @data, held in a memfd opened by its /proc
 * path; a rejection must be one line naming that path. */
static void stream(const uint8_t *data, size_t size)
{
	struct cp_stream_opts so = { .mbm_k = 8, .kpaths_nodes = 64,
				     .slack = true, .views = true,
				     .headline = cp_stream_prof_headline,
				     .timeline = 64 };
	struct cp_report_opts ro = { .top = 8 };
	struct cp_tindex ix;
	struct cp_stream s;
	char path[64], err[512] = "";
	int fd = memfd_create("fuzz-input", 0);

	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (cp_tindex_open(&ix, path, err, sizeof(err))) {
		cp_fuzz_check_err(err, path);
		close(fd);
		return;
	}
	if (cp_stream_run(&s, &ix, &so, err, sizeof(err))) {
		cp_fuzz_check_err(err, path);
	} else {
		struct cp_profile p;
		struct cp_compare cmp;

		if (cp_stream_prof_make(&p, &s, &ix.t) ||
		    cp_compare_build(&cmp, &p, NULL) ||
		    cp_stream_out_text(cp_fuzz_sink(), &ix, &s, &cmp, &ro) ||
		    cp_stream_out_json(cp_fuzz_sink(), &ix, &s, &cmp))
			abort();	/* out of memory on a small input */
		for (enum cp_view v = CP_VIEW_PROGRAM; v <= CP_VIEW_OBJECT;
		     v++)
			if (cp_stream_out_view(cp_fuzz_sink(), &p, &s, v, 10))
				abort();
		page(&(struct cp_html_in){ .p = &p, .c = &cmp, .tl = &s.tl,
					   .t = &ix.t, .s = &s });
		cp_compare_free(&cmp);
		cp_stream_prof_free(&p);
		cp_paths_stream_out(cp_fuzz_sink(), path, &s, 8, true);
		cp_stream_free(&s);
	}
	cp_tindex_close(&ix);
	close(fd);
}

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
		struct cp_kpaths kp;
		struct cp_timeline tl;

		cp_compare_out_text(cp_fuzz_sink(), &cmp, 10);
		if (!cp_kpaths_find(&kp, p.cpm, 4)) {
			if (!cp_profile_timeline(&tl, &p, 64)) {
				page(&(struct cp_html_in){ .p = &p, .c = &cmp,
							   .kp = &kp,
							   .tl = &tl });
				cp_timeline_free(&tl);
			}
			cp_kpaths_free(&kp);
		}
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

	stream(data, size);
	if (cp_trace_parse(&t, CP_FUZZ_NAME, data, size, err, sizeof(err))) {
		cp_fuzz_check_err(err, CP_FUZZ_NAME);
		return 0;
	}
	report(&t);
	cp_trace_free(&t);
	return 0;
}
