/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/ofi/ofi_rma_bench.c: xrma RMA over the ofi provider against raw
 * libfabric, same libfabric provider, same sizes, same two processes, same run:
 *   1. ping-pong: node 1 writes size bytes into node 2's segment, node 2 sees
 *      the last word change and writes back; one-way latency. xrma posts a
 *      synchronous write (XRMA_RMA_SYNC); raw posts fi_writemsg with
 *      FI_DELIVERY_COMPLETE (the guarantee xrma gives). Both wait the same
 *      way: raw reads its CQ between looks at the word, xrma calls
 *      xrma_ctx_progress, so the application's thread moves the data on both.
 *   2. the ping-pong of a program that never calls into xrma while it waits,
 *      leaving the data to xrma's progress thread, against raw libfabric run
 *      with such a thread (bench_fabric_pingpong_threaded): the cost of that
 *      division of labour, on a CPU the two threads share.
 *   3. stream: node 1 writes size bytes 16 at a time in flight; time per write.
 *      xrma posts asynchronous writes to a DMA queue; raw keeps 16 fi_writemsg
 *      in flight.
 * Run without arguments: it writes a node file for two free ports on
 * 127.0.0.1, starts its peer (node 2, this program again), and uses
 * XRMA_OFI_PROVIDER (default tcp;ofi_rxm) for both xrma and the baseline.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xrma/xrma.h>
#include "../common/bench.h"
#include "../common/bench_fabric.h"

#define SEG_ID 0x1000
#define WINDOW 16   /* the stream's writes in flight, xrma's and raw */
#define STALL_NS 10000000000ull
#define LINK_TIMEOUT_MS ((int)(STALL_NS / 1000000))
#define PEER_FLAG "--xrma-ofi-bench-peer"

enum phase {
	PHASE_RAW_PP = 1,
	PHASE_RAW_PP_THREADED,
	PHASE_XRMA_PP,
	PHASE_XRMA_PP_DRIVEN,
	PHASE_RAW_BW,
	PHASE_XRMA_BW,
	PHASE_QUIT
};

/* The tables, each xrma against one raw phase. */
static const struct table {
	const char *name, *metric, *baseline;
	enum phase raw, ours;
} tables[] = {
	{ "rma_write_pingpong (the application drives progress)", "xrma_us_one_way", "fi_write_us",
	  PHASE_RAW_PP, PHASE_XRMA_PP_DRIVEN },
	{ "rma_write_pingpong (a progress thread moves the data)", "xrma_us_one_way",
	  "fi_write_threaded_us", PHASE_RAW_PP_THREADED, PHASE_XRMA_PP },
	{ "rma_write_stream (16 in flight)", "xrma_us_per_write", "fi_write_us", PHASE_RAW_BW,
	  PHASE_XRMA_BW },
};

static const char *me = "ofi_rma_bench";

static void die(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", me, what, why);
	exit(1);
}

static void check(int ret, const char *what)
{
	if (ret < 0) {
		const char *d = xrma_error_detail();
		char msg[512];

		snprintf(msg, sizeof(msg), "%s%s%s", xrma_strerror(ret), *d ? ": " : "", d);
		die(what, msg);
	}
}


/* ---- the measured loops (raw libfabric: examples/common/bench_fabric.h) ---- */

struct side {
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;      /* exported: the peer writes here */
	struct xrma_seg *src;      /* private: what we write */
	struct xrma_rseg *peer;
	struct xrma_dmaq *q;
	unsigned char *mine, *src_p;
};

static void progress_step(void *ctx)
{
	check(xrma_ctx_progress(ctx), "xrma_ctx_progress");
}

/* Wait for the peer's write of round want: driving progress, or leaving it to xrma's thread. */
static void xrma_await_word(struct side *s, size_t len, uint64_t want, bool drive)
{
	bench_await_word(s->mine, len, want, drive ? progress_step : NULL, s->ctx);
}

static double xrma_pingpong(struct side *s, size_t len, int iters, bool initiator, bool drive)
{
	struct xrma_iov iov = { .seg = s->src, .offset = 0, .len = len };
	uint64_t t0 = bench_now_ns();

	for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
		if (!initiator)
			xrma_await_word(s, len, i, drive);
		memcpy(s->src_p + len - 8, &i, 8);
		check(xrma_dmaq_post(s->q, XRMA_RMA_WRITE, &iov, 1, s->peer, 0, len, i,
				     XRMA_RMA_SYNC), "xrma_dmaq_post");
		if (initiator)
			xrma_await_word(s, len, i, drive);
	}
	return (double)(bench_now_ns() - t0) / iters / 2 / 1000.0;
}

static double xrma_stream(struct side *s, size_t len, int iters)
{
	struct xrma_iov iov = { .seg = s->src, .offset = 0, .len = len };
	int posted = 0, done = 0;
	uint64_t t0 = bench_now_ns();

	while (done < iters) {
		struct xrma_completion c;

		while (posted < iters && posted - done < WINDOW) {
			check(xrma_dmaq_post(s->q, XRMA_RMA_WRITE, &iov, 1, s->peer, 0, len,
					     (uint64_t)posted, 0), "xrma_dmaq_post");
			posted++;
		}
		check(xrma_dmaq_wait(s->q, &c, (int)(STALL_NS / 1000000)), "xrma_dmaq_wait");
		check(-c.status, "stream write");
		done++;
	}
	return (double)(bench_now_ns() - t0) / iters / 1000.0;
}

/* ---- set-up ---- */

static void xrma_side_open(struct side *s, uint32_t node, int sock, size_t max)
{
	struct xrma_ctx_attr attr = { .provider = "ofi", .node_id = node };
	struct xrma_seg_attr sa = { .len = max, .id = SEG_ID, .access = XRMA_ACCESS_ALL };
	struct xrma_seg_attr pa = { .len = max, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
				    .flags = XRMA_SEG_PRIVATE };

	check(xrma_ctx_open(&attr, &s->ctx), "xrma_ctx_open");
	check(xrma_seg_open(s->ctx, &sa, &s->seg), "xrma_seg_open");
	check(xrma_seg_export(s->seg, 0), "xrma_seg_export");
	check(xrma_seg_open(s->ctx, &pa, &s->src), "xrma_seg_open (source)");
	xrma_seg_addr(s->seg, (void **)&s->mine);
	xrma_seg_addr(s->src, (void **)&s->src_p);
	bench_link_send(sock, 1);
	bench_link_recv(sock, LINK_TIMEOUT_MS);
	check(xrma_rseg_open(s->ctx, node == 1 ? 2 : 1, SEG_ID, XRMA_ACCESS_REMOTE_WRITE, 0, 10000,
			     &s->peer), "xrma_rseg_open");
	check(xrma_dmaq_open(s->ctx, 2 * WINDOW, 0, &s->q), "xrma_dmaq_open");
	bench_link_send(sock, 2);
	bench_link_recv(sock, LINK_TIMEOUT_MS);
}

static void xrma_side_close(struct side *s)
{
	check(xrma_dmaq_close(s->q), "xrma_dmaq_close");
	check(xrma_rseg_close(s->peer), "xrma_rseg_close");
	check(xrma_seg_close(s->src), "xrma_seg_close");
	/* The peer's import must be gone before our segment can close. */
	for (size_t n = 1; n;)
		check(xrma_seg_importers(s->seg, &n), "xrma_seg_importers");
	check(xrma_seg_close(s->seg), "xrma_seg_close");
	check(xrma_ctx_close(s->ctx), "xrma_ctx_close");
}

/* The peer: node 2, answering phases until told to quit. */
static int peer_main(int sock, size_t max, const char *prov)
{
	struct bench_fabric r;
	struct side s;

	bench_pin_thread(1);
	if (!bench_fabric_open(&r, prov, NULL, max))
		return 1;
	bench_fabric_connect(&r, sock);
	xrma_side_open(&s, 2, sock, max);
	for (;;) {
		uint64_t len, iters;
		uint64_t phase = bench_link_recv_command(sock, PHASE_QUIT, &len, &iters, LINK_TIMEOUT_MS);

		if (phase == PHASE_QUIT)
			break;
		memset(r.buf, 0, len);
		memset(s.mine, 0, len);
		bench_link_send(sock, 0);
		if (phase == PHASE_RAW_PP)
			bench_fabric_pingpong(&r, len, (int)iters, false);
		else if (phase == PHASE_RAW_PP_THREADED)
			bench_fabric_pingpong_threaded(&r, len, (int)iters, false);
		else if (phase == PHASE_XRMA_PP || phase == PHASE_XRMA_PP_DRIVEN)
			xrma_pingpong(&s, len, (int)iters, false, phase == PHASE_XRMA_PP_DRIVEN);
		else if (phase == PHASE_RAW_BW)
			bench_fabric_serve_until(&r, sock);   /* the target's share of manual progress */
		/* PHASE_XRMA_BW: our progress thread serves the writes. */
		if (phase != PHASE_RAW_BW)
			bench_link_send(sock, 0);
		else
			bench_link_recv(sock, LINK_TIMEOUT_MS);
	}
	xrma_side_close(&s);
	bench_fabric_close(&r);
	return 0;
}

static double run_phase(int sock, enum phase phase, size_t len, int iters, struct bench_fabric *r, struct side *s)
{
	double t = 0;

	bench_link_send_command(sock, phase, len, (uint64_t)iters);
	bench_link_recv(sock, LINK_TIMEOUT_MS);
	if (phase == PHASE_RAW_PP)
		t = bench_fabric_pingpong(r, len, iters, true) / 1000.0;
	else if (phase == PHASE_RAW_PP_THREADED)
		t = bench_fabric_pingpong_threaded(r, len, iters, true) / 1000.0;
	else if (phase == PHASE_XRMA_PP || phase == PHASE_XRMA_PP_DRIVEN)
		t = xrma_pingpong(s, len, iters, true, phase == PHASE_XRMA_PP_DRIVEN);
	else if (phase == PHASE_RAW_BW)
		t = bench_fabric_stream(r, false, len, iters, WINDOW) / 1000.0;
	else
		t = xrma_stream(s, len, iters);
	if (phase == PHASE_RAW_BW)
		bench_link_send(sock, 0);
	else
		bench_link_recv(sock, LINK_TIMEOUT_MS);
	return t;
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .iterations = 2000, .repetitions = 5, .max_size = 1 << 20 };
	const char *prov = bench_fabric_provider();
	char setup[160], fdtxt[16];
	int sv[2];
	pid_t pid;
	struct bench_fabric r;
	struct side s;

	if (argc == 5 && !strcmp(argv[1], PEER_FLAG))
		return peer_main(atoi(argv[2]), strtoull(argv[3], NULL, 0), argv[4]);
	bench_parse(argc, argv, &opts, "Runs node 2 itself; XRMA_OFI_PROVIDER picks the libfabric provider.\n");
	if (opts.max_size < 8)
		opts.max_size = 8;
	bench_fabric_node_file(1, 2);
	setenv("XRMA_OFI_PROVIDER", prov, 1);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair", "failed");
	pid = fork();
	if (pid == 0) {
		char maxtxt[32];

		close(sv[0]);
		snprintf(fdtxt, sizeof(fdtxt), "%d", sv[1]);
		snprintf(maxtxt, sizeof(maxtxt), "%zu", opts.max_size);
		execl("/proc/self/exe", argv[0], PEER_FLAG, fdtxt, maxtxt, prov, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	bench_pin_thread(0);
	if (!bench_fabric_open(&r, prov, NULL, opts.max_size))
		die("raw libfabric", "the provider did not open");
	bench_fabric_connect(&r, sv[0]);
	xrma_side_open(&s, 1, sv[0], opts.max_size);

	snprintf(setup, sizeof(setup), "provider=ofi fabric=%s nodes=1->2 cpus=0,1 (same libfabric provider for both)",
		 prov);
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		enum phase raw_phase = tables[t].raw, our_phase = tables[t].ours;

		bench_header(&opts, tables[t].name, setup, tables[t].metric, tables[t].baseline);
		for (size_t len = 8; len <= opts.max_size; len *= 8) {
			double *ours = calloc((size_t)opts.repetitions, sizeof(double));
			double *base = calloc((size_t)opts.repetitions, sizeof(double));
			int iters = len >= 65536 ? opts.iterations / 10 + 1 : opts.iterations;

			/* Warm-up of both, then alternate so drift hits both equally. */
			run_phase(sv[0], raw_phase, len, iters / 10 + 1, &r, &s);
			run_phase(sv[0], our_phase, len, iters / 10 + 1, &r, &s);
			for (int rep = 0; rep < opts.repetitions; rep++) {
				base[rep] = run_phase(sv[0], raw_phase, len, iters, &r, &s);
				ours[rep] = run_phase(sv[0], our_phase, len, iters, &r, &s);
			}
			bench_row_samples(&opts, len, iters, ours, base, opts.repetitions);
			free(ours);
			free(base);
		}
	}
	bench_link_send(sv[0], PHASE_QUIT);
	xrma_side_close(&s);
	bench_fabric_close(&r);
	waitpid(pid, NULL, 0);
	return 0;
}
