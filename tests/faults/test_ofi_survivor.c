/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/test_ofi_survivor.c: a node survives a peer that is declared
 * lost while a read from it is in flight, and then comes back. Over
 * tcp;ofi_rxm the read's request sits in the stopped peer's socket; once the
 * peer resumes it answers, and libfabric writes the answer into the buffer
 * the read named. So that buffer may not be given back to the application
 * (here: the local segment closed and unmapped) before libfabric has given it
 * back to us (docs/providers-ofi.md, "Buffer ownership"). The peer is
 * SIGSTOPped past a short liveness timeout, not killed: a killed peer's
 * connection breaks at once and nothing ever arrives. The program is node 1
 * and re-executes itself as node 2 (proc.h).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <xrma/xrma.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#define TIMEOUT_MS 20000
/* A first connection alone can take over a second with another test sharing the CPUs. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define LIVENESS_MS "5000"
#else
#define LIVENESS_MS "2000"
#endif
#define SEG_ID 47
#define LEN (1024 * 1024)
#define SEED 7
/* How long the survivor goes on working after the peer resumed: the answer arrives within it. */
#define AFTERLIFE_MS 1000
#define PROBE_MS 10

enum { MSG_READY = 1, MSG_DONE };

static char fabric[XRMA_NAME_MAX];
static char dir_path[64];
static char nodes_path[128];

static int ctx_open_node(uint32_t node, struct xrma_ctx **ctx)
{
	struct xrma_ctx_attr attr = { .provider = "ofi", .node_id = node };

	return xrma_ctx_open(&attr, ctx);
}

/*
 * Node 2: export the segment and wait. Stopped and resumed meanwhile, it
 * answers what was sent to it, until told the survivor is done; it leaves
 * without closing: its view of node 1 after the stop is not the test's matter.
 */
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
	PROC_CHECK(proc_expect(sock, MSG_DONE, TIMEOUT_MS) == 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "exporter", child_exporter },
	{ NULL, NULL },
};

/*
 * Keep calling into the library for ms: probes of the lost node, each a
 * bounded wait for an answer that never counts (a lost incarnation is not
 * heard again). Nothing is mapped meanwhile, so memory the failed read named
 * stays unmapped rather than reused.
 */
static void keep_working(struct xrma_ctx *ctx, int ms)
{
	uint64_t end = fixture_now_ms() + (uint64_t)ms;
	uint32_t self;

	while (fixture_now_ms() < end) {
		assert_rc(xrma_node_self(ctx, &self), 0);
		assert_int_equal(self, 1);
		fixture_assert_rc2(xrma_node_probe(ctx, 2, PROBE_MS), 0, -XRMA_EHOSTUNREACH,
				   "xrma_node_probe(ctx, 2, PROBE_MS)", __FILE__, __LINE__);
	}
}

/* Node 2 started and its segment imported, a local segment, both ways once; then node 2 stopped. */
static void start_and_stop_peer(struct xrma_ctx **ctx, struct proc *child, struct xrma_seg **local,
				struct xrma_rseg **r)
{
	struct xrma_seg_attr la = { .len = LEN, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
				    .flags = XRMA_SEG_PRIVATE };
	unsigned char *lp;
	int wstatus;

	assert_rc(ctx_open_node(1, ctx), 0);
	assert_rc(xrma_seg_open(*ctx, &la, local), 0);
	assert_rc(xrma_seg_addr(*local, (void **)&lp), 0);
	assert_int_equal(proc_spawn(child, fabric, 2, "exporter", NULL), 0);
	assert_int_equal(proc_expect(child->sock, MSG_READY, TIMEOUT_MS), 0);
	assert_rc(xrma_rseg_open(*ctx, 2, SEG_ID, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
				 0, TIMEOUT_MS, r), 0);
	/* Both ways once: the connections exist before the peer stops. */
	assert_rc(fixture_rma_sync(*ctx, XRMA_RMA_READ, *local, 0, *r, 0, LEN), 0);
	assert_true(fixture_pattern_check(lp, LEN, SEED, 0) == FIXTURE_MATCH);
	assert_rc(fixture_rma_sync(*ctx, XRMA_RMA_WRITE, *local, 0, *r, 0, LEN), 0);
	/* Stopped, the peer cannot answer: a read posted now is in flight when it is declared lost. */
	assert_int_equal(kill(child->pid, SIGSTOP), 0);
	assert_int_equal(waitpid(child->pid, &wstatus, WUNTRACED), child->pid);
	assert_true(WIFSTOPPED(wstatus));
}

/*
 * The failed read reported: the application frees the memory it named (the
 * segment's is unmapped), the peer resumes and answers the read it was sent,
 * and we must not be the worse for it.
 */
static void free_and_resume_peer(struct xrma_ctx *ctx, struct proc *child, struct xrma_seg *local,
				 struct xrma_rseg *r)
{
	assert_rc(xrma_seg_close(local), 0);
	assert_rc(xrma_rseg_close(r), 0);
	assert_int_equal(kill(child->pid, SIGCONT), 0);
	keep_working(ctx, proc_scaled_ms(AFTERLIFE_MS));
	assert_int_equal(proc_send(child->sock, MSG_DONE), 0);
	assert_int_equal(proc_join(child, TIMEOUT_MS), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_read_in_flight_when_peer_lost_then_peer_resumes_survivor_lives(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *local;
	struct xrma_rseg *r;
	struct proc child;

	(void)state;
	start_and_stop_peer(&ctx, &child, &local, &r);
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, LEN), XRMA_ELOST);
	free_and_resume_peer(ctx, &child, local, r);
}

/* The same with an asynchronous read: its completion reports the loss, and only then. */
static void test_async_read_in_flight_when_peer_lost_then_peer_resumes_survivor_lives(void **state)
{
	struct xrma_completion done = { .status = -1 };
	struct xrma_iov iov = { .offset = 0, .len = LEN };
	struct xrma_ctx *ctx;
	struct xrma_seg *local;
	struct xrma_rseg *r;
	struct xrma_dmaq *q;
	struct proc child;

	(void)state;
	start_and_stop_peer(&ctx, &child, &local, &r);
	iov.seg = local;
	assert_rc(xrma_dmaq_open(ctx, 4, 0, &q), 0);
	assert_rc(xrma_dmaq_post(q, XRMA_RMA_READ, &iov, 1, r, 0, LEN, 5, 0), 0);
	assert_rc(xrma_dmaq_wait(q, &done, TIMEOUT_MS), 0);
	assert_int_equal(done.cookie, 5);
	assert_rc(done.status, XRMA_ELOST);
	assert_rc(xrma_dmaq_close(q), 0);
	free_and_resume_peer(ctx, &child, local, r);
}

static int group_up(void **state)
{
	int p1 = fixture_free_tcp_port(), p2 = fixture_free_tcp_port();
	FILE *f;

	(void)state;
	fixture_fabric_name(fabric, sizeof(fabric), "ofi-survivor");
	snprintf(dir_path, sizeof(dir_path), "/tmp/xrma-ofi-survivor-XXXXXX");
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
		cmocka_unit_test_teardown(
			test_read_in_flight_when_peer_lost_then_peer_resumes_survivor_lives,
			proc_teardown),
		cmocka_unit_test_teardown(
			test_async_read_in_flight_when_peer_lost_then_peer_resumes_survivor_lives,
			proc_teardown),
	};
	int rc;

	/* The child inherits both: the same provider, and the same short liveness. */
	setenv("XRMA_PROVIDER", "ofi", 1);
	setenv("XRMA_OFI_LIVENESS_MS", LIVENESS_MS, 1);
	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	return cmocka_run_group_tests(tests, group_up, group_down);
}
