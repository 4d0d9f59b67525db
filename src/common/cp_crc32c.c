/*
 * cp_crc32c.c - CRC-32C with a 256-entry table (reflected polynomial
 * 0x82F63B78, initial value and final xor ~0).
 */
#include "cp_crc32c.h"

#include <stdbool.h>

#define CP_CRC32C_POLY 0x82f63b78u

static uint32_t cp_crc32c_table[256];
static bool cp_crc32c_ready;

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
	cp_crc32c_ready = true;
}

uint32_t cp_crc32c(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;

	crc = ~crc;
	while (n--)
		crc = cp_crc32c_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
