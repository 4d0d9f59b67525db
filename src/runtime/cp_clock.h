/*
 * cp_clock.h - the two clocks of the model.
 *
 * wall: wall-clock nanoseconds since the runtime started.  On x86 with an
 *       invariant TSC it is rdtsc scaled by a factor calibrated against
 *       CLOCK_MONOTONIC at start-up (a read is a few times cheaper than
 *       clock_gettime); elsewhere CLOCK_MONOTONIC itself.
 * cpu:  the calling thread's CPU time.  CLOCK_THREAD_CPUTIME_ID is a
 *       system call (no vDSO path), too dear for every event, so it is
 *       read only when CP_CPUCLOCK_REFRESH_NS of wall time have passed
 *       since the last real reading; in between, CPU time advances with
 *       wall time.  A thread that was descheduled inside a short interval
 *       would be over-counted, but a preemption lasts a scheduler slice
 *       (milliseconds) and so always falls in an interval that gets a real
 *       reading.  Values are kept monotonic per thread.
 *
 * All values are nanoseconds in a uint64_t.  The calibration is written
 * once by cp_clock_init() before any thread reads a clock and only read
 * afterwards; a struct cp_cpuclock belongs to its thread.
 */
#ifndef CP_CLOCK_H
#define CP_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define CP_CPUCLOCK_REFRESH_NS 50000u

struct cp_clock_calib {
	uint64_t tsc0;		/* TSC at start-up */
	uint64_t mult;		/* ns per tick, 32.32 fixed point */
	uint64_t mono0;		/* CLOCK_MONOTONIC ns at start-up */
	bool use_tsc;
};

extern struct cp_clock_calib cp_clock_calib;

/* Per-thread state of the cpu clock estimator.  Owning thread only. */
struct cp_cpuclock {
	uint64_t real_cpu;	/* CPU ns at the last real reading */
	uint64_t real_wall;	/* wall ns at the last real reading */
	uint64_t prev;		/* last value returned */
};

/* Calibrate; call once at start-up before any thread reads a clock. */
void cp_clock_init(void);

/* CLOCK_MONOTONIC in ns (not since start-up); any thread. */
static inline uint64_t cp_clock_mono_raw(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calling thread's CPU time in ns, read from the kernel. */
static inline uint64_t cp_clock_cpu_raw(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wall-clock ns since start-up from the TSC; only when use_tsc. */
static inline uint64_t cp_clock_wall_tsc(void)
{
#if defined(__x86_64__)
	uint64_t d = __builtin_ia32_rdtsc() - cp_clock_calib.tsc0;
	uint64_t hi;

	/* d = (d * mult) >> 32 by mulq and shrd: written as a 128-bit
	 * product, GCC 12 needs one register more, and the lean release then
	 * saves and restores a callee-saved one */
	__asm__("mulq %2\n\tshrdq $32, %%rdx, %%rax" : "+a"(d), "=d"(hi)
		: "rm"(cp_clock_calib.mult) : "cc");
	return d;
#else
	return 0;	/* use_tsc is never set */
#endif
}

/* Wall-clock ns since start-up; any thread. */
static inline uint64_t cp_clock_wall(void)
{
	if (__builtin_expect(cp_clock_calib.use_tsc, 1))
		return cp_clock_wall_tsc();
	return cp_clock_mono_raw() - cp_clock_calib.mono0;
}

/* Start the estimator @c of the calling thread; owning thread. */
static inline void cp_cpuclock_start(struct cp_cpuclock *c)
{
	c->real_cpu = cp_clock_cpu_raw();
	c->real_wall = cp_clock_wall();
	c->prev = c->real_cpu;
}

/* The calling thread's CPU ns (estimated, see above), @wall its wall
 * clock now (cp_clock_wall()); never less than the last value returned.
 * Owning thread. */
static inline uint64_t cp_cpuclock_now(struct cp_cpuclock *c, uint64_t wall)
{
	uint64_t v;

	if (wall - c->real_wall < CP_CPUCLOCK_REFRESH_NS) {
		v = c->real_cpu + (wall - c->real_wall);
	} else {
		c->real_cpu = cp_clock_cpu_raw();
		c->real_wall = wall;
		v = c->real_cpu;
	}
	if (v < c->prev)
		v = c->prev;
	c->prev = v;
	return v;
}

#endif /* CP_CLOCK_H */
