/*
 * check_spill.c - the scratch file written forward and read back from
 * its end (cp_spill.h): records of random sizes, some larger than a
 * chunk, come back whole, in their chunks, the last chunk first; nothing
 * is left in the directory; a directory that does not exist is an error
 * with errno, not a crash; a write that fails (the file-size limit) stops
 * the writing with its errno.  The directory: $TMPDIR, else /var/tmp when
 * /tmp is in memory, else /tmp; a tmpfs is seen as memory.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cp_spill.h"

/* Record @i's size (a few larger than a chunk) and its byte @j. */
static size_t rec_size(uint32_t i)
{
	if (i % 997 == 500)
		return CP_SPILL_CHUNK + 1000 + i;
	return 1 + (i * 2654435761u) % 3000;
}

static uint8_t rec_byte(uint32_t i, size_t j)
{
	return (uint8_t)(i * 31 + j * 7);
}

/* Files in @dir whose name starts with "cpt-spill". */
static int spills_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strncmp(e->d_name, "cpt-spill", 9) == 0;
	closedir(d);
	return n;
}

START_TEST(test_spill_round_trip)
{
	char dir[] = "/tmp/check_spill_XXXXXX";
	const uint32_t n = 20000;	/* ~50 chunks: the queue fills */
	struct cp_spill sp;
	uint8_t *buf = NULL;
	size_t cap = 0;
	uint32_t seen = 0, i = n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(setenv("TMPDIR", dir, 1), 0);
	ck_assert_int_eq(cp_spill_open(&sp), 0);
	unsetenv("TMPDIR");
	ck_assert_int_eq(spills_in(dir), 0);	/* unlinked at once */
	for (uint32_t r = 0; r < n; r++) {
		size_t sz = rec_size(r);
		uint8_t *q = cp_spill_room(&sp, sz);

		ck_assert_ptr_nonnull(q);
		for (size_t j = 0; j < sz; j++)
			q[j] = rec_byte(r, j);
		cp_spill_done(&sp, q + sz);
	}
	ck_assert_int_eq(cp_spill_flush(&sp), 0);
	ck_assert_uint_eq(sp.nrecs, n);
	ck_assert_uint_gt(sp.nchunk, 4 * CP_SPILL_QUEUE);
	/* the chunks last first; in each, its records in order */
	for (uint32_t c = sp.nchunk; c-- > 0;) {
		const struct cp_spill_chunk *ch = &sp.chunk[c];
		size_t off = 0;
		uint32_t first = i - ch->nrec;

		ck_assert_int_eq(cp_spill_read(&sp, c, &buf, &cap), 0);
		ck_assert_uint_ge(cap, ch->len);
		ck_assert_msg(ch->nrec == 1 || ch->len <= CP_SPILL_CHUNK,
			      "chunk %u: %u bytes of %u records", c, ch->len,
			      ch->nrec);
		for (uint32_t r = first; r < i; r++) {
			size_t sz = rec_size(r);

			ck_assert_uint_le(off + sz, ch->len);
			/* (an assertion a byte would be millions of writes
			 * to Check's pipe) */
			for (size_t j = 0; j < sz; j++)
				if (buf[off + j] != rec_byte(r, j))
					ck_abort_msg("record %u byte %zu", r,
						     j);
			off += sz;
			seen++;
		}
		ck_assert_uint_eq(off, ch->len);
		i = first;
	}
	ck_assert_uint_eq(seen, n);
	ck_assert_uint_eq(i, 0);
	cp_spill_close(&sp);
	ck_assert_int_eq(sp.fd, -1);
	free(buf);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Records of 1 KiB into @sp until @bytes are written or a room is
 * refused; the bytes written. */
static size_t fill(struct cp_spill *sp, size_t bytes)
{
	size_t done = 0;

	while (done < bytes) {
		uint8_t *q = cp_spill_room(sp, 1024);

		if (!q)
			break;
		memset(q, (int)(done >> 10), 1024);
		cp_spill_done(sp, q + 1024);
		done += 1024;
	}
	return done;
}

/*
 * Records filled as fast as memset goes, faster than the writing thread
 * copies them into the file: the queue fills and the writer waits, and
 * every chunk reads back as written.
 */
START_TEST(test_spill_queue_fills)
{
	const uint32_t n = 1024, sz = 64 << 10;	/* 64 MiB */
	struct cp_spill sp;
	uint8_t *buf = NULL;
	size_t cap = 0;
	uint32_t r = 0;

	ck_assert_int_eq(cp_spill_open(&sp), 0);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *q = cp_spill_room(&sp, sz);

		ck_assert_ptr_nonnull(q);
		memset(q, (int)(i % 251), sz);
		cp_spill_done(&sp, q + sz);
	}
	ck_assert_int_eq(cp_spill_flush(&sp), 0);
	ck_assert_uint_ge(sp.nchunk, n / 16);
	for (uint32_t c = 0; c < sp.nchunk; c++) {
		ck_assert_int_eq(cp_spill_read(&sp, c, &buf, &cap), 0);
		ck_assert_uint_eq(sp.chunk[c].len, sp.chunk[c].nrec * sz);
		for (uint32_t k = 0; k < sp.chunk[c].nrec; k++, r++)
			for (uint32_t j = 0; j < sz; j += 4093)
				if (buf[(size_t)k * sz + j] != r % 251)
					ck_abort_msg("record %u of chunk %u: "
						     "byte %u is %u", k, c, j,
						     buf[(size_t)k * sz + j]);
	}
	ck_assert_uint_eq(r, n);
	cp_spill_close(&sp);
	free(buf);
}
END_TEST

START_TEST(test_spill_write_fails)
{
	struct rlimit old, lim;
	struct cp_spill sp;
	size_t done;

	/* the file may not pass 3 MiB: the write past it fails, EFBIG */
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 3u << 20;
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ck_assert_int_eq(cp_spill_open(&sp), 0);
	done = fill(&sp, (size_t)64 << 20);
	/* the failure stopped the writing soon after the chunk that
	 * failed (the fourth): the chunks queued behind it are the most
	 * the writer could fill before it heard */
	ck_assert_msg(done < (size_t)(5 + CP_SPILL_QUEUE) * CP_SPILL_CHUNK,
		      "%zu bytes taken past a failed write", done);
	ck_assert_int_eq(cp_spill_flush(&sp), -1);
	ck_assert_int_eq(sp.err, EFBIG);
	ck_assert_ptr_null(cp_spill_room(&sp, 10));
	cp_spill_close(&sp);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
}
END_TEST

START_TEST(test_spill_no_directory)
{
	struct cp_spill sp;

	ck_assert_int_eq(setenv("TMPDIR", "/nonexistent/check_spill", 1), 0);
	errno = 0;
	ck_assert_int_eq(cp_spill_open(&sp), -1);
	ck_assert_int_eq(errno, ENOENT);
	unsetenv("TMPDIR");
	ck_assert_int_eq(sp.fd, -1);
	ck_assert_ptr_null(sp.buf);
	cp_spill_close(&sp);	/* harmless after a failed open */
}
END_TEST

START_TEST(test_spill_directory)
{
	bool mem = false;
	uint64_t avail = 0;
	char dir[] = "/tmp/check_spill_XXXXXX";

	ck_assert_str_eq(cp_spill_pick("/scratch", true, true), "/scratch");
	ck_assert_str_eq(cp_spill_pick(NULL, true, true), "/var/tmp");
	ck_assert_str_eq(cp_spill_pick("", true, true), "/var/tmp");
	ck_assert_str_eq(cp_spill_pick(NULL, true, false), "/tmp");
	ck_assert_str_eq(cp_spill_pick(NULL, false, true), "/tmp");
	/* $TMPDIR is taken as it is */
	ck_assert_int_eq(setenv("TMPDIR", "/nonexistent/check_spill", 1), 0);
	ck_assert_str_eq(cp_spill_dir(), "/nonexistent/check_spill");
	unsetenv("TMPDIR");
	ck_assert(!strcmp(cp_spill_dir(), "/tmp") ||
		  !strcmp(cp_spill_dir(), "/var/tmp"));
	/* a tmpfs is memory; a directory that is not there is an error */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(cp_spill_where(dir, &mem, &avail), 0);
	ck_assert(avail > 0);
	rmdir(dir);
	if (access("/dev/shm", F_OK) == 0) {
		ck_assert_int_eq(cp_spill_where("/dev/shm", &mem, &avail), 0);
		ck_assert(mem);
	}
	errno = 0;
	ck_assert_int_eq(cp_spill_where("/nonexistent/check_spill", &mem,
					&avail), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

static Suite *spill_suite(void)
{
	Suite *s = suite_create("spill");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_spill_round_trip);
	tcase_add_test(tc, test_spill_queue_fills);
	tcase_add_test(tc, test_spill_write_fails);
	tcase_add_test(tc, test_spill_no_directory);
	tcase_add_test(tc, test_spill_directory);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(spill_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
