/*
 * check_bigmem.c - the large-block cache (cp_bigmem.h): a freed block
 * serves the next request of its size class, a kept block larger than a
 * request that it may not serve stays kept for a later one of its size,
 * and a block handed out again is zeroed by cp_big_calloc.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"

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

int main(void)
{
	Suite *s = suite_create("bigmem");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_bigmem_class_serves_a_slightly_larger_request);
	tcase_add_test(tc, test_bigmem_keeps_a_larger_block_across_a_small_request);
	tcase_add_test(tc, test_bigmem_calloc_zeroes_a_reused_block);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
