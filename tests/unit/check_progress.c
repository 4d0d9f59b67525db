/*
 * check_progress.c - the progress line: quiet on a stream that is not a
 * terminal and during the first second, drawn after it at most ten times a
 * second, cleared at the end; speaking on a (pseudo-)terminal.
 */
#define _XOPEN_SOURCE 600
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_progress.h"

static double fake_t;

static double fake_now(void)
{
	return fake_t;
}

/* What @f holds, NUL-terminated, into @buf. */
static size_t contents(FILE *f, char *buf, size_t len)
{
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	return n;
}

START_TEST(test_progress_quiet_when_not_a_tty)
{
	FILE *f = tmpfile();
	struct cp_progress p;
	char buf[256];

	ck_assert_ptr_nonnull(f);
	/* a regular file is not a terminal: the real init keeps quiet */
	cp_progress_init(&p, f);
	ck_assert_msg(p.f == NULL, "a meter on a file speaks");
	/* and the driven one told "not a tty" stays quiet for minutes */
	fake_t = 100.0;
	cp_progress_init_clock(&p, f, false, fake_now);
	for (int i = 0; i < 100; i++) {
		fake_t += 5.0;
		cp_progress_set(&p, "writing", i / 100.0);
	}
	cp_progress_clear(&p);
	ck_assert_msg(contents(f, buf, sizeof(buf)) == 0, "wrote \"%s\"", buf);
	fclose(f);
}
END_TEST

START_TEST(test_progress_after_a_second_then_cleared)
{
	FILE *f = tmpfile();
	struct cp_progress p;
	char buf[512];
	size_t n;

	ck_assert_ptr_nonnull(f);
	fake_t = 10.0;
	cp_progress_init_clock(&p, f, true, fake_now);
	fake_t = 10.9;
	cp_progress_set(&p, "reading", 0.5);
	cp_progress_clear(&p);	/* nothing drawn: nothing to clear */
	n = contents(f, buf, sizeof(buf));
	ck_assert_msg(n == 0, "under a second: \"%s\"", buf);

	fake_t = 11.5;
	cp_progress_set(&p, "writing", 0.25);
	n = contents(f, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "cpt: writing  25% (1.5 s)") != NULL,
		      "line: \"%s\"", buf);
	/* within a tenth of a second: not redrawn */
	fake_t = 11.55;
	cp_progress_set(&p, "writing", 0.30);
	ck_assert_msg(contents(f, buf, sizeof(buf)) == n, "redrawn: \"%s\"",
		      buf);
	fake_t = 11.7;
	cp_progress_set(&p, "near-critical paths", 0.0);
	contents(f, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "cpt: near-critical paths ... (1.7 s)"),
		      "no percentage when not known: \"%s\"", buf);
	n = contents(f, buf, sizeof(buf));
	cp_progress_clear(&p);
	ck_assert_msg(contents(f, buf, sizeof(buf)) == n + 4 &&
		      !strcmp(buf + n, "\r\033[K"), "cleared: \"%s\"",
		      buf + n);
	ck_assert_msg(!p.shown, "still shown after clear");
	fclose(f);
}
END_TEST

START_TEST(test_progress_speaks_on_a_terminal)
{
	/* a pseudo-terminal is a terminal: the real init speaks there */
	int m = posix_openpt(O_RDWR | O_NOCTTY), sfd;
	struct cp_progress p;
	FILE *f;

	ck_assert_msg(m >= 0, "posix_openpt: %s", strerror(errno));
	ck_assert_int_eq(grantpt(m), 0);
	ck_assert_int_eq(unlockpt(m), 0);
	sfd = open(ptsname(m), O_RDWR | O_NOCTTY);
	ck_assert_msg(sfd >= 0, "open %s: %s", ptsname(m), strerror(errno));
	f = fdopen(sfd, "w");
	ck_assert_ptr_nonnull(f);
	cp_progress_init(&p, f);
	ck_assert_msg(p.f == f, "a meter on a terminal keeps quiet");
	fclose(f);
	close(m);
}
END_TEST

static Suite *progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_progress_quiet_when_not_a_tty);
	tcase_add_test(tc, test_progress_after_a_second_then_cleared);
	tcase_add_test(tc, test_progress_speaks_on_a_terminal);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(progress_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
