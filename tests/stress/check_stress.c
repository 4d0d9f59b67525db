/*
 * check_stress.c - online and offline analysis agree on random workloads.
 *
 * tests/stress/stress.c runs a random mix of every primitive, fixed by a
 * seed (see its head).  For each seed and each clock this test runs it
 * once in CPTHREAD_MODE=trace with a few of its procedures and regions
 * selected, then `cpt report TRACE --format json` on the trace of that run,
 * and requires:
 *   - the trace reads without error (cpt exits 0);
 *   - critical_path.length_ns equal to the online report's, exactly (the
 *     two see the same timestamps);
 *   - cp_ns and cp_zero_ns of every selected procedure equal, exactly
 *     (inclusive time).  A procedure that never ran is reported by the
 *     online side with zeros and is absent from cpt's table: that agrees;
 *   - `cpt whatif` on the trace simulates without deadlock.
 * Every mismatch of a run is listed in one message with the seed, the
 * clock and the trace's path (kept with CPT_KEEP=1), so a failure can be
 * replayed: `CPTHREAD_MODE=trace CPTHREAD_CLOCK=... CPTHREAD_FUNCS=...
 * stress SEED`.
 *
 * The same with CPTHREAD_EXCLUSIVE=1 and `cpt report --exclusive` (exclusive
 * time, regions included) on 3 * STRESS_LONG_SEEDS seeds.
 *
 * Seeds 1..STRESS_DEFAULT_SEEDS by default, and STRESS_LONG_SEEDS seeds
 * from 1001 with long traces (burns a tenth as long, the rounds a hundred
 * times over: several trace buffers per thread); well under a minute in
 * all.  The environment variable STRESS_SEEDS=FIRST-LAST runs another
 * range (FIRST+1000... for the long ones, a tenth as many); a long opt-in
 * run: STRESS_SEEDS=1-2000.
 *
 * Every helper of stress is joined by the thread that created it, so a
 * JOIN of a thread created by another is a mismatch too: the signature of
 * a runtime that finds the joined thread by its pthread_t after the real
 * join returned, when a concurrent pthread_create may already have reused
 * that pthread_t for a new thread.
 *
 * Skipped (exit code 77) while cpt is not built.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_trace.h"
#include "cpt_harness.h"

#define STRESS_DEFAULT_SEEDS 40
#define STRESS_LONG_SEEDS 3

static const char *const clocks[] = { "cpu", "wall" };
static const char *const funcs[] = {
	"stress_nest", "stress_leaf", "stress_crit", "stress_consume",
	"stress_helper", "region_a", "region_b",
};
#define NFUNCS (sizeof(funcs) / sizeof(funcs[0]))

static unsigned first_seed = 1, nseeds = STRESS_DEFAULT_SEEDS;
static unsigned nlong = STRESS_LONG_SEEDS;

/* Exact comparison of two JSON numbers (integers in ns on both sides). */
static void cmp_exact(struct cpt_errs *e, const char *what, json_t *on,
		      json_t *off)
{
	if (!json_is_integer(on) || !json_is_integer(off)) {
		cpt_errf(e, "  %s: online %s, offline %s", what,
			 on ? "not an integer" : "missing",
			 off ? "not an integer" : "missing");
		return;
	}
	if (json_integer_value(on) != json_integer_value(off))
		cpt_errf(e, "  %s: online %" JSON_INTEGER_FORMAT
			 " ns, offline %" JSON_INTEGER_FORMAT
			 " ns (differ by %+" JSON_INTEGER_FORMAT " ns)", what,
			 json_integer_value(on), json_integer_value(off),
			 json_integer_value(off) - json_integer_value(on));
}

/*
 * A join of the wrong thread in @path (see the head): a JOIN of a thread
 * that the joiner did not create.  Writes the first into @buf.
 */
static bool wrong_join(const char *path, char *buf, size_t len)
{
	struct cp_trace t;
	char err[512];
	bool found = false;

	if (cp_trace_read(&t, path, err, sizeof(err)) != 0)
		return false;
	for (uint32_t tid = 0; tid < t.nthreads && !found; tid++)
		for (uint32_t i = 0; i < t.threads[tid].nv && !found; i++) {
			const struct cp_tvert *v = &t.threads[tid].v[i];
			const struct cp_targ *a = &t.threads[tid].a[i];

			if (cp_tvert_kind(v) != CP_EV_THREAD_JOIN ||
			    t.threads[a->arg].parent == tid)
				continue;
			snprintf(buf, len, "thread %u joins thread %" PRIu64
				 ", which thread %u created", tid, a->arg,
				 t.threads[a->arg].parent);
			found = true;
		}
	cp_trace_free(&t);
	return found;
}

/* Run cpt with @args; its stdout parsed into c->report.  Returns cpt's
 * exit code (the report is loaded only for 0). */
static int run_cpt(struct cpt_run *c, const char *const *args,
		   const char *what)
{
	ck_assert_int_eq(cpt_run_program(c, CPT_CPT, args, NULL, 120, false),
			 0);
	if (cpt_run_exit_code(c) != 0)
		return cpt_run_exit_code(c);
	snprintf(c->report_path, sizeof(c->report_path), "%s/stdout", c->dir);
	ck_assert_msg(cpt_run_load_report(c) == 0,
		      "%s: cpt %s output is not JSON: %s", what, args[0],
		      c->report_error);
	return 0;
}

static void check_procs(struct cpt_errs *e, json_t *onrep, json_t *offrep)
{
	for (size_t i = 0; i < NFUNCS; i++) {
		json_t *on = cpt_json_proc(onrep, funcs[i]);
		json_t *off = cpt_json_proc(offrep, funcs[i]);
		char field[96];

		if (!on) {
			cpt_errf(e, "  procedure %s missing in the online "
				 "report", funcs[i]);
			continue;
		}
		if (!off && cpt_json_num(on, "cp_ns") == 0 &&
		    cpt_json_num(on, "cp_zero_ns") == 0 &&
		    cpt_json_num(on, "cpu_ns") == 0)
			continue;	/* never ran: no row in cpt's table */
		if (!off) {
			cpt_errf(e, "  procedure %s missing in cpt's report "
				 "(online cp_ns %.0f)", funcs[i],
				 cpt_json_num(on, "cp_ns"));
			continue;
		}
		snprintf(field, sizeof(field), "%s cp_ns", funcs[i]);
		cmp_exact(e, field, json_object_get(on, "cp_ns"),
			  json_object_get(off, "cp_ns"));
		snprintf(field, sizeof(field), "%s cp_zero_ns", funcs[i]);
		cmp_exact(e, field, json_object_get(on, "cp_zero_ns"),
			  json_object_get(off, "cp_zero_ns"));
	}
}

/*
 * One run of stress @seed (@percent, @repeat as its arguments) under
 * @clock, checked; @exclusive: CPTHREAD_EXCLUSIVE=1 and cpt --exclusive.
 */
static void agree(unsigned seed, const char *clock, const char *percent,
		  const char *repeat, bool exclusive)
{
	char env_clock[64], env_funcs[256], arg_seed[32], what[200];
	const char *env[] = { env_clock, env_funcs, "CPTHREAD_MODE=trace",
			      "CPTHREAD_QUIET=1", NULL, NULL, NULL };
	const char *args[] = { arg_seed, percent, repeat, NULL };
	struct cpt_run r, c, w;
	struct cpt_errs e;
	char race[160];
	int crc, wrc;
	size_t n = 0;

	if (exclusive)
		env[4] = "CPTHREAD_EXCLUSIVE=1";
	snprintf(arg_seed, sizeof(arg_seed), "%u", seed);
	snprintf(env_clock, sizeof(env_clock), "CPTHREAD_CLOCK=%s", clock);
	n = (size_t)snprintf(env_funcs, sizeof(env_funcs), "CPTHREAD_FUNCS=");
	for (size_t i = 0; i < NFUNCS; i++)
		n += (size_t)snprintf(env_funcs + n, sizeof(env_funcs) - n,
				      "%s%s", i ? "," : "", funcs[i]);
	snprintf(what, sizeof(what), "stress %u %s %s, trace mode, "
		 "CPTHREAD_CLOCK=%s%s", seed, percent, repeat, clock,
		 exclusive ? ", CPTHREAD_EXCLUSIVE=1" : "");

	ck_assert_int_eq(cpt_run_program(&r, STRESS_EXE, args, env, 60, true),
			 0);
	ck_assert_msg(cpt_run_exit_code(&r) == 0 && r.report,
		      "%s: exit %d%s, %s; stderr %.300s", what,
		      cpt_run_exit_code(&r), r.timed_out ? " (timed out)" : "",
		      r.report_error, r.err);
	{
		const char *cargs[] = { "report", r.trace_path, "--format",
					"json", NULL, NULL };

		if (exclusive)
			cargs[4] = "--exclusive";

		crc = run_cpt(&c, cargs, what);
	}
	{
		const char *wargs[] = { "whatif", r.trace_path, "--scale",
					"stress_crit=0.5", "--format", "json",
					NULL };

		wrc = run_cpt(&w, wargs, what);
	}

	cpt_errs_init(&e);
	if (crc != 0 || wrc != 0) {
		cpt_errf(&e, "  cpt report exited %d, cpt whatif %d: %.400s",
			 crc, wrc, crc ? c.err : w.err);
	} else {
		cmp_exact(&e, "critical_path.length_ns",
			  cpt_json_path(r.report, "critical_path.length_ns"),
			  cpt_json_path(c.report, "critical_path.length_ns"));
		check_procs(&e, r.report, c.report);
		if (!json_is_false(json_object_get(w.report, "deadlock")))
			cpt_errf(&e, "  cpt whatif --scale stress_crit=0.5: "
				 "the simulation deadlocked (or no "
				 "\"deadlock\" key)");
	}
	if (wrong_join(r.trace_path, race, sizeof(race)))
		cpt_errf(&e, "  a join of the wrong thread: %s", race);
	ck_assert_msg(e.n == 0, "%s (trace %s): %d mismatch(es):%s", what,
		      r.trace_path, e.n, e.buf);
	cpt_run_free(&w);
	cpt_run_free(&c);
	cpt_run_free(&r);
}

START_TEST(test_stress_online_offline_agree)
{
	agree(first_seed + (unsigned)_i / 2, clocks[_i % 2], "100", "1",
	      false);
}
END_TEST

/*
 * Exclusive time: the innermost frame only, procedure or region (a region
 * begun inside a procedure takes the time until it ends or the procedure
 * returns; region_a nests in itself, region_b stays open across a
 * barrier).
 */
START_TEST(test_stress_exclusive_agree)
{
	agree(first_seed + (unsigned)_i / 2, clocks[_i % 2], "100", "1",
	      true);
}
END_TEST

/* Long traces (several buffers per thread): burns a tenth as long, the
 * rounds a hundred times over. */
START_TEST(test_stress_long_traces_agree)
{
	agree(first_seed + 1000 + (unsigned)_i / 2, clocks[_i % 2], "10",
	      "100", false);
}
END_TEST

static Suite *stress_suite(void)
{
	Suite *s = suite_create("stress");
	TCase *tc = tcase_create("agree");

	tcase_set_timeout(tc, 180);
	tcase_add_loop_test(tc, test_stress_online_offline_agree, 0,
			    (int)(2 * nseeds));
	tcase_add_loop_test(tc, test_stress_exclusive_agree, 0,
			    (int)(2 * nlong * 3));
	tcase_add_loop_test(tc, test_stress_long_traces_agree, 0,
			    (int)(2 * nlong));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *range = getenv("STRESS_SEEDS");
	SRunner *sr;
	int failed;

	if (access(CPT_CPT, X_OK) != 0) {
		printf("check_stress: skipped: the cpt analyzer is not built "
		       "(%s missing)\n", CPT_CPT);
		return 77;
	}
	if (range) {
		unsigned a, b;

		if (sscanf(range, "%u-%u", &a, &b) != 2 || b < a) {
			fprintf(stderr, "check_stress: STRESS_SEEDS=%s: want "
				"FIRST-LAST\n", range);
			return EXIT_FAILURE;
		}
		first_seed = a;
		nseeds = b - a + 1;
		nlong = (nseeds + 9) / 10;
	}
	sr = srunner_create(stress_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
