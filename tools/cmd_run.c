/*
 * cmd_run.c - `cpt run [options] -- PROGRAM [ARGS...]`: run a program
 * under the tracer.
 *
 * The options become CPTHREAD_* variables.  libcpthread.so is preloaded
 * unless the program already carries the tracer (linked dynamically: its
 * file names libcpthread.so; statically: it holds the runtime's
 * CPTHREAD_MODE string), looked for first in the build tree
 * (CP_BUILD_LIBDIR) and then where it is installed (CP_LIBDIR).  cpt then
 * replaces itself with the program, so the exit status is the program's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpt.h"

#ifndef CP_BUILD_LIBDIR
#define CP_BUILD_LIBDIR ""
#endif
#ifndef CP_LIBDIR
#define CP_LIBDIR "/usr/local/lib"
#endif

#define LIBNAME "libcpthread.so"

/* Resolve @prog like execvp would; writes the path into @buf. */
static int find_program(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/')) {
		snprintf(buf, len, "%s", prog);
		return access(buf, X_OK);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);

		snprintf(buf, len, "%.*s/%s", (int)(n ? n : 1),
			 n ? path : ".", prog);
		if (access(buf, X_OK) == 0) {
			struct stat st;

			if (!stat(buf, &st) && S_ISREG(st.st_mode))
				return 0;
		}
		path += n + (end ? 1 : 0);
	}
	errno = ENOENT;
	return -1;
}

/* Does the file at @path carry the tracer already? */
static bool links_tracer(const char *path)
{
	struct stat st;
	void *map;
	bool yes = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			   fd, 0);
		if (map != MAP_FAILED) {
			yes = memmem(map, (size_t)st.st_size, LIBNAME,
				     strlen(LIBNAME)) ||
			      memmem(map, (size_t)st.st_size, "CPTHREAD_MODE",
				     13);
			munmap(map, (size_t)st.st_size);
		}
	}
	close(fd);
	return yes;
}

static int find_library(char *buf, size_t len)
{
	const char *dirs[] = { CP_BUILD_LIBDIR, CP_LIBDIR };

	for (size_t i = 0; i < 2; i++) {
		if (!dirs[i][0])
			continue;
		snprintf(buf, len, "%s/%s", dirs[i], LIBNAME);
		if (access(buf, R_OK) == 0)
			return 0;
	}
	return -1;
}

static int one_of(struct cpt_ctx *c, const char *opt, const char *v,
		  const char *a, const char *b, const char *d)
{
	if (!strcmp(v, a) || !strcmp(v, b) || (d && !strcmp(v, d)))
		return 0;
	snprintf(c->err, sizeof(c->err), "%s: '%s' is not %s or %s%s%s", opt,
		 v, a, b, d ? " or " : "", d ? d : "");
	return -1;
}

/* Put the tracer library first in LD_PRELOAD; -1 with c->err. */
static int preload(struct cpt_ctx *c, char *lib, size_t len)
{
	const char *old = getenv("LD_PRELOAD");
	char *val;

	if (find_library(lib, len)) {
		snprintf(c->err, sizeof(c->err),
			 "cannot find %s (looked in %s and %s)",
			 LIBNAME, CP_BUILD_LIBDIR, CP_LIBDIR);
		return -1;
	}
	if (old && *old) {
		if (asprintf(&val, "%s:%s", lib, old) < 0)
			val = NULL;
	} else {
		val = strdup(lib);
	}
	if (!val || setenv("LD_PRELOAD", val, 1)) {
		free(val);
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	free(val);
	return 0;
}

enum {
	OPT_EXCLUSIVE = CPT_OPT_OWN, OPT_MODE, OPT_CLOCK, OPT_FUNCS,
	OPT_REPORT, OPT_TRACE,
};

/* Not the common options: run reads no trace and writes no analysis, and
 * an option it would only ignore (`-o out.cpt`) is a usage error. */
static const struct option run_options[] = {
	{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "funcs", required_argument, NULL, OPT_FUNCS },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ NULL, 0, NULL, 0 },
};

/* The program @prog was not found or did not execute: errno says why. */
static enum cpt_status cannot_run(struct cpt_ctx *c, const char *prog)
{
	snprintf(c->err, sizeof(c->err), "cannot run '%.900s': %s", prog,
		 strerror(errno));
	return CPT_BAD_INPUT;
}

enum cpt_status cpt_cmd_run(struct cpt_ctx *c, int argc, char **argv)
{
	const char *mode = NULL, *clock = NULL, *funcs = NULL;
	const char *report = NULL, *trace = NULL;
	bool exclusive = false;
	char prog[4096], lib[4096], pid[24], cwd[4096];
	int i, id;

	/* "+": the options end at the program (or at "--") */
	while ((id = cpt_getopt(c, argc, argv, "+:", run_options)) != -1) {
		const char *v = optarg;

		switch (id) {
		case OPT_EXCLUSIVE:
			exclusive = true;
			break;
		case OPT_MODE:
			mode = v;
			break;
		case OPT_CLOCK:
			clock = v;
			break;
		case OPT_FUNCS:
			funcs = v;
			break;
		case OPT_REPORT:
			report = v;
			break;
		case OPT_TRACE:
			trace = v;
			break;
		default:	/* '?' */
			return CPT_USAGE;
		}
	}
	i = optind;
	if (i >= argc) {
		snprintf(c->err, sizeof(c->err), "no program to run");
		return CPT_USAGE;
	}
	if ((mode && one_of(c, "--mode", mode, "online", "trace", "off")) ||
	    (clock && one_of(c, "--clock", clock, "wall", "cpu", NULL)))
		return CPT_USAGE;
	if (!mode && trace)
		mode = "trace";
	if (find_program(argv[i], prog, sizeof(prog)))
		return cannot_run(c, argv[i]);
	/* the program execs in this process: its pid is ours */
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if ((mode && setenv("CPTHREAD_MODE", mode, 1)) ||
	    (clock && setenv("CPTHREAD_CLOCK", clock, 1)) ||
	    (funcs && setenv("CPTHREAD_FUNCS", funcs, 1)) ||
	    (exclusive && setenv("CPTHREAD_EXCLUSIVE", "1", 1)) ||
	    (report && setenv("CPTHREAD_REPORT", report, 1)) ||
	    (trace && setenv("CPTHREAD_TRACE", trace, 1)) ||
	    setenv("CPTHREAD_ROOT_PID", pid, 1) ||
	    (getcwd(cwd, sizeof(cwd)) && setenv("CPTHREAD_ROOT_DIR", cwd, 1))) {
		snprintf(c->err, sizeof(c->err), "setenv: %s", strerror(errno));
		return CPT_BAD_INPUT;
	}
	if (!links_tracer(prog) && preload(c, lib, sizeof(lib)))
		return CPT_BAD_INPUT;
	fflush(NULL);
	execv(prog, argv + i);
	return cannot_run(c, prog);
}
