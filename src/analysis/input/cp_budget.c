/*
 * cp_budget.c - the memory estimate of a trace analysis, from the block
 * headers, and the budget it is held to.
 *
 * The model is linear in the events, per use (enum cp_budget_use): a
 * fixed part (the program, the symbolizer's 20-30 MB, tables sized by
 * threads and objects), bytes per event for the decoded vertices (16,
 * and 12 of payload that most verbs drop once the graph is built), the
 * graph's edge arrays and attributes (about 24: 1.5 edges of 12 bytes
 * plus a kind, and a tail and a calling context for the 1 in 1.5 that
 * are segments), its adjacency (about 24: 12 bytes per vertex and 8 per
 * edge), the critical path method (18), then what the use adds: the
 * k-path search's scratch (about 20) or the cuts' (8 a vertex; zeroing
 * and Slack keep only a window of a few rows per block), and for a page
 * two what-if replays side by side; the publish table (8) while the graph
 * is built, plus the file itself, whose mapped pages count while it is
 * read, and per near-critical path asked for its share of the search.
 *
 * The figures are above the largest peaks measured on traces of 0.7 to
 * 20 million events (doc/measurements/2026-12-01-memory-estimate.md):
 * beyond 64 MB and the file, up to 78 bytes an event for paths, 89 for
 * the report, 91 for export and 147 for a page, the most on SPLASH-style
 * water and a task-queue program; 1.6-2.5 KB a path for 10^3-10^5 paths.
 * So the estimate errs high rather than low.
 */
#include "cp_budget.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_trace_format.h"
#include "cp_varint.h"

#define FIXED_BYTES	(64ull << 20)	/* the fixed part */
#define PER_PATH	2560u		/* bytes per near-critical path */

/* Bytes of peak memory per event, by enum cp_budget_use. */
static const unsigned per_event[] = {
	[CP_BUDGET_PATHS] = 125,
	[CP_BUDGET_GRAPH] = 125,
	[CP_BUDGET_REPORT] = 125,
	[CP_BUDGET_PAGE] = 175,
};

/* Bytes the walk reads at a time where blocks are small (below an
 * eighth of it): a thread per task makes hundreds of thousands of blocks
 * of a few hundred bytes, two reads each otherwise.  Where blocks are
 * larger it reads only their headers, so that a trace not in the page
 * cache is not read whole. */
#define RD_BYTES	(64u << 10)

/* The trace read through a buffer: it holds the file's [at, at + len). */
struct rd {
	int fd;
	uint64_t at;
	size_t len;
	uint8_t buf[RD_BYTES];
};

/*
 * The @n bytes at @off (@n <= RD_BYTES) into *@p, from the buffer when it
 * holds them, else read from @off on: RD_BYTES of them when the block
 * before was small (@last, its bytes, below RD_BYTES / 8), else @n.  0,
 * or -1 when the file is shorter.
 */
static int rd_get(struct rd *r, uint64_t off, size_t n, uint64_t last,
		  const uint8_t **p)
{
	if (off < r->at || off + n > r->at + r->len) {
		size_t want = last < RD_BYTES / 8 ? RD_BYTES : n;

		r->at = off;
		r->len = 0;
		while (r->len < want) {
			ssize_t got = pread(r->fd, r->buf + r->len,
					    want - r->len,
					    (off_t)(off + r->len));

			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				break;
			r->len += (size_t)got;
		}
		if (r->len < n)
			return -1;
	}
	*p = r->buf + (off - r->at);
	return 0;
}

/*
 * Walk the block headers of the open trace @fd of @size bytes, summing the
 * events EVENTS blocks claim into @est.  The walk stops at the first block
 * that does not frame (damage, a cut end): the rest is counted by bytes.
 */
static void walk_blocks(int fd, uint64_t size, struct cp_budget_est *est)
{
	struct rd *r = malloc(sizeof(*r));
	const uint8_t *h, *b;
	uint64_t off, bsz, last = 0;

	est->exact = false;
	if (!r)
		return;
	*r = (struct rd){ .fd = fd };
	if (rd_get(r, 0, CP_TRACE_HEADER_SIZE, 0, &h) ||
	    memcmp(h, CP_TRACE_MAGIC, 8)) {
		free(r);
		return;
	}
	bsz = cp_rd_u32(h + 8) == 1 ? CP_BLOCK_HEADER_V1_SIZE :
	      sizeof(struct cp_block_header);
	off = cp_rd_u32(h + 12);
	while (off + bsz <= size) {
		uint32_t len;

		if (rd_get(r, off, bsz, last, &b) ||
		    cp_rd_u32(b) != CP_BLOCK_MAGIC)
			break;
		len = cp_rd_u32(b + 12);
		if (len > size - off - bsz)
			break;
		if (cp_rd_u32(b + 4) == CP_BLOCK_EVENTS &&
		    len >= sizeof(struct cp_events_head)) {
			uint32_t nev;

			if (rd_get(r, off + bsz, sizeof(struct cp_events_head),
				   last, &b))
				break;
			/* a count the block cannot hold: the reader drops it */
			nev = cp_rd_u32(b + 16);
			if (nev <= len - sizeof(struct cp_events_head))
				est->nevents += nev;
		}
		last = bsz + len;
		off += last;
	}
	free(r);
	if (off >= size)
		est->exact = true;
	else
		est->nevents += (size - off) / 2;
}

int cp_budget_estimate(const char *path, enum cp_budget_use use,
		       uint32_t k, struct cp_budget_est *est, char *err,
		       size_t errlen)
{
	struct stat st;
	int fd;

	memset(est, 0, sizeof(*est));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	est->file_bytes = (uint64_t)st.st_size;
	if (S_ISREG(st.st_mode))
		walk_blocks(fd, est->file_bytes, est);
	close(fd);
	est->peak_bytes = FIXED_BYTES + est->nevents * per_event[use] +
			  (uint64_t)k * PER_PATH + est->file_bytes;
	return 0;
}

uint64_t cp_budget_default(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long psize = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || psize <= 0)
		return 1ull << 30;
	return (uint64_t)pages * (uint64_t)psize / 4 * 3;
}

int cp_budget_parse(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v > 0))
		return -1;
	if (*end) {
		u = strchr(units, *end);
		if (!u || !*u || (end[1] && strcmp(end + 1, "B") &&
				  strcmp(end + 1, "iB")))
			return -1;
		for (long i = 0; i <= u - units; i++)
			v *= 1024;
	}
	if (v >= 18e18 || v < 1)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

const char *cp_budget_fmt(char *buf, size_t len, uint64_t bytes)
{
	double mb = (double)bytes / (1024.0 * 1024.0);

	if (mb < 1)
		snprintf(buf, len, "%.0f KB", mb * 1024);
	else if (mb < 1024)
		snprintf(buf, len, "%.0f MB", mb);
	else
		snprintf(buf, len, "%.1f GB", mb / 1024);
	return buf;
}
