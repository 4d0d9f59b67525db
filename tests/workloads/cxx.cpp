/*
 * cxx.cc - the mutex hand-over of mutex.c written with the C++ standard
 * library (g++, libstdc++), one argument picking the primitive.
 * Times in ms; regions in quotes.
 *
 *   main: take L; start T (std::thread); "a" 30; release L; "c" 20; join T
 *   T:    "b" 10; take L (waits ~20); "d" 40; release L
 *
 * Paths: a -> (L) -> d = 70, a -> c = 50, b -> d = 50.
 * CP 70: a 30, d 40, b 0, c 0.  Zeroing: a 20, d 20, b 0, c 0.
 * Useful time: main 50, T 50.
 *
 *   mutex   L is a std::mutex (lock/unlock: pthread_mutex_*)
 *   shared  L is a std::shared_mutex, which main holds exclusively and T
 *           takes shared (pthread_rwlock_*)
 *   cond    main holds no lock during "a"; at its end it sets a flag
 *           under a std::mutex and notifies a std::condition_variable
 *           that T waits on (pthread_cond_*): T's wake depends on it
 *   latch   no lock: main counts a std::latch down after "a", and T
 *           waits for it where it would take L; "a" lasts 100 (below)
 *   barrier the same with a std::barrier of two, main arriving after "a"
 *           and T after "b" (T departs when main arrives)
 * For latch and barrier "a" lasts 100 ms: T must be asleep in the futex
 * before main releases it, or there is no call to see (a waiter that
 * finds the phase over returns without one).  A busy machine may start T
 * late, so main, after "a", waits until T sleeps (its state in /proc):
 * on time that costs nothing, late it is useful time beyond the burns,
 * which the tests see as the run's disturbance, not a lost edge.
 * Paths: a -> d = 140, a -> c = 120, b -> d = 50.
 * CP 140: a 100, d 40.  Zeroing: a 90, d 20.  Useful: main 120, T 50.
 *
 * libstdc++ 12 builds std::thread, std::mutex, std::condition_variable
 * and std::shared_mutex on the pthread calls, which the tracer wraps;
 * std::latch, std::barrier and std::counting_semaphore on atomics and
 * futexes called through syscall(3), which it wraps too (wrap_futex.c):
 * a wake from a futex wait depends on the latest wake of its address.
 */
#include "wl.h"

#include <atomic>
#include <barrier>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <latch>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

static std::mutex m;
static std::shared_mutex sm;
static std::condition_variable cv;
static bool flag;
static std::latch latch(1);
static std::barrier<> barrier(2);
/* T's kernel thread id, set just before it waits on the latch or barrier. */
static std::atomic<long> waiter;

/* Whether thread @tid of this process is asleep (state S in /proc). */
static bool asleep(long tid)
{
	char path[64], buf[512];
	ssize_t n;
	int fd;
	const char *end;

	std::snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	end = std::strrchr(buf, ')');	/* after "tid (comm" */
	return end && end[1] == ' ' && end[2] == 'S';
}

/* Main, before it releases T: until T has arrived and sleeps in the
 * futex (see the head comment). */
static void wait_for_sleeper(void)
{
	long tid;

	while (!(tid = waiter.load()))
		sched_yield();
	while (!asleep(tid))
		sched_yield();
}

int main(int argc, char **argv)
{
	std::string v = argc > 1 ? argv[1] : "";
	bool shared = v == "shared", cond = v == "cond";
	bool lat = v == "latch", bar = v == "barrier";

	if (!shared && !cond && !lat && !bar && v != "mutex")
		return 2;
	wl_init();
	if (shared)
		sm.lock();
	else if (!cond && !lat && !bar)
		m.lock();
	std::thread t([&] {
		wl_region("b", 10);
		if (shared) {
			std::shared_lock<std::shared_mutex> g(sm);

			wl_region("d", 40);
		} else if (cond) {
			std::unique_lock<std::mutex> g(m);

			cv.wait(g, [] { return flag; });
			wl_region("d", 40);
		} else if (lat || bar) {
			waiter.store(syscall(SYS_gettid));
			if (lat)
				latch.wait();
			else
				barrier.arrive_and_wait();
			wl_region("d", 40);
		} else {
			std::lock_guard<std::mutex> g(m);

			wl_region("d", 40);
		}
	});
	wl_region("a", lat || bar ? 100 : 30);
	if (lat || bar)
		wait_for_sleeper();
	if (shared) {
		sm.unlock();
	} else if (cond) {
		std::lock_guard<std::mutex> g(m);

		flag = true;
		cv.notify_one();
	} else if (lat) {
		latch.count_down();
	} else if (bar) {
		barrier.arrive_and_wait();
	} else {
		m.unlock();
	}
	wl_region("c", 20);
	t.join();
	std::printf("cxx %s done\n", v.c_str());
	return 0;
}
