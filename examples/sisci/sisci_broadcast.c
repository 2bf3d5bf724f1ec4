/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/sisci/sisci_broadcast.c: reflective memory, the broadcast pattern
 * of SISCI: a writer keeps a block that every reader sees. Where the provider
 * has broadcast groups, the reader creates a segment with SCI_FLAG_BROADCAST
 * and the writer maps the group (DIS_BROADCAST_NODEID_GROUP_ALL) and pushes
 * each update with SCIFlush; without, it stores into the reader's segment,
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

enum { CMD_RAW = 1, CMD_SISCI, CMD_QUIT, CMD_GROUP_SETUP, CMD_GROUP };

#define SEGMENT_ID 0xb0ad
#define GROUP_ID 0xb0ae    /* the readers' broadcast segments */
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

/* Write each update (pushed with SCIFlush on a group map: push not NULL) and await its ack. */
static double lead(volatile uint8_t *block, size_t size, volatile uint8_t *ack, int updates,
		   sci_sequence_t push, const char *me)
{
	uint64_t t0 = bench_now_ns();

	for (uint32_t u = 1; u <= (uint32_t)updates; u++) {
		publish(block, size, u);
		if (push)
			SCIFlush(push, 0);
		sb_await32((volatile uint32_t *)(void *)ack, u, me);
	}
	return (double)(bench_now_ns() - t0) / updates;
}

/* The reader's broadcast segment, a member of the writer's group. */
struct group_member {
	sci_local_segment_t seg;
	sci_map_t map;
	volatile uint8_t *mem;
};

static void member_open(struct sb_node *n, struct group_member *g, size_t size)
{
	sci_error_t err;

	SCICreateSegment(n->sd, &g->seg, GROUP_ID, size, NULL, NULL, SCI_FLAG_BROADCAST, &err);
	sb_check(err, "SCICreateSegment(SCI_FLAG_BROADCAST)");
	SCIPrepareSegment(g->seg, 0, 0, &err);
	sb_check(err, "SCIPrepareSegment");
	SCISetSegmentAvailable(g->seg, 0, 0, &err);
	sb_check(err, "SCISetSegmentAvailable");
	g->mem = SCIMapLocalSegment(g->seg, &g->map, 0, size, NULL, 0, &err);
	sb_check(err, "SCIMapLocalSegment");
}

static void member_close(struct group_member *g)
{
	unsigned int node, adapter;
	sci_error_t err;

	if (!g->mem)
		return;
	SCIUnmapSegment(g->map, 0, &err);
	sb_check(err, "SCIUnmapSegment(group)");
	/* The writer leaves its group before it quits; its disconnect may still be on its way. */
	for (int tries = 0; tries < 100; tries++) {
		SCIRemoveSegment(g->seg, 0, &err);
		if (err != SCI_ERR_BUSY)
			break;
		(void)SCIWaitForLocalSegmentEvent(g->seg, &node, &adapter, 100, 0, &err);
	}
	sb_check(err, "SCIRemoveSegment(group)");
}

static int server(struct sb_node *n)
{
	struct group_member g = { 0 };
	uint64_t size, updates, cmd;

	while ((cmd = sb_next_command(n, &size, &updates)) != CMD_QUIT) {
		volatile uint8_t *mine = cmd == CMD_RAW ? n->raw_mine : cmd == CMD_GROUP ? g.mem : n->local_mem;
		volatile uint8_t *writer = cmd == CMD_RAW ? n->raw_peer : n->remote_mem;

		if (cmd == CMD_GROUP_SETUP) {
			member_open(n, &g, SB_CTRL_BYTES + size);
			sb_ack(n);
			continue;
		}
		memset((void *)(mine + SB_CTRL_BYTES), 0, size);
		sb_ack(n);
		follow(mine + SB_CTRL_BYTES, size, writer + ACK_OFFSET, (int)updates, n->me);
	}
	sb_ack(n);
	member_close(&g);
	return 0;
}

/* The writer's side of the group: the connect to every reader's broadcast segment, mapped. */
struct group_writer {
	sci_remote_segment_t group;
	sci_map_t map;
	sci_sequence_t seq;
	volatile uint8_t *mem;
};

static double run(struct sb_node *n, const struct group_writer *g, uint64_t cmd, size_t size,
		  int updates)
{
	volatile uint8_t *mine = cmd == CMD_RAW ? n->raw_mine : n->local_mem;
	volatile uint8_t *reader = cmd == CMD_RAW ? n->raw_peer : cmd == CMD_GROUP ? g->mem : n->remote_mem;

	atomic_store((volatile _Atomic uint32_t *)(void *)(mine + ACK_OFFSET), 0);
	sb_command(n, cmd, size, (uint64_t)updates);
	return lead(reader + SB_CTRL_BYTES, size, mine + ACK_OFFSET, updates,
		    cmd == CMD_GROUP ? g->seq : NULL, n->me);
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

/* Have the reader create its member segment, then connect to the group and map it. */
static void group_open(struct sb_node *n, struct group_writer *g, size_t size)
{
	sci_error_t err;

	sb_command(n, CMD_GROUP_SETUP, size, 0);
	SCIConnectSegment(n->sd, &g->group, DIS_BROADCAST_NODEID_GROUP_ALL, GROUP_ID, 0, NULL, NULL,
			  SCI_INFINITE_TIMEOUT, SCI_FLAG_BROADCAST, &err);
	sb_check(err, "SCIConnectSegment(DIS_BROADCAST_NODEID_GROUP_ALL)");
	g->mem = SCIMapRemoteSegment(g->group, &g->map, 0, SB_CTRL_BYTES + size, NULL,
				     SCI_FLAG_BROADCAST, &err);
	sb_check(err, "SCIMapRemoteSegment(SCI_FLAG_BROADCAST)");
	SCICreateMapSequence(g->map, &g->seq, 0, &err);
	sb_check(err, "SCICreateMapSequence");
}

static void group_close(struct group_writer *g)
{
	sci_error_t err;

	if (!g->mem)
		return;
	SCIRemoveSequence(g->seq, 0, &err);
	sb_check(err, "SCIRemoveSequence");
	SCIUnmapSegment(g->map, 0, &err);
	sb_check(err, "SCIUnmapSegment(group)");
	SCIDisconnectSegment(g->group, 0, &err);
	sb_check(err, "SCIDisconnectSegment(group)");
}

static void client(struct sb_node *n, const struct sb_opts *o)
{
	const struct bench_opts *b = &o->bench;
	struct group_writer g = { 0 };
	bool broadcast = provider_broadcasts(n);
	double ours[64], base[64];
	int reps = b->repetitions > 64 ? 64 : b->repetitions;

	if (broadcast)
		group_open(n, &g, b->max_size);
	if (!b->csv)
		printf("# reflective block to 1 reader: %s\n",
		       broadcast ? "a broadcast group (SCI_FLAG_BROADCAST), each update pushed by SCIFlush"
				 : "no broadcast in this provider: stores into the reader's segment");
	bench_header(b, "reflective", "time per checked block update, writer -> reader", "sisci_ns",
		     "raw_ns");
	for (size_t size = 64; size <= b->max_size; size *= 4) {
		int updates = (int)((uint64_t)b->iterations * 256 / (size / 16 + 256)) + 1;

		for (int r = 0; r < reps; r++) {
			base[r] = run(n, &g, CMD_RAW, size, updates);
			ours[r] = run(n, &g, broadcast ? CMD_GROUP : CMD_SISCI, size, updates);
		}
		bench_row_samples(b, size, updates, ours, base, reps);
	}
	group_close(&g);
	sb_command(n, CMD_QUIT, 0, 0);
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
		client(&n, &o);
	sb_node_close(&n);
	return sb_finish(&o);
}
