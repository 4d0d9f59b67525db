/*
 * cp_bits.h - bit arrays in 64-bit words, as the analysis keeps its sets
 * of vertices, edges and sequences (a bit each where a byte or a word per
 * element would weigh on the peak).
 */
#ifndef CP_BITS_H
#define CP_BITS_H

#include <stdbool.h>
#include <stdint.h>

/* Words for @n bits. */
static inline uint64_t cp_bits_words(uint64_t n)
{
	return n / 64 + 1;
}

/* Bit @i of @w. */
static inline bool cp_bit_get(const uint64_t *w, uint64_t i)
{
	return w[i / 64] >> (i % 64) & 1;
}

/* Set bit @i of @w. */
static inline void cp_bit_set(uint64_t *w, uint64_t i)
{
	w[i / 64] |= (uint64_t)1 << (i % 64);
}

#endif /* CP_BITS_H */
