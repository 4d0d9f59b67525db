/*
 * cp_perfmap.c - perf's maps of JIT-compiled code (cp_perfmap.h).
 *
 * Loaded into an array sorted by start; a look-up binary-searches the
 * last entry starting at or before the address, then walks back over the
 * entries that may still reach it (none is longer than the longest),
 * keeping the latest line that holds it.
 */
#define _GNU_SOURCE
#include "cp_perfmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cp_grow.h"

/* Entries walked back at most per look-up: a map whose ranges overlap
 * more deeply names some addresses by an older line. */
#define CP_PERFMAP_WALK 64

static int cmp_ent(const void *x, const void *y)
{
	const struct cp_perfmap_ent *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->line < b->line ? -1 : 1;
}

/* One line "START SIZE NAME" into @m; -1 out of memory, 1 not an entry. */
static int add_line(struct cp_perfmap *m, char *line, uint32_t no,
		    uint32_t *cap)
{
	char *p = line, *end;
	uint64_t start, size;
	size_t len;

	start = strtoull(p, &end, 16);
	if (end == p || (*end != ' ' && *end != '\t'))
		return 1;
	p = end;
	size = strtoull(p, &end, 16);
	if (end == p || (*end != ' ' && *end != '\t') || !size ||
	    start + size < start)
		return 1;
	p = end + strspn(end, " \t");
	len = strcspn(p, "\r\n");
	if (!len)
		return 1;
	if (cp_grow32((void **)&m->e, sizeof(*m->e), cap, (uint64_t)m->n + 1))
		return -1;
	while (m->nnames + len + 1 > m->cap_names) {
		size_t c = m->cap_names ? 2 * m->cap_names : 4096;
		char *nn = realloc(m->names, c);

		if (!nn)
			return -1;
		m->names = nn;
		m->cap_names = c;
	}
	memcpy(m->names + m->nnames, p, len);
	m->names[m->nnames + len] = 0;
	m->e[m->n++] = (struct cp_perfmap_ent){
		.start = start, .end = start + size, .line = no,
		.name = (uint32_t)m->nnames,
	};
	m->nnames += len + 1;
	if (size > m->maxlen)
		m->maxlen = size;
	return 0;
}

struct cp_perfmap *cp_perfmap_load_file(const char *path)
{
	struct cp_perfmap *m = calloc(1, sizeof(*m));
	char *line = NULL;
	size_t cap = 0;
	uint32_t cap_e = 0, no = 0;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!m || !f || !(m->path = strdup(path)))
		goto fail;
	while (getline(&line, &cap, f) > 0 && rc >= 0 &&
	       m->nnames < UINT32_MAX / 2) {
		rc = add_line(m, line, no++, &cap_e);
		m->bad += rc > 0;
	}
	free(line);
	fclose(f);
	if (rc < 0 || !m->n) {
		cp_perfmap_free(m);
		return NULL;
	}
	qsort(m->e, m->n, sizeof(*m->e), cmp_ent);
	return m;
fail:
	if (f)
		fclose(f);
	cp_perfmap_free(m);
	return NULL;
}

struct cp_perfmap *cp_perfmap_load(uint64_t pid, uint64_t since_ns)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu64 ".map", pid);
	if (stat(path, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
	    (uint64_t)st.st_mtim.tv_nsec < since_ns)
		return NULL;
	return cp_perfmap_load_file(path);
}

const char *cp_perfmap_find(const struct cp_perfmap *m, uint64_t addr)
{
	const struct cp_perfmap_ent *best = NULL;
	uint32_t lo = 0, hi;

	if (!m || !m->n || addr < m->e[0].start)
		return NULL;
	hi = m->n;		/* the last entry starting at or before addr */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->e[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	for (uint32_t k = 0; k < CP_PERFMAP_WALK; k++) {
		const struct cp_perfmap_ent *e = &m->e[lo];

		if (addr - e->start >= m->maxlen)
			break;
		if (addr < e->end && (!best || e->line > best->line))
			best = e;
		if (!lo--)
			break;
	}
	return best ? m->names + best->name : NULL;
}

void cp_perfmap_free(struct cp_perfmap *m)
{
	if (!m)
		return;
	free(m->path);
	free(m->e);
	free(m->names);
	free(m);
}
