/*
 * cp_clock.c - calibration of the TSC against CLOCK_MONOTONIC.
 */
#include "cp_clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

struct cp_clock_calib cp_clock_calib;

/* True when the TSC ticks at a constant rate through P- and C-states. */
static bool tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return false;
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	return (d >> 8) & 1;
#else
	return false;
#endif
}

void cp_clock_init(void)
{
	cp_clock_calib.mono0 = cp_clock_mono_raw();
	cp_clock_calib.use_tsc = false;
#if defined(__x86_64__)	/* cp_clock_wall_tsc() is x86-64 only */
	if (!tsc_invariant())
		return;
	/*
	 * Two (tsc, monotonic) pairs 2 ms apart; each pair is the tightest of
	 * a few tries, so a preemption between the two reads cannot skew it.
	 */
	uint64_t t[2], m[2];

	for (int k = 0; k < 2; k++) {
		uint64_t best = UINT64_MAX;

		if (k == 1) {
			uint64_t until = cp_clock_mono_raw() + 2000000u;

			while (cp_clock_mono_raw() < until)
				;
		}
		for (int i = 0; i < 5; i++) {
			uint64_t a = __builtin_ia32_rdtsc();
			uint64_t mono = cp_clock_mono_raw();
			uint64_t b = __builtin_ia32_rdtsc();

			if (b - a < best) {
				best = b - a;
				t[k] = a + (b - a) / 2;
				m[k] = mono;
			}
		}
	}
	if (t[1] <= t[0] || m[1] <= m[0])
		return;
	cp_clock_calib.mult = (uint64_t)((((unsigned __int128)(m[1] - m[0]))
					  << 32) / (t[1] - t[0]));
	cp_clock_calib.tsc0 = t[0] - (uint64_t)((((unsigned __int128)
			(m[0] - cp_clock_calib.mono0)) << 32) / cp_clock_calib.mult);
	cp_clock_calib.use_tsc = cp_clock_calib.mult != 0;
#endif
}
