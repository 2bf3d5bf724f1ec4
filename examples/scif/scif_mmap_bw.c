/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/scif/scif_mmap_bw.c: load/store bandwidth through scif_mmap of the
 * card's window: memcpy into the mapping (stores) and out of it (loads), by
 * size. The baseline is memcpy between two local buffers in the same run.
 * Refuses to run, and says so, on a provider that cannot map remote memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scif_bench.h"

struct mb {
	char *map, *local, *other;
	size_t len;
	int dir;   /* 0: store into the mapping, 1: load from it */
};

static void copy_loop(char *dst, const char *src, size_t len, int iterations)
{
	for (int i = 0; i < iterations; i++) {
		memcpy(dst, src, len);
		__asm__ __volatile__("" : : "r"(dst) : "memory");
	}
}

static void mapped_round(void *arg, int iterations)
{
	struct mb *m = arg;

	if (m->dir == 0)
		copy_loop(m->map, m->local, m->len, iterations);
	else
		copy_loop(m->local, m->map, m->len, iterations);
}

static void local_round(void *arg, int iterations)
{
	struct mb *m = arg;

	copy_loop(m->local, m->other, m->len, iterations);
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .iterations = 200, .repetitions = 5, .max_size = 4 << 20 };
	static const char *const names[] = { "store(memcpy to mapping)", "load(memcpy from mapping)" };
	struct scif_bench b;
	struct mb m;
	void *map;

	scif_bench_card_dispatch(argc, argv, "scif_mmap_bw");
	bench_parse(argc, argv, &opts, "  load/store through scif_mmap against local memcpy\n");
	opts.max_size = scif_bench_round(opts.max_size);
	scif_bench_start(argv, opts.max_size, &b);
	map = scif_mmap(NULL, opts.max_size, SCIF_PROT_READ | SCIF_PROT_WRITE, 0, b.epd, 0);
	if (map == SCIF_MMAP_FAILED) {
		fprintf(stderr, "scif_mmap_bw: provider %s cannot map the card's window; nothing to measure\n",
			b.provider);
		scif_bench_stop(&b);
		return 2;
	}
	m = (struct mb){ .map = map, .local = scif_bench_pages(opts.max_size),
			 .other = scif_bench_pages(opts.max_size) };
	memset(m.local, 0x5a, opts.max_size);
	for (int dir = 0; dir < 2; dir++) {
		bench_header(&opts, names[dir], scif_bench_setup(&b), "mmap_us", "memcpy_us");
		for (size_t len = 64; len <= opts.max_size; len *= 8) {
			int iters = len >= (1u << 20) ? (opts.iterations + 9) / 10 : opts.iterations;

			m.len = len;
			m.dir = dir;
			scif_bench_row_vs(&opts, len, mapped_round, local_round, &m, iters);
			if (len < opts.max_size && len * 8 > opts.max_size)
				len = opts.max_size / 8;
		}
	}
	/* The stores landed in the card's pages: read them back the RMA way. */
	memset(m.other, 0, 64);
	if (scif_vreadfrom(b.epd, m.other, 64, 0, SCIF_RMA_SYNC) || memcmp(m.other, m.local, 64)) {
		fprintf(stderr, "scif_mmap_bw: the card's window does not hold what was stored\n");
		return 1;
	}
	scif_munmap(map, opts.max_size);
	scif_bench_stop(&b);
	scif_bench_free(m.local);
	scif_bench_free(m.other);
	return 0;
}
