/*
 * bench.h - what every splash-bench program shares: option parsing
 * (-t THREADS, -n SIZE, -s NAME=FACTOR), the work-scaling knobs, a clock,
 * a random-number generator and the failure exit.
 *
 * Work scaling.  A program names the procedures whose work can be scaled
 * (its "knobs").  Each knob has a base repetition count: the procedure's
 * unit of inner work (one scene record, one matrix row, one block) runs
 * base x FACTOR times on average, and every repetition computes the same
 * values, so the program's result does not change while the procedure's
 * cost does.  A base of 2 lets a procedure be halved (FACTOR 0.5); a base
 * of 1 only lets it grow.  bench_reps() spreads a fractional weight over
 * the units (1.5 gives 1, 2, 1, 2, ...), deterministically by unit index,
 * so any thread may ask for any unit.
 *
 * Growth.  A repetition on warm caches runs faster than the first, and a
 * unit may have parts that are not repeated (a write-back), so repeating
 * a unit twice does not make it take twice as long: a knob set to 2
 * achieved 1.87-1.90.  So a knob set above its base does not repeat the
 * unit more.  The unit runs its base repetitions, timed, and then computes
 * on in a busy loop until it has taken weight / base times as long as
 * they did, by the monotonic clock (the run's own clock: a unit preempted
 * while timed is stretched by its wall time, as the run sees it).  The
 * loop can only stop at its first clock read past the deadline, and a
 * thread preempted across the deadline stops late by the rest of the
 * preemption (tens of microseconds, on units of tens): left alone, that
 * made update_block=2 take 2.04 times as long, not 2.  So each thread
 * keeps, per knob, the time its last stretch ran past its deadline and
 * takes it off its next stretch: over a run the stretches add up to
 * (weight / base - 1) times the units' timed parts, whatever the
 * preemptions did.  A knob at or below its base repeats, as above.  Use
 * bench_unit_begin() for the repetition count and bench_unit_end() after
 * the repetitions.
 *
 * Profiles.  The programs are built three ways: plain, with
 * -finstrument-functions for cpthread, and with -pg for gprof.  Helpers
 * that run millions of times are marked BENCH_HOT so that the
 * instrumentation hooks stay on the named procedures (BENCH_PROC), which
 * run a few thousand to a million times per run.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>
#include <stdio.h>

#include <cpthread.h>

/* A procedure that must show in a profile under its own name. */
#define BENCH_PROC __attribute__((noinline))
/* A small helper inlined into a procedure, never instrumented. */
#define BENCH_HOT static inline \
	__attribute__((always_inline, no_instrument_function))
/* A file-local helper whose time belongs to its caller in a profile. */
#define BENCH_HELPER static __attribute__((no_instrument_function))
/* Keep the compiler from merging repetitions of idempotent work. */
#define BENCH_CLOBBER() __asm__ __volatile__("" ::: "memory")
/*
 * Make the compiler forget what it knows about @x (an lvalue), so work
 * computed from it is redone in every repetition rather than hoisted.
 */
#define BENCH_OPAQUE(x) __asm__ __volatile__("" : "+m"(x))

/* A procedure whose work -s NAME=FACTOR scales. */
struct bench_knob {
	const char *name;	/* procedure name, as in the profile */
	unsigned base;		/* repetitions of a unit at FACTOR 1 */
	double weight;		/* base x FACTOR, set by bench_init() */
};

/* The most knobs a program may have. */
#define BENCH_MAX_KNOBS 8

/* The options every program takes. */
struct bench_opts {
	int threads;		/* -t: worker threads */
	long size;		/* -n: problem size (program-specific unit) */
	int quiet;		/* -q: no result line */
	int verbose;		/* -v: phase times on stderr */
};

/*
 * Parse argv into @opts (whose fields hold the defaults on entry) and set
 * the weight of every knob in @knobs (an array ended by a NULL name) from
 * the -s options.  @usage names what -n means.  Prints usage and exits 2
 * on a bad option.  Call once from main before any thread starts.
 */
void bench_init(int argc, char **argv, struct bench_opts *opts,
		struct bench_knob *knobs, const char *usage);

/*
 * Seconds on the monotonic clock.  Any thread.  Not instrumented: the
 * stretch loop of bench_unit_end() reads it often.
 */
double bench_now(void) __attribute__((no_instrument_function));

/*
 * With -v, print on stderr the time since the previous call (or since
 * bench_init()) labelled @name.  Main thread.
 */
void bench_phase(const char *name);

/* Print "PROGRAM: check failed: ..." on stderr and exit 1.  Any thread. */
void bench_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Print a message and exit 1 when an allocation or a pthread call fails. */
void *bench_alloc(size_t bytes);
void bench_check_rc(int rc, const char *what);

/* The program name, for messages (set by bench_init()). */
extern const char *bench_prog;

/*
 * How many times unit @i of a procedure with weight @w runs: the units
 * 0..i together run floor((i + 1) w) times.  Always at least 1 when
 * w >= 1, which bench_init() guarantees.
 */
BENCH_HOT unsigned bench_reps(double w, uint64_t i)
{
	return (unsigned)((uint64_t)((double)(i + 1) * w) -
			  (uint64_t)((double)i * w));
}

/* Cold halves of bench_unit_begin() and bench_unit_end(), in bench.c. */
unsigned bench_unit_clock(const struct bench_knob *k, double *start)
	__attribute__((cold, no_instrument_function));
void bench_unit_stretch(const struct bench_knob *k, double start)
	__attribute__((cold, no_instrument_function));

/*
 * How long, in seconds, the calling thread's stretches of @k have run past
 * their deadlines and not yet been taken off a later stretch (see
 * "Growth" above); 0 before the thread's first stretch of @k.
 */
double bench_stretch_owed(const struct bench_knob *k);

/*
 * Begin unit @i of knob @k: return how many repetitions of the unit to
 * run, and set *@start for bench_unit_end().
 */
BENCH_HOT unsigned bench_unit_begin(const struct bench_knob *k, uint64_t i,
				    double *start)
{
	if (__builtin_expect(k->weight > k->base, 0))
		return bench_unit_clock(k, start);
	*start = 0;
	return bench_reps(k->weight, i);
}

/*
 * End a unit of knob @k begun at @start: when the knob is set above its
 * base, compute in a busy loop (a dependent chain of multiply-adds, no
 * memory traffic) until the unit has taken weight / base times as long
 * as its repetitions did.  The loop is out of line, so that the
 * procedure's own code is the same whatever the factor (inlined, it
 * changed water's register allocation and cost its instrumented build
 * 6 %); not instrumented, so cpthread charges its time to the procedure
 * (gprof's -pg profile shows it as bench_unit_stretch).
 */
BENCH_HOT void bench_unit_end(const struct bench_knob *k, double start)
{
	if (__builtin_expect(k->weight > k->base, 0))
		bench_unit_stretch(k, start);
}

/* splitmix64: a small, good, seedable generator; the state is the caller's. */
BENCH_HOT uint64_t bench_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A uniform double in [0, 1). */
BENCH_HOT double bench_uniform(uint64_t *state)
{
	return (double)(bench_rand(state) >> 11) * 0x1.0p-53;
}

#endif /* BENCH_H */
