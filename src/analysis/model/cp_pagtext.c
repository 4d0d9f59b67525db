/*
 * cp_pagtext.c - the plain-text PAG reader: lines "e TAIL HEAD WEIGHT
 * [LABEL]" into a struct cp_pag (cp_pag.h has the format's contract).
 *
 * Vertex names map to ids through a string map over g->vname (cp_hash.h),
 * ids given in order of first sight; labels are interned by cp_pag_intern.
 * Each edge's line is kept until the graph is finished, so that a cycle is
 * reported at the line of one of its edges.  Every line is bounded
 * (CP_PAG_MAX_LINE) and every number checked, so garbage costs one message
 * "FILE:LINE: reason", never a crash or unbounded memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_hash.h"
#include "cp_pag.h"

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
static uint32_t text_vertex(struct cp_pag *g, struct cp_smap *names,
			    uint32_t *cap_names, const char *name)
{
	uint32_t v = cp_smap_get(names, g->vname, name);
	char *copy;

	if (v != CP_HASH_NONE)
		return v;
	if (cp_pag_grow((void **)&g->vname, cap_names, g->nv + 1,
			sizeof(char *)))
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
	if (cp_smap_add(names, g->vname, v))
		return CP_PAG_NONE;	/* the name is freed with @g */
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

/* The reader's state over one input. */
struct text_rd {
	struct cp_pag *g;
	const char *path;	/* for messages */
	char *err;
	size_t errlen;
	struct cp_smap names;	/* vertex name -> id, over g->vname */
	uint32_t cap_names;	/* of g->vname */
	uint32_t *lineof;	/* [ne] line of each edge */
	uint32_t cap_lines;
	uint64_t lineno;	/* of the line being read */
	uint64_t total;		/* sum of the weights so far */
};

/*
 * One line's tokens @tok[0..@n) (@n >= 1, comments stripped) as an edge
 * of the graph.  Returns 0, -1 with the message set, -2 when out of
 * memory.
 */
static int text_edge(struct text_rd *tr, char **tok, int n)
{
	struct cp_pag *g = tr->g;
	uint32_t t, h, label = CP_PAG_NONE, e;
	uint64_t w;

	if (strcmp(tok[0], "e") != 0) {
		fail(tr->err, tr->errlen, tr->path, tr->lineno,
		     "expected \"e TAIL HEAD WEIGHT [LABEL]\", found "
		     "\"%.40s\"", tok[0]);
		return -1;
	}
	if (n < 4 || n > 5) {
		fail(tr->err, tr->errlen, tr->path, tr->lineno, "an edge line "
		     "has 3 or 4 fields after 'e' (TAIL HEAD WEIGHT [LABEL]), "
		     "found %s", n < 4 ? "fewer" : "more");
		return -1;
	}
	if (parse_u64(tok[3], &w)) {
		fail(tr->err, tr->errlen, tr->path, tr->lineno, "weight "
		     "\"%.40s\" is not a non-negative 64-bit integer", tok[3]);
		return -1;
	}
	/* every path length, and so every algorithm's sum, is at most the
	 * total weight (cp_cpm.h) */
	if (w > UINT64_MAX - tr->total) {
		fail(tr->err, tr->errlen, tr->path, tr->lineno, "the weights "
		     "add up past 2^64-1");
		return -1;
	}
	tr->total += w;
	t = text_vertex(g, &tr->names, &tr->cap_names, tok[1]);
	h = t == CP_PAG_NONE ? t :
	    text_vertex(g, &tr->names, &tr->cap_names, tok[2]);
	if (n == 5 && h != CP_PAG_NONE)
		label = cp_pag_intern(g, tok[4]);
	if (h == CP_PAG_NONE || (n == 5 && label == CP_PAG_NONE) ||
	    cp_pag_grow((void **)&tr->lineof, &tr->cap_lines, g->ne + 1,
			sizeof(*tr->lineof)))
		return -2;
	e = cp_pag_add_edge(g, t, h, w, label);
	if (e == CP_PAG_NONE)
		return -2;
	tr->lineof[e] = tr->lineno > UINT32_MAX ? UINT32_MAX :
			(uint32_t)tr->lineno;
	return 0;
}

/* Whether @s holds a control byte that no text has (white space aside). */
static bool binary(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && !strchr("\t\n\v\f\r", *p)) || *p == 0x7f)
			return true;
	return false;
}

/* What a file that is no graph at all is called: neither of cpt's two
 * inputs (cpt tries a trace first). */
#define NOT_INPUT "not a cpthread trace (it does not begin with CPTTRACE) " \
		  "nor a graph in text form"

/* Every line of @f into the graph.  0, -1 (message set), -2 (memory). */
static int text_lines(struct text_rd *tr, FILE *f)
{
	char *line = NULL;
	size_t linecap = 0;
	int ret = 0;

	for (;;) {
		char *tok[6], *save = NULL, *hash, *s;
		int n = 0;
		long got = read_line(f, &line, &linecap);

		if (got == -1)
			break;
		tr->lineno++;
		if (got == -2 || binary(line)) {
			fail(tr->err, tr->errlen, tr->path, tr->lineno,
			     NOT_INPUT " (binary bytes, or a line longer than "
			     "%d bytes)", CP_PAG_MAX_LINE);
			ret = -1;
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (s = strtok_r(line, " \t\r\n\v\f", &save); s && n < 6;
		     s = strtok_r(NULL, " \t\r\n\v\f", &save))
			tok[n++] = s;
		if (n && (ret = text_edge(tr, tok, n)))
			break;
	}
	free(line);
	return ret;
}

/* The graph read: not empty, finished, acyclic.  0, -1, -2 (memory). */
static int text_finish(struct text_rd *tr, FILE *f)
{
	struct cp_pag *g = tr->g;
	uint32_t cyc = CP_PAG_NONE;
	int r;

	if (ferror(f)) {
		fail(tr->err, tr->errlen, tr->path, tr->lineno + 1,
		     "read error: %s", strerror(errno));
		return -1;
	}
	if (g->ne == 0 && !tr->lineno) {
		snprintf(tr->err, tr->errlen, "%s: empty: " NOT_INPUT,
			 tr->path);
		return -1;
	}
	if (g->ne == 0) {
		fail(tr->err, tr->errlen, tr->path, tr->lineno,
		     "no edges (expected lines \"e TAIL HEAD WEIGHT "
		     "[LABEL]\")");
		return -1;
	}
	r = cp_pag_finish_cycle(g, &cyc);
	if (r < 0)
		return -2;
	if (r > 0) {
		fail(tr->err, tr->errlen, tr->path, tr->lineof[cyc], "edge "
		     "%s->%s closes a cycle (a PAG must be acyclic)",
		     g->vname[cp_pag_tail(g, cyc)], g->vname[g->head[cyc]]);
		return -1;
	}
	return 0;
}

int cp_pag_read_stream(struct cp_pag *g, FILE *f, const char *path,
		       char *err, size_t errlen)
{
	struct text_rd tr = {
		.g = g, .path = path, .err = err, .errlen = errlen,
	};
	int r;

	cp_pag_init(g);
	r = text_lines(&tr, f);
	if (!r)
		r = text_finish(&tr, f);
	if (r == -2)
		fail(err, errlen, path, tr.lineno, "out of memory");
	free(tr.lineof);
	cp_smap_free(&tr.names);
	if (r)
		cp_pag_free(g);
	return r ? -1 : 0;
}
