/*
 * cp_sampled_out.c - the sampling summary and hot lines of a sampled
 * trace (cp_sampled.h) as report text and JSON (cp_sampled_out.h).
 */
#include "cp_sampled_out.h"

#include <inttypes.h>
#include <string.h>

#include "cp_perfmap.h"
#include "cp_sampled.h"
#include "cp_samples.h"
#include "cp_symbolize.h"

/* cp_sampled_out_text() but the blank line after it. */
static void sampled_text(FILE *f, const struct cp_samples *s, uint32_t max)
{
	const struct cp_symbolize_stats *st;

	if (s && !s->active && s->decoded) {
		fprintf(f, "note: the trace also holds %" PRIu64 " CPU-time "
			"samples; --procedures sampled takes the procedures "
			"from them.\n", s->decoded);
		return;
	}
	if (!s || !s->active)
		return;
	st = cp_symbolize_stats(s->sym);
	fprintf(f, "Sampling: %" PRIu64 " samples, %" PRIu64 " placed "
		"(%" PRIu64 " in waits, %" PRIu64 " outside their thread, "
		"%" PRIu64 " dropped), standing for %.3f ms of CPU time;\n"
		"  %u modules, %u without debug information, %u not found\n",
		s->decoded, s->used, s->in_wait, s->outside,
		s->unknown_thread + s->backwards, (double)s->used_weight / 1e6,
		s->nmods, st->no_debug, st->no_file);
	if (s->jit)
		fprintf(f, "  code in no file (a JIT's) named from %s, %u "
			"entries\n", s->jit->path, s->jit->n);
	if (!s->nhot)
		return;
	fprintf(f, "Hot lines (where the samples stopped; CPU time they "
		"stand for)\n");
	for (uint32_t i = 0; i < s->nhot && i < max; i++) {
		const struct cp_hotline *h = &s->hot[i];

		fprintf(f, "  %8" PRIu64 " %9.3f ms %5.1f%%  %s", h->samples,
			(double)h->cpu_ns / 1e6, 100.0 * (double)h->cpu_ns /
			(double)(s->weight ? s->weight : 1), h->func);
		if (h->file)
			fprintf(f, "  %s:%u", h->file, h->line);
		fprintf(f, "\n");
	}
}

void cp_sampled_out_text(FILE *f, const struct cp_trace *t, uint32_t max)
{
	const struct cp_samples *s = t->samples;

	sampled_text(f, s, max);
	if (s && s->decoded)	/* it said something: the next section */
		fprintf(f, "\n");
}

const char *cp_sampled_out_none(const struct cp_trace *t, char *buf,
				size_t len)
{
	const struct cp_samples *s = t ? t->samples : NULL;
	const char *on = t ? cp_trace_info(t, "sampling") : NULL;
	const char *hz = t ? cp_trace_info(t, "sampling_hz") : NULL;

	if (s && s->decoded && !s->active)
		snprintf(buf, len, "the procedures were asked from "
			 "instrumentation, and there is none; --procedures "
			 "sampled takes them from the trace's %" PRIu64
			 " CPU-time samples", s->decoded);
	else if (on && strcmp(on, "off") && hz && strcmp(hz, "0"))
		snprintf(buf, len, "the sampler ran, at %s Hz of each thread's "
			 "CPU time, but the run was too short for it to take "
			 "a sample; trace a longer run, raise "
			 "CPTHREAD_SAMPLING_HZ, or build with "
			 "-finstrument-functions", hz);
	else
		snprintf(buf, len, "trace with the sampler on (the default in "
			 "trace mode), build with -finstrument-functions, or "
			 "mark regions with cpthread_region_begin/end");
	return buf;
}

void cp_sampled_out_none_text(FILE *f, const struct cp_trace *t)
{
	char why[400], line[400];
	const char *w;
	size_t n;

	snprintf(line, sizeof(line), "No procedure activity in this trace: "
		 "%s.", cp_sampled_out_none(t, why, sizeof(why)));
	/* words onto lines of at most 78 columns, two of them the indent */
	for (w = line; *w;) {
		n = strlen(w);
		if (n > 76) {
			n = 76;
			while (n && w[n] != ' ')
				n--;
			if (!n)
				n = strcspn(w, " ");
		}
		fprintf(f, "  %.*s\n", (int)n, w);
		w += n;
		while (*w == ' ')
			w++;
	}
}

void cp_sampled_out_emit(struct cp_emit *e, const struct cp_trace *t,
			 uint32_t max)
{
	const struct cp_samples *s = t->samples;
	const struct cp_symbolize_stats *st;

	if (!s || !s->active)
		return;
	st = cp_symbolize_stats(s->sym);
	cp_emit_obj_begin(e, "sampling");
	cp_emit_u64(e, "samples", s->decoded);
	cp_emit_u64(e, "used", s->used);
	cp_emit_u64(e, "used_weight_ns", s->used_weight);
	cp_emit_u64(e, "in_wait", s->in_wait);
	cp_emit_u64(e, "outside", s->outside);
	cp_emit_u64(e, "unknown_thread", s->unknown_thread);
	cp_emit_u64(e, "backwards", s->backwards);
	cp_emit_u64(e, "truncated", s->truncated);
	cp_emit_u64(e, "unwind_failed", s->unwind_failed);
	cp_emit_u64(e, "modules", s->nmods);
	cp_emit_u64(e, "modules_missing", st->no_file);
	cp_emit_u64(e, "modules_without_debuginfo", st->no_debug);
	cp_emit_u64(e, "thin_below", CP_SAMPLES_THIN);
	cp_emit_arr_begin(e, "hot_lines");
	for (uint32_t i = 0; i < s->nhot && i < max; i++) {
		cp_emit_obj_begin(e, NULL);
		cp_emit_str(e, "name", s->hot[i].func);
		if (s->hot[i].file) {
			cp_emit_str(e, "file", s->hot[i].file);
			cp_emit_u64(e, "line", s->hot[i].line);
		} else {
			cp_emit_null(e, "file");
			cp_emit_null(e, "line");
		}
		cp_emit_u64(e, "samples", s->hot[i].samples);
		cp_emit_u64(e, "cpu_ns", s->hot[i].cpu_ns);
		cp_emit_obj_end(e);
	}
	cp_emit_arr_end(e);
	cp_emit_obj_end(e);
}
