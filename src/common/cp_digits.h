/*
 * cp_digits.h - an unsigned integer in decimal, without stdio or the
 * locale: the one formatter of the JSON emitter, the exporters' buffer
 * and the messages written where stdio may not run (a fatal-signal
 * handler, _exit).
 */
#ifndef CP_DIGITS_H
#define CP_DIGITS_H

#include <stdint.h>

/* Room for any uint64_t's digits. */
#define CP_DIGITS_MAX 20

/* Write @v's decimal digits into the bytes just before @end (at most
 * CP_DIGITS_MAX), the last at end[-1]; returns the first. */
static inline char *cp_u64_digits(uint64_t v, char *end)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

#endif /* CP_DIGITS_H */
