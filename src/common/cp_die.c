#include "cp_die.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	char num[16];
	int i = (int)sizeof(num) - 1;

	num[i] = '\0';
	do {
		num[--i] = (char)('0' + line % 10);
		line /= 10;
	} while (line > 0 && i > 0);
	put("cpthread: ");
	put(file);
	put(":");
	put(func);
	put("@");
	put(num + i);
	put(": ");
	put(msg);
	put("\n");
	abort();
}
