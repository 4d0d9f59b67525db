/*
 * cp_budget.h - how much memory analysing a trace will take, told before
 * reading it, and the budget it must fit (`cpt --memory SIZE`).
 *
 * The analyzer holds the whole trace graph in memory: its peak is close to
 * proportional to the number of events (measured, see cp_budget.c).  The
 * estimate walks the block headers only (one small read per 64 KiB block),
 * so a trace too large for the machine is refused in a fraction of a
 * second, with a message naming the estimate and the budget, instead of
 * being read until the machine swaps or the kernel kills the process.
 */
#ifndef CP_BUDGET_H
#define CP_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What the analysis of the trace will hold at its peak beyond the graph
 * (cp_budget.c gives each one's bytes per event, as measured).
 */
enum cp_budget_use {
	CP_BUDGET_PATHS,	/* the graph, its CPM and the k-path search:
				 * cpt paths */
	CP_BUDGET_GRAPH,	/* the graph and one analysis of it: cpt
				 * export, cpt whatif --in-memory */
	CP_BUDGET_REPORT,	/* the profile with zeroing, Slack and MBM:
				 * cpt report */
	CP_BUDGET_PAGE,		/* the profile and two what-if replays at
				 * once: cpt report --format html, cpt whatif
				 * --cpus or --wake */
};

/* What the block headers of a trace say about its size. */
struct cp_budget_est {
	uint64_t file_bytes;	/* size of the file */
	uint64_t nevents;	/* events the EVENTS blocks claim (an upper
				 * bound: salvage may drop some) */
	bool exact;		/* every block header was read; false: a
				 * damaged stretch was counted by its bytes */
	uint64_t peak_bytes;	/* estimated peak memory of an analysis */
};

/*
 * Estimate what analysing the trace file @path for @use, with @k
 * near-critical paths (cpt paths --k, cpt report --k; 0 for none), takes
 * (struct cp_budget_est).  Reads the header and each block header with
 * pread; a damaged or cut block ends the walk and the rest of the file is
 * counted at the densest encoding (one event per two bytes), so the
 * estimate errs high but stays within 64 MB, 88 bytes per byte of file
 * and 2.5 KB a path (an EVENTS block claiming more events than its bytes,
 * which the reader drops, counts none).  Returns 0, or -1 with "PATH:
 * reason" in @err (cannot open or read; not a trace is not an error here:
 * the reader words that).  Any thread.
 */
int cp_budget_estimate(const char *path, enum cp_budget_use use,
		       uint32_t k, struct cp_budget_est *est, char *err,
		       size_t errlen);

/*
 * The default budget: three quarters of the machine's physical memory,
 * in bytes (1 GiB if the system does not say).  Any thread.
 */
uint64_t cp_budget_default(void);

/*
 * Parse a memory size: a positive decimal number with an optional binary
 * suffix K, M, G or T (KiB ...; "1.5G", "800M", "4096").  Returns 0 with
 * bytes in *@out, or -1 if @s is not one.
 */
int cp_budget_parse(const char *s, uint64_t *out);

/* @bytes as "64 KB" / "812 MB" / "3.4 GB" (binary units) into @buf; returns @buf. */
const char *cp_budget_fmt(char *buf, size_t len, uint64_t bytes);

#endif /* CP_BUDGET_H */
