/*
 * cp_child.h - run a program as a child process and keep what it wrote:
 * the one child runner of the tests (the cpt command-line tests, the
 * integration harness that runs the workloads under the tracer).
 *
 * The child's stdin is /dev/null; its stdout and stderr go to the files
 * "stdout" and "stderr" of a directory the caller owns, and are read
 * back whole once it has exited.  Nothing here asserts: every call
 * returns 0 or -1 with the reason on stderr, so Check suites and plain
 * programs can both use it.  Not thread-safe (one child at a time per
 * thread; the callers are single-threaded test processes).
 */
#ifndef CP_CHILD_H
#define CP_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What to run and where. */
struct cp_child_spec {
	const char *const *argv;	/* [0] the program; NULL-ended */
	char *const *envp;		/* NULL: this process's environment */
	const char *dir;		/* stdout and stderr files go here */
	bool chdir;			/* start the child in @dir */
	unsigned timeout_s;		/* SIGKILL after this long; 0: never */
};

/* One finished child process. */
struct cp_child {
	pid_t pid;
	int status;		/* as from waitpid */
	bool timed_out;		/* killed after spec.timeout_s */
	double cpu_ms;		/* its user + system time, ms */
	char *out, *err;	/* its stdout and stderr, NUL-terminated,
				 * malloc'd (free with cp_child_free) */
	size_t outlen, errlen;	/* their lengths in bytes, without the NUL */
};

/*
 * Start @spec's program and wait for it to exit (polling every 2 ms when
 * a timeout is set).  Fills @c; returns 0, or -1 if the child could not
 * be started or waited for (message on stderr, @c's buffers NULL).
 */
int cp_child_run(struct cp_child *c, const struct cp_child_spec *spec);

/* Exit status, or 128 + signal number, or -1 if it timed out. */
int cp_child_exit_code(const struct cp_child *c);

/* Free @c's buffers (a NULL buffer is fine) and clear them. */
void cp_child_free(struct cp_child *c);

/*
 * The whole contents of file @path, NUL-terminated, malloc'd; an empty
 * string when it cannot be read.  Its length (without the NUL) in *@len
 * unless @len is NULL.  Aborts only when out of memory.
 */
char *cp_child_slurp(const char *path, size_t *len);

#endif /* CP_CHILD_H */
