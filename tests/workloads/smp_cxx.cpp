/*
 * smp_cxx.cpp - C++ procedures found by sampling an uninstrumented -O2
 * build: their names must read demangled and qualified, as g++'s tools
 * print them.
 *
 * Built -O2 -g without frame pointers like smp_cp.c; times are ms of the
 * thread's CPU time (run it under CPTHREAD_CLOCK=cpu).  Thread A (a
 * std::thread) runs work::Mixer<int>::blend(unsigned int) for 120; thread
 * B runs work::scale(double, unsigned int) for 40; main joins both.
 * Critical path 120 (plus main's few instructions): blend holds 120 of it
 * (CPU 120), scale none (CPU 40).
 */
#include "wl.h"

#include <thread>

namespace work {

static volatile unsigned sink;

/* Spin for @ms of the thread's CPU time. */
__attribute__((noinline, noclone)) static void spin(unsigned ms)
{
	uint64_t end = wl_now(CLOCK_THREAD_CPUTIME_ID) +
		       (uint64_t)ms * 1000000u;

	do {
		for (unsigned i = 0; i < 20000; i++)
			sink = sink + i;
	} while (wl_now(CLOCK_THREAD_CPUTIME_ID) < end);
}

template <typename T> struct Mixer {
	T acc;
	__attribute__((noinline, noclone)) T blend(unsigned ms)
	{
		spin(ms);
		acc += (T)sink;
		return acc;
	}
};

__attribute__((noinline, noclone)) double scale(double x, unsigned ms)
{
	spin(ms);
	return x * sink;
}

} /* namespace work */

int main()
{
	work::Mixer<int> m = { 0 };
	double r = 0;

	wl_init();
	std::thread a([&m] { m.blend(120); });
	std::thread b([&r] { r = work::scale(2.0, 40); });
	a.join();
	b.join();
	return m.acc == -1 && r < 0;	/* 0: the results are used */
}
