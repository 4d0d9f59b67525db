/*
 * children.c - a process whose only thread waits for a child process.
 * Times in ms.
 *
 *   main: fork C; wait for C with the call the argument names
 *         (wait, waitpid, wait3, wait4 or waitid)
 *   C:    poll main's state every 10 ms; _exit(0) once main has been
 *         seen blocked in its wait ten times in a row (or after 10 s)
 *
 * With "late CALL" main first burns 300 ms of its own CPU time, then
 * execs itself with CALL: the tracer starts in the new image on a thread
 * whose kernel counters (CPU time, time waiting for a processor) already
 * hold those 300 ms, longer than the rest of the run.  The report must
 * count only what the thread did since the tracer started.
 *
 * C does not simply sleep 100 ms: on a loaded machine main may get a
 * processor only after that, and then finds C already gone.  Counting
 * main's blocked time from the moment main blocks makes its wait last
 * at least 90 ms however late it starts.
 *
 * No synchronization the tracer models: the critical path is main's run.
 * Under the wall clock main is blocked 90 ms or more, all of it in the
 * wait: the report must say that thread 0 waited for child processes (at
 * least 30 ms: the kernel's blocked time errs low, never high) and must
 * not call any of it unexplained.  Under the cpu clock the blocking costs
 * nothing and nothing is said.
 */
#include "wl.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Read the first line of /proc/@pid/@file into @buf (without its newline);
 * false when it cannot be read. */
static bool proc_line(pid_t pid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/*
 * Whether process @pid's main thread is blocked waiting for a child.  Its
 * kernel wait channel says so ("do_wait", where wait4 and waitid sleep);
 * being asleep ("S" in its stat) is not enough, as main may sleep in the
 * tracer's start-up before it calls wait, which on a loaded machine lasts
 * long enough to be seen ten times.  A kernel that hides the channel
 * ("0", or no file) leaves the state to decide.
 */
static bool blocked(pid_t pid)
{
	char buf[512];
	const char *rp;

	if (proc_line(pid, "wchan", buf, sizeof(buf)) && buf[0] &&
	    strcmp(buf, "0") != 0)
		return strcmp(buf, "do_wait") == 0;
	if (!proc_line(pid, "stat", buf, sizeof(buf)))
		return false;
	rp = strrchr(buf, ')');	/* the name may hold spaces and ')' */
	return rp && rp[1] == ' ' && rp[2] == 'S';
}

/* Spin until the calling thread has used @ms of CPU time. */
static void burn_cpu(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000L +
		 (t.tv_nsec - t0.tv_nsec) / 1000000L < ms);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	struct timespec nap = { 0, 10 * 1000000L };
	struct rusage ru;
	siginfo_t info;
	int status = -1;
	pid_t child, got = -1;

	if (strcmp(how, "late") == 0 && argc > 2) {
		char *again[] = { argv[0], argv[2], NULL };

		burn_cpu(300);
		execv("/proc/self/exe", again);
		return 4;
	}
	wl_init();
	child = fork();
	if (child < 0)
		return 3;
	if (child == 0) {
		pid_t parent = getppid();
		int seen = 0;

		/* (at most 10 s: a /proc that cannot be read ends it) */
		for (int polls = 0; seen < 10 && polls < 1000; polls++) {
			nanosleep(&nap, NULL);
			seen = blocked(parent) ? seen + 1 : 0;
		}
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
