/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/sisci/sisci_dma_bench.c: DMA bandwidth through SISCI, like
 * Dolphin's dma_bench: SCIStartDmaTransfer (SCI_FLAG_DMA_WAIT) from a local
 * segment into the server's segment and back (SCI_FLAG_DMA_READ), for sizes
 * from 64 B to 16 MiB, against memcpy into and out of a raw shared page that
 * the same two processes share (the floor). The bytes are checked afterwards
 * by reading them back through a second DMA. Two latency tables follow: a
 * posted transfer's start-to-wait time (SCIStartDmaTransfer without
 * SCI_FLAG_DMA_WAIT, then SCIWaitForDMAQueue; and SCIResetDMAQueue,
 * SCIEnqueueDMATransfer, SCIPostDMAQueue, SCIWaitForDMAQueue), each against
 * SCIStartDmaTransfer(SCI_FLAG_DMA_WAIT) of the same size, the two timed in
 * alternation within every repetition so the ratio is a same-run one.
 *   sisci_dma_bench | sisci_dma_bench -server -rn 1 | sisci_dma_bench -client -rn 2
 * On the ofi provider (XRMA_PROVIDER=ofi; a node file for nodes 1 and 2 on
 * 127.0.0.1 is made unless XRMA_OFI_NODES names one) the baseline is raw
 * libfabric instead (examples/common/bench_fabric.h): fi_writemsg with delivery
 * complete, or fi_readmsg, of the same size, one at a time like DMA_WAIT, to
 * a raw target process of this run, same libfabric provider.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sisci_bench.h"
#include "../common/bench_fabric.h"

enum { CMD_QUIT = 1 };

#define SEGMENT_ID 0xd3a0

struct dma_side {
	sci_local_segment_t seg;
	sci_map_t map;
	uint8_t *mem;
};

static void side_open(struct sb_node *n, struct dma_side *s, size_t size)
{
	sci_error_t err;

	SCICreateSegment(n->sd, &s->seg, 0, size, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	sb_check(err, "SCICreateSegment(local)");
	SCIPrepareSegment(s->seg, 0, 0, &err);
	sb_check(err, "SCIPrepareSegment(local)");
	s->mem = SCIMapLocalSegment(s->seg, &s->map, 0, size, NULL, 0, &err);
	sb_check(err, "SCIMapLocalSegment(local)");
}

static void side_close(struct dma_side *s)
{
	sci_error_t err;

	SCIUnmapSegment(s->map, 0, &err);
	SCIRemoveSegment(s->seg, 0, &err);
	sb_check(err, "SCIRemoveSegment(local)");
}

struct dma_run {
	struct sb_node *n;
	sci_dma_queue_t dq;
	struct dma_side *local;
	unsigned int flags;
};

static void dma_once(void *ctx, size_t size)
{
	struct dma_run *d = ctx;
	sci_error_t err;

	SCIStartDmaTransfer(d->dq, d->local->seg, d->n->remote, 0, size, SB_CTRL_BYTES, NULL, NULL,
			    d->flags, &err);
	sb_check(err, "SCIStartDmaTransfer");
}

struct raw_run {
	struct bench_fabric_link *link;
	bool read;
};

static void raw_rounds(void *ctx, size_t size, int iterations)
{
	struct raw_run *r = ctx;

	bench_fabric_link_round(r->link, r->read, size, iterations, 1);
}

static void direction(struct sb_node *n, const struct sb_opts *o, sci_dma_queue_t dq,
		      struct dma_side *local, bool read, struct bench_fabric_link *link)
{
	struct dma_run run = { n, dq, local, SCI_FLAG_DMA_WAIT | (read ? SCI_FLAG_DMA_READ : 0) };
	uint8_t *raw = (uint8_t *)n->raw_peer + SB_CTRL_BYTES;

	if (!bench_selected(&o->bench, read ? "dma_read" : "dma_write"))
		return;

	if (link) {
		struct raw_run r = { link, read };

		bench_header(&o->bench, read ? "dma_read" : "dma_write",
			     read ? "server segment -> local segment, SCIStartDmaTransfer(DMA_WAIT|DMA_READ) "
				    "vs raw fi_readmsg"
				  : "local segment -> server segment, SCIStartDmaTransfer(DMA_WAIT) "
				    "vs raw fi_writemsg(DELIVERY_COMPLETE)",
			     "sisci_GBps", read ? "fi_read_GBps" : "fi_write_GBps");
		sb_bandwidth_rows_vs(&o->bench, raw_rounds, &r, dma_once, &run);
		return;
	}

	bench_header(&o->bench, read ? "dma_read" : "dma_write",
		     read ? "server segment -> local segment, SCIStartDmaTransfer(DMA_WAIT|DMA_READ)"
			  : "local segment -> server segment, SCIStartDmaTransfer(DMA_WAIT)",
		     "sisci_GBps", "memcpy_GBps");
	sb_bandwidth_rows(&o->bench, read ? (void *)local->mem : raw, read ? raw : local->mem, dma_once,
			  &run);
}

/* One posted write of size bytes, start to wait: the two ways a program posts. */
static void posted_once(struct dma_run *d, size_t size, bool queue_api)
{
	sci_dma_queue_state_t state;
	sci_error_t err;

	if (queue_api) {
		SCIResetDMAQueue(d->dq, 0, &err);
		sb_check(err, "SCIResetDMAQueue");
		SCIEnqueueDMATransfer(d->dq, d->local->seg, d->n->remote, 0, SB_CTRL_BYTES, size, 0, &err);
		sb_check(err, "SCIEnqueueDMATransfer");
		SCIPostDMAQueue(d->dq, NULL, NULL, 0, &err);
		sb_check(err, "SCIPostDMAQueue");
	} else {
		SCIStartDmaTransfer(d->dq, d->local->seg, d->n->remote, 0, size, SB_CTRL_BYTES, NULL, NULL,
				    0, &err);
		sb_check(err, "SCIStartDmaTransfer(posted)");
	}
	state = SCIWaitForDMAQueue(d->dq, SCI_INFINITE_TIMEOUT, 0, &err);
	sb_check(err, "SCIWaitForDMAQueue");
	if (state != SCI_DMAQUEUE_DONE) {
		fprintf(stderr, "client: a posted DMA ended in state %d\n", (int)state);
		exit(1);
	}
}

/*
 * Nanoseconds per posted write against per SCI_FLAG_DMA_WAIT write, sizes 64 B
 * .. max by 4; within each repetition the two loops run back to back.
 */
static void posted_rows(struct sb_node *n, const struct sb_opts *o, sci_dma_queue_t dq,
			struct dma_side *local, bool queue_api)
{
	struct dma_run wait = { n, dq, local, SCI_FLAG_DMA_WAIT }, posted = { n, dq, local, 0 };
	double mine[64], base[64];
	int reps = o->bench.repetitions > 64 ? 64 : o->bench.repetitions;

	if (!bench_selected(&o->bench, queue_api ? "dma_posted_queue" : "dma_posted"))
		return;
	bench_header(&o->bench, queue_api ? "dma_posted_queue" : "dma_posted",
		     queue_api ? "local segment -> server segment, SCIResetDMAQueue + SCIEnqueueDMATransfer + "
				 "SCIPostDMAQueue + SCIWaitForDMAQueue vs SCIStartDmaTransfer(DMA_WAIT)"
			       : "local segment -> server segment, SCIStartDmaTransfer(no flags) + "
				 "SCIWaitForDMAQueue vs SCIStartDmaTransfer(DMA_WAIT)",
		     "sisci_ns", "dma_wait_ns");
	for (size_t size = 64; size <= o->bench.max_size; size *= 4) {
		int iters = (int)((uint64_t)o->bench.iterations * 4096 / (size + 4096)) + 1;

		for (int r = 0; r < reps; r++) {
			uint64_t t0 = bench_now_ns();

			for (int i = 0; i < iters; i++)
				dma_once(&wait, size);
			base[r] = (double)(bench_now_ns() - t0) / iters;
			t0 = bench_now_ns();
			for (int i = 0; i < iters; i++)
				posted_once(&posted, size, queue_api);
			mine[r] = (double)(bench_now_ns() - t0) / iters;
		}
		bench_row_samples(&o->bench, size, iters, mine, base, reps);
	}
}

/* Write a pattern by DMA, read it back by DMA into another segment, compare. */
static void verify(struct sb_node *n, sci_dma_queue_t dq, struct dma_side *a, struct dma_side *b,
		   size_t size)
{
	sci_error_t err;

	for (size_t i = 0; i < size; i++)
		a->mem[i] = (uint8_t)(i * 7 + 1);
	SCIStartDmaTransfer(dq, a->seg, n->remote, 0, size, SB_CTRL_BYTES, NULL, NULL, SCI_FLAG_DMA_WAIT,
			    &err);
	sb_check(err, "SCIStartDmaTransfer(verify write)");
	memset(b->mem, 0, size);
	SCIStartDmaTransfer(dq, b->seg, n->remote, 0, size, SB_CTRL_BYTES, NULL, NULL,
			    SCI_FLAG_DMA_WAIT | SCI_FLAG_DMA_READ, &err);
	sb_check(err, "SCIStartDmaTransfer(verify read)");
	if (memcmp(a->mem, b->mem, size)) {
		fprintf(stderr, "client: DMA data did not arrive intact\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct sb_opts o = { .bench = { .iterations = 2000, .repetitions = 3, .max_size = 16u << 20,
				      .selectable = true },
			     .segment_id = SEGMENT_ID };
	struct sb_node n = { 0 };
	struct dma_side a, b;
	struct bench_fabric_link link = { 0 };
	sci_dma_queue_t dq;
	sci_error_t err;
	bool ofi = bench_fabric_ofi_selected(1, 2);

	sb_parse(argc, argv, &o, "DMA bandwidth, both directions, 64 B .. 16 MiB.\n");
	/* Before any xrma thread: the raw target is a process of its own. */
	if (ofi && !o.server)
		bench_fabric_link_start(&link, o.bench.max_size, 1);
	bench_pin_thread(o.server ? 1 : 0);
	sb_node_open(&n, &o);
	if (o.server) {
		sb_serve_until(&n, CMD_QUIT);
	} else {
		if (!o.bench.csv)
			printf("# sisci_dma_bench node %u <-> node %u\n", n.self, n.peer);
		side_open(&n, &a, o.bench.max_size);
		side_open(&n, &b, o.bench.max_size);
		SCICreateDMAQueue(n.sd, &dq, 0, 1, 0, &err);
		sb_check(err, "SCICreateDMAQueue");
		memset(a.mem, 0x5a, o.bench.max_size);
		direction(&n, &o, dq, &a, false, link.up ? &link : NULL);
		direction(&n, &o, dq, &a, true, link.up ? &link : NULL);
		posted_rows(&n, &o, dq, &a, false);
		posted_rows(&n, &o, dq, &a, true);
		verify(&n, dq, &a, &b, o.bench.max_size);
		SCIRemoveDMAQueue(dq, 0, &err);
		sb_check(err, "SCIRemoveDMAQueue");
		side_close(&a);
		side_close(&b);
		sb_command(&n, CMD_QUIT, 0, 0);
	}
	sb_node_close(&n);
	bench_fabric_link_stop(&link);
	return sb_finish(&o);
}
