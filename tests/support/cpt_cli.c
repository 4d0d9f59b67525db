/*
 * cpt_cli.c - see cpt_cli.h.
 */
#include "cpt_cli.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cp_child.h"
#include "trace_synth.h"

#ifndef CP_BINARY_DIR
#error "CP_BINARY_DIR must name the build tree"
#endif
#define CPT CP_BINARY_DIR "/tools/cpt"

static void run(struct cpt_res *r, const char *dir, bool chdir,
		const char *const *args)
{
	const char *argv[64];
	struct cp_child_spec spec = { .argv = argv, .dir = dir,
				      .chdir = chdir };
	struct cp_child c;
	int n = 0;

	argv[n++] = CPT;
	while (*args && n < 62)
		argv[n++] = *args++;
	argv[n] = NULL;
	cpt_res_free(r);
	ck_assert_msg(cp_child_run(&c, &spec) == 0, "cannot run %s", CPT);
	r->signaled = WIFSIGNALED(c.status);
	r->status = cp_child_exit_code(&c);
	r->out = c.out;
	r->err = c.err;
	r->outlen = c.outlen;
}

void cpt_run(struct cpt_res *r, const char *dir, const char *const *args)
{
	run(r, dir, false, args);
}

void cpt_run_at(struct cpt_res *r, const char *dir, const char *const *args)
{
	run(r, dir, true, args);
}

void cpt_res_free(struct cpt_res *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
	r->outlen = 0;
}

void cpt_tmpdir(char *dir, size_t len, const char *prefix)
{
	snprintf(dir, len, "/tmp/%s_XXXXXX", prefix);
	ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
}

void cpt_write_synth_temp(struct synth *s, char *path, size_t len,
			  const char *prefix)
{
	int fd;

	snprintf(path, len, "/tmp/%s_XXXXXX", prefix);
	fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	close(fd);
	ck_assert_msg(synth_write(s, path) == 0, "write %s", path);
}

void cpt_rmdir(const char *dir)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

void cpt_write_lock_trace(const char *path)
{
	struct synth s;

	synth_lock_example(&s, &(struct synth_lock_example){
		.kind = CP_OBJ_MUTEX, .unit = 1000000 });
	s.online_len = 40000000;
	ck_assert_msg(synth_write(&s, path) == 0, "write %s", path);
	synth_free(&s);
}

unsigned cpt_count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *at = strstr(hay, needle); at;
	     at = strstr(at + 1, needle))
		n++;
	return n;
}
