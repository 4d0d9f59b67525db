/*
 * cp_crc32c.c - CRC-32C (reflected polynomial 0x82F63B78, initial value and
 * final xor ~0): the SSE 4.2 crc32 instruction, eight bytes at a time, where
 * the processor has it (it computes exactly this CRC), else a 256-entry
 * table, one byte at a time.
 */
#include "cp_crc32c.h"

#include <stdbool.h>
#include <string.h>

#define CP_CRC32C_POLY 0x82f63b78u

static uint32_t cp_crc32c_table[256];
static bool cp_crc32c_ready;
static bool cp_crc32c_hw;	/* SSE 4.2 */

void cp_crc32c_init(void)
{
	if (cp_crc32c_ready)
		return;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CP_CRC32C_POLY : c >> 1;
		cp_crc32c_table[i] = c;
	}
#if defined(__x86_64__)
	__builtin_cpu_init();
	cp_crc32c_hw = __builtin_cpu_supports("sse4.2");
#endif
	cp_crc32c_ready = true;
}

uint32_t cp_crc32c_portable(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;

	crc = ~crc;
	while (n--)
		crc = cp_crc32c_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *b, size_t n)
{
	uint64_t c = ~crc;

	for (; n >= 8; n -= 8, b += 8) {
		uint64_t v;

		memcpy(&v, b, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	while (n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *b++);
	return ~(uint32_t)c;
}
#endif

uint32_t cp_crc32c(uint32_t crc, const void *p, size_t n)
{
#if defined(__x86_64__)
	if (cp_crc32c_hw)
		return crc32c_sse42(crc, p, n);
#endif
	return cp_crc32c_portable(crc, p, n);
}
