/*
 * fuzz_common.c - the helpers every fuzz target links (see fuzz.h).
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

void cp_fuzz_check_err(const char *err, const char *name)
{
	size_t n = strlen(name);

	if (err[0] && !strchr(err, '\n') && !strncmp(err, name, n) &&
	    (err[n] == ':' || err[n] == ' ') && err[n + 1])
		return;
	fprintf(stderr, "fuzz: a rejection is not one line naming the "
		"input: \"%s\"\n", err);
	abort();
}

FILE *cp_fuzz_sink(void)
{
	static FILE *sink;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!sink) {
		perror("fuzz: /dev/null");
		abort();
	}
	return sink;
}
