/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/test_ofi.c: the ofi provider across real processes, over
 * libfabric tcp;ofi_rxm on 127.0.0.1 (XRMA_OFI_PROVIDER overrides it). The
 * test program is node 1 and re-executes itself as node 2 (proc.h); a node
 * file made for the run gives each node a free port, lists node 9 at a port
 * nobody listens on, and leaves node 7 out. Covered: export/import and RMA both
 * ways, mapping refused, atomics (when the libfabric provider has them), a
 * connection's byte stream, interrupts, name look-ups, unknown and silent
 * nodes answered within a bound, a second context on a node refused, the
 * exchange again with transfers on the control endpoint (rma_endpoint = shared), on
 * an initiator and a target endpoint (rma_endpoint = separate) and
 * with progress threads that never sleep (progress_wait = busy), transfers far longer
 * than the owner's serve window between a node of each rma_endpoint setting, a stream of
 * asynchronous writes completed in order with and without a waiter, bad settings refused, a peer
 * SIGKILLed, one silenced (SIGSTOP) while the application drives progress, one closing in
 * order, one leaving with its context open, a node restarted at the same address and
 * reached at once, the application driving progress (a ping-pong, then a round nobody
 * drives), and two hosts made of two network
 * namespaces joined by a veth pair (root only; skipped with a message), with a
 * DMA exchange through the core API, one through SISCI (SCIStartDmaTransfer;
 * SCIMapRemoteSegment refused) and an RMA exchange through SCIF (scif_readfrom
 * and scif_writeto; scif_mmap is EOPNOTSUPP).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <scif.h>
#include <sisci_api.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

/* Process start-up under the sanitizers is slow; every cross-process wait has this bound. */
#define MP_TIMEOUT_MS 20000
/* Short liveness for the tests; a silent peer must be declared lost within it. Under
 * the sanitizers, with another test program sharing the two CPUs, a first connection
 * alone can take more than a second. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define LIVENESS_MS 5000
#define LIVENESS_TXT "5000"
#else
#define LIVENESS_MS 2000
#define LIVENESS_TXT "2000"
#endif
#define SEG_ID 77
#define SEG_LEN (64 * 1024)
/* Longer to move than a serve window of 1 ms, even over the loopback. */
#define LONG_LEN (64 * 1024 * 1024)
/* A stream of 64 writes of 1 KiB: well past the core's depth for reading after posts (16). */
#define STREAM_PIECES 64
#define STREAM_PIECE (SEG_LEN / STREAM_PIECES)
#define PORT 4000

enum { MSG_READY = 1, MSG_GO, MSG_DONE };

static char fabric[XRMA_NAME_MAX];
static char nodes_path[256];
static char dir_path[200];

/* ---- what a test holds, released by its teardown when an assertion cuts it short ---- */

enum held_kind { HELD_CTX, HELD_SEG, HELD_RSEG, HELD_CONN, HELD_INTR };
#define HELD_MAX 16
#define KIDS_MAX 2

struct held {
	enum held_kind kind;
	void *handle;
};
static struct held held[HELD_MAX];
static size_t held_count;
static struct proc kids[KIDS_MAX];
static char netns_held[2][32];

/* Remember handle for the teardown (the test itself still closes it; a second close is an error,
 * never a crash: handles are validated). */
static void hold(enum held_kind kind, void *handle)
{
	if (handle && held_count < HELD_MAX)
		held[held_count++] = (struct held){ kind, handle };
}

/* Start role as node on the test's fabric; the teardown kills it if the test did not join it. */
static struct proc *kid_start(uint32_t node, const char *role, const char *arg)
{
	for (size_t i = 0; i < KIDS_MAX; i++) {
		if (kids[i].pid > 0)
			continue;
		if (proc_spawn(&kids[i], fabric, node, role, arg))
			break;
		return &kids[i];
	}
	fail_msg("cannot start child %s as node %u", role, node);
	return NULL;
}

static int test_up(void **state)
{
	(void)state;
	held_count = 0;
	for (size_t i = 0; i < KIDS_MAX; i++)
		kids[i] = (struct proc){ .pid = -1, .pidfd = -1, .sock = -1 };
	memset(netns_held, 0, sizeof(netns_held));
	setenv("XRMA_OFI_NODES", nodes_path, 1);
	return 0;
}

/* Kill children first (their imports then cannot hold ours), then close what is left, newest first,
 * so a failed test does not leave node 1's endpoint taken for the next one. */
static int test_down(void **state)
{
	(void)state;
	proc_kill_all();
	while (held_count) {
		void *h = held[--held_count].handle;

		switch (held[held_count].kind) {
		case HELD_CTX: xrma_ctx_close(h); break;
		case HELD_SEG:
			xrma_seg_unexport(h, XRMA_UNEXPORT_FORCE);
			xrma_seg_close(h);
			break;
		case HELD_RSEG: xrma_rseg_close(h); break;
		case HELD_CONN: xrma_conn_close(h); break;
		case HELD_INTR: xrma_intr_close(h); break;
		}
	}
	for (size_t i = 0; i < 2; i++) {
		if (netns_held[i][0]) {
			char cmd[64];

			snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null", netns_held[i]);
			if (system(cmd)) {
				/* Already gone. */
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ set-up */

static int write_node_file(const char *path, const char *const *lines, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "# node file of test_ofi\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
	return fclose(f);
}

static int ctx_open_node(uint32_t node, struct xrma_ctx **ctx)
{
	struct xrma_ctx_attr attr = { .provider = "ofi", .fabric = NULL, .node_id = node };
	int ret = xrma_ctx_open(&attr, ctx);

	if (!ret)
		hold(HELD_CTX, *ctx);
	return ret;
}

static int child_ctx(struct xrma_ctx **ctx)
{
	return ctx_open_node(XRMA_NODE_ANY, ctx);
}

static int seg_make(struct xrma_ctx *ctx, uint64_t id, size_t len, uint8_t seed, struct xrma_seg **seg)
{
	struct xrma_seg_attr attr = { .len = len, .id = id, .access = XRMA_ACCESS_ALL };
	void *p;
	int ret = xrma_seg_open(ctx, &attr, seg);

	if (ret)
		return ret;
	hold(HELD_SEG, *seg);
	if (seed) {
		xrma_seg_addr(*seg, &p);
		fixture_pattern(p, len, seed, 0);
	}
	return xrma_seg_export(*seg, 0);
}

static int private_seg(struct xrma_ctx *ctx, size_t len, struct xrma_seg **seg, unsigned char **p)
{
	struct xrma_seg_attr la = { .len = len, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
				    .flags = XRMA_SEG_PRIVATE };
	int ret = xrma_seg_open(ctx, &la, seg);

	if (!ret) {
		hold(HELD_SEG, *seg);
		xrma_seg_addr(*seg, (void **)p);
	}
	return ret;
}

/* ------------------------------------------------------------------ children */

/* Tell the parent we are done; once it says go, close r, local, own (after its import) and ctx. */
static int child_report_and_close(int sock, struct xrma_ctx *ctx, struct xrma_rseg *r,
				  struct xrma_seg *local, struct xrma_seg *own)
{
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rseg_close(r), 0);
	PROC_CHECK_RC(xrma_seg_close(local), 0);
	PROC_CHECK_RC(fixture_wait_importers(own, 0, MP_TIMEOUT_MS), 0);
	PROC_CHECK_RC(xrma_seg_close(own), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* Import node 1's segment: mapping refused; read it, write new bytes, atomics; export ours. */
static int child_importer(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_ctx_info info;
	struct xrma_rseg *r;
	struct xrma_seg *local, *own;
	unsigned char *lp;
	void *map;
	uint64_t old = 0;

	(void)arg;
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK_RC(seg_make(ctx, SEG_ID + 1, SEG_LEN, 8, &own), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
				     0, MP_TIMEOUT_MS, &r), 0);
	/* No load/store mapping over a network. */
	PROC_CHECK_RC(xrma_rseg_map(r, 0, 4096, XRMA_MAP_READ, &map), XRMA_ENOTSUP);
	PROC_CHECK_RC(private_seg(ctx, SEG_LEN, &local, &lp), 0);
	PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, SEG_LEN), 0);
	PROC_CHECK(fixture_pattern_check(lp, SEG_LEN, 3, 0) == FIXTURE_MATCH);
	/* Unaligned offset and odd length: bytes, not words. */
	fixture_pattern(lp, SEG_LEN, 11, 0);
	PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 1, r, 3, SEG_LEN - 7), 0);
	PROC_CHECK_RC(xrma_ctx_query(ctx, &info), 0);
	if (info.caps.flags & XRMA_CAP_ATOMIC) {
		PROC_CHECK_RC(xrma_rseg_atomic(r, 0, XRMA_ATOMIC_SWAP, 0x1122334455667788ull, 0, &old), 0);
		PROC_CHECK_RC(xrma_rseg_atomic(r, 0, XRMA_ATOMIC_FETCH_ADD, 1, 0, &old), 0);
		PROC_CHECK(old == 0x1122334455667788ull);
		PROC_CHECK_RC(xrma_rseg_atomic(r, 0, XRMA_ATOMIC_CSWAP, 5, 1, &old), 0);
		PROC_CHECK(old == 0x1122334455667789ull);   /* no match: unchanged */
		PROC_CHECK_RC(xrma_rseg_atomic(r, 0, XRMA_ATOMIC_READ, 0, 0, &old), 0);
		PROC_CHECK(old == 0x1122334455667789ull);
	}
	return child_report_and_close(sock, ctx, r, local, own);
}

/* Connect to node 1's port and echo what arrives, reversed in case, until end of stream. */
static int child_stream(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_conn *c;
	char buf[4096];
	ssize_t n;

	(void)arg;
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK(proc_expect(sock, MSG_READY, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_conn_open(ctx, 0, &c), 0);
	PROC_CHECK_RC(xrma_conn_connect(c, 1, PORT + 1, MP_TIMEOUT_MS), XRMA_ECONNREFUSED);
	PROC_CHECK_RC(xrma_conn_connect(c, 1, PORT, MP_TIMEOUT_MS), 0);
	while ((n = xrma_conn_recv(c, buf, sizeof(buf), 0, MP_TIMEOUT_MS)) != -XRMA_ECONNRESET) {
		if (n == -XRMA_EAGAIN) {
			uint32_t rev = 0;

			PROC_CHECK(fixture_fd_readable(xrma_conn_fd(c), MP_TIMEOUT_MS) == 1);
			PROC_CHECK_RC(xrma_conn_poll(c, &rev), 0);
			continue;
		}
		PROC_CHECK(n > 0);
		for (ssize_t i = 0; i < n; i++)
			buf[i] = (char)(buf[i] ^ 0x20);
		PROC_CHECK(xrma_conn_send(c, buf, (size_t)n, XRMA_CONN_BLOCK, MP_TIMEOUT_MS) == n);
	}
	PROC_CHECK_RC(xrma_conn_close(c), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* Connect to node 1's interrupt (number from the link) and trigger it: plain, then with data. */
static int child_trigger(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rintr *ri;
	uint64_t number = 0;

	(void)arg;
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK(proc_recv(sock, &number, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rintr_open(ctx, 1, number + 1, MP_TIMEOUT_MS, &ri), XRMA_ENOENT);
	PROC_CHECK_RC(xrma_rintr_open(ctx, 1, number, MP_TIMEOUT_MS, &ri), 0);
	for (int i = 0; i < 50; i++)
		PROC_CHECK_RC(xrma_rintr_trigger(ri, NULL, 0), 0);
	PROC_CHECK_RC(xrma_rintr_trigger(ri, "hello", 5), 0);
	PROC_CHECK(proc_expect(sock, MSG_DONE, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rintr_close(ri), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* Import node 1's segment and write to it until killed (or, with "close", close in order). */
static int child_writer(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;
	struct xrma_seg *local, *own;
	unsigned char *lp;

	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK_RC(seg_make(ctx, 555, 4096, 1, &own), 0);
	PROC_CHECK(proc_expect(sock, MSG_READY, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_WRITE, 0, MP_TIMEOUT_MS, &r), 0);
	PROC_CHECK_RC(private_seg(ctx, SEG_LEN, &local, &lp), 0);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	if (arg && !strcmp(arg, "close")) {
		PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
		/* Leave without releasing anything first: closing the context must not
		 * be needed for the owner to hear of it, so skip to the provider's goodbye. */
		PROC_CHECK_RC(xrma_rseg_close(r), 0);
		PROC_CHECK_RC(xrma_seg_close(local), 0);
		PROC_CHECK_RC(xrma_seg_close(own), 0);
		PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
		return 0;
	}
	for (;;)
		PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, r, 0, SEG_LEN), 0);
}

/*
 * Transfers longer than node 1's serve window, with this node's transfers on
 * its control endpoint (arg "shared"): export a large segment and wait while
 * node 1 reads and overwrites it; check its bytes; then read node 1's segment
 * whole and overwrite it.
 */
static int child_long_mover(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;
	struct xrma_seg *local, *own;
	unsigned char *lp, *op;

	if (arg && !strcmp(arg, "shared"))
		setenv("XRMA_OFI_RMA_ENDPOINT", "shared", 1);
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK_RC(seg_make(ctx, SEG_ID + 2, LONG_LEN, 5, &own), 0);
	xrma_seg_addr(own, (void **)&op);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK(fixture_pattern_check(op, LONG_LEN, 13, 0) == FIXTURE_MATCH);
	PROC_CHECK_RC(xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
				     0, MP_TIMEOUT_MS, &r), 0);
	PROC_CHECK_RC(private_seg(ctx, LONG_LEN, &local, &lp), 0);
	PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, LONG_LEN), 0);
	PROC_CHECK(fixture_pattern_check(lp, LONG_LEN, 3, 0) == FIXTURE_MATCH);
	fixture_pattern(lp, LONG_LEN, 12, 0);
	PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, r, 0, LONG_LEN), 0);
	return child_report_and_close(sock, ctx, r, local, own);
}

/* Own SEG_ID + 3 (pattern 5); once told, check the parent streamed pattern 17 into it. */
static int child_stream_target(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *own;
	unsigned char *op;

	(void)arg;
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK_RC(seg_make(ctx, SEG_ID + 3, SEG_LEN, 5, &own), 0);
	xrma_seg_addr(own, (void **)&op);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK(fixture_pattern_check(op, SEG_LEN, 17, 0) == FIXTURE_MATCH);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(fixture_wait_importers(own, 0, MP_TIMEOUT_MS), 0);
	PROC_CHECK_RC(xrma_seg_close(own), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* ---- the application drives progress: a write ping-pong on the last word of SEG_LEN ---- */

#define DRIVEN_END (1ull << 40)   /* the parent's last driven round; the next is not driven */

/* Write value into the last word of the peer's segment r, synchronously. */
static int echo_write(struct xrma_dmaq *q, struct xrma_seg *local, unsigned char *lp,
		      struct xrma_rseg *r, uint64_t value)
{
	struct xrma_iov iov = { .seg = local, .offset = SEG_LEN - 8, .len = 8 };

	memcpy(lp + SEG_LEN - 8, &value, 8);
	return xrma_dmaq_post(q, XRMA_RMA_WRITE, &iov, 1, r, SEG_LEN - 8, 8, value, XRMA_RMA_SYNC);
}

/*
 * Wait until the last word of our segment p is no longer old, and return it
 * (0 after MP_TIMEOUT_MS): calling xrma_ctx_progress between looks, or with
 * drive false leaving the data to the provider's thread.
 */
static uint64_t await_change(struct xrma_ctx *ctx, const unsigned char *p, uint64_t old, bool drive)
{
	uint64_t deadline = fixture_now_ms() + MP_TIMEOUT_MS, now;

	for (;;) {
		now = __atomic_load_n((const volatile uint64_t *)(const void *)(p + SEG_LEN - 8),
				      __ATOMIC_ACQUIRE);
		if (now != old || fixture_now_ms() > deadline)
			break;
		if (drive ? xrma_ctx_progress(ctx) < 0 : sched_yield() != 0)
			break;
	}
	return now != old ? now : 0;
}

/*
 * Own SEG_ID + 5 (pattern 9); once told, import the parent's segment and echo
 * each round the parent writes into ours back into its, driving progress until
 * round DRIVEN_END and not after it.
 */
static int child_driven_echo(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;
	struct xrma_seg *local, *own;
	struct xrma_dmaq *q;
	unsigned char *lp, *op;
	uint64_t round = 0;

	(void)arg;
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK_RC(seg_make(ctx, SEG_ID + 5, SEG_LEN, 9, &own), 0);
	xrma_seg_addr(own, (void **)&op);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_WRITE, 0, MP_TIMEOUT_MS, &r), 0);
	PROC_CHECK_RC(private_seg(ctx, SEG_LEN, &local, &lp), 0);
	PROC_CHECK_RC(xrma_dmaq_open(ctx, 4, 0, &q), 0);
	memset(op + SEG_LEN - 8, 0, 8);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	while (round != DRIVEN_END + 1) {
		round = await_change(ctx, op, round, round < DRIVEN_END);
		PROC_CHECK(round != 0);
		PROC_CHECK_RC(echo_write(q, local, lp, r, round), 0);
	}
	PROC_CHECK_RC(xrma_dmaq_close(q), 0);
	return child_report_and_close(sock, ctx, r, local, own);
}

/*
 * Import the parent's segment, then leave the process with the context still
 * open, as a SCIF program does (SCIF has no call that closes it).
 */
static int child_leaver(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;

	(void)arg;
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), 0);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	return 0;
}

/*
 * Export segment arg ("id", or "id,open") and wait to be told to go; then close
 * in order, or with ",open" leave the process with the context still open.
 */
static int child_exporter(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;

	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK_RC(seg_make(ctx, (uint64_t)atoi(arg), 4096, 1, &seg), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	if (strstr(arg, ",open"))
		return 0;
	PROC_CHECK_RC(xrma_seg_unexport(seg, XRMA_UNEXPORT_FORCE), 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* ---- two hosts: children that enter a network namespace first ---- */

static int enter_netns(const char *name)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = setns(fd, CLONE_NEWNET);
	close(fd);
	return ret;
}

/* In namespace arg: node 1 of the pair, exporting a segment; reads back what node 2 wrote. */
static int child_ns_owner(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	unsigned char *p;

	PROC_CHECK(enter_netns(arg) == 0);
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK_RC(seg_make(ctx, SEG_ID, SEG_LEN, 3, &seg), 0);
	xrma_seg_addr(seg, (void **)&p);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_DONE, MP_TIMEOUT_MS) == 0);
	/* The importer's release came after its writes. */
	PROC_CHECK_RC(fixture_wait_importers(seg, 0, MP_TIMEOUT_MS), 0);
	PROC_CHECK(fixture_pattern_check(p, SEG_LEN / 2, 21, 0) == FIXTURE_MATCH);
	PROC_CHECK(fixture_pattern_check(p + SEG_LEN / 2, SEG_LEN / 2, 3, SEG_LEN / 2) == FIXTURE_MATCH);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* In namespace arg: node 2, a DMA exchange (queued, asynchronous) with node 1. */
static int child_ns_user(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;
	struct xrma_seg *local;
	struct xrma_dmaq *q;
	struct xrma_completion done[2];
	unsigned char *lp;
	size_t got = 0;

	PROC_CHECK(enter_netns(arg) == 0);
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
				     0, MP_TIMEOUT_MS, &r), 0);
	PROC_CHECK_RC(private_seg(ctx, 2 * SEG_LEN, &local, &lp), 0);
	fixture_pattern(lp + SEG_LEN, SEG_LEN / 2, 21, 0);
	PROC_CHECK_RC(xrma_dmaq_open(ctx, 8, 0, &q), 0);
	{
		struct xrma_iov rd = { .seg = local, .offset = 0, .len = SEG_LEN };
		struct xrma_iov wr = { .seg = local, .offset = SEG_LEN, .len = SEG_LEN / 2 };

		PROC_CHECK_RC(xrma_dmaq_post(q, XRMA_RMA_READ, &rd, 1, r, 0, SEG_LEN, 1, 0), 0);
		PROC_CHECK_RC(xrma_dmaq_post(q, XRMA_RMA_WRITE, &wr, 1, r, 0, SEG_LEN / 2, 2,
					     XRMA_RMA_FENCE), 0);
	}
	while (got < 2) {
		PROC_CHECK_RC(xrma_dmaq_wait(q, done + got, MP_TIMEOUT_MS), 0);
		got++;
	}
	PROC_CHECK(done[0].status == 0 && done[1].status == 0);
	PROC_CHECK(fixture_pattern_check(lp, SEG_LEN, 3, 0) == FIXTURE_MATCH);
	PROC_CHECK_RC(xrma_dmaq_close(q), 0);
	PROC_CHECK_RC(xrma_rseg_close(r), 0);
	PROC_CHECK_RC(xrma_seg_close(local), 0);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* The same exchange through SISCI: node 1 owns a segment, node 2 reads it and writes half by DMA. */
#define SISCI_CHECK(call)                                                                          \
	do {                                                                                       \
		sci_error_t sci_err_ = SCI_ERR_OK;                                                 \
		call;                                                                              \
		PROC_CHECK(sci_err_ == SCI_ERR_OK);                                                \
	} while (0)
#define SCI_E (&sci_err_)

static int child_ns_sisci_owner(int sock, const char *arg)
{
	sci_segment_cb_reason_t reason = SCI_CB_CONNECT;
	sci_local_segment_t seg;
	sci_desc_t sd;
	sci_map_t map;
	unsigned char *p = NULL;
	unsigned int from = 0, adapter = 0;

	PROC_CHECK(enter_netns(arg) == 0);
	SISCI_CHECK(SCIInitialize(0, SCI_E));
	SISCI_CHECK(SCIOpen(&sd, 0, SCI_E));
	SISCI_CHECK(SCICreateSegment(sd, &seg, SEG_ID, SEG_LEN, NULL, NULL, 0, SCI_E));
	SISCI_CHECK(p = SCIMapLocalSegment(seg, &map, 0, SEG_LEN, NULL, 0, SCI_E));
	fixture_pattern(p, SEG_LEN, 3, 0);
	SISCI_CHECK(SCIPrepareSegment(seg, 0, 0, SCI_E));
	SISCI_CHECK(SCISetSegmentAvailable(seg, 0, 0, SCI_E));
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	/* The user's disconnect comes after its last DMA completed. */
	for (int i = 0; i < 4 && reason != SCI_CB_DISCONNECT; i++)
		SISCI_CHECK(reason = SCIWaitForLocalSegmentEvent(seg, &from, &adapter, MP_TIMEOUT_MS, 0,
								 SCI_E));
	PROC_CHECK(reason == SCI_CB_DISCONNECT && from == 2);
	PROC_CHECK(fixture_pattern_check(p, SEG_LEN / 2, 21, 0) == FIXTURE_MATCH);
	PROC_CHECK(fixture_pattern_check(p + SEG_LEN / 2, SEG_LEN / 2, 3, SEG_LEN / 2) == FIXTURE_MATCH);
	SISCI_CHECK(SCIUnmapSegment(map, 0, SCI_E));
	SISCI_CHECK(SCIRemoveSegment(seg, 0, SCI_E));
	SISCI_CHECK(SCIClose(sd, 0, SCI_E));
	SCITerminate();
	return 0;
}

static int child_ns_sisci_user(int sock, const char *arg)
{
	sci_remote_segment_t remote;
	sci_local_segment_t local;
	sci_dma_queue_t dq;
	sci_desc_t sd;
	sci_map_t map;
	unsigned char *lp = NULL;

	PROC_CHECK(enter_netns(arg) == 0);
	SISCI_CHECK(SCIInitialize(0, SCI_E));
	SISCI_CHECK(SCIOpen(&sd, 0, SCI_E));
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	SISCI_CHECK(SCIConnectSegment(sd, &remote, 1, SEG_ID, 0, NULL, NULL, MP_TIMEOUT_MS, 0, SCI_E));
	/* Remote mapping is not available over a network: DMA is the way. */
	{
		sci_map_t rmap;
		sci_error_t err = SCI_ERR_OK;

		PROC_CHECK(!SCIMapRemoteSegment(remote, &rmap, 0, SEG_LEN, NULL, 0, &err) &&
			   err != SCI_ERR_OK);
	}
	SISCI_CHECK(SCICreateSegment(sd, &local, SEG_ID + 1, 2 * SEG_LEN, NULL, NULL, 0, SCI_E));
	SISCI_CHECK(lp = SCIMapLocalSegment(local, &map, 0, 2 * SEG_LEN, NULL, 0, SCI_E));
	SISCI_CHECK(SCIPrepareSegment(local, 0, 0, SCI_E));
	SISCI_CHECK(SCICreateDMAQueue(sd, &dq, 0, 4, 0, SCI_E));
	SISCI_CHECK(SCIStartDmaTransfer(dq, local, remote, 0, SEG_LEN, 0, NULL, NULL,
					SCI_FLAG_DMA_WAIT | SCI_FLAG_DMA_READ, SCI_E));
	PROC_CHECK(fixture_pattern_check(lp, SEG_LEN, 3, 0) == FIXTURE_MATCH);
	fixture_pattern(lp + SEG_LEN, SEG_LEN / 2, 21, 0);
	SISCI_CHECK(SCIStartDmaTransfer(dq, local, remote, SEG_LEN, SEG_LEN / 2, 0, NULL, NULL,
					SCI_FLAG_DMA_WAIT, SCI_E));
	SISCI_CHECK(SCIRemoveDMAQueue(dq, 0, SCI_E));
	SISCI_CHECK(SCIDisconnectSegment(remote, 0, SCI_E));
	SISCI_CHECK(SCIUnmapSegment(map, 0, SCI_E));
	SISCI_CHECK(SCIRemoveSegment(local, 0, SCI_E));
	SISCI_CHECK(SCIClose(sd, 0, SCI_E));
	SCITerminate();
	return 0;
}

/* The same exchange through SCIF: node 1 listens and registers a window, node 2 reads and writes it. */
#define SCIF_NS_PORT 2700
#define SCIF_RW (SCIF_PROT_READ | SCIF_PROT_WRITE)

static void *scif_pages(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int child_ns_scif_owner(int sock, const char *arg)
{
	struct scif_portID peer;
	scif_epd_t listener, epd;
	unsigned char *mem, byte = 1;

	PROC_CHECK(enter_netns(arg) == 0);
	PROC_CHECK((mem = scif_pages(SEG_LEN)) != NULL);
	fixture_pattern(mem, SEG_LEN, 5, 0);
	PROC_CHECK((listener = scif_open()) >= 0);
	PROC_CHECK(scif_bind(listener, SCIF_NS_PORT) == SCIF_NS_PORT);
	PROC_CHECK(scif_listen(listener, 1) == 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(scif_accept(listener, &peer, &epd, SCIF_ACCEPT_SYNC) == 0);
	PROC_CHECK(peer.node == 2);
	PROC_CHECK(scif_register(epd, mem, SEG_LEN, 0, SCIF_RW, SCIF_MAP_FIXED) == 0);
	PROC_CHECK(scif_send(epd, &byte, 1, SCIF_SEND_BLOCK) == 1);
	/* The user's message comes after its synchronous write returned. */
	PROC_CHECK(scif_recv(epd, &byte, 1, SCIF_RECV_BLOCK) == 1 && byte == 2);
	PROC_CHECK(fixture_pattern_check(mem, SEG_LEN / 2, 22, 0) == FIXTURE_MATCH);
	PROC_CHECK(fixture_pattern_check(mem + SEG_LEN / 2, SEG_LEN / 2, 5, SEG_LEN / 2) == FIXTURE_MATCH);
	/* The user still holds its import of our window until it closes: wait for that. */
	{
		struct scif_pollepd pe = { .epd = epd, .events = 0 };

		PROC_CHECK(scif_poll(&pe, 1, MP_TIMEOUT_MS) == 1 && (pe.revents & SCIF_POLLHUP));
	}
	PROC_CHECK(scif_close(epd) == 0);
	PROC_CHECK(scif_close(listener) == 0);
	munmap(mem, SEG_LEN);
	return 0;
}

static int child_ns_scif_user(int sock, const char *arg)
{
	struct scif_portID owner = { .node = 1, .port = SCIF_NS_PORT };
	unsigned char *mem, byte = 0;
	scif_epd_t epd;

	PROC_CHECK(enter_netns(arg) == 0);
	PROC_CHECK((mem = scif_pages(2 * SEG_LEN)) != NULL);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK((epd = scif_open()) >= 0);
	PROC_CHECK(scif_connect(epd, &owner) >= 0);
	PROC_CHECK(scif_register(epd, mem, 2 * SEG_LEN, 0, SCIF_RW, SCIF_MAP_FIXED) == 0);
	PROC_CHECK(scif_recv(epd, &byte, 1, SCIF_RECV_BLOCK) == 1 && byte == 1);
	/* No mapping of the peer's window over a network: RMA is the way. */
	PROC_CHECK(scif_mmap(NULL, 4096, SCIF_RW, 0, epd, 0) == SCIF_MMAP_FAILED && errno == EOPNOTSUPP);
	PROC_CHECK(scif_readfrom(epd, 0, SEG_LEN, 0, SCIF_RMA_SYNC) == 0);
	PROC_CHECK(fixture_pattern_check(mem, SEG_LEN, 5, 0) == FIXTURE_MATCH);
	fixture_pattern(mem + SEG_LEN, SEG_LEN / 2, 22, 0);
	PROC_CHECK(scif_writeto(epd, SEG_LEN, SEG_LEN / 2, 0, SCIF_RMA_SYNC) == 0);
	byte = 2;
	PROC_CHECK(scif_send(epd, &byte, 1, SCIF_SEND_BLOCK) == 1);
	PROC_CHECK(scif_unregister(epd, 0, 2 * SEG_LEN) == 0);
	PROC_CHECK(scif_close(epd) == 0);
	munmap(mem, 2 * SEG_LEN);
	return 0;
}

static const struct proc_role roles[] = {
	{ "importer", child_importer },
	{ "stream", child_stream },
	{ "trigger", child_trigger },
	{ "writer", child_writer },
	{ "exporter", child_exporter },
	{ "leaver", child_leaver },
	{ "long_mover", child_long_mover },
	{ "stream_target", child_stream_target },
	{ "driven_echo", child_driven_echo },
	{ "ns_owner", child_ns_owner },
	{ "ns_user", child_ns_user },
	{ "ns_sisci_owner", child_ns_sisci_owner },
	{ "ns_sisci_user", child_ns_sisci_user },
	{ "ns_scif_owner", child_ns_scif_owner },
	{ "ns_scif_user", child_ns_scif_user },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ tests */

/* Let the child go and join it; once its import of seg is gone, close local, seg and ctx. */
static void release_child_and_close(struct proc *child, struct xrma_ctx *ctx, struct xrma_seg *seg,
				    struct xrma_seg *local)
{
	assert_int_equal(proc_send(child->sock, MSG_GO), 0);
	assert_int_equal(proc_join(child, MP_TIMEOUT_MS), 0);
	assert_rc(fixture_wait_importers(seg, 0, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_close(local), 0);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static int group_up(void **state)
{
	char lines[4][64];
	const char *l[4] = { lines[0], lines[1], lines[2], lines[3] };
	int p1 = fixture_free_tcp_port(), p2 = fixture_free_tcp_port(), p9 = fixture_free_tcp_port(), p3 = fixture_free_tcp_port();

	(void)state;
	fixture_fabric_name(fabric, sizeof(fabric), "ofi");
	snprintf(dir_path, sizeof(dir_path), "/tmp/xrma-test-ofi-XXXXXX");
	if (p1 < 0 || p2 < 0 || p9 < 0 || p3 < 0 || !mkdtemp(dir_path))
		return -1;
	snprintf(nodes_path, sizeof(nodes_path), "%s/nodes", dir_path);
	snprintf(lines[0], sizeof(lines[0]), "1 127.0.0.1:%d", p1);
	snprintf(lines[1], sizeof(lines[1]), "2   127.0.0.1:%d   # the child", p2);
	snprintf(lines[2], sizeof(lines[2]), "3 localhost:%d", p3);
	/* Nobody ever listens here: a node that does not answer. */
	snprintf(lines[3], sizeof(lines[3]), "9 127.0.0.1:%d", p9);
	if (write_node_file(nodes_path, l, 4))
		return -1;
	setenv("XRMA_OFI_NODES", nodes_path, 1);
	setenv("XRMA_OFI_LIVENESS_MS", LIVENESS_TXT, 1);
	setenv("XRMA_FABRIC", fabric, 1);
	return 0;
}

static int group_down(void **state)
{
	char path[300];

	(void)state;
	snprintf(path, sizeof(path), "%s/nodes-netns", dir_path);
	unlink(path);
	unlink(nodes_path);
	rmdir(dir_path);
	return 0;
}

/* Node 1's side of an exchange with a child (exchange_start). */
struct exchange {
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;      /* ours, exported as SEG_ID: len bytes of pattern 3 */
	struct xrma_seg *local;    /* private, len bytes */
	struct xrma_rseg *r;       /* the child's segment */
	struct proc *child;
	unsigned char *p, *lp;
};

/*
 * Open node 1 and export seg, start role (arg) as node 2, and once it is ready
 * import its segment child_seg and read it whole into local: pattern child_seed.
 */
static void exchange_start(const char *role, const char *arg, size_t len, uint64_t child_seg,
			   uint8_t child_seed, struct exchange *x)
{
	assert_rc(ctx_open_node(1, &x->ctx), 0);
	assert_rc(seg_make(x->ctx, SEG_ID, len, 3, &x->seg), 0);
	xrma_seg_addr(x->seg, (void **)&x->p);
	x->child = kid_start(2, role, arg);
	assert_int_equal(proc_expect(x->child->sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_rseg_open(x->ctx, 2, child_seg, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
				 0, MP_TIMEOUT_MS, &x->r), 0);
	hold(HELD_RSEG, x->r);
	assert_rc(private_seg(x->ctx, len, &x->local, &x->lp), 0);
	assert_rc(fixture_rma_sync(x->ctx, XRMA_RMA_READ, x->local, 0, x->r, 0, len), 0);
	assert_true(fixture_pattern_check(x->lp, len, child_seed, 0) == FIXTURE_MATCH);
}

static void test_export_import_rma_both_directions(void **state)
{
	struct exchange x;
	struct xrma_ctx_info info;
	uint64_t word;

	(void)state;
	/* Our direction: read the child's segment (exchange_start), write into it. */
	exchange_start("importer", NULL, SEG_LEN, SEG_ID + 1, 8, &x);
	assert_rc(xrma_ctx_query(x.ctx, &info), 0);
	assert_string_equal(info.provider, "ofi");
	assert_false(info.caps.flags & XRMA_CAP_MAP);
	assert_false(info.caps.flags & XRMA_CAP_DOORBELL);
	assert_true(info.caps.flags & XRMA_CAP_MULTIPROC);
	assert_rc(fixture_rma_sync(x.ctx, XRMA_RMA_WRITE, x.local, 0, x.r, 100, 1000), 0);
	assert_rc(fixture_rma_sync(x.ctx, XRMA_RMA_WRITE, x.local, 0, x.r, SEG_LEN - 8, 16),
		  XRMA_ERANGE);
	assert_rc(xrma_rseg_close(x.r), 0);
	/* Its direction. */
	assert_int_equal(proc_send(x.child->sock, MSG_GO), 0);
	assert_int_equal(proc_expect(x.child->sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	/* Remote byte j in [3, SEG_LEN-4) holds local byte j-2 of pattern 11 (bytes 0..7 took
	 * the atomics when there are any); the last four bytes are untouched. */
	assert_true(fixture_pattern_check(x.p + 8, SEG_LEN - 4 - 8, 11, 6) == FIXTURE_MATCH);
	assert_true(fixture_pattern_check(x.p + SEG_LEN - 4, 4, 3, SEG_LEN - 4) == FIXTURE_MATCH);
	fixture_peer_copy(&word, x.p, sizeof(word));
	if (info.caps.flags & XRMA_CAP_ATOMIC)
		assert_true(word == 0x1122334455667789ull);
	assert_rc(fixture_wait_importers(x.seg, 1, MP_TIMEOUT_MS), 0);
	release_child_and_close(x.child, x.ctx, x.seg, x.local);
}

static void test_connection_byte_stream(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_conn *l, *c;
	struct proc *child;
	uint32_t port = PORT;
	static char out[200000], in[200000];
	size_t got = 0;

	(void)state;
	assert_rc(ctx_open_node(1, &ctx), 0);
	assert_rc(xrma_conn_open(ctx, 0, &l), 0);
	hold(HELD_CONN, l);
	assert_rc(xrma_conn_bind(l, &port, 0, 0), 0);
	assert_rc(xrma_conn_listen(l, 4), 0);
	child = kid_start(2, "stream", NULL);
	assert_int_equal(proc_send(child->sock, MSG_READY), 0);
	assert_rc(xrma_conn_accept(l, MP_TIMEOUT_MS, &c), 0);
	hold(HELD_CONN, c);
	/* More than the window several times over, in order; each piece's echo read
	 * before the next goes (both windows are bounded). */
	fixture_pattern(out, sizeof(out), 17, 0);
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (char)(out[i] & ~0x20);
	for (size_t sent = 0; sent < sizeof(out);) {
		size_t piece = sizeof(out) - sent < 20000 ? sizeof(out) - sent : 20000;

		assert_int_equal(xrma_conn_send(c, out + sent, piece, XRMA_CONN_BLOCK, MP_TIMEOUT_MS), piece);
		sent += piece;
		while (got < sent) {
			ssize_t n = xrma_conn_recv(c, in + got, sent - got, XRMA_CONN_BLOCK, MP_TIMEOUT_MS);

			assert_true(n > 0);
			got += (size_t)n;
		}
	}
	for (size_t i = 0; i < sizeof(in); i++)
		assert_int_equal((unsigned char)in[i], (unsigned char)(out[i] | 0x20));
	assert_rc(xrma_conn_close(c), 0);
	assert_int_equal(proc_join(child, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_conn_close(l), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_interrupts_as_messages(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_intr *intr;
	struct proc *child;
	uint64_t number = XRMA_ID_ANY;
	int plain = 0, with_data = 0;

	(void)state;
	assert_rc(ctx_open_node(1, &ctx), 0);
	assert_rc(xrma_intr_open(ctx, &number, 0, 0, 0, &intr), 0);
	hold(HELD_INTR, intr);
	child = kid_start(2, "trigger", NULL);
	assert_int_equal(proc_send(child->sock, number), 0);
	while (plain + with_data < 51) {
		char data[16];
		size_t len = sizeof(data);

		assert_rc(xrma_intr_wait(intr, MP_TIMEOUT_MS, data, &len), 0);
		if (len) {
			assert_int_equal(len, 5);
			assert_memory_equal(data, "hello", 5);
			with_data++;
		} else {
			plain++;
		}
	}
	assert_int_equal(plain, 50);
	assert_int_equal(with_data, 1);
	assert_rc(xrma_intr_wait(intr, 0, NULL, NULL), XRMA_ETIMEDOUT);
	assert_int_equal(proc_send(child->sock, MSG_DONE), 0);
	assert_int_equal(proc_join(child, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_intr_close(intr), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_lookups_and_unknown_or_silent_nodes(void **state)
{
	struct xrma_ctx *ctx, *again;
	struct xrma_rseg *r;
	struct xrma_conn *c;
	struct proc *child;
	uint32_t nodes[8];
	size_t n = 0;
	uint64_t t0;

	(void)state;
	assert_rc(ctx_open_node(1, &ctx), 0);
	/* One endpoint per node: a second context on node 1 is refused. */
	assert_rc(ctx_open_node(1, &again), XRMA_EADDRINUSE);
	assert_non_null(strstr(xrma_error_detail(), "node 1"));
	/* A node the file does not list: at once. */
	t0 = fixture_now_ms();
	assert_rc(xrma_rseg_open(ctx, 7, SEG_ID, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), XRMA_ENODEV);
	assert_rc(xrma_node_probe(ctx, 7, 100), XRMA_ENODEV);
	assert_true(fixture_now_ms() - t0 < 1000);
	/* A listed node nobody runs: not responding, within the liveness bound. */
	t0 = fixture_now_ms();
	assert_rc(xrma_rseg_open(ctx, 9, SEG_ID, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r),
		  XRMA_EHOSTUNREACH);
	assert_true(fixture_now_ms() - t0 < 2 * LIVENESS_MS + 1000);
	assert_rc(xrma_node_probe(ctx, 9, 200), XRMA_EHOSTUNREACH);
	assert_rc(xrma_conn_open(ctx, 0, &c), 0);
	hold(HELD_CONN, c);
	assert_rc(xrma_conn_connect(c, 7, PORT, MP_TIMEOUT_MS), XRMA_ENODEV);
	assert_rc(xrma_conn_close(c), 0);
	/* A live node: its names are found, others are not. */
	child = kid_start(2, "exporter", "31");
	assert_int_equal(proc_expect(child->sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_node_probe(ctx, 2, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_node_probe(ctx, 1, 0), 0);
	assert_rc(xrma_node_list(ctx, nodes, 8, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(nodes[0], 1);
	assert_int_equal(nodes[1], 2);
	assert_rc(xrma_rseg_open(ctx, 2, 32, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), XRMA_ENOENT);
	assert_rc(xrma_rseg_open(ctx, 2, 31, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), 0);
	hold(HELD_RSEG, r);
	{
		struct xrma_seg *local;
		unsigned char *lp;

		assert_rc(private_seg(ctx, 4096, &local, &lp), 0);
		assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, 4096), 0);
		assert_true(fixture_pattern_check(lp, 4096, 1, 0) == FIXTURE_MATCH);
		/* Read-only import: the owner's registration refuses writes too. */
		assert_rc(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, r, 0, 64), XRMA_EACCES);
		assert_rc(xrma_seg_close(local), 0);
	}
	assert_rc(xrma_rseg_close(r), 0);
	assert_int_equal(proc_send(child->sock, MSG_GO), 0);
	assert_int_equal(proc_join(child, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

/* Start a "writer" node 2 (arg), see it import seg, and import its segment 555. */
static struct proc *writer_start(struct xrma_ctx *ctx, struct xrma_seg *seg, const char *arg,
				 struct xrma_rseg **r)
{
	struct proc *child = kid_start(2, "writer", arg);

	assert_int_equal(proc_send(child->sock, MSG_READY), 0);
	assert_int_equal(proc_expect(child->sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	assert_rc(fixture_wait_importers(seg, 1, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_rseg_open(ctx, 2, 555, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, r), 0);
	hold(HELD_RSEG, *r);
	return child;
}

static void test_peer_killed_survivor_sees_lost(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg, *local;
	struct xrma_rseg *r;
	struct xrma_event ev;
	struct proc *child;
	unsigned char *lp;
	uint64_t t0;

	(void)state;
	assert_rc(ctx_open_node(1, &ctx), 0);
	assert_rc(seg_make(ctx, SEG_ID, SEG_LEN, 3, &seg), 0);
	assert_rc(private_seg(ctx, 4096, &local, &lp), 0);
	child = writer_start(ctx, seg, NULL, &r);
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, 64), 0);
	assert_int_equal(proc_kill(child), 128 + SIGKILL);
	t0 = fixture_now_ms();
	/* The owner hears of the importer's death, the importer of the owner's. */
	do
		assert_rc(xrma_seg_wait_event(seg, 2 * LIVENESS_MS + 1000, &ev), 0);
	while (ev.type == XRMA_EVENT_CONNECT);
	assert_int_equal(ev.type, XRMA_EVENT_LOST);
	assert_int_equal(fixture_wait_rseg_state(r, XRMA_RSEG_LOST, 2 * LIVENESS_MS + 1000), 0);
	assert_true(fixture_now_ms() - t0 < 2 * LIVENESS_MS + 1000);
	assert_rc(fixture_wait_importers(seg, 0, MP_TIMEOUT_MS), 0);
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, 64), XRMA_ELOST);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(xrma_node_probe(ctx, 2, 200), XRMA_EHOSTUNREACH);
	/* The survivor goes on: a new node 2 imports the same segment and is read at once,
	 * though our transfers' endpoint last had a connection to the killed node 2's
	 * address (docs/providers-ofi.md, "Progress"). */
	child = writer_start(ctx, seg, "close", &r);
	memset(lp, 0, 64);
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, 64), 0);
	assert_true(fixture_pattern_check(lp, 64, 1, 0) == FIXTURE_MATCH);
	assert_rc(xrma_rseg_close(r), 0);
	release_child_and_close(child, ctx, seg, local);
}

/*
 * A peer that falls silent (SIGSTOP: its connections stay open, nothing
 * answers) while the application drives progress, its progress thread
 * resting: the import is found lost within the liveness bound all the same,
 * since the resting thread keeps asking.
 */
static void test_silent_peer_found_lost_while_the_application_drives(void **state)
{
	enum xrma_rseg_state rs = XRMA_RSEG_CONNECTED;
	struct xrma_ctx *ctx;
	struct xrma_seg *seg, *local;
	struct xrma_rseg *r;
	struct proc *child;
	unsigned char *lp;
	uint64_t t0;

	(void)state;
	assert_rc(ctx_open_node(1, &ctx), 0);
	assert_rc(seg_make(ctx, SEG_ID, SEG_LEN, 3, &seg), 0);
	assert_rc(private_seg(ctx, 4096, &local, &lp), 0);
	child = writer_start(ctx, seg, NULL, &r);
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, 64), 0);
	assert_int_equal(kill(child->pid, SIGSTOP), 0);
	t0 = fixture_now_ms();
	while (rs != XRMA_RSEG_LOST && fixture_now_ms() - t0 < 2 * LIVENESS_MS + 1000) {
		assert_true(xrma_ctx_progress(ctx) >= 0);
		assert_rc(xrma_rseg_state(r, &rs), 0);
	}
	assert_int_equal(rs, XRMA_RSEG_LOST);
	assert_int_equal(proc_kill(child), 128 + SIGKILL);
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, 64), XRMA_ELOST);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(fixture_wait_importers(seg, 0, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_close(local), 0);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_owner_withdraws_and_closes(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	struct xrma_rseg *r;
	struct proc *child;

	(void)state;
	assert_rc(ctx_open_node(1, &ctx), 0);
	assert_rc(seg_make(ctx, SEG_ID, SEG_LEN, 3, &seg), 0);
	child = kid_start(2, "exporter", "44");
	assert_int_equal(proc_expect(child->sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_rseg_open(ctx, 2, 44, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), 0);
	hold(HELD_RSEG, r);
	assert_int_equal(proc_send(child->sock, MSG_GO), 0);
	assert_int_equal(proc_join(child, MP_TIMEOUT_MS), 0);
	/* The owner cut us off, closed its segment and then its context, in order. */
	assert_int_equal(fixture_wait_rseg_state(r, XRMA_RSEG_LOST, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_node_probe(ctx, 2, 200), XRMA_EHOSTUNREACH);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

/*
 * A peer whose process exits with its context open is heard gone at once: the
 * liveness timeout here is far longer than the wait, so only the goodbye sent
 * at exit can end it.
 */
static void test_peer_exits_with_context_open(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	struct xrma_event ev;
	struct proc *child;

	(void)state;
	setenv("XRMA_OFI_LIVENESS_MS", "600000", 1);
	assert_rc(ctx_open_node(1, &ctx), 0);
	assert_rc(seg_make(ctx, SEG_ID, SEG_LEN, 3, &seg), 0);
	child = kid_start(2, "leaver", NULL);
	setenv("XRMA_OFI_LIVENESS_MS", LIVENESS_TXT, 1);
	assert_int_equal(proc_expect(child->sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	assert_rc(fixture_wait_importers(seg, 1, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_send(child->sock, MSG_GO), 0);
	assert_int_equal(proc_join(child, MP_TIMEOUT_MS), 0);
	do
		assert_rc(xrma_seg_wait_event(seg, MP_TIMEOUT_MS, &ev), 0);
	while (ev.type == XRMA_EVENT_CONNECT);
	assert_int_equal(ev.type, XRMA_EVENT_DISCONNECT);
	assert_int_equal(ev.node, 2);
	assert_rc(fixture_wait_importers(seg, 0, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

/*
 * Node 2 restarts, round after round, each time exporting the same segment and
 * leaving with its context open (it says goodbye, then its sockets close). Our
 * transfers' endpoint last had a connection to the same address, which may still
 * look open when we next post there (docs/providers-ofi.md, "Progress"): a
 * transfer to the new process, asynchronous or synchronous, must reach it all
 * the same, never fail for the old one's sake.
 */
static void test_transfers_reach_a_restarted_node(void **state)
{
	enum { ROUNDS = 3, LEN = 4096 };
	struct xrma_ctx *ctx;
	struct xrma_seg *local;
	unsigned char *lp;

	(void)state;
	assert_rc(ctx_open_node(1, &ctx), 0);
	assert_rc(private_seg(ctx, LEN, &local, &lp), 0);
	for (int round = 0; round < ROUNDS; round++) {
		struct xrma_iov iov = { .seg = local, .offset = 0, .len = LEN };
		struct xrma_completion done = { .status = -1 };
		struct xrma_dmaq *q;
		struct xrma_rseg *r;
		struct proc *child;

		child = kid_start(2, "exporter", "45,open");
		assert_int_equal(proc_expect(child->sock, MSG_READY, MP_TIMEOUT_MS), 0);
		assert_rc(xrma_rseg_open(ctx, 2, 45, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE, 0,
					 MP_TIMEOUT_MS, &r), 0);
		hold(HELD_RSEG, r);
		/* First an asynchronous read: the queue reports the transfer's own result. */
		memset(lp, 0, LEN);
		assert_rc(xrma_dmaq_open(ctx, 4, 0, &q), 0);
		assert_rc(xrma_dmaq_post(q, XRMA_RMA_READ, &iov, 1, r, 0, LEN, 7, 0), 0);
		assert_rc(xrma_dmaq_wait(q, &done, MP_TIMEOUT_MS), 0);
		assert_int_equal(done.cookie, 7);
		assert_rc(done.status, 0);
		assert_rc(xrma_dmaq_close(q), 0);
		assert_true(fixture_pattern_check(lp, LEN, 1, 0) == FIXTURE_MATCH);
		/* Then synchronous ones, both ways. */
		assert_rc(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, r, 0, LEN), 0);
		assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, LEN), 0);
		assert_true(fixture_pattern_check(lp, LEN, 1, 0) == FIXTURE_MATCH);
		assert_int_equal(proc_send(child->sock, MSG_GO), 0);
		assert_int_equal(proc_join(child, MP_TIMEOUT_MS), 0);
		assert_int_equal(fixture_wait_rseg_state(r, XRMA_RSEG_LOST, MP_TIMEOUT_MS), 0);
		assert_rc(xrma_rseg_close(r), 0);
	}
	assert_rc(xrma_seg_close(local), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

/* ---- two hosts ---- */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st == 0 ? 0 : -1;
}

static void test_two_hosts_in_network_namespaces(void **state)
{
	char nsa[32], nsb[32], path[300], la[64], lb[64];
	const char *lines[2] = { la, lb };
	unsigned tag = (unsigned)getpid() & 0xffff;
	unsigned net = (unsigned)getpid() % 200 + 20;
	struct proc *owner, *user;
	int ok;

	(void)state;
	if (geteuid() != 0 || sh("command -v ip >/dev/null 2>&1")) {
		print_message("two-host test skipped: creating network namespaces needs root and the ip tool\n");
		skip();
	}
	snprintf(nsa, sizeof(nsa), "xrma%04xa", tag);
	snprintf(nsb, sizeof(nsb), "xrma%04xb", tag);
	ok = !sh("ip netns add %s && ip netns add %s", nsa, nsb) &&
	     !sh("ip link add v%04xa netns %s type veth peer name v%04xb netns %s", tag, nsa, tag, nsb) &&
	     !sh("ip -n %s addr add 10.%u.%u.1/24 dev v%04xa && ip -n %s link set v%04xa up && ip -n %s link set lo up",
		 nsa, net, tag & 0xff, tag, nsa, tag, nsa) &&
	     !sh("ip -n %s addr add 10.%u.%u.2/24 dev v%04xb && ip -n %s link set v%04xb up && ip -n %s link set lo up",
		 nsb, net, tag & 0xff, tag, nsb, tag, nsb);
	snprintf(netns_held[0], sizeof(netns_held[0]), "%s", nsa);
	snprintf(netns_held[1], sizeof(netns_held[1]), "%s", nsb);
	if (!ok) {
		print_message("two-host test skipped: this system refused to make namespaces or a veth pair\n");
		skip();
	}
	/* Each host knows the other by its address on the veth link. */
	snprintf(la, sizeof(la), "1 10.%u.%u.1:7471", net, tag & 0xff);
	snprintf(lb, sizeof(lb), "2 10.%u.%u.2:7471", net, tag & 0xff);
	snprintf(path, sizeof(path), "%s/nodes-netns", dir_path);
	assert_int_equal(write_node_file(path, lines, 2), 0);
	setenv("XRMA_OFI_NODES", path, 1);
	/* The core API, then SISCI, then SCIF: one pair of processes each (a node is one process). */
	owner = kid_start(1, "ns_owner", nsa);
	user = kid_start(2, "ns_user", nsb);
	assert_int_equal(proc_expect(owner->sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_send(user->sock, MSG_GO), 0);
	assert_int_equal(proc_expect(user->sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_send(owner->sock, MSG_DONE), 0);
	ok = proc_join(user, MP_TIMEOUT_MS) == 0;
	ok = proc_join(owner, MP_TIMEOUT_MS) == 0 && ok;
	assert_true(ok);
	for (int api = 0; api < 2; api++) {
		owner = kid_start(1, api ? "ns_scif_owner" : "ns_sisci_owner", nsa);
		user = kid_start(2, api ? "ns_scif_user" : "ns_sisci_user", nsb);
		assert_int_equal(proc_expect(owner->sock, MSG_READY, MP_TIMEOUT_MS), 0);
		assert_int_equal(proc_send(user->sock, MSG_GO), 0);
		ok = proc_join(user, MP_TIMEOUT_MS) == 0;
		ok = proc_join(owner, MP_TIMEOUT_MS) == 0 && ok;
		if (!ok)
			fail_msg("the %s exchange between the namespaces failed", api ? "SCIF" : "SISCI");
	}
	setenv("XRMA_OFI_NODES", nodes_path, 1);
}

/*
 * An [ofi] setting the exchange runs again with, set for the test (the child
 * inherits it): transfers on the control endpoint, and progress threads that
 * never sleep.
 */
struct ofi_setting {
	const char *var, *value;
};

static struct ofi_setting shared_endpoint = { "XRMA_OFI_RMA_ENDPOINT", "shared" };
static struct ofi_setting separate_endpoints = { "XRMA_OFI_RMA_ENDPOINT", "separate" };
static struct ofi_setting busy_progress = { "XRMA_OFI_PROGRESS_WAIT", "busy" };
static struct ofi_setting short_serve = { "XRMA_OFI_SERVE_MS", "1" };

static int test_up_with_setting(void **state)
{
	const struct ofi_setting *setting = *state;

	setenv(setting->var, setting->value, 1);
	return test_up(state);
}

static int test_down_with_setting(void **state)
{
	const struct ofi_setting *setting = *state;
	int ret = test_down(state);

	unsetenv(setting->var);
	return ret;
}

/*
 * With serve_ms = 1 (test_up_with_setting), transfers that take far longer
 * than the window still finish: the initiator's progress thread asks the
 * owner again while they are in flight (docs/providers-ofi.md, "Serving").
 * The child carries its transfers on its control endpoint, so its keys name
 * no target endpoint: both settings meet in one exchange.
 */
static void test_transfers_outlast_the_serve_window(void **state)
{
	struct exchange x;

	(void)state;
	exchange_start("long_mover", "shared", LONG_LEN, SEG_ID + 2, 5, &x);
	fixture_pattern(x.lp, LONG_LEN, 13, 0);
	assert_rc(fixture_rma_sync(x.ctx, XRMA_RMA_WRITE, x.local, 0, x.r, 0, LONG_LEN), 0);
	assert_rc(xrma_rseg_close(x.r), 0);
	assert_int_equal(proc_send(x.child->sock, MSG_GO), 0);
	assert_int_equal(proc_expect(x.child->sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	assert_true(fixture_pattern_check(x.p, LONG_LEN, 12, 0) == FIXTURE_MATCH);
	assert_rc(fixture_wait_importers(x.seg, 1, MP_TIMEOUT_MS), 0);
	release_child_and_close(x.child, x.ctx, x.seg, x.local);
}

/* Post piece i of x->local (cookie i) into the child's segment, asynchronously. */
static void stream_post(struct exchange *x, struct xrma_dmaq *q, size_t i)
{
	struct xrma_iov iov = { .seg = x->local, .offset = i * STREAM_PIECE, .len = STREAM_PIECE };

	assert_rc(xrma_dmaq_post(q, XRMA_RMA_WRITE, &iov, 1, x->r, i * STREAM_PIECE, STREAM_PIECE, i,
				 0), 0);
}

static void stream_check(const struct xrma_completion *c, size_t i)
{
	assert_int_equal(c->status, 0);
	assert_int_equal(c->cookie, i);   /* completions come in posting order */
	assert_int_equal(c->len, STREAM_PIECE);
}

/*
 * A stream of asynchronous writes, more in flight than the depth past which
 * the poster reads completions itself: every write lands and completes once,
 * in order, whether a waiter drives them (first half) or nobody in the
 * program calls into the library and the provider's thread completes them
 * (second half).
 */
static void test_a_stream_of_posts_completes(void **state)
{
	struct xrma_completion c;
	struct xrma_dmaq *q;
	struct exchange x;
	uint64_t deadline;
	size_t got = 0;

	(void)state;
	exchange_start("stream_target", NULL, SEG_LEN, SEG_ID + 3, 5, &x);
	fixture_pattern(x.lp, SEG_LEN, 17, 0);
	assert_rc(xrma_dmaq_open(x.ctx, STREAM_PIECES, 0, &q), 0);
	for (size_t i = 0; i < STREAM_PIECES / 2; i++)
		stream_post(&x, q, i);
	for (size_t i = 0; i < STREAM_PIECES / 2; i++) {
		assert_rc(xrma_dmaq_wait(q, &c, MP_TIMEOUT_MS), 0);
		stream_check(&c, i);
	}
	for (size_t i = STREAM_PIECES / 2; i < STREAM_PIECES; i++)
		stream_post(&x, q, i);
	deadline = fixture_now_ms() + MP_TIMEOUT_MS;
	while (got < STREAM_PIECES / 2) {
		int n = xrma_dmaq_poll(q, &c, 1);   /* reads the queue only: drives nothing */

		assert_true(n >= 0);
		if (n) {
			stream_check(&c, STREAM_PIECES / 2 + got++);
			continue;
		}
		assert_true(fixture_now_ms() < deadline);
		sched_yield();
	}
	assert_rc(xrma_dmaq_close(q), 0);
	assert_rc(xrma_rseg_close(x.r), 0);
	assert_int_equal(proc_send(x.child->sock, MSG_GO), 0);
	assert_int_equal(proc_expect(x.child->sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	release_child_and_close(x.child, x.ctx, x.seg, x.local);
}

/*
 * The application drives progress: a write ping-pong in which both processes
 * wait by polling memory and calling xrma_ctx_progress, for longer than the
 * liveness timeout, while both progress threads rest. Every round arrives, by
 * the callers' polling alone, and the import stays connected. Then a round in
 * which neither calls it: it arrives only if the threads take over again.
 */
static void test_the_application_drives_progress(void **state)
{
	enum xrma_rseg_state rs;
	struct xrma_dmaq *q;
	struct exchange x;
	uint64_t until, round = 0, echoed = 0, rounds = 0;

	(void)state;
	exchange_start("driven_echo", NULL, SEG_LEN, SEG_ID + 5, 9, &x);
	memset(x.p + SEG_LEN - 8, 0, 8);
	assert_rc(xrma_dmaq_open(x.ctx, 4, 0, &q), 0);
	assert_int_equal(proc_send(x.child->sock, MSG_GO), 0);
	assert_int_equal(proc_expect(x.child->sock, MSG_READY, MP_TIMEOUT_MS), 0);
	until = fixture_now_ms() + LIVENESS_MS * 5 / 4;
	while (round != DRIVEN_END + 1) {
		if (round == DRIVEN_END)
			round = DRIVEN_END + 1;
		else
			round = fixture_now_ms() < until ? round + 1 : DRIVEN_END;
		assert_rc(echo_write(q, x.local, x.lp, x.r, round), 0);
		echoed = await_change(x.ctx, x.p, echoed, round <= DRIVEN_END);
		assert_true(echoed == round);
		rounds++;
	}
	assert_true(rounds > 10);
	assert_rc(xrma_rseg_state(x.r, &rs), 0);
	assert_int_equal(rs, XRMA_RSEG_CONNECTED);
	assert_rc(xrma_dmaq_close(q), 0);
	assert_rc(xrma_rseg_close(x.r), 0);
	assert_int_equal(proc_expect(x.child->sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	release_child_and_close(x.child, x.ctx, x.seg, x.local);
}

/* A bad [ofi] setting refuses the context with XRMA_ECONFIG and a detail naming it. */
static void test_bad_settings_refuse_the_context(void **state)
{
	static const struct {
		const char *var, *value, *named;
	} bad[] = {
		{ "XRMA_OFI_PROGRESS_WAIT", "sometimes", "ofi.progress_wait" },
		{ "XRMA_OFI_RMA_ENDPOINT", "both", "ofi.rma_endpoint" },
		{ "XRMA_OFI_PROGRESS_SPIN_US", "2000000", "ofi.progress_spin_us" },
		{ "XRMA_OFI_LIVENESS_MS", "5", "ofi.liveness_ms" },
		{ "XRMA_OFI_SERVE_MS", "0", "ofi.serve_ms" },
	};
	struct xrma_ctx *ctx = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(bad[i].var, bad[i].value, 1);
		assert_rc(ctx_open_node(1, &ctx), XRMA_ECONFIG);
		if (!strstr(xrma_error_detail(), bad[i].named))
			fail_msg("%s=%s: detail \"%s\" does not name %s", bad[i].var, bad[i].value,
				 xrma_error_detail(), bad[i].named);
		unsetenv(bad[i].var);
	}
	/* Nothing was left behind: the node opens once the settings are good. */
	assert_rc(ctx_open_node(1, &ctx), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_export_import_rma_both_directions, test_up, test_down),
		{ .name = "test_export_import_rma_on_shared_endpoint",
		  .test_func = test_export_import_rma_both_directions, .setup_func = test_up_with_setting,
		  .teardown_func = test_down_with_setting, .initial_state = &shared_endpoint },
		{ .name = "test_export_import_rma_on_separate_endpoints",
		  .test_func = test_export_import_rma_both_directions, .setup_func = test_up_with_setting,
		  .teardown_func = test_down_with_setting, .initial_state = &separate_endpoints },
		{ .name = "test_the_application_drives_progress_on_separate_endpoints",
		  .test_func = test_the_application_drives_progress, .setup_func = test_up_with_setting,
		  .teardown_func = test_down_with_setting, .initial_state = &separate_endpoints },
		{ .name = "test_export_import_rma_with_busy_progress",
		  .test_func = test_export_import_rma_both_directions, .setup_func = test_up_with_setting,
		  .teardown_func = test_down_with_setting, .initial_state = &busy_progress },
		{ .name = "test_transfers_outlast_the_serve_window",
		  .test_func = test_transfers_outlast_the_serve_window, .setup_func = test_up_with_setting,
		  .teardown_func = test_down_with_setting, .initial_state = &short_serve },
		cmocka_unit_test_setup_teardown(test_bad_settings_refuse_the_context, test_up, test_down),
		cmocka_unit_test_setup_teardown(test_a_stream_of_posts_completes, test_up, test_down),
		cmocka_unit_test_setup_teardown(test_the_application_drives_progress, test_up, test_down),
		cmocka_unit_test_setup_teardown(test_connection_byte_stream, test_up, test_down),
		cmocka_unit_test_setup_teardown(test_interrupts_as_messages, test_up, test_down),
		cmocka_unit_test_setup_teardown(test_lookups_and_unknown_or_silent_nodes, test_up, test_down),
		cmocka_unit_test_setup_teardown(test_peer_killed_survivor_sees_lost, test_up, test_down),
		cmocka_unit_test_setup_teardown(test_silent_peer_found_lost_while_the_application_drives,
						test_up, test_down),
		cmocka_unit_test_setup_teardown(test_owner_withdraws_and_closes, test_up, test_down),
		cmocka_unit_test_setup_teardown(test_peer_exits_with_context_open, test_up, test_down),
		cmocka_unit_test_setup_teardown(test_transfers_reach_a_restarted_node, test_up, test_down),
		cmocka_unit_test_setup_teardown(test_two_hosts_in_network_namespaces, test_up, test_down),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	setenv("XRMA_PROVIDER", "ofi", 1);
	return cmocka_run_group_tests(tests, group_up, group_down);
}
