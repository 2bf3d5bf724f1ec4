/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/test_faults_core.c: processes killed at the named points of the core and
 * the host fabric, seen through the core API (include/xrma). An importer killed in the
 * middle of an RMA copy into provider memory, or while counted into the in-flight count
 * of a registered (cross-memory) export, leaves the owner with XRMA_EVENT_LOST, no
 * importer counted, and an unexport that returns (bounded). An owner killed while
 * answering an import request gives the importer an error, not a hang. A process of the
 * survivor's own node killed in the middle of a directory write (holding the node's
 * robust lock, sequence count odd) leaves the directory usable for lookups and writes
 * An importer killed on its DMA engine thread between two queued writes, and a
 * process killed right after its connection request was answered, are seen the same way.
 * A connector killed between taking a data slot of an interrupt's page and filling it
 * does not hold up the next connector's data triggers
 * (docs/host-fabric.md, docs/core.md "Failure", docs/reliability.md).
 */
#include <sched.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <xrma/xrma.h>
#include "tests/faults/faults.h"
#include "tests/helpers/fixture.h"

#define SURVIVOR_NODE 1
#define PEER_NODE 2
#define SEG_ID 0x5100          /* provider memory */
#define USER_SEG_ID 0x5101     /* registered user memory (cross-memory attach) */
#define SAME_NODE_SEG_ID 0x5102
#define SEG_LEN (1u << 20)
#define USER_LEN (256u * 1024)
#define SEED 0x3c
#define USER_SEED 0x4d
#define IMPORTER_STEPS 3
#define RW_REMOTE (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)
#define QUEUED 4               /* asynchronous writes of a quarter segment each */
#define INTR_NUMBER 0x51

enum scenario {
	SC_IMPORTER,   /* the victim imports our two segments and writes into them */
	SC_OWNER,      /* the victim exports a segment we import */
	SC_SAME_NODE,  /* the victim is another process of our node, exporting */
	SC_QUEUER,     /* the victim imports our segment and queues asynchronous writes */
	SC_DIALER,     /* the victim connects to our listener */
	SC_TRIGGERER,  /* the victim connects to our interrupt and triggers it with data */
};

static const struct faults_case cases[] = {
	{ "hostfab.rma.mid_copy", SC_IMPORTER, 2 },
	{ "hostfab.rma.cma_counted", SC_IMPORTER, 3 },
	{ "hostfab.mem.before_fetch_reply", SC_OWNER, 2 },
	{ "hostfab.dir.export_mid_write", SC_SAME_NODE, 2 },
	{ "core.engine.after_job:2", SC_QUEUER, 2 },
	{ "core.conn.connect.after_reply", SC_DIALER, 1 },
	{ "core.intr.slot_taken:2", SC_TRIGGERER, 2 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int ctx_open(struct xrma_ctx **ctx)
{
	struct xrma_ctx_attr attr = { .node_id = XRMA_NODE_ANY };

	return xrma_ctx_open(&attr, ctx);
}

/* An exported segment: provider memory when mem is NULL, else registered mem. */
static int seg_export(struct xrma_ctx *ctx, uint64_t id, void *mem, size_t len, struct xrma_seg **seg)
{
	struct xrma_seg_attr attr = { .len = len, .addr = mem, .id = id, .access = XRMA_ACCESS_ALL };
	int ret = xrma_seg_open(ctx, &attr, seg);

	if (!ret && (ret = xrma_seg_export(*seg, 0)))
		xrma_seg_close(*seg);
	return ret;
}

/* Write len bytes of pattern seed into remote through a queue of our own. */
static int write_remote(struct xrma_ctx *ctx, struct xrma_rseg *remote, size_t len, uint8_t seed)
{
	struct xrma_seg_attr attr = { .len = len, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
				      .flags = XRMA_SEG_PRIVATE };
	struct xrma_seg *local;
	void *addr;
	int ret = xrma_seg_open(ctx, &attr, &local);

	if (ret)
		return ret;
	ret = xrma_seg_addr(local, &addr);
	if (!ret) {
		fixture_pattern(addr, len, seed, 0);
		ret = fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, remote, 0, len);
	}
	xrma_seg_close(local);
	return ret;
}

/* ------------------------------------------------------------------ victims */

/* arg "point|": import node 1's segments and write into them. */
static int importer_main(int sock, const char *arg)
{
	struct xrma_rseg *r, *u;
	struct xrma_ctx *ctx;

	faults_child_arm(arg);
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, SURVIVOR_NODE, SEG_ID, RW_REMOTE, 0, FAULTS_WAIT_MS, &r), 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	PROC_CHECK_RC(write_remote(ctx, r, SEG_LEN, SEED), 0);
	PROC_CHECK(faults_step_done(sock, 2) == 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, SURVIVOR_NODE, USER_SEG_ID, RW_REMOTE, 0, FAULTS_WAIT_MS, &u), 0);
	PROC_CHECK_RC(write_remote(ctx, u, USER_LEN, USER_SEED), 0);
	PROC_CHECK_RC(xrma_rseg_close(u), 0);
	PROC_CHECK_RC(xrma_rseg_close(r), 0);
	PROC_CHECK(faults_step_done(sock, 3) == 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* arg "point|": export a segment, then wait to be released. Step 2 is our answer to an import. */
static int owner_main(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	uint64_t v;

	faults_child_arm(arg);
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK_RC(seg_export(ctx, SEG_ID, NULL, SEG_LEN, &seg), 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	PROC_CHECK(proc_recv(sock, &v, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(faults_step_done(sock, 2) == 0);
	PROC_CHECK(proc_recv(sock, &v, FAULTS_WAIT_MS) == 0);
	PROC_CHECK_RC(xrma_seg_unexport(seg, 0), 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* arg "|": import node 1's provider segment and write it once. */
static int reader_main(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;

	faults_child_arm(arg);
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, SURVIVOR_NODE, SEG_ID, RW_REMOTE, 0, FAULTS_WAIT_MS, &r), 0);
	PROC_CHECK_RC(write_remote(ctx, r, SEG_LEN, SEED), 0);
	PROC_CHECK_RC(xrma_rseg_close(r), 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* arg "point|": import node 1's segment, queue QUEUED writes, wait for them all. */
static int queuer_main(int sock, const char *arg)
{
	struct xrma_seg_attr attr = { .len = SEG_LEN, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
				      .flags = XRMA_SEG_PRIVATE };
	struct xrma_completion done;
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;
	struct xrma_seg *local;
	struct xrma_dmaq *q;
	void *addr;

	faults_child_arm(arg);
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, SURVIVOR_NODE, SEG_ID, RW_REMOTE, 0, FAULTS_WAIT_MS, &r), 0);
	PROC_CHECK_RC(xrma_seg_open(ctx, &attr, &local), 0);
	PROC_CHECK_RC(xrma_seg_addr(local, &addr), 0);
	fixture_pattern(addr, SEG_LEN, SEED, 0);
	PROC_CHECK_RC(xrma_dmaq_open(ctx, QUEUED, 0, &q), 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	for (size_t i = 0; i < QUEUED; i++) {
		struct xrma_iov iov = { .seg = local, .offset = i * SEG_LEN / QUEUED, .len = SEG_LEN / QUEUED };

		PROC_CHECK_RC(xrma_dmaq_post(q, XRMA_RMA_WRITE, &iov, 1, r, iov.offset, iov.len, i, 0), 0);
	}
	for (size_t i = 0; i < QUEUED; i++) {
		PROC_CHECK_RC(xrma_dmaq_wait(q, &done, FAULTS_WAIT_MS), 0);
		PROC_CHECK(done.status == 0);
	}
	PROC_CHECK(faults_step_done(sock, 2) == 0);
	PROC_CHECK_RC(xrma_dmaq_close(q), 0);
	PROC_CHECK_RC(xrma_seg_close(local), 0);
	PROC_CHECK_RC(xrma_rseg_close(r), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* arg "point|port": connect to node 1's listener, send our number, read it back. */
static int dialer_main(int sock, const char *arg)
{
	uint32_t port = (uint32_t)atoi(faults_child_arm(arg));
	struct xrma_ctx *ctx;
	struct xrma_conn *c;
	uint64_t v = PEER_NODE, back = 0;

	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK_RC(xrma_conn_open(ctx, 0, &c), 0);
	PROC_CHECK_RC(xrma_conn_connect(c, SURVIVOR_NODE, port, FAULTS_WAIT_MS), 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	PROC_CHECK(xrma_conn_send(c, &v, sizeof(v), XRMA_CONN_BLOCK, FAULTS_WAIT_MS) == sizeof(v));
	PROC_CHECK(xrma_conn_recv(c, &back, sizeof(back), XRMA_CONN_BLOCK, FAULTS_WAIT_MS) == sizeof(back));
	PROC_CHECK(back == v);
	PROC_CHECK(faults_step_done(sock, 2) == 0);
	PROC_CHECK_RC(xrma_conn_close(c), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* arg "point|": triggers our interrupt with data 1, then 2 (and dies taking 2's slot). */
static int triggerer_main(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rintr *r;

	faults_child_arm(arg);
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK_RC(xrma_rintr_open(ctx, SURVIVOR_NODE, INTR_NUMBER, FAULTS_WAIT_MS, &r), 0);
	for (uint32_t v = 1; v <= 2; v++) {
		PROC_CHECK_RC(xrma_rintr_trigger(r, &v, sizeof(v)), 0);
		PROC_CHECK(faults_step_done(sock, v) == 0);
	}
	PROC_CHECK_RC(xrma_rintr_close(r), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* arg "point|": another endpoint of node 1 that exports a segment (and dies writing it). */
static int neighbour_main(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;

	faults_child_arm(arg);
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	PROC_CHECK_RC(seg_export(ctx, SAME_NODE_SEG_ID, NULL, 4096, &seg), 0);
	PROC_CHECK(faults_step_done(sock, 2) == 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* ------------------------------------------------------------------ survivors */

/* Wait (bounded) until seg has no importer left. */
static int wait_no_importers(struct xrma_seg *seg)
{
	uint64_t end = fixture_now_ms() + FAULTS_WAIT_MS;
	size_t n = 1;

	while (xrma_seg_importers(seg, &n) == 0 && n) {
		if (fixture_now_ms() > end)
			return -1;
		sched_yield();
	}
	return n ? -1 : 0;
}

/* The next event on seg from node that is not a connect: its type, or -1. */
static int next_leave_event(struct xrma_seg *seg)
{
	struct xrma_event ev;

	while (xrma_seg_wait_event(seg, FAULTS_WAIT_MS, &ev) == 0)
		if (ev.type != XRMA_EVENT_CONNECT)
			return (int)ev.type;
	return -1;
}

static unsigned follow(int sock, unsigned steps)
{
	for (unsigned step = 1; step <= steps; step++)
		if (faults_step_wait(sock, step))
			return step - 1;
	return steps;
}

static int survivor_owner(const struct faults_case *c, struct xrma_ctx *ctx, const char *fabric)
{
	const char *role = c->scenario == SC_QUEUER ? "queuer" : "importer";
	unsigned steps = c->scenario == SC_QUEUER ? 2 : IMPORTER_STEPS;
	struct xrma_seg *seg, *user;
	uint8_t *mem = mmap(NULL, USER_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct proc victim;
	void *addr;
	size_t fds, maps;
	uint64_t start;

	PROC_CHECK(mem != MAP_FAILED);
	/* A first page of other memory keeps the registration in place (no one file holds it
	 * all), so the victim's writes take cross-memory attach. */
	PROC_CHECK(mmap(mem, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == mem);
	PROC_CHECK_RC(seg_export(ctx, SEG_ID, NULL, SEG_LEN, &seg), 0);
	PROC_CHECK_RC(seg_export(ctx, USER_SEG_ID, mem, USER_LEN, &user), 0);
	PROC_CHECK_RC(xrma_seg_addr(seg, &addr), 0);
	fds = faults_fd_count();
	maps = faults_map_count();

	PROC_CHECK(faults_spawn(&victim, fabric, PEER_NODE, role, c->point, NULL) == 0);
	PROC_CHECK(follow(victim.sock, steps) == c->step - 1);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == FAULTS_KILLED);
	/* The importer died: lost, and no longer counted. */
	PROC_CHECK(next_leave_event(seg) == XRMA_EVENT_LOST);
	PROC_CHECK(wait_no_importers(seg) == 0);
	PROC_CHECK(wait_no_importers(user) == 0);
	/* Withdrawing memory a dead importer was counted into waits at most its bound (2 s). */
	start = fixture_now_ms();
	PROC_CHECK_RC(xrma_seg_unexport(user, 0), 0);
	PROC_CHECK(fixture_now_ms() - start < 5000);
	PROC_CHECK_RC(xrma_seg_export(user, 0), 0);

	memset(addr, 0, SEG_LEN);
	memset(mem, 0, USER_LEN);
	PROC_CHECK(faults_spawn(&victim, fabric, PEER_NODE, "importer", NULL, NULL) == 0);
	PROC_CHECK(follow(victim.sock, IMPORTER_STEPS) == IMPORTER_STEPS);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(fixture_pattern_check(addr, SEG_LEN, SEED, 0) == FIXTURE_MATCH);
	PROC_CHECK(fixture_pattern_check(mem, USER_LEN, USER_SEED, 0) == FIXTURE_MATCH);
	PROC_CHECK(wait_no_importers(seg) == 0);
	PROC_CHECK(faults_counts_back(fds, maps) == 0);
	PROC_CHECK_RC(xrma_seg_close(user), 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	munmap(mem, USER_LEN);
	return 0;
}

/* Import from a fresh owner and check its pages come through. */
static int import_healthy(struct xrma_ctx *ctx, const char *fabric)
{
	struct proc owner;
	struct xrma_rseg *r;

	PROC_CHECK(faults_spawn(&owner, fabric, PEER_NODE, "owner", NULL, NULL) == 0);
	PROC_CHECK(faults_step_wait(owner.sock, 1) == 0);
	PROC_CHECK(proc_send(owner.sock, 1) == 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, PEER_NODE, SEG_ID, RW_REMOTE, 0, FAULTS_WAIT_MS, &r), 0);
	PROC_CHECK(faults_step_wait(owner.sock, 2) == 0);
	PROC_CHECK_RC(write_remote(ctx, r, SEG_LEN, SEED), 0);
	PROC_CHECK_RC(xrma_rseg_close(r), 0);
	PROC_CHECK(proc_send(owner.sock, 2) == 0);
	PROC_CHECK(proc_join(&owner, FAULTS_WAIT_MS) == 0);
	return 0;
}

static int survivor_importer(const struct faults_case *c, struct xrma_ctx *ctx, const char *fabric)
{
	struct xrma_rseg *r = NULL;
	struct proc owner;
	size_t fds = faults_fd_count(), maps = faults_map_count();
	uint64_t v;
	int ret;

	PROC_CHECK(faults_spawn(&owner, fabric, PEER_NODE, "owner", c->point, NULL) == 0);
	PROC_CHECK(faults_step_wait(owner.sock, 1) == 0);
	PROC_CHECK(proc_send(owner.sock, 1) == 0);
	/* The owner dies answering: the import fails as a lost peer, it does not hang. */
	ret = xrma_rseg_open(ctx, PEER_NODE, SEG_ID, RW_REMOTE, 0, FAULTS_WAIT_MS, &r);
	if (ret != -XRMA_ELOST && ret != -XRMA_ECONNRESET)
		fprintf(stderr, "import from a dying owner: %s\n", xrma_error_name(ret));
	PROC_CHECK(ret == -XRMA_ELOST || ret == -XRMA_ECONNRESET);
	/* Its main thread may acknowledge step 2 before its service thread dies: drain. */
	while (proc_recv(owner.sock, &v, FAULTS_WAIT_MS) == 0)
		PROC_CHECK(v <= c->step);
	PROC_CHECK(proc_join(&owner, FAULTS_WAIT_MS) == FAULTS_KILLED);
	PROC_CHECK(import_healthy(ctx, fabric) == 0);
	PROC_CHECK(faults_counts_back(fds, maps) == 0);
	return 0;
}

/* A neighbour on our node dies writing the node's directory; lookups and writes go on. */
static int survivor_neighbour(const struct faults_case *c, struct xrma_ctx *ctx, const char *fabric)
{
	struct xrma_seg *seg;
	struct proc victim;
	size_t fds = faults_fd_count(), maps = faults_map_count();

	PROC_CHECK_RC(seg_export(ctx, SEG_ID, NULL, SEG_LEN, &seg), 0);
	PROC_CHECK(faults_spawn(&victim, fabric, SURVIVOR_NODE, "neighbour", c->point, NULL) == 0);
	PROC_CHECK(follow(victim.sock, 2) == c->step - 1);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == FAULTS_KILLED);
	/* A reader of our node first (a peer importing), then a writer (a healthy neighbour). */
	PROC_CHECK(faults_spawn(&victim, fabric, PEER_NODE, "reader", NULL, NULL) == 0);
	PROC_CHECK(follow(victim.sock, 1) == 1);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(faults_spawn(&victim, fabric, SURVIVOR_NODE, "neighbour", NULL, NULL) == 0);
	PROC_CHECK(follow(victim.sock, 2) == 2);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK(faults_counts_back(fds, maps) == 0);
	return 0;
}

/* Echo one number on conn: 0 when it came and went back. */
static int echo_once(struct xrma_conn *conn)
{
	uint64_t v = 0;

	PROC_CHECK(xrma_conn_recv(conn, &v, sizeof(v), XRMA_CONN_BLOCK, FAULTS_WAIT_MS) == sizeof(v));
	PROC_CHECK(xrma_conn_send(conn, &v, sizeof(v), XRMA_CONN_BLOCK, FAULTS_WAIT_MS) == sizeof(v));
	return 0;
}

static int intr_take(struct xrma_intr *intr, uint32_t *v)
{
	size_t len = sizeof(*v);
	int ret = xrma_intr_wait(intr, FAULTS_WAIT_MS, v, &len);

	return ret ? ret : len == sizeof(*v) ? 0 : -1;
}

/*
 * A connector dies between taking a data slot of the interrupt's page and filling it:
 * the slot must not hold up the next connector's triggers, which arrive in order.
 */
static int survivor_intr_owner(const struct faults_case *c, struct xrma_ctx *ctx, const char *fabric)
{
	struct xrma_intr *intr;
	uint64_t number = INTR_NUMBER;
	struct proc victim;
	size_t fds, maps;
	uint32_t v = 0;

	PROC_CHECK_RC(xrma_intr_open(ctx, &number, INTR_NUMBER, INTR_NUMBER, 0, &intr), 0);
	fds = faults_fd_count();
	maps = faults_map_count();
	PROC_CHECK(faults_spawn(&victim, fabric, PEER_NODE, "triggerer", c->point, "") == 0);
	PROC_CHECK_RC(intr_take(intr, &v), 0);
	PROC_CHECK(v == 1);
	PROC_CHECK(follow(victim.sock, 2) == c->step - 1);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == FAULTS_KILLED);
	PROC_CHECK(faults_spawn(&victim, fabric, PEER_NODE, "triggerer", NULL, "") == 0);
	for (uint32_t want = 1; want <= 2; want++) {
		PROC_CHECK_RC(intr_take(intr, &v), 0);
		PROC_CHECK(v == want);
	}
	PROC_CHECK(follow(victim.sock, 2) == 2);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == 0);
	PROC_CHECK_RC(xrma_intr_wait(intr, 0, NULL, NULL), XRMA_ETIMEDOUT);
	PROC_CHECK(faults_counts_back(fds, maps) == 0);
	PROC_CHECK_RC(xrma_intr_close(intr), 0);
	return 0;
}

/* A dialer dies right after its request was answered: its connection is reset, the listener goes on. */
static int survivor_listener(const struct faults_case *c, struct xrma_ctx *ctx, const char *fabric)
{
	struct xrma_conn *listener, *conn = NULL;
	struct proc victim;
	uint32_t port = 0;
	char arg[16];
	uint64_t byte;
	size_t fds, maps;
	int ret;

	PROC_CHECK_RC(xrma_conn_open(ctx, 0, &listener), 0);
	PROC_CHECK_RC(xrma_conn_bind(listener, &port, 0, 0), 0);
	PROC_CHECK_RC(xrma_conn_listen(listener, 4), 0);
	snprintf(arg, sizeof(arg), "%u", port);
	fds = faults_fd_count();
	maps = faults_map_count();
	PROC_CHECK(faults_spawn(&victim, fabric, PEER_NODE, "dialer", c->point, arg) == 0);
	/* Accepting answers its request; it dies as the answer reaches it. */
	ret = xrma_conn_accept(listener, FAULTS_WAIT_MS, &conn);
	PROC_CHECK(follow(victim.sock, 2) == c->step - 1);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == FAULTS_KILLED);
	/* The connection was made: it reads as reset (or accept already saw it gone). */
	PROC_CHECK(ret == 0 || ret == -XRMA_ECONNRESET || ret == -XRMA_ELOST);
	if (!ret) {
		ret = (int)xrma_conn_recv(conn, &byte, 1, XRMA_CONN_BLOCK, FAULTS_WAIT_MS);
		PROC_CHECK(ret == -XRMA_ECONNRESET);
		PROC_CHECK_RC(xrma_conn_close(conn), 0);
	}
	PROC_CHECK(faults_spawn(&victim, fabric, PEER_NODE, "dialer", NULL, arg) == 0);
	PROC_CHECK_RC(xrma_conn_accept(listener, FAULTS_WAIT_MS, &conn), 0);
	PROC_CHECK(echo_once(conn) == 0);
	PROC_CHECK(follow(victim.sock, 2) == 2);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == 0);
	PROC_CHECK_RC(xrma_conn_close(conn), 0);
	PROC_CHECK(faults_counts_back(fds, maps) == 0);
	PROC_CHECK_RC(xrma_conn_close(listener), 0);
	return 0;
}

static int survivor_main(int sock, const char *arg)
{
	const struct faults_case *c = faults_case_of(arg, cases, NCASES);
	const char *fabric = getenv("XRMA_FABRIC");
	struct xrma_ctx *ctx;
	int rc;

	(void)sock;
	PROC_CHECK(c != NULL);
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	if (c->scenario == SC_IMPORTER || c->scenario == SC_QUEUER)
		rc = survivor_owner(c, ctx, fabric);
	else if (c->scenario == SC_DIALER)
		rc = survivor_listener(c, ctx, fabric);
	else if (c->scenario == SC_TRIGGERER)
		rc = survivor_intr_owner(c, ctx, fabric);
	else if (c->scenario == SC_OWNER)
		rc = survivor_importer(c, ctx, fabric);
	else
		rc = survivor_neighbour(c, ctx, fabric);
	PROC_CHECK(rc == 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "survivor", survivor_main },
	{ "importer", importer_main },
	{ "owner", owner_main },
	{ "neighbour", neighbour_main },
	{ "reader", reader_main },
	{ "queuer", queuer_main },
	{ "dialer", dialer_main },
	{ "triggerer", triggerer_main },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return faults_main(argc, argv, roles, true,
			   "faults_core", "fcore", cases, NCASES, SURVIVOR_NODE);
}
