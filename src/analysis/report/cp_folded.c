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

int cp_folded_write(FILE *f, const struct cp_tracepag *tp,
		    const struct cp_cpm *c, const struct cp_folded_opts *o,
		    char *err, size_t errlen)
{
	const struct cp_pag *g = &tp->g;
	bool cp = !o || o->weight == CP_FOLDED_CP;
	bool threads = o && o->threads;
	uint8_t *oncp = NULL;
	uint64_t *wsum = NULL;
	uint32_t *key_t = NULL, *key_n = NULL, *stk = NULL;
	uint32_t nkeys = 0, cap = 0, maxdepth = 0;
	struct cp_map2 map;
	struct cp_wbuf *w = NULL;
	int ret = -1;

	cp_map2_init(&map);
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
		uint32_t tid, k;

		if (tp->e_kind[e] != CP_TE_USEFUL || !g->w[e] ||
		    (cp && !oncp[e]))
			continue;
		tid = threads ? tp->e_thread[e] : 0;
		k = cp_map2_get(&map, tid, tp->e_cct[e]);
		if (k == CP_HASH_NONE) {
			if (nkeys == cap) {
				uint32_t nc = cap ? cap * 2 : 256;
				uint64_t *a = realloc(wsum, nc * sizeof(*a));
				uint32_t *b, *d;

				if (!a)
					goto err_mem;
				wsum = a;
				b = realloc(key_t, nc * sizeof(*b));
				if (!b)
					goto err_mem;
				key_t = b;
				d = realloc(key_n, nc * sizeof(*d));
				if (!d)
					goto err_mem;
				key_n = d;
				cap = nc;
			}
			k = nkeys++;
			wsum[k] = 0;
			key_t[k] = tid;
			key_n[k] = tp->e_cct[e];
			if (cp_map2_put(&map, tid, tp->e_cct[e], k))
				goto err_mem;
		}
		wsum[k] += g->w[e];
	}
	cp_wbuf_init(w, f);
	for (uint32_t k = 0; k < nkeys; k++) {
		if (threads)
			thread_frame(w, tp, key_t[k]);
		path(w, tp, key_n[k], stk);
		cp_wbuf_c(w, ' ');
		cp_wbuf_u64(w, wsum[k]);
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
	cp_map2_free(&map);
	free(oncp);
	free(wsum);
	free(key_t);
	free(key_n);
	free(stk);
	free(w);
	return ret;
}
