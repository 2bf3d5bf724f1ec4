/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/core/xrma_pingpong.c: provider-level latency and bandwidth between
 * two processes (two nodes), through the core API, with the physical floor
 * measured in the same run by the same two processes:
 *   1. mapped ping-pong: each node stores a sequence number into the other's
 *      imported, mapped segment; one-way latency against a raw cache-line
 *      ping-pong through a plain shared page;
 *   2. interrupt ping-pong: each node triggers the other's interrupt and
 *      waits for its own (the waiter spins, then sleeps), against the same raw
 *      ping-pong;
 *   3. RMA write (XRMA_RMA_SYNC) from node 1 into node 2's segment against
 *      memcpy of the same size.
 * Run without arguments it starts its peer itself (node 2, re-executing this
 * program) on a fabric of its own; the peer is pinned to another processing
 * unit. Works on any provider that spans processes (the default, ntb).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xrma/xrma.h>
#include "../common/bench.h"

#define FLAG_SEG_ID 0x1000
#define DATA_SEG_ID 0x2000
/* A peer silent this long has failed: report it instead of hanging. */
#define STALL_NS 5000000000ull
#define LINK_TIMEOUT_MS ((int)(STALL_NS / 1000000))
#define PEER_FLAG "--xrma-pingpong-peer"

enum phase { PHASE_RAW = 1, PHASE_MAPPED, PHASE_INTR, PHASE_VERIFY, PHASE_QUIT };

static const char *me = "xrma_pingpong";

static int check(int ret, const char *what)
{
	if (ret < 0) {
		const char *detail = xrma_error_detail();

		fprintf(stderr, "%s: %s: %s%s%s\n", me, what, xrma_strerror(ret), *detail ? ": " : "",
			detail);
		exit(1);
	}
	return ret;
}

/* ---- ping-pong ---- */

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

/* One round of ping-pong; mine is where the peer stores, theirs where I store. Returns one-way ns. */
static double pingpong(_Atomic uint64_t *mine, _Atomic uint64_t *theirs, int iterations, bool initiator)
{
	uint64_t t0 = bench_now_ns();

	for (uint64_t i = 1; i <= (uint64_t)iterations; i++) {
		if (initiator) {
			atomic_store_explicit(theirs, i, memory_order_release);
			if (!await(mine, i))
				goto stalled;
		} else {
			if (!await(mine, i))
				goto stalled;
			atomic_store_explicit(theirs, i, memory_order_release);
		}
	}
	return (double)(bench_now_ns() - t0) / iterations / 2;
stalled:
	fprintf(stderr, "%s: the peer stalled in the ping-pong\n", me);
	exit(1);
}

/* Interrupt rounds per repetition: a quarter of the cache-line rounds (each costs more). */
static int intr_iterations(int iterations)
{
	return iterations / 4 + 1;
}

/* One round of interrupt ping-pong. Returns one-way ns. */
static double intr_pingpong(struct xrma_intr *mine, struct xrma_rintr *theirs, int iterations,
			    bool initiator)
{
	uint64_t t0 = bench_now_ns();

	for (int i = 0; i < iterations; i++) {
		if (initiator) {
			check(xrma_rintr_trigger(theirs, NULL, 0), "xrma_rintr_trigger");
			check(xrma_intr_wait(mine, (int)(STALL_NS / 1000000), NULL, NULL), "xrma_intr_wait");
		} else {
			check(xrma_intr_wait(mine, (int)(STALL_NS / 1000000), NULL, NULL), "xrma_intr_wait");
			check(xrma_rintr_trigger(theirs, NULL, 0), "xrma_rintr_trigger");
		}
	}
	return (double)(bench_now_ns() - t0) / iterations / 2;
}

/* ---- the two nodes ---- */

struct node {
	struct xrma_ctx *ctx;
	struct xrma_intr *intr;         /* ours, which the peer triggers */
	struct xrma_rintr *peer_intr;   /* the peer's */
	uint64_t intr_number;
	struct xrma_seg *flag_seg;
	struct xrma_rseg *peer_flag;
	_Atomic uint64_t *flag_local, *flag_remote;
	_Atomic uint64_t *raw;          /* the plain shared page: [0] node 1's, [16] node 2's */
};

/* Where node's flag sits in its page, in 64-bit words. */
static size_t flag_slot(uint32_t node)
{
	return node == 1 ? 0 : 16;
}

static void node_open(struct node *n, uint32_t self)
{
	struct xrma_ctx_attr attr = { .node_id = self };
	struct xrma_seg_attr seg = { .len = 4096, .id = FLAG_SEG_ID, .access = XRMA_ACCESS_ALL };

	check(xrma_ctx_open(&attr, &n->ctx), "xrma_ctx_open");
	check(xrma_seg_open(n->ctx, &seg, &n->flag_seg), "xrma_seg_open(flag)");
	check(xrma_seg_export(n->flag_seg, 0), "xrma_seg_export(flag)");
	check(xrma_seg_addr(n->flag_seg, (void **)&n->flag_local), "xrma_seg_addr");
	n->intr_number = XRMA_ID_ANY;
	check(xrma_intr_open(n->ctx, &n->intr_number, 0, 0, 0, &n->intr), "xrma_intr_open");
	/* Node 1's flag at byte 0 of its page, node 2's at byte 128, as in the raw page, so
	 * both runs have the same cache-line and in-page layout. */
	n->flag_local += flag_slot(self);
}

static void node_connect(struct node *n, uint32_t peer, uint64_t peer_intr)
{
	check(xrma_rintr_open(n->ctx, peer, peer_intr, 5000, &n->peer_intr), "xrma_rintr_open");
	check(xrma_rseg_open(n->ctx, peer, FLAG_SEG_ID, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
			     0, 5000, &n->peer_flag),
	      "xrma_rseg_open(flag)");
	check(xrma_rseg_map(n->peer_flag, 0, 4096, XRMA_MAP_READ | XRMA_MAP_WRITE, (void **)&n->flag_remote),
	      "xrma_rseg_map");
	n->flag_remote += flag_slot(peer);
}

static void node_disconnect(struct node *n)
{
	uint32_t peer = 0;

	check(xrma_rseg_node(n->peer_flag, &peer), "xrma_rseg_node");
	check(xrma_rseg_unmap(n->peer_flag, (void *)(n->flag_remote - flag_slot(peer))), "xrma_rseg_unmap");
	check(xrma_rintr_close(n->peer_intr), "xrma_rintr_close");
	check(xrma_rseg_close(n->peer_flag), "xrma_rseg_close");
}

/* Only once the peer has disconnected: a segment with importers cannot close. */
static void node_free(struct node *n)
{
	check(xrma_intr_close(n->intr), "xrma_intr_close");
	check(xrma_seg_close(n->flag_seg), "xrma_seg_close");
	check(xrma_ctx_close(n->ctx), "xrma_ctx_close");
}

/* ---- node 2: follows node 1's phases ---- */

static int peer_main(int sock, int rawfd, int iterations)
{
	struct node n = { 0 };
	struct xrma_seg *data = NULL;
	struct xrma_seg_attr dattr = { .id = DATA_SEG_ID, .access = XRMA_ACCESS_ALL };
	void *dp;

	me = "xrma_pingpong(peer)";
	bench_pin_thread(1);
	n.raw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, rawfd, 0);
	if (n.raw == MAP_FAILED)
		return 1;
	node_open(&n, 2);
	dattr.len = (size_t)bench_link_recv(sock, LINK_TIMEOUT_MS);
	check(xrma_seg_open(n.ctx, &dattr, &data), "xrma_seg_open(data)");
	check(xrma_seg_export(data, 0), "xrma_seg_export(data)");
	check(xrma_seg_addr(data, &dp), "xrma_seg_addr(data)");
	bench_link_send(sock, n.intr_number);           /* exported */
	node_connect(&n, 1, bench_link_recv(sock, LINK_TIMEOUT_MS));     /* node 1 exported too */
	bench_link_send(sock, 1);
	for (;;) {
		uint64_t phase = bench_link_recv(sock, LINK_TIMEOUT_MS);

		if (phase == PHASE_RAW) {
			atomic_store(&n.raw[16], 0);
			bench_link_send(sock, 1);
			pingpong(&n.raw[16], &n.raw[0], iterations, false);
		} else if (phase == PHASE_MAPPED) {
			atomic_store(n.flag_local, 0);
			bench_link_send(sock, 1);
			pingpong(n.flag_local, n.flag_remote, iterations, false);
		} else if (phase == PHASE_INTR) {
			bench_link_send(sock, 1);
			intr_pingpong(n.intr, n.peer_intr, intr_iterations(iterations), false);
		} else if (phase == PHASE_VERIFY) {
			/* Node 1 wrote bytes i = (uint8_t)(i * 7 + 1): check they all arrived. */
			const unsigned char *b = dp;
			uint64_t bad = 0;

			for (size_t i = 0; i < dattr.len; i++)
				bad += b[i] != (unsigned char)(i * 7 + 1);
			bench_link_send(sock, bad);
		} else {
			break;
		}
	}
	node_disconnect(&n);
	bench_link_send(sock, 1);
	bench_link_recv(sock, LINK_TIMEOUT_MS);                          /* node 1 disconnected too */
	check(xrma_seg_close(data), "xrma_seg_close(data)");
	node_free(&n);
	return 0;
}

/* ---- node 1: drives and measures ---- */

static void latency(const struct bench_opts *opts, struct node *n, int sock)
{
	double *ours = calloc((size_t)opts->repetitions, sizeof(double));
	double *base = calloc((size_t)opts->repetitions, sizeof(double));

	if (!ours || !base)
		exit(1);
	bench_header(opts, "mapped_pingpong", "one-way latency, node 1 <-> node 2 (two processes)",
		     "xrma_ns", "raw_shm_ns");
	for (int r = 0; r < opts->repetitions; r++) {
		/* Interleaved, so both see the same machine state. */
		atomic_store(&n->raw[0], 0);
		bench_link_send(sock, PHASE_RAW);
		bench_link_recv(sock, LINK_TIMEOUT_MS);
		base[r] = pingpong(&n->raw[0], &n->raw[16], opts->iterations, true);
		atomic_store(n->flag_local, 0);
		bench_link_send(sock, PHASE_MAPPED);
		bench_link_recv(sock, LINK_TIMEOUT_MS);
		ours[r] = pingpong(n->flag_local, n->flag_remote, opts->iterations, true);
	}
	bench_row_samples(opts, 8, opts->iterations, ours, base, opts->repetitions);
	free(ours);
	free(base);
}

static void interrupts(const struct bench_opts *opts, struct node *n, int sock)
{
	double *ours = calloc((size_t)opts->repetitions, sizeof(double));
	double *base = calloc((size_t)opts->repetitions, sizeof(double));
	int iters = intr_iterations(opts->iterations);

	if (!ours || !base)
		exit(1);
	bench_header(opts, "interrupt_pingpong", "one-way trigger to wake, node 1 <-> node 2", "xrma_ns",
		     "raw_shm_ns");
	for (int r = 0; r < opts->repetitions; r++) {
		atomic_store(&n->raw[0], 0);
		bench_link_send(sock, PHASE_RAW);
		bench_link_recv(sock, LINK_TIMEOUT_MS);
		base[r] = pingpong(&n->raw[0], &n->raw[16], opts->iterations, true);
		bench_link_send(sock, PHASE_INTR);
		bench_link_recv(sock, LINK_TIMEOUT_MS);
		ours[r] = intr_pingpong(n->intr, n->peer_intr, iters, true);
	}
	bench_row_samples(opts, 0, iters, ours, base, opts->repetitions);
	free(ours);
	free(base);
}

static void bandwidth(const struct bench_opts *opts, struct node *n, int sock)
{
	struct xrma_seg_attr attr = { .len = opts->max_size, .access = XRMA_ACCESS_ALL,
				      .id = XRMA_ID_ANY, .flags = XRMA_SEG_PRIVATE };
	double *ours = calloc((size_t)opts->repetitions, sizeof(double));
	double *base = calloc((size_t)opts->repetitions, sizeof(double));
	unsigned char *src = malloc(opts->max_size), *dst = malloc(opts->max_size), *lp;
	struct xrma_seg *local;
	struct xrma_rseg *remote;
	struct xrma_dmaq *q;

	if (!ours || !base || !src || !dst)
		exit(1);
	memset(src, 0x5a, opts->max_size);
	memset(dst, 0, opts->max_size);
	check(xrma_seg_open(n->ctx, &attr, &local), "xrma_seg_open(local)");
	check(xrma_seg_addr(local, (void **)&lp), "xrma_seg_addr");
	for (size_t i = 0; i < opts->max_size; i++)
		lp[i] = (unsigned char)(i * 7 + 1);
	check(xrma_rseg_open(n->ctx, 2, DATA_SEG_ID, XRMA_ACCESS_REMOTE_WRITE, 0, 5000, &remote),
	      "xrma_rseg_open(data)");
	check(xrma_dmaq_open(n->ctx, 64, 0, &q), "xrma_dmaq_open");
	bench_header(opts, "rma_write_sync", "node 1 -> node 2 (two processes)", "xrma_GBps",
		     "memcpy_GBps");
	for (size_t size = 8;; size = size * 4 < opts->max_size ? size * 4 : opts->max_size) {
		struct xrma_iov iov = { .seg = local, .offset = 0, .len = size };
		int iters = (int)(opts->iterations * 64 / (size / 8 + 64)) + 1;

		for (int r = 0; r < opts->repetitions; r++) {
			uint64_t t0;

			base[r] = bench_memcpy_GBps(dst, src, size, iters);
			t0 = bench_now_ns();
			for (int i = 0; i < iters; i++)
				check(xrma_dmaq_post(q, XRMA_RMA_WRITE, &iov, 1, remote, 0, size, 0,
						     XRMA_RMA_SYNC),
				      "xrma_dmaq_post");
			ours[r] = (double)size * iters / (double)(bench_now_ns() - t0);
		}
		bench_row_samples(opts, size, iters, ours, base, opts->repetitions);
		if (size == opts->max_size)
			break;
	}
	/* The data must have arrived: node 2 checks, outside the timed loop. */
	bench_link_send(sock, PHASE_VERIFY);
	if (bench_link_recv(sock, LINK_TIMEOUT_MS) != 0) {
		fprintf(stderr, "%s: RMA data did not arrive intact\n", me);
		exit(1);
	}
	check(xrma_dmaq_close(q), "xrma_dmaq_close");
	check(xrma_rseg_close(remote), "xrma_rseg_close(data)");
	check(xrma_seg_close(local), "xrma_seg_close(local)");
	free(src);
	free(dst);
	free(ours);
	free(base);
}

static pid_t spawn_peer(const char *self, int sock, int rawfd, int iterations)
{
	char sockbuf[16], rawbuf[16], iterbuf[16];
	pid_t pid = fork();

	if (pid == 0) {
		snprintf(sockbuf, sizeof(sockbuf), "%d", sock);
		snprintf(rawbuf, sizeof(rawbuf), "%d", rawfd);
		snprintf(iterbuf, sizeof(iterbuf), "%d", iterations);
		execl(self, self, PEER_FLAG, sockbuf, rawbuf, iterbuf, (char *)NULL);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .iterations = 100000, .repetitions = 5, .max_size = 1 << 20 };
	struct xrma_ctx_info info;
	struct node n = { 0 };
	char fabric[64], exe[4096];
	int sv[2], rawfd, status = 0;
	ssize_t len;
	pid_t peer;

	if (argc == 5 && !strcmp(argv[1], PEER_FLAG))
		return peer_main(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	bench_parse(argc, argv, &opts,
		    "Mapped ping-pong and RMA write between two processes (nodes 1 and 2) on the\n"
		    "default provider (XRMA_PROVIDER overrides), against a raw shared-memory\n"
		    "ping-pong and memcpy measured in the same run.\n");
	if (opts.max_size < 8)
		opts.max_size = 8;
	/* Our own fabric, so the demo never meets another run. */
	snprintf(fabric, sizeof(fabric), "pingpong-%d", (int)getpid());
	setenv("XRMA_FABRIC", fabric, 1);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return 1;
	exe[len] = '\0';
	/* Inherited by the peer: the link and the raw shared page. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 1;
	rawfd = memfd_create("xrma-pingpong-raw", 0);
	if (rawfd < 0 || ftruncate(rawfd, 4096) != 0)
		return 1;
	n.raw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, rawfd, 0);
	if (n.raw == MAP_FAILED)
		return 1;
	peer = spawn_peer(exe, sv[1], rawfd, opts.iterations);
	close(sv[1]);
	bench_pin_thread(0);
	node_open(&n, 1);
	check(xrma_ctx_query(n.ctx, &info), "xrma_ctx_query");
	if (!(info.caps.flags & XRMA_CAP_MAP) || !(info.caps.flags & XRMA_CAP_MULTIPROC)) {
		fprintf(stderr, "%s: provider %s cannot map memory of another process; nothing to measure\n",
			me, info.provider);
		kill(peer, SIGTERM);
		return 1;
	}
	bench_link_send(sv[0], opts.max_size);
	node_connect(&n, 2, bench_link_recv(sv[0], LINK_TIMEOUT_MS));    /* node 2 exported */
	bench_link_send(sv[0], n.intr_number);
	bench_link_recv(sv[0], LINK_TIMEOUT_MS);                         /* node 2 connected */
	bench_set_context(NULL, info.provider);
	if (!opts.csv)
		printf("# provider=%s fabric=%s nodes=1<->2 (processes %d and %d)\n", info.provider,
		       info.fabric, (int)getpid(), (int)peer);
	latency(&opts, &n, sv[0]);
	interrupts(&opts, &n, sv[0]);
	bandwidth(&opts, &n, sv[0]);
	bench_link_send(sv[0], PHASE_QUIT);
	node_disconnect(&n);
	bench_link_recv(sv[0], LINK_TIMEOUT_MS);                         /* node 2 disconnected */
	bench_link_send(sv[0], 1);
	node_free(&n);
	waitpid(peer, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: the peer failed\n", me);
		return 1;
	}
	return 0;
}
