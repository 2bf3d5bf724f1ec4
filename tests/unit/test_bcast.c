/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_bcast.c: broadcast groups (include/xrma/bcast.h): who is a
 * member (broadcast segments only, exported, the caller's own unless
 * XRMA_BCAST_NO_SELF), maps whose pushes write exactly the changed bytes to
 * every member (at flush, unmap, and with no call at all), transfers fanned
 * out, a member forced off (state, events, errors, the others still written),
 * and every refusal. Nodes 1 and 3 hold members, node 2 a plain segment of
 * the same id.
 */
#include "tests/helpers/fixture.h"

#include <sched.h>
#include <string.h>
#include <time.h>

#define RW (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)
#define GROUP_ID 4242
#define LEN (4 * FIXTURE_PAGE)

static struct fixture fx;

static int bcast_group_up(void **state)
{
	(void)state;
	if (fixture_open(&fx, "bcast", 3))
		return -1;
	return 0;
}

static int bcast_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

static bool have_broadcast(void)
{
	struct xrma_ctx_info info;

	return !xrma_ctx_query(fx.ctx[0], &info) && (info.caps.flags & XRMA_CAP_BROADCAST) &&
	       (info.caps.flags & XRMA_CAP_MAP);
}

static bool group_lost(void *arg)
{
	enum xrma_rseg_state st = XRMA_RSEG_CONNECTED;

	return !xrma_bcast_state(arg, &st) && st == XRMA_RSEG_LOST;
}

struct lost_sink {
	pthread_mutex_t lock;
	uint32_t node;
	int type;
};

static bool sink_got_lost(void *arg)
{
	struct lost_sink *s = arg;
	bool got;

	pthread_mutex_lock(&s->lock);
	got = s->type == XRMA_EVENT_LOST;
	pthread_mutex_unlock(&s->lock);
	return got;
}

/* Yield until done(arg), for at most timeout_ms; whether it came. */
static bool wait_for(bool (*done)(void *arg), void *arg, int timeout_ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!done(arg)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 > timeout_ms)
			return false;
		sched_yield();
	}
	return true;
}

/* Segments of GROUP_ID: broadcast on nodes 1 and 3 (len and len3 bytes), plain on node 2. */
struct members {
	struct xrma_seg *seg[3];
	uint8_t *mem[3];
};

static void members_open(struct members *m, size_t len3)
{
	for (size_t i = 0; i < 3; i++) {
		struct xrma_seg_attr attr = {
			.len = i == 2 ? len3 : LEN,
			.id = GROUP_ID,
			.access = XRMA_ACCESS_ALL,
			.flags = i == 1 ? 0 : XRMA_SEG_BROADCAST,
		};

		assert_rc(xrma_seg_open(fx.ctx[i], &attr, &m->seg[i]), 0);
		assert_rc(xrma_seg_addr(m->seg[i], (void **)&m->mem[i]), 0);
		memset(m->mem[i], 0, attr.len);
		assert_rc(xrma_seg_export(m->seg[i], 0), 0);
	}
}

static void members_close(struct members *m)
{
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(fixture_wait_importers(m->seg[i], 0, FIXTURE_TIMEOUT_MS), 0);
		assert_rc(xrma_seg_close(m->seg[i]), 0);
	}
}

static void test_bcast_open_members_are_exported_broadcast_segments(void **state)
{
	struct members m;
	struct xrma_bcast *b;
	uint32_t nodes[4] = { 0 };
	size_t count = 0, len = 0;

	(void)state;
	if (!have_broadcast())
		skip();
	members_open(&m, 2 * FIXTURE_PAGE);
	assert_rc(xrma_bcast_open(fx.ctx[0], GROUP_ID, RW, 0, FIXTURE_TIMEOUT_MS, &b), 0);
	assert_rc(xrma_bcast_members(b, nodes, 4, &count), 0);
	assert_int_equal(count, 2);
	assert_int_equal(nodes[0], fx.node[0]);
	assert_int_equal(nodes[1], fx.node[2]);
	assert_rc(xrma_bcast_size(b, &len), 0);
	assert_int_equal(len, 2 * FIXTURE_PAGE);   /* the smallest member */
	assert_rc(xrma_bcast_close(b), 0);
	/* The caller's own node left out on request. */
	assert_rc(xrma_bcast_open(fx.ctx[0], GROUP_ID, RW, XRMA_BCAST_NO_SELF, FIXTURE_TIMEOUT_MS, &b), 0);
	assert_rc(xrma_bcast_members(b, nodes, 4, &count), 0);
	assert_int_equal(count, 1);
	assert_int_equal(nodes[0], fx.node[2]);
	assert_rc(xrma_bcast_close(b), 0);
	members_close(&m);
}

static void test_bcast_open_refusals(void **state)
{
	struct xrma_seg_attr attr = { .len = LEN, .id = 9, .access = XRMA_ACCESS_ALL,
				      .flags = XRMA_SEG_BROADCAST | XRMA_SEG_PRIVATE };
	struct xrma_bcast *b = (void *)1;
	struct xrma_seg *seg;

	(void)state;
	if (!have_broadcast())
		skip();
	assert_rc(xrma_bcast_open(fx.ctx[0], GROUP_ID, RW, 0, FIXTURE_TIMEOUT_MS, &b), XRMA_ENOENT);
	assert_null(b);
	assert_rc(xrma_bcast_open(fx.ctx[0], GROUP_ID, RW, 0, FIXTURE_TIMEOUT_MS, NULL), XRMA_EINVAL);
	assert_rc(xrma_bcast_open(fx.ctx[0], GROUP_ID, 0, 0, FIXTURE_TIMEOUT_MS, &b), XRMA_EINVAL);
	assert_rc(xrma_bcast_open(fx.ctx[0], GROUP_ID, XRMA_ACCESS_LOCAL_READ, 0, FIXTURE_TIMEOUT_MS, &b),
		  XRMA_EINVAL);
	assert_rc(xrma_bcast_open(fx.ctx[0], GROUP_ID, RW, 2, FIXTURE_TIMEOUT_MS, &b), XRMA_EINVAL);
	assert_rc(xrma_bcast_open(fx.ctx[0], XRMA_ID_ANY, RW, 0, FIXTURE_TIMEOUT_MS, &b), XRMA_EINVAL);
	assert_rc(xrma_bcast_open(NULL, GROUP_ID, RW, 0, FIXTURE_TIMEOUT_MS, &b), XRMA_EHANDLE);
	/* A private segment has no id a group could name. */
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_EINVAL);
	/* Not exported yet: no member. */
	attr.flags = XRMA_SEG_BROADCAST;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), 0);
	assert_rc(xrma_bcast_open(fx.ctx[1], 9, RW, 0, FIXTURE_TIMEOUT_MS, &b), XRMA_ENOENT);
	assert_rc(xrma_seg_close(seg), 0);
}

static void test_bcast_map_pushes_changed_bytes_to_every_member(void **state)
{
	struct members m;
	struct xrma_bcast *b;
	uint8_t *p;

	(void)state;
	if (!have_broadcast())
		skip();
	members_open(&m, LEN);
	assert_rc(xrma_bcast_open(fx.ctx[1], GROUP_ID, RW, 0, FIXTURE_TIMEOUT_MS, &b), 0);
	assert_rc(xrma_bcast_map(b, FIXTURE_PAGE, 2 * FIXTURE_PAGE, XRMA_MAP_WRITE, (void **)&p), 0);
	/* Bytes the map leaves alone stay the members' own: a node writes beside the writer. */
	m.mem[2][FIXTURE_PAGE + 11] = 0x77;
	fixture_pattern(p, 10, 5, 0);
	p[12] = 0x99;
	p[2 * FIXTURE_PAGE - 1] = 0x42;
	assert_rc(xrma_bcast_flush(b, p), 0);
	for (size_t i = 0; i < 3; i += 2) {
		assert_int_equal(fixture_pattern_check(m.mem[i] + FIXTURE_PAGE, 10, 5, 0), FIXTURE_MATCH);
		assert_int_equal(m.mem[i][FIXTURE_PAGE + 12], 0x99);
		assert_int_equal(m.mem[i][3 * FIXTURE_PAGE - 1], 0x42);
	}
	assert_int_equal(m.mem[2][FIXTURE_PAGE + 11], 0x77);
	assert_int_equal(m.mem[0][FIXTURE_PAGE + 11], 0);
	assert_int_equal(fixture_check(m.mem[1], LEN, 0), FIXTURE_MATCH);   /* the plain segment */
	/* With no call at all, the pusher brings the store within its bound. */
	p[100] = 0x5a;
	assert_int_equal(fixture_wait_u64(m.mem[0] + FIXTURE_PAGE + 96, (uint64_t)0x5a << 32, 5000), 0);
	/* Close is refused while mapped; unmap pushes the last stores. */
	assert_rc(xrma_bcast_close(b), XRMA_EBUSY);
	p[200] = 0xa5;
	assert_rc(xrma_bcast_unmap(b, p), 0);
	assert_int_equal(m.mem[2][FIXTURE_PAGE + 200], 0xa5);
	assert_rc(xrma_bcast_close(b), 0);
	members_close(&m);
}

static void test_bcast_map_bad_args(void **state)
{
	struct members m;
	struct xrma_bcast *b;
	void *p = NULL;
	int x;

	(void)state;
	if (!have_broadcast())
		skip();
	members_open(&m, LEN);
	assert_rc(xrma_bcast_open(fx.ctx[1], GROUP_ID, RW, 0, FIXTURE_TIMEOUT_MS, &b), 0);
	assert_rc(xrma_bcast_map(b, 0, 0, XRMA_MAP_WRITE, &p), XRMA_EINVAL);
	assert_rc(xrma_bcast_map(b, 0, 8, XRMA_MAP_READ, &p), XRMA_EINVAL);
	assert_rc(xrma_bcast_map(b, 0, 8, XRMA_MAP_WRITE | 4, &p), XRMA_EINVAL);
	assert_rc(xrma_bcast_map(b, 0, 8, XRMA_MAP_WRITE, NULL), XRMA_EINVAL);
	assert_rc(xrma_bcast_map(b, LEN - 4, 8, XRMA_MAP_WRITE, &p), XRMA_ERANGE);
	assert_rc(xrma_bcast_map(b, LEN, 1, XRMA_MAP_WRITE, &p), XRMA_ERANGE);
	assert_null(p);
	assert_rc(xrma_bcast_flush(b, &x), XRMA_EINVAL);
	assert_rc(xrma_bcast_unmap(b, &x), XRMA_EINVAL);
	assert_rc(xrma_bcast_unmap(b, NULL), XRMA_EINVAL);
	assert_rc(xrma_bcast_flush(b, NULL), 0);   /* no map: nothing to push */
	assert_rc(xrma_bcast_close(b), 0);
	assert_rc(xrma_bcast_close(b), XRMA_EHANDLE);
	assert_rc(xrma_bcast_flush(b, NULL), XRMA_EHANDLE);
	members_close(&m);
}

static void test_bcast_post_writes_every_member(void **state)
{
	struct members m;
	struct fixture_seg src;
	struct xrma_bcast *b;
	struct xrma_dmaq *q;
	struct xrma_completion c;
	size_t posted = 0;

	(void)state;
	if (!have_broadcast())
		skip();
	members_open(&m, LEN);
	assert_rc(fixture_seg_make(fx.ctx[1], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 31, &src), 0);
	assert_rc(xrma_bcast_open(fx.ctx[1], GROUP_ID, RW, 0, FIXTURE_TIMEOUT_MS, &b), 0);
	assert_rc(xrma_dmaq_open(fx.ctx[1], 8, 0, &q), 0);
	assert_rc(xrma_bcast_post(b, q, &(struct xrma_iov){ src.seg, 0, 1000 }, 1, 64, 1000, 7,
				  XRMA_RMA_SYNC, &posted), 0);
	assert_int_equal(posted, 2);
	assert_int_equal(fixture_pattern_check(m.mem[0] + 64, 1000, 31, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(m.mem[2] + 64, 1000, 31, 0), FIXTURE_MATCH);
	/* Asynchronous: one completion per member, each with the cookie. */
	assert_rc(xrma_bcast_post(b, q, &(struct xrma_iov){ src.seg, 0, 500 }, 1, 2000, 500, 9, 0, &posted), 0);
	assert_int_equal(posted, 2);
	for (int i = 0; i < 2; i++) {
		assert_rc(xrma_dmaq_wait(q, &c, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(c.cookie, 9);
		assert_rc(c.status, 0);
	}
	assert_int_equal(fixture_pattern_check(m.mem[2] + 2000, 500, 31, 0), FIXTURE_MATCH);
	assert_rc(xrma_bcast_post(b, q, &(struct xrma_iov){ src.seg, 0, 8 }, 1, LEN - 4, 8, 0, 0, &posted),
		  XRMA_ERANGE);
	assert_int_equal(posted, 0);
	assert_rc(xrma_bcast_post(b, q, &(struct xrma_iov){ src.seg, 0, 8 }, 1, 0, 8, 0, 0, NULL),
		  XRMA_EINVAL);
	assert_rc(xrma_dmaq_close(q), 0);
	assert_rc(xrma_bcast_close(b), 0);
	assert_rc(fixture_seg_close(&src), 0);
	members_close(&m);
}

static void lost_cb(void *arg, const struct xrma_event *ev)
{
	struct lost_sink *s = arg;

	pthread_mutex_lock(&s->lock);
	if (ev->type == XRMA_EVENT_LOST) {
		s->node = ev->node;
		s->type = ev->type;
	}
	pthread_mutex_unlock(&s->lock);
}

static void test_bcast_member_forced_off_is_lost_others_still_written(void **state)
{
	struct lost_sink sink = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct members m;
	struct fixture_seg src;
	struct xrma_bcast *b;
	struct xrma_dmaq *q;
	enum xrma_rseg_state st;
	size_t posted = 9;

	uint8_t *p;
	void *p2;

	(void)state;
	if (!have_broadcast())
		skip();
	members_open(&m, LEN);
	assert_rc(fixture_seg_make(fx.ctx[1], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 3, &src), 0);
	assert_rc(xrma_bcast_open(fx.ctx[1], GROUP_ID, RW, 0, FIXTURE_TIMEOUT_MS, &b), 0);
	assert_rc(xrma_bcast_set_callback(b, lost_cb, &sink), 0);
	assert_rc(xrma_bcast_map(b, 0, LEN, XRMA_MAP_WRITE, (void **)&p), 0);
	assert_rc(xrma_bcast_state(b, &st), 0);
	assert_int_equal(st, XRMA_RSEG_CONNECTED);
	assert_rc(xrma_seg_unexport(m.seg[0], XRMA_UNEXPORT_FORCE), 0);
	assert_true(wait_for(group_lost, b, FIXTURE_TIMEOUT_MS));
	p[0] = 0x31;
	assert_rc(xrma_bcast_flush(b, NULL), XRMA_ELOST);
	assert_int_equal(m.mem[2][0], 0x31);
	assert_int_equal(m.mem[0][0], 0);
	assert_rc(xrma_bcast_map(b, 0, 8, XRMA_MAP_WRITE, &p2), XRMA_ELOST);
	assert_rc(xrma_dmaq_open(fx.ctx[1], 8, 0, &q), 0);
	assert_rc(xrma_bcast_post(b, q, &(struct xrma_iov){ src.seg, 0, 8 }, 1, 0, 8, 0, XRMA_RMA_SYNC,
				  &posted), XRMA_ELOST);
	assert_int_equal(posted, 0);
	assert_rc(xrma_dmaq_close(q), 0);
	assert_true(wait_for(sink_got_lost, &sink, FIXTURE_TIMEOUT_MS));
	pthread_mutex_lock(&sink.lock);
	assert_int_equal(sink.type, XRMA_EVENT_LOST);
	assert_int_equal(sink.node, fx.node[0]);
	pthread_mutex_unlock(&sink.lock);
	assert_rc(xrma_bcast_unmap(b, p), 0);
	assert_rc(xrma_bcast_close(b), 0);
	assert_rc(fixture_seg_close(&src), 0);
	members_close(&m);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_bcast_open_members_are_exported_broadcast_segments),
		T(test_bcast_open_refusals),
		T(test_bcast_map_pushes_changed_bytes_to_every_member),
		T(test_bcast_map_bad_args),
		T(test_bcast_post_writes_every_member),
		T(test_bcast_member_forced_off_is_lost_others_still_written),
	};

	return cmocka_run_group_tests_name("bcast", tests, bcast_group_up, bcast_group_down);
}
