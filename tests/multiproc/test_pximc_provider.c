/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/test_pximc_provider.c: the pximc provider across real processes, on top of
 * xrma's own PXImc vendor library, which itself runs on ntb (DESIGN: two contexts on two
 * providers in one process). The test program is node 1; children are nodes 2 and 3. The
 * Dispatcher is loaded from the build (XRMA_PXIMC_DISPATCHER) and finds the vendor library
 * through a directory made here (PXIMC_VENDOR_PATH). Covered: capabilities and refusals,
 * export/import, mapped loads and stores both ways, RMA both ways, interrupts with data,
 * connections, a second importer of one segment (refused), a forked child (its parent holds
 * the node), a peer killed while imported (the
 * survivor sees the loss and works with the node's next process), and a PXImc tree (a host
 * and two devices: what xrma_node_list and xrma_node_probe report on each).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#define MP_TIMEOUT_MS 20000
#define SEG_ID 77
#define PARENT_SEG_ID 78
#define SEG_LEN (256 * 1024)
#define PORT 600

enum { MSG_READY = 1, MSG_GO, MSG_DONE };

static char fabric[XRMA_NAME_MAX];
static char vendor_dir[64], vendor_link[96];

static int ctx_open(struct xrma_ctx **ctx)
{
	struct xrma_ctx_attr attr = { .provider = "pximc", .node_id = XRMA_NODE_ANY };

	return xrma_ctx_open(&attr, ctx);
}

static int seg_make(struct xrma_ctx *ctx, uint64_t id, uint32_t flags, uint8_t seed,
		    struct xrma_seg **seg, unsigned char **addr)
{
	struct xrma_seg_attr attr = { .len = SEG_LEN, .id = id, .access = XRMA_ACCESS_ALL,
				      .flags = flags };
	int ret = xrma_seg_open(ctx, &attr, seg);

	if (ret)
		return ret;
	xrma_seg_addr(*seg, (void **)addr);
	if (seed)
		fixture_pattern(*addr, SEG_LEN, seed, 0);
	return flags & XRMA_SEG_PRIVATE ? 0 : xrma_seg_export(*seg, 0);
}

/* ------------------------------------------------------------------ children */

/*
 * Owner: export a segment (pattern 3) and an interrupt, listen on a port. Then check what
 * node 1 wrote, store pattern 11, import node 1's segment and RMA-write it, answer a
 * connection, wait for an interrupt with data and trigger node 1's.
 */
static int child_owner(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg, *priv;
	struct xrma_rseg *r;
	struct xrma_intr *intr;
	struct xrma_rintr *back;
	struct xrma_conn *listener, *conn;
	unsigned char *mem, *pmem;
	uint64_t number = XRMA_ID_ANY, v;
	uint32_t port = PORT;
	char buf[8];
	size_t len = sizeof(buf);

	(void)arg;
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK_RC(seg_make(ctx, SEG_ID, 0, 3, &seg, &mem), 0);
	PROC_CHECK_RC(xrma_intr_open(ctx, &number, 0, 0, 0, &intr), 0);
	PROC_CHECK_RC(xrma_conn_open(ctx, 0, &listener), 0);
	PROC_CHECK_RC(xrma_conn_bind(listener, &port, 0, 0), 0);
	PROC_CHECK_RC(xrma_conn_listen(listener, 1), 0);
	PROC_CHECK(proc_send(sock, number) == 0);
	/* Node 1 wrote pattern 9 by RMA into the first half, 10 by stores into the second. */
	PROC_CHECK(proc_expect(sock, MSG_DONE, MP_TIMEOUT_MS) == 0);
	PROC_CHECK(fixture_pattern_check(mem, SEG_LEN / 2, 9, 0) == FIXTURE_MATCH);
	PROC_CHECK(fixture_pattern_check(mem + SEG_LEN / 2, SEG_LEN / 2, 10, SEG_LEN / 2) ==
		   FIXTURE_MATCH);
	fixture_pattern(mem, SEG_LEN, 11, 0);
	/* RMA the other way: into node 1's segment. */
	PROC_CHECK_RC(xrma_rseg_open(ctx, 1, PARENT_SEG_ID, XRMA_ACCESS_REMOTE_READ |
				     XRMA_ACCESS_REMOTE_WRITE, 0, MP_TIMEOUT_MS, &r), 0);
	PROC_CHECK_RC(seg_make(ctx, XRMA_ID_ANY, XRMA_SEG_PRIVATE, 12, &priv, &pmem), 0);
	PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_WRITE, priv, 0, r, 0, SEG_LEN), 0);
	PROC_CHECK_RC(xrma_rseg_close(r), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	/* A connection, an interrupt with data, an interrupt back. */
	PROC_CHECK_RC(xrma_conn_accept(listener, MP_TIMEOUT_MS, &conn), 0);
	PROC_CHECK(xrma_conn_recv(conn, buf, 4, XRMA_CONN_BLOCK, MP_TIMEOUT_MS) == 4);
	PROC_CHECK(memcmp(buf, "ping", 4) == 0);
	PROC_CHECK(xrma_conn_send(conn, "pong", 4, XRMA_CONN_BLOCK, MP_TIMEOUT_MS) == 4);
	PROC_CHECK_RC(xrma_intr_wait(intr, MP_TIMEOUT_MS, buf, &len), 0);
	PROC_CHECK(len == 5 && memcmp(buf, "hello", 5) == 0);
	PROC_CHECK(proc_recv(sock, &v, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rintr_open(ctx, 1, v, MP_TIMEOUT_MS, &back), 0);
	PROC_CHECK_RC(xrma_rintr_trigger(back, NULL, 0), 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rintr_close(back), 0);
	PROC_CHECK_RC(xrma_conn_close(conn), 0);
	PROC_CHECK_RC(xrma_conn_close(listener), 0);
	PROC_CHECK_RC(xrma_intr_close(intr), 0);
	PROC_CHECK_RC(xrma_seg_close(priv), 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* Exporter for the kill test: export pattern 4 and wait to be killed (or told to go). */
static int child_exporter(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	unsigned char *mem;

	(void)arg;
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK_RC(seg_make(ctx, SEG_ID, 0, 4, &seg, &mem), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* A second importer of node 2's segment while node 1 holds it: the owner refuses it. */
static int child_second_importer(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;

	(void)arg;
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, 2, SEG_ID, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r),
		      XRMA_ECONNREFUSED);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	/* Once node 1 let go, the segment is ours. */
	PROC_CHECK_RC(xrma_rseg_open(ctx, 2, SEG_ID, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), 0);
	PROC_CHECK_RC(xrma_rseg_close(r), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/* Sorted node list of ctx equals want[0..n). */
static int nodes_are(struct xrma_ctx *ctx, const uint32_t *want, size_t n)
{
	uint32_t ids[8];
	size_t count = 0;

	if (xrma_node_list(ctx, ids, 8, &count) || count != n)
		return -1;
	return memcmp(ids, want, n * sizeof(*ids)) ? -1 : 0;
}

/* The host of a PXImc tree (node 5): it reaches both devices once they are up. */
static int child_tree_host(int sock, const char *arg)
{
	static const uint32_t all[] = { 5, 6, 7 };
	struct xrma_ctx *ctx;

	(void)arg;
	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_node_probe(ctx, 6, MP_TIMEOUT_MS), 0);
	PROC_CHECK_RC(xrma_node_probe(ctx, 7, MP_TIMEOUT_MS), 0);
	PROC_CHECK(nodes_are(ctx, all, 3) == 0);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* A device of the tree (node 6 or 7; arg: the other device): only the host is reachable. */
static int child_tree_device(int sock, const char *arg)
{
	uint32_t self = (uint32_t)atoi(arg) == 6 ? 7 : 6, mine[2] = { 5, self };
	struct xrma_ctx *ctx;

	PROC_CHECK_RC(ctx_open(&ctx), 0);
	PROC_CHECK_RC(xrma_node_probe(ctx, 5, MP_TIMEOUT_MS), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	/* Both devices are up now: no interface joins them. */
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_node_probe(ctx, (uint32_t)atoi(arg), 1000), XRMA_ENODEV);
	PROC_CHECK(nodes_are(ctx, mine, 2) == 0);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "owner", child_owner },
	{ "exporter", child_exporter },
	{ "second", child_second_importer },
	{ "treehost", child_tree_host },
	{ "device", child_tree_device },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ tests */

static void test_pximc_caps_and_refusals(void **state)
{
	struct xrma_ctx *ctx, *again;
	struct xrma_ctx_info info;
	struct xrma_seg *seg;
	struct xrma_seg_attr attr = { .len = 4096, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL };
	static unsigned char user[8192] __attribute__((aligned(4096)));
	uint32_t ids[4];
	size_t count;
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(ctx_open(&ctx), 0);
	assert_int_equal(xrma_ctx_query(ctx, &info), 0);
	assert_string_equal(info.provider, "pximc");
	assert_int_equal(info.node_id, 1);
	assert_true(info.caps.flags & XRMA_CAP_MAP);
	assert_true(info.caps.flags & XRMA_CAP_MULTIPROC);
	assert_false(info.caps.flags & (XRMA_CAP_REGISTER | XRMA_CAP_ATOMIC | XRMA_CAP_DOORBELL |
					XRMA_CAP_BUS_ADDR));
	assert_int_equal(info.caps.max_importers, 1);   /* a window has one partner */
	/* One PXImc system per process: one pximc context. */
	assert_int_equal(ctx_open(&again), -XRMA_EADDRINUSE);
	assert_true(xrma_error_detail()[0] != '\0');
	/* A forked child is on its parent's node: the same answer, naming the parent. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(ctx_open(&again) == -XRMA_EADDRINUSE &&
		      strstr(xrma_error_detail(), "forked child") ? 0 : 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* Windows are the vendor's memory: user memory cannot back a segment. */
	attr.addr = user;
	assert_int_equal(xrma_seg_open(ctx, &attr, &seg), -XRMA_ENOTSUP);
	assert_int_equal(xrma_node_list(ctx, ids, 4, &count), 0);
	assert_true(count >= 1);
	assert_int_equal(xrma_node_probe(ctx, 9, 0), -XRMA_ENODEV);
	assert_int_equal(xrma_ctx_close(ctx), 0);
	/* Closed, the process's system is free again. */
	assert_int_equal(ctx_open(&ctx), 0);
	assert_int_equal(xrma_ctx_close(ctx), 0);
}

static void test_pximc_two_processes_share_memory_events_and_streams(void **state)
{
	struct proc owner;
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;
	struct xrma_seg *priv, *mine;
	struct xrma_rintr *ri;
	struct xrma_intr *back;
	struct xrma_conn *conn;
	unsigned char *map, *pmem, *mem;
	uint64_t number, mine_no = XRMA_ID_ANY;
	char buf[4];

	(void)state;
	assert_int_equal(ctx_open(&ctx), 0);
	assert_int_equal(seg_make(ctx, PARENT_SEG_ID, 0, 0, &mine, &mem), 0);
	assert_int_equal(proc_spawn(&owner, fabric, 2, "owner", NULL), 0);
	assert_int_equal(proc_recv(owner.sock, &number, MP_TIMEOUT_MS), 0);
	assert_int_equal(xrma_node_probe(ctx, 2, MP_TIMEOUT_MS), 0);
	assert_int_equal(xrma_rseg_open(ctx, 2, SEG_ID, XRMA_ACCESS_REMOTE_READ |
					XRMA_ACCESS_REMOTE_WRITE, 0, MP_TIMEOUT_MS, &r), 0);
	assert_int_equal(xrma_rseg_map(r, 0, SEG_LEN, XRMA_MAP_READ | XRMA_MAP_WRITE, (void **)&map), 0);
	assert_int_equal(fixture_pattern_check(map, SEG_LEN, 3, 0), FIXTURE_MATCH);
	assert_int_equal(seg_make(ctx, XRMA_ID_ANY, XRMA_SEG_PRIVATE, 0, &priv, &pmem), 0);
	assert_int_equal(fixture_rma_sync(ctx, XRMA_RMA_READ, priv, 0, r, 0, SEG_LEN), 0);
	assert_int_equal(fixture_pattern_check(pmem, SEG_LEN, 3, 0), FIXTURE_MATCH);
	fixture_pattern(pmem, SEG_LEN / 2, 9, 0);
	assert_int_equal(fixture_rma_sync(ctx, XRMA_RMA_WRITE, priv, 0, r, 0, SEG_LEN / 2), 0);
	fixture_pattern(map + SEG_LEN / 2, SEG_LEN / 2, 10, SEG_LEN / 2);
	assert_int_equal(proc_send(owner.sock, MSG_DONE), 0);
	/* The owner stored pattern 11 and RMA-wrote pattern 12 into our segment. */
	assert_int_equal(proc_expect(owner.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_int_equal(fixture_pattern_check(map, SEG_LEN, 11, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(mem, SEG_LEN, 12, 0), FIXTURE_MATCH);
	/* A stream, then interrupts both ways. */
	assert_int_equal(xrma_conn_open(ctx, 0, &conn), 0);
	assert_int_equal(xrma_conn_connect(conn, 2, PORT, MP_TIMEOUT_MS), 0);
	assert_int_equal(xrma_conn_send(conn, "ping", 4, XRMA_CONN_BLOCK, MP_TIMEOUT_MS), 4);
	assert_int_equal(xrma_conn_recv(conn, buf, 4, XRMA_CONN_BLOCK, MP_TIMEOUT_MS), 4);
	assert_memory_equal(buf, "pong", 4);
	assert_int_equal(xrma_rintr_open(ctx, 2, number, MP_TIMEOUT_MS, &ri), 0);
	assert_int_equal(xrma_rintr_trigger(ri, "hello", 5), 0);
	assert_int_equal(xrma_intr_open(ctx, &mine_no, 0, 0, 0, &back), 0);
	assert_int_equal(proc_send(owner.sock, mine_no), 0);
	assert_int_equal(xrma_intr_wait(back, MP_TIMEOUT_MS, NULL, NULL), 0);
	assert_int_equal(xrma_rintr_close(ri), 0);
	assert_int_equal(xrma_conn_close(conn), 0);
	assert_int_equal(xrma_rseg_unmap(r, map), 0);
	assert_int_equal(xrma_rseg_close(r), 0);
	assert_int_equal(proc_send(owner.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&owner, MP_TIMEOUT_MS), 0);
	assert_int_equal(xrma_intr_close(back), 0);
	assert_int_equal(xrma_seg_close(priv), 0);
	assert_int_equal(xrma_seg_close(mine), 0);
	assert_int_equal(xrma_ctx_close(ctx), 0);
}

static void test_pximc_second_importer_is_refused_until_the_first_leaves(void **state)
{
	struct proc owner, second;
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;

	(void)state;
	assert_int_equal(ctx_open(&ctx), 0);
	assert_int_equal(proc_spawn(&owner, fabric, 2, "exporter", NULL), 0);
	assert_int_equal(proc_expect(owner.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_int_equal(xrma_rseg_open(ctx, 2, SEG_ID, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), 0);
	assert_int_equal(proc_spawn(&second, fabric, 3, "second", NULL), 0);
	assert_int_equal(proc_expect(second.sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	assert_int_equal(xrma_rseg_close(r), 0);
	assert_int_equal(proc_send(second.sock, MSG_GO), 0);
	assert_int_equal(proc_expect(second.sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_join(&second, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_send(owner.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&owner, MP_TIMEOUT_MS), 0);
	assert_int_equal(xrma_ctx_close(ctx), 0);
}

static void test_pximc_peer_killed_is_lost_and_the_survivor_goes_on(void **state)
{
	struct proc owner;
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;
	struct xrma_seg *priv;
	struct xrma_event ev;
	unsigned char *map, *pmem;
	int rc;

	(void)state;
	assert_int_equal(ctx_open(&ctx), 0);
	assert_int_equal(seg_make(ctx, XRMA_ID_ANY, XRMA_SEG_PRIVATE, 0, &priv, &pmem), 0);
	assert_int_equal(proc_spawn(&owner, fabric, 2, "exporter", NULL), 0);
	assert_int_equal(proc_expect(owner.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_int_equal(xrma_rseg_open(ctx, 2, SEG_ID, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), 0);
	assert_int_equal(xrma_rseg_map(r, 0, 4096, XRMA_MAP_READ, (void **)&map), 0);
	assert_int_equal(fixture_pattern_check(map, 4096, 4, 0), FIXTURE_MATCH);
	proc_kill(&owner);
	assert_int_equal(xrma_rseg_wait_event(r, MP_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_LOST);
	assert_int_not_equal(fixture_rma_sync(ctx, XRMA_RMA_READ, priv, 0, r, 0, 4096), 0);
	assert_int_equal(xrma_rseg_unmap(r, map), 0);
	assert_int_equal(xrma_rseg_close(r), 0);
	/* The node's next process pairs anew. */
	assert_int_equal(proc_spawn(&owner, fabric, 2, "exporter", NULL), 0);
	assert_int_equal(proc_expect(owner.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	rc = xrma_rseg_open(ctx, 2, SEG_ID, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r);
	if (rc)
		print_message("import from the restarted node: %d (%s)\n", rc, xrma_error_detail());
	assert_int_equal(rc, 0);
	assert_int_equal(fixture_rma_sync(ctx, XRMA_RMA_READ, priv, 0, r, 0, SEG_LEN), 0);
	assert_int_equal(fixture_pattern_check(pmem, SEG_LEN, 4, 0), FIXTURE_MATCH);
	assert_int_equal(xrma_rseg_close(r), 0);
	assert_int_equal(proc_send(owner.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&owner, MP_TIMEOUT_MS), 0);
	assert_int_equal(xrma_seg_close(priv), 0);
	assert_int_equal(xrma_ctx_close(ctx), 0);
}

/*
 * xrma's vendor library as a PXImc tree (pximc.tree_host): host node 5, devices 6 and 7, on a
 * fabric of their own. The host reaches both devices; a device only the host (spec 6).
 */
static void test_pximc_tree_devices_reach_only_the_host(void **state)
{
	struct proc host, dev[2];
	char tree[XRMA_NAME_MAX];

	(void)state;
	fixture_fabric_name(tree, sizeof(tree), "pximc-tree");
	setenv("XRMA_PXIMC_TREE_HOST", "5", 1);
	assert_int_equal(proc_spawn(&host, tree, 5, "treehost", NULL), 0);
	assert_int_equal(proc_spawn(&dev[0], tree, 6, "device", "7"), 0);
	assert_int_equal(proc_spawn(&dev[1], tree, 7, "device", "6"), 0);
	unsetenv("XRMA_PXIMC_TREE_HOST");
	assert_int_equal(proc_expect(host.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(proc_expect(dev[i].sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_send(host.sock, MSG_GO), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(proc_send(dev[i].sock, MSG_GO), 0);
	assert_int_equal(proc_expect(host.sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(proc_expect(dev[i].sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(proc_send(dev[i].sock, MSG_GO), 0);
		assert_int_equal(proc_join(&dev[i], MP_TIMEOUT_MS), 0);
	}
	assert_int_equal(proc_send(host.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&host, MP_TIMEOUT_MS), 0);
}

/* ------------------------------------------------------------------ setup */

/* pximc on xrma's vendor library on ntb, everything from this build. */
static int pximc_env_up(void)
{
	const char *build = getenv("XRMA_TEST_BUILDDIR");
	char target[PATH_MAX], dispatcher[PATH_MAX + 32];

	if (!realpath(build ? build : ".", target) || strlen(target) + 40 > sizeof(target))
		return -1;
	snprintf(vendor_dir, sizeof(vendor_dir), "/tmp/pximc-prov-XXXXXX");
	if (!mkdtemp(vendor_dir))
		return -1;
	snprintf(vendor_link, sizeof(vendor_link), "%s/libpximc_xrma.so", vendor_dir);
	snprintf(dispatcher, sizeof(dispatcher), "%s/.libs/libpximc_xrma.so", target);
	if (symlink(dispatcher, vendor_link))
		return -1;
	snprintf(dispatcher, sizeof(dispatcher), "%s/.libs/libpximc.so.0", target);
	setenv("XRMA_PXIMC_DISPATCHER", dispatcher, 1);
	setenv("PXIMC_VENDOR_PATH", vendor_dir, 1);
	setenv("XRMA_PROVIDER", "pximc", 1);
	setenv("XRMA_PXIMC_VENDOR_PROVIDER", "ntb", 1);
	setenv("XRMA_NODE_ID", "1", 1);
	setenv("XRMA_FABRIC", fabric, 1);
	return 0;
}

static int group_down(void **state)
{
	(void)state;
	unlink(vendor_link);
	rmdir(vendor_dir);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_pximc_caps_and_refusals, proc_teardown),
		cmocka_unit_test_teardown(test_pximc_two_processes_share_memory_events_and_streams,
						  proc_teardown),
		cmocka_unit_test_teardown(test_pximc_second_importer_is_refused_until_the_first_leaves,
						  proc_teardown),
		cmocka_unit_test_teardown(test_pximc_peer_killed_is_lost_and_the_survivor_goes_on,
						  proc_teardown),
		cmocka_unit_test_teardown(test_pximc_tree_devices_reach_only_the_host,
						  proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	fixture_fabric_name(fabric, sizeof(fabric), "pximc-prov");
	if (pximc_env_up()) {
		fprintf(stderr, "cannot set up the PXImc vendor directory\n");
		return 1;
	}
	return cmocka_run_group_tests_name("pximc_provider", tests, NULL, group_down);
}
