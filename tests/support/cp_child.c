/*
 * cp_child.c - the tests' child runner (see cp_child.h).
 */
#define _GNU_SOURCE
#include "cp_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

char *cp_child_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (f) {
		do {
			if (cap - n < 4096) {
				cap = cap ? cap * 2 : 8192;
				buf = realloc(buf, cap);
				if (!buf)
					abort();
			}
			got = fread(buf + n, 1, cap - n - 1, f);
			n += got;
		} while (got > 0);
		fclose(f);
	}
	if (!buf) {
		buf = malloc(1);
		if (!buf)
			abort();
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Wait for @c's child, killing it once @timeout_s (0: never) has passed;
 * its status and resource use in @c.  0 or -1 (message on stderr). */
static int wait_child(struct cp_child *c, unsigned timeout_s)
{
	struct timespec t0, now;
	struct rusage ru;
	pid_t p;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		p = wait4(c->pid, &c->status, timeout_s ? WNOHANG : 0, &ru);
		if (p == c->pid)
			break;
		if (p < 0 && errno != EINTR) {
			perror("wait4");
			return -1;
		}
		if (!timeout_s)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!c->timed_out && now.tv_sec - t0.tv_sec >= timeout_s) {
			c->timed_out = true;
			kill(c->pid, SIGKILL);
		}
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
	c->cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	return 0;
}

int cp_child_run(struct cp_child *c, const struct cp_child_spec *spec)
{
	posix_spawn_file_actions_t fa;
	char out_path[512], err_path[512];
	const char *path = spec->argv[0];
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(out_path, sizeof(out_path), "%s/stdout", spec->dir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", spec->dir);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out_path,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err_path,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (spec->chdir)
		posix_spawn_file_actions_addchdir_np(&fa, spec->dir);
	rc = posix_spawn(&c->pid, path, &fa, NULL, (char *const *)spec->argv,
			 spec->envp ? spec->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		fprintf(stderr, "cannot start %s: %s\n", path, strerror(rc));
		return -1;
	}
	if (wait_child(c, spec->timeout_s) != 0)
		return -1;
	c->out = cp_child_slurp(out_path, &c->outlen);
	c->err = cp_child_slurp(err_path, &c->errlen);
	return 0;
}

int cp_child_exit_code(const struct cp_child *c)
{
	if (c->timed_out)
		return -1;
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return -1;
}

void cp_child_free(struct cp_child *c)
{
	free(c->out);
	free(c->err);
	c->out = c->err = NULL;
}
