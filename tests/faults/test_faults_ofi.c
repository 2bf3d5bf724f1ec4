/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/test_faults_ofi.c: the ofi provider's answer to a transfer that
 * meets the connection a node's previous process left behind. Over
 * tcp;ofi_rxm, our transfers' endpoint keeps a connection per address; when
 * node 2 restarts at the same address, the first transfer to the new process
 * may be posted on the old connection before libfabric has noticed it closed,
 * and fail as cancelled or not connected (docs/providers-ofi.md, "Progress").
 * Which of the two, and whether at all, depends on timing, so the fail point
 * ofi.rma.old_connection of the test-only library stands in for it: it fails
 * the first attempt of a transfer to a node whose earlier process left, as
 * not connected. The transfer must reach the new process all the same,
 * asynchronous or synchronous; the program is node 1 and re-executes itself
 * as node 2 (proc.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <xrma/xrma.h>
#include "common/killpoint.h"
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#define TIMEOUT_MS 20000
#define SEG_ID 46
#define LEN 4096
#define SEED 5

enum { MSG_READY = 1, MSG_GO };

static char fabric[XRMA_NAME_MAX];
static char dir_path[64];
static char nodes_path[128];

static int ctx_open_node(uint32_t node, struct xrma_ctx **ctx)
{
	struct xrma_ctx_attr attr = { .provider = "ofi", .node_id = node };

	return xrma_ctx_open(&attr, ctx);
}

/* Node 2: export the segment, then leave with the context open once told to go. */
static int child_exporter(int sock, const char *arg)
{
	struct xrma_seg_attr attr = { .len = LEN, .id = SEG_ID, .access = XRMA_ACCESS_ALL };
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	void *p;

	(void)arg;
	PROC_CHECK_RC(ctx_open_node(XRMA_NODE_ANY, &ctx), 0);
	PROC_CHECK_RC(xrma_seg_open(ctx, &attr, &seg), 0);
	PROC_CHECK_RC(xrma_seg_addr(seg, &p), 0);
	fixture_pattern(p, LEN, SEED, 0);
	PROC_CHECK_RC(xrma_seg_export(seg, 0), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, TIMEOUT_MS) == 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "exporter", child_exporter },
	{ NULL, NULL },
};

/* Start node 2 and import its segment. */
static struct xrma_rseg *exporter_start(struct xrma_ctx *ctx, struct proc *child)
{
	struct xrma_rseg *r = NULL;

	assert_int_equal(proc_spawn(child, fabric, 2, "exporter", NULL), 0);
	assert_int_equal(proc_expect(child->sock, MSG_READY, TIMEOUT_MS), 0);
	assert_rc(xrma_rseg_open(ctx, 2, SEG_ID, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE, 0,
				 TIMEOUT_MS, &r), 0);
	return r;
}

/* Let node 2 go; it leaves with its context open, and we see its segment lost. */
static void exporter_leave(struct proc *child, struct xrma_rseg *r)
{
	assert_int_equal(proc_send(child->sock, MSG_GO), 0);
	assert_int_equal(proc_join(child, TIMEOUT_MS), 0);
	assert_int_equal(fixture_wait_rseg_state(r, XRMA_RSEG_LOST, TIMEOUT_MS), 0);
	assert_rc(xrma_rseg_close(r), 0);
}

static void test_transfer_meeting_old_connection_reaches_new_process(void **state)
{
	struct xrma_seg_attr la = { .len = LEN, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
				    .flags = XRMA_SEG_PRIVATE };
	struct xrma_iov iov = { .offset = 0, .len = LEN };
	struct xrma_completion done = { .status = -1 };
	struct xrma_ctx *ctx;
	struct xrma_seg *local;
	struct xrma_dmaq *q;
	struct xrma_rseg *r;
	struct proc child;
	unsigned char *lp;

	(void)state;
	assert_rc(ctx_open_node(1, &ctx), 0);
	assert_rc(xrma_seg_open(ctx, &la, &local), 0);
	assert_rc(xrma_seg_addr(local, (void **)&lp), 0);
	iov.seg = local;
	assert_rc(xrma_dmaq_open(ctx, 4, 0, &q), 0);

	/* The first process: our endpoint gets its connection to node 2's address. */
	r = exporter_start(ctx, &child);
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, LEN), 0);
	exporter_leave(&child, r);

	/* The second: its first transfer fails once as not connected, and goes again. */
	r = exporter_start(ctx, &child);
	memset(lp, 0, LEN);
	xrma_failpoint_arm("ofi.rma.old_connection");
	assert_rc(xrma_dmaq_post(q, XRMA_RMA_READ, &iov, 1, r, 0, LEN, 9, 0), 0);
	assert_rc(xrma_dmaq_wait(q, &done, TIMEOUT_MS), 0);
	assert_int_equal(done.cookie, 9);
	assert_rc(done.status, 0);
	assert_true(fixture_pattern_check(lp, LEN, SEED, 0) == FIXTURE_MATCH);
	xrma_failpoint_arm(NULL);
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, r, 0, LEN), 0);
	exporter_leave(&child, r);

	/* The third, synchronously. */
	r = exporter_start(ctx, &child);
	memset(lp, 0, LEN);
	xrma_failpoint_arm("ofi.rma.old_connection");
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, LEN), 0);
	xrma_failpoint_arm(NULL);
	assert_true(fixture_pattern_check(lp, LEN, SEED, 0) == FIXTURE_MATCH);
	exporter_leave(&child, r);

	assert_rc(xrma_dmaq_close(q), 0);
	assert_rc(xrma_seg_close(local), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static int group_up(void **state)
{
	int p1 = fixture_free_tcp_port(), p2 = fixture_free_tcp_port();
	FILE *f;

	(void)state;
	fixture_fabric_name(fabric, sizeof(fabric), "faults-ofi");
	snprintf(dir_path, sizeof(dir_path), "/tmp/xrma-faults-ofi-XXXXXX");
	if (p1 < 0 || p2 < 0 || !mkdtemp(dir_path))
		return -1;
	snprintf(nodes_path, sizeof(nodes_path), "%s/nodes", dir_path);
	f = fopen(nodes_path, "w");
	if (!f)
		return -1;
	fprintf(f, "1 127.0.0.1:%d\n2 127.0.0.1:%d\n", p1, p2);
	if (fclose(f))
		return -1;
	setenv("XRMA_OFI_NODES", nodes_path, 1);
	setenv("XRMA_FABRIC", fabric, 1);
	return 0;
}

static int group_down(void **state)
{
	(void)state;
	unlink(nodes_path);
	rmdir(dir_path);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_transfer_meeting_old_connection_reaches_new_process,
						  proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	setenv("XRMA_PROVIDER", "ofi", 1);
	return cmocka_run_group_tests(tests, group_up, group_down);
}
