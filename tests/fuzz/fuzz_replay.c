/*
 * fuzz_replay.c - run a fuzz target without libFuzzer: each argument is a
 * file (one input) or a directory (every regular file in it, one input
 * each, in name order).  Prints how many inputs ran; exits 1 if an
 * argument cannot be read or nothing was found.  A target aborts on a
 * broken contract, so a regression input that crashes again fails the
 * test that replays it.
 *
 * usage: fuzz_replay_<target> PATH...
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Weak: a target without an initializer leaves it NULL. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *nb;

			cap = cap ? 2 * cap : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				fprintf(stderr, "fuzz_replay: %s: out of "
					"memory\n", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		fprintf(stderr, "fuzz_replay: %s: read error\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* libFuzzer hands over an exact-size copy: so does the replay, so
	 * ASan catches a read one past the end */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_path(const char *path, unsigned *count)
{
	struct dirent **ents;
	struct stat st;
	int n, ret = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (replay_file(path))
			return -1;
		(*count)++;
		return 0;
	}
	n = scandir(path, &ents, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];

		if (ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path,
				 ents[i]->d_name);
			if (stat(sub, &st) == 0 && S_ISREG(st.st_mode)) {
				if (replay_file(sub))
					ret = -1;
				else
					(*count)++;
			}
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i], &count))
			ret = 1;
	printf("%u inputs replayed\n", count);
	if (!count) {
		fprintf(stderr, "fuzz_replay: no input found\n");
		ret = 1;
	}
	return ret;
}
