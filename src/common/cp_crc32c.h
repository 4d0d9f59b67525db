/*
 * cp_crc32c.h - CRC-32C (Castagnoli), the checksum of trace blocks.
 *
 * The crc32 instruction where the processor has it, else a table.  The
 * table and the choice are made by cp_crc32c_init(), which must have run
 * before the first cp_crc32c() (the trace writer calls it when it opens
 * the trace, the reader before it parses).  After that every function here
 * is pure and async-signal-safe.
 */
#ifndef CP_CRC32C_H
#define CP_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#include "cp_trace_format.h"

/* Build the table.  Idempotent; call before any thread may checksum. */
void cp_crc32c_init(void);

/*
 * Continue the CRC-32C @crc (0 for a fresh one) over @n bytes at @p and
 * return it.  Any thread, signal handlers included.
 */
uint32_t cp_crc32c(uint32_t crc, const void *p, size_t n);
/* The same with the table only (what cp_crc32c does without SSE 4.2). */
uint32_t cp_crc32c_portable(uint32_t crc, const void *p, size_t n);

/* The crc field of a block with header @h and @payload (cp_trace_format.h:
 * bytes 0..15 of the header, then the payload).  Any thread. */
static inline uint32_t cp_block_crc(const struct cp_block_header *h,
				    const void *payload)
{
	return cp_crc32c(cp_crc32c(0, h, 16), payload, h->size);
}

#endif /* CP_CRC32C_H */
