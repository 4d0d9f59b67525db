/*
 * cp_varint.h - LEB128 variable-length integers of the trace format.
 *
 * Unsigned values take 7 bits a byte, low bits first, the high bit set on
 * every byte but the last.  Signed values are zigzag-mapped first so small
 * magnitudes of either sign stay short.  A u64 takes at most 10 bytes.
 * Everything here is pure (reads and writes only its arguments): any
 * thread, signal handlers included.
 */
#ifndef CP_VARINT_H
#define CP_VARINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CP_VARINT_MAX 10

/* The format's fixed-width fields, little-endian like the hosts it runs
 * on; @p need not be aligned. */
static inline uint32_t cp_rd_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t cp_rd_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Encode @v at @p (room for CP_VARINT_MAX bytes); returns the end. */
static inline uint8_t *cp_uv_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * cp_uv_put() unrolled for values under 2^28: the bytes are stored
 * independently instead of along a chain of shifts and tests, which is
 * quicker in a loop encoding many values (the trace writer's batches);
 * inline in a lock call, where the loop's few instructions hide behind
 * the lock's own latency, the loop is as quick and smaller.
 */
static inline uint8_t *cp_uv_put_short(uint8_t *p, uint64_t v)
{
	if (v < 1u << 7) {
		p[0] = (uint8_t)v;
		return p + 1;
	}
	if (v < 1u << 14) {
		p[0] = (uint8_t)(v | 0x80);
		p[1] = (uint8_t)(v >> 7);
		return p + 2;
	}
	if (v < 1u << 21) {
		p[0] = (uint8_t)(v | 0x80);
		p[1] = (uint8_t)(v >> 7 | 0x80);
		p[2] = (uint8_t)(v >> 14);
		return p + 3;
	}
	if (v < 1u << 28) {
		p[0] = (uint8_t)(v | 0x80);
		p[1] = (uint8_t)(v >> 7 | 0x80);
		p[2] = (uint8_t)(v >> 14 | 0x80);
		p[3] = (uint8_t)(v >> 21);
		return p + 4;
	}
	return cp_uv_put(p, v);
}

/* The same for a signed value, zigzag-mapped. */
static inline uint8_t *cp_sv_put(uint8_t *p, int64_t v)
{
	return cp_uv_put(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/*
 * Decode one value from [*pp, end).  Returns 0 and advances *pp, or -1 on
 * a value that runs past @end or past 10 bytes (a corrupt stream).
 */
static inline int cp_uv_get(const uint8_t **pp, const uint8_t *end,
			    uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;

	if (__builtin_expect(p < end && *p < 0x80, 1)) {	/* most are */
		*out = *p;
		*pp = p + 1;
		return 0;
	}
	while (p < end && shift < 64) {
		uint8_t b = *p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

/* The same for a signed value (zigzag); 0 or -1 as cp_uv_get(). */
static inline int cp_sv_get(const uint8_t **pp, const uint8_t *end,
			    int64_t *out)
{
	uint64_t u;

	if (cp_uv_get(pp, end, &u))
		return -1;
	*out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return 0;
}

#endif /* CP_VARINT_H */
