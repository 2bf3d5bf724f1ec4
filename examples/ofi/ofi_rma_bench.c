/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/ofi/ofi_rma_bench.c: xrma RMA over the ofi provider against raw
 * libfabric, same libfabric provider, same sizes, same two processes, same run:
 *   1. ping-pong: node 1 writes size bytes into node 2's segment, node 2 sees
 *      the last word change and writes back; one-way latency. xrma posts a
 *      synchronous write (XRMA_RMA_SYNC); raw posts fi_writemsg with
 *      FI_DELIVERY_COMPLETE (the guarantee xrma gives) and polls its CQ.
 *   2. stream: node 1 writes size bytes 16 at a time in flight; time per write.
 *      xrma posts asynchronous writes to a DMA queue; raw keeps 16 fi_writemsg
 *      in flight.
 * Run without arguments: it writes a node file for two free ports on
 * 127.0.0.1, starts its peer (node 2, this program again), and uses
 * XRMA_OFI_PROVIDER (default tcp;ofi_rxm) for both xrma and the baseline.
 */
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xrma/xrma.h>
#include "../common/bench.h"
#include "ofi_raw.h"

#define SEG_ID 0x1000
#define WINDOW OFI_RAW_WINDOW
#define STALL_NS 10000000000ull
#define LINK_TIMEOUT_MS ((int)(STALL_NS / 1000000))
#define PEER_FLAG "--xrma-ofi-bench-peer"

enum phase { PHASE_RAW_PP = 1, PHASE_XRMA_PP, PHASE_RAW_BW, PHASE_XRMA_BW, PHASE_QUIT };

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

/* ---- the link between the two processes (set-up and phases only, never timed) ---- */

static bool link_ready(int sock)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/* ---- the measured loops ---- */

static volatile uint64_t *last_word(unsigned char *buf, size_t len)
{
	return (volatile uint64_t *)(buf + len - 8);
}

/*
 * Spin until the word at the end of len bytes of buf is want. Raw: drive progress
 * between looks. xrma: the writes land through the provider's progress thread, so
 * the spinner yields the CPU to it (two spinners already fill a 2-CPU machine).
 */
static void await_word(unsigned char *buf, size_t len, uint64_t want, struct ofi_raw *progress)
{
	uint64_t start = bench_now_ns();

	for (uint32_t spins = 0; *last_word(buf, len) != want; spins++) {
		if (progress)
			ofi_raw_reap(progress, WINDOW);
		else
			sched_yield();
		if ((spins & 0xfff) == 0 && bench_now_ns() - start > STALL_NS)
			die("ping-pong", "the peer stalled");
	}
	atomic_thread_fence(memory_order_acquire);
}

static double raw_pingpong(struct ofi_raw *r, size_t len, int iters, bool initiator)
{
	uint64_t t0 = bench_now_ns();

	for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
		if (!initiator)
			await_word(r->buf, len, i, r);
		memcpy(r->buf + r->max + len - 8, &i, 8);
		ofi_raw_post(r, false, len, &r->ctx[0]);
		while (!ofi_raw_reap(r, 1))
			;
		if (initiator)
			await_word(r->buf, len, i, r);
	}
	return (double)(bench_now_ns() - t0) / iters / 2 / 1000.0;
}

struct side {
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;      /* exported: the peer writes here */
	struct xrma_seg *src;      /* private: what we write */
	struct xrma_rseg *peer;
	struct xrma_dmaq *q;
	unsigned char *mine, *src_p;
};

static double xrma_pingpong(struct side *s, size_t len, int iters, bool initiator)
{
	struct xrma_iov iov = { .seg = s->src, .offset = 0, .len = len };
	uint64_t t0 = bench_now_ns();

	for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
		if (!initiator)
			await_word(s->mine, len, i, NULL);
		memcpy(s->src_p + len - 8, &i, 8);
		check(xrma_dmaq_post(s->q, XRMA_RMA_WRITE, &iov, 1, s->peer, 0, len, i,
				     XRMA_RMA_SYNC), "xrma_dmaq_post");
		if (initiator)
			await_word(s->mine, len, i, NULL);
	}
	return (double)(bench_now_ns() - t0) / iters / 2 / 1000.0;
}

static double raw_stream(struct ofi_raw *r, size_t len, int iters)
{
	int posted = 0, done = 0;
	uint64_t t0 = bench_now_ns();

	while (done < iters) {
		while (posted < iters && posted - done < WINDOW) {
			ofi_raw_post(r, false, len, &r->ctx[posted % WINDOW]);
			posted++;
		}
		done += ofi_raw_reap(r, WINDOW);
	}
	return (double)(bench_now_ns() - t0) / iters / 1000.0;
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
static int peer_main(int sock, size_t max, const char *prov, const char *my_raw, const char *their_raw)
{
	struct ofi_raw r;
	struct side s;

	bench_pin_thread(1);
	ofi_raw_open(&r, prov, my_raw, max);
	ofi_raw_connect(&r, sock, their_raw);
	xrma_side_open(&s, 2, sock, max);
	for (;;) {
		uint64_t phase = bench_link_recv(sock, LINK_TIMEOUT_MS), len, iters;

		if (phase == PHASE_QUIT)
			break;
		len = bench_link_recv(sock, LINK_TIMEOUT_MS);
		iters = bench_link_recv(sock, LINK_TIMEOUT_MS);
		memset(r.buf, 0, len);
		memset(s.mine, 0, len);
		bench_link_send(sock, 0);
		if (phase == PHASE_RAW_PP)
			raw_pingpong(&r, len, (int)iters, false);
		else if (phase == PHASE_XRMA_PP)
			xrma_pingpong(&s, len, (int)iters, false);
		else if (phase == PHASE_RAW_BW)
			while (!link_ready(sock))
				ofi_raw_reap(&r, WINDOW);   /* the target's share of manual progress */
		/* PHASE_XRMA_BW: our progress thread serves the writes. */
		if (phase != PHASE_RAW_BW)
			bench_link_send(sock, 0);
		else
			bench_link_recv(sock, LINK_TIMEOUT_MS);
	}
	xrma_side_close(&s);
	ofi_raw_close(&r);
	return 0;
}

static double run_phase(int sock, enum phase phase, size_t len, int iters, struct ofi_raw *r, struct side *s)
{
	double t = 0;

	bench_link_send(sock, phase);
	bench_link_send(sock, len);
	bench_link_send(sock, (uint64_t)iters);
	bench_link_recv(sock, LINK_TIMEOUT_MS);
	if (phase == PHASE_RAW_PP)
		t = raw_pingpong(r, len, iters, true);
	else if (phase == PHASE_XRMA_PP)
		t = xrma_pingpong(s, len, iters, true);
	else if (phase == PHASE_RAW_BW)
		t = raw_stream(r, len, iters);
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
	const char *prov = ofi_raw_provider();
	char nodes[] = "/tmp/xrma-ofi-bench-XXXXXX", raw1[16], raw2[16], setup[160], fdtxt[16];
	int sv[2], fd;
	pid_t pid;
	struct ofi_raw r;
	struct side s;
	FILE *f;

	if (argc == 7 && !strcmp(argv[1], PEER_FLAG))
		return peer_main(atoi(argv[2]), strtoull(argv[3], NULL, 0), argv[4], argv[5], argv[6]);
	bench_parse(argc, argv, &opts, "Runs node 2 itself; XRMA_OFI_PROVIDER picks the libfabric provider.\n");
	if (opts.max_size < 8)
		opts.max_size = 8;
	fd = mkstemp(nodes);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		die("node file", "cannot create it");
	fprintf(f, "1 127.0.0.1:%d\n2 127.0.0.1:%d\n", ofi_raw_free_port(), ofi_raw_free_port());
	fclose(f);
	snprintf(raw1, sizeof(raw1), "%d", ofi_raw_free_port());
	snprintf(raw2, sizeof(raw2), "%d", ofi_raw_free_port());
	setenv("XRMA_OFI_NODES", nodes, 1);
	setenv("XRMA_OFI_PROVIDER", prov, 1);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair", "failed");
	pid = fork();
	if (pid == 0) {
		char maxtxt[32];

		close(sv[0]);
		snprintf(fdtxt, sizeof(fdtxt), "%d", sv[1]);
		snprintf(maxtxt, sizeof(maxtxt), "%zu", opts.max_size);
		execl("/proc/self/exe", argv[0], PEER_FLAG, fdtxt, maxtxt, prov, raw2, raw1, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	bench_pin_thread(0);
	ofi_raw_open(&r, prov, raw1, opts.max_size);
	ofi_raw_connect(&r, sv[0], raw2);
	xrma_side_open(&s, 1, sv[0], opts.max_size);

	snprintf(setup, sizeof(setup), "provider=ofi fabric=%s nodes=1->2 cpus=0,1 (same libfabric provider for both)",
		 prov);
	for (int table = 0; table < 2; table++) {
		enum phase raw_phase = table ? PHASE_RAW_BW : PHASE_RAW_PP;
		enum phase our_phase = table ? PHASE_XRMA_BW : PHASE_XRMA_PP;

		bench_header(&opts, table ? "rma_write_stream (16 in flight)" : "rma_write_pingpong",
			     setup, table ? "xrma_us_per_write" : "xrma_us_one_way",
			     table ? "fi_write_us" : "fi_write_us");
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
			{
				double om = bench_min(ours, opts.repetitions), bm = bench_min(base, opts.repetitions);

				bench_row(&opts, len, iters, bench_median(ours, opts.repetitions), om,
					  bench_median(base, opts.repetitions), bm);
			}
			free(ours);
			free(base);
		}
	}
	bench_link_send(sv[0], PHASE_QUIT);
	xrma_side_close(&s);
	ofi_raw_close(&r);
	waitpid(pid, NULL, 0);
	unlink(nodes);
	return 0;
}
