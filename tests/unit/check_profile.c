/*
 * check_profile.c - CP profile per procedure, thread and object, and the
 * IPS summaries, on synthetic traces with hand-computed answers.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_par.h"
#include "cp_profile.h"
#include "cp_trace.h"
#include "cp_tracepag.h"
#include "synth_graph.h"

struct fixture {
	struct cp_trace t;
	struct cp_tracepag tp;
	struct cp_profile p;
};

static void load(struct synth *s, struct fixture *f, bool exclusive)
{
	struct cp_profile_opts o = { .exclusive = exclusive };
	char err[256] = "";

	synth_graph_load(s, &f->t, &f->tp);
	ck_assert_msg(cp_profile_compute(&f->p, &f->tp, &o, err,
					 sizeof(err)) == 0, "profile: %s", err);
}

static void unload(struct fixture *f)
{
	cp_profile_free(&f->p);
	synth_graph_free(&f->t, &f->tp);
}

static const struct cp_proc_prof *proc(const struct fixture *f,
				       const char *name)
{
	for (uint32_t i = 0; i < f->p.nprocs; i++)
		if (!strcmp(f->p.procs[i].name, name))
			return &f->p.procs[i];
	ck_abort_msg("no procedure %s", name);
	return NULL;
}

#define ASSERT_PROC(f, nm, cpu, cp, zero, slack, mbm)			\
	do {								\
		const struct cp_proc_prof *pp_ = proc((f), (nm));	\
		ck_assert_msg(pp_->cpu_ns == (cpu) && pp_->cp_ns == (cp) && \
			      pp_->zero_ns == (zero) &&			\
			      pp_->slack_ns == (slack) &&		\
			      pp_->mbm_ns == (mbm),			\
			      "%s: cpu %" PRIu64 "/%d cp %" PRIu64 "/%d "	\
			      "zero %" PRIu64 "/%d slack %" PRIu64 "/%d "	\
			      "mbm %" PRIu64 "/%d (got/want)", (nm),	\
			      pp_->cpu_ns, (cpu), pp_->cp_ns, (cp),	\
			      pp_->zero_ns, (zero), pp_->slack_ns,	\
			      (slack), pp_->mbm_ns, (mbm));		\
	} while (0)

/* examples §4 with one "work" procedure in both threads and "crit". */
static void lock_example(struct synth *s)
{
	synth_lock_example(s, &(struct synth_lock_example){
		.kind = CP_OBJ_MUTEX, .one_work = true });
	s->online_len = 40;
}

START_TEST(test_profile_lock_procedures)
{
	struct synth s;
	struct fixture f;

	lock_example(&s);
	load(&s, &f, false);
	ck_assert_msg(f.p.cp_len == 40 && f.p.cp_len == f.p.online_len,
		      "CP %" PRIu64 " online %" PRIu64, f.p.cp_len,
		      f.p.online_len);
	/* CP: T1's work 30 and crit 10 */
	ASSERT_PROC(&f, "work", 50, 30, 20, 0, 20);
	ASSERT_PROC(&f, "crit", 20, 10, 10, 10, 10);
	ck_assert_msg(!strcmp(f.p.procs[0].name, "work"), "first row %s",
		      f.p.procs[0].name);
	ck_assert_msg(proc(&f, "work")->calls == 2, "calls %" PRIu64,
		      proc(&f, "work")->calls);
	ck_assert_msg(f.p.npaths > 2, "paths %u", f.p.npaths);
	unload(&f);
	synth_free(&s);
}
END_TEST

START_TEST(test_profile_ips_summary)
{
	struct synth s;
	struct fixture f;
	const struct cp_thread_prof *t0, *t1, *t2;

	lock_example(&s);
	load(&s, &f, false);
	ck_assert_msg(f.p.useful_ns == 70 && f.p.wait_ns == 40 &&
		      f.p.elapsed_ns == 40,
		      "useful %" PRIu64 " wait %" PRIu64 " elapsed %" PRIu64,
		      f.p.useful_ns, f.p.wait_ns, f.p.elapsed_ns);
	ck_assert_msg(fabs(f.p.max_parallelism - 1.75) < 1e-9 &&
		      fabs(f.p.parallelism - 1.75) < 1e-9,
		      "parallelism %g max %g", f.p.parallelism,
		      f.p.max_parallelism);
	ck_assert_msg(f.p.nthreads == 3, "threads %u", f.p.nthreads);
	t0 = &f.p.threads[0];
	t1 = &f.p.threads[1];
	t2 = &f.p.threads[2];
	ck_assert_msg(t0->useful_ns == 0 && t0->wait_ns == 40 &&
		      t0->cp_ns == 0 && t0->len_ns == 40,
		      "T0 useful %" PRIu64 " wait %" PRIu64 " cp %" PRIu64
		      " len %" PRIu64, t0->useful_ns, t0->wait_ns, t0->cp_ns,
		      t0->len_ns);
	ck_assert_msg(t1->useful_ns == 40 && t1->cp_ns == 40 &&
		      t1->len_ns == 40 && t1->calls == 2,
		      "T1 useful %" PRIu64 " cp %" PRIu64 " len %" PRIu64
		      " calls %" PRIu64, t1->useful_ns, t1->cp_ns, t1->len_ns,
		      t1->calls);
	ck_assert_msg(t2->useful_ns == 30 && t2->cp_ns == 0 &&
		      t2->len_ns == 30, "T2 useful %" PRIu64 " cp %" PRIu64
		      " len %" PRIu64, t2->useful_ns, t2->cp_ns, t2->len_ns);
	unload(&f);
	synth_free(&s);
}
END_TEST

START_TEST(test_profile_lock_object)
{
	struct synth s;
	struct fixture f;
	const struct cp_obj_prof *o;

	lock_example(&s);
	load(&s, &f, false);
	ck_assert_msg(f.p.nobjs == 1, "objects %u", f.p.nobjs);
	o = &f.p.objs[0];
	ck_assert_msg(o->kind == CP_OBJ_MUTEX && o->ops == 2 &&
		      o->waits == 0 && o->held_ns == 20 &&
		      o->cp_held_ns == 10 && o->cp_cross == 0,
		      "kind %u ops %" PRIu64 " waits %" PRIu64 " held %" PRIu64
		      " cp_held %" PRIu64 " cross %" PRIu64, o->kind, o->ops,
		      o->waits, o->held_ns, o->cp_held_ns, o->cp_cross);
	unload(&f);
	synth_free(&s);
}
END_TEST

/* The critical path crosses the barrier from the last arrival. */
START_TEST(test_profile_barrier_object)
{
	struct synth s;
	struct fixture f;
	const struct cp_obj_prof *o;

	synth_barrier_example(&s, false);
	s.online_len = 80;
	load(&s, &f, false);
	o = &f.p.objs[0];
	ck_assert_msg(o->kind == CP_OBJ_BARRIER && o->ops == 3 &&
		      o->waits == 3 && o->wait_ns == 30 && o->cp_cross == 1,
		      "kind %u ops %" PRIu64 " waits %" PRIu64 " wait %" PRIu64
		      " cross %" PRIu64, o->kind, o->ops, o->waits, o->wait_ns,
		      o->cp_cross);
	ck_assert_msg(f.p.threads[1].cp_ns == 30 && f.p.threads[2].cp_ns == 50,
		      "T1 cp %" PRIu64 " T2 cp %" PRIu64,
		      f.p.threads[1].cp_ns, f.p.threads[2].cp_ns);
	ck_assert_msg(f.p.cp_len == f.p.online_len, "CP %" PRIu64,
		      f.p.cp_len);
	unload(&f);
	synth_free(&s);
}
END_TEST

static void nested(struct synth *s)
{
	synth_init(s);
	synth_symbol(s, 0xa0, 0x10, "a");
	synth_symbol(s, 0xb0, 0x10, "b");
	synth_start(s, 0, -1);
	synth_enter(s, 0, 0, 0xa0);
	synth_enter(s, 0, 10, 0xb0);
	synth_leave(s, 0, 20);
	synth_leave(s, 0, 6);
	synth_exit(s, 0, 4);
	s->online_len = 40;
}

START_TEST(test_profile_inclusive_vs_exclusive)
{
	struct synth s;
	struct fixture f;

	nested(&s);
	load(&s, &f, false);
	/* one thread: everything is on the path and nothing has slack */
	ASSERT_PROC(&f, "a", 36, 36, 36, 36, 36);
	ASSERT_PROC(&f, "b", 20, 20, 20, 20, 20);
	ck_assert_msg(!strcmp(f.p.procs[0].name, "a"), "first %s",
		      f.p.procs[0].name);
	unload(&f);
	load(&s, &f, true);
	ASSERT_PROC(&f, "a", 16, 16, 16, 16, 16);
	ASSERT_PROC(&f, "b", 20, 20, 20, 20, 20);
	ck_assert_msg(!strcmp(f.p.procs[0].name, "b"), "first %s",
		      f.p.procs[0].name);
	ck_assert_msg(proc(&f, "a")->cpu_incl_ns == 36 &&
		      proc(&f, "a")->cpu_excl_ns == 16, "a incl %" PRIu64
		      " excl %" PRIu64, proc(&f, "a")->cpu_incl_ns,
		      proc(&f, "a")->cpu_excl_ns);
	unload(&f);
	synth_free(&s);
}
END_TEST

/* A region counts as the procedure named by its string. */
START_TEST(test_profile_regions)
{
	struct synth s;
	struct fixture f;

	synth_init(&s);
	synth_symbol(&s, 0xa0, 0x10, "load");
	synth_string(&s, 1, "load");
	synth_string(&s, 2, "solve");
	synth_start(&s, 0, -1);
	synth_region_begin(&s, 0, 3, 2);
	synth_enter(&s, 0, 4, 0xa0);	/* function load inside solve */
	synth_leave(&s, 0, 5);
	synth_region_end(&s, 0, 6, 2);
	synth_region_begin(&s, 0, 1, 1);	/* region load */
	synth_region_end(&s, 0, 7, 1);
	synth_exit(&s, 0, 2);
	load(&s, &f, false);
	ASSERT_PROC(&f, "solve", 15, 15, 15, 15, 15);
	ASSERT_PROC(&f, "load", 12, 12, 12, 12, 12);
	ck_assert_msg(f.p.cp_len == 28, "CP %" PRIu64, f.p.cp_len);
	unload(&f);
	synth_free(&s);
}
END_TEST

/*
 * Limits: a procedure off the critical path has zero CP, zeroing, Slack
 * and MBM; with top = 1 only the first row is computed.
 */
START_TEST(test_profile_top_limit)
{
	struct synth s;
	struct cp_trace t;
	struct cp_tracepag tp;
	struct cp_profile p;
	struct cp_profile_opts o = { .top = 1, .k = 3 };
	uint8_t *buf;
	size_t len;
	char err[256];

	lock_example(&s);
	len = synth_encode(&s, &buf);
	ck_assert(cp_trace_parse(&t, "x", buf, len, err, sizeof(err)) == 0);
	ck_assert(cp_tracepag_build(&tp, &t, err, sizeof(err)) == 0);
	ck_assert(cp_profile_compute(&p, &tp, &o, err, sizeof(err)) == 0);
	ck_assert_msg(p.procs[0].computed && !p.procs[1].computed,
		      "computed %d %d", p.procs[0].computed,
		      p.procs[1].computed);
	ck_assert_msg(p.k == 3 && p.npaths == 3, "k %u paths %u", p.k,
		      p.npaths);
	cp_profile_free(&p);
	cp_tracepag_free(&tp);
	cp_trace_free(&t);
	free(buf);
	synth_free(&s);
}
END_TEST

/*
 * The profile on both cores (the paths' search beside the threads',
 * procedures' and objects' figures, Slack beside zeroing) against the
 * profile on one, on random traces: four threads calling five procedures
 * (nested at random) and taking three mutexes, a barrier between rounds.
 */
START_TEST(test_profile_both_cores_agree)
{
	static const char *const names[] = { "p0", "p1", "p2", "p3", "p4" };
	uint64_t rng = 77;

	for (int iter = 0; iter < 40; iter++) {
		struct cp_profile_opts o = { .k = 20 };
		struct cp_profile one, two;
		struct cp_trace t;
		struct cp_tracepag tp;
		struct synth s;
		uint32_t nt = 4, m[3], b;
		char err[256] = "";
		size_t old;

		synth_init(&s);
		for (uint32_t i = 0; i < 5; i++)
			synth_symbol(&s, 0x100 * (i + 1), 0x10, names[i]);
		synth_start(&s, 0, -1);
		b = synth_obj(&s, 0, CP_OBJ_BARRIER, nt);
		for (uint32_t i = 0; i < 3; i++)
			m[i] = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
		for (uint32_t i = 1; i < nt; i++) {
			synth_create(&s, 0, 0, i);
			synth_start(&s, i, 0);
		}
		for (int round = 0; round < 4; round++) {
			for (uint32_t i = 0; i < nt; i++) {
				uint32_t depth = 0;

				for (int op = 0; op < 12; op++) {
					uint32_t x = (uint32_t)synth_rand(&rng, 3);

					if (depth < 3 && synth_rand(&rng, 2)) {
						synth_enter(&s, i, synth_rand(&rng,
							    20), 0x100 *
							    (1 + synth_rand(&rng, 5)));
						depth++;
					}
					synth_lock(&s, i, synth_rand(&rng, 30),
						   0, m[x]);
					synth_unlock(&s, i, 1 + synth_rand(&rng,
						     9), m[x]);
					if (depth && synth_rand(&rng, 2)) {
						synth_leave(&s, i,
							    synth_rand(&rng, 15));
						depth--;
					}
				}
				while (depth--)
					synth_leave(&s, i, 1);
				synth_barrier(&s, i, 0, 0, b);
			}
		}
		for (uint32_t i = 1; i < nt; i++)
			synth_exit(&s, i, 0);
		for (uint32_t i = 1; i < nt; i++)
			synth_join(&s, 0, 0, true, i);
		synth_exit(&s, 0, 0);
		synth_graph_load(&s, &t, &tp);
		old = cp_par_set_threshold(SIZE_MAX);
		ck_assert_msg(cp_profile_compute(&one, &tp, &o, err,
						 sizeof(err)) == 0, "%s", err);
		cp_par_set_threshold(0);
		ck_assert_msg(cp_profile_compute(&two, &tp, &o, err,
						 sizeof(err)) == 0, "%s", err);
		cp_par_set_threshold(old);
		ck_assert(one.nprocs == two.nprocs && one.npaths == two.npaths &&
			  one.cp_len == two.cp_len &&
			  one.cp_samples == two.cp_samples);
		for (uint32_t i = 0; i < one.nprocs; i++) {
			const struct cp_proc_prof *x = &one.procs[i];
			const struct cp_proc_prof *y = &two.procs[i];

			ck_assert_msg(x->proc == y->proc &&
				      x->cpu_ns == y->cpu_ns &&
				      x->cp_ns == y->cp_ns &&
				      x->zero_ns == y->zero_ns &&
				      x->slack_ns == y->slack_ns &&
				      x->mbm_ns == y->mbm_ns &&
				      x->computed == y->computed,
				      "iter %d: procedure %s differs", iter,
				      x->name);
		}
		for (uint32_t i = 0; i < one.nthreads_all; i++)
			ck_assert_msg(one.threads[i].cp_ns ==
				      two.threads[i].cp_ns &&
				      one.threads[i].len_ns ==
				      two.threads[i].len_ns,
				      "iter %d: thread %u differs", iter, i);
		ck_assert(one.nobjs == two.nobjs);
		for (uint32_t i = 0; i < one.nobjs; i++)
			ck_assert_msg(one.objs[i].cp_held_ns ==
				      two.objs[i].cp_held_ns &&
				      one.objs[i].gain_ns == two.objs[i].gain_ns,
				      "iter %d: object %u differs", iter, i);
		cp_profile_free(&one);
		cp_profile_free(&two);
		synth_graph_free(&t, &tp);
		synth_free(&s);
	}
}
END_TEST

static Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_test(tc, test_profile_lock_procedures);
	tcase_add_test(tc, test_profile_ips_summary);
	tcase_add_test(tc, test_profile_lock_object);
	tcase_add_test(tc, test_profile_barrier_object);
	tcase_add_test(tc, test_profile_inclusive_vs_exclusive);
	tcase_add_test(tc, test_profile_regions);
	tcase_add_test(tc, test_profile_top_limit);
	tcase_add_test(tc, test_profile_both_cores_agree);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(profile_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
