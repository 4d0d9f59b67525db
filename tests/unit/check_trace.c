/*
 * check_trace.c - the trace reader on valid, corrupt and truncated
 * synthetic traces.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_crc32c.h"
#include "cp_par.h"
#include "cp_trace.h"
#include "cp_trd_event.h"
#include "trace_synth.h"

/*
 * Two threads, a mutex, procedures and a region, split into blocks of 3
 * events so block boundaries fall everywhere.
 */
static void build_small(struct synth *s)
{
	uint32_t m;

	synth_init(s);
	s->block_events = 3;
	s->hasw = true;
	synth_symbol(s, 0x400000, 0x100, "main");
	synth_symbol(s, 0x400100, 0x80, "worker");
	synth_symbol(s, 0x400180, 0x80, "crunch");
	synth_string(s, 7, "phase1");
	synth_start(s, 0, -1);
	synth_enter(s, 0, 5, 0x400000);
	m = synth_obj(s, 0, CP_OBJ_MUTEX, 0);
	synth_create(s, 0, 10, 1);
	synth_start(s, 1, 0);
	synth_enter(s, 1, 1, 0x400100);
	synth_enter(s, 1, 2, 0x400180);
	synth_lock(s, 1, 3, 0, m);
	synth_unlock(s, 1, 4, m);
	synth_leave(s, 1, 5);
	synth_leave(s, 1, 6);
	synth_exit(s, 1, 1);
	synth_region_begin(s, 0, 1, 7);
	synth_lock(s, 0, 2, 9, m);
	synth_unlock(s, 0, 3, m);
	synth_region_end(s, 0, 4, 7);
	synth_join(s, 0, 2, true, 1);
	synth_leave(s, 0, 1);
	synth_exit(s, 0, 1);
	s->online_len = 42;
}

static int parse_synth(struct synth *s, struct cp_trace *t, char *err,
		       size_t errlen)
{
	uint8_t *buf;
	size_t len = synth_encode(s, &buf);
	int ret = cp_trace_parse(t, "syn.cpt", buf, len, err, errlen);

	free(buf);
	return ret;
}

START_TEST(test_trace_reads_valid)
{
	struct synth s;
	struct cp_trace t;
	char err[256] = "";
	const struct cp_trace_thread *t0, *t1;
	const struct cp_trace_pub *pb;
	int ret;

	build_small(&s);
	ret = parse_synth(&s, &t, err, sizeof(err));
	ck_assert_msg(ret == 0, "parse failed: %s", err);
	ck_assert_msg(t.nthreads == 2, "nthreads %u", t.nthreads);
	ck_assert_msg(t.online_len_ns == 42, "online len %" PRIu64,
		      t.online_len_ns);
	t0 = &t.threads[0];
	t1 = &t.threads[1];
	ck_assert_msg(t0->nv == 11 && t1->nv == 8, "nv %u %u", t0->nv, t1->nv);
	ck_assert_msg(cp_tvert_kind(&t0->v[0]) == CP_EV_THREAD_START,
		      "first kind %u", cp_tvert_kind(&t0->v[0]));
	/* t0: start 0, enter 5, create 15, rb 16, req 18, consume 27 (wait),
	 * publish 30, re 34, join 36 (wait), leave 37, exit 38 */
	ck_assert_msg(t0->v[2].ts == 15 && t0->v[5].ts == 27 &&
		      t0->v[10].ts == 38, "ts %" PRIu64 " %" PRIu64 " %" PRIu64,
		      t0->v[2].ts, t0->v[5].ts, t0->v[10].ts);
	ck_assert_msg(cp_tvert_waits(&t0->v[5]) && !cp_tvert_waits(&t0->v[4]),
		      "wait flags %d %d", cp_tvert_waits(&t0->v[5]),
		      cp_tvert_waits(&t0->v[4]));
	ck_assert_msg(t0->wall && t0->wall[10] == 38, "wall");
	ck_assert_msg(t0->v[5].obj == 1 && t0->a[5].arg == 1 &&
		      t0->a[5].cnt == 1, "consume %u %" PRIu64 " %u",
		      t0->v[5].obj, t0->a[5].arg, t0->a[5].cnt);
	ck_assert_msg(t1->a[2].arg == 0x400180, "enter addr 0x%" PRIx64,
		      t1->a[2].arg);
	ck_assert_msg(t1->parent == 0 && t1->create_v == 2 && t1->exit_v == 7,
		      "parent %u create %u exit %u", t1->parent, t1->create_v,
		      t1->exit_v);
	ck_assert_msg(t.nobjs == 2 && t.objs[1].kind == CP_OBJ_MUTEX &&
		      t.objs[1].npub == 2, "objs %u kind %u npub %u", t.nobjs,
		      t.objs[1].kind, t.objs[1].npub);
	pb = cp_trace_find_pub(&t, 1, 2, 1);
	ck_assert_msg(pb && pb->tid == 0 && pb->vi == 6, "pub 2 at %u/%u",
		      pb ? pb->tid : 99, pb ? pb->vi : 99);
	ck_assert_msg(!cp_trace_find_pub(&t, 1, 2, 2), "range past end found");
	ck_assert_msg(!strcmp(cp_trace_string(&t, 7), "phase1"), "string");
	ck_assert_msg(!strcmp(cp_trace_info(&t, "exe"), "synthetic"), "info");
	ck_assert_msg(t1->name && !strcmp(t1->name, "t1"), "thread name");
	cp_trace_free(&t);
	synth_free(&s);
}
END_TEST

START_TEST(test_trace_symbol_lookup)
{
	struct synth s;
	struct cp_trace t;
	char err[256] = "", buf[32];

	build_small(&s);
	synth_symbol(&s, 0x500000, 0, "nosize");
	ck_assert_msg(parse_synth(&s, &t, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(cp_trace_sym_name(&t, 0x400100, buf, sizeof(buf)),
			 "worker");
	ck_assert_str_eq(cp_trace_sym_name(&t, 0x400105, buf, sizeof(buf)),
			 "worker");
	ck_assert_str_eq(cp_trace_sym_name(&t, 0x500000, buf, sizeof(buf)),
			 "nosize");
	ck_assert_str_eq(cp_trace_sym_name(&t, 0x500001, buf, sizeof(buf)),
			 "0x500001");
	ck_assert_str_eq(cp_trace_sym_name(&t, 0x10, buf, sizeof(buf)),
			 "0x10");
	cp_trace_free(&t);
	synth_free(&s);
}
END_TEST

/*
 * Parse @buf/@len strictly and expect failure with @want in the message;
 * the salvaging parse must then refuse it too, or accept it saying that it
 * is partial or repaired (damage never passes in silence).
 */
static void expect_error(const uint8_t *buf, size_t len, const char *want)
{
	struct cp_trace t;
	char err[256] = "";
	int ret = cp_trace_parse_flags(&t, "bad.cpt", buf, len,
				       CP_TRACE_STRICT, err, sizeof(err));

	ck_assert_msg(ret == -1, "expected failure '%s', parse returned %d",
		      want, ret);
	ck_assert_msg(!strncmp(err, "bad.cpt: ", 9) && strstr(err, want),
		      "message '%s' lacks '%s'", err, want);
	ck_assert_msg(!strchr(err, '\n'), "message has a newline: '%s'", err);
	if (cp_trace_parse(&t, "bad.cpt", buf, len, err, sizeof(err)) == 0) {
		ck_assert_msg(t.partial || t.nrepairs,
			      "'%s' salvaged without a word", want);
		cp_trace_free(&t);
	}
}

/*
 * Strictly @want is an error; the salvaging parse repairs it: one repair
 * at least, the first one's message holding @say.  Returns the vertices
 * the salvaged trace kept.
 */
static uint64_t expect_repair(const uint8_t *buf, size_t len,
			      const char *want, const char *say)
{
	struct cp_trace t;
	char err[256] = "";
	uint64_t nv;

	expect_error(buf, len, want);
	ck_assert_msg(cp_trace_parse(&t, "bad.cpt", buf, len, err,
				     sizeof(err)) == 0,
		      "'%s' not salvaged: %s", want, err);
	ck_assert_msg(t.nrepairs >= 1 && strstr(t.repair_why, say),
		      "'%s': %" PRIu64 " repairs, first '%s'", want,
		      t.nrepairs, t.repair_why);
	ck_assert_msg(!t.partial, "'%s' taken as partial", want);
	nv = t.nvertices;
	cp_trace_free(&t);
	return nv;
}

/* Encode @s, expect_error on it, then free the buffer and @s. */
static void synth_expect_error(struct synth *s, const char *want)
{
	uint8_t *buf;
	size_t len = synth_encode(s, &buf);

	expect_error(buf, len, want);
	free(buf);
	synth_free(s);
}

/* Encode @s, expect_repair on it, then free the buffer and @s. */
static void synth_expect_repair(struct synth *s, const char *want,
				const char *say)
{
	uint8_t *buf;
	size_t len = synth_encode(s, &buf);

	expect_repair(buf, len, want, say);
	free(buf);
	synth_free(s);
}

/* Recompute the checksum of the block at @off after editing it. */
static void reseal(uint8_t *buf, size_t off)
{
	struct cp_block_header h;

	memcpy(&h, buf + off, sizeof(h));
	h.crc = cp_block_crc(&h, buf + off + sizeof(h));
	memcpy(buf + off, &h, sizeof(h));
}

START_TEST(test_trace_rejects_bad_header)
{
	struct synth s;
	uint8_t *buf;
	size_t len;

	build_small(&s);
	len = synth_encode(&s, &buf);
	expect_error(buf, 0, "empty file");
	expect_error(buf, 30, "truncated header");
	buf[0] = 'X';
	expect_error(buf, len, "bad magic");
	buf[0] = 'C';
	buf[8] = 9;
	expect_error(buf, len, "unsupported trace version 9");
	buf[8] = CP_TRACE_VERSION;
	buf[16] = 7;
	expect_error(buf, len, "unknown clock 7");
	buf[16] = 0;
	buf[20] = 0x10;
	expect_error(buf, len, "unknown header flags");
	buf[20] = 1;
	expect_error(buf, len - 1, "truncated");
	expect_error(buf, len - sizeof(struct cp_block_header) -
		     sizeof(struct cp_trace_end), "no END block");
	expect_error(buf, 64, "no END block");
	free(buf);
	synth_free(&s);
}
END_TEST

START_TEST(test_trace_rejects_bad_blocks)
{
	struct synth s;
	uint8_t *buf, *big;
	size_t len;

	build_small(&s);
	len = synth_encode(&s, &buf);
	big = malloc(len + 16);
	memcpy(big, buf, len);
	memset(big + len, 0, 16);
	expect_error(big, len + 16, "data after the END block");
	buf[64] ^= 0xff;
	expect_error(buf, len, "bad block magic");
	buf[64] ^= 0xff;
	/* first block's event count inflated: the checksum says so */
	buf[64 + 32 + 16] = 200;
	expect_error(buf, len, "block checksum mismatch");
	reseal(buf, 64);
	expect_error(buf, len, "events");
	free(big);
	free(buf);
	synth_free(&s);
}
END_TEST

START_TEST(test_trace_rejects_bad_references)
{
	struct synth s;

	/* CONSUME of a sequence nobody published */
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_consume(&s, 0, 1, true, 1, 5, 1);
	synth_exit(&s, 0, 1);
	synth_expect_repair(&s, "without a matching PUBLISH",
			     "without a matching PUBLISH");

	/* object never defined */
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_publish(&s, 0, 1, 3);
	synth_exit(&s, 0, 1);
	synth_expect_repair(&s, "undefined object 3", "undefined object 3");

	/* LEAVE without ENTER */
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_leave(&s, 0, 1);
	synth_exit(&s, 0, 1);
	synth_expect_repair(&s, "LEAVE without ENTER", "LEAVE without ENTER");

	/* REGION_END of a region not open, and of an undefined string */
	synth_init(&s);
	synth_string(&s, 1, "r");
	synth_start(&s, 0, -1);
	synth_region_end(&s, 0, 1, 1);
	synth_exit(&s, 0, 1);
	synth_expect_repair(&s, "not open", "not open");
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_region_begin(&s, 0, 1, 4);
	synth_exit(&s, 0, 1);
	synth_expect_repair(&s, "undefined string 4", "region names missing");

	/* JOIN of a thread that never exited */
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_create(&s, 0, 1, 1);
	synth_start(&s, 1, 0);
	synth_join(&s, 0, 1, true, 1);
	synth_exit(&s, 0, 1);
	synth_expect_repair(&s, "no THREAD_EXIT", "no THREAD_EXIT");

	/* a started thread its parent never created */
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_start(&s, 1, 0);
	synth_exit(&s, 1, 1);
	synth_exit(&s, 0, 1);
	synth_expect_repair(&s, "no THREAD_CREATE", "no THREAD_CREATE");

	/* a thread not starting with THREAD_START */
	synth_init(&s);
	synth_exit(&s, 0, 1);
	synth_expect_error(&s, "does not begin with THREAD_START");

	/* duplicate publish */
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_obj(&s, 0, CP_OBJ_SEM, 0);
	synth_vertex(&s, 0, CP_EV_PUBLISH, false, 1, 1, 1, 0);
	synth_vertex(&s, 0, CP_EV_PUBLISH, false, 1, 1, 1, 0);
	synth_exit(&s, 0, 1);
	synth_expect_repair(&s, "twice", "twice");

	/* a CONSUME range crossing a gap in sparse sequences */
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_obj(&s, 0, CP_OBJ_SEM, 0);
	synth_vertex(&s, 0, CP_EV_PUBLISH, false, 1, 1, 5, 0);
	synth_vertex(&s, 0, CP_EV_PUBLISH, false, 1, 1, 7, 0);
	synth_consume(&s, 0, 1, false, 1, 5, 2);
	synth_exit(&s, 0, 1);
	synth_expect_repair(&s, "without a matching PUBLISH",
			     "without a matching PUBLISH");

	/* unknown event kind */
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_vertex(&s, 0, 30, false, 1, 0, 0, 0);
	synth_expect_repair(&s, "unknown event kind", "unknown event kind");
}
END_TEST

/*
 * CP_EVF_SHARED: read on a CONSUME of an rwlock, kept in the vertex; an
 * error on any other event or object kind.
 */
START_TEST(test_trace_shared_flag)
{
	struct synth s;
	struct cp_trace t;
	char err[256] = "";
	uint32_t l, m;
	unsigned nshared = 0, nexcl = 0;

	synth_init(&s);
	synth_start(&s, 0, -1);
	l = synth_obj(&s, 0, CP_OBJ_RWLOCK, 0);
	synth_rdlock(&s, 0, 1, 0, l);
	synth_rwunlock(&s, 0, 1, l);
	synth_wrlock(&s, 0, 1, 0, l);
	synth_rwunlock(&s, 0, 1, l);
	synth_rdlock(&s, 0, 1, 5, l);
	synth_rwunlock(&s, 0, 1, l);
	synth_exit(&s, 0, 1);
	ck_assert_msg(parse_synth(&s, &t, err, sizeof(err)) == 0, "%s", err);
	for (uint32_t i = 0; i < t.threads[0].nv; i++) {
		const struct cp_tvert *v = &t.threads[0].v[i];
		const struct cp_targ *a = &t.threads[0].a[i];

		if (cp_tvert_kind(v) != CP_EV_CONSUME)
			continue;
		if (cp_tvert_shared(v))
			nshared++;
		else
			nexcl++;
		if (cp_tvert_shared(v) && a->cnt)
			ck_assert_msg(a->arg == 2 && a->cnt == 1 &&
				      cp_tvert_waits(v),
				      "second read consumes %" PRIu64 "+%"
				      PRIu32 ", wait %d; want 2+1, wait 1",
				      a->arg, a->cnt, cp_tvert_waits(v));
	}
	ck_assert_msg(nshared == 2 && nexcl == 1,
		      "%u shared and %u exclusive CONSUMEs; want 2 and 1",
		      nshared, nexcl);
	cp_trace_free(&t);
	synth_free(&s);

	/* on a mutex's CONSUME */
	synth_init(&s);
	synth_start(&s, 0, -1);
	m = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_vertex(&s, 0, CP_EV_CONSUME | CP_EVF_SHARED, false, 1, m, 0, 0);
	synth_exit(&s, 0, 1);
	synth_expect_error(&s, "SHARED CONSUME of object 1, a mutex");

	/* on a PUBLISH */
	synth_init(&s);
	synth_start(&s, 0, -1);
	l = synth_obj(&s, 0, CP_OBJ_RWLOCK, 0);
	synth_vertex(&s, 0, CP_EV_PUBLISH | CP_EVF_SHARED, false, 1, l, 1, 0);
	synth_exit(&s, 0, 1);
	synth_expect_error(&s, "not a CONSUME");

	/* on a metadata event */
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_meta(&s, 0, CP_EV_OBJ_DEF | CP_EVF_SHARED, 1, CP_OBJ_RWLOCK,
		   0, 0);
	synth_exit(&s, 0, 1);
	synth_expect_error(&s, "not a CONSUME");
}
END_TEST

/* Sequences need not be dense: ranges are found by sorting. */
START_TEST(test_trace_sparse_sequences)
{
	struct synth s;
	struct cp_trace t;
	const struct cp_trace_pub *pb;
	char err[256] = "";

	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_obj(&s, 0, CP_OBJ_SEM, 0);
	synth_create(&s, 0, 0, 1);
	synth_start(&s, 1, 0);
	synth_vertex(&s, 1, CP_EV_PUBLISH, false, 1, 1, 9, 0);
	synth_vertex(&s, 0, CP_EV_PUBLISH, false, 1, 1, 8, 0);
	synth_vertex(&s, 0, CP_EV_PUBLISH, false, 1, 1, 3, 0);
	synth_consume(&s, 0, 1, false, 1, 8, 2);
	synth_exit(&s, 0, 1);
	synth_exit(&s, 1, 1);
	ck_assert_msg(parse_synth(&s, &t, err, sizeof(err)) == 0, "%s", err);
	pb = cp_trace_find_pub(&t, 1, 8, 2);
	ck_assert_msg(pb && pb[0].seq == 8 && pb[0].tid == 0 &&
		      pb[1].seq == 9 && pb[1].tid == 1, "range 8..9 not found");
	ck_assert_msg(cp_trace_find_pub(&t, 1, 3, 1) &&
		      !cp_trace_find_pub(&t, 1, 3, 2) &&
		      !cp_trace_find_pub(&t, 1, 4, 1), "sparse lookups");
	cp_trace_free(&t);
	synth_free(&s);
}
END_TEST

START_TEST(test_trace_rejects_count_mismatch)
{
	struct synth s;
	uint8_t *buf;
	size_t len;

	build_small(&s);
	len = synth_encode(&s, &buf);
	/* END payload: nevents is its first u64 */
	buf[len - 24] ^= 1;
	reseal(buf, len - 24 - sizeof(struct cp_block_header));
	expect_error(buf, len, "END block counts");
	free(buf);
	synth_free(&s);
}
END_TEST

/*
 * Random corruption and truncation of a valid trace: every outcome is 0 or
 * -1 with a one-line message naming the file; never a crash.
 */
START_TEST(test_trace_fuzz_never_crashes)
{
	struct synth s;
	uint8_t *buf, *copy;
	size_t len;
	unsigned seed = 12345, fails = 0, oks = 0, salvaged = 0;

	build_small(&s);
	len = synth_encode(&s, &buf);
	copy = malloc(len);
	for (int iter = 0; iter < 20000; iter++) {
		struct cp_trace t;
		char err[256] = "";
		size_t n = len;
		int flips = 1 + rand_r(&seed) % 4;

		memcpy(copy, buf, len);
		for (int f = 0; f < flips; f++) {
			size_t at = (size_t)rand_r(&seed) % len;

			if (rand_r(&seed) % 2)
				copy[at] ^= (uint8_t)(1u <<
						      (rand_r(&seed) % 8));
			else
				copy[at] = (uint8_t)rand_r(&seed);
		}
		if (rand_r(&seed) % 4 == 0)
			n = (size_t)rand_r(&seed) % len;
		if (cp_trace_parse_flags(&t, "fz.cpt", copy, n,
					 CP_TRACE_STRICT, err, sizeof(err))) {
			ck_assert_msg(!strncmp(err, "fz.cpt: ", 8) &&
				      !strchr(err, '\n'),
				      "bad message '%s'", err);
			fails++;
		} else {
			cp_trace_free(&t);
			oks++;
		}
		if (cp_trace_parse(&t, "fz.cpt", copy, n, err, sizeof(err))) {
			ck_assert_msg(!strncmp(err, "fz.cpt: ", 8) &&
				      !strchr(err, '\n'),
				      "bad message '%s'", err);
		} else {
			ck_assert_msg(!strchr(t.partial_why, '\n') &&
				      !strchr(t.repair_why, '\n'),
				      "bad warning '%s' '%s'", t.partial_why,
				      t.repair_why);
			cp_trace_free(&t);
			salvaged++;
		}
	}
	ck_assert_msg(fails > 10000, "only %u of %u corrupt traces refused",
		      fails, fails + oks);
	ck_assert_msg(salvaged > oks, "salvage read %u, strict %u", salvaged,
		      oks);
	free(copy);
	free(buf);
	synth_free(&s);
}
END_TEST

/*
 * The event decoder's two paths: an event far from its block's end is
 * read without bound checks (the one- and two-byte values without a
 * loop), one near it with them.  Random events, well formed or not
 * (every op byte, values of 1 to 11 bytes, random bytes), decode the
 * same way on both: the same outcome, reason, length and fields; and
 * well-formed events give back the values that were encoded.
 */
START_TEST(test_trace_event_paths_agree)
{
	unsigned seed = 4242;
	uint8_t buf[2 * CP_TRD_EV_MAX];
	unsigned ok = 0, bad = 0, consumes = 0;

	for (int iter = 0; iter < 200000; iter++) {
		struct cp_trd_ev fe, ce;
		const uint8_t *fp = buf, *cp = buf;
		const char *fw, *cw;
		bool hasw = rand_r(&seed) % 4 != 0;
		uint64_t val[5] = { 0 };
		size_t n = 1;

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)rand_r(&seed);
		if (rand_r(&seed) % 8) {
			/* an event of a vertex kind, mostly well formed */
			buf[0] = (uint8_t)(rand_r(&seed) % (CP_EV_SAMPLE + 1));
			if (buf[0] == CP_EV_CONSUME && rand_r(&seed) % 2)
				buf[0] |= CP_EVF_SHARED;
			if (rand_r(&seed) % 2)
				buf[0] |= CP_EVF_WAIT;
			for (int v = 0; v < 5; v++) {
				int bits = rand_r(&seed) % 65;

				val[v] = bits ? ((uint64_t)rand_r(&seed) << 33 ^
						 (uint64_t)rand_r(&seed) << 11 ^
						 (uint64_t)rand_r(&seed)) >>
						(64 - bits) : 0;
				if (rand_r(&seed) % 64 == 0) {
					/* too long: 11 bytes */
					memset(buf + n, 0x80, 10);
					buf[n + 10] = 0;
					n += 11;
				} else {
					n = (size_t)(cp_uv_put(buf + n, val[v]) -
						     buf);
				}
			}
		}
		if (n >= CP_TRD_EV_MAX)
			continue;	/* five 10-byte values: no room left */
		fw = cp_trd_decode_event(&fp, buf + sizeof(buf), hasw, &fe);
		/* the same bytes ending where the event does (random bytes:
		 * just short of the unchecked path's room) */
		cw = cp_trd_decode_event(&cp, buf + (n > 1 ? n :
						     CP_TRD_EV_MAX - 1),
					 hasw, &ce);
		ck_assert_msg((fw == NULL) == (cw == NULL) &&
			      (!fw || !strcmp(fw, cw)),
			      "iter %d: '%s' against '%s'", iter,
			      fw ? fw : "ok", cw ? cw : "ok");
		if (fw) {
			bad++;
			continue;
		}
		ok++;
		ck_assert_int_eq(fp - buf, cp - buf);
		ck_assert_int_eq(fe.op, ce.op);
		ck_assert(fe.dt == ce.dt && fe.dwall == ce.dwall &&
			  fe.a == ce.a && fe.b == ce.b && fe.c == ce.c);
		if ((fe.op & CP_EV_KIND_MASK) == CP_EV_ENTER)
			ck_assert(fe.sv == ce.sv);
		/* a CONSUME with wall times reads all five values written */
		if (n > 1 && hasw &&
		    (fe.op & CP_EV_KIND_MASK) == CP_EV_CONSUME) {
			ck_assert_int_eq(fp - buf, n);
			ck_assert(fe.dt == val[0] && fe.dwall == val[1] &&
				  fe.a == val[2] && fe.b == val[3] &&
				  fe.c == val[4]);
			consumes++;
		}
	}
	ck_assert_msg(ok > 50000 && bad > 10000 && consumes > 1000,
		      "%u decoded (%u CONSUMEs checked), %u refused", ok,
		      consumes, bad);
}
END_TEST

/* The outcome of parsing @buf (@n bytes) with @flags as a string of
 * everything the reader decided, for comparing two parses. */
static char *parse_outcome(const uint8_t *buf, size_t n, unsigned flags)
{
	struct cp_trace t;
	char err[256] = "", *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (cp_trace_parse_flags(&t, "two.cpt", buf, n, flags, err,
				 sizeof(err))) {
		fprintf(f, "error %s\n", err);
		fclose(f);
		return out;
	}
	fprintf(f, "partial %d '%s' repairs %" PRIu64 " '%s' v %" PRIu64
		" pub %" PRIu64 "\n", t.partial, t.partial_why, t.nrepairs,
		t.repair_why, t.nvertices, t.npub);
	for (uint32_t tid = 0; tid < t.nthreads; tid++) {
		const struct cp_trace_thread *th = &t.threads[tid];

		fprintf(f, "T%u nv %u parent %u create %u exit %u\n", tid,
			th->nv, th->parent, th->create_v, th->exit_v);
		for (uint32_t i = 0; i < th->nv; i++)
			fprintf(f, " %u/%u/%" PRIu64 "/%" PRIu64 "/%u",
				th->v[i].op, th->v[i].obj, th->v[i].ts,
				th->a[i].arg, th->a[i].cnt);
		fputc('\n', f);
	}
	for (uint32_t o = 0; o < t.nobjs; o++)
		fprintf(f, "O%u %u %u\n", o, t.objs[o].npub,
			t.objs[o].pub_off);
	cp_trace_free(&t);
	fclose(f);
	return out;
}

/*
 * The reader's speculative workers (decoding, and the checks of each
 * thread's uses, CONSUMEs and nesting) on both cores decide exactly what
 * one thread does, on damaged copies of a two-thread trace: the same
 * vertices, links, publish counts, repairs and messages, salvaging and
 * strict.  Many copies need a repair, so the workers stop and the passes
 * run again serially.
 */
START_TEST(test_trace_both_cores_agree)
{
	struct synth s;
	uint8_t *buf, *copy;
	size_t len, old = cp_par_set_threshold(SIZE_MAX);
	unsigned seed = 777, repaired = 0;

	build_small(&s);
	len = synth_encode(&s, &buf);
	copy = malloc(len);
	for (int iter = 0; iter < 3000; iter++) {
		size_t n = len;

		memcpy(copy, buf, len);
		for (int f = iter % 3; f > 0; f--)
			copy[(size_t)rand_r(&seed) % len] =
				(uint8_t)rand_r(&seed);
		if (iter % 5 == 4)
			n = (size_t)rand_r(&seed) % len;
		for (unsigned flags = 0; flags <= CP_TRACE_STRICT;
		     flags += CP_TRACE_STRICT) {
			char *one, *two;

			cp_par_set_threshold(SIZE_MAX);
			one = parse_outcome(copy, n, flags);
			cp_par_set_threshold(0);
			two = parse_outcome(copy, n, flags);
			ck_assert_msg(!strcmp(one, two), "copy %d flags %u: "
				      "one core\n%s\nboth\n%s", iter, flags,
				      one, two);
			repaired += !flags && strstr(one, "repairs 0") == NULL;
			free(one);
			free(two);
		}
	}
	ck_assert_msg(repaired > 100, "only %u copies repaired", repaired);
	cp_par_set_threshold(old);
	free(copy);
	free(buf);
	synth_free(&s);
}
END_TEST

/* Offset of the @k-th EVENTS block of thread @tid in @buf, or 0. */
static size_t events_block(const uint8_t *buf, size_t len, uint32_t tid,
			   unsigned k)
{
	size_t off = CP_TRACE_HEADER_SIZE;

	while (off + sizeof(struct cp_block_header) <= len) {
		struct cp_block_header h;

		memcpy(&h, buf + off, sizeof(h));
		if (h.type == CP_BLOCK_EVENTS && h.tid == tid && k-- == 0)
			return off;
		off += sizeof(h) + h.size;
	}
	return 0;
}

/*
 * A damaged block in the middle: it is skipped, the blocks after it are
 * read, and its thread ends before the gap (its later blocks cannot be
 * placed); the other thread is whole.  Thread 0's first block holds
 * START, ENTER and the mutex's OBJ_DEF: two vertices.
 */
START_TEST(test_trace_salvage_damaged_block)
{
	struct synth s;
	struct cp_trace whole, t;
	char err[256] = "";
	uint8_t *buf;
	size_t len, off;

	build_small(&s);
	len = synth_encode(&s, &buf);
	ck_assert(cp_trace_parse(&whole, "ok.cpt", buf, len, err,
				 sizeof(err)) == 0);
	off = events_block(buf, len, 0, 1);
	ck_assert_msg(off && events_block(buf, len, 0, 2), "layout");
	buf[off + sizeof(struct cp_block_header) + 30] ^= 0x40;
	expect_error(buf, len, "block checksum mismatch");
	ck_assert_msg(cp_trace_parse(&t, "bad.cpt", buf, len, err,
				     sizeof(err)) == 0, "%s", err);
	ck_assert_msg(!t.partial && t.nrepairs >= 2 &&
		      strstr(t.repair_why, "block checksum mismatch"),
		      "%" PRIu64 " repairs: %s", t.nrepairs, t.repair_why);
	ck_assert_msg(t.threads[0].nv == 2, "thread 0 kept %" PRIu32
		      " vertices", t.threads[0].nv);
	ck_assert_msg(t.threads[1].nv == whole.threads[1].nv,
		      "thread 1: %" PRIu32 " of %" PRIu32 " vertices",
		      t.threads[1].nv, whole.threads[1].nv);
	cp_trace_free(&t);
	cp_trace_free(&whole);
	free(buf);
	synth_free(&s);
}
END_TEST

/*
 * Every cut of a trace reads as a partial trace with the events of the
 * blocks before the cut (none are lost but the cut block), or fails with
 * one line when nothing is left; the END block cut off leaves them all.
 */
START_TEST(test_trace_salvage_every_cut)
{
	struct synth s;
	struct cp_trace t;
	char err[256];
	uint8_t *buf;
	size_t len;
	uint64_t prev = 0;

	build_small(&s);
	len = synth_encode(&s, &buf);
	for (size_t n = CP_TRACE_HEADER_SIZE; n < len; n++) {
		if (cp_trace_parse(&t, "cut.cpt", buf, n, err, sizeof(err))) {
			ck_assert_msg(!strncmp(err, "cut.cpt: ", 9) &&
				      !strchr(err, '\n'), "cut %zu: %s", n,
				      err);
			continue;
		}
		ck_assert_msg(t.partial, "cut at %zu of %zu not partial", n,
			      len);
		ck_assert_msg(t.nvertices >= prev, "cut %zu: %" PRIu64
			      " vertices after %" PRIu64, n, t.nvertices,
			      prev);
		prev = t.nvertices;
		cp_trace_free(&t);
	}
	ck_assert_msg(prev == 19, "all blocks but END: %" PRIu64
		      " vertices", prev);
	free(buf);
	synth_free(&s);
}
END_TEST

/*
 * Version 1 files (16-byte block headers, no checksum, no numbering) are
 * still read: the synthetic trace rewritten in that layout reads the same.
 */
/*
 * Sites: a SITE_STACKS record gives the object its site and up to
 * CP_SITE_DEPTH - 1 callers (frames past them dropped), a SITES pair a
 * site alone; an object's first record wins; a record whose frame count
 * runs past its block is a repair, not a failure.
 */
START_TEST(test_trace_site_stacks)
{
	struct synth s;
	struct cp_trace t;
	char err[256] = "";
	uint8_t stacks[64], *p = stacks, pairs[8], bad[4];
	uint32_t m1, m2;
	const struct cp_site *a, *b;

	synth_init(&s);
	synth_start(&s, 0, -1);
	m1 = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	m2 = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	synth_lock(&s, 0, 1, 0, m1);
	synth_unlock(&s, 0, 1, m1);
	synth_lock(&s, 0, 1, 0, m2);
	synth_unlock(&s, 0, 1, m2);
	synth_exit(&s, 0, 1);
	/* m1: six frames 0x10..0x60; then one more record of m1 */
	*p++ = (uint8_t)m1;
	*p++ = 6;
	for (uint8_t k = 1; k <= 6; k++)
		*p++ = (uint8_t)(0x10 * k);
	*p++ = (uint8_t)m1;
	*p++ = 1;
	*p++ = 0x77;
	synth_raw_block(&s, CP_BLOCK_SITE_STACKS, 0, stacks,
			(size_t)(p - stacks));
	pairs[0] = (uint8_t)m2;
	pairs[1] = 0x70;
	synth_raw_block(&s, CP_BLOCK_SITES, 0, pairs, 2);
	bad[0] = (uint8_t)m2;	/* 100 frames in two bytes */
	bad[1] = 100;
	bad[2] = 0x11;
	bad[3] = 0x22;
	synth_raw_block(&s, CP_BLOCK_SITE_STACKS, 0, bad, sizeof(bad));
	ck_assert_msg(parse_synth(&s, &t, err, sizeof(err)) == 0, "%s", err);
	a = &t.objs[m1].site;
	b = &t.objs[m2].site;
	ck_assert_msg(a->pc == 0x10 && a->ncallers == CP_SITE_DEPTH - 1,
		      "m1: pc %#" PRIx64 ", %" PRIu32 " callers", a->pc,
		      a->ncallers);
	for (uint32_t k = 0; k < a->ncallers; k++)
		ck_assert_uint_eq(a->callers[k].pc, 0x10 * (k + 2));
	ck_assert_msg(b->pc == 0x70 && !b->ncallers,
		      "m2: pc %#" PRIx64 ", %" PRIu32 " callers", b->pc,
		      b->ncallers);
	ck_assert_msg(t.nrepairs == 1, "%" PRIu64 " repairs, want 1",
		      t.nrepairs);
	cp_trace_free(&t);
	synth_free(&s);
}
END_TEST

/*
 * Sites of one stack are kept once: objects first used at the same code
 * address through the same calls share one array of callers; the same
 * address through other calls, or through none, is a stack of its own.
 */
START_TEST(test_trace_site_stacks_shared)
{
	static const uint8_t frames[4][4] = {
		{ 0x10, 0x20, 0x30 }, { 0x10, 0x20, 0x30 },
		{ 0x10, 0x20, 0x31 }, { 0x10 },
	};
	static const uint8_t nframes[4] = { 3, 3, 3, 1 };
	struct synth s;
	struct cp_trace t;
	char err[256] = "";
	uint8_t stacks[64], *p = stacks;
	uint32_t m[4];
	const struct cp_site *site[4];

	synth_init(&s);
	synth_start(&s, 0, -1);
	for (int i = 0; i < 4; i++)
		m[i] = synth_obj(&s, 0, CP_OBJ_MUTEX, 0);
	for (int i = 0; i < 4; i++) {
		synth_lock(&s, 0, 1, 0, m[i]);
		synth_unlock(&s, 0, 1, m[i]);
	}
	synth_exit(&s, 0, 1);
	for (int i = 0; i < 4; i++) {
		*p++ = (uint8_t)m[i];
		*p++ = nframes[i];
		for (int k = 0; k < nframes[i]; k++)
			*p++ = frames[i][k];
	}
	synth_raw_block(&s, CP_BLOCK_SITE_STACKS, 0, stacks,
			(size_t)(p - stacks));
	ck_assert_msg(parse_synth(&s, &t, err, sizeof(err)) == 0, "%s", err);
	for (int i = 0; i < 4; i++) {
		site[i] = &t.objs[m[i]].site;
		ck_assert_msg(site[i]->pc == 0x10 &&
			      site[i]->ncallers == nframes[i] - 1u,
			      "object %d: pc %#" PRIx64 ", %" PRIu32
			      " callers", i, site[i]->pc, site[i]->ncallers);
		for (uint32_t k = 0; k < site[i]->ncallers; k++)
			ck_assert_uint_eq(site[i]->callers[k].pc,
					  frames[i][k + 1]);
	}
	ck_assert_ptr_eq(site[0]->callers, site[1]->callers);
	ck_assert_ptr_ne(site[0]->callers, site[2]->callers);
	ck_assert_ptr_null(site[3]->callers);
	cp_trace_free(&t);
	synth_free(&s);
}
END_TEST

START_TEST(test_trace_reads_version_1)
{
	struct synth s;
	struct cp_trace t;
	char err[256] = "";
	uint8_t *buf, *v1;
	size_t len, off = CP_TRACE_HEADER_SIZE, n = CP_TRACE_HEADER_SIZE;
	uint32_t one = 1;

	build_small(&s);
	len = synth_encode(&s, &buf);
	v1 = malloc(len);
	memcpy(v1, buf, CP_TRACE_HEADER_SIZE);
	memcpy(v1 + 8, &one, 4);
	while (off < len) {
		struct cp_block_header h;

		memcpy(&h, buf + off, sizeof(h));
		memcpy(v1 + n, &h, CP_BLOCK_HEADER_V1_SIZE);
		memcpy(v1 + n + CP_BLOCK_HEADER_V1_SIZE, buf + off + sizeof(h),
		       h.size);
		n += CP_BLOCK_HEADER_V1_SIZE + h.size;
		off += sizeof(h) + h.size;
	}
	ck_assert_msg(cp_trace_parse_flags(&t, "v1.cpt", v1, n,
					   CP_TRACE_STRICT, err,
					   sizeof(err)) == 0, "%s", err);
	ck_assert_msg(t.nvertices == 19 && t.online_len_ns == 42 &&
		      !t.partial && !t.nrepairs, "v1: %" PRIu64 " vertices",
		      t.nvertices);
	cp_trace_free(&t);
	/* cut short, it is partial too (no checksum to resync with) */
	ck_assert_msg(cp_trace_parse(&t, "v1.cpt", v1, n - 5, err,
				     sizeof(err)) == 0 && t.partial &&
		      t.nvertices == 19, "v1 cut: %s", err);
	cp_trace_free(&t);
	free(v1);
	free(buf);
	synth_free(&s);
}
END_TEST

START_TEST(test_trace_read_file_errors)
{
	struct cp_trace t;
	char err[256] = "", path[] = "/tmp/cpt_trace_XXXXXX";
	struct synth s;
	int fd;

	ck_assert_msg(cp_trace_read(&t, "/nonexistent/x.cpt", err,
				    sizeof(err)) == -1, "read of missing file");
	ck_assert_msg(strstr(err, "/nonexistent/x.cpt: "), "msg '%s'", err);
	fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp");
	close(fd);
	ck_assert_msg(cp_trace_read(&t, path, err, sizeof(err)) == -1,
		      "empty file accepted");
	ck_assert_msg(strstr(err, "empty file"), "msg '%s'", err);
	build_small(&s);
	ck_assert_msg(synth_write(&s, path) == 0, "write");
	ck_assert_msg(cp_trace_is_trace(path), "magic not seen");
	ck_assert_msg(cp_trace_read(&t, path, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_msg(t.nvertices == 19, "nvertices %" PRIu64, t.nvertices);
	cp_trace_free(&t);
	synth_free(&s);
	unlink(path);
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("reader");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_trace_reads_valid);
	tcase_add_test(tc, test_trace_symbol_lookup);
	tcase_add_test(tc, test_trace_rejects_bad_header);
	tcase_add_test(tc, test_trace_rejects_bad_blocks);
	tcase_add_test(tc, test_trace_rejects_bad_references);
	tcase_add_test(tc, test_trace_shared_flag);
	tcase_add_test(tc, test_trace_sparse_sequences);
	tcase_add_test(tc, test_trace_rejects_count_mismatch);
	tcase_add_test(tc, test_trace_fuzz_never_crashes);
	tcase_add_test(tc, test_trace_event_paths_agree);
	tcase_add_test(tc, test_trace_both_cores_agree);
	tcase_add_test(tc, test_trace_read_file_errors);
	tcase_add_test(tc, test_trace_salvage_damaged_block);
	tcase_add_test(tc, test_trace_site_stacks);
	tcase_add_test(tc, test_trace_site_stacks_shared);
	tcase_add_test(tc, test_trace_reads_version_1);
	tcase_add_test(tc, test_trace_salvage_every_cut);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
