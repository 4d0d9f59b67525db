/*
 * cp_paths_out.c - the k longest paths of `cpt paths` as text and JSON
 * (cp_paths_out.h).
 */
#include "cp_paths_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_out.h"
#include "cp_wbuf.h"

/* Text output: a path prints at most this many items unless spelled in
 * full (a trace's path can have hundreds of thousands of edges). */
#define PATHS_TEXT_ITEMS 40

/*
 * The edge after @cur, at position @j + 1 of path i: from @buf when the
 * path was spelled into it, else along the least-slack continuation (a
 * path's own part, from its deviation on, is exactly that).
 */
static uint32_t edge_after(const struct cp_kpaths *kp, const uint32_t *buf,
			   uint32_t j, uint32_t cur)
{
	return buf ? buf[j + 1] : kp->next[kp->g->head[cur]];
}

static const char *num(const struct cp_input *in, char *b, size_t len,
		       uint64_t v)
{
	if (in->is_trace)
		return cp_fmt_ns(b, len, v);
	snprintf(b, len, "%" PRIu64, v);
	return b;
}

/*
 * Whether trace edges @a and @b are one item of a path's text: named alike
 * (same kind, thread, procedure and object say so without spelling the
 * names, which a path of millions of edges would pay for at every edge).
 */
static bool same_item(const struct cp_input *in, uint32_t a, uint32_t b,
		      const char *a_name)
{
	const struct cp_tracepag *tp = &in->tp;
	char nb[256];

	if (tp->e_kind[a] == tp->e_kind[b] &&
	    cp_tracepag_thread(tp, a) == cp_tracepag_thread(tp, b) &&
	    cp_tracepag_proc(tp, a) == cp_tracepag_proc(tp, b) &&
	    cp_tracepag_obj(tp, a) == cp_tracepag_obj(tp, b))
		return true;
	return !strcmp(cp_input_edge_name(in, b, nb, sizeof(nb)), a_name);
}

/*
 * A trace's path from edge *@e (position *@j, weight counted from it on)
 * through the following edges of the same thread and procedure, up to
 * position @stop: advances *@j and *@e to the run's last edge and returns
 * the run's weight.
 */
static uint64_t merge_run(const struct cp_input *in,
			  const struct cp_kpaths *kp, const uint32_t *b,
			  uint32_t stop, const char *name, uint32_t *j,
			  uint32_t *e)
{
	uint32_t first = *e;
	uint64_t w = in->g->w[*e];

	while (*j + 1 < stop) {
		uint32_t nxt = edge_after(kp, b, *j, *e);

		if (in->tp.e_kind[nxt] == CP_TE_DEP ||
		    in->tp.e_kind[nxt] == CP_TE_AUX)
			break;
		if (in->g->w[nxt] && !same_item(in, first, nxt, name))
			break;
		w += in->g->w[nxt];
		*e = nxt;
		(*j)++;
	}
	return w;
}

/*
 * Path @i: the first @nfull paths edge by edge in full, the others from
 * their deviation on, at most PATHS_TEXT_ITEMS items (the shared prefix
 * is said, not repeated).
 */
static void text_path(FILE *f, const struct cp_input *in,
		      const struct cp_kpaths *kp, uint32_t i, uint32_t *buf,
		      uint32_t nfull)
{
	bool full = i < nfull, first = true;
	uint32_t n = kp->nedges[i], from = 0, items = 0, e, stop = n;
	uint64_t slack = kp->cp_length - kp->len[i];
	const uint32_t *b = NULL;
	char nb[256], lb[32];
	int col = 5;

	fprintf(f, "\n#%-4u length %s", i + 1,
		num(in, lb, sizeof(lb), kp->len[i]));
	if (slack)
		fprintf(f, "  (%s shorter than the critical path)",
			num(in, lb, sizeof(lb), slack));
	fprintf(f, ", %u edge%s\n     ", n, n == 1 ? "" : "s");
	if (full) {
		cp_kpaths_edges(kp, i, buf);
		b = buf;
		e = buf[0];
	} else {
		if (kp->parent[i] != CP_PAG_NONE && kp->pcnt[i] > 0) {
			from = kp->pcnt[i];
			fprintf(f, "(as #%u for its first %u edges) ",
				kp->parent[i] + 1, from);
			col += 30;
		}
		e = kp->dev[i];
		/* from where it meets the critical path again, it is #1 */
		if (i > 0 && cp_kpaths_rejoins_at(kp, i) != CP_PAG_NONE)
			stop = n - (kp->nedges[0] -
				    cp_kpaths_rejoins_at(kp, i));
	}
	for (uint32_t j = from; j < stop; j++, e = j < stop ?
	     edge_after(kp, b, j - 1, e) : e) {
		uint64_t w = in->g->w[e];
		const char *name;
		char item[300];
		int len;

		/* a trace's path: time and thread changes only, runs of
		 * one thread in one procedure as one item */
		if (in->is_trace && !w && in->tp.e_kind[e] != CP_TE_DEP)
			continue;
		name = cp_input_edge_name(in, e, nb, sizeof(nb));
		if (in->is_trace && w) {
			w = merge_run(in, kp, b, stop, name, &j, &e);
			snprintf(item, sizeof(item), "%s %s", name,
				 cp_fmt_ns(lb, sizeof(lb), w));
		} else if (in->is_trace) {
			snprintf(item, sizeof(item), "%s", name);
		} else {
			snprintf(item, sizeof(item), "%s %" PRIu64, name, w);
		}
		if (!full && ++items > PATHS_TEXT_ITEMS) {
			fprintf(f, " > ... (%u more edges; --full "
				"prints them)", stop - j);
			break;
		}
		len = (int)strlen(item) + (first ? 0 : 3);
		if (col + len > 100 && col > 5) {
			fprintf(f, "\n     ");
			col = 5;
		}
		fprintf(f, "%s%s", first ? "" : " > ", item);
		col += len;
		first = false;
	}
	if (stop < n)
		fprintf(f, "%s(then as #1 for its last %u edges)",
			first ? "" : col + 35 > 100 ? "\n      > " : " > ",
			n - stop);
	fprintf(f, "\n");
}

static void text_paths(FILE *f, const struct cp_input *in,
		       const struct cp_kpaths *kp, uint32_t *buf,
		       const struct cp_paths_opts *o)
{
	char lb[32];

	fprintf(f, "%u longest path%s of %s (critical path %s)\n",
		kp->n, kp->n == 1 ? "" : "s", in->path,
		num(in, lb, sizeof(lb), kp->cp_length));
	for (uint32_t i = 0; i < kp->n; i++) {
		text_path(f, in, kp, i, buf, o->nfull);
		if ((i & 1023) == 1023 && o->progress)
			o->progress(o->progress_ctx, "writing",
				    (double)i / kp->n);
	}
}

/* A vertex by name, or null. */
static void emit_vertex(struct cp_emit *e, const struct cp_input *in,
			const char *key, uint32_t v)
{
	char nb[64];

	if (v == CP_PAG_NONE)
		cp_emit_null(e, key);
	else
		cp_emit_str(e, key, cp_input_vertex_name(in, v, nb,
							  sizeof(nb)));
}

/*
 * The implicit form: each path as its parent plus one deviation; the
 * edges of the first @nfull paths spelled out.
 */
static void json_paths(FILE *f, const struct cp_input *in,
		       const struct cp_kpaths *kp, uint32_t *buf,
		       const struct cp_paths_opts *o)
{
	struct cp_emit e;
	char nb[256];

	cp_out_json_begin(&e, f);
	cp_emit_obj_begin(&e, NULL);
	cp_emit_u64(&e, "critical_path_length", kp->cp_length);
	cp_emit_arr_begin(&e, "paths");
	for (uint32_t i = 0; i < kp->n; i++) {
		uint32_t at = cp_kpaths_rejoins_at(kp, i);

		cp_emit_obj_begin(&e, NULL);
		cp_emit_u64(&e, "length", kp->len[i]);
		cp_emit_u64(&e, "edge_count", kp->nedges[i]);
		if (kp->parent[i] == CP_PAG_NONE)
			cp_emit_null(&e, "parent");
		else
			cp_emit_u64(&e, "parent", kp->parent[i]);
		cp_emit_u64(&e, "shared", kp->pcnt[i]);
		cp_emit_str(&e, "deviation", cp_input_edge_name(in,
				kp->dev[i], nb, sizeof(nb)));
		emit_vertex(&e, in, "departs", cp_kpaths_departs(kp, i));
		emit_vertex(&e, in, "rejoins", cp_kpaths_rejoins(kp, i));
		if (at == CP_PAG_NONE)
			cp_emit_null(&e, "rejoins_cp_at");
		else
			cp_emit_u64(&e, "rejoins_cp_at", at);
		if (i < o->nfull) {
			uint32_t n = cp_kpaths_edges(kp, i, buf);

			cp_emit_arr_begin(&e, "edges");
			for (uint32_t j = 0; j < n; j++)
				cp_emit_str(&e, NULL, cp_input_edge_name(in,
						buf[j], nb, sizeof(nb)));
			cp_emit_arr_end(&e);
		}
		cp_emit_obj_end(&e);
		if ((i & 1023) == 1023 && o->progress)
			o->progress(o->progress_ctx, "writing",
				    (double)i / kp->n);
	}
	cp_emit_arr_end(&e);
	cp_emit_obj_end(&e);
	cp_out_json_end(&e);
}

int cp_paths_out(FILE *f, const struct cp_input *in,
		 const struct cp_kpaths *kp, const struct cp_paths_opts *o)
{
	uint32_t maxn = 0, *buf;

	for (uint32_t i = 0; i < kp->n && i < o->nfull; i++)
		if (kp->nedges[i] > maxn)
			maxn = kp->nedges[i];
	buf = malloc(((size_t)maxn + 1) * sizeof(*buf));
	if (!buf)
		return -1;
	if (o->json)
		json_paths(f, in, kp, buf, o);
	else
		text_paths(f, in, kp, buf, o);
	free(buf);
	return 0;
}

/* ---- the streamed paths ---------------------------------------------- */

static const char *const dev_kinds[] = {
	[CP_SDEV_OBJECT] = "object", [CP_SDEV_PROGRAM] = "program",
	[CP_SDEV_JOIN] = "join", [CP_SDEV_GROUP] = "group",
	[CP_SDEV_END] = "end",
};

/* The object of deviation @d by kind and id ("mutex#3"), or NULL for
 * none. */
static const char *obj_name(const struct cp_stream_dev *d, char *b,
			    size_t len)
{
	if (d->obj == UINT32_MAX || !d->obj)
		return NULL;
	snprintf(b, len, "%s#%" PRIu32, d->obj_kind == CP_SDEV_NOKIND ?
		 "object" : cp_obj_kind_name(d->obj_kind), d->obj);
	return b;
}

const char *cp_paths_stream_dev(char *buf, size_t len,
				const struct cp_stream *s, uint32_t i)
{
	const struct cp_stream_path *q = &s->paths[i];
	const struct cp_stream_dev *d = &q->dev;
	char on[64], t1[32], t2[32];
	const char *o = obj_name(d, on, sizeof(on));
	size_t n;

	cp_fmt_ns(t1, sizeof(t1), d->from_ns);
	cp_fmt_ns(t2, sizeof(t2), d->to_ns);
	switch (d->kind) {
	case CP_SDEV_END:
		snprintf(buf, len, "ends at T%u at %s, not where #%u ends",
			 d->from_tid, t1, q->parent + 1);
		return buf;
	case CP_SDEV_GROUP:
		snprintf(buf, len, "as #%u from the publishes of %s grouped at "
			 "%s on; reaches them from T%u at %s", q->parent + 1,
			 o ? o : "an object", t2, d->from_tid, t1);
		return buf;
	default:
		break;
	}
	n = (size_t)snprintf(buf, len, "as #%u from T%u at %s on; reaches it "
			     "from ", q->parent + 1, d->to_tid, t2);
	if (n >= len)
		return buf;
	if (d->kind == CP_SDEV_OBJECT)
		snprintf(buf + n, len - n, "T%u at %s through %s", d->from_tid,
			 t1, o ? o : "an object");
	else if (d->kind == CP_SDEV_JOIN)
		snprintf(buf + n, len - n, "the end of T%u at %s, joined",
			 d->from_tid, t1);
	else if (o)
		snprintf(buf + n, len - n, "its own vertex at %s, not through "
			 "%s", t1, o);
	else
		snprintf(buf + n, len - n, "its own vertex at %s, not from the "
			 "thread it joins", t1);
	return buf;
}

static void stream_text(FILE *f, const char *path, const struct cp_stream *s,
			uint32_t k)
{
	char lb[32], lb2[CP_PATHS_DEV_LEN];

	fprintf(f, "%u longest path%s of %s (critical path %s; streamed: each "
		"path as the one it deviates from, where it leaves it and "
		"where it comes from there, back along the longest path into "
		"that vertex)\n", s->npaths, s->npaths == 1 ? "" : "s", path,
		cp_fmt_ns(lb, sizeof(lb), s->cp_len));
	for (uint32_t i = 0; i < s->npaths; i++) {
		const struct cp_stream_path *q = &s->paths[i];

		fprintf(f, "\n#%-4u length %s", i + 1,
			cp_fmt_ns(lb, sizeof(lb), q->len));
		if (s->cp_len > q->len)
			fprintf(f, "  (%s shorter than the critical path)",
				cp_fmt_ns(lb, sizeof(lb), s->cp_len - q->len));
		fprintf(f, "\n     ");
		if (i == 0)
			fprintf(f, "the critical path, ends on T%u",
				s->cp_tid);
		else
			fputs(cp_paths_stream_dev(lb2, sizeof(lb2), s, i), f);
		fprintf(f, "\n");
	}
	if (s->paths_cut)
		fprintf(f, "\n(%u of the %u paths asked: the sidetracks kept "
			"(those up to %s shorter) cannot tell which come next;"
			" a larger --memory keeps more)\n", s->npaths, k,
			cp_fmt_ns(lb, sizeof(lb), s->paths_bound));
}

static void stream_json(FILE *f, const struct cp_stream *s)
{
	struct cp_emit e;
	char on[64];

	cp_out_json_begin(&e, f);
	cp_emit_obj_begin(&e, NULL);
	cp_emit_u64(&e, "critical_path_length", s->cp_len);
	cp_emit_bool(&e, "streamed", true);
	cp_emit_bool(&e, "paths_cut", s->paths_cut);
	if (s->paths_bound == UINT64_MAX)
		cp_emit_null(&e, "sidetrack_bound");
	else
		cp_emit_u64(&e, "sidetrack_bound", s->paths_bound);
	cp_emit_arr_begin(&e, "paths");
	for (uint32_t i = 0; i < s->npaths; i++) {
		const struct cp_stream_path *q = &s->paths[i];
		const struct cp_stream_dev *d = &q->dev;
		const char *o;

		cp_emit_obj_begin(&e, NULL);
		cp_emit_u64(&e, "length", q->len);
		if (i == 0) {
			cp_emit_null(&e, "parent");
			cp_emit_null(&e, "deviation");
			cp_emit_obj_end(&e);
			continue;
		}
		cp_emit_u64(&e, "parent", q->parent);
		cp_emit_obj_begin(&e, "deviation");
		cp_emit_str(&e, "kind", dev_kinds[d->kind]);
		o = obj_name(d, on, sizeof(on));
		if (o)
			cp_emit_str(&e, "object", o);
		else
			cp_emit_null(&e, "object");
		cp_emit_u64(&e, "from_thread", d->from_tid);
		cp_emit_u64(&e, "from_ns", d->from_ns);
		if (d->to_tid == UINT32_MAX)
			cp_emit_null(&e, "to_thread");
		else
			cp_emit_u64(&e, "to_thread", d->to_tid);
		if (d->kind == CP_SDEV_END)
			cp_emit_null(&e, "to_ns");
		else
			cp_emit_u64(&e, "to_ns", d->to_ns);
		cp_emit_obj_end(&e);
		cp_emit_obj_end(&e);
	}
	cp_emit_arr_end(&e);
	cp_emit_obj_end(&e);
	cp_out_json_end(&e);
}

void cp_paths_stream_out(FILE *f, const char *path,
			 const struct cp_stream *s, uint32_t k, bool json)
{
	if (json)
		stream_json(f, s);
	else
		stream_text(f, path, s, k);
}
