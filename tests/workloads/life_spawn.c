/*
 * life_spawn.c - new processes from a threaded program: while two
 * threads take a mutex in a loop (16 pairs, then a 50 us sleep: the
 * trace's size must not follow how long the children take to start,
 * which under a sanitizer on a loaded machine is seconds, or the
 * analysis of it outruns the test's time limit), main runs this
 * program again through fork + execv, through posix_spawn, and runs
 * system("exit 7").  The children (argument "child N") print a line and
 * exit with N; the parent prints every status, and writes its pid and the
 * two children's pids to the file named by its argument (the test finds
 * their reports by pid).
 */
#include "wl.h"

#include <spawn.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool stop;
static unsigned long spins;

static void *busy(void *arg)
{
	for (unsigned long n = 1; !atomic_load(&stop); n++) {
		WL_OK(pthread_mutex_lock(&m));
		spins++;
		WL_OK(pthread_mutex_unlock(&m));
		if (n % 16 == 0)
			nanosleep(&(struct timespec){ 0, 50000 }, NULL);
	}
	return arg;
}

static int status_of(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	char *child_exec[] = { argv[0], "child", "5", NULL };
	char *child_spawn[] = { argv[0], "child", "6", NULL };
	pthread_t t[2];
	pid_t pe, ps;
	int st;
	FILE *f;

	wl_init();
	if (argc == 3 && strcmp(argv[1], "child") == 0) {
		printf("child %s\n", argv[2]);
		return atoi(argv[2]);
	}
	if (argc != 2) {
		fprintf(stderr, "usage: life_spawn PIDFILE\n");
		return 2;
	}
	for (int i = 0; i < 2; i++)
		WL_OK(pthread_create(&t[i], NULL, busy, NULL));
	fflush(stdout);
	pe = fork();
	if (pe == 0) {
		execv(argv[0], child_exec);
		_exit(127);
	}
	printf("fork+exec child exited %d\n", status_of(pe));
	WL_OK(posix_spawn(&ps, argv[0], NULL, NULL, child_spawn, environ));
	printf("posix_spawn child exited %d\n", status_of(ps));
	st = system("exit 7");
	printf("system exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		WL_OK(pthread_join(t[i], NULL));
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%ld %ld %ld\n", (long)getpid(), (long)pe,
			  (long)ps) < 0 || fclose(f) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
