/*
 * bench_crash.c - what a SIGKILL at a random moment costs a trace.
 *
 * Runs the lock-heavy workload (tests/workloads/crash.c, mode count: two
 * threads hammering one mutex forever) traced, kills it with SIGKILL after
 * a random delay, and runs `cpt report` on what was left.  The workload
 * counts its acquisitions in a shared file right after each lock returns,
 * after the tracer recorded it, so the count is what the trace had
 * recorded; the report says how many acquisitions of the mutex it
 * analysed.  Prints, per run, the delay, the acquisitions made and
 * analysed, their ratio, the trace's size and events; then the summary
 * and the command that reproduces it.
 *
 * Usage: bench_crash [-n RUNS] [-s SEED] [-a MIN_MS] [-b MAX_MS]
 *        (defaults: 20 runs, seed 1, delays in [200, 2000) ms)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

extern char **environ;

struct result {
	unsigned delay_ms;
	uint64_t made;		/* acquisitions the workload counted */
	double analysed;	/* acquisitions of the mutex in the report */
	double events;		/* events cpt read */
	long long bytes;	/* trace size */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Spawn @argv with @envp (stderr to /dev/null if @quiet), SIGKILL it
 * after @kill_after_ms unless 0; its wait status, or -1. */
static int run_wait(char *const argv[], char *const envp[], bool quiet,
		    unsigned kill_after_ms)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, rc;

	posix_spawn_file_actions_init(&fa);
	if (quiet)
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null",
						 O_WRONLY, 0);
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -1;
	if (kill_after_ms) {
		struct timespec d = {
			.tv_sec = kill_after_ms / 1000,
			.tv_nsec = (long)(kill_after_ms % 1000) * 1000000L,
		};

		while (nanosleep(&d, &d) && errno == EINTR)
			;
		kill(pid, SIGKILL);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/* Acquisitions of the first mutex in the report at @path, or -1. */
static double report_ops(const char *path, double *events)
{
	json_error_t je;
	json_t *rep = json_load_file(path, 0, &je), *objs, *o;
	double ops = -1;
	size_t i;

	if (!rep)
		return -1;
	*events = json_number_value(json_object_get(rep, "events"));
	objs = json_object_get(rep, "objects");
	json_array_foreach(objs, i, o) {
		const char *k = json_string_value(json_object_get(o, "kind"));

		if (k && !strcmp(k, "mutex")) {
			ops = json_number_value(json_object_get(o, "ops"));
			break;
		}
	}
	json_decref(rep);
	return ops;
}

static int one_run(const char *dir, unsigned delay_ms, struct result *res)
{
	char trace[512], counter[512], out[512], env_trace[600],
	     env_counter[600];
	char *wl_argv[] = { CP_WL_CRASH, "count", NULL };
	char *cpt_argv[] = { CP_CPT, "report", trace, "--format", "json",
			     "-o", out, NULL };
	char *env[64];
	size_t k = 0, plain;
	uint64_t *counts;
	struct stat st;
	int fd, status;

	snprintf(trace, sizeof(trace), "%s/run.cpt", dir);
	snprintf(counter, sizeof(counter), "%s/counts", dir);
	snprintf(out, sizeof(out), "%s/run.json", dir);
	snprintf(env_trace, sizeof(env_trace), "CPTHREAD_TRACE=%s", trace);
	snprintf(env_counter, sizeof(env_counter), "WL_COUNTER=%s", counter);
	fd = open(counter, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4096))
		return -1;
	counts = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (counts == MAP_FAILED)
		return -1;
	for (char **e = environ; *e && k < 56; e++)
		if (strncmp(*e, "CPTHREAD_", 9) && strncmp(*e, "LD_PRELOAD=", 11))
			env[k++] = *e;
	plain = k;
	env[k++] = "CPTHREAD_MODE=trace";
	env[k++] = "CPTHREAD_QUIET=1";
	env[k++] = env_trace;
	env[k++] = env_counter;
	env[k] = NULL;
	status = run_wait(wl_argv, env, false, delay_ms);
	if (status < 0 || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		fprintf(stderr, "bench_crash: the workload ended with status "
			"0x%x before the kill\n", status);
		return -1;
	}
	res->delay_ms = delay_ms;
	res->made = counts[0] + counts[1];
	munmap(counts, 4096);
	res->bytes = stat(trace, &st) ? -1 : (long long)st.st_size;
	env[plain] = NULL;	/* cpt: no tracer variables */
	status = run_wait(cpt_argv, env, true, 0);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench_crash: cpt report %s failed (status "
			"0x%x)\n", trace, status);
		res->analysed = 0;
		res->events = 0;
		return 0;
	}
	res->analysed = report_ops(out, &res->events);
	unlink(trace);
	unlink(out);
	unlink(counter);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned runs = 20, seed = 1, seed0, lo = 200, hi = 2000;
	char dir[] = "/tmp/bench_crash_XXXXXX";
	double *frac, sum = 0;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:a:b:")) != -1) {
		switch (opt) {
		case 'n':
			runs = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'a':
			lo = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'b':
			hi = (unsigned)strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: bench_crash [-n RUNS] [-s SEED] "
				"[-a MIN_MS] [-b MAX_MS]\n");
			return 2;
		}
	}
	if (!runs || hi <= lo || !mkdtemp(dir)) {
		fprintf(stderr, "bench_crash: bad arguments or no temporary "
			"directory\n");
		return 2;
	}
	seed0 = seed;
	frac = calloc(runs, sizeof(*frac));
	if (!frac)
		return 1;
	printf("%4s %9s %12s %12s %9s %10s %12s\n", "run", "kill_ms",
	       "acq_made", "acq_read", "fraction", "trace_MB", "events");
	for (unsigned i = 0; i < runs; i++) {
		unsigned delay = lo + (unsigned)rand_r(&seed) % (hi - lo);
		struct result r;

		if (one_run(dir, delay, &r)) {
			rmdir(dir);
			return 1;
		}
		frac[i] = r.made ? r.analysed / (double)r.made : 0;
		sum += frac[i];
		printf("%4u %9u %12" PRIu64 " %12.0f %9.5f %10.2f %12.0f\n", i,
		       r.delay_ms, r.made, r.analysed, frac[i],
		       (double)r.bytes / 1e6, r.events);
		fflush(stdout);
	}
	rmdir(dir);
	qsort(frac, runs, sizeof(*frac), cmp_double);
	printf("fraction of recorded acquisitions analysed over %u kills: "
	       "min %.5f, median %.5f, mean %.5f\n", runs, frac[0],
	       frac[runs / 2], sum / runs);
	printf("reproduce: %s -n %u -s %u -a %u -b %u\n", argv[0], runs,
	       seed0, lo, hi);
	free(frac);
	return 0;
}
