/*
 * cp_gprof.h - gprof's flat profile and the "total" (self + children) of
 * its call graph, read from the real `gprof -b -p -q EXE GMON` (Debian's
 * binutils), so a critical-path report can set the CPU
 * profile a programmer already knows beside the critical-path metrics
 * ([Hollingsworth98, Figs. 12 and 13]).
 *
 * The program is then built twice: with -pg for gprof, and with the tracer
 * for cpthread.  Procedures are matched by name; the two runs differ, so
 * compare percentages rather than seconds.
 *
 * A struct cp_gprof is filled once and read-only afterwards.
 */
#ifndef CP_GPROF_H
#define CP_GPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cp_gprof_entry {
	char *name;		/* procedure, as gprof prints it */
	double pct;		/* "% time" column */
	uint64_t self_ns;	/* "self seconds", in ns */
	uint64_t calls;		/* "calls" column, when has_calls */
	bool has_calls;		/* the function was compiled with -pg */
	uint64_t total_ns;	/* call graph: self + children, in ns */
	double total_pct;	/* call graph: "% time" (of the total) */
	bool has_total;		/* the call graph has the function */
};

struct cp_gprof {
	struct cp_gprof_entry *e;	/* [n] in gprof's order (self time) */
	uint32_t n;
	struct cp_gprof_entry **by_name;	/* [n] e[] sorted by name */
	uint64_t sample_ns;	/* "Each sample counts as X seconds" */
	uint64_t total_ns;	/* sum of self times */
	bool no_time;		/* gprof said "no time accumulated" */
	char *exe, *gmon;	/* what cp_gprof_run() read, or NULL */
};

/*
 * Parse the text of `gprof -b -p` (@len bytes at @text; @name for
 * messages).  Returns 0 with @gp filled, or -1 with "NAME: reason" in @err
 * (no flat profile header, a malformed row, out of memory).
 */
int cp_gprof_parse(struct cp_gprof *gp, const char *text, size_t len,
		   const char *name, char *err, size_t errlen);

/*
 * Run `@gprof -b -p @exe @gmon` (@gprof NULL: "gprof" from PATH) and parse
 * its output.  Returns 0, or -1 with a one-line reason in @err: a file
 * missing, gprof not installed, gprof failing (its first line of error
 * output is quoted).  Forks and waits; call from one thread.
 */
int cp_gprof_run(struct cp_gprof *gp, const char *gprof, const char *exe,
		 const char *gmon, char *err, size_t errlen);

/* The entry of procedure @name, or NULL.  O(log n). */
const struct cp_gprof_entry *cp_gprof_find(const struct cp_gprof *gp,
					   const char *name);

/* Free what @gp owns; it may be filled again. */
void cp_gprof_free(struct cp_gprof *gp);

/* Did gprof's output hold a call graph (any entry with a total)? */
bool cp_gprof_has_totals(const struct cp_gprof *gp);

#endif /* CP_GPROF_H */
