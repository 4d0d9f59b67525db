/*
 * cpt_cli.h - the command-line tests' fixture: run the built cpt in a
 * scratch directory and keep what it wrote (on cp_child.h), and the
 * synthetic traces those tests read.  Call from a Check test (a failure
 * to start cpt or to write a file fails the running test); single-threaded.
 */
#ifndef CPT_CLI_H
#define CPT_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* One cpt run.  Declare it zeroed: cpt_run() frees what the last run of
 * the same struct left. */
struct cpt_res {
	int status;		/* exit code, or 128 + signal */
	bool signaled;		/* killed by a signal */
	char *out, *err;	/* stdout and stderr, NUL-terminated,
				 * malloc'd */
	size_t outlen;		/* bytes of stdout, without the NUL */
};

/* Run cpt with @args (NULL-terminated, without argv[0], at most 62) in
 * directory @dir, which receives its stdout and stderr files. */
void cpt_run(struct cpt_res *r, const char *dir, const char *const *args);
/* The same, run with @dir as its working directory too. */
void cpt_run_at(struct cpt_res *r, const char *dir, const char *const *args);

/* Free @r's output and clear it (a cleared @r may be freed again). */
void cpt_res_free(struct cpt_res *r);

/* A fresh directory /tmp/@prefix_XXXXXX into @dir (@len bytes). */
void cpt_tmpdir(char *dir, size_t len, const char *prefix);

/* Write synthetic trace @s to a fresh file /tmp/@prefix_XXXXXX, its name
 * into @path (@len bytes). */
struct synth;
void cpt_write_synth_temp(struct synth *s, char *path, size_t len,
			  const char *prefix);

/* How many times @needle occurs in @hay (a run's output). */
unsigned cpt_count(const char *hay, const char *needle);

/* Remove @dir and all it holds (a failure is only reported on stderr). */
void cpt_rmdir(const char *dir);

/* doc/examples.md section 4 in milliseconds (trace_synth.h's lock
 * example, work1 30 ms, work2 20, crit 10; online length 40 ms) to @path. */
void cpt_write_lock_trace(const char *path);

#endif /* CPT_CLI_H */
