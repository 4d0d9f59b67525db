/*
 * cpt_harness.c - child processes, reports and mismatch lists for the
 * integration tests (see cpt_harness.h).
 */
#define _GNU_SOURCE
#include "cpt_harness.h"

#include "cp_child.h"

#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

const char *cpt_variant_name(enum cpt_variant v)
{
	switch (v) {
	case CPT_BARE: return "bare";
	case CPT_PRELOAD: return "preloaded";
	case CPT_LINKED: return "linked";
	case CPT_STATIC: return "static";
	}
	return "?";
}

static bool env_drop(const char *kv)
{
	return strncmp(kv, "CPTHREAD_", 9) == 0 ||
	       strncmp(kv, "LD_PRELOAD=", 11) == 0 ||
	       strncmp(kv, "WL_", 3) == 0;
}

/* Does @env set (or, with a leading '-', unset) variable @key? */
static bool env_mentions(const char *const *env, const char *key)
{
	size_t kl = strlen(key);

	for (; env && *env; env++) {
		const char *e = **env == '-' ? *env + 1 : *env;

		if (strncmp(e, key, kl) == 0 && (e[kl] == '=' || e[kl] == 0))
			return true;
	}
	return false;
}

static char **build_env(struct cpt_run *r, const char *const *env,
			bool preload, bool tracer_files, char *scratch[3])
{
	size_t n = 0, k = 0;
	char **out;

	for (char **e = environ; *e; e++)
		n++;
	for (const char *const *e = env; e && *e; e++)
		n++;
	out = calloc(n + 4, sizeof(*out));
	if (!out)
		abort();
	for (char **e = environ; *e; e++)
		if (!env_drop(*e))
			out[k++] = *e;
	for (const char *const *e = env; e && *e; e++)
		if (**e != '-')
			out[k++] = (char *)*e;
	scratch[0] = scratch[1] = scratch[2] = NULL;
	if (tracer_files && !env_mentions(env, "CPTHREAD_REPORT")) {
		if (asprintf(&scratch[0], "CPTHREAD_REPORT=%s",
			     r->report_path) < 0)
			abort();
		out[k++] = scratch[0];
	}
	if (tracer_files && !env_mentions(env, "CPTHREAD_TRACE")) {
		if (asprintf(&scratch[1], "CPTHREAD_TRACE=%s",
			     r->trace_path) < 0)
			abort();
		out[k++] = scratch[1];
	}
	/* a sanitized libcpthread.so needs its runtime loaded first in a
	 * program built without it (cpt run's /bin/sh, system()'s) */
	if (preload || (CPT_PRELOAD_RUNTIME[0] &&
			!env_mentions(env, "LD_PRELOAD"))) {
		if (asprintf(&scratch[2], "LD_PRELOAD=%s%s%s",
			     CPT_PRELOAD_RUNTIME,
			     CPT_PRELOAD_RUNTIME[0] && preload ? " " : "",
			     preload ? CPT_LIBCPTHREAD : "") < 0)
			abort();
		out[k++] = scratch[2];
	}
	out[k] = NULL;
	return out;
}

/* Run @path with @args (NULL-terminated, may be NULL) and @envp in
 * r->dir, filling @r from the shared child runner.  0 or -1. */
static int spawn_and_wait(struct cpt_run *r, const char *path,
			  const char *const *args, char **envp,
			  unsigned timeout_s)
{
	const char *argv[32];
	struct cp_child_spec spec = {
		.argv = argv, .envp = envp, .dir = r->dir, .chdir = true,
		.timeout_s = timeout_s,
	};
	struct cp_child c;
	size_t k = 0;

	argv[k++] = path;
	for (; args && *args && k < 31; args++)
		argv[k++] = *args;
	argv[k] = NULL;
	if (cp_child_run(&c, &spec) != 0)
		return -1;
	r->pid = c.pid;
	r->status = c.status;
	r->timed_out = c.timed_out;
	r->cpu_ms = c.cpu_ms;
	r->out = c.out;
	r->err = c.err;
	return 0;
}

int cpt_run_load_report(struct cpt_run *r)
{
	json_error_t je;

	if (r->report)
		json_decref(r->report);
	r->report = json_load_file(r->report_path, 0, &je);
	if (!r->report) {
		snprintf(r->report_error, sizeof(r->report_error),
			 "report %s: %s (line %d)", r->report_path, je.text,
			 je.line);
		return -1;
	}
	r->report_error[0] = '\0';
	return 0;
}

static int run_setup(struct cpt_run *r)
{
	const char *tmp = getenv("TMPDIR");

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s/cpt-it-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(r->dir)) {
		perror("mkdtemp");
		return -1;
	}
	snprintf(r->report_path, sizeof(r->report_path), "%s/report.json",
		 r->dir);
	snprintf(r->trace_path, sizeof(r->trace_path), "%s/trace.cpt",
		 r->dir);
	return 0;
}

int cpt_run_program(struct cpt_run *r, const char *path,
		    const char *const *args, const char *const *env,
		    unsigned timeout_s, bool tracer_files)
{
	char *scratch[3];
	char **envp;
	int rc;

	if (run_setup(r) != 0)
		return -1;
	envp = build_env(r, env, false, tracer_files, scratch);
	rc = spawn_and_wait(r, path, args, envp, timeout_s);
	free(envp);
	for (int i = 0; i < 3; i++)
		free(scratch[i]);
	if (rc == 0 && tracer_files)
		cpt_run_load_report(r);
	return rc;
}

int cpt_run_workload(struct cpt_run *r, const char *name, enum cpt_variant v,
		     const char *const *args, const char *const *env,
		     unsigned timeout_s)
{
	static const char *const suffix[] = {
		[CPT_BARE] = "_plain", [CPT_PRELOAD] = "_plain",
		[CPT_LINKED] = "", [CPT_STATIC] = "_static",
	};
	char path[512], *scratch[3];
	char **envp;
	int rc;

	if (run_setup(r) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/wl_%s%s", CPT_WL_DIR, name,
		 suffix[v]);
	envp = build_env(r, env, v == CPT_PRELOAD, true, scratch);
	rc = spawn_and_wait(r, path, args, envp, timeout_s);
	free(envp);
	for (int i = 0; i < 3; i++)
		free(scratch[i]);
	if (rc == 0)
		cpt_run_load_report(r);
	return rc;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void cpt_run_free(struct cpt_run *r)
{
	if (r->dir[0] && !getenv("CPT_KEEP"))
		nftw(r->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(r->out);
	free(r->err);
	if (r->report)
		json_decref(r->report);
	memset(r, 0, sizeof(*r));
}

int cpt_run_exit_code(const struct cpt_run *r)
{
	struct cp_child c = { .status = r->status, .timed_out = r->timed_out };

	return cp_child_exit_code(&c);
}

json_t *cpt_json_path(json_t *root, const char *path)
{
	char key[128];
	const char *p = path;

	while (root && *p) {
		size_t n = strcspn(p, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		root = json_is_object(root) ? json_object_get(root, key) : NULL;
		p += n;
		if (*p == '.')
			p++;
	}
	return root;
}

double cpt_json_num(json_t *root, const char *path)
{
	json_t *v = cpt_json_path(root, path);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

double cpt_json_ms(json_t *root, const char *path)
{
	return cpt_json_num(root, path) / 1e6;
}

json_t *cpt_json_proc(json_t *report, const char *name)
{
	json_t *procs = cpt_json_path(report, "critical_path.procedures");
	size_t i;
	json_t *p;

	json_array_foreach(procs, i, p) {
		const char *n = json_string_value(json_object_get(p, "name"));

		if (n && strcmp(n, name) == 0)
			return p;
	}
	return NULL;
}

json_t *cpt_json_thread(json_t *report, unsigned tid)
{
	json_t *thr = json_object_get(report, "threads_detail");
	size_t i;
	json_t *t;

	json_array_foreach(thr, i, t) {
		json_t *id = json_object_get(t, "tid");

		if (json_is_integer(id) && json_integer_value(id) == tid)
			return t;
	}
	return NULL;
}

void cpt_errs_init(struct cpt_errs *e)
{
	e->len = 0;
	e->n = 0;
	e->buf[0] = '\0';
}

void cpt_errf(struct cpt_errs *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	e->n++;
	if (e->len + 2 >= sizeof(e->buf))
		return;
	e->buf[e->len++] = '\n';
	va_start(ap, fmt);
	n = vsnprintf(e->buf + e->len, sizeof(e->buf) - e->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		e->len += (size_t)n < sizeof(e->buf) - e->len ?
			  (size_t)n : sizeof(e->buf) - e->len - 1;
}

void cpt_check_ms(struct cpt_errs *e, const char *what, double want,
		  double got, double tol)
{
	if (isnan(got))
		cpt_errf(e, "  %s: expected %.3f ms, missing in the report",
			 what, want);
	else if (fabs(got - want) > tol)
		cpt_errf(e, "  %s: expected %.3f ms +- %.3f, got %.3f ms "
			 "(off by %+.3f)", what, want, tol, got, got - want);
}

int cpt_retry_checks(int tries, void (*once)(struct cpt_errs *e, void *ctx),
		     void *ctx, struct cpt_errs *e)
{
	int k = 0;

	do {
		cpt_errs_init(e);
		once(e, ctx);
		k++;
	} while (e->n != 0 && k < tries);
	return k;
}

unsigned cpt_count_lines(const char *s)
{
	unsigned n = 0;
	size_t len = strlen(s);

	for (size_t i = 0; i < len; i++)
		if (s[i] == '\n')
			n++;
	if (len > 0 && s[len - 1] != '\n')
		n++;
	return n;
}

/* First line where @a and @b differ, quoted from both. */
static void first_diff(struct cpt_errs *e, const char *a, const char *b)
{
	unsigned line = 1;
	const char *la = a, *lb = b;

	while (*a && *a == *b) {
		if (*a == '\n') {
			line++;
			la = a + 1;
			lb = b + 1;
		}
		a++;
		b++;
	}
	cpt_errf(e, "  stdout differs at line %u: bare \"%.*s\" vs traced "
		 "\"%.*s\"", line, (int)strcspn(la, "\n"), la,
		 (int)strcspn(lb, "\n"), lb);
}

int cpt_diff_behaviour(struct cpt_errs *e, const struct cpt_run *bare,
		       const struct cpt_run *r)
{
	int before = e->n;

	if (r->timed_out) {
		cpt_errf(e, "  timed out (a hang?); stderr: %.300s", r->err);
		return e->n - before;
	}
	if (cpt_run_exit_code(r) != cpt_run_exit_code(bare))
		cpt_errf(e, "  exit code %d, bare %d; stderr: %.300s",
			 cpt_run_exit_code(r), cpt_run_exit_code(bare),
			 r->err);
	if (strcmp(r->out, bare->out) != 0)
		first_diff(e, bare->out, r->out);
	return e->n - before;
}

json_t *cpt_json_load(const char *path, char *err, size_t n)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);

	if (!j)
		snprintf(err, n, "%.300s: %.150s", path, je.text);
	return j;
}

/* Link-time [lo, hi) of function @name in @exe, from nm. */
bool cpt_nm_range(const char *exe, const char *name, uint64_t *lo,
		  uint64_t *hi)
{
	char cmd[1024], line[512];
	FILE *f;
	bool found = false;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", exe);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, s;
		char type, sym[256];

		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type,
			   sym) == 4 && !strcmp(sym, name)) {
			*lo = a;
			*hi = a + s;
			found = true;
		}
	}
	pclose(f);
	return found;
}
