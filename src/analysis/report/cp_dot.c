/*
 * cp_dot.c - Graphviz dot of a program activity graph.
 *
 * Vertex ids are "v<N>" whatever the graph; names go in labels, escaped
 * for dot's quoted strings.  A trace PAG gets one "cluster_t<tid>"
 * subgraph per thread (its events in program order), rankdir=LR so time
 * reads left to right; the source, the sink and the hub vertices stay
 * outside.  Critical-path edges are bold and red, waits dashed grey,
 * dependencies blue.  The limit is checked before anything is written.
 */
#include "cp_dot.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_wbuf.h"

/* @s escaped for a dot quoted string. */
static void dot_str(struct cp_wbuf *w, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			cp_wbuf_c(w, '\\');
		if (*s == '\n' || *s == '\r')
			cp_wbuf_str(w, "\\n");
		else
			cp_wbuf_c(w, *s);
	}
}

/* Label of trace vertex (@tid, @vi) into @buf (reads its payload: the
 * export keeps it). */
static void event_label(const struct cp_tracepag *tp, uint32_t tid,
			uint32_t vi, char *buf, size_t len)
{
	const struct cp_trace *t = tp->t;
	const struct cp_tvert *v = &t->threads[tid].v[vi];
	const struct cp_targ *a = &t->threads[tid].a[vi];
	unsigned k = cp_tvert_kind(v);
	char sym[64];
	const char *s;

	switch (k) {
	case CP_EV_PUBLISH:
	case CP_EV_CONSUME:
	case CP_EV_REQUEST:
	case CP_EV_FAIL:
		if (v->obj) {
			snprintf(buf, len, "%s\n%s#%" PRIu32,
				 k == CP_EV_PUBLISH ? "release" :
				 k == CP_EV_CONSUME ? "acquire" :
				 k == CP_EV_REQUEST ? "request" : "fail",
				 cp_obj_kind_name(t->objs[v->obj].kind),
				 v->obj);
			return;
		}
		break;
	case CP_EV_ENTER:
		snprintf(buf, len, "enter\n%s",
			 cp_trace_sym_name(t, a->arg, sym, sizeof(sym)));
		return;
	case CP_EV_REGION_BEGIN:
	case CP_EV_REGION_END:
		s = cp_trace_string(t, (uint32_t)a->arg);
		snprintf(buf, len, "%s\n%s", k == CP_EV_REGION_BEGIN ?
			 "begin" : "end", s ? s : "?");
		return;
	case CP_EV_THREAD_CREATE:
	case CP_EV_THREAD_JOIN:
		snprintf(buf, len, "%s\nT%" PRIu64, k == CP_EV_THREAD_CREATE ?
			 "create" : "join", a->arg);
		return;
	default:
		break;
	}
	snprintf(buf, len, "%s", cp_trace_kind_name(k));
	for (char *p = buf; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
}

static void vertex(struct cp_wbuf *w, uint32_t v, const char *label,
		   const char *attrs)
{
	cp_wbuf_str(w, "    v");
	cp_wbuf_u64(w, v);
	cp_wbuf_str(w, " [label=\"");
	dot_str(w, label);
	cp_wbuf_c(w, '"');
	if (attrs) {
		cp_wbuf_str(w, ", ");
		cp_wbuf_str(w, attrs);
	}
	cp_wbuf_str(w, "];\n");
}

static void trace_vertices(struct cp_wbuf *w, const struct cp_tracepag *tp)
{
	const struct cp_trace *t = tp->t;
	char label[160];

	for (uint32_t tid = 0; tid < t->nthreads; tid++) {
		const struct cp_trace_thread *th = &t->threads[tid];

		if (!th->nv)
			continue;
		cp_wbuf_str(w, "  subgraph cluster_t");
		cp_wbuf_u64(w, tid);
		cp_wbuf_str(w, " {\n    label=\"T");
		cp_wbuf_u64(w, tid);
		if (th->name && *th->name) {
			cp_wbuf_c(w, ' ');
			dot_str(w, th->name);
		}
		cp_wbuf_str(w, "\";\n    style=rounded;\n    color=gray60;\n");
		for (uint32_t vi = 0; vi < th->nv; vi++) {
			event_label(tp, tid, vi, label, sizeof(label));
			vertex(w, tp->vbase[tid] + vi, label, NULL);
		}
		cp_wbuf_str(w, "  }\n");
	}
	vertex(w, tp->source, "start", "shape=box");
	vertex(w, tp->sink, "end", "shape=box");
	for (uint32_t v = tp->sink + 1; v < tp->g.nv; v++)
		vertex(w, v, "", "shape=point, width=0.08");
}

int cp_dot_check(const struct cp_pag *g, uint32_t max_edges, char *err,
		 size_t errlen)
{
	uint32_t max = max_edges ? max_edges : CP_DOT_MAX_EDGES;

	if (g->ne <= max)
		return 0;
	snprintf(err, errlen,
		 "the graph has %" PRIu32 " edges, more than dot draws "
		 "legibly (limit %" PRIu32 "): raise the limit with "
		 "--max-edges %" PRIu32 ", or use --format chrome for a "
		 "timeline", g->ne, max, g->ne);
	return -1;
}

/*
 * The label of trace edge @e (time and procedure, wait, dependency) on
 * @w; returns the edge's style, or NULL.
 */
static const char *trace_edge_label(struct cp_wbuf *w,
				    const struct cp_tracepag *tp, uint32_t e)
{
	char wt[32], name[160];

	switch (tp->e_kind[e]) {
	case CP_TE_USEFUL:
		cp_fmt_ns(wt, sizeof(wt), tp->g.w[e]);
		dot_str(w, wt);
		if (cp_tracepag_proc(tp, e) != CP_PAG_NONE) {
			cp_wbuf_str(w, "\\n");
			dot_str(w, cp_tracepag_proc_name(tp, cp_tracepag_proc(tp, e)));
		}
		return NULL;
	case CP_TE_WAIT:
		cp_fmt_ns(wt, sizeof(wt), cp_tracepag_wait(tp, e));
		cp_wbuf_str(w, "wait ");
		dot_str(w, wt);
		return "style=dashed, color=gray50";
	case CP_TE_DEP:
		dot_str(w, cp_tracepag_edge_name(tp, e, name, sizeof(name)));
		return "color=blue";
	default:
		return "color=gray70";
	}
}

/* Edge @e of @g (of trace @tp, or NULL), bold red if @oncp. */
static void edge(struct cp_wbuf *w, const struct cp_pag *g,
		 const struct cp_tracepag *tp, uint32_t e, bool oncp)
{
	const char *style = NULL;

	cp_wbuf_str(w, "  v");
	cp_wbuf_u64(w, cp_pag_tail(g, e));
	cp_wbuf_str(w, " -> v");
	cp_wbuf_u64(w, g->head[e]);
	cp_wbuf_str(w, " [label=\"");
	if (tp) {
		style = trace_edge_label(w, tp, e);
	} else {
		if (g->label[e] != CP_PAG_NONE) {
			dot_str(w, g->labels[g->label[e]]);
			cp_wbuf_c(w, ' ');
		}
		cp_wbuf_u64(w, g->w[e]);
	}
	cp_wbuf_c(w, '"');
	if (oncp)
		cp_wbuf_str(w, ", color=red, penwidth=3, style=bold");
	else if (style)
		cp_wbuf_printf(w, ", %s", style);
	cp_wbuf_str(w, "];\n");
}

int cp_dot_write(FILE *f, const struct cp_pag *g, const struct cp_cpm *c,
		 const struct cp_dot_opts *o, char *err, size_t errlen)
{
	const struct cp_tracepag *tp = o ? o->tp : NULL;
	struct cp_wbuf *w;
	uint8_t *oncp;
	char name[160], len[32];

	if (cp_dot_check(g, o ? o->max_edges : 0, err, errlen))
		return -1;
	w = malloc(sizeof(*w));
	oncp = calloc(g->ne ? g->ne : 1, 1);
	if (!w || !oncp) {
		free(w);
		free(oncp);
		snprintf(err, errlen, "out of memory writing dot");
		return -1;
	}
	for (uint32_t i = 0; i < c->npath; i++)
		oncp[c->path[i]] = 1;
	cp_wbuf_init(w, f);
	if (tp)
		cp_fmt_ns(len, sizeof(len), c->length);
	else
		snprintf(len, sizeof(len), "%" PRIu64, c->length);
	cp_wbuf_str(w, "digraph pag {\n  rankdir=LR;\n  labelloc=t;\n"
		    "  label=\"critical path ");
	cp_wbuf_str(w, len);
	cp_wbuf_str(w, " (bold red)\";\n"
		    "  node [shape=ellipse, fontsize=9, margin=0.02];\n"
		    "  edge [fontsize=8];\n");
	if (tp) {
		trace_vertices(w, tp);
	} else {
		for (uint32_t v = 0; v < g->nv; v++) {
			snprintf(name, sizeof(name), "%" PRIu32, v);
			vertex(w, v, g->vname && g->vname[v] ? g->vname[v]
							     : name, NULL);
		}
	}
	for (uint32_t e = 0; e < g->ne; e++)
		edge(w, g, tp, e, oncp[e]);
	cp_wbuf_str(w, "}\n");
	free(oncp);
	if (cp_wbuf_close(w)) {
		free(w);
		snprintf(err, errlen, "write error on the dot output");
		return -1;
	}
	free(w);
	return 0;
}
