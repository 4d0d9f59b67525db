/*
 * children.c - a process whose only thread waits for a child process.
 * Times in ms.
 *
 *   main: fork C; wait for C with the call the argument names
 *         (wait, waitpid, wait3, wait4 or waitid)
 *   C:    sleep 100; _exit(0)
 *
 * No synchronization the tracer models: the critical path is main's run.
 * Under the wall clock main is blocked about 100 ms, all of it in the
 * wait: the report must say that thread 0 waited for child processes (at
 * least 30 ms: the kernel's blocked time errs low, never high) and must
 * not call any of it unexplained.  Under the cpu clock the blocking costs
 * nothing and nothing is said.
 */
#include "wl.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	struct timespec nap = { 0, 100 * 1000000L };
	struct rusage ru;
	siginfo_t info;
	int status = -1;
	pid_t child, got = -1;

	wl_init();
	child = fork();
	if (child < 0)
		return 3;
	if (child == 0) {
		nanosleep(&nap, NULL);
		_exit(0);
	}
	if (strcmp(how, "wait") == 0) {
		got = wait(&status);
	} else if (strcmp(how, "waitpid") == 0) {
		got = waitpid(child, &status, 0);
	} else if (strcmp(how, "wait3") == 0) {
		got = wait3(&status, 0, &ru);
	} else if (strcmp(how, "wait4") == 0) {
		got = wait4(child, &status, 0, &ru);
	} else if (strcmp(how, "waitid") == 0) {
		memset(&info, 0, sizeof(info));
		if (waitid(P_PID, (id_t)child, &info, WEXITED) == 0) {
			got = info.si_pid;
			status = info.si_code == CLD_EXITED ? info.si_status
							     : -1;
		}
	} else {
		return 2;
	}
	if (got != child || status != 0) {
		fprintf(stderr, "children: %s gave pid %d (child %d), status "
			"%d\n", how, (int)got, (int)child, status);
		return 1;
	}
	printf("children done\n");
	return 0;
}
