/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_provider.c: what the core makes of provider faults, driven by
 * the loopback hooks (providers/loopback/loopback_test.h, internal): a severed
 * node (simulated crash) as seen by remote segments, segments, connections and
 * interrupts; a closed gate holding transfers in flight (queue full, abort,
 * close and drain while busy, marks and signals waiting on them); and the link
 * going down and up. Every test builds its own fabric, since a cut is final.
 */
#include "tests/helpers/fixture.h"
#include "providers/loopback/loopback_test.h"

#include <string.h>
#include <time.h>

#define RW (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)
#define LEN (4 * FIXTURE_PAGE)
#define CANARY 0xaa

static struct fixture fx;

static int provider_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "provider", 1);
}

static int provider_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

/* ------------------------------------------------------------------ a private fabric per test */

struct net {
	char fabric[XRMA_NAME_MAX];
	struct xrma_ctx *ctx[3];   /* nodes 1, 2, 3 */
	bool gated;
};

static struct net *current_net;

static void net_open(struct net *n, size_t count)
{
	size_t i;

	memset(n, 0, sizeof(*n));
	fixture_fabric_name(n->fabric, sizeof(n->fabric), "prov");
	for (i = 0; i < count; i++)
		assert_rc(fixture_ctx_open(n->fabric, (uint32_t)(i + 1), &n->ctx[i]), 0);
	current_net = n;
}

static void net_gate(struct net *n, uint32_t node, bool closed)
{
	assert_rc(xrma_prov_loopback_gate(n->fabric, node, closed), 0);
	n->gated = closed;
}

/* Close every context; all objects must be gone by now. */
static void net_close(struct net *n)
{
	size_t i;

	if (n->gated)
		net_gate(n, 1, false);
	for (i = 3; i-- > 0;) {
		if (!n->ctx[i])
			continue;
		assert_int_equal(fixture_count(n->ctx[i]), 0);
		assert_rc(xrma_ctx_close(n->ctx[i]), 0);
		n->ctx[i] = NULL;
	}
	current_net = NULL;
}

/* A failed test must not leave a gate closed under threads still running. */
static int provider_test_down(void **state)
{
	if (current_net && current_net->gated) {
		xrma_prov_loopback_gate(current_net->fabric, 1, false);
		current_net->gated = false;
	}
	current_net = NULL;
	return fixture_test_down(state);
}

/* Node 1 owns an exported segment; node 2 imports it. */
struct share {
	struct fixture_seg s;
	struct xrma_rseg *r;
};

static void share_open(struct net *n, struct share *sh, uint8_t seed)
{
	assert_rc(fixture_seg_make(n->ctx[0], LEN, XRMA_ACCESS_ALL, true, seed, &sh->s), 0);
	assert_rc(xrma_rseg_open(n->ctx[1], 1, sh->s.id, RW, 0, FIXTURE_TIMEOUT_MS, &sh->r), 0);
}

/* Node 1 transfers to a segment of node 2 through a queue. */
struct rig {
	struct fixture_seg local, remote;
	struct xrma_rseg *rseg;
	struct xrma_dmaq *q;
};

static void rig_open(struct net *n, struct rig *r, uint32_t depth)
{
	assert_rc(fixture_seg_make(n->ctx[0], LEN, XRMA_ACCESS_ALL, false, 90, &r->local), 0);
	assert_rc(fixture_seg_make(n->ctx[1], LEN, XRMA_ACCESS_ALL, true, 0, &r->remote), 0);
	fixture_fill(r->remote.addr, LEN, CANARY);
	assert_rc(xrma_rseg_open(n->ctx[0], 2, r->remote.id, RW, 0, FIXTURE_TIMEOUT_MS, &r->rseg), 0);
	assert_rc(xrma_dmaq_open(n->ctx[0], depth, 0, &r->q), 0);
}

static void rig_close(struct rig *r)
{
	assert_rc(xrma_dmaq_close(r->q), 0);
	assert_rc(xrma_rseg_close(r->rseg), 0);
	assert_int_equal(fixture_wait_importers(r->remote.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&r->remote), 0);
	assert_rc(fixture_seg_close(&r->local), 0);
}

/*
 * Post from a helper thread, so that a core that runs transfers inside post
 * (and so blocks on the gate) fails the test instead of hanging it.
 */
struct post_call {
	struct xrma_dmaq *q;
	const struct xrma_iov *v;
	size_t count;
	struct xrma_rseg *rseg;
	size_t offset, len;
	uint64_t cookie;
	uint32_t flags;
	int rc;
};

static void *post_main(void *arg)
{
	struct post_call *p = arg;

	p->rc = xrma_dmaq_post(p->q, XRMA_RMA_WRITE, p->v, p->count, p->rseg, p->offset, p->len, p->cookie,
			       p->flags);
	return NULL;
}

static int post_call_gated(struct net *n, struct post_call *p);

static int post_gated(struct net *n, struct rig *r, size_t offset, size_t len, uint64_t cookie,
		      uint32_t flags)
{
	struct xrma_iov v = { .seg = r->local.seg, .offset = offset, .len = len };
	struct post_call p = { .q = r->q, .v = &v, .count = 1, .rseg = r->rseg, .offset = offset,
			       .len = len, .cookie = cookie, .flags = flags };

	return post_call_gated(n, &p);
}

static int post_call_gated(struct net *n, struct post_call *p)
{
	struct timespec deadline;
	pthread_t thread;

	assert_int_equal(pthread_create(&thread, NULL, post_main, p), 0);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 1;
	if (pthread_timedjoin_np(thread, NULL, &deadline) != 0) {
		net_gate(n, 1, false);
		pthread_join(thread, NULL);
		fail_msg("xrma_dmaq_post blocked on the closed gate: transfers run inside post");
	}
	return p->rc;
}

/* ------------------------------------------------------------------ hooks */

static void test_provider_hooks_unknown_target_return_errors(void **state)
{
	struct net n;

	(void)state;
	net_open(&n, 1);
	assert_rc(xrma_prov_loopback_sever(n.fabric, 99), XRMA_ENODEV);
	assert_rc(xrma_prov_loopback_gate("no-such-fabric-xrma", 1, true), XRMA_ENOENT);
	net_close(&n);
}

/* ------------------------------------------------------------------ severed nodes */

static void test_provider_sever_owner_rseg_lost(void **state)
{
	struct net n;
	struct share sh;
	struct xrma_event ev;
	enum xrma_rseg_state st = 0;
	struct xrma_dmaq *q;
	struct fixture_seg local;
	struct xrma_iov v;
	uint64_t old;
	void *addr = NULL;

	(void)state;
	net_open(&n, 2);
	share_open(&n, &sh, 3);
	assert_rc(xrma_prov_loopback_sever(n.fabric, 1), 0);
	memset(&ev, 0, sizeof(ev));
	assert_rc(xrma_rseg_wait_event(sh.r, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_LOST);
	assert_int_equal(ev.node, 1);
	assert_rc(xrma_rseg_state(sh.r, &st), 0);
	assert_int_equal(st, XRMA_RSEG_LOST);
	assert_rc(xrma_rseg_atomic(sh.r, 0, XRMA_ATOMIC_READ, 0, 0, &old), XRMA_ELOST);
	assert_rc(xrma_rseg_map(sh.r, 0, FIXTURE_PAGE, XRMA_MAP_READ, &addr), XRMA_ELOST);
	assert_rc(fixture_seg_make(n.ctx[1], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 0, &local), 0);
	assert_rc(xrma_dmaq_open(n.ctx[1], 4, 0, &q), 0);
	v = (struct xrma_iov){ .seg = local.seg, .offset = 0, .len = 64 };
	assert_rc(xrma_dmaq_post(q, XRMA_RMA_READ, &v, 1, sh.r, 0, 64, 1, 0), XRMA_ELOST);
	assert_rc(xrma_dmaq_close(q), 0);
	assert_rc(fixture_seg_close(&local), 0);
	assert_rc(xrma_rseg_close(sh.r), 0);
	/* The severed owner learns of its importer's loss, then cleans up locally. */
	do {
		assert_rc(xrma_seg_wait_event(sh.s.seg, FIXTURE_TIMEOUT_MS, &ev), 0);
	} while (ev.type != XRMA_EVENT_LOST);
	assert_rc(fixture_seg_close(&sh.s), 0);
	net_close(&n);
}

static void test_provider_sever_importer_owner_sees_lost(void **state)
{
	struct net n;
	struct share sh;
	struct xrma_event ev;

	(void)state;
	net_open(&n, 2);
	share_open(&n, &sh, 3);
	assert_rc(xrma_seg_wait_event(sh.s.seg, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_CONNECT);
	assert_rc(xrma_prov_loopback_sever(n.fabric, 2), 0);
	memset(&ev, 0, sizeof(ev));
	assert_rc(xrma_seg_wait_event(sh.s.seg, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_LOST);
	assert_int_equal(ev.node, 2);
	assert_int_equal(fixture_wait_importers(sh.s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	/* Nothing holds the segment any more. */
	assert_rc(fixture_seg_close(&sh.s), 0);
	assert_rc(xrma_rseg_close(sh.r), 0);
	net_close(&n);
}

static void test_provider_sever_node_leaves_list(void **state)
{
	struct net n;
	uint32_t ids[4];
	size_t count = 0;

	(void)state;
	net_open(&n, 3);
	assert_rc(xrma_prov_loopback_sever(n.fabric, 2), 0);
	assert_rc(xrma_node_list(n.ctx[0], ids, 4, &count), 0);
	assert_int_equal(count, 2);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], 3);
	assert_rc(xrma_node_probe(n.ctx[0], 2, FIXTURE_TIMEOUT_MS), XRMA_ENODEV);
	assert_rc(xrma_node_probe(n.ctx[2], 1, FIXTURE_TIMEOUT_MS), 0);
	net_close(&n);
}

struct connector {
	struct xrma_conn *conn;
	uint32_t node, port;
	int rc;
};

static void *connect_main(void *arg)
{
	struct connector *c = arg;

	c->rc = xrma_conn_connect(c->conn, c->node, c->port, FIXTURE_TIMEOUT_MS);
	return NULL;
}

/* A listener on node 1, a client on node 2 connected to it, the accepted end. */
static void conn_pair(struct net *n, struct xrma_conn **l, struct xrma_conn **server,
		      struct xrma_conn **client)
{
	struct connector c;
	pthread_t thread;
	uint32_t port = XRMA_PORT_ANY;

	assert_rc(xrma_conn_open(n->ctx[0], 0, l), 0);
	assert_rc(xrma_conn_bind(*l, &port, 0, 0), 0);
	assert_rc(xrma_conn_listen(*l, 1), 0);
	assert_rc(xrma_conn_open(n->ctx[1], 0, client), 0);
	c = (struct connector){ .conn = *client, .node = 1, .port = port, .rc = 1 };
	assert_int_equal(pthread_create(&thread, NULL, connect_main, &c), 0);
	assert_rc(xrma_conn_accept(*l, FIXTURE_TIMEOUT_MS, server), 0);
	assert_int_equal(fixture_join(thread, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	assert_rc(c.rc, 0);
}

static void test_provider_sever_conn_peer_drains_then_econnreset(void **state)
{
	struct xrma_conn *l = NULL, *s = NULL, *c = NULL;
	enum xrma_conn_state st = 0;
	struct xrma_event ev;
	uint8_t buf[16];
	uint32_t bits = 0;
	struct net n;

	(void)state;
	net_open(&n, 2);
	conn_pair(&n, &l, &s, &c);
	assert_count(xrma_conn_send(c, "0123456789", 10, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), 10);
	assert_int_equal(fixture_fd_readable(xrma_conn_fd(s), FIXTURE_TIMEOUT_MS), 1);
	assert_rc(xrma_prov_loopback_sever(n.fabric, 2), 0);
	/* What arrived before the crash is still read, then the stream ends. */
	assert_count(xrma_conn_recv(s, buf, 10, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), 10);
	assert_memory_equal(buf, "0123456789", 10);
	assert_rc(xrma_conn_recv(s, buf, 1, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), XRMA_ECONNRESET);
	assert_rc(xrma_conn_state(s, &st), 0);
	assert_int_equal(st, XRMA_CONN_DISCONNECTED);
	assert_rc(xrma_conn_poll(s, &bits), 0);
	assert_true(bits & XRMA_POLLHUP);
	assert_rc(xrma_conn_send(s, buf, 1, 0, 0), XRMA_ECONNRESET);
	memset(&ev, 0, sizeof(ev));
	assert_rc(xrma_conn_wait_event(s, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_LOST);
	assert_int_equal(ev.node, 2);
	assert_rc(xrma_conn_close(c), 0);
	assert_rc(xrma_conn_close(s), 0);
	assert_rc(xrma_conn_close(l), 0);
	net_close(&n);
}

static void test_provider_sever_intr_owner_trigger_elost(void **state)
{
	struct xrma_intr *intr = NULL;
	struct xrma_rintr *rintr = NULL;
	uint64_t number = XRMA_ID_ANY, end;
	struct net n;
	int rc;

	(void)state;
	net_open(&n, 2);
	assert_rc(xrma_intr_open(n.ctx[0], &number, 0, 0, 0, &intr), 0);
	assert_rc(xrma_rintr_open(n.ctx[1], 1, number, FIXTURE_TIMEOUT_MS, &rintr), 0);
	assert_rc(xrma_rintr_trigger(rintr, NULL, 0), 0);
	assert_rc(xrma_intr_wait(intr, FIXTURE_TIMEOUT_MS, NULL, NULL), 0);
	assert_rc(xrma_prov_loopback_sever(n.fabric, 1), 0);
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS;
	do
		rc = xrma_rintr_trigger(rintr, NULL, 0);
	while (rc == 0 && fixture_now_ms() < end);
	assert_rc(rc, XRMA_ELOST);
	assert_rc(xrma_rintr_trigger(rintr, "x", 1), XRMA_ELOST);
	/* A dead interrupt is still a live handle until closed. */
	assert_int_equal(fixture_count(n.ctx[1]), 1);
	assert_rc(xrma_rintr_close(rintr), 0);
	assert_rc(xrma_intr_close(intr), 0);
	net_close(&n);
}

/* ------------------------------------------------------------------ the gate */

static void test_provider_gate_holds_op_queue_busy_until_open(void **state)
{
	struct xrma_completion c;
	struct rig r;
	struct net n;
	size_t out = 0;

	(void)state;
	net_open(&n, 2);
	rig_open(&n, &r, 8);
	net_gate(&n, 1, true);
	assert_rc(post_gated(&n, &r, 0, 1024, 11, 0), 0);
	assert_rc(xrma_dmaq_outstanding(r.q, &out), 0);
	assert_int_equal(out, 1);
	assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_SHORT_MS), XRMA_ETIMEDOUT);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_SHORT_MS), XRMA_ETIMEDOUT);
	assert_rc(xrma_dmaq_close(r.q), XRMA_EBUSY);
	assert_int_equal(fixture_check(r.remote.addr, LEN, CANARY), FIXTURE_MATCH);
	net_gate(&n, 1, false);
	memset(&c, 0, sizeof(c));
	assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.cookie, 11);
	assert_int_equal(c.status, 0);
	assert_int_equal(c.len, 1024);
	assert_int_equal(fixture_pattern_check(r.remote.addr, 1024, 90, 0), FIXTURE_MATCH);
	assert_rc(xrma_dmaq_outstanding(r.q, &out), 0);
	assert_int_equal(out, 0);
	rig_close(&r);
	net_close(&n);
}

static void test_provider_gate_jobs_waiting_when_owner_forces_off_end_elost(void **state)
{
	struct xrma_completion c[3];
	struct xrma_event ev;
	struct rig r;
	struct net n;

	(void)state;
	net_open(&n, 2);
	rig_open(&n, &r, 8);
	net_gate(&n, 1, true);
	/* The first transfer waits inside the provider, the other two in the engine. */
	for (uint64_t i = 0; i < 3; i++)
		assert_rc(post_gated(&n, &r, i * 1024, 1024, i, 0), 0);
	assert_rc(xrma_seg_unexport(r.remote.seg, XRMA_UNEXPORT_FORCE), 0);
	do
		assert_rc(xrma_rseg_wait_event(r.rseg, FIXTURE_TIMEOUT_MS, &ev), 0);
	while (ev.type != XRMA_EVENT_LOST);
	net_gate(&n, 1, false);
	for (int i = 0; i < 3; i++)
		assert_rc(xrma_dmaq_wait(r.q, &c[i], FIXTURE_TIMEOUT_MS), 0);
	/* Those not started when the segment was lost never reach its memory. */
	assert_int_equal(c[1].status, -XRMA_ELOST);
	assert_int_equal(c[2].status, -XRMA_ELOST);
	assert_int_equal(fixture_check((uint8_t *)r.remote.addr + 1024, 2048, CANARY), FIXTURE_MATCH);
	rig_close(&r);
	net_close(&n);
}

static void test_provider_gate_queue_full_returns_eagain(void **state)
{
	struct xrma_completion c;
	struct xrma_iov v;
	struct rig r;
	struct net n;
	size_t out = 0;

	(void)state;
	net_open(&n, 2);
	rig_open(&n, &r, 1);
	net_gate(&n, 1, true);
	assert_rc(post_gated(&n, &r, 0, 64, 1, 0), 0);
	v = (struct xrma_iov){ .seg = r.local.seg, .offset = 64, .len = 64 };
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 64, 64, 2, 0), XRMA_EAGAIN);
	assert_rc(xrma_dmaq_outstanding(r.q, &out), 0);
	assert_int_equal(out, 1);
	net_gate(&n, 1, false);
	assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.cookie, 1);
	/* The refused post moved nothing; now there is room. */
	assert_int_equal(fixture_check((uint8_t *)r.remote.addr + 64, LEN - 64, CANARY), FIXTURE_MATCH);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 64, 64, 2, XRMA_RMA_SYNC), 0);
	rig_close(&r);
	net_close(&n);
}

static void test_provider_gate_abort_cancels_unstarted_ops(void **state)
{
	struct xrma_completion c[3];
	int status[4] = { 1, 1, 1, 1 };
	struct rig r;
	struct net n;
	size_t out = 0, i;
	int cancelled;

	(void)state;
	net_open(&n, 2);
	rig_open(&n, &r, 8);
	net_gate(&n, 1, true);
	assert_rc(post_gated(&n, &r, 0, 256, 1, 0), 0);
	/* Fenced, so neither can start while the first is held. */
	assert_rc(post_gated(&n, &r, 256, 256, 2, XRMA_RMA_FENCE | XRMA_RMA_SUPPRESS), 0);
	assert_rc(post_gated(&n, &r, 512, 256, 3, XRMA_RMA_FENCE), 0);
	assert_rc(xrma_dmaq_outstanding(r.q, &out), 0);
	assert_int_equal(out, 3);
	cancelled = xrma_dmaq_abort(r.q);
	/* The first may or may not have started when abort ran; the fenced two had not. */
	assert_true(cancelled == 2 || cancelled == 3);
	net_gate(&n, 1, false);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	/* Cancelled entries are never suppressed: three entries in all. */
	assert_count(xrma_dmaq_poll(r.q, c, 3), 3);
	for (i = 0; i < 3; i++) {
		assert_in_range(c[i].cookie, 1, 3);
		status[c[i].cookie] = c[i].status;
	}
	assert_rc(status[2], XRMA_ECANCELED);
	assert_rc(status[3], XRMA_ECANCELED);
	if (cancelled == 3) {
		assert_rc(status[1], XRMA_ECANCELED);
	} else {
		assert_rc(status[1], 0);
		assert_int_equal(fixture_pattern_check(r.remote.addr, 256, 90, 0), FIXTURE_MATCH);
	}
	/* Cancelled transfers moved nothing. */
	assert_int_equal(fixture_check((uint8_t *)r.remote.addr + 256, LEN - 256, CANARY), FIXTURE_MATCH);
	assert_rc(xrma_dmaq_outstanding(r.q, &out), 0);
	assert_int_equal(out, 0);
	rig_close(&r);
	net_close(&n);
}

static void test_provider_gate_fence_mark_pending_until_open(void **state)
{
	struct rig r;
	struct net n;
	uint64_t m = 0;

	(void)state;
	net_open(&n, 2);
	rig_open(&n, &r, 8);
	net_gate(&n, 1, true);
	assert_rc(post_gated(&n, &r, 0, 512, 1, XRMA_RMA_SUPPRESS), 0);
	assert_rc(xrma_fence_mark(r.q, &m), 0);
	assert_count(xrma_fence_test(r.q, m), 0);
	assert_rc(xrma_fence_wait(r.q, m, FIXTURE_SHORT_MS), XRMA_ETIMEDOUT);
	net_gate(&n, 1, false);
	assert_rc(xrma_fence_wait(r.q, m, FIXTURE_TIMEOUT_MS), 0);
	assert_count(xrma_fence_test(r.q, m), 1);
	assert_int_equal(fixture_pattern_check(r.remote.addr, 512, 90, 0), FIXTURE_MATCH);
	rig_close(&r);
	net_close(&n);
}

/* A signal's segment, closed once the core let go of it (just after its store). */
static void close_once_released(struct xrma_seg *seg)
{
	uint64_t end = fixture_now_ms() + FIXTURE_TIMEOUT_MS;
	int rc;

	while ((rc = xrma_seg_close(seg)) == -XRMA_EBUSY && fixture_now_ms() < end)
		;
	assert_rc(rc, 0);
}

static void test_provider_gate_signal_waits_and_holds_segment(void **state)
{
	struct fixture_seg flag;
	struct rig r;
	struct net n;
	uint64_t m = 0;

	(void)state;
	net_open(&n, 2);
	rig_open(&n, &r, 8);
	assert_rc(fixture_seg_make(n.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 0, &flag), 0);
	net_gate(&n, 1, true);
	assert_rc(post_gated(&n, &r, 0, 512, 1, XRMA_RMA_SUPPRESS), 0);
	assert_rc(xrma_fence_signal(r.q, flag.seg, 8, 0x5151, r.rseg, 1024, 0x6161, 0), 0);
	assert_rc(xrma_fence_mark(r.q, &m), 0);
	assert_rc(xrma_fence_wait(r.q, m, FIXTURE_SHORT_MS), XRMA_ETIMEDOUT);
	/* Not written while the earlier transfer is held, and its segment stays held. */
	assert_int_equal(__atomic_load_n((uint64_t *)((uint8_t *)flag.addr + 8), __ATOMIC_ACQUIRE), 0);
	assert_rc(xrma_seg_close(flag.seg), XRMA_EBUSY);
	net_gate(&n, 1, false);
	assert_int_equal(fixture_wait_u64((uint8_t *)flag.addr + 8, 0x5151, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(fixture_wait_u64((uint8_t *)r.remote.addr + 1024, 0x6161, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(fixture_pattern_check(r.remote.addr, 512, 90, 0), FIXTURE_MATCH);
	close_once_released(flag.seg);
	rig_close(&r);
	net_close(&n);
}

/*
 * Segments stay busy while any transfer naming them is in flight, however
 * many there are (more than the queue holds at once, two per segment, one
 * segment twice in a vector), and close the moment the last one completed.
 */
#define BUSY_PAIRS 6

static void test_provider_gate_segments_busy_until_last_transfer_completes(void **state)
{
	struct fixture_seg local[BUSY_PAIRS], remote[BUSY_PAIRS];
	struct xrma_rseg *rseg[BUSY_PAIRS];
	struct xrma_completion c;
	struct xrma_dmaq *q;
	struct net n;
	size_t posted = 0;

	(void)state;
	net_open(&n, 2);
	assert_rc(xrma_dmaq_open(n.ctx[0], 64, 0, &q), 0);
	for (int i = 0; i < BUSY_PAIRS; i++) {
		assert_rc(fixture_seg_make(n.ctx[0], LEN, XRMA_ACCESS_ALL, false, (uint8_t)(40 + i), &local[i]), 0);
		assert_rc(fixture_seg_make(n.ctx[1], LEN, XRMA_ACCESS_ALL, true, 0, &remote[i]), 0);
		fixture_fill(remote[i].addr, LEN, CANARY);
		assert_rc(xrma_rseg_open(n.ctx[0], 2, remote[i].id, RW, 0, FIXTURE_TIMEOUT_MS, &rseg[i]), 0);
	}
	net_gate(&n, 1, true);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < BUSY_PAIRS; i++) {
			size_t at = (size_t)round * 512;
			struct xrma_iov v[2] = { { .seg = local[i].seg, .offset = at, .len = 256 },
						 { .seg = local[i].seg, .offset = at + 256, .len = 256 } };
			struct post_call p = { .q = q, .v = v, .count = i == 0 ? 2 : 1, .rseg = rseg[i],
					       .offset = at, .len = i == 0 ? 512 : 256, .cookie = posted };

			assert_rc(post_call_gated(&n, &p), 0);
			posted++;
		}
	}
	for (int i = 0; i < BUSY_PAIRS; i++) {
		assert_rc(xrma_seg_close(local[i].seg), XRMA_EBUSY);
		assert_rc(xrma_rseg_close(rseg[i]), XRMA_EBUSY);
	}
	net_gate(&n, 1, false);
	for (size_t k = 0; k < posted; k++) {
		assert_rc(xrma_dmaq_wait(q, &c, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(c.status, 0);
	}
	/* Every completion was read: nothing of the queue may still hold a segment. */
	for (int i = 0; i < BUSY_PAIRS; i++) {
		assert_int_equal(fixture_pattern_check(remote[i].addr, i == 0 ? 512 : 256, (uint8_t)(40 + i), 0),
				 FIXTURE_MATCH);
		assert_rc(xrma_rseg_close(rseg[i]), 0);
		assert_int_equal(fixture_wait_importers(remote[i].seg, 0, FIXTURE_TIMEOUT_MS), 0);
		assert_rc(fixture_seg_close(&remote[i]), 0);
		assert_rc(fixture_seg_close(&local[i]), 0);
	}
	assert_rc(xrma_dmaq_close(q), 0);
	net_close(&n);
}

/*
 * Signals armed behind held transfers wait in mark order and all fire once
 * the gate opens; a second round arms them on the list the first emptied.
 */
static void test_provider_gate_signals_queued_fire_in_order_each_round(void **state)
{
	struct fixture_seg flag;
	struct rig r;
	struct net n;

	(void)state;
	net_open(&n, 2);
	rig_open(&n, &r, 8);
	assert_rc(fixture_seg_make(n.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 0, &flag), 0);
	for (uint64_t round = 1; round <= 2; round++) {
		uint8_t *words = flag.addr;

		net_gate(&n, 1, true);
		for (uint64_t k = 0; k < 3; k++) {
			assert_rc(post_gated(&n, &r, 0, 512, k, XRMA_RMA_SUPPRESS), 0);
			assert_rc(xrma_fence_signal(r.q, flag.seg, 8 * k, round * 10 + k, NULL, 0, 0, 0), 0);
		}
		for (uint64_t k = 0; k < 3; k++)
			assert_int_equal(__atomic_load_n((uint64_t *)(void *)(words + 8 * k), __ATOMIC_ACQUIRE),
					 round == 1 ? 0 : 10 + k);
		net_gate(&n, 1, false);
		for (uint64_t k = 0; k < 3; k++)
			assert_int_equal(fixture_wait_u64(words + 8 * k, round * 10 + k, FIXTURE_TIMEOUT_MS), 0);
		assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	}
	close_once_released(flag.seg);
	rig_close(&r);
	net_close(&n);
}

/* ------------------------------------------------------------------ the link */

static void test_provider_link_down_up_rseg_events_and_transfers(void **state)
{
	struct xrma_event ev;
	enum xrma_rseg_state st = 0;
	struct xrma_iov v;
	struct rig r;
	struct net n;

	(void)state;
	net_open(&n, 2);
	rig_open(&n, &r, 8);
	assert_rc(xrma_prov_loopback_link(n.fabric, 2, false), 0);
	memset(&ev, 0, sizeof(ev));
	assert_rc(xrma_rseg_wait_event(r.rseg, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_NOT_OPERATIONAL);
	assert_int_equal(ev.node, 2);
	assert_rc(xrma_rseg_state(r.rseg, &st), 0);
	assert_int_equal(st, XRMA_RSEG_NOT_OPERATIONAL);
	v = (struct xrma_iov){ .seg = r.local.seg, .offset = 0, .len = 256 };
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 256, 1, XRMA_RMA_SYNC),
		  XRMA_ETRANSFER);
	assert_int_equal(fixture_check(r.remote.addr, LEN, CANARY), FIXTURE_MATCH);
	assert_rc(xrma_prov_loopback_link(n.fabric, 2, true), 0);
	memset(&ev, 0, sizeof(ev));
	assert_rc(xrma_rseg_wait_event(r.rseg, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_OPERATIONAL);
	assert_int_equal(ev.node, 2);
	assert_rc(xrma_rseg_state(r.rseg, &st), 0);
	assert_int_equal(st, XRMA_RSEG_CONNECTED);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 256, 1, XRMA_RMA_SYNC), 0);
	assert_int_equal(fixture_pattern_check(r.remote.addr, 256, 90, 0), FIXTURE_MATCH);
	rig_close(&r);
	net_close(&n);
}

static void test_provider_link_down_async_completion_etransfer(void **state)
{
	struct xrma_completion c;
	struct xrma_event ev;
	struct xrma_iov v;
	struct rig r;
	struct net n;

	(void)state;
	net_open(&n, 2);
	rig_open(&n, &r, 8);
	assert_rc(xrma_prov_loopback_link(n.fabric, 2, false), 0);
	assert_rc(xrma_rseg_wait_event(r.rseg, FIXTURE_TIMEOUT_MS, &ev), 0);
	v = (struct xrma_iov){ .seg = r.local.seg, .offset = 0, .len = 256 };
	/* Failures are never suppressed. */
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 256, 42, XRMA_RMA_SUPPRESS), 0);
	memset(&c, 0, sizeof(c));
	assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.cookie, 42);
	assert_rc(c.status, XRMA_ETRANSFER);
	assert_int_equal(fixture_check(r.remote.addr, LEN, CANARY), FIXTURE_MATCH);
	assert_rc(xrma_prov_loopback_link(n.fabric, 2, true), 0);
	rig_close(&r);
	net_close(&n);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, provider_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_provider_hooks_unknown_target_return_errors),
		T(test_provider_sever_owner_rseg_lost),
		T(test_provider_sever_importer_owner_sees_lost),
		T(test_provider_sever_node_leaves_list),
		T(test_provider_sever_conn_peer_drains_then_econnreset),
		T(test_provider_sever_intr_owner_trigger_elost),
		T(test_provider_gate_holds_op_queue_busy_until_open),
		T(test_provider_gate_jobs_waiting_when_owner_forces_off_end_elost),
		T(test_provider_gate_queue_full_returns_eagain),
		T(test_provider_gate_abort_cancels_unstarted_ops),
		T(test_provider_gate_fence_mark_pending_until_open),
		T(test_provider_gate_signal_waits_and_holds_segment),
		T(test_provider_gate_signals_queued_fire_in_order_each_round),
		T(test_provider_gate_segments_busy_until_last_transfer_completes),
		T(test_provider_link_down_up_rseg_events_and_transfers),
		T(test_provider_link_down_async_completion_etransfer),
	};

	return cmocka_run_group_tests_name("provider", tests, provider_group_up, provider_group_down);
}
