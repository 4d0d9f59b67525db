/*
 * cp_pag.c - the program activity graph ([Alexander94, §II], [YangMiller88,
 * §3]).
 *
 * Storage is flat and per edge: four parallel arrays (tail, head, weight,
 * label) grown by doubling, so adding an edge is an amortised O(1) append
 * with no allocation of its own.  Labels are interned in an open-addressing
 * hash of string indices (linear probing, power-of-two table kept under
 * half full), so equal text gives the same id.
 *
 * cp_pag_finish() builds the compressed adjacency (CSR) in both directions
 * with two counting passes each, edge ids in increasing order within a
 * vertex, then a topological order by Kahn's algorithm (FIFO of vertices
 * whose in-degree dropped to zero).  When fewer than nv vertices come out,
 * the rest contain a cycle; one edge on it is found by walking backwards
 * through in-edges among the leftover vertices until a vertex repeats.
 * Everything is O(v+e) time; memory is 20 bytes per edge while building
 * plus 8 more after finish, and 16 bytes per vertex.
 *
 * The text reader maps vertex names to ids with a second hash of the same
 * kind over g->vname and records each edge's line so that a cycle can be
 * reported at the line of one of its edges.
 */
#include "cp_pag.h"
#include "cp_debug.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"

/* A set of strings held elsewhere (an array of char *), by index. */
struct strhash {
	uint32_t *slot;		/* [mask+1] string index, or CP_PAG_NONE */
	uint32_t mask;
	uint32_t count;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static int strhash_grow(struct strhash *h, char **strs)
{
	uint32_t ncap = h->slot ? (h->mask + 1) * 2 : 64;
	uint32_t *ns = malloc(sizeof(*ns) * ncap);

	if (!ns || ncap == 0) {
		free(ns);
		return -1;
	}
	memset(ns, 0xff, sizeof(*ns) * ncap);
	if (h->slot) {
		for (uint32_t i = 0; i <= h->mask; i++) {
			uint32_t id = h->slot[i];
			uint64_t p;

			if (id == CP_PAG_NONE)
				continue;
			p = str_hash(strs[id]) & (ncap - 1);
			while (ns[p] != CP_PAG_NONE)
				p = (p + 1) & (ncap - 1);
			ns[p] = id;
		}
		free(h->slot);
	}
	h->slot = ns;
	h->mask = ncap - 1;
	return 0;
}

/*
 * Find @text among @strs through @h; *@pos receives the free slot to use
 * when it is absent.  Returns its index or CP_PAG_NONE.
 */
static uint32_t strhash_find(const struct strhash *h, char **strs,
			     const char *text, uint32_t *pos)
{
	uint32_t p = str_hash(text) & h->mask;

	for (;;) {
		uint32_t id = h->slot[p];

		if (id == CP_PAG_NONE) {
			*pos = p;
			return CP_PAG_NONE;
		}
		if (strcmp(strs[id], text) == 0)
			return id;
		p = (p + 1) & h->mask;
	}
}

/* Make sure one more entry keeps @h under half full. */
static int strhash_reserve(struct strhash *h, char **strs)
{
	if (h->slot && (uint64_t)(h->count + 1) * 2 <= (uint64_t)h->mask + 1)
		return 0;
	return strhash_grow(h, strs);
}

static void strhash_free(struct strhash *h)
{
	if (!h)
		return;
	free(h->slot);
	h->slot = NULL;
	h->mask = h->count = 0;
}

/* Reallocate *@arr to exactly @ncap items of @size bytes. */
static int resize(void **arr, uint32_t *cap, uint64_t ncap, size_t size)
{
	void *p = cp_big_realloc(*arr, ncap * size);

	if (!p)
		return -1;
	*arr = p;
	*cap = (uint32_t)ncap;
	return 0;
}

/* Grow *@arr of @size-byte items to hold @need; *@cap is updated. */
static int grow(void **arr, uint32_t *cap, uint32_t need, size_t size)
{
	uint64_t ncap;

	if (need <= *cap)
		return 0;
	ncap = *cap ? (uint64_t)*cap * 2 : 16;
	if (ncap < need)
		ncap = need;
	if (ncap > UINT32_MAX - 1)
		ncap = UINT32_MAX - 1;
	if (ncap < need)
		return -1;
	return resize(arr, cap, ncap, size);
}

void cp_pag_init(struct cp_pag *g)
{
	memset(g, 0, sizeof(*g));
}

static void pag_free_adjacency(struct cp_pag *g)
{
	free(g->out_off);
	free(g->out_e);
	free(g->in_off);
	free(g->in_e);
	free(g->topo);
	g->out_off = g->out_e = g->in_off = g->in_e = g->topo = NULL;
	g->finished = false;
}

void cp_pag_free(struct cp_pag *g)
{
	pag_free_adjacency(g);
	free(g->tail);
	free(g->head);
	free(g->w);
	free(g->label);
	if (g->vname) {
		for (uint32_t v = 0; v < g->nv; v++)
			free(g->vname[v]);
		free(g->vname);
	}
	for (uint32_t i = 0; i < g->nlabels; i++)
		free(g->labels[i]);
	free(g->labels);
	strhash_free(g->label_index);
	free(g->label_index);
	cp_pag_init(g);
}

/*
 * Vertex ids are dense, so only the count matters; vname (text PAGs) is
 * grown by the reader, which knows the names.  Returns CP_PAG_NONE when the
 * id space is exhausted.
 */
uint32_t cp_pag_add_vertex(struct cp_pag *g)
{
	if (g->nv >= UINT32_MAX - 1)
		return CP_PAG_NONE;
	if (g->nv >= g->cap_v)
		g->cap_v = g->cap_v ? (g->cap_v > UINT32_MAX / 2 ?
				       UINT32_MAX - 1 : g->cap_v * 2) : 16;
	return g->nv++;
}

int cp_pag_reserve(struct cp_pag *g, uint32_t ne)
{
	uint32_t cap;

	if (ne <= g->cap_e)
		return 0;
	if (resize((void **)&g->tail, &cap, ne, sizeof(*g->tail)) ||
	    resize((void **)&g->head, &cap, ne, sizeof(*g->head)) ||
	    resize((void **)&g->w, &cap, ne, sizeof(*g->w)) ||
	    resize((void **)&g->label, &cap, ne, sizeof(*g->label)))
		return -1;
	g->cap_e = cap;
	return 0;
}

uint32_t cp_pag_add_edge(struct cp_pag *g, uint32_t tail, uint32_t head,
			 uint64_t w, uint32_t label)
{
	uint32_t e = g->ne, cap;

	if (tail >= g->nv || head >= g->nv || e >= UINT32_MAX - 1)
		return CP_PAG_NONE;
	if (e >= g->cap_e) {
		cap = g->cap_e;
		if (grow((void **)&g->tail, &cap, e + 1, sizeof(*g->tail)))
			return CP_PAG_NONE;
		cap = g->cap_e;
		if (grow((void **)&g->head, &cap, e + 1, sizeof(*g->head)))
			return CP_PAG_NONE;
		cap = g->cap_e;
		if (grow((void **)&g->w, &cap, e + 1, sizeof(*g->w)))
			return CP_PAG_NONE;
		cap = g->cap_e;
		if (grow((void **)&g->label, &cap, e + 1, sizeof(*g->label)))
			return CP_PAG_NONE;
		g->cap_e = cap;
	}
	if (g->finished)
		pag_free_adjacency(g);
	g->tail[e] = tail;
	g->head[e] = head;
	g->w[e] = w;
	g->label[e] = label;
	g->ne = e + 1;
	return e;
}

uint32_t cp_pag_intern(struct cp_pag *g, const char *text)
{
	struct strhash *h = g->label_index;
	uint32_t id, pos;
	char *copy;

	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return CP_PAG_NONE;
		g->label_index = h;
	}
	if (strhash_reserve(h, g->labels))
		return CP_PAG_NONE;
	id = strhash_find(h, g->labels, text, &pos);
	if (id != CP_PAG_NONE)
		return id;
	if (grow((void **)&g->labels, &g->cap_labels, g->nlabels + 1,
		 sizeof(*g->labels)))
		return CP_PAG_NONE;
	copy = strdup(text);
	if (!copy)
		return CP_PAG_NONE;
	id = g->nlabels++;
	g->labels[id] = copy;
	h->slot[pos] = id;
	h->count++;
	return id;
}

const char *cp_pag_edge_name(const struct cp_pag *g, uint32_t e, char *buf,
			     size_t len)
{
	uint32_t t = g->tail[e], h = g->head[e];

	if (g->label[e] != CP_PAG_NONE && g->label[e] < g->nlabels)
		return g->labels[g->label[e]];
	if (g->vname && g->vname[t] && g->vname[h])
		snprintf(buf, len, "%s->%s", g->vname[t], g->vname[h]);
	else
		snprintf(buf, len, "%" PRIu32 "->%" PRIu32, t, h);
	return buf;
}

/* Counting sort of edge ids by @key into @off[nv+1] / @list[ne]. */
static void csr_build(uint32_t nv, uint32_t ne, const uint32_t *key,
		      uint32_t *off, uint32_t *list)
{
	memset(off, 0, sizeof(*off) * ((size_t)nv + 1));
	for (uint32_t e = 0; e < ne; e++)
		off[key[e] + 1]++;
	for (uint32_t v = 0; v < nv; v++)
		off[v + 1] += off[v];
	/* off[v] is used as the fill cursor, then restored from off[v+1]. */
	for (uint32_t e = 0; e < ne; e++)
		list[off[key[e]]++] = e;
	for (uint32_t v = nv; v > 0; v--)
		off[v] = off[v - 1];
	off[0] = 0;
}

/*
 * Adjacency and Kahn's order.  Returns 0; 1 with *@cyc set to an edge on a
 * cycle; -1 when memory runs out.
 */
static int pag_finish(struct cp_pag *g, uint32_t *cyc)
{
	uint32_t nv = g->nv, ne = g->ne, qh = 0, qt = 0;
	uint32_t *deg = NULL;

	pag_free_adjacency(g);
	g->out_off = cp_big_malloc(sizeof(uint32_t) * ((size_t)nv + 1));
	g->in_off = cp_big_malloc(sizeof(uint32_t) * ((size_t)nv + 1));
	g->out_e = cp_big_malloc(sizeof(uint32_t) * ((size_t)ne + 1));
	g->in_e = cp_big_malloc(sizeof(uint32_t) * ((size_t)ne + 1));
	g->topo = cp_big_malloc(sizeof(uint32_t) * ((size_t)nv + 1));
	deg = cp_big_malloc(sizeof(uint32_t) * ((size_t)nv + 1));
	if (!g->out_off || !g->in_off || !g->out_e || !g->in_e || !g->topo ||
	    !deg)
		goto err_mem;
	csr_build(nv, ne, g->tail, g->out_off, g->out_e);
	csr_build(nv, ne, g->head, g->in_off, g->in_e);

	for (uint32_t v = 0; v < nv; v++) {
		deg[v] = g->in_off[v + 1] - g->in_off[v];
		if (deg[v] == 0)
			g->topo[qt++] = v;
	}
	while (qh < qt) {
		uint32_t v = g->topo[qh++];

		for (uint32_t i = g->out_off[v]; i < g->out_off[v + 1]; i++) {
			uint32_t h = g->head[g->out_e[i]];

			if (--deg[h] == 0)
				g->topo[qt++] = h;
		}
	}
	if (qt < nv) {
		/*
		 * Leftover vertices all keep an in-edge from another leftover
		 * vertex; walking such edges backwards must repeat a vertex.
		 * deg[] marks the walk: UINT32_MAX = visited.
		 */
		uint32_t v = 0, e = CP_PAG_NONE;

		while (deg[v] == 0)
			v++;
		while (deg[v] != UINT32_MAX) {
			deg[v] = UINT32_MAX;
			for (uint32_t i = g->in_off[v]; i < g->in_off[v + 1];
			     i++) {
				uint32_t t = g->tail[g->in_e[i]];

				if (deg[t] != 0) {
					e = g->in_e[i];
					v = t;
					break;
				}
			}
		}
		*cyc = e;
		free(deg);
		pag_free_adjacency(g);
		return 1;
	}
	cp_big_free(deg);	/* scratch the next phases may reuse */
	g->finished = true;
	return 0;

err_mem:
	free(deg);
	pag_free_adjacency(g);
	return -1;
}

static const bool cp_pag_debug = CP_DEBUG;

/* Invariants of a finished graph: every edge goes forward in topo[]. */
static void cp_pag_assert(const struct cp_pag *g)
{
	uint32_t *rank;

	if (!cp_pag_debug || !g->finished)
		return;
	rank = malloc(sizeof(*rank) * ((size_t)g->nv + 1));
	if (!rank)
		return;
	for (uint32_t i = 0; i < g->nv; i++)
		rank[g->topo[i]] = i;
	for (uint32_t e = 0; e < g->ne; e++)
		if (rank[g->tail[e]] >= rank[g->head[e]])
			abort();
	if (g->out_off[g->nv] != g->ne || g->in_off[g->nv] != g->ne)
		abort();
	free(rank);
}

int cp_pag_finish(struct cp_pag *g, char *err, size_t errlen)
{
	uint32_t cyc = CP_PAG_NONE;
	char buf[64];
	int r = pag_finish(g, &cyc);

	if (r < 0)
		snprintf(err, errlen, "out of memory finishing a graph of "
			 "%" PRIu32 " edges", g->ne);
	else if (r > 0)
		snprintf(err, errlen, "the graph has a cycle through edge %s",
			 cp_pag_edge_name(g, cyc, buf, sizeof(buf)));
	else
		cp_pag_assert(g);
	return r ? -1 : 0;
}

static void fail(char *err, size_t errlen, const char *path, uint64_t line,
		 const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s:%" PRIu64 ": %s", path, line, msg);
}

/*
 * The longest line a text PAG may have.  An edge line is four short
 * fields; the bound keeps an input that never ends a line (/dev/zero, a
 * binary file, a pipe of garbage) from growing the line buffer forever.
 */
#define CP_PAG_MAX_LINE (64 * 1024)

/*
 * Read one line of @f into *@line (grown as needed, at most
 * CP_PAG_MAX_LINE bytes).  Returns its length, -1 at the end of the input
 * (or a read error: see ferror), -2 if the line is too long or holds a NUL
 * byte (the input is not text).
 */
static long read_line(FILE *f, char **line, size_t *cap)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF) {
		if (c == '\0' || n + 2 > CP_PAG_MAX_LINE)
			return -2;
		if (n + 2 > *cap) {
			size_t ncap = *cap ? *cap * 2 : 256;
			char *p = realloc(*line, ncap);

			if (!p)
				return -2;
			*line = p;
			*cap = ncap;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (n == 0 && c == EOF)
		return -1;
	(*line)[n] = '\0';
	return (long)n;
}

/* Vertex of name @name, created on first sight.  CP_PAG_NONE on OOM. */
static uint32_t text_vertex(struct cp_pag *g, struct strhash *names,
			    uint32_t *cap_names, const char *name)
{
	uint32_t v, pos;
	char *copy;

	if (strhash_reserve(names, g->vname))
		return CP_PAG_NONE;
	v = strhash_find(names, g->vname, name, &pos);
	if (v != CP_PAG_NONE)
		return v;
	if (grow((void **)&g->vname, cap_names, g->nv + 1, sizeof(char *)))
		return CP_PAG_NONE;
	copy = strdup(name);
	if (!copy)
		return CP_PAG_NONE;
	v = cp_pag_add_vertex(g);
	if (v == CP_PAG_NONE) {
		free(copy);
		return CP_PAG_NONE;
	}
	g->vname[v] = copy;
	names->slot[pos] = v;
	names->count++;
	return v;
}

/* Parse a non-negative decimal integer that must fill the token. */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return -1;
		d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int cp_pag_read_text(struct cp_pag *g, const char *path, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "r");
	int r;

	if (!f) {
		cp_pag_init(g);
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	r = cp_pag_read_stream(g, f, path, err, errlen);
	fclose(f);
	return r;
}

int cp_pag_read_stream(struct cp_pag *g, FILE *f, const char *path,
		       char *err, size_t errlen)
{
	struct strhash names = { 0 };
	uint32_t cap_names = 0, cap_lines = 0, cyc = CP_PAG_NONE;
	uint32_t *lineof = NULL;
	uint64_t lineno = 0, total = 0;
	char *line = NULL;
	size_t linecap = 0;
	int r;

	cp_pag_init(g);
	for (;;) {
		char *tok[6], *save = NULL, *hash, *s;
		uint32_t t, h, label = CP_PAG_NONE, e;
		uint64_t w;
		int n = 0;
		long got = read_line(f, &line, &linecap);

		if (got == -1)
			break;
		lineno++;
		if (got == -2) {
			fail(err, errlen, path, lineno, "not a text PAG (a NUL "
			     "byte, or a line longer than %d bytes)",
			     CP_PAG_MAX_LINE);
			goto err_free;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (s = strtok_r(line, " \t\r\n\v\f", &save); s && n < 6;
		     s = strtok_r(NULL, " \t\r\n\v\f", &save))
			tok[n++] = s;
		if (n == 0)
			continue;
		if (strcmp(tok[0], "e") != 0) {
			fail(err, errlen, path, lineno,
			     "expected \"e TAIL HEAD WEIGHT [LABEL]\", found "
			     "\"%.40s\"", tok[0]);
			goto err_free;
		}
		if (n < 4 || n > 5) {
			fail(err, errlen, path, lineno, "an edge line has 3 or "
			     "4 fields after 'e' (TAIL HEAD WEIGHT [LABEL]), "
			     "found %s", n < 4 ? "fewer" : "more");
			goto err_free;
		}
		if (parse_u64(tok[3], &w)) {
			fail(err, errlen, path, lineno, "weight \"%.40s\" is "
			     "not a non-negative 64-bit integer", tok[3]);
			goto err_free;
		}
		/* every path length, and so every algorithm's sum, is at
		 * most the total weight (cp_cpm.h) */
		if (w > UINT64_MAX - total) {
			fail(err, errlen, path, lineno, "the weights add up "
			     "past 2^64-1");
			goto err_free;
		}
		total += w;
		t = text_vertex(g, &names, &cap_names, tok[1]);
		h = t == CP_PAG_NONE ? t :
		    text_vertex(g, &names, &cap_names, tok[2]);
		if (n == 5 && h != CP_PAG_NONE)
			label = cp_pag_intern(g, tok[4]);
		if (h == CP_PAG_NONE || (n == 5 && label == CP_PAG_NONE) ||
		    grow((void **)&lineof, &cap_lines, g->ne + 1,
			 sizeof(*lineof)))
			goto err_mem;
		e = cp_pag_add_edge(g, t, h, w, label);
		if (e == CP_PAG_NONE)
			goto err_mem;
		lineof[e] = lineno > UINT32_MAX ? UINT32_MAX : (uint32_t)lineno;
	}
	if (ferror(f)) {
		fail(err, errlen, path, lineno + 1, "read error: %s",
		     strerror(errno));
		goto err_free;
	}
	if (g->ne == 0) {
		fail(err, errlen, path, lineno ? lineno : 1, "no edges "
		     "(expected lines "
		     "\"e TAIL HEAD WEIGHT [LABEL]\")");
		goto err_free;
	}
	r = pag_finish(g, &cyc);
	if (r < 0)
		goto err_mem;
	if (r > 0) {
		fail(err, errlen, path, lineof[cyc], "edge %s->%s closes a "
		     "cycle (a PAG must be acyclic)", g->vname[g->tail[cyc]],
		     g->vname[g->head[cyc]]);
		goto err_free;
	}
	free(line);
	free(lineof);
	strhash_free(&names);
	return 0;

err_mem:
	fail(err, errlen, path, lineno, "out of memory");
err_free:
	free(line);
	free(lineof);
	strhash_free(&names);
	cp_pag_free(g);
	return -1;
}
