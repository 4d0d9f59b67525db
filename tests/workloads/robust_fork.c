/*
 * robust_fork.c - fork() while another thread takes a lock in a loop.
 * The child starts fresh: it creates two threads of its own that use a
 * mutex and a semaphore, joins them, and exits; the parent waits for it,
 * then stops its own thread.  The parent takes the child's mutex once
 * before the fork, so that the child inherits it used: the child's
 * report must still count its 2,000 acquisitions of it, on an object of
 * its own.  With an argument, the parent writes
 * "PARENT_PID CHILD_PID" to that file (the test finds the reports by
 * pid); stdout holds only what is the same in every run.
 */
#include "wl.h"

#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
/* The child's own lock: m may be held by the looper at the fork. */
static pthread_mutex_t child_m = PTHREAD_MUTEX_INITIALIZER;
static sem_t done;
static volatile int stop;
static unsigned long count;

static void *looper(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		WL_OK(pthread_mutex_lock(&m));
		count++;
		WL_OK(pthread_mutex_unlock(&m));
	}
	return NULL;
}

static void *child_worker(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		WL_OK(pthread_mutex_lock(&child_m));
		count++;
		WL_OK(pthread_mutex_unlock(&child_m));
	}
	WL_OK(sem_post(&done));
	return arg;
}

static int child_main(void)
{
	pthread_t t[2];

	count = 0;
	WL_OK(sem_init(&done, 0, 0));
	for (int i = 0; i < 2; i++)
		WL_OK(pthread_create(&t[i], NULL, child_worker, NULL));
	wl_sem_wait(&done);
	wl_sem_wait(&done);
	for (int i = 0; i < 2; i++)
		WL_OK(pthread_join(t[i], NULL));
	printf("child: count %lu\n", count);
	return count == 2000 ? 0 : 1;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pid_t pid;
	int status;

	wl_init();
	WL_OK(pthread_mutex_lock(&child_m));
	WL_OK(pthread_mutex_unlock(&child_m));
	WL_OK(pthread_create(&t, NULL, looper, NULL));
	wl_burn(10);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0)
		exit(child_main());
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	printf("parent: child exited %d\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	WL_OK(pthread_join(t, NULL));
	printf("parent: looper stopped\n");
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");

		if (!f) {
			perror(argv[1]);
			return 1;
		}
		fprintf(f, "%ld %ld\n", (long)getpid(), (long)pid);
		fclose(f);
	}
	return 0;
}
