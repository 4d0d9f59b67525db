/*
 * cpt_skip.h - test cases a build cannot run, skipped out loud.
 *
 * A case that depends on a property of the build (a sanitizer, the
 * compiler) rather than of the code under test calls CPT_SKIP_IF first: in
 * a build where it cannot hold, the case prints one line
 *     SKIPPED <case>: <reason>
 * on stdout and ends without failing.  scripts/test.sh lists those lines
 * at the end of each stage, so a skip is seen, never mistaken for a pass.
 * Never for a bug: a known bug fails its test.
 */
#ifndef CPT_SKIP_H
#define CPT_SKIP_H

#include <stdio.h>

/* CPT_ASAN: this build runs under AddressSanitizer (clang or gcc). */
#if defined(__SANITIZE_ADDRESS__)
#define CPT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CPT_ASAN 1
#endif
#endif
#ifndef CPT_ASAN
#define CPT_ASAN 0
#endif

/* CPT_LIBOMP: the workloads' -fopenmp is LLVM's libomp (clang), which the
 * tracer detects but does not model (it models GCC's libgomp). */
#if defined(__clang__)
#define CPT_LIBOMP 1
#else
#define CPT_LIBOMP 0
#endif

/* In a Check test body: skip the rest when @cond holds, saying why. */
#define CPT_SKIP_IF(cond, reason)					\
	do {								\
		if (cond) {						\
			printf("SKIPPED %s:%d: %s\n", __func__, _i,	\
			       reason);					\
			fflush(stdout);					\
			return;						\
		}							\
	} while (0)

#endif /* CPT_SKIP_H */
