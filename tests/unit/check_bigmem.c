/*
 * check_bigmem.c - the large-block cache (cp_bigmem.h): a freed block
 * serves the next request of its size class, a kept block larger than a
 * request that it may not serve stays kept for a later one of its size,
 * and a block handed out again is zeroed by cp_big_calloc; a fresh block
 * from cp_big_malloc is faulted in without being touched, one from
 * cp_big_malloc_lazy is not, and the faulting in never changes what the
 * caller writes meanwhile, also in a child process forked while the
 * helper runs.  An array grown by cp_grow32_upto (cp_grow.h) takes all its
 * room at once and never moves within it, its untouched pages not
 * resident.
 */
#define _DEFAULT_SOURCE
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cp_bigmem.h"
#include "cp_grow.h"

#define MIB ((size_t)1 << 20)

/*
 * 37 MiB + 1 and 39.5 MiB: whole huge pages would make them 38 and 40 MiB
 * (the first too small for the second); their class (an eighth of 32 MiB:
 * steps of 4 MiB) is 40 MiB for both.
 */
START_TEST(test_bigmem_class_serves_a_slightly_larger_request)
{
	char *p, *q;

	cp_big_release();
	p = cp_big_malloc(37 * MIB + 1);
	ck_assert_ptr_nonnull(p);
	p[0] = 1;
	p[37 * MIB] = 2;
	cp_big_free(p);
	q = cp_big_malloc(39 * MIB + MIB / 2);
	ck_assert_ptr_eq(q, p);
	q[39 * MIB + MIB / 2 - 1] = 3;	/* the whole request is usable */
	cp_big_free(q);
	cp_big_release();
}
END_TEST

/*
 * A 64 MiB block may not serve 8 MiB (more than twice the size): the
 * request gets fresh memory, and the 64 MiB block stays for the next
 * request of its size.
 */
START_TEST(test_bigmem_keeps_a_larger_block_across_a_small_request)
{
	char *big, *small, *again;

	cp_big_release();
	big = cp_big_malloc(64 * MIB);
	ck_assert_ptr_nonnull(big);
	memset(big, 0x5a, 64 * MIB);
	cp_big_free(big);
	small = cp_big_malloc(8 * MIB);
	ck_assert_ptr_nonnull(small);
	ck_assert_ptr_ne(small, big);
	again = cp_big_malloc(60 * MIB);
	ck_assert_ptr_eq(again, big);
	cp_big_free(small);
	cp_big_free(again);
	cp_big_release();
}
END_TEST

/* A reused block comes back zeroed from cp_big_calloc. */
START_TEST(test_bigmem_calloc_zeroes_a_reused_block)
{
	unsigned char *p, *q;
	size_t n = 4 * MIB;

	cp_big_release();
	p = cp_big_malloc(n);
	ck_assert_ptr_nonnull(p);
	memset(p, 0xab, n);
	cp_big_free(p);
	q = cp_big_calloc(n / 8, 8);
	ck_assert_ptr_eq(q, p);
	for (size_t i = 0; i < n; i++)
		if (q[i])
			ck_abort_msg("byte %zu of a reused block is %u", i,
				     q[i]);
	cp_big_free(q);
	cp_big_release();
}
END_TEST

/* How many of the pages of [@p, @p + @n) are resident. */
static size_t resident(const void *p, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), np = (n + page - 1) / page;
	unsigned char *vec = malloc(np);
	size_t in = 0;

	ck_assert_ptr_nonnull(vec);
	ck_assert_int_eq(mincore((void *)p, n, vec), 0);
	for (size_t i = 0; i < np; i++)
		in += vec[i] & 1;
	free(vec);
	return in;
}

/* Wait (up to 30 s, a slow sanitizer build included) until every page of
 * [@p, @p + @n) is resident; whether they all were. */
static int wait_resident(const void *p, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct timespec nap = { 0, 1000000 };

	for (int i = 0; i < 30000; i++) {
		if (resident(p, n) == (n + page - 1) / page)
			return 1;
		nanosleep(&nap, NULL);
	}
	return 0;
}

/*
 * The helper faults a fresh block in though the caller never touches it,
 * and leaves a lazy one alone: the lazy block is asked for first, so once
 * the later block is all in, the helper has no job left that could be the
 * lazy one's.  The allocator may keep data of its own in a page of the
 * block (ASan's does): two pages of 12,288 are allowed.
 */
START_TEST(test_bigmem_prefaults_fresh_blocks_but_not_lazy_ones)
{
	size_t n = 48 * MIB;
	char *lazy, *eager;

	cp_big_release();
	lazy = cp_big_malloc_lazy(n);
	eager = cp_big_malloc(n);
	ck_assert_ptr_nonnull(lazy);
	ck_assert_ptr_nonnull(eager);
	ck_assert_msg(wait_resident(eager, n),
		      "%zu of %zu pages of a fresh block faulted in",
		      resident(eager, n), n / (size_t)sysconf(_SC_PAGESIZE));
	ck_assert_msg(resident(lazy, n) <= 2,
		      "%zu pages of a lazy block faulted in untouched",
		      resident(lazy, n));
	free(lazy);
	cp_big_free(eager);
	cp_big_release();
}
END_TEST

/*
 * cp_grow32_upto: grown one element at a time, the array is one block of
 * all the room from its first element, the same block to the last, and
 * only about the pages written are resident (the 4 MiB written, the 4 MiB
 * step after, which the helper faults in ahead, and up to two huge pages
 * more); past the room it doubles as cp_grow32, the elements kept.
 */
START_TEST(test_bigmem_grow_upto_never_moves)
{
	uint64_t most = 12 * MIB;	/* uint32_t: 48 MiB */
	uint32_t *a = NULL, *first = NULL, cap = 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint32_t n = (uint32_t)(4 * MIB / sizeof(*a));

	cp_big_release();
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_int_eq(cp_grow32_upto((void **)&a, sizeof(*a), &cap,
						i + 1ull, most), 0);
		if (!i)
			first = a;
		ck_assert_ptr_eq(a, first);
		a[i] = i;
	}
	ck_assert_uint_eq(cap, most);
	ck_assert_msg(resident(a, most * sizeof(*a)) <=
		      (8 * MIB + 2 * ((size_t)2 << 20)) / page,
		      "%zu pages resident for 4 MiB written",
		      resident(a, most * sizeof(*a)));
	ck_assert_int_eq(cp_grow32_upto((void **)&a, sizeof(*a), &cap,
					most + 1, most), 0);
	ck_assert_uint_eq(cap, 2 * most);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_uint_eq(a[i], i);
	free(a);
	cp_big_release();
}
END_TEST

/*
 * Within its reservation, cp_grow32_upto has the helper fault in the 4
 * MiB step after the one being written, and no further: once an element
 * of the second step is written the third comes in, and the rest of the
 * 48 MiB stays out (two pages allowed to the allocator, as above).
 */
START_TEST(test_bigmem_grow_upto_faults_the_next_step)
{
	uint64_t most = 12 * MIB;	/* uint32_t: 48 MiB */
	uint32_t *a = NULL, cap = 0;
	uint32_t step = (uint32_t)(4 * MIB / sizeof(*a));

	cp_big_release();
	ck_assert_int_eq(cp_grow32_upto((void **)&a, sizeof(*a), &cap, 1,
					most), 0);
	a[0] = 1;
	ck_assert_msg(wait_resident((char *)a + 4 * MIB, 4 * MIB),
		      "%zu pages of the step after the first faulted in",
		      resident((char *)a + 4 * MIB, 4 * MIB));
	ck_assert_int_eq(cp_grow32_upto((void **)&a, sizeof(*a), &cap,
					step + 1ull, most), 0);
	a[step] = 2;
	ck_assert_msg(wait_resident((char *)a + 8 * MIB, 4 * MIB),
		      "%zu pages of the third step faulted in",
		      resident((char *)a + 8 * MIB, 4 * MIB));
	ck_assert_msg(resident((char *)a + 12 * MIB, 36 * MIB) <= 2,
		      "%zu pages beyond the step ahead faulted in",
		      resident((char *)a + 12 * MIB, 36 * MIB));
	ck_assert_uint_eq(a[0], 1);
	ck_assert_uint_eq(a[step], 2);
	cp_big_free(a);
	cp_big_release();
}
END_TEST

/*
 * cp_big_prefault faults in the range asked for, of a large block only,
 * and leaves what the block holds as it was: bytes written before it,
 * inside the range, read back the same.
 */
START_TEST(test_bigmem_prefault_range_keeps_the_contents)
{
	size_t n = 32 * MIB;
	unsigned char *p, *small;

	cp_big_release();
	p = cp_big_malloc_lazy(n);
	ck_assert_ptr_nonnull(p);
	for (size_t i = 8 * MIB; i < 9 * MIB; i++)
		p[i] = (unsigned char)(i * 13);
	cp_big_prefault(p, 8 * MIB, 16 * MIB);
	ck_assert_msg(wait_resident(p + 8 * MIB, 8 * MIB),
		      "%zu pages of the range faulted in",
		      resident(p + 8 * MIB, 8 * MIB));
	for (size_t i = 8 * MIB; i < 9 * MIB; i++)
		if (p[i] != (unsigned char)(i * 13))
			ck_abort_msg("byte %zu is %u", i, p[i]);
	ck_assert_msg(resident(p, 8 * MIB) + resident(p + 16 * MIB,
						       16 * MIB) <= 2,
		      "pages outside the range faulted in");
	/* past the block's end and on a small block: nothing */
	cp_big_prefault(p, n, 2 * n);
	small = malloc(4096);
	ck_assert_ptr_nonnull(small);
	cp_big_prefault(small, 0, 4096);
	free(small);
	cp_big_free(p);
	cp_big_release();
}
END_TEST

/*
 * What the caller writes while the helper faults its block in stays
 * written; blocks freed while the helper may be on them (cp_big_free's
 * cache evicting, cp_big_release) are withdrawn from it first.
 */
START_TEST(test_bigmem_prefault_keeps_what_the_caller_writes)
{
	for (unsigned round = 0; round < 12; round++) {
		size_t n = (8 + 4 * (round % 5)) * MIB + round;
		unsigned char *p = cp_big_malloc(n);

		ck_assert_ptr_nonnull(p);
		for (size_t i = 0; i < n; i++)
			p[i] = (unsigned char)(i * 7 + round);
		for (size_t i = 0; i < n; i++)
			if (p[i] != (unsigned char)(i * 7 + round))
				ck_abort_msg("round %u: byte %zu is %u", round,
					     i, p[i]);
		cp_big_free(p);
		/* the sizes differ: some rounds take a kept block, some a
		 * fresh one, and some free one the helper may be on */
		if (round % 3 == 2)
			cp_big_release();
	}
	cp_big_release();
}
END_TEST

/*
 * A process forked while the helper runs has no helper of its own until
 * it allocates: its first fresh block starts one, which faults the block
 * in, and freeing it does not wait for the parent's helper.
 */
START_TEST(test_bigmem_prefault_in_a_forked_child)
{
	size_t n = 16 * MIB;
	char *before = cp_big_malloc(n);
	int status = -1;
	pid_t child;

	ck_assert_ptr_nonnull(before);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		char *p = cp_big_malloc(n);
		int ok = p && wait_resident(p, n);

		cp_big_free(p);
		cp_big_free(before);
		cp_big_release();
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the forked child's fresh block was not faulted in "
		      "(status %d)", status);
	cp_big_free(before);
	cp_big_release();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bigmem");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_bigmem_class_serves_a_slightly_larger_request);
	tcase_add_test(tc, test_bigmem_keeps_a_larger_block_across_a_small_request);
	tcase_add_test(tc, test_bigmem_calloc_zeroes_a_reused_block);
	tcase_add_test(tc, test_bigmem_prefaults_fresh_blocks_but_not_lazy_ones);
	tcase_add_test(tc, test_bigmem_prefault_keeps_what_the_caller_writes);
	tcase_add_test(tc, test_bigmem_prefault_in_a_forked_child);
	tcase_add_test(tc, test_bigmem_grow_upto_never_moves);
	tcase_add_test(tc, test_bigmem_grow_upto_faults_the_next_step);
	tcase_add_test(tc, test_bigmem_prefault_range_keeps_the_contents);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
