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

struct pio_run {
	struct sb_node *n;
	sci_sequence_t seq;
	uint8_t *src;
};

/* One store of size bytes through the map; SCIFlush makes it visible (as scibench2 does). */
static void store_once(void *ctx, size_t size)
{
	struct pio_run *p = ctx;
	sci_error_t err;

	SCIMemCpy(p->seq, p->src, p->n->remote_map, SB_CTRL_BYTES, size, 0, &err);
	sb_check(err, "SCIMemCpy");
	SCIFlush(p->seq, 0);
}

static void client(struct sb_node *n, const struct sb_opts *o)
{
	const struct bench_opts *b = &o->bench;
	struct pio_run run;
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
	run = (struct pio_run){ n, seq, src };
	sb_bandwidth_rows(b, raw, src, store_once, &run);
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
	sb_need_mapping(&n);
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
