/*
 * bench_cli.h - run the cpt CLI as a child process for the benchmarks and
 * measure it: wall time, CPU time and max RSS of the child (wait4), and
 * the size of what it wrote.  Header-only, static: include it once, from
 * the benchmark's one source file.
 */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct bench_cli {
	double wall, cpu;	/* seconds */
	double rss_mb;		/* the child's max RSS */
	double out_mb;		/* size of @written */
	int status;		/* exit code, -1 if it did not exit */
};

static double bench_now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Run @argv (argv[0] the program) with stdout to @outp and stderr to
 * /dev/null; @written is the file whose size counts (@outp, or the -o
 * file).  Returns 0, or -1 when it could not fork or wait.
 */
static int bench_cli_run(char *const argv[], const char *outp,
			 const char *written, struct bench_cli *r)
{
	struct rusage ru;
	struct stat st = { 0 };
	double w0 = bench_now(CLOCK_MONOTONIC);
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_WRONLY);

		if (fd < 0 || nul < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(nul, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	r->wall = bench_now(CLOCK_MONOTONIC) - w0;
	r->cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
		 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
	r->rss_mb = (double)ru.ru_maxrss / 1024.0;
	stat(written, &st);
	r->out_mb = (double)st.st_size / 1048576.0;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return 0;
}

#endif /* BENCH_CLI_H */
