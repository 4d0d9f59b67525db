/*
 * check_helpers.c - the analyzer's one-home helpers, each checked against
 * values worked out by hand: the nanosecond and percent formatters, the
 * JSON string escaper shared by the emitter and the exporters, the one
 * order of synchronization objects, and which objects are locks.
 */
#include <check.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_emit.h"
#include "cp_grow.h"
#include "cp_out.h"
#include "cp_profile.h"
#include "cp_wbuf.h"

START_TEST(test_helpers_fmt_ns_units)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} cases[] = {
		{ 0, "0 ns" },
		{ 999, "999 ns" },
		{ 1500, "1.50 us" },
		{ 999994, "999.99 us" },
		{ 12300000, "12.30 ms" },
		{ 1234000000, "1.234 s" },
	};
	char b[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(!strcmp(cp_fmt_ns(b, sizeof(b), cases[i].ns),
				      cases[i].want),
			      "%llu ns: '%s', want '%s'",
			      (unsigned long long)cases[i].ns, b,
			      cases[i].want);
	ck_assert_msg(!strcmp(cp_fmt_ns_as(b, sizeof(b), 1500, "µs"),
			      "1.50 µs"), "HTML unit: '%s'", b);
	ck_assert_msg(!strcmp(cp_fmt_ns_as(b, sizeof(b), 2500000, "µs"),
			      "2.50 ms"), "ms keeps its unit: '%s'", b);
	ck_assert_msg(!strcmp(cp_fmt_pct(b, sizeof(b), 12.5), "12.5%"),
		      "pct: '%s'", b);
	ck_assert_msg(!strcmp(cp_fmt_pct(b, sizeof(b), 100), "100.0%"),
		      "pct: '%s'", b);
}
END_TEST

START_TEST(test_helpers_json_escape_table)
{
	static const struct {
		unsigned char c;
		bool html;
		const char *want;	/* NULL: goes as it is */
	} cases[] = {
		{ '"', false, "\\\"" },   { '\\', false, "\\\\" },
		{ '\n', false, "\\n" },   { '\t', false, "\\t" },
		{ '\r', false, "\\r" },   { 0x01, false, "\\u0001" },
		{ 0x1f, true, "\\u001f" }, { '<', true, "\\u003c" },
		{ '<', false, NULL },     { 'a', true, NULL },
		{ 0x7f, true, NULL },     { 0xc3, false, NULL },
	};
	char esc[6];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = cp_emit_escape(cases[i].c, cases[i].html, esc);
		size_t want = cases[i].want ? strlen(cases[i].want) : 0;

		ck_assert_msg(n == want && (!n || !memcmp(esc, cases[i].want,
							  n)),
			      "byte 0x%02x html %d: %zu bytes '%.*s', want "
			      "'%s'", cases[i].c, cases[i].html, n, (int)n,
			      esc, cases[i].want ? cases[i].want : "");
	}
}
END_TEST

/* The exporters' quoting goes through the same table, '<' included. */
START_TEST(test_helpers_json_quote_uses_table)
{
	char *q = cp_json_quote("a<\"b\r\x02");

	ck_assert_ptr_nonnull(q);
	ck_assert_msg(!strcmp(q, "\"a\\u003c\\\"b\\r\\u0002\""), "quoted: %s",
		      q);
	free(q);
}
END_TEST

/*
 * JSON text is UTF-8, and the strings going into it are bytes a program
 * chose (thread names, symbols): valid sequences pass as they are, each
 * byte of an invalid one becomes U+FFFD, in both writers (the emitter's
 * and the exporters' quoting).  A thread named "bad\xff\xfe" once made
 * the runtime's report and the Chrome export unreadable.
 */
static void emit_mem(void *ctx, const char *buf, size_t len)
{
	fwrite(buf, 1, len, ctx);
}

START_TEST(test_helpers_json_utf8)
{
	static const struct {
		const char *s;
		size_t want;
	} lens[] = {
		{ "a", 1 }, { "\xc3\xa9", 2 }, { "\xe2\x82\xac", 3 },
		{ "\xf0\x9f\x98\x80", 4 }, { "\xc3", 0 }, { "\x80", 0 },
		{ "\xc0\xaf", 0 }, { "\xe0\x80\xaf", 0 }, { "\xed\xa0\x80", 0 },
		{ "\xf4\x90\x80\x80", 0 }, { "\xff", 0 }, { "\xe2\x82", 0 },
	};
	const char *in = "\xc3\xa9\xe2\x82\xac\xff\xfe\x01<\xe2\x82";
	const char *want = "\"\xc3\xa9\xe2\x82\xac\\ufffd\\ufffd\\u0001"
			   "\\u003c\\ufffd\\ufffd\"";
	char *q, *buf = NULL;
	size_t len = 0;
	struct cp_emit e;
	FILE *m;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		ck_assert_msg(cp_emit_utf8_len((const unsigned char *)
					       lens[i].s) == lens[i].want,
			      "case %zu: %zu, want %zu", i,
			      cp_emit_utf8_len((const unsigned char *)
					       lens[i].s), lens[i].want);
	q = cp_json_quote(in);
	ck_assert_ptr_nonnull(q);
	ck_assert_msg(!strcmp(q, want), "quoted: %s", q);
	free(q);
	m = open_memstream(&buf, &len);
	cp_emit_init(&e, emit_mem, m, false);
	cp_emit_arr_begin(&e, NULL);
	cp_emit_str(&e, NULL, in);
	cp_emit_arr_end(&e);
	cp_emit_end(&e);
	fclose(m);
	/* the emitter leaves '<' alone (no HTML around it) */
	ck_assert_msg(!strcmp(buf, "[\"\xc3\xa9\xe2\x82\xac\\ufffd\\ufffd"
			      "\\u0001<\\ufffd\\ufffd\"]\n"), "emitted: %s", buf);
	free(buf);
}
END_TEST

/* The value the next test writes, at @e's place: an object with a
 * string that needs escapes, the least and greatest numbers, a null and
 * an array of an object and an empty array. */
static void some_value(struct cp_emit *e, const char *key)
{
	cp_emit_obj_begin(e, key);
	cp_emit_str(e, "name", "a \"b\"\n\xc3\xa9");
	cp_emit_u64(e, "zero", 0);
	cp_emit_u64(e, "max", UINT64_MAX);
	cp_emit_i64(e, "neg", INT64_MIN);
	cp_emit_null(e, "none");
	cp_emit_arr_begin(e, "list");
	cp_emit_obj_begin(e, NULL);
	cp_emit_u64(e, "line", 42);
	cp_emit_obj_end(e);
	cp_emit_arr_begin(e, NULL);
	cp_emit_arr_end(e);
	cp_emit_arr_end(e);
	cp_emit_obj_end(e);
}

/* A document with some_value() at depths 1, 2 and 3, in an object and in
 * an array; @once: each written once by cp_emit_init_value() at its first
 * place and copied by cp_emit_raw() to the places of the same depth. */
static char *some_document(bool pretty, bool once)
{
	char *buf = NULL, *val[4] = { NULL };
	size_t len = 0, vlen[4] = { 0 };
	struct cp_emit e;
	FILE *m = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(m);
	cp_emit_init(&e, emit_mem, m, pretty);
	cp_emit_obj_begin(&e, NULL);
	for (int round = 0; round < 2; round++) {
		/* depth 1, in the top object */
		if (!once) {
			some_value(&e, "v");
		} else {
			if (!val[1]) {
				struct cp_emit v;
				FILE *f = open_memstream(&val[1], &vlen[1]);

				cp_emit_init_value(&v, emit_mem, f, &e);
				some_value(&v, "ignored");
				fclose(f);
			}
			cp_emit_raw(&e, "v", val[1], vlen[1]);
		}
		/* depth 2 in an array, depth 3 in an object in it */
		cp_emit_arr_begin(&e, "a");
		for (int d = 2; d <= 3; d++) {
			if (d == 3)
				cp_emit_obj_begin(&e, NULL);
			if (!once) {
				some_value(&e, "w");
			} else {
				if (!val[d]) {
					struct cp_emit v;
					FILE *f = open_memstream(&val[d],
								 &vlen[d]);

					cp_emit_init_value(&v, emit_mem, f,
							   &e);
					some_value(&v, NULL);
					fclose(f);
				}
				cp_emit_raw(&e, "w", val[d], vlen[d]);
			}
			if (d == 3)
				cp_emit_obj_end(&e);
		}
		cp_emit_arr_end(&e);
	}
	cp_emit_obj_end(&e);
	cp_emit_end(&e);
	fclose(m);
	for (int d = 0; d < 4; d++)
		free(val[d]);
	return buf;
}

/* A value written once and copied reads as the value written in place
 * each time, byte for byte, indented or not; the numbers are exact. */
START_TEST(test_helpers_json_value_written_once)
{
	for (int pretty = 0; pretty < 2; pretty++) {
		char *direct = some_document(pretty, false);
		char *once = some_document(pretty, true);

		ck_assert_msg(!strcmp(direct, once),
			      "pretty %d: in place\n%s\ncopied\n%s", pretty,
			      direct, once);
		ck_assert_msg(strstr(direct, "18446744073709551615") &&
			      strstr(direct, "-9223372036854775808") &&
			      strstr(direct, pretty ? "\"zero\": 0," :
					     "\"zero\":0,") &&
			      strstr(direct, "\"a \\\"b\\\"\\n\xc3\xa9\""),
			      "pretty %d: %s", pretty, direct);
		free(direct);
		free(once);
	}
}
END_TEST

/*
 * Five objects: #1 and #2 tie on CP held + gain (30) and #2 crosses the
 * path more often; #3 and #4 tie on that and on crossings, #4 waited
 * longer; #5 ties #3 on everything but its id.  Order: 2 1 4 3 5.
 */
START_TEST(test_helpers_object_order)
{
	struct cp_obj_prof o[5] = {
		{ .obj = 1, .cp_held_ns = 10, .gain_ns = 20, .cp_cross = 1 },
		{ .obj = 2, .cp_held_ns = 30, .gain_ns = 0, .cp_cross = 2 },
		{ .obj = 3, .cp_held_ns = 5, .cp_cross = 1, .wait_ns = 7 },
		{ .obj = 4, .gain_ns = 5, .cp_cross = 1, .wait_ns = 9 },
		{ .obj = 5, .cp_held_ns = 5, .cp_cross = 1, .wait_ns = 7 },
	};
	static const uint32_t want[5] = { 2, 1, 4, 3, 5 };
	/* insertion sort by the comparison, from the reverse order */
	const struct cp_obj_prof *v[5] = { &o[4], &o[3], &o[2], &o[1],
					   &o[0] };

	for (int i = 1; i < 5; i++)
		for (int j = i; j > 0 &&
		     cp_profile_obj_cmp(v[j - 1], v[j]) > 0; j--) {
			const struct cp_obj_prof *t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (int i = 0; i < 5; i++)
		ck_assert_msg(v[i]->obj == want[i],
			      "position %d: object %u, want %u", i, v[i]->obj,
			      want[i]);
	ck_assert_msg(cp_profile_obj_cmp(&o[2], &o[2]) == 0,
		      "an object equals itself");
}
END_TEST

START_TEST(test_helpers_is_lock)
{
	for (unsigned k = 0; k <= CP_OBJ_KIND_MAX; k++) {
		bool want = k == CP_OBJ_MUTEX || k == CP_OBJ_SPIN ||
			    k == CP_OBJ_RWLOCK;

		ck_assert_msg(cp_profile_is_lock(k) == want,
			      "%s: lock %d, want %d", cp_obj_kind_name(k),
			      cp_profile_is_lock(k), want);
	}
}
END_TEST

/* cp_grow: room doubles from 64, contents kept; overflow refused. */
START_TEST(test_helpers_grow)
{
	uint32_t *a = NULL, cap32 = 0;
	uint64_t *b = NULL, cap = 0;

	ck_assert_int_eq(cp_grow32((void **)&a, sizeof(*a), &cap32, 0), 0);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(cp_grow32((void **)&a, sizeof(*a), &cap32, 1), 0);
	ck_assert_uint_eq(cap32, 64);
	for (uint32_t i = 0; i < 64; i++)
		a[i] = i * 3;
	ck_assert_int_eq(cp_grow32((void **)&a, sizeof(*a), &cap32, 64), 0);
	ck_assert_uint_eq(cap32, 64);
	ck_assert_int_eq(cp_grow32((void **)&a, sizeof(*a), &cap32, 300), 0);
	ck_assert_uint_eq(cap32, 512);
	for (uint32_t i = 0; i < 64; i++)
		ck_assert_uint_eq(a[i], i * 3);
	/* over a 32-bit room: refused, the array and its room unchanged */
	ck_assert_int_eq(cp_grow32((void **)&a, sizeof(*a), &cap32,
				   (uint64_t)UINT32_MAX + 1), -1);
	ck_assert_uint_eq(cap32, 512);
	ck_assert_uint_eq(a[63], 189);
	free(a);

	ck_assert_int_eq(cp_grow((void **)&b, sizeof(*b), &cap, 65), 0);
	ck_assert_uint_eq(cap, 128);
	b[127] = 7;
	/* a size that overflows size_t: refused */
	ck_assert_int_eq(cp_grow((void **)&b, sizeof(*b), &cap,
				 UINT64_MAX / 4), -1);
	ck_assert_uint_eq(cap, 128);
	ck_assert_uint_eq(b[127], 7);
	free(b);
}
END_TEST

/* A table's names: whole when they fit, else head...tail, never cutting
 * a UTF-8 character, and two names that differ only at the end stay
 * told apart. */
START_TEST(test_helpers_fit_name)
{
	static const char *const cases[][3] = {
		/* name, width, fitted */
		{ "main", "40", "main" },
		{ "0123456789abcdefghij", "20", "0123456789abcdefghij" },
		{ "0123456789abcdefghijK", "20", "0123456...bcdefghijK" },
		{ "std::thread::lifecycle::spawn_unchecked::{{closure}}",
		  "40", "std::thread::lif...nchecked::{{closure}}" },
		{ "std::thread::lifecycle::spawn_unchecked::{{closure}}::"
		  "{{closure}}", "40",
		  "std::thread::lif...losure}}::{{closure}}" },
		/* "\xc3\xa9" (e acute) across either cut: left whole */
		{ "abcdef\xc3\xa9" "0123456789\xc3\xa9rstuvwxyz", "20",
		  "abcdef...rstuvwxyz" },
		{ "abcdefghijklmno", "3", "ab...mno" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *r = cp_out_fit(buf, sizeof(buf), cases[i][0],
					   atoi(cases[i][1]));

		ck_assert_ptr_eq(r, buf);
		ck_assert_msg(!strcmp(r, cases[i][2]), "%s in %s: \"%s\", "
			      "expected \"%s\"", cases[i][0], cases[i][1], r,
			      cases[i][2]);
	}
	/* a buffer smaller than the width: the buffer is the bound */
	ck_assert_str_eq(cp_out_fit(buf, 12, "0123456789abcdefghij", 40),
			 "012...fghij");
}
END_TEST

static Suite *helpers_suite(void)
{
	Suite *s = suite_create("helpers");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_helpers_fmt_ns_units);
	tcase_add_test(tc, test_helpers_json_escape_table);
	tcase_add_test(tc, test_helpers_json_quote_uses_table);
	tcase_add_test(tc, test_helpers_json_utf8);
	tcase_add_test(tc, test_helpers_json_value_written_once);
	tcase_add_test(tc, test_helpers_object_order);
	tcase_add_test(tc, test_helpers_is_lock);
	tcase_add_test(tc, test_helpers_grow);
	tcase_add_test(tc, test_helpers_fit_name);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(helpers_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
