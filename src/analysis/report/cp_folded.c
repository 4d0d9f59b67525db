/*
 * cp_folded.c - folded stacks from the calling-context tree.
 *
 * Every useful segment of the trace PAG carries its calling-context node
 * (cp_tracepag.e_cct), so a folded line is a CCT node's path from the root
 * with the summed weight of its segments: exclusive time per context,
 * which is what a flame graph stacks into inclusive towers.  Weights are
 * summed per (thread, node) when threads are asked for, per node
 * otherwise, in one pass over the edges: O(e) plus the output.
 *
 * Frame names are sanitized for the format: ';' separates frames and the
 * last blank separates the weight, so ';' becomes ':' and line breaks
 * become blanks (other blanks are fine: readers split at the last one).
 */
#include "cp_folded.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cp_grow.h"
#include "cp_hash.h"
#include "cp_wbuf.h"

static void frame(struct cp_wbuf *w, const char *s)
{
	for (; *s; s++)
		cp_wbuf_c(w, *s == ';' ? ':' : *s == '\n' || *s == '\r' ?
			  ' ' : *s);
}

/* The procedure frames of CCT node @n, root first. */
static void path(struct cp_wbuf *w, const struct cp_tracepag *tp, uint32_t n,
		 uint32_t *stk)
{
	uint32_t d = 0;

	for (; n && n != CP_PAG_NONE; n = tp->cct[n].parent)
		stk[d++] = n;
	if (!d) {
		cp_wbuf_str(w, "(no procedure)");
		return;
	}
	while (d--) {
		frame(w, cp_tracepag_proc_name(tp, tp->cct[stk[d]].proc));
		if (d)
			cp_wbuf_c(w, ';');
	}
}

static void thread_frame(struct cp_wbuf *w, const struct cp_tracepag *tp,
			 uint32_t tid)
{
	const char *name = tid < tp->t->nthreads ? tp->t->threads[tid].name
						 : NULL;

	cp_wbuf_c(w, 'T');
	cp_wbuf_u64(w, tid);
	if (name && *name) {
		cp_wbuf_c(w, ' ');
		frame(w, name);
	}
	cp_wbuf_c(w, ';');
}

/* The stacks seen so far: (thread, calling context) -> weight. */
struct stacks {
	struct cp_map2 map;	/* (tid, node) -> index */
	uint64_t *wsum;		/* [n] weight */
	uint32_t *key_t, *key_n;	/* [n] thread, node */
	uint32_t n, cap;
};

/* Add @w to stack (@tid, @node); -1 when memory runs out. */
static int stacks_add(struct stacks *st, uint32_t tid, uint32_t node,
		      uint64_t w)
{
	uint32_t k = cp_map2_get(&st->map, tid, node);

	if (k == CP_HASH_NONE) {
		uint32_t c[3] = { st->cap, st->cap, st->cap };
		uint64_t need = (uint64_t)st->n + 1;

		if (cp_grow32((void **)&st->wsum, sizeof(*st->wsum), &c[0],
			      need) ||
		    cp_grow32((void **)&st->key_t, sizeof(*st->key_t), &c[1],
			      need) ||
		    cp_grow32((void **)&st->key_n, sizeof(*st->key_n), &c[2],
			      need))
			return -1;
		st->cap = c[0];
		k = st->n++;
		st->wsum[k] = 0;
		st->key_t[k] = tid;
		st->key_n[k] = node;
		if (cp_map2_put(&st->map, tid, node, k))
			return -1;
	}
	st->wsum[k] += w;
	return 0;
}

int cp_folded_write(FILE *f, const struct cp_tracepag *tp,
		    const struct cp_cpm *c, const struct cp_folded_opts *o,
		    char *err, size_t errlen)
{
	const struct cp_pag *g = &tp->g;
	bool cp = !o || o->weight == CP_FOLDED_CP;
	bool threads = o && o->threads;
	uint8_t *oncp = NULL;
	uint32_t *stk = NULL, maxdepth = 0;
	struct stacks st = { .n = 0 };
	struct cp_wbuf *w = NULL;
	int ret = -1;

	cp_map2_init(&st.map);
	for (uint32_t n = 0; n < tp->ncct; n++)
		if (tp->cct[n].depth > maxdepth)
			maxdepth = tp->cct[n].depth;
	stk = malloc(((size_t)maxdepth + 1) * sizeof(*stk));
	w = malloc(sizeof(*w));
	if (!stk || !w)
		goto err_mem;
	if (cp) {
		oncp = calloc(g->ne ? g->ne : 1, 1);
		if (!oncp)
			goto err_mem;
		for (uint32_t i = 0; i < c->npath; i++)
			oncp[c->path[i]] = 1;
	}
	for (uint32_t e = 0; e < g->ne; e++) {
		if (tp->e_kind[e] != CP_TE_USEFUL || !g->w[e] ||
		    (cp && !oncp[e]))
			continue;
		if (stacks_add(&st, threads ? cp_tracepag_thread(tp, e) : 0,
			       cp_tracepag_cct(tp, e), g->w[e]))
			goto err_mem;
	}
	cp_wbuf_init(w, f);
	for (uint32_t k = 0; k < st.n; k++) {
		if (threads)
			thread_frame(w, tp, st.key_t[k]);
		path(w, tp, st.key_n[k], stk);
		cp_wbuf_c(w, ' ');
		cp_wbuf_u64(w, st.wsum[k]);
		cp_wbuf_c(w, '\n');
	}
	if (cp_wbuf_close(w)) {
		snprintf(err, errlen, "write error on the folded stacks");
		goto out;
	}
	ret = 0;
	goto out;
err_mem:
	snprintf(err, errlen, "out of memory writing folded stacks");
out:
	cp_map2_free(&st.map);
	free(oncp);
	free(st.wsum);
	free(st.key_t);
	free(st.key_n);
	free(stk);
	free(w);
	return ret;
}
