#include "cp_die.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_digits.h"

static void put(const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		ssize_t w = write(2, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void cp_die_at(const char *file, const char *func, int line, const char *msg)
{
	char num[CP_DIGITS_MAX + 1];

	num[CP_DIGITS_MAX] = '\0';
	put("cpthread: ");
	put(file);
	put(":");
	put(func);
	put("@");
	put(cp_u64_digits((uint64_t)(line > 0 ? line : 0),
			  num + CP_DIGITS_MAX));
	put(": ");
	put(msg);
	put("\n");
	abort();
}
