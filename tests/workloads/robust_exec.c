/*
 * robust_exec.c - a program that works with threads and then replaces
 * its image: two threads over a mutex (40000 acquisitions between them),
 * then an exec of itself (/proc/self/exe) with "after", which prints a
 * line and exits 3.  argv[1] names the member of the exec family to use
 * (execve, execv, execvp, execvpe, execl, execlp, execle, fexecve), or
 * "missing": an execv of a file that does not exist, which fails; the
 * program then prints errno's name and exits 4; or "launcher": no thread
 * of its own, the main thread takes the mutex 1000 times, then an execv
 * as a launcher's.  The tracer must report the work before the exec (a
 * process whose image goes never reaches exit) and leave the new image
 * its own report; a launcher's names go to the new image.
 */
#include "wl.h"

#include <fcntl.h>
#include <unistd.h>

#define SELF "/proc/self/exe"

extern char **environ;

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

/* Exec this program with "after" through @how; returns if it failed. */
static void exec_after(const char *how, const char *argv0)
{
	char *argv[] = { (char *)argv0, "after", NULL };

	if (!strcmp(how, "execve"))
		execve(SELF, argv, environ);
	else if (!strcmp(how, "execv"))
		execv(SELF, argv);
	else if (!strcmp(how, "execvp"))
		execvp(SELF, argv);
	else if (!strcmp(how, "execvpe"))
		execvpe(SELF, argv, environ);
	else if (!strcmp(how, "execl"))
		execl(SELF, argv0, "after", (char *)NULL);
	else if (!strcmp(how, "execlp"))
		execlp(SELF, argv0, "after", (char *)NULL);
	else if (!strcmp(how, "execle"))
		execle(SELF, argv0, "after", (char *)NULL, environ);
	else if (!strcmp(how, "fexecve"))
		fexecve(open(SELF, O_RDONLY | O_CLOEXEC), argv, environ);
	else if (!strcmp(how, "missing"))
		execv("/nonexistent/robust_exec", argv);
}

int main(int argc, char **argv)
{

	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "after")) {
		printf("after\n");
		return 3;
	}
	if (!strcmp(argv[1], "launcher")) {
		for (int i = 0; i < 1000; i++) {
			WL_OK(pthread_mutex_lock(&m));
			WL_OK(pthread_mutex_unlock(&m));
		}
		printf("before: launcher\n");
		fflush(stdout);
		exec_after("execv", argv[0]);
		return 4;
	}
	printf("before: count %lu\n", wl_two_threads(20000));
	fflush(stdout);
	exec_after(argv[1], argv[0]);
	printf("exec failed: %s\n", errno == ENOENT ? "ENOENT" : "other");
	return 4;
}
