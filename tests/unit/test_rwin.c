/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_rwin.c: registered address spaces shared over a connection
 * (include/xrma/rwin.h): bad arguments, lookup of the peer's offsets into
 * pieces (holes, rights, too many windows), windows appearing and disappearing
 * on the peer's side and the imports that go with them, lookups that stay
 * coherent while the peer changes its table, peer fences (a waiter that sleeps
 * until the peer's transfers completed) and a peer that goes away. The group
 * runs twice: with the peer's table mapped, and read by RMA into a copy (the
 * test hook XRMA_TEST_RWIN_COPY=1 of the test-only core this program links).
 */
#include "tests/helpers/fixture.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define P FIXTURE_PAGE
#define RW (XRMA_RWIN_PROT_READ | XRMA_RWIN_PROT_WRITE)
/* Rounds of the concurrent test: enough to interleave, short under sanitizers. */
#define CHURN_ROUNDS 300

static struct fixture fx;

static int rwin_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "rwin", 2);
}

static int copy_group_up(void **state)
{
	(void)state;
	setenv("XRMA_TEST_RWIN_COPY", "1", 1);
	return fixture_open(&fx, "rwin-copy", 2);
}

static int rwin_group_down(void **state)
{
	(void)state;
	unsetenv("XRMA_TEST_RWIN_COPY");
	return fixture_close(&fx);
}

/* Two ends: node 1 (a) and node 2 (b), connected, each with a queue and a space. */
struct pair {
	struct xrma_conn *listener, *conn[2];
	struct xrma_dmaq *dmaq[2];
	struct xrma_rwin *rwin[2];
	uint64_t table[2];
};

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

static void pair_open(struct pair *p)
{
	struct connector c = { .rc = 1 };
	uint32_t port = XRMA_PORT_ANY;
	pthread_t thread;

	memset(p, 0, sizeof(*p));
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &p->listener), 0);
	assert_rc(xrma_conn_bind(p->listener, &port, 0, 0), 0);
	assert_rc(xrma_conn_listen(p->listener, 1), 0);
	assert_rc(xrma_conn_open(fx.ctx[1], 0, &p->conn[1]), 0);
	c.conn = p->conn[1];
	c.node = fx.node[0];
	c.port = port;
	assert_int_equal(pthread_create(&thread, NULL, connect_main, &c), 0);
	assert_rc(xrma_conn_accept(p->listener, FIXTURE_TIMEOUT_MS, &p->conn[0]), 0);
	assert_int_equal(fixture_join(thread, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	assert_rc(c.rc, 0);
	for (int i = 0; i < 2; i++) {
		assert_rc(xrma_dmaq_open(fx.ctx[i], 16, 0, &p->dmaq[i]), 0);
		assert_rc(xrma_rwin_open(fx.ctx[i], p->dmaq[i], NULL, &p->table[i], &p->rwin[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		assert_rc(xrma_rwin_attach(p->rwin[i], p->conn[i], p->table[1 - i], FIXTURE_TIMEOUT_MS), 0);
}

static void pair_close(struct pair *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->rwin[i])
			assert_rc(xrma_rwin_close(p->rwin[i]), 0);
		assert_rc(xrma_dmaq_close(p->dmaq[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		if (p->conn[i])
			assert_rc(xrma_conn_close(p->conn[i]), 0);
	assert_rc(xrma_conn_close(p->listener), 0);
}

static void add_at(struct xrma_rwin *rwin, struct fixture_seg *seg, size_t seg_offset, size_t len,
		   uint64_t offset, uint32_t prot)
{
	uint64_t at = offset;

	assert_rc(xrma_rwin_add(rwin, seg->seg, seg_offset, len, &at, prot, XRMA_RWIN_FIXED, NULL), 0);
	assert_int_equal(at, offset);
}

/* ------------------------------------------------------------------ tests */

static void test_rwin_bad_arguments(void **state)
{
	struct xrma_rwin_piece piece;
	struct fixture_seg seg;
	struct xrma_rseg *rseg;
	struct xrma_iov iov;
	struct pair p;
	uint64_t at = 0, id;
	size_t count;

	(void)state;
	pair_open(&p);
	assert_rc(fixture_seg_make(fx.ctx[0], 2 * P, XRMA_ACCESS_ALL, true, 1, &seg), 0);
	assert_rc(xrma_rwin_open(NULL, p.dmaq[0], NULL, &id, &p.rwin[0]), XRMA_EINVAL);
	assert_rc(xrma_rwin_open(fx.ctx[0], p.dmaq[0], NULL, NULL, NULL), XRMA_EINVAL);
	assert_rc(xrma_rwin_attach(NULL, p.conn[0], 1, 0), XRMA_EINVAL);
	assert_rc(xrma_rwin_attach(p.rwin[0], p.conn[0], p.table[1], 0), XRMA_EISCONN);
	assert_rc(xrma_rwin_add(p.rwin[0], seg.seg, 0, 0, &at, RW, 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_rwin_add(p.rwin[0], seg.seg, 0, P, &at, 0, 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_rwin_add(p.rwin[0], seg.seg, 0, P, &at, 1u << 7, 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_rwin_add(p.rwin[0], seg.seg, 0, P, &at, RW, 1u << 7, NULL), XRMA_EINVAL);
	assert_rc(xrma_rwin_add(p.rwin[0], NULL, 0, P, &at, RW, 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_rwin_add(p.rwin[0], seg.seg, 0, 4 * P, &at, RW, 0, NULL), XRMA_ERANGE);
	assert_rc(xrma_rwin_remove(p.rwin[0], 0, P), XRMA_ENXIO);
	assert_rc(xrma_rwin_lookup(p.rwin[1], 0, P, RW, NULL, 1, &count), XRMA_EINVAL);
	assert_rc(xrma_rwin_lookup(p.rwin[1], 0, 0, RW, &piece, 1, &count), XRMA_ENXIO);
	assert_rc(xrma_rwin_lookup(p.rwin[1], UINT64_MAX, 2, RW, &piece, 1, &count), XRMA_ENXIO);
	assert_rc(xrma_rwin_import(p.rwin[1], NULL, &rseg), XRMA_EINVAL);
	assert_rc(xrma_rwin_local(p.rwin[0], 0, P, 1u << 9, &iov, 1, &count), XRMA_EINVAL);
	assert_rc(xrma_rwin_peer_wait(NULL, 1, 0), XRMA_EINVAL);
	assert_rc(xrma_rwin_peer_mark(p.rwin[1], NULL), XRMA_EINVAL);
	/* None of that left a window on either side. */
	assert_rc(xrma_rwin_lookup(p.rwin[1], 0, P, 0, &piece, 1, &count), XRMA_ENXIO);
	assert_rc(xrma_rwin_local(p.rwin[0], 0, P, 0, &iov, 1, &count), XRMA_ENXIO);
	assert_rc(fixture_seg_close(&seg), 0);
	pair_close(&p);
}

/* a publishes [0, 3P) over two segments; b resolves, imports and writes through it. */
static void test_rwin_lookup_by_offset(void **state)
{
	struct fixture_seg s1, s2, src;
	struct xrma_rwin_piece piece[4];
	struct xrma_rseg *rseg[2];
	struct xrma_iov iov[4];
	struct pair p;
	size_t count = 0;

	(void)state;
	pair_open(&p);
	assert_rc(fixture_seg_make(fx.ctx[0], 4 * P, XRMA_ACCESS_ALL, true, 0, &s1), 0);
	assert_rc(fixture_seg_make(fx.ctx[0], 2 * P, XRMA_ACCESS_ALL, true, 0, &s2), 0);
	assert_rc(fixture_seg_make(fx.ctx[1], 3 * P, XRMA_ACCESS_ALL, false, 7, &src), 0);
	add_at(p.rwin[0], &s1, P, 2 * P, 0, RW);
	add_at(p.rwin[0], &s2, 0, P, 2 * P, XRMA_RWIN_PROT_READ);
	/* Across both windows, from inside the first. */
	assert_rc(xrma_rwin_lookup(p.rwin[1], P / 2, 2 * P, XRMA_RWIN_PROT_READ, piece, 4, &count), 0);
	assert_int_equal(count, 2);
	assert_int_equal(piece[0].seg_id, s1.id);
	assert_int_equal(piece[0].seg_offset, P + P / 2);
	assert_int_equal(piece[0].len, P + P / 2);
	assert_int_equal(piece[0].prot, RW);
	assert_int_equal(piece[1].seg_id, s2.id);
	assert_int_equal(piece[1].seg_offset, 0);
	assert_int_equal(piece[1].len, P / 2);
	assert_int_equal(piece[1].prot, XRMA_RWIN_PROT_READ);
	/* Rights, room and holes. */
	assert_rc(xrma_rwin_lookup(p.rwin[1], P, 2 * P, XRMA_RWIN_PROT_WRITE, piece, 4, &count), XRMA_EACCES);
	assert_rc(xrma_rwin_lookup(p.rwin[1], P, 2 * P, 0, piece, 1, &count), XRMA_ENOSPC);
	assert_rc(xrma_rwin_lookup(p.rwin[1], 2 * P, 2 * P, 0, piece, 4, &count), XRMA_ENXIO);
	assert_rc(xrma_rwin_lookup(p.rwin[1], 5 * P, 1, 0, piece, 4, &count), XRMA_ENXIO);
	/* Our own side as a local vector. */
	assert_rc(xrma_rwin_local(p.rwin[0], P, 2 * P, XRMA_RWIN_PROT_READ, iov, 4, &count), 0);
	assert_int_equal(count, 2);
	assert_ptr_equal(iov[0].seg, s1.seg);
	assert_int_equal(iov[0].offset, 2 * P);
	assert_rc(xrma_rwin_local(p.rwin[0], P, 2 * P, XRMA_RWIN_PROT_WRITE, iov, 4, &count), XRMA_EACCES);
	/* The import is cached and carries data. */
	assert_rc(xrma_rwin_lookup(p.rwin[1], 0, 2 * P, XRMA_RWIN_PROT_WRITE, piece, 4, &count), 0);
	assert_int_equal(count, 1);
	assert_rc(xrma_rwin_import(p.rwin[1], &piece[0], &rseg[0]), 0);
	assert_rc(xrma_rwin_import(p.rwin[1], &piece[0], &rseg[1]), 0);
	assert_ptr_equal(rseg[0], rseg[1]);
	assert_rc(fixture_rma_sync(fx.ctx[1], XRMA_RMA_WRITE, src.seg, 0, rseg[0], piece[0].seg_offset, 2 * P), 0);
	assert_int_equal(fixture_pattern_check((char *)s1.addr + P, 2 * P, 7, 0), FIXTURE_MATCH);
	pair_close(&p);
	assert_rc(fixture_seg_close(&s1), 0);
	assert_rc(fixture_seg_close(&s2), 0);
	assert_rc(fixture_seg_close(&src), 0);
}

/* A window the peer adds is found; once its remove returned it is gone, and so is the import. */
static void test_rwin_appear_disappear(void **state)
{
	struct xrma_rwin_piece piece;
	struct xrma_rseg *rseg;
	struct fixture_seg seg;
	struct pair p;
	size_t count, before;

	(void)state;
	pair_open(&p);
	assert_rc(fixture_seg_make(fx.ctx[0], 2 * P, XRMA_ACCESS_ALL, true, 3, &seg), 0);
	assert_rc(xrma_rwin_lookup(p.rwin[1], 8 * P, P, 0, &piece, 1, &count), XRMA_ENXIO);
	before = fixture_count(fx.ctx[1]);
	add_at(p.rwin[0], &seg, 0, 2 * P, 8 * P, RW);
	/* b saw the table before the addition: a miss reads it again. */
	assert_rc(xrma_rwin_sweep(p.rwin[1], false), 0);
	assert_rc(xrma_rwin_lookup(p.rwin[1], 8 * P, P, 0, &piece, 1, &count), 0);
	assert_int_equal(piece.seg_id, seg.id);
	assert_rc(xrma_rwin_import(p.rwin[1], &piece, &rseg), 0);
	assert_int_equal(fixture_count(fx.ctx[1]), before + 1);
	/* Cutting a window, or an empty range, is refused and changes nothing. */
	assert_rc(xrma_rwin_remove(p.rwin[0], 8 * P, P), XRMA_EINVAL);
	assert_rc(xrma_rwin_remove(p.rwin[0], 0, P), XRMA_ENXIO);
	assert_rc(xrma_rwin_lookup(p.rwin[1], 9 * P, P, 0, &piece, 1, &count), 0);
	assert_rc(xrma_rwin_remove(p.rwin[0], 8 * P, 2 * P), 0);
	/* The next call of b's: the window is gone and its import closed. */
	assert_rc(xrma_rwin_sweep(p.rwin[1], false), 0);
	assert_rc(xrma_rwin_lookup(p.rwin[1], 8 * P, P, 0, &piece, 1, &count), XRMA_ENXIO);
	assert_int_equal(fixture_count(fx.ctx[1]), before);
	/* The range is free again at once (no pages of ours were busy). */
	add_at(p.rwin[0], &seg, 0, P, 8 * P, XRMA_RWIN_PROT_READ);
	assert_rc(xrma_rwin_sweep(p.rwin[1], false), 0);
	assert_rc(xrma_rwin_lookup(p.rwin[1], 8 * P, P, XRMA_RWIN_PROT_WRITE, &piece, 1, &count), XRMA_EACCES);
	pair_close(&p);
	assert_rc(fixture_seg_close(&seg), 0);
}

struct churn {
	struct xrma_rwin *rwin;
	struct fixture_seg *seg;
	int rc;
};

/* a's thread: add and remove a second window over and over. */
static void *churn_main(void *arg)
{
	struct churn *c = arg;

	for (int i = 0; i < CHURN_ROUNDS && !c->rc; i++) {
		uint64_t at = 4 * P;

		c->rc = xrma_rwin_add(c->rwin, c->seg->seg, P, P, &at, RW, XRMA_RWIN_FIXED, NULL);
		if (!c->rc)
			c->rc = xrma_rwin_remove(c->rwin, 4 * P, P);
	}
	return NULL;
}

/* While a rewrites its table, b's lookups see either the old or the new table, whole. */
static void test_rwin_concurrent_change(void **state)
{
	struct xrma_rwin_piece piece[2];
	struct fixture_seg seg;
	struct churn c = { 0 };
	pthread_t thread;
	struct pair p;
	int seen = 0, missed = 0;

	(void)state;
	pair_open(&p);
	assert_rc(fixture_seg_make(fx.ctx[0], 2 * P, XRMA_ACCESS_ALL, true, 0, &seg), 0);
	add_at(p.rwin[0], &seg, 0, P, 0, RW);
	c.rwin = p.rwin[0];
	c.seg = &seg;
	assert_int_equal(pthread_create(&thread, NULL, churn_main, &c), 0);
	for (int i = 0; i < CHURN_ROUNDS; i++) {
		size_t count = 0;
		int rc;

		assert_rc(xrma_rwin_sweep(p.rwin[1], false), 0);
		/* The steady window never flickers. */
		assert_rc(xrma_rwin_lookup(p.rwin[1], 0, P, RW, piece, 2, &count), 0);
		assert_int_equal(count, 1);
		assert_int_equal(piece[0].seg_id, seg.id);
		assert_int_equal(piece[0].seg_offset, 0);
		/* The churning one is there, whole, or not at all. */
		rc = xrma_rwin_lookup(p.rwin[1], 4 * P, P, RW, piece, 2, &count);
		if (rc == 0) {
			assert_int_equal(count, 1);
			assert_int_equal(piece[0].seg_id, seg.id);
			assert_int_equal(piece[0].seg_offset, P);
			assert_int_equal(piece[0].len, P);
			seen++;
		} else {
			assert_rc(rc, XRMA_ENXIO);
			missed++;
		}
	}
	assert_int_equal(fixture_join(thread, FIXTURE_TIMEOUT_MS * 10, NULL), 0);
	assert_rc(c.rc, 0);
	assert_int_equal(seen + missed, CHURN_ROUNDS);
	pair_close(&p);
	assert_rc(fixture_seg_close(&seg), 0);
}

struct waiter {
	struct xrma_rwin *rwin;
	uint64_t mark;
	pid_t tid;
	int rc;
};

static void *wait_main(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->tid, fixture_gettid(), __ATOMIC_RELEASE);
	w->rc = xrma_rwin_peer_wait(w->rwin, w->mark, FIXTURE_TIMEOUT_MS * 5);
	return NULL;
}

static pid_t waiter_tid(struct waiter *w)
{
	pid_t tid;

	while (!(tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE)))
		sched_yield();
	return tid;
}

/* b fences on a's transfers: a mark already done returns, a later one waits for a's post. */
static void test_rwin_peer_fence(void **state)
{
	struct xrma_rwin_piece piece;
	struct fixture_seg dst, src;
	struct xrma_rseg *rseg;
	struct xrma_iov iov;
	struct waiter w = { 0 };
	struct pair p;
	pthread_t thread;
	uint64_t mark = 99, own;
	size_t count;

	(void)state;
	pair_open(&p);
	assert_rc(fixture_seg_make(fx.ctx[1], P, XRMA_ACCESS_ALL, true, 0, &dst), 0);
	assert_rc(fixture_seg_make(fx.ctx[0], P, XRMA_ACCESS_ALL, false, 5, &src), 0);
	add_at(p.rwin[1], &dst, 0, P, 0, RW);
	assert_rc(xrma_rwin_sweep(p.rwin[0], false), 0);
	assert_rc(xrma_rwin_lookup(p.rwin[0], 0, P, XRMA_RWIN_PROT_WRITE, &piece, 1, &count), 0);
	assert_rc(xrma_rwin_import(p.rwin[0], &piece, &rseg), 0);
	/* Nothing posted yet: mark 0, and waiting on it returns at once. */
	assert_rc(xrma_rwin_peer_mark(p.rwin[1], &mark), 0);
	assert_int_equal(mark, 0);
	assert_rc(xrma_rwin_peer_wait(p.rwin[1], mark, 0), 0);
	/* The next mark is a's next post: b sleeps in the kernel until it completed. */
	w.rwin = p.rwin[1];
	w.mark = 1;
	w.rc = 1;
	assert_int_equal(pthread_create(&thread, NULL, wait_main, &w), 0);
	assert_int_equal(fixture_wait_blocked(waiter_tid(&w), FIXTURE_TIMEOUT_MS), 0);
	iov = (struct xrma_iov){ .seg = src.seg, .offset = 0, .len = P };
	assert_rc(xrma_dmaq_post(p.dmaq[0], XRMA_RMA_WRITE, &iov, 1, rseg, 0, P, 0, XRMA_RMA_SYNC), 0);
	assert_int_equal(fixture_join(thread, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	assert_rc(w.rc, 0);
	assert_rc(xrma_fence_mark(p.dmaq[0], &own), 0);
	assert_rc(xrma_rwin_peer_mark(p.rwin[1], &mark), 0);
	assert_int_equal(mark, own);
	/* The data was there when the fence passed. */
	assert_int_equal(fixture_pattern_check(dst.addr, P, 5, 0), FIXTURE_MATCH);
	/* A mark never posted, with a bound: it times out. */
	assert_rc(xrma_rwin_peer_wait(p.rwin[1], mark + 1, FIXTURE_SHORT_MS), XRMA_ETIMEDOUT);
	pair_close(&p);
	assert_rc(fixture_seg_close(&dst), 0);
	assert_rc(fixture_seg_close(&src), 0);
}

/* The peer closes its end: a fence waiting on it ends with ECONNRESET, imports all close. */
static void test_rwin_peer_death(void **state)
{
	struct xrma_rwin_piece piece;
	struct fixture_seg seg;
	struct xrma_rseg *rseg;
	struct waiter w = { 0 };
	struct pair p;
	pthread_t thread;
	size_t count, before;

	(void)state;
	pair_open(&p);
	assert_rc(fixture_seg_make(fx.ctx[0], P, XRMA_ACCESS_ALL, true, 0, &seg), 0);
	add_at(p.rwin[0], &seg, 0, P, 0, RW);
	before = fixture_count(fx.ctx[1]);
	assert_rc(xrma_rwin_sweep(p.rwin[1], false), 0);
	assert_rc(xrma_rwin_lookup(p.rwin[1], 0, P, 0, &piece, 1, &count), 0);
	assert_rc(xrma_rwin_import(p.rwin[1], &piece, &rseg), 0);
	w.rwin = p.rwin[1];
	w.mark = 1;
	w.rc = 1;
	assert_int_equal(pthread_create(&thread, NULL, wait_main, &w), 0);
	assert_int_equal(fixture_wait_blocked(waiter_tid(&w), FIXTURE_TIMEOUT_MS), 0);
	/* a goes: its space, then its end of the connection. */
	assert_rc(xrma_rwin_close(p.rwin[0]), 0);
	p.rwin[0] = NULL;
	assert_rc(xrma_conn_close(p.conn[0]), 0);
	p.conn[0] = NULL;
	assert_int_equal(fixture_join(thread, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	assert_rc(w.rc, XRMA_ECONNRESET);
	assert_rc(xrma_rwin_peer_wait(p.rwin[1], 1, 0), XRMA_ECONNRESET);
	/* What b imported of a's goes with a sweep of everything. */
	assert_rc(xrma_rwin_sweep(p.rwin[1], true), 0);
	assert_int_equal(fixture_count(fx.ctx[1]), before);
	pair_close(&p);
	assert_rc(fixture_seg_close(&seg), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_rwin_bad_arguments),
		T(test_rwin_lookup_by_offset),
		T(test_rwin_appear_disappear),
		T(test_rwin_concurrent_change),
		T(test_rwin_peer_fence),
		T(test_rwin_peer_death),
	};
	int failed;

	failed = cmocka_run_group_tests_name("rwin_mapped", tests, rwin_group_up, rwin_group_down);
	failed += cmocka_run_group_tests_name("rwin_copy", tests, copy_group_up, rwin_group_down);
	return failed;
}
