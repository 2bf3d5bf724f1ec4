/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/fuzz/replay.c: runs a fuzz target's entry over every file of the folders
 * named on the command line (the committed seed corpus and the regression inputs,
 * each a crash the fuzzer once found). Built with the project's compiler, in
 * make check, so a fixed finding stays fixed without clang.
 */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs above this size are not ours: libFuzzer's default -max_len is far below it. */
#define REPLAY_MAX (1u << 20)

static int replay_file(const char *path)
{
	static uint8_t buf[REPLAY_MAX];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* A copy of exactly n bytes, so a read past the input is an ASan finding. */
	uint8_t *input = malloc(n ? n : 1);

	if (!input)
		return -1;
	memcpy(input, buf, n);
	LLVMFuzzerTestOneInput(input, n);
	free(input);
	return 0;
}

/* Without arguments: the seeds and regression inputs of REPLAY_TARGET in the source tree. */
static int default_dirs(char dirs[2][4096])
{
	const char *src = getenv("XRMA_TEST_SRCDIR");

	if (!src)
		src = ".";
	snprintf(dirs[0], sizeof(dirs[0]), "%s/tests/fuzz/corpus/%s", src, REPLAY_TARGET);
	snprintf(dirs[1], sizeof(dirs[1]), "%s/tests/fuzz/regress/%s", src, REPLAY_TARGET);
	return 2;
}

int main(int argc, char **argv)
{
	unsigned files = 0, failed = 0;
	char dirs[2][4096];
	char *list[2] = { dirs[0], dirs[1] };
	int count = argc - 1;

	if (count > 0) {
		argv++;
	} else {
		count = default_dirs(dirs);
		argv = list;
	}
	for (int i = 0; i < count; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;

		if (!d) {
			perror(argv[i]);
			return 1;
		}
		while ((e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.' || !strcmp(e->d_name, "README"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (replay_file(path))
				failed++;
			else
				files++;
		}
		closedir(d);
	}
	if (!files) {
		fprintf(stderr, "replay: no input found\n");
		return 1;
	}
	printf("%u passed, %u failed\n", files, failed);
	return failed ? 1 : 0;
}
