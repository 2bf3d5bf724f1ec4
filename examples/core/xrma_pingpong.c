/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/core/xrma_pingpong.c: provider-level latency and bandwidth through
 * the core API, with the physical floor measured in the same run.
 *   1. mapped ping-pong: two nodes store a sequence number into each other's
 *      imported segment; one-way latency against a raw cache-line ping-pong
 *      between the same two threads;
 *   2. RMA write (XRMA_RMA_SYNC) against memcpy of the same size.
 * Both nodes live in this process (two contexts, two threads); with a provider
 * that spans processes the same calls work between processes.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xrma/xrma.h>
#include "../common/bench.h"

#define FLAG_SEG_ID 0x1000
#define DATA_SEG_ID 0x2000
/* A peer silent this long has failed: report it instead of hanging. */
#define STALL_NS 2000000000ull

static int check(int ret, const char *what)
{
	if (ret < 0) {
		fprintf(stderr, "xrma_pingpong: %s: %s\n", what, xrma_strerror(ret));
		exit(1);
	}
	return ret;
}

/* Wait until *flag == want; false after STALL_NS. */
static bool await(volatile _Atomic uint64_t *flag, uint64_t want)
{
	uint64_t start = 0;

	for (uint32_t spins = 0;; spins++) {
		if (atomic_load_explicit(flag, memory_order_acquire) == want)
			return true;
		if ((spins & 0xffff) == 0) {
			uint64_t now = bench_now_ns();

			if (!start)
				start = now;
			else if (now - start > STALL_NS)
				return false;
		}
	}
}

struct pingpong {
	_Atomic uint64_t *my_flag;      /* where the peer's stores land */
	_Atomic uint64_t *peer_flag;    /* where mine go */
	int iterations;
	int pu;
	bool initiator;
	double ns;                      /* one-way, from the initiator */
	bool failed;
	pthread_barrier_t *start;
};

static void *pingpong_main(void *arg)
{
	struct pingpong *p = arg;
	uint64_t t0;

	bench_pin_thread(p->pu);
	pthread_barrier_wait(p->start);
	t0 = bench_now_ns();
	for (uint64_t i = 1; i <= (uint64_t)p->iterations; i++) {
		if (p->initiator) {
			atomic_store_explicit(p->peer_flag, i, memory_order_release);
			if (!await(p->my_flag, i))
				goto stalled;
		} else {
			if (!await(p->my_flag, i))
				goto stalled;
			atomic_store_explicit(p->peer_flag, i, memory_order_release);
		}
	}
	p->ns = (double)(bench_now_ns() - t0) / p->iterations / 2;
	return NULL;
stalled:
	p->failed = true;
	return NULL;
}

/* One repetition: two threads, flags a (initiator's) and b; returns one-way ns. */
static double run_pingpong(_Atomic uint64_t *a_local, _Atomic uint64_t *a_remote,
			   _Atomic uint64_t *b_local, _Atomic uint64_t *b_remote, int iterations)
{
	pthread_barrier_t start;
	pthread_t t[2];
	struct pingpong p[2] = {
		{ .my_flag = a_local, .peer_flag = b_remote, .iterations = iterations, .pu = 0,
		  .initiator = true, .start = &start },
		{ .my_flag = b_local, .peer_flag = a_remote, .iterations = iterations, .pu = 1,
		  .start = &start },
	};

	atomic_store(a_local, 0);
	atomic_store(b_local, 0);
	pthread_barrier_init(&start, NULL, 2);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, pingpong_main, &p[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	if (p[0].failed || p[1].failed) {
		fprintf(stderr, "xrma_pingpong: a peer stalled\n");
		exit(1);
	}
	return p[0].ns;
}

struct node {
	struct xrma_ctx *ctx;
	struct xrma_seg *flag_seg, *data_seg;
	struct xrma_rseg *peer_flag, *peer_data;
	void *flag_local, *flag_mapped, *data_local;
};

static void node_open(struct node *n, uint32_t id, const char *fabric)
{
	struct xrma_ctx_attr attr = { .fabric = fabric, .node_id = id };
	struct xrma_seg_attr seg = { .len = 4096, .id = FLAG_SEG_ID, .access = XRMA_ACCESS_ALL };

	check(xrma_ctx_open(&attr, &n->ctx), "xrma_ctx_open");
	check(xrma_seg_open(n->ctx, &seg, &n->flag_seg), "xrma_seg_open(flag)");
	check(xrma_seg_export(n->flag_seg, 0), "xrma_seg_export(flag)");
	check(xrma_seg_addr(n->flag_seg, &n->flag_local), "xrma_seg_addr");
}

static void node_connect(struct node *n, uint32_t peer)
{
	check(xrma_rseg_open(n->ctx, peer, FLAG_SEG_ID, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
			     0, 5000, &n->peer_flag),
	      "xrma_rseg_open(flag)");
	check(xrma_rseg_map(n->peer_flag, 0, 64, XRMA_MAP_READ | XRMA_MAP_WRITE, &n->flag_mapped),
	      "xrma_rseg_map");
}

static void latency(const struct bench_opts *opts, struct node *a, struct node *b)
{
	double *ours = calloc((size_t)opts->repetitions, sizeof(double));
	double *base = calloc((size_t)opts->repetitions, sizeof(double));
	_Atomic uint64_t *raw = aligned_alloc(128, 256);

	if (!ours || !base || !raw)
		exit(1);
	bench_header(opts, "mapped_pingpong", "one-way latency", "xrma_ns", "raw_ns");
	for (int r = 0; r < opts->repetitions; r++) {
		/* Interleaved, so both see the same machine state. */
		base[r] = run_pingpong(&raw[0], &raw[0], &raw[16], &raw[16], opts->iterations);
		ours[r] = run_pingpong(a->flag_local, b->flag_mapped, b->flag_local, a->flag_mapped,
				       opts->iterations);
	}
	{
		double om = bench_min(ours, opts->repetitions), bm = bench_min(base, opts->repetitions);
		double omed = bench_median(ours, opts->repetitions);
		double bmed = bench_median(base, opts->repetitions);

		bench_row(opts, 8, opts->iterations, omed, om, bmed, bm);
	}
	free(raw);
	free(ours);
	free(base);
}

static void bandwidth(const struct bench_opts *opts, struct node *a, struct node *b)
{
	struct xrma_seg_attr seg = { .len = opts->max_size, .access = XRMA_ACCESS_ALL, .id = DATA_SEG_ID };
	double *ours = calloc((size_t)opts->repetitions, sizeof(double));
	double *base = calloc((size_t)opts->repetitions, sizeof(double));
	char *src = malloc(opts->max_size), *dst = malloc(opts->max_size);
	struct xrma_dmaq *q;

	if (!ours || !base || !src || !dst)
		exit(1);
	memset(src, 0x5a, opts->max_size);
	memset(dst, 0, opts->max_size);
	check(xrma_seg_open(b->ctx, &seg, &b->data_seg), "xrma_seg_open(data)");
	check(xrma_seg_export(b->data_seg, 0), "xrma_seg_export(data)");
	seg.flags = XRMA_SEG_PRIVATE;
	check(xrma_seg_open(a->ctx, &seg, &a->data_seg), "xrma_seg_open(local)");
	check(xrma_seg_addr(a->data_seg, &a->data_local), "xrma_seg_addr");
	memset(a->data_local, 0xa5, opts->max_size);
	check(xrma_rseg_open(a->ctx, 2, DATA_SEG_ID, XRMA_ACCESS_REMOTE_WRITE, 0, 5000, &a->peer_data),
	      "xrma_rseg_open(data)");
	check(xrma_dmaq_open(a->ctx, 64, 0, &q), "xrma_dmaq_open");
	bench_pin_thread(0);
	bench_header(opts, "rma_write_sync", "node 1 -> node 2", "xrma_GBps", "memcpy_GBps");
	for (size_t size = 8;; size = size * 4 < opts->max_size ? size * 4 : opts->max_size) {
		struct xrma_iov iov = { .seg = a->data_seg, .offset = 0, .len = size };
		int iters = (int)(opts->iterations * 64 / (size / 8 + 64)) + 1;

		for (int r = 0; r < opts->repetitions; r++) {
			uint64_t t0 = bench_now_ns();

			for (int i = 0; i < iters; i++)
				memcpy(dst, src, size);
			base[r] = (double)size * iters / (double)(bench_now_ns() - t0);
			t0 = bench_now_ns();
			for (int i = 0; i < iters; i++)
				check(xrma_dmaq_post(q, XRMA_RMA_WRITE, &iov, 1, a->peer_data, 0, size, 0,
						     XRMA_RMA_SYNC),
				      "xrma_dmaq_post");
			ours[r] = (double)size * iters / (double)(bench_now_ns() - t0);
		}
		bench_row(opts, size, iters, bench_median(ours, opts->repetitions),
			  bench_min(ours, opts->repetitions), bench_median(base, opts->repetitions),
			  bench_min(base, opts->repetitions));
		if (size == opts->max_size)
			break;
	}
	/* The data must have arrived: verify outside the timed loop. */
	{
		void *remote;

		check(xrma_seg_addr(b->data_seg, &remote), "xrma_seg_addr");
		if (memcmp(remote, a->data_local, opts->max_size)) {
			fprintf(stderr, "xrma_pingpong: RMA data mismatch\n");
			exit(1);
		}
	}
	check(xrma_dmaq_close(q), "xrma_dmaq_close");
	free(src);
	free(dst);
	free(ours);
	free(base);
}

static void node_close(struct node *n)
{
	if (n->peer_data)
		check(xrma_rseg_close(n->peer_data), "xrma_rseg_close(data)");
	check(xrma_rseg_unmap(n->peer_flag, n->flag_mapped), "xrma_rseg_unmap");
	check(xrma_rseg_close(n->peer_flag), "xrma_rseg_close");
}

static void node_free(struct node *n)
{
	if (n->data_seg)
		check(xrma_seg_close(n->data_seg), "xrma_seg_close(data)");
	check(xrma_seg_close(n->flag_seg), "xrma_seg_close");
	check(xrma_ctx_close(n->ctx), "xrma_ctx_close");
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .iterations = 100000, .repetitions = 5, .max_size = 1 << 20 };
	struct node a = { 0 }, b = { 0 };
	struct xrma_ctx_info info;
	char fabric[32];

	bench_parse(argc, argv, &opts, "Mapped ping-pong and RMA write between two nodes.\n");
	if (opts.max_size < 8)
		opts.max_size = 8;
	snprintf(fabric, sizeof(fabric), "pingpong-%d", (int)getpid());
	node_open(&a, 1, fabric);
	node_open(&b, 2, fabric);
	check(xrma_ctx_query(a.ctx, &info), "xrma_ctx_query");
	if (!(info.caps.flags & XRMA_CAP_MAP)) {
		fprintf(stderr, "xrma_pingpong: provider %s cannot map remote memory; nothing to measure\n",
			info.provider);
		return 1;
	}
	if (!opts.csv)
		printf("# provider=%s fabric=%s nodes=1<->2\n", info.provider, info.fabric);
	node_connect(&a, 2);
	node_connect(&b, 1);
	latency(&opts, &a, &b);
	bandwidth(&opts, &a, &b);
	node_close(&a);
	node_close(&b);
	node_free(&a);
	node_free(&b);
	return 0;
}
