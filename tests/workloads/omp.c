/*
 * omp.c - OpenMP (gcc -fopenmp, libgomp) programs whose critical path is
 * fixed by the construct, with a team of two: thread 0 is main (the
 * encountering thread), thread 1 libgomp's worker.  Times in ms; regions
 * in quotes.  One argument picks the program.
 *
 * region: an imbalanced parallel region, forked and joined by main.
 *   main: "p" 10; parallel { 0: "a" 20 | 1: "b" 40 }; "c" 10
 *   Paths: p -> b -> c = 60 (fork, join), p -> a -> c = 40.
 *   CP 60: p 10, b 40, c 10, a 0.  Zeroing: p 10, b 20, c 10, a 0.
 *   Useful: main 40, worker 40.
 *
 * critical: a critical-section chain, then an explicit barrier.
 *   0: critical { "a" 30 }; "c" 10; barrier; "e" 10
 *   1: "b" 10; critical (waits ~20) { "d" 20 }; barrier
 *   Paths: a -> d -> e = 60, a -> c -> e = 50, b -> d -> e = 40.
 *   CP 60: a 30, d 20, e 10, b 0, c 0.  Zeroing: a 20, d 10, e 10.
 *   Useful: main 50, worker 30.
 *
 * TASK GATE.  In tasks, depend, nested and waitdep the worker must run
 * main's deferred task: main would run it itself at its next scheduling
 * point (taskwait, an undeferred task waiting on it) if the worker had
 * not taken it by then, which a busy machine can delay past "q" (main
 * then runs everything: a CP of 70 for waitdep).  So the task posts a
 * semaphore as it starts, and main waits for that post after "q",
 * before the scheduling point.  The post's edge (from the task's start,
 * at 10, to main after "q") lies on no path as long as the one it
 * joins, so none of the figures below change; each of these workloads
 * has that semaphore besides the objects listed.
 *
 * tasks: main creates a task; the worker, waiting at the region's end,
 * runs it while main works on.
 *   0: "p" 10; task { "t" 30 }; "q" 20; taskwait; "r" 10
 *   Paths: p -> t -> r = 50 (creation, taskwait), p -> q -> r = 40.
 *   CP 50: p 10, t 30, r 10, q 0.  Zeroing: p 10, t 10, r 10, q 0.
 *   Useful: main 40, worker 30.
 *
 * shrink: a team of three, then of two: libgomp ends the third thread
 * when the second region starts, after it idled since its exit of the
 * first region's function; that idle time is not useful.
 *   main: "p" 10; parallel(3) { 0: "a" 5 | 1: "b" 10 | 2: "x" 3 };
 *         "c" 30; parallel(2) { 0: "d" 10 | 1: "e" 5 }; "f" 20
 *   CP 80: p 10, b 10, c 30, d 10, f 20 (a, x, e 0).
 *   Zeroing: p 10, b 5 (a takes over), c 30, d 5 (e), f 20.
 *   Thread paths: main 80; 1: p b, then the second fork (50) and e: 55;
 *   2: p x = 13.  Useful: main 75, 1: 15, 2: 3.
 *
 * depend: main creates task "a" writing x (the worker, waiting at the
 * region's end, takes it while main works on), then an undeferred task
 * "b" reading x: main waits in GOMP_task until "a" has ended, then runs
 * "b" itself, so only the dependence links "a" to "b".
 *   0: "p" 10; task depend(out: x) { "a" 30 }; "q" 20;
 *      task depend(in: x) if(0) { "b" 10 }; "r" 10
 *   Paths: p -> a -> b -> r = 60 (creation, dependence), p -> q -> b -> r
 *   = 50.  CP 60: p 10, a 30, b 10, r 10, q 0.  Zeroing: p 10, a 10,
 *   b 10, r 10, q 0.  Useful: main 50 (it waits 10 for "a"), worker 30.
 *
 * nested: task "W" writes x and, on the worker, runs a child task "c"
 * that reads x (undeferred, so on the worker too: a child is not W's
 * sibling and does not wait for it); main then runs an undeferred task
 * "r" reading x, which waits for W.  The child's read of x on W's thread
 * must not end W's write.
 *   0: "p" 10; task depend(out: x) { "w" 20;
 *        task depend(in: x) if(0) { "c" 5 }; "v" 10 };
 *      "q" 15; task depend(in: x) if(0) { "r" 10 }; "s" 5
 *   Paths: p -> w -> c -> v -> r -> s = 60, p -> q -> r -> s = 40.
 *   CP 60: p 10, w 20, c 5, v 10, r 10, s 5, q 0.  Zeroing: p 10, w 20,
 *   c 5, v 10, r 10, s 5, q 0.  Useful: main 40, worker 35.
 *
 * waitdep: main creates task "a" writing x (the worker takes it while
 * main works on), then waits for it alone with taskwait depend.
 *   0: "p" 10; task depend(out: x) { "a" 30 }; "q" 20;
 *      taskwait depend(in: x); "r" 10
 *   Paths: p -> a -> r = 50 (creation, dependence), p -> q -> r = 40.
 *   CP 50: p 10, a 30, r 10, q 0.  Zeroing: p 10, a 10, r 10, q 0.
 *   Useful: main 40 (it waits 10 for "a"), worker 30.
 *
 * taskloop: main runs a taskloop of two tasks, each of one iteration,
 * which meet at a pthread barrier, so that one runs on each thread
 * (whichever iteration libgomp gives it); then the task on the worker
 * works "a" 30, the one on main "b" 10.  The loop's implicit taskgroup
 * waits for both.
 *   0: "p" 10; taskloop { barrier; worker ? "a" 30 : "b" 10 }; "r" 10
 *   Paths: p -> a -> r = 50 (creation, the loop's end), p -> b -> r = 30.
 *   CP 50: p 10, a 30, r 10, b 0.  Zeroing: p 10, a 20, r 10, b 0.
 *   Useful: main 30 (it waits 20 for "a"), worker 30.
 *
 * ordered: a loop of four iterations, schedule(static, 1) (0 and 2 on
 * main, 1 and 3 on the worker), each with an ordered block, which run in
 * iteration order; iteration 1 works "b" 5 before its block.
 *   blocks "o0" 20, "o1" 10, "o2" 10, "o3" 10
 *   Paths: o0 o1 o2 o3 = 50, b o1 o2 o3 = 35.
 *   CP 50: o0 20, o1 10, o2 10, o3 10, b 0.  Zeroing: o0 15, o1 10,
 *   o2 10, o3 10.  Useful: main 30, worker 25.
 */
#include "wl.h"

#include <omp.h>

static void region(void)
{
	wl_region("p", 10);
#pragma omp parallel num_threads(2)
	{
		if (omp_get_thread_num() == 0)
			wl_region("a", 20);
		else
			wl_region("b", 40);
	}
	wl_region("c", 10);
}

static void critical(void)
{
#pragma omp parallel num_threads(2)
	{
		int me = omp_get_thread_num();

		if (me == 1)
			wl_region("b", 10);
#pragma omp critical
		wl_region(me == 0 ? "a" : "d", me == 0 ? 30 : 20);
		if (me == 0)
			wl_region("c", 10);
#pragma omp barrier
		if (me == 0)
			wl_region("e", 10);
	}
}

static void shrink(void)
{
	static const char *const r1[] = { "a", "b", "x" }, *const r2[] = {
		"d", "e" };
	static const unsigned ms1[] = { 5, 10, 3 }, ms2[] = { 10, 5 };

	wl_region("p", 10);
#pragma omp parallel num_threads(3)
	wl_region(r1[omp_get_thread_num()], ms1[omp_get_thread_num()]);
	wl_region("c", 30);
#pragma omp parallel num_threads(2)
	wl_region(r2[omp_get_thread_num()], ms2[omp_get_thread_num()]);
	wl_region("f", 20);
}

static void ordered(void)
{
	static const char *const name[] = { "o0", "o1", "o2", "o3" };
	static const unsigned ms[] = { 20, 10, 10, 10 };

#pragma omp parallel for ordered schedule(static, 1) num_threads(2)
	for (int i = 0; i < 4; i++) {
		if (i == 1)
			wl_region("b", 5);
#pragma omp ordered
		wl_region(name[i], ms[i]);
	}
}

/* Main's side of the TASK GATE (see above): wait until the worker has
 * started the task.  A team of one (never asked for here) would run the
 * task itself, so it does not wait. */
static void task_gate(sem_t *started)
{
	if (omp_get_num_threads() > 1)
		sem_wait(started);
}

static void tasks(void)
{
	sem_t started;

	sem_init(&started, 0, 0);
#pragma omp parallel num_threads(2) shared(started)
	{
		if (omp_get_thread_num() == 0) {
			wl_region("p", 10);
#pragma omp task shared(started)
			{
				sem_post(&started);
				wl_region("t", 30);
			}
			wl_region("q", 20);
			task_gate(&started);
#pragma omp taskwait
			wl_region("r", 10);
		}
	}
	sem_destroy(&started);
}

static void depend(void)
{
	int x = 0;
	sem_t started;

	sem_init(&started, 0, 0);
#pragma omp parallel num_threads(2) shared(x, started)
	{
		if (omp_get_thread_num() == 0) {
			wl_region("p", 10);
#pragma omp task depend(out: x) shared(x, started)
			{
				sem_post(&started);
				wl_region("a", 30);
				x = 1;
			}
			wl_region("q", 20);
			task_gate(&started);
#pragma omp task depend(in: x) if(0) shared(x)
			{
				wl_region("b", 10);
				x += 1;
			}
			wl_region("r", 10);
		}
	}
	sem_destroy(&started);
	if (x != 2)
		exit(1);
}

static void nested(void)
{
	int x = 0;
	sem_t started;

	sem_init(&started, 0, 0);
#pragma omp parallel num_threads(2) shared(x, started)
	{
		if (omp_get_thread_num() == 0) {
			wl_region("p", 10);
#pragma omp task depend(out: x) shared(x, started)
			{
				sem_post(&started);
				wl_region("w", 20);
#pragma omp task depend(in: x) if(0) shared(x)
				wl_region("c", x == 0 ? 5 : 1000);
				wl_region("v", 10);
				x = 1;
			}
			wl_region("q", 15);
			task_gate(&started);
#pragma omp task depend(in: x) if(0) shared(x)
			wl_region("r", x == 1 ? 10 : 1000);
			wl_region("s", 5);
		}
	}
	sem_destroy(&started);
}

static void waitdep(void)
{
	int x = 0;
	sem_t started;

	sem_init(&started, 0, 0);
#pragma omp parallel num_threads(2) shared(x, started)
	{
		if (omp_get_thread_num() == 0) {
			wl_region("p", 10);
#pragma omp task depend(out: x) shared(x, started)
			{
				sem_post(&started);
				wl_region("a", 30);
				x = 1;
			}
			wl_region("q", 20);
			task_gate(&started);
#pragma omp taskwait depend(in: x)
			if (x != 1)
				exit(1);
			wl_region("r", 10);
		}
	}
	sem_destroy(&started);
}

static void taskloop(void)
{
	pthread_barrier_t both;

	pthread_barrier_init(&both, NULL, 2);
#pragma omp parallel num_threads(2) shared(both)
	{
		if (omp_get_thread_num() == 0) {
			wl_region("p", 10);
#pragma omp taskloop num_tasks(2) shared(both)
			for (int i = 0; i < 2; i++) {
				int worker = omp_get_thread_num() == 1;

				(void)i;
				pthread_barrier_wait(&both);
				wl_region(worker ? "a" : "b", worker ? 30 : 10);
			}
			wl_region("r", 10);
		}
	}
	pthread_barrier_destroy(&both);
}

int main(int argc, char **argv)
{
	const char *v = argc > 1 ? argv[1] : "";

	wl_init();
	if (strcmp(v, "region") == 0)
		region();
	else if (strcmp(v, "critical") == 0)
		critical();
	else if (strcmp(v, "tasks") == 0)
		tasks();
	else if (strcmp(v, "shrink") == 0)
		shrink();
	else if (strcmp(v, "ordered") == 0)
		ordered();
	else if (strcmp(v, "depend") == 0)
		depend();
	else if (strcmp(v, "taskloop") == 0)
		taskloop();
	else if (strcmp(v, "waitdep") == 0)
		waitdep();
	else if (strcmp(v, "nested") == 0)
		nested();
	else
		return 2;
	printf("omp %s done\n", v);
	return 0;
}
