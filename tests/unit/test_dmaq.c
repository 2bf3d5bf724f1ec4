/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_dmaq.c: DMA queues (include/xrma/dmaq.h) with the uDAPL rules:
 * scatter / gather fill order with canaries, cookies (duplicates allowed),
 * SUPPRESS, UNSIGNALLED, SYNC, FENCE and ORDERED, every post-time error with
 * proof that it changed nothing, poll / wait / drain / abort on an idle queue,
 * and many threads posting at once. Held-in-flight cases (queue full, abort,
 * close while busy) need the loopback gate and live in test_provider.c.
 * Node 1 posts; node 2 owns the remote segment.
 */
#include "tests/helpers/fixture.h"

#include <string.h>

#define RW (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)
#define LOCAL_LEN (32 * FIXTURE_PAGE)
#define REMOTE_LEN (32 * FIXTURE_PAGE)
/* Longer than the asynchronous transfers a poster runs itself (64 KiB): the engine runs it. */
#define ENGINE_LEN (20 * FIXTURE_PAGE)
#define CANARY 0xaa
#define LCANARY 0x55

static struct fixture fx;

static int dmaq_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "dmaq", 2);
}

static int dmaq_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

struct rig {
	struct fixture_seg local;    /* node 1 */
	struct fixture_seg remote;   /* node 2, exported */
	struct xrma_rseg *rseg;      /* node 1's import of remote */
	struct xrma_dmaq *q;
};

static void rig_open_ex(struct rig *r, uint32_t depth, uint32_t qflags, uint32_t local_access,
			uint32_t import_access)
{
	assert_rc(fixture_seg_make(fx.ctx[0], LOCAL_LEN, local_access, false, 0, &r->local), 0);
	fixture_fill(r->local.addr, LOCAL_LEN, LCANARY);
	assert_rc(fixture_seg_make(fx.ctx[1], REMOTE_LEN, XRMA_ACCESS_ALL, true, 0, &r->remote), 0);
	fixture_fill(r->remote.addr, REMOTE_LEN, CANARY);
	assert_rc(xrma_rseg_open(fx.ctx[0], fx.node[1], r->remote.id, import_access, 0,
				 FIXTURE_TIMEOUT_MS, &r->rseg), 0);
	assert_rc(xrma_dmaq_open(fx.ctx[0], depth, qflags, &r->q), 0);
}

static void rig_open(struct rig *r)
{
	rig_open_ex(r, 16, 0, XRMA_ACCESS_ALL, RW);
}

static void rig_close(struct rig *r)
{
	assert_rc(xrma_dmaq_close(r->q), 0);
	assert_rc(xrma_rseg_close(r->rseg), 0);
	assert_int_equal(fixture_wait_importers(r->remote.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&r->remote), 0);
	assert_rc(fixture_seg_close(&r->local), 0);
}

static struct xrma_iov iov1(struct rig *r, size_t offset, size_t len)
{
	struct xrma_iov v = { .seg = r->local.seg, .offset = offset, .len = len };

	return v;
}

static uint8_t *lbuf(struct rig *r)
{
	return r->local.addr;
}

static uint8_t *rbuf(struct rig *r)
{
	return r->remote.addr;
}

static size_t outstanding(struct rig *r)
{
	size_t n = 99;

	assert_rc(xrma_dmaq_outstanding(r->q, &n), 0);
	return n;
}

/* The queue is idle, holds no entry, and the remote memory is all canary. */
static void assert_untouched(struct rig *r)
{
	struct xrma_completion c;

	assert_int_equal(outstanding(r), 0);
	assert_rc(xrma_dmaq_poll(r->q, &c, 1), 0);
	assert_int_equal(fixture_check(rbuf(r), REMOTE_LEN, CANARY), FIXTURE_MATCH);
}

/* ------------------------------------------------------------------ open and close */

static void test_dmaq_open_depth_bounds_accepted(void **state)
{
	struct xrma_dmaq *a = NULL, *b = NULL;
	size_t n = 99;

	(void)state;
	assert_rc(xrma_dmaq_open(fx.ctx[0], 1, 0, &a), 0);
	assert_rc(xrma_dmaq_open(fx.ctx[0], 65536, XRMA_DMAQ_UNSIGNALLED, &b), 0);
	assert_rc(xrma_dmaq_outstanding(a, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(fixture_count(fx.ctx[0]), 2);
	assert_rc(xrma_dmaq_close(a), 0);
	assert_rc(xrma_dmaq_close(b), 0);
	assert_rc(xrma_dmaq_close(a), XRMA_EHANDLE);
}

static void test_dmaq_open_bad_args_return_einval(void **state)
{
	struct xrma_dmaq *q = NULL;

	(void)state;
	assert_rc(xrma_dmaq_open(fx.ctx[0], 0, 0, &q), XRMA_EINVAL);
	assert_rc(xrma_dmaq_open(fx.ctx[0], 65537, 0, &q), XRMA_EINVAL);
	assert_rc(xrma_dmaq_open(fx.ctx[0], UINT32_MAX, 0, &q), XRMA_EINVAL);
	assert_rc(xrma_dmaq_open(fx.ctx[0], 8, 1u << 5, &q), XRMA_EINVAL);
	assert_rc(xrma_dmaq_open(fx.ctx[0], 8, 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_dmaq_open(FIXTURE_FORGED(struct xrma_ctx), 8, 0, &q), XRMA_EHANDLE);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_dmaq_close_with_unpolled_entries_succeeds(void **state)
{
	struct rig r;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	v = iov1(&r, 0, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, 0), 0);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	/* Completions stay queued after drain, but nothing is outstanding. */
	assert_int_equal(outstanding(&r), 0);
	rig_close(&r);
}

/* ------------------------------------------------------------------ transfers */

static void test_dmaq_post_write_sync_copies_no_entry(void **state)
{
	struct rig r;
	struct xrma_completion c;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	fixture_pattern(lbuf(&r), LOCAL_LEN, 30, 0);
	v = iov1(&r, 0, 1000);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 100, 1000, 7, XRMA_RMA_SYNC), 0);
	assert_int_equal(fixture_check(rbuf(&r), 100, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(rbuf(&r) + 100, 1000, 30, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_check(rbuf(&r) + 1100, REMOTE_LEN - 1100, CANARY), FIXTURE_MATCH);
	assert_rc(xrma_dmaq_poll(r.q, &c, 1), 0);
	assert_int_equal(outstanding(&r), 0);
	rig_close(&r);
}

static void test_dmaq_post_read_sync_copies_no_entry(void **state)
{
	struct rig r;
	struct xrma_completion c;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	fixture_pattern(rbuf(&r), REMOTE_LEN, 31, 0);
	v = iov1(&r, 8, 3000);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, &v, 1, r.rseg, FIXTURE_PAGE, 3000, 7,
				 XRMA_RMA_SYNC), 0);
	assert_int_equal(fixture_check(lbuf(&r), 8, LCANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(lbuf(&r) + 8, 3000, 31, FIXTURE_PAGE), FIXTURE_MATCH);
	assert_int_equal(fixture_check(lbuf(&r) + 3008, LOCAL_LEN - 3008, LCANARY), FIXTURE_MATCH);
	assert_rc(xrma_dmaq_poll(r.q, &c, 1), 0);
	rig_close(&r);
}

static void test_dmaq_post_write_async_completion_carries_cookie(void **state)
{
	struct rig r;
	struct xrma_completion c;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	fixture_pattern(lbuf(&r), LOCAL_LEN, 32, 0);
	v = iov1(&r, 0, REMOTE_LEN);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, REMOTE_LEN,
				 0x0123456789abcdefull, 0), 0);
	memset(&c, 0, sizeof(c));
	assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.cookie, 0x0123456789abcdefull);
	assert_int_equal(c.status, 0);
	assert_int_equal(c.op, XRMA_RMA_WRITE);
	assert_int_equal(c.len, REMOTE_LEN);
	assert_int_equal(fixture_pattern_check(rbuf(&r), REMOTE_LEN, 32, 0), FIXTURE_MATCH);
	assert_int_equal(outstanding(&r), 0);
	assert_rc(xrma_dmaq_poll(r.q, &c, 1), 0);
	rig_close(&r);
}

static void test_dmaq_post_read_async_completion_reports_read(void **state)
{
	struct rig r;
	struct xrma_completion c;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	fixture_pattern(rbuf(&r), REMOTE_LEN, 33, 0);
	v = iov1(&r, 0, 512);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, &v, 1, r.rseg, 512, 512, 99, 0), 0);
	memset(&c, 0, sizeof(c));
	assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.cookie, 99);
	assert_int_equal(c.status, 0);
	assert_int_equal(c.op, XRMA_RMA_READ);
	assert_int_equal(c.len, 512);
	assert_int_equal(fixture_pattern_check(lbuf(&r), 512, 33, 512), FIXTURE_MATCH);
	assert_int_equal(fixture_check(lbuf(&r) + 512, LOCAL_LEN - 512, LCANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_dmaq_post_read_scatter_fills_in_order(void **state)
{
	struct rig r;
	struct xrma_completion c;
	struct xrma_iov v[4];
	size_t i;

	(void)state;
	rig_open(&r);
	fixture_pattern(rbuf(&r), REMOTE_LEN, 34, 0);
	/* Four 100-byte entries with 100-byte canary gaps between them. */
	for (i = 0; i < 4; i++)
		v[i] = iov1(&r, i * 200, 100);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, v, 4, r.rseg, 0, 250, 5, 0), 0);
	assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.status, 0);
	assert_int_equal(c.len, 250);
	/* First two full, third 50 bytes, fourth untouched. */
	assert_int_equal(fixture_pattern_check(lbuf(&r) + 0, 100, 34, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(lbuf(&r) + 200, 100, 34, 100), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(lbuf(&r) + 400, 50, 34, 200), FIXTURE_MATCH);
	assert_int_equal(fixture_check(lbuf(&r) + 450, 50, LCANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(lbuf(&r) + 600, 100, LCANARY), FIXTURE_MATCH);
	/* Gaps and the rest untouched. */
	assert_int_equal(fixture_check(lbuf(&r) + 100, 100, LCANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(lbuf(&r) + 300, 100, LCANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(lbuf(&r) + 500, 100, LCANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(lbuf(&r) + 700, LOCAL_LEN - 700, LCANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_dmaq_post_write_gather_takes_in_order(void **state)
{
	struct rig r;
	struct xrma_completion c;
	struct xrma_iov v[4];
	size_t i;

	(void)state;
	rig_open(&r);
	for (i = 0; i < 4; i++) {
		/* Entry i holds pattern positions 100*i .. 100*i+99, in reverse placement. */
		fixture_pattern(lbuf(&r) + (3 - i) * 200, 100, 35, i * 100);
		v[i] = iov1(&r, (3 - i) * 200, 100);
	}
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, v, 4, r.rseg, 1000, 250, 6, 0), 0);
	assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.status, 0);
	assert_int_equal(c.len, 250);
	assert_int_equal(fixture_check(rbuf(&r), 1000, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(rbuf(&r) + 1000, 250, 35, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_check(rbuf(&r) + 1250, REMOTE_LEN - 1250, CANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_dmaq_post_iov_max_entries_accepted(void **state)
{
	struct rig r;
	struct xrma_iov v[XRMA_IOV_MAX + 1];
	size_t i;

	(void)state;
	rig_open(&r);
	fixture_pattern(lbuf(&r), LOCAL_LEN, 36, 0);
	for (i = 0; i <= XRMA_IOV_MAX; i++)
		v[i] = iov1(&r, i * 16, 16);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, v, XRMA_IOV_MAX + 1, r.rseg, 0, 16, 1,
				 XRMA_RMA_SYNC), XRMA_EINVAL);
	assert_untouched(&r);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, v, XRMA_IOV_MAX, r.rseg, 0, XRMA_IOV_MAX * 16, 1,
				 XRMA_RMA_SYNC), 0);
	assert_int_equal(fixture_pattern_check(rbuf(&r), XRMA_IOV_MAX * 16, 36, 0), FIXTURE_MATCH);
	rig_close(&r);
}

/*
 * A synchronous write posted behind asynchronous ones (run by the engine when
 * they are still in flight, not by the poster: they are too long for the
 * poster to run) returns only once its bytes are there; the asynchronous ones
 * still complete, each once. Four entries: the most a synchronous job keeps
 * on the poster's stack.
 */
static void test_dmaq_post_sync_behind_async_completes_in_place(void **state)
{
	struct rig r;
	struct xrma_completion c;
	struct xrma_iov v[4], whole;
	size_t i;

	(void)state;
	rig_open(&r);
	fixture_pattern(lbuf(&r), LOCAL_LEN, 37, 0);
	whole = iov1(&r, 0, ENGINE_LEN);
	for (i = 0; i < 3; i++)
		assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &whole, 1, r.rseg, 0, ENGINE_LEN, i, 0), 0);
	for (i = 0; i < 4; i++)
		v[i] = iov1(&r, ENGINE_LEN + i * 100, 100);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, v, 4, r.rseg, ENGINE_LEN, 400, 9, XRMA_RMA_SYNC), 0);
	assert_int_equal(fixture_pattern_check(rbuf(&r) + ENGINE_LEN, 400, 37, ENGINE_LEN), FIXTURE_MATCH);
	for (i = 0; i < 3; i++) {
		assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(c.status, 0);
	}
	assert_rc(xrma_dmaq_poll(r.q, &c, 1), 0);
	assert_int_equal(fixture_pattern_check(rbuf(&r), ENGINE_LEN, 37, 0), FIXTURE_MATCH);
	assert_int_equal(outstanding(&r), 0);
	rig_close(&r);
}

/*
 * A short asynchronous write on an idle queue is run by the poster: when the
 * post returns the bytes are there and the completion, cookie and all, can be
 * polled without waiting; a suppressed one leaves no entry and a fence mark
 * after it has passed. Nothing else in the queue moved.
 */
static void test_dmaq_post_async_short_idle_queue_done_when_post_returns(void **state)
{
	struct xrma_completion c;
	struct xrma_iov v;
	struct rig r;
	uint64_t mark = 0;

	(void)state;
	rig_open(&r);
	fixture_pattern(lbuf(&r), LOCAL_LEN, 41, 0);
	v = iov1(&r, 0, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 0x77, 0), 0);
	assert_int_equal(fixture_pattern_check(rbuf(&r), 64, 41, 0), FIXTURE_MATCH);
	assert_int_equal(outstanding(&r), 0);
	memset(&c, 0, sizeof(c));
	assert_count(xrma_dmaq_poll(r.q, &c, 1), 1);
	assert_int_equal(c.cookie, 0x77);
	assert_int_equal(c.status, 0);
	assert_int_equal(c.op, XRMA_RMA_WRITE);
	assert_int_equal(c.len, 64);
	v = iov1(&r, 64, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 64, 64, 0x78, XRMA_RMA_SUPPRESS), 0);
	assert_rc(xrma_fence_mark(r.q, &mark), 0);
	assert_count(xrma_fence_test(r.q, mark), 1);
	assert_rc(xrma_dmaq_poll(r.q, &c, 1), 0);
	assert_int_equal(fixture_pattern_check(rbuf(&r), 128, 41, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_check(rbuf(&r) + 128, REMOTE_LEN - 128, CANARY), FIXTURE_MATCH);
	rig_close(&r);
}

/* Take n completions (waiting for each) into out. */
static void take(struct rig *r, struct xrma_completion *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		assert_rc(xrma_dmaq_wait(r->q, &out[i], FIXTURE_TIMEOUT_MS), 0);
}

static void test_dmaq_post_cookies_round_trip_duplicates_kept(void **state)
{
	const uint64_t cookies[5] = { 0xa, 0xb, 0xb, 0, UINT64_MAX };
	size_t seen[5] = { 0 };
	struct xrma_completion c[5], extra;
	struct rig r;
	struct xrma_iov v;
	size_t i, j;

	(void)state;
	rig_open(&r);
	for (i = 0; i < 5; i++) {
		v = iov1(&r, i * 64, 64);
		assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, i * 64, 64, cookies[i], 0), 0);
	}
	take(&r, c, 5);
	for (i = 0; i < 5; i++) {
		assert_int_equal(c[i].status, 0);
		for (j = 0; j < 5; j++)
			if (c[i].cookie == cookies[j] && seen[j] == 0) {
				seen[j] = 1;
				break;
			}
		if (j == 5)
			fail_msg("unexpected or repeated cookie %#llx", (unsigned long long)c[i].cookie);
	}
	assert_rc(xrma_dmaq_poll(r.q, &extra, 1), 0);
	rig_close(&r);
}

static void test_dmaq_post_suppress_success_no_entry(void **state)
{
	struct rig r;
	struct xrma_completion c;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	fixture_pattern(lbuf(&r), LOCAL_LEN, 37, 0);
	v = iov1(&r, 0, 128);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 128, 1, XRMA_RMA_SUPPRESS), 0);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_dmaq_poll(r.q, &c, 1), 0);
	assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_SHORT_MS), XRMA_ETIMEDOUT);
	assert_int_equal(fixture_pattern_check(rbuf(&r), 128, 37, 0), FIXTURE_MATCH);
	/* The next unsuppressed operation still gets its entry. */
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 128, 128, 2, 0), 0);
	assert_rc(xrma_dmaq_wait(r.q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.cookie, 2);
	rig_close(&r);
}

static void test_dmaq_post_unsignalled_needs_queue_flag(void **state)
{
	struct rig r;
	struct xrma_completion c;
	struct xrma_dmaq *uq;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	fixture_pattern(lbuf(&r), LOCAL_LEN, 38, 0);
	v = iov1(&r, 0, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, XRMA_RMA_UNSIGNALLED),
		  XRMA_EINVAL);
	assert_untouched(&r);
	assert_rc(xrma_dmaq_open(fx.ctx[0], 8, XRMA_DMAQ_UNSIGNALLED, &uq), 0);
	assert_rc(xrma_dmaq_post(uq, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 3, XRMA_RMA_UNSIGNALLED), 0);
	assert_rc(xrma_dmaq_drain(uq, FIXTURE_TIMEOUT_MS), 0);
	/* Unsignalled still leaves an entry, just no wake-up. */
	memset(&c, 0, sizeof(c));
	assert_count(xrma_dmaq_poll(uq, &c, 1), 1);
	assert_int_equal(c.cookie, 3);
	assert_int_equal(c.status, 0);
	assert_int_equal(fixture_pattern_check(rbuf(&r), 64, 38, 0), FIXTURE_MATCH);
	assert_rc(xrma_dmaq_close(uq), 0);
	rig_close(&r);
}

static void test_dmaq_post_sync_with_suppress_or_unsignalled_einval(void **state)
{
	struct rig r;
	struct xrma_iov v;

	(void)state;
	rig_open_ex(&r, 8, XRMA_DMAQ_UNSIGNALLED, XRMA_ACCESS_ALL, RW);
	v = iov1(&r, 0, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1,
				 XRMA_RMA_SYNC | XRMA_RMA_SUPPRESS), XRMA_EINVAL);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1,
				 XRMA_RMA_SYNC | XRMA_RMA_UNSIGNALLED), XRMA_EINVAL);
	assert_untouched(&r);
	rig_close(&r);
}

static void test_dmaq_post_fence_and_ordered_accepted_in_order(void **state)
{
	struct rig r;
	struct xrma_completion c[3];
	struct xrma_iov a, b;

	(void)state;
	rig_open(&r);
	fixture_fill(lbuf(&r), 256, 0x01);
	fixture_fill(lbuf(&r) + 256, 256, 0x02);
	a = iov1(&r, 0, 256);
	b = iov1(&r, 256, 256);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &a, 1, r.rseg, 0, 256, 1, 0), 0);
	/* Fenced behind the first: its bytes land last. */
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &b, 1, r.rseg, 0, 256, 2, XRMA_RMA_FENCE), 0);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &a, 1, r.rseg, 256, 256, 3,
				 XRMA_RMA_ORDERED | XRMA_RMA_FENCE), 0);
	take(&r, c, 3);
	assert_int_equal(c[0].status | c[1].status | c[2].status, 0);
	assert_int_equal(fixture_check(rbuf(&r), 256, 0x02), FIXTURE_MATCH);
	assert_int_equal(fixture_check(rbuf(&r) + 256, 256, 0x01), FIXTURE_MATCH);
	rig_close(&r);
}

/* ------------------------------------------------------------------ post-time errors */

static void test_dmaq_post_bad_flags_returns_einval(void **state)
{
	struct rig r;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	v = iov1(&r, 0, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, 0x1000), XRMA_EINVAL);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, 0x02), XRMA_EINVAL);
	assert_untouched(&r);
	rig_close(&r);
}

static void test_dmaq_post_bad_vector_or_op_returns_einval(void **state)
{
	struct rig r;
	struct xrma_iov v[2];

	(void)state;
	rig_open(&r);
	v[0] = iov1(&r, 0, 64);
	v[1] = iov1(&r, 64, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, NULL, 1, r.rseg, 0, 64, 1, 0), XRMA_EINVAL);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, v, 0, r.rseg, 0, 64, 1, 0), XRMA_EINVAL);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, v, 2, r.rseg, 0, 0, 1, 0), XRMA_EINVAL);
	assert_rc(xrma_dmaq_post(r.q, (enum xrma_rma_op)0, v, 2, r.rseg, 0, 64, 1, 0), XRMA_EINVAL);
	assert_rc(xrma_dmaq_post(r.q, (enum xrma_rma_op)3, v, 2, r.rseg, 0, 64, 1, 0), XRMA_EINVAL);
	assert_untouched(&r);
	rig_close(&r);
}

static void test_dmaq_post_vector_shorter_than_len_returns_elength(void **state)
{
	struct rig r;
	struct xrma_iov v[2];

	(void)state;
	rig_open(&r);
	v[0] = iov1(&r, 0, 60);
	v[1] = iov1(&r, 100, 40);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, v, 2, r.rseg, 0, 101, 1, 0), XRMA_ELENGTH);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, v, 2, r.rseg, 0, 200, 1, XRMA_RMA_SYNC),
		  XRMA_ELENGTH);
	assert_untouched(&r);
	assert_int_equal(fixture_check(lbuf(&r), LOCAL_LEN, LCANARY), FIXTURE_MATCH);
	/* Exactly the vector's length is fine. */
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, v, 2, r.rseg, 0, 100, 1, XRMA_RMA_SYNC), 0);
	rig_close(&r);
}

static void test_dmaq_post_local_entry_outside_seg_returns_erange(void **state)
{
	struct rig r;
	struct xrma_iov v[2];

	(void)state;
	rig_open(&r);
	v[0] = iov1(&r, 0, 64);
	v[1] = iov1(&r, LOCAL_LEN - 10, 20);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, v, 2, r.rseg, 0, 84, 1, 0), XRMA_ERANGE);
	v[1] = iov1(&r, LOCAL_LEN, 1);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, v, 2, r.rseg, 0, 65, 1, 0), XRMA_ERANGE);
	v[1] = iov1(&r, SIZE_MAX - 4, 16);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, v, 2, r.rseg, 0, 80, 1, 0), XRMA_ERANGE);
	assert_untouched(&r);
	assert_int_equal(fixture_check(lbuf(&r), LOCAL_LEN, LCANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_dmaq_post_remote_range_outside_returns_erange(void **state)
{
	struct rig r;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	v = iov1(&r, 0, 256);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, REMOTE_LEN - 100, 101, 1, 0),
		  XRMA_ERANGE);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, REMOTE_LEN, 1, 1, 0), XRMA_ERANGE);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, &v, 1, r.rseg, SIZE_MAX - 10, 100, 1, 0),
		  XRMA_ERANGE);
	assert_untouched(&r);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, REMOTE_LEN - 100, 100, 1,
				 XRMA_RMA_SYNC), 0);
	rig_close(&r);
}

static void test_dmaq_post_local_rights_missing_returns_eacces(void **state)
{
	struct rig r;
	struct fixture_seg ro, wo;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_LOCAL_READ, false, 1, &ro), 0);
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_LOCAL_WRITE, false, 0, &wo), 0);
	fixture_fill(wo.addr, FIXTURE_PAGE, LCANARY);
	/* A read lands in local memory: needs LOCAL_WRITE. */
	v = (struct xrma_iov){ .seg = ro.seg, .offset = 0, .len = 64 };
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, &v, 1, r.rseg, 0, 64, 1, 0), XRMA_EACCES);
	assert_int_equal(fixture_pattern_check(ro.addr, FIXTURE_PAGE, 1, 0), FIXTURE_MATCH);
	/* A write takes from local memory: needs LOCAL_READ. */
	v.seg = wo.seg;
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, 0), XRMA_EACCES);
	assert_untouched(&r);
	/* The allowed directions work. */
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, &v, 1, r.rseg, 0, 64, 1, XRMA_RMA_SYNC), 0);
	assert_int_equal(fixture_check(wo.addr, 64, CANARY), FIXTURE_MATCH);
	v.seg = ro.seg;
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, XRMA_RMA_SYNC), 0);
	assert_rc(fixture_seg_close(&ro), 0);
	assert_rc(fixture_seg_close(&wo), 0);
	rig_close(&r);
}

static void test_dmaq_post_remote_rights_missing_returns_eacces(void **state)
{
	struct rig r;
	struct xrma_rseg *wo;
	struct xrma_iov v;

	(void)state;
	rig_open_ex(&r, 16, 0, XRMA_ACCESS_ALL, XRMA_ACCESS_REMOTE_READ);
	v = iov1(&r, 0, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, 0), XRMA_EACCES);
	assert_untouched(&r);
	assert_rc(xrma_rseg_open(fx.ctx[0], fx.node[1], r.remote.id, XRMA_ACCESS_REMOTE_WRITE, 0,
				 FIXTURE_TIMEOUT_MS, &wo), 0);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, &v, 1, wo, 0, 64, 1, 0), XRMA_EACCES);
	assert_untouched(&r);
	assert_int_equal(fixture_check(lbuf(&r), LOCAL_LEN, LCANARY), FIXTURE_MATCH);
	assert_rc(xrma_rseg_close(wo), 0);
	rig_close(&r);
}

static void test_dmaq_post_bad_handles_return_ehandle(void **state)
{
	struct rig r;
	struct xrma_iov v;
	struct xrma_rseg *closed;

	(void)state;
	rig_open(&r);
	v = iov1(&r, 0, 64);
	assert_rc(xrma_dmaq_post(FIXTURE_FORGED(struct xrma_dmaq), XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64,
				 1, 0), XRMA_EHANDLE);
	assert_rc(xrma_dmaq_post((struct xrma_dmaq *)r.rseg, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, 0),
		  XRMA_EHANDLE);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, (struct xrma_rseg *)r.local.seg, 0, 64, 1,
				 0), XRMA_EHANDLE);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, FIXTURE_FORGED(struct xrma_rseg), 0, 64, 1,
				 0), XRMA_EHANDLE);
	v.seg = FIXTURE_FORGED(struct xrma_seg);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, 0), XRMA_EHANDLE);
	v.seg = (struct xrma_seg *)r.q;
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, 0), XRMA_EHANDLE);
	/* NULL handles, with the queue's holds empty: a free hold must not stand for them. */
	v.seg = NULL;
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, 0), XRMA_EHANDLE);
	v = iov1(&r, 0, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, NULL, 0, 64, 1, 0), XRMA_EHANDLE);
	assert_rc(xrma_rseg_open(fx.ctx[0], fx.node[1], r.remote.id, RW, 0, FIXTURE_TIMEOUT_MS,
				 &closed), 0);
	assert_rc(xrma_rseg_close(closed), 0);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, closed, 0, 64, 1, 0), XRMA_EHANDLE);
	assert_untouched(&r);
	rig_close(&r);
}

static void test_dmaq_post_lost_remote_returns_elost(void **state)
{
	struct rig r;
	struct xrma_event ev;
	struct xrma_iov v;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_seg_unexport(r.remote.seg, XRMA_UNEXPORT_FORCE), 0);
	assert_rc(xrma_rseg_wait_event(r.rseg, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_LOST);
	v = iov1(&r, 0, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 1, 0), XRMA_ELOST);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, &v, 1, r.rseg, 0, 64, 1, XRMA_RMA_SYNC), XRMA_ELOST);
	assert_untouched(&r);
	rig_close(&r);
}

/* ------------------------------------------------------------------ idle queue calls */

static void test_dmaq_idle_queue_wait_times_out_drain_abort_zero(void **state)
{
	struct xrma_completion c;
	struct xrma_dmaq *q;
	uint64_t start;

	(void)state;
	assert_rc(xrma_dmaq_open(fx.ctx[0], 4, 0, &q), 0);
	start = fixture_now_ms();
	assert_rc(xrma_dmaq_wait(q, &c, FIXTURE_SHORT_MS), XRMA_ETIMEDOUT);
	assert_true(fixture_now_ms() - start >= FIXTURE_SHORT_MS - 5);
	assert_rc(xrma_dmaq_wait(q, &c, 0), XRMA_ETIMEDOUT);
	assert_rc(xrma_dmaq_drain(q, 0), 0);
	assert_rc(xrma_dmaq_abort(q), 0);
	assert_rc(xrma_dmaq_poll(q, &c, 4), 0);
	assert_rc(xrma_dmaq_close(q), 0);
}

static void test_dmaq_poll_wait_bad_args_return_errors(void **state)
{
	struct xrma_completion c;
	struct xrma_dmaq *q;
	size_t n;

	(void)state;
	assert_rc(xrma_dmaq_open(fx.ctx[0], 4, 0, &q), 0);
	assert_rc(xrma_dmaq_poll(q, NULL, 1), XRMA_EINVAL);
	assert_rc(xrma_dmaq_poll(q, &c, 0), 0);
	assert_rc(xrma_dmaq_wait(q, NULL, 0), XRMA_EINVAL);
	assert_rc(xrma_dmaq_outstanding(q, NULL), XRMA_EINVAL);
	assert_rc(xrma_dmaq_close(q), 0);
	assert_rc(xrma_dmaq_poll(q, &c, 1), XRMA_EHANDLE);
	assert_rc(xrma_dmaq_wait(q, &c, 0), XRMA_EHANDLE);
	assert_rc(xrma_dmaq_drain(q, 0), XRMA_EHANDLE);
	assert_rc(xrma_dmaq_abort(q), XRMA_EHANDLE);
	assert_rc(xrma_dmaq_outstanding(q, &n), XRMA_EHANDLE);
	assert_rc(xrma_dmaq_close(q), XRMA_EHANDLE);
	assert_rc(xrma_dmaq_close(FIXTURE_FORGED(struct xrma_dmaq)), XRMA_EHANDLE);
	assert_rc(xrma_dmaq_close((struct xrma_dmaq *)fx.ctx[0]), XRMA_EHANDLE);
	assert_null_handle_rc(xrma_dmaq_close(NULL));
}

static void test_dmaq_poll_returns_up_to_max(void **state)
{
	struct rig r;
	struct xrma_completion c[8];
	struct xrma_iov v;
	size_t i;

	(void)state;
	rig_open(&r);
	v = iov1(&r, 0, 32);
	for (i = 0; i < 5; i++)
		assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, i * 32, 32, i, 0), 0);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	assert_count(xrma_dmaq_poll(r.q, c, 2), 2);
	assert_count(xrma_dmaq_poll(r.q, c, 8), 3);
	assert_rc(xrma_dmaq_poll(r.q, c, 8), 0);
	rig_close(&r);
}

/* ------------------------------------------------------------------ threads */

struct waiter {
	struct xrma_dmaq *q;
	struct xrma_completion c;
	pid_t tid;
	int rc;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->tid, fixture_gettid(), __ATOMIC_RELEASE);
	w->rc = xrma_dmaq_wait(w->q, &w->c, FIXTURE_TIMEOUT_MS);
	return NULL;
}

static void test_dmaq_wait_blocked_thread_woken_by_completion(void **state)
{
	struct waiter w;
	pthread_t thread;
	struct rig r;
	struct xrma_iov v;
	uint64_t end;

	(void)state;
	rig_open(&r);
	w = (struct waiter){ .q = r.q, .rc = 1 };
	assert_int_equal(pthread_create(&thread, NULL, waiter_main, &w), 0);
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS;
	while (!__atomic_load_n(&w.tid, __ATOMIC_ACQUIRE) && fixture_now_ms() < end)
		;
	assert_int_equal(fixture_wait_blocked(w.tid, FIXTURE_TIMEOUT_MS / 2), 0);
	v = iov1(&r, 0, 64);
	assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_WRITE, &v, 1, r.rseg, 0, 64, 0x77, 0), 0);
	assert_int_equal(fixture_join(thread, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	assert_rc(w.rc, 0);
	assert_int_equal(w.c.cookie, 0x77);
	rig_close(&r);
}

#define POST_THREADS 4
#define POSTS_PER_THREAD 200
#define POST_LEN 16

struct poster {
	struct rig *r;
	struct fixture_barrier *barrier;
	unsigned id;
	int rc;
};

static void *poster_main(void *arg)
{
	struct poster *p = arg;
	struct xrma_iov v;
	size_t i, slot;

	if ((p->rc = fixture_barrier_wait(p->barrier, FIXTURE_TIMEOUT_MS)))
		return NULL;
	for (i = 0; i < POSTS_PER_THREAD; i++) {
		slot = p->id * POSTS_PER_THREAD + i;
		v = iov1(p->r, slot * POST_LEN, POST_LEN);
		p->rc = xrma_dmaq_post(p->r->q, XRMA_RMA_WRITE, &v, 1, p->r->rseg, slot * POST_LEN,
				       POST_LEN, ((uint64_t)p->id << 32) | i, 0);
		if (p->rc)
			return NULL;
	}
	return NULL;
}

static void test_dmaq_post_many_threads_every_cookie_once(void **state)
{
	static uint8_t seen[POST_THREADS][POSTS_PER_THREAD];
	struct poster p[POST_THREADS];
	pthread_t threads[POST_THREADS];
	struct fixture_barrier barrier;
	struct xrma_completion c[64];
	struct rig r;
	size_t got = 0, i;
	uint64_t end;
	int n;

	(void)state;
	rig_open_ex(&r, 1024, 0, XRMA_ACCESS_ALL, RW);
	fixture_pattern(lbuf(&r), LOCAL_LEN, 40, 0);
	memset(seen, 0, sizeof(seen));
	fixture_barrier_init(&barrier, POST_THREADS);
	for (i = 0; i < POST_THREADS; i++) {
		p[i] = (struct poster){ .r = &r, .barrier = &barrier, .id = (unsigned)i };
		assert_int_equal(pthread_create(&threads[i], NULL, poster_main, &p[i]), 0);
	}
	for (i = 0; i < POST_THREADS; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	fixture_barrier_destroy(&barrier);
	for (i = 0; i < POST_THREADS; i++)
		assert_rc(p[i].rc, 0);
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS * 2;
	while (got < POST_THREADS * POSTS_PER_THREAD && fixture_now_ms() < end) {
		n = xrma_dmaq_poll(r.q, c, 64);
		assert_true(n >= 0);
		for (i = 0; i < (size_t)n; i++) {
			uint64_t id = c[i].cookie >> 32, k = c[i].cookie & 0xffffffffu;

			assert_int_equal(c[i].status, 0);
			assert_true(id < POST_THREADS && k < POSTS_PER_THREAD);
			assert_int_equal(seen[id][k], 0);
			seen[id][k] = 1;
		}
		got += (size_t)n;
		if (n == 0)
			assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	}
	assert_int_equal(got, POST_THREADS * POSTS_PER_THREAD);
	assert_int_equal(fixture_pattern_check(rbuf(&r), POST_THREADS * POSTS_PER_THREAD * POST_LEN,
					       40, 0), FIXTURE_MATCH);
	assert_int_equal(outstanding(&r), 0);
	rig_close(&r);
}

struct syncer {
	struct rig *r;
	struct xrma_dmaq *q;
	unsigned id;
	int rc;
};

static void *syncer_main(void *arg)
{
	struct syncer *s = arg;
	size_t base = s->id * 1024;   /* each thread its own kilobyte, both sides */
	struct xrma_iov v = { .seg = s->r->local.seg, .offset = base, .len = 1024 };
	int i;

	for (i = 0; i < 100; i++) {
		if ((s->rc = xrma_dmaq_post(s->q, XRMA_RMA_WRITE, &v, 1, s->r->rseg, base, 1024, 0,
					    XRMA_RMA_SYNC)))
			return NULL;
		if ((s->rc = xrma_dmaq_post(s->q, XRMA_RMA_READ, &v, 1, s->r->rseg, base, 1024, 0,
					    XRMA_RMA_SYNC)))
			return NULL;
	}
	return NULL;
}

static void test_dmaq_post_sync_concurrent_queues_succeed(void **state)
{
	struct syncer s[POST_THREADS];
	pthread_t threads[POST_THREADS];
	struct rig r;
	size_t i;

	(void)state;
	rig_open(&r);
	fixture_pattern(lbuf(&r), LOCAL_LEN, 41, 0);
	for (i = 0; i < POST_THREADS; i++) {
		s[i] = (struct syncer){ .r = &r, .id = (unsigned)i };
		assert_rc(xrma_dmaq_open(fx.ctx[0], 4, 0, &s[i].q), 0);
		assert_int_equal(pthread_create(&threads[i], NULL, syncer_main, &s[i]), 0);
	}
	for (i = 0; i < POST_THREADS; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 4, NULL), 0);
	for (i = 0; i < POST_THREADS; i++) {
		assert_rc(s[i].rc, 0);
		assert_rc(xrma_dmaq_close(s[i].q), 0);
	}
	assert_int_equal(fixture_pattern_check(rbuf(&r), POST_THREADS * 1024, 41, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(lbuf(&r), POST_THREADS * 1024, 41, 0), FIXTURE_MATCH);
	rig_close(&r);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_dmaq_open_depth_bounds_accepted),
		T(test_dmaq_open_bad_args_return_einval),
		T(test_dmaq_close_with_unpolled_entries_succeeds),
		T(test_dmaq_post_write_sync_copies_no_entry),
		T(test_dmaq_post_read_sync_copies_no_entry),
		T(test_dmaq_post_write_async_completion_carries_cookie),
		T(test_dmaq_post_read_async_completion_reports_read),
		T(test_dmaq_post_read_scatter_fills_in_order),
		T(test_dmaq_post_write_gather_takes_in_order),
		T(test_dmaq_post_iov_max_entries_accepted),
		T(test_dmaq_post_sync_behind_async_completes_in_place),
		T(test_dmaq_post_async_short_idle_queue_done_when_post_returns),
		T(test_dmaq_post_cookies_round_trip_duplicates_kept),
		T(test_dmaq_post_suppress_success_no_entry),
		T(test_dmaq_post_unsignalled_needs_queue_flag),
		T(test_dmaq_post_sync_with_suppress_or_unsignalled_einval),
		T(test_dmaq_post_fence_and_ordered_accepted_in_order),
		T(test_dmaq_post_bad_flags_returns_einval),
		T(test_dmaq_post_bad_vector_or_op_returns_einval),
		T(test_dmaq_post_vector_shorter_than_len_returns_elength),
		T(test_dmaq_post_local_entry_outside_seg_returns_erange),
		T(test_dmaq_post_remote_range_outside_returns_erange),
		T(test_dmaq_post_local_rights_missing_returns_eacces),
		T(test_dmaq_post_remote_rights_missing_returns_eacces),
		T(test_dmaq_post_bad_handles_return_ehandle),
		T(test_dmaq_post_lost_remote_returns_elost),
		T(test_dmaq_idle_queue_wait_times_out_drain_abort_zero),
		T(test_dmaq_poll_wait_bad_args_return_errors),
		T(test_dmaq_poll_returns_up_to_max),
		T(test_dmaq_wait_blocked_thread_woken_by_completion),
		T(test_dmaq_post_many_threads_every_cookie_once),
		T(test_dmaq_post_sync_concurrent_queues_succeed),
	};

	return cmocka_run_group_tests_name("dmaq", tests, dmaq_group_up, dmaq_group_down);
}
