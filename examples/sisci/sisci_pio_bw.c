/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/sisci/sisci_pio_bw.c: PIO store bandwidth through SISCI, like
 * Dolphin's scibench2: SCIMemCpy from local memory into the server's mapped
 * segment (stores through the map, then SCIFlush), for sizes from 64 B to the
 * maximum, against memcpy into a raw shared page of the same two processes.
 * The bytes are read back through the map and checked after the timed loops.
 *   sisci_pio_bw | sisci_pio_bw -server -rn 1 | sisci_pio_bw -client -rn 2
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sisci_bench.h"

enum { CMD_QUIT = 1 };

#define SEGMENT_ID 0x7b10

static void client(struct sb_node *n, const struct sb_opts *o)
{
	const struct bench_opts *b = &o->bench;
	double ours[64], base[64];
	int reps = b->repetitions > 64 ? 64 : b->repetitions;
	uint8_t *src = malloc(b->max_size), *check = malloc(b->max_size);
	uint8_t *raw = (uint8_t *)n->raw_peer + SB_CTRL_BYTES;
	sci_sequence_t seq;
	sci_error_t err;

	if (!src || !check)
		exit(1);
	for (size_t i = 0; i < b->max_size; i++)
		src[i] = (uint8_t)(i * 13 + 5);
	SCICreateMapSequence(n->remote_map, &seq, 0, &err);
	sb_check(err, "SCICreateMapSequence");
	while (SCIStartSequence(seq, 0, &err) != SCI_SEQ_OK)
		sb_check(err, "SCIStartSequence");
	bench_header(b, "pio_store", "SCIMemCpy into the mapped remote segment + SCIFlush",
		     "sisci_GBps", "memcpy_GBps");
	for (size_t size = 64; size <= b->max_size; size *= 4) {
		int iters = (int)((uint64_t)b->iterations * 4096 / (size + 4096)) + 1;

		for (int r = 0; r < reps; r++) {
			uint64_t t0 = bench_now_ns();

			for (int i = 0; i < iters; i++) {
				memcpy(raw, src, size);
				__asm__ __volatile__("" : : "r"(raw) : "memory");
			}
			base[r] = (double)size * iters / (double)(bench_now_ns() - t0);
			t0 = bench_now_ns();
			for (int i = 0; i < iters; i++) {
				SCIMemCpy(seq, src, n->remote_map, SB_CTRL_BYTES, size, 0, &err);
				sb_check(err, "SCIMemCpy");
			}
			SCIFlush(seq, 0);
			ours[r] = (double)size * iters / (double)(bench_now_ns() - t0);
		}
		bench_row(b, size, iters, bench_median(ours, reps), bench_min(ours, reps),
			  bench_median(base, reps), bench_min(base, reps));
	}
	if (SCICheckSequence(seq, 0, &err) != SCI_SEQ_OK)
		sb_check(err, "SCICheckSequence");
	SCIMemCpy(seq, check, n->remote_map, SB_CTRL_BYTES, b->max_size, SCI_FLAG_BLOCK_READ, &err);
	sb_check(err, "SCIMemCpy(read back)");
	if (memcmp(src, check, b->max_size)) {
		fprintf(stderr, "client: stored data did not arrive intact\n");
		exit(1);
	}
	SCIRemoveSequence(seq, 0, &err);
	free(src);
	free(check);
	sb_command(n, CMD_QUIT, 0, 0);
}

int main(int argc, char **argv)
{
	struct sb_opts o = { .bench = { .iterations = 5000, .repetitions = 3, .max_size = 4u << 20 },
			     .segment_id = SEGMENT_ID };
	struct sb_node n = { 0 };

	sb_parse(argc, argv, &o, "PIO store bandwidth (SCIMemCpy through a remote map).\n");
	bench_pin_thread(o.server ? 1 : 0);
	sb_node_open(&n, &o);
	if (o.server) {
		sb_serve_until(&n, CMD_QUIT);
	} else {
		if (!o.bench.csv)
			printf("# sisci_pio_bw node %u -> node %u\n", n.self, n.peer);
		client(&n, &o);
	}
	sb_node_close(&n);
	return sb_finish(&o);
}
