/*
 * robust_stderr.c - a program whose own file takes descriptor 2.
 *
 *   robust_stderr reopen FILE   closes its stderr, opens FILE (which gets
 *                               the lowest free number: 2), runs two
 *                               threads over a mutex, writes one line to
 *                               FILE and exits 0;
 *   robust_stderr closed FILE   closes its stderr and runs itself again
 *                               ("reopen"), so that the tracer starts
 *                               with descriptor 2 already closed;
 *   robust_stderr dup2 FILE     keeps its stderr, but puts copies of
 *                               FILE's descriptor on numbers 256-287,
 *                               where the tracer keeps its own (which
 *                               dup2 closes), then as "reopen";
 *   robust_stderr pipe FILE     makes its stderr a pipe nobody reads
 *                               and runs itself again ("piped": as
 *                               "reopen" but with that stderr kept), so
 *                               that a line on stderr raises SIGPIPE,
 *                               whose default disposition kills.
 *
 * FILE must hold exactly the program's line afterwards: the tracer's
 * summary and warnings go to the stderr the program started with, and
 * nowhere once the program has closed it; its trace goes to the trace
 * file, and nowhere once the program has taken its descriptor; and a
 * stderr nobody reads does not kill the program.  stdout says where FILE
 * landed.
 */
#include "wl.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char line[] = "robust_stderr: the program's own line\n";
	unsigned long count;
	int fd = -1;

	if (argc != 3)
		return 2;
	if (!strcmp(argv[1], "pipe")) {
		char *again[] = { argv[0], "piped", argv[2], NULL };
		int p[2];

		if (pipe(p) || dup2(p[1], 2) != 2)
			return 7;
		close(p[0]);
		close(p[1]);
		signal(SIGPIPE, SIG_DFL);
		execv("/proc/self/exe", again);
		return 3;
	}
	if (!strcmp(argv[1], "dup2")) {
		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		for (int k = 256; k < 288; k++)
			if (dup2(fd, k) != k)
				return 5;
	} else if (strcmp(argv[1], "piped")) {
		close(2);
	}
	if (!strcmp(argv[1], "closed")) {
		char *again[] = { argv[0], "reopen", argv[2], NULL };

		execv("/proc/self/exe", again);
		return 3;
	}
	if (strcmp(argv[1], "dup2"))
		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	count = wl_two_threads(2000);
	if (write(fd, line, sizeof(line) - 1) != (ssize_t)sizeof(line) - 1)
		return 4;
	printf("own file on descriptor %d, count %lu\n", fd, count);
	for (int k = 256; k < 288 && !strcmp(argv[1], "dup2"); k++)
		if (close(k))
			return 6;
	return 0;
}
