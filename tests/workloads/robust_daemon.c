/*
 * robust_daemon.c - a program that starts as daemons do: it moves to
 * another directory (away/, which it makes), takes every permission away
 * from the files it creates (umask(0777)) and closes every descriptor
 * from 3 up (closefrom).  It then creates its file own.txt there (mode
 * 0000, descriptor 3), runs two threads over a mutex and prints the
 * directory, descriptor and umask it reads back and its count.  All three
 * are the program's own: its file stays where and as it made it, traced;
 * the tracer's report, created at exit, must still go to the directory
 * the run started in, with the tracer's mode, and its trace, whose
 * descriptor was closed, must still hold the whole run.
 */
#include "wl.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
	char cwd[4096];
	unsigned long count;
	const char *base;
	int fd;

	if (mkdir("away", 0700) || chdir("away") || !getcwd(cwd, sizeof(cwd)))
		return 2;
	umask(0777);
	closefrom(3);
	fd = open("own.txt", O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0 || write(fd, "own\n", 4) != 4)
		return 2;
	count = wl_two_threads(20000);
	base = strrchr(cwd, '/');
	printf("in %s, fd %d, umask %03o, count %lu\n", base ? base + 1 : cwd,
	       fd, (unsigned)umask(0777), count);
	return close(fd) ? 2 : 0;
}
