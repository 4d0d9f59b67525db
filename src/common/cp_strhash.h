/*
 * cp_strhash.h - the one string hash of the project (FNV-1a, its high
 * bits folded into the low ones), for the analyzer's hash tables and the
 * runtime's region tags.  Header only, no state; any thread.
 */
#ifndef CP_STRHASH_H
#define CP_STRHASH_H

#include <stdint.h>

/* The hash of the NUL-terminated string @s. */
static inline uint64_t cp_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 31);
}

#endif /* CP_STRHASH_H */
