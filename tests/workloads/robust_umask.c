/*
 * robust_umask.c - a program that takes every permission away from the
 * files it creates (umask(0777), as a cautious daemon might narrow it),
 * creates its file own.txt (mode 0000), runs two threads over a mutex and
 * prints the umask it reads back and its count.  The program's umask is
 * its own: its file stays 0000 traced; the tracer's report, created at
 * exit under that umask, must still get the tracer's mode.
 */
#include "wl.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static unsigned long count;

static void *worker(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		WL_OK(pthread_mutex_lock(&m));
		count++;
		WL_OK(pthread_mutex_unlock(&m));
	}
	return arg;
}

int main(void)
{
	pthread_t t[2];
	int fd;

	umask(0777);
	fd = open("own.txt", O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0 || write(fd, "own\n", 4) != 4 || close(fd))
		return 2;
	for (int i = 0; i < 2; i++)
		WL_OK(pthread_create(&t[i], NULL, worker, NULL));
	for (int i = 0; i < 2; i++)
		WL_OK(pthread_join(t[i], NULL));
	printf("umask %03o, count %lu\n", (unsigned)umask(0777), count);
	return 0;
}
