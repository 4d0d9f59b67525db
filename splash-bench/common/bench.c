/*
 * bench.c - option parsing, clock and failure exits shared by the
 * splash-bench programs.  See bench.h.
 */
#include "bench.h"

#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *bench_prog = "bench";
static int verbose;
static double phase_start;
/*
 * How long this thread's last stretch of each knob ran past its deadline:
 * the next one is that much shorter (see "Growth" in bench.h).
 */
static __thread double stretch_late[BENCH_MAX_KNOBS];
/* The program's knobs, which index stretch_late[]. */
static const struct bench_knob *knob_table;

static void usage_exit(const struct bench_knob *knobs, const char *usage)
{
	const struct bench_knob *k;

	fprintf(stderr,
		"usage: %s [-t THREADS] [-n SIZE] [-s NAME=FACTOR]... "
		"[-q] [-v]\n"
		"  -n SIZE   %s\n"
		"  -s        scale the work of procedure NAME by FACTOR;"
		" NAME is one of:\n", bench_prog, usage);
	for (k = knobs; k && k->name; k++)
		fprintf(stderr, "            %s (FACTOR >= %g)\n", k->name,
			1.0 / k->base);
	exit(2);
}

static void parse_scale(char *arg, struct bench_knob *knobs,
			const char *usage)
{
	struct bench_knob *k;
	char *eq = strchr(arg, '=');
	char *end;
	double factor;

	if (!eq)
		usage_exit(knobs, usage);
	*eq = '\0';
	errno = 0;
	factor = strtod(eq + 1, &end);
	if (errno || *end || end == eq + 1 || !(factor > 0))
		usage_exit(knobs, usage);
	for (k = knobs; k && k->name; k++) {
		if (strcmp(k->name, arg))
			continue;
		if (factor * k->base < 1.0 - 1e-12) {
			fprintf(stderr, "%s: -s %s=%g: the smallest factor "
				"for %s is %g\n", bench_prog, arg, factor,
				arg, 1.0 / k->base);
			exit(2);
		}
		k->weight = factor * k->base;
		return;
	}
	fprintf(stderr, "%s: -s: no scalable procedure named '%s'\n",
		bench_prog, arg);
	usage_exit(knobs, usage);
}

void bench_init(int argc, char **argv, struct bench_opts *opts,
		struct bench_knob *knobs, const char *usage)
{
	struct bench_knob *k;
	char *end;
	int c;

	if (argc > 0 && argv[0]) {
		const char *slash = strrchr(argv[0], '/');

		bench_prog = slash ? slash + 1 : argv[0];
	}
	for (k = knobs; k && k->name; k++) {
		if (k - knobs == BENCH_MAX_KNOBS) {
			fprintf(stderr, "%s: more than %d knobs\n",
				bench_prog, BENCH_MAX_KNOBS);
			exit(2);
		}
		k->weight = k->base;
	}
	knob_table = knobs;
	/*
	 * A knob that repeats a procedure which allocates large buffers must
	 * cost the same every time: with glibc's sliding threshold the first
	 * free of a mapped block would let the repetitions reuse memory that
	 * is already faulted in.  A fixed threshold maps every large block
	 * afresh.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	while ((c = getopt(argc, argv, "t:n:s:qvh")) != -1) {
		switch (c) {
		case 't':
			opts->threads = (int)strtol(optarg, &end, 10);
			if (*end || opts->threads < 1 || opts->threads > 256)
				usage_exit(knobs, usage);
			break;
		case 'n':
			opts->size = strtol(optarg, &end, 10);
			if (*end || opts->size < 1)
				usage_exit(knobs, usage);
			break;
		case 's':
			parse_scale(optarg, knobs, usage);
			break;
		case 'q':
			opts->quiet = 1;
			break;
		case 'v':
			opts->verbose = 1;
			break;
		default:
			usage_exit(knobs, usage);
		}
	}
	if (optind != argc)
		usage_exit(knobs, usage);
	verbose = opts->verbose;
	phase_start = bench_now();
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

unsigned bench_unit_clock(const struct bench_knob *k, double *start)
{
	*start = bench_now();
	return k->base;
}

void bench_unit_stretch(const struct bench_knob *k, double start)
{
	double now = bench_now(), until, x = 1.0;
	int j;

	until = now + (now - start) * (k->weight / k->base - 1.0) -
		stretch_late[k - knob_table];
	while (now < until) {
		for (j = 0; j < 64; j++)
			x = x * 0.9999999 + 1e-7;
		BENCH_OPAQUE(x);
		now = bench_now();
	}
	/*
	 * How late the loop stopped; or, when more was owed than this unit's
	 * whole stretch and the loop never ran, what is still owed.
	 */
	stretch_late[k - knob_table] = now - until;
}

double bench_stretch_owed(const struct bench_knob *k)
{
	return stretch_late[k - knob_table];
}

void bench_phase(const char *name)
{
	double now = bench_now();

	if (verbose)
		fprintf(stderr, "%s: %-16s %8.3f s\n", bench_prog, name,
			now - phase_start);
	phase_start = now;
}

void bench_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: check failed: ", bench_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *bench_alloc(size_t bytes)
{
	void *p = calloc(1, bytes ? bytes : 1);

	if (!p) {
		fprintf(stderr, "%s: out of memory (%zu bytes)\n", bench_prog,
			bytes);
		exit(1);
	}
	return p;
}

void bench_check_rc(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", bench_prog, what,
			strerror(rc));
		exit(1);
	}
}
