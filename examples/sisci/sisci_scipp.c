/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/sisci/sisci_scipp.c: a scipp-style PIO ping-pong through SISCI:
 * each side stores a message into the other's mapped remote segment, the last
 * 4 bytes carrying a sequence number the receiver spins on; one-way latency
 * against message size, next to the same ping-pong through a raw POSIX
 * shared-memory page between the same two processes (the floor).
 *   sisci_scipp                      both sides, started here (nodes 1 and 2)
 *   sisci_scipp -server -rn 1        on node 2 (XRMA_NODE_ID=2)
 *   sisci_scipp -client -rn 2        on node 1
 */
#include <stdio.h>
#include <string.h>
#include "sisci_bench.h"

enum { CMD_RAW = 1, CMD_SISCI, CMD_QUIT };

#define SEGMENT_ID 0x5c1bb

static int server(struct sb_node *n)
{
	uint64_t size, iters, cmd;

	while ((cmd = sb_next_command(n, &size, &iters)) != CMD_QUIT) {
		volatile uint8_t *recv = cmd == CMD_RAW ? n->raw_mine : n->local_mem;
		volatile uint8_t *send = cmd == CMD_RAW ? n->raw_peer : n->remote_mem;

		memset((void *)(recv + SB_CTRL_BYTES), 0, size);
		sb_ack(n);
		sb_pingpong(send + SB_CTRL_BYTES, recv + SB_CTRL_BYTES, size, (int)iters, false, n->me);
	}
	sb_ack(n);
	return 0;
}

static double run(struct sb_node *n, uint64_t cmd, size_t size, int iters)
{
	volatile uint8_t *recv = cmd == CMD_RAW ? n->raw_mine : n->local_mem;
	volatile uint8_t *send = cmd == CMD_RAW ? n->raw_peer : n->remote_mem;

	memset((void *)(recv + SB_CTRL_BYTES), 0, size);
	sb_command(n, cmd, size, (uint64_t)iters);
	return sb_pingpong(send + SB_CTRL_BYTES, recv + SB_CTRL_BYTES, size, iters, true, n->me);
}

static void client(struct sb_node *n, const struct sb_opts *o)
{
	const struct bench_opts *b = &o->bench;
	double ours[64], base[64];
	int reps = b->repetitions > 64 ? 64 : b->repetitions;

	bench_header(b, "scipp", "PIO ping-pong one-way latency, SISCI map vs raw shared memory",
		     "sisci_ns", "raw_ns");
	for (size_t size = 4; size <= b->max_size; size *= 2) {
		int iters = (int)((uint64_t)b->iterations * 64 / (size / 64 + 64)) + 1;

		/* Warm-up, then interleaved repetitions so both see the same machine state. */
		run(n, CMD_RAW, size, iters / 10 + 1);
		run(n, CMD_SISCI, size, iters / 10 + 1);
		for (int r = 0; r < reps; r++) {
			base[r] = run(n, CMD_RAW, size, iters);
			ours[r] = run(n, CMD_SISCI, size, iters);
		}
		bench_row_samples(b, size, iters, ours, base, reps);
	}
	sb_command(n, CMD_QUIT, 0, 0);
}

int main(int argc, char **argv)
{
	struct sb_opts o = { .bench = { .iterations = 20000, .repetitions = 5, .max_size = 8192 },
			     .segment_id = SEGMENT_ID };
	struct sb_node n = { 0 };

	sb_parse(argc, argv, &o, "scipp: PIO ping-pong latency against message size.\n");
	if (o.bench.max_size > SB_MESSAGE_MAX)
		o.bench.max_size = SB_MESSAGE_MAX;
	bench_pin_thread(o.server ? 1 : 0);
	sb_node_open(&n, &o);
	sb_need_mapping(&n);
	if (o.server) {
		server(&n);
	} else {
		if (!o.bench.csv)
			printf("# sisci_scipp node %u <-> node %u\n", n.self, n.peer);
		client(&n, &o);
	}
	sb_node_close(&n);
	return sb_finish(&o);
}
