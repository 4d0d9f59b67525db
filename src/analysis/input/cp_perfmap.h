/*
 * cp_perfmap.h - names of code that lies in no file: a JIT compiler's
 * (the JVM's, V8's, LuaJIT's), from the map such runtimes write for perf,
 * /tmp/perf-PID.map: one line per piece of code, "START SIZE NAME", START
 * and SIZE in hex (with or without 0x).  The JVM writes it with
 * -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit, node with
 * --perf-basic-prof.  Code may be moved or freed and its range reused: of
 * the lines holding an address, the last one written names it.
 *
 * Concurrency: loaded once, then read by one symbolizer.
 */
#ifndef CP_PERFMAP_H
#define CP_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

struct cp_perfmap_ent {
	uint64_t start, end;
	uint32_t line;		/* its order in the file */
	uint32_t name;		/* offset in names */
};

struct cp_perfmap {
	char *path;
	struct cp_perfmap_ent *e;	/* by start, then line */
	uint32_t n;
	uint64_t maxlen;	/* the longest range */
	char *names;
	size_t nnames, cap_names;
	uint32_t bad;		/* lines that were no entry */
};

/*
 * The map of process @pid written since @since_ns (CLOCK_REALTIME): one
 * older is another process's of the same pid.  NULL when there is none,
 * when it is older, or out of memory; never fails the analysis.
 */
struct cp_perfmap *cp_perfmap_load(uint64_t pid, uint64_t since_ns);

/* Load the map at @path, whatever its age (tests); NULL as above. */
struct cp_perfmap *cp_perfmap_load_file(const char *path);

/* The name of the code holding @addr, or NULL. */
const char *cp_perfmap_find(const struct cp_perfmap *m, uint64_t addr);

void cp_perfmap_free(struct cp_perfmap *m);

#endif /* CP_PERFMAP_H */
