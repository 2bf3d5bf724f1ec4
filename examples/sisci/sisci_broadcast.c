/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/sisci/sisci_broadcast.c: reflective memory, the broadcast pattern
 * of SISCI: a writer keeps a block that every reader sees. With a provider
 * that broadcasts (SCI_FLAG_BROADCAST accepted by SCICreateSegment and
 * SCIConnectSegment) one store reaches every reader; without, as on the
 * providers we have, the writer stores into each reader's segment in turn,
 * and the program says so. Each update fills the block with its number; the
 * reader checks every word of it before it acknowledges, so a torn update is
 * an error, not a number. Time per update against the same through a raw page.
 *   sisci_broadcast | sisci_broadcast -server -rn 1 | sisci_broadcast -client -rn 2
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sisci_bench.h"

enum { CMD_RAW = 1, CMD_SISCI, CMD_QUIT };

#define SEGMENT_ID 0xb0ad
#define ACK_OFFSET 64u     /* in the writer's control page, after the command words */

/* The block: words[0 .. n-2] carry the update number, the last word publishes it. */
static void publish(volatile uint8_t *block, size_t size, uint32_t update)
{
	volatile uint32_t *w = (volatile uint32_t *)(void *)block;
	size_t n = size / 4;

	for (size_t i = 0; i + 1 < n; i++)
		w[i] = update;
	atomic_store_explicit((volatile _Atomic uint32_t *)&w[n - 1], update, memory_order_release);
}

/* Reader: wait for update, check the whole block, acknowledge. */
static void follow(volatile uint8_t *block, size_t size, volatile uint8_t *ack, int updates,
		   const char *me)
{
	volatile uint32_t *w = (volatile uint32_t *)(void *)block;
	size_t n = size / 4;

	for (uint32_t u = 1; u <= (uint32_t)updates; u++) {
		sb_await32(&w[n - 1], u, me);
		for (size_t i = 0; i + 1 < n; i++)
			if (w[i] != u) {
				fprintf(stderr, "%s: torn update %u at word %zu (%u)\n", me, u, i, w[i]);
				exit(1);
			}
		atomic_store_explicit((volatile _Atomic uint32_t *)(void *)ack, u, memory_order_release);
	}
}

static double lead(volatile uint8_t *block, size_t size, volatile uint8_t *ack, int updates,
		   const char *me)
{
	uint64_t t0 = bench_now_ns();

	for (uint32_t u = 1; u <= (uint32_t)updates; u++) {
		publish(block, size, u);
		sb_await32((volatile uint32_t *)(void *)ack, u, me);
	}
	return (double)(bench_now_ns() - t0) / updates;
}

static int server(struct sb_node *n)
{
	uint64_t size, updates, cmd;

	while ((cmd = sb_next_command(n, &size, &updates)) != CMD_QUIT) {
		volatile uint8_t *mine = cmd == CMD_RAW ? n->raw_mine : n->local_mem;
		volatile uint8_t *writer = cmd == CMD_RAW ? n->raw_peer : n->remote_mem;

		memset((void *)(mine + SB_CTRL_BYTES), 0, size);
		sb_ack(n);
		follow(mine + SB_CTRL_BYTES, size, writer + ACK_OFFSET, (int)updates, n->me);
	}
	sb_ack(n);
	return 0;
}

static double run(struct sb_node *n, uint64_t cmd, size_t size, int updates)
{
	volatile uint8_t *mine = cmd == CMD_RAW ? n->raw_mine : n->local_mem;
	volatile uint8_t *reader = cmd == CMD_RAW ? n->raw_peer : n->remote_mem;

	atomic_store((volatile _Atomic uint32_t *)(void *)(mine + ACK_OFFSET), 0);
	sb_command(n, cmd, size, (uint64_t)updates);
	return lead(reader + SB_CTRL_BYTES, size, mine + ACK_OFFSET, updates, n->me);
}

static void client(struct sb_node *n, const struct sb_opts *o, bool broadcast)
{
	const struct bench_opts *b = &o->bench;
	double ours[64], base[64];
	int reps = b->repetitions > 64 ? 64 : b->repetitions;

	if (!b->csv)
		printf("# reflective block to 1 reader: %s\n",
		       broadcast ? "provider broadcast" : "no broadcast in this provider: one store per reader");
	bench_header(b, "reflective", "time per checked block update, writer -> reader", "sisci_ns",
		     "raw_ns");
	for (size_t size = 64; size <= b->max_size; size *= 4) {
		int updates = (int)((uint64_t)b->iterations * 256 / (size / 16 + 256)) + 1;

		for (int r = 0; r < reps; r++) {
			base[r] = run(n, CMD_RAW, size, updates);
			ours[r] = run(n, CMD_SISCI, size, updates);
		}
		bench_row_samples(b, size, updates, ours, base, reps);
	}
	sb_command(n, CMD_QUIT, 0, 0);
}

/* Does this provider broadcast? Ask it with a throw-away segment. */
static bool provider_broadcasts(struct sb_node *n)
{
	sci_local_segment_t probe;
	sci_error_t err;

	SCICreateSegment(n->sd, &probe, 0, 4096, NULL, NULL, SCI_FLAG_BROADCAST | SCI_FLAG_AUTO_ID, &err);
	if (err != SCI_ERR_OK)
		return false;
	SCIRemoveSegment(probe, 0, &err);
	return true;
}

int main(int argc, char **argv)
{
	struct sb_opts o = { .bench = { .iterations = 20000, .repetitions = 3, .max_size = 16384 },
			     .segment_id = SEGMENT_ID };
	struct sb_node n = { 0 };

	sb_parse(argc, argv, &o, "Reflective memory: checked block updates, writer to reader.\n");
	bench_pin_thread(o.server ? 1 : 0);
	sb_node_open(&n, &o);
	sb_need_mapping(&n);
	if (o.server)
		server(&n);
	else
		client(&n, &o, provider_broadcasts(&n));
	sb_node_close(&n);
	return sb_finish(&o);
}
