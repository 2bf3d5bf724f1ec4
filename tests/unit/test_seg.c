/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_seg.c: local segments (include/xrma/seg.h): allocation and
 * registration, ids (fixed, chosen in a range, per node, private), export and
 * unexport, importer counting and the owner's CONNECT / DISCONNECT events,
 * XRMA_EBUSY while imported, every argument and handle error, and threads
 * opening and closing segments at once. Importers are contexts 2 and 3.
 */
#include "tests/helpers/fixture.h"

#include <stdlib.h>
#include <string.h>

#define RW (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)

static struct fixture fx;

static int seg_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "seg", 3);
}

static int seg_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

static struct xrma_seg_attr seg_attr(size_t len, uint64_t id)
{
	struct xrma_seg_attr attr = {
		.len = len,
		.addr = NULL,
		.id = id,
		.id_min = 0,
		.id_max = 0,
		.access = XRMA_ACCESS_ALL,
		.flags = 0,
	};

	return attr;
}

/* Import owner segment id from fx.ctx[from]. */
static int import(size_t from, uint64_t id, struct xrma_rseg **rseg)
{
	return xrma_rseg_open(fx.ctx[from], fx.node[0], id, RW, 0, FIXTURE_TIMEOUT_MS, rseg);
}

static void test_seg_open_allocated_returns_aligned_zeroed_memory(void **state)
{
	struct xrma_seg_attr attr = seg_attr(3 * FIXTURE_PAGE, XRMA_ID_ANY);
	struct xrma_seg *seg = NULL;
	void *addr = NULL;
	size_t len = 0;
	uint32_t access = 0;
	uint64_t id = 0;

	(void)state;
	attr.access = XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_REMOTE_READ;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), 0);
	assert_int_equal(fixture_count(fx.ctx[0]), 1);
	assert_rc(xrma_seg_addr(seg, &addr), 0);
	assert_non_null(addr);
	assert_int_equal((uintptr_t)addr % FIXTURE_PAGE, 0);
	assert_rc(xrma_seg_size(seg, &len), 0);
	assert_int_equal(len, 3 * FIXTURE_PAGE);
	assert_int_equal(fixture_check(addr, len, 0), FIXTURE_MATCH);
	assert_rc(xrma_seg_access(seg, &access), 0);
	assert_int_equal(access, XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_REMOTE_READ);
	assert_rc(xrma_seg_id(seg, &id), 0);
	assert_true(id != XRMA_ID_ANY);
	/* The memory is ours to write. */
	fixture_pattern(addr, len, 9, 0);
	assert_int_equal(fixture_pattern_check(addr, len, 9, 0), FIXTURE_MATCH);
	assert_rc(xrma_seg_close(seg), 0);
}

static void test_seg_open_fixed_id_returns_that_id(void **state)
{
	struct xrma_seg_attr attr = seg_attr(FIXTURE_PAGE, 1000);
	struct xrma_seg *seg = NULL;
	uint64_t id = 0;

	(void)state;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), 0);
	assert_rc(xrma_seg_id(seg, &id), 0);
	assert_int_equal(id, 1000);
	assert_rc(xrma_seg_close(seg), 0);
}

static void test_seg_open_taken_id_returns_eaddrinuse(void **state)
{
	struct xrma_seg_attr attr = seg_attr(FIXTURE_PAGE, 1001);
	struct xrma_seg *a = NULL, *b = NULL;
	uint64_t id;

	(void)state;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &a), 0);
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &b), XRMA_EADDRINUSE);
	assert_int_equal(fixture_count(fx.ctx[0]), 1);
	/* The first keeps its id. */
	assert_rc(xrma_seg_id(a, &id), 0);
	assert_int_equal(id, 1001);
	assert_rc(xrma_seg_close(a), 0);
	/* Closing released it. */
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &b), 0);
	assert_rc(xrma_seg_close(b), 0);
}

static void test_seg_open_same_id_other_node_succeeds(void **state)
{
	struct xrma_seg_attr attr = seg_attr(FIXTURE_PAGE, 1002);
	struct xrma_seg *a = NULL, *b = NULL;

	(void)state;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &a), 0);
	assert_rc(xrma_seg_open(fx.ctx[1], &attr, &b), 0);
	assert_rc(xrma_seg_close(b), 0);
	assert_rc(xrma_seg_close(a), 0);
}

static void test_seg_open_any_id_in_range_then_enospc(void **state)
{
	struct xrma_seg_attr attr = seg_attr(FIXTURE_PAGE, XRMA_ID_ANY);
	struct xrma_seg *segs[5] = { NULL };
	uint64_t ids[4];
	size_t i, j;

	(void)state;
	attr.id_min = 5000;
	attr.id_max = 5003;
	for (i = 0; i < 4; i++) {
		assert_rc(xrma_seg_open(fx.ctx[0], &attr, &segs[i]), 0);
		assert_rc(xrma_seg_id(segs[i], &ids[i]), 0);
		assert_in_range(ids[i], 5000, 5003);
		for (j = 0; j < i; j++)
			assert_true(ids[i] != ids[j]);
	}
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &segs[4]), XRMA_ENOSPC);
	assert_int_equal(fixture_count(fx.ctx[0]), 4);
	for (i = 0; i < 4; i++)
		assert_rc(xrma_seg_close(segs[i]), 0);
}

static void test_seg_open_id_outside_range_returns_einval(void **state)
{
	struct xrma_seg_attr attr = seg_attr(FIXTURE_PAGE, 10);
	struct xrma_seg *seg = NULL;

	(void)state;
	attr.id_min = 20;
	attr.id_max = 30;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_EINVAL);
	attr.id = 31;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_EINVAL);
	/* Inverted range for a chosen id. */
	attr.id = XRMA_ID_ANY;
	attr.id_min = 30;
	attr.id_max = 20;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_EINVAL);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_seg_open_bad_args_return_einval(void **state)
{
	struct xrma_seg_attr attr = seg_attr(FIXTURE_PAGE, XRMA_ID_ANY);
	struct xrma_seg *seg = NULL;

	(void)state;
	assert_rc(xrma_seg_open(fx.ctx[0], NULL, &seg), XRMA_EINVAL);
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, NULL), XRMA_EINVAL);
	attr.len = 0;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_EINVAL);
	attr = seg_attr(FIXTURE_PAGE, XRMA_ID_ANY);
	attr.access = 0;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_EINVAL);
	attr.access = XRMA_ACCESS_ALL | 0x80u;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_EINVAL);
	attr = seg_attr(FIXTURE_PAGE, XRMA_ID_ANY);
	attr.flags = 1u << 7;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_EINVAL);
	assert_rc(xrma_seg_open(FIXTURE_FORGED(struct xrma_ctx), &attr, &seg), XRMA_EHANDLE);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_seg_open_len_above_limit_returns_erange(void **state)
{
	struct xrma_seg_attr attr = seg_attr(FIXTURE_PAGE, XRMA_ID_ANY);
	struct xrma_ctx_info info;
	struct xrma_seg *seg = NULL;

	(void)state;
	assert_rc(xrma_ctx_query(fx.ctx[0], &info), 0);
	if (info.caps.max_seg_size == 0 || info.caps.max_seg_size == SIZE_MAX)
		skip();   /* no limit to exceed */
	attr.len = info.caps.max_seg_size + 1;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_ERANGE);
	attr.len = SIZE_MAX;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_ERANGE);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_seg_open_user_memory_shares_caller_buffer(void **state)
{
	struct xrma_seg_attr attr = seg_attr(2 * FIXTURE_PAGE, XRMA_ID_ANY);
	struct xrma_seg *seg = NULL;
	struct xrma_rseg *rseg = NULL;
	uint64_t id, old = 0, first;
	void *addr = NULL;
	uint8_t *buf;

	(void)state;
	buf = aligned_alloc(FIXTURE_PAGE, 2 * FIXTURE_PAGE);
	assert_non_null(buf);
	fixture_pattern(buf, 2 * FIXTURE_PAGE, 4, 0);
	attr.addr = buf;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), 0);
	assert_rc(xrma_seg_addr(seg, &addr), 0);
	assert_ptr_equal(addr, buf);
	assert_int_equal(fixture_pattern_check(buf, 2 * FIXTURE_PAGE, 4, 0), FIXTURE_MATCH);
	assert_rc(xrma_seg_export(seg, 0), 0);
	assert_rc(xrma_seg_id(seg, &id), 0);
	/* An importer sees the caller's bytes and its stores land in them. */
	assert_rc(import(1, id, &rseg), 0);
	memcpy(&first, buf + 8, sizeof(first));
	assert_rc(xrma_rseg_atomic(rseg, 8, XRMA_ATOMIC_READ, 0, 0, &old), 0);
	assert_int_equal(old, first);
	assert_rc(xrma_rseg_atomic(rseg, 16, XRMA_ATOMIC_SWAP, 0x1122334455667788ull, 0, &old), 0);
	memcpy(&first, buf + 16, sizeof(first));
	assert_int_equal(first, 0x1122334455667788ull);
	assert_rc(xrma_rseg_close(rseg), 0);
	assert_int_equal(fixture_wait_importers(seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_close(seg), 0);
	free(buf);
}

static void test_seg_open_private_reserves_no_id_export_einval(void **state)
{
	struct xrma_seg_attr attr = seg_attr(FIXTURE_PAGE, 1003);
	struct xrma_seg *priv = NULL, *pub = NULL;
	struct xrma_rseg *rseg;

	(void)state;
	attr.flags = XRMA_SEG_PRIVATE;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &priv), 0);
	assert_rc(xrma_seg_export(priv, 0), XRMA_EINVAL);
	/* No importer can find a private segment by the id it was given. */
	assert_rc(import(1, 1003, &rseg), XRMA_ENOENT);
	attr.flags = 0;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &pub), 0);
	assert_rc(xrma_seg_close(pub), 0);
	assert_rc(xrma_seg_close(priv), 0);
}

static void test_seg_export_twice_idempotent_returns_0(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *rseg;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 1, &s), 0);
	assert_rc(xrma_seg_export(s.seg, 0), 0);
	assert_rc(xrma_seg_export(s.seg, 0), 0);
	assert_rc(import(1, s.id, &rseg), 0);
	assert_rc(xrma_rseg_close(rseg), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_seg_export_unexport_bad_flags_return_einval(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *rseg;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 1, &s), 0);
	assert_rc(xrma_seg_export(s.seg, 1u << 9), XRMA_EINVAL);
	/* The failed export did not export. */
	assert_rc(import(1, s.id, &rseg), XRMA_ENOTAVAIL);
	assert_rc(xrma_seg_export(s.seg, 0), 0);
	assert_rc(xrma_seg_unexport(s.seg, 1u << 9), XRMA_EINVAL);
	/* The failed unexport did not unexport. */
	assert_rc(import(1, s.id, &rseg), 0);
	assert_rc(xrma_rseg_close(rseg), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_seg_unexport_refuses_new_keeps_existing(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *a = NULL, *b = NULL;
	enum xrma_rseg_state st;
	size_t count = 0;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(import(1, s.id, &a), 0);
	assert_rc(xrma_seg_unexport(s.seg, 0), 0);
	assert_rc(import(2, s.id, &b), XRMA_ENOTAVAIL);
	assert_rc(xrma_seg_importers(s.seg, &count), 0);
	assert_int_equal(count, 1);
	assert_rc(xrma_rseg_state(a, &st), 0);
	assert_int_equal(st, XRMA_RSEG_CONNECTED);
	/* Exporting again lets new importers in. */
	assert_rc(xrma_seg_export(s.seg, 0), 0);
	assert_rc(import(2, s.id, &b), 0);
	assert_rc(xrma_seg_importers(s.seg, &count), 0);
	assert_int_equal(count, 2);
	assert_rc(xrma_rseg_close(a), 0);
	assert_rc(xrma_rseg_close(b), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_seg_close_while_imported_returns_ebusy(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *rseg = NULL;
	uint64_t old;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 6, &s), 0);
	assert_rc(import(1, s.id, &rseg), 0);
	assert_rc(xrma_seg_close(s.seg), XRMA_EBUSY);
	/* Nothing changed: memory, count, and the import still works. */
	assert_int_equal(fixture_pattern_check(s.addr, s.len, 6, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_count(fx.ctx[0]), 1);
	assert_rc(xrma_rseg_atomic(rseg, 0, XRMA_ATOMIC_READ, 0, 0, &old), 0);
	assert_rc(xrma_rseg_close(rseg), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_seg_importers_counts_each_import(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *r[3];
	size_t count = 99;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(xrma_seg_importers(s.seg, &count), 0);
	assert_int_equal(count, 0);
	assert_rc(import(1, s.id, &r[0]), 0);
	assert_rc(import(1, s.id, &r[1]), 0);
	assert_rc(import(2, s.id, &r[2]), 0);
	assert_rc(xrma_seg_importers(s.seg, &count), 0);
	assert_int_equal(count, 3);
	assert_rc(xrma_rseg_close(r[1]), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 2, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_rseg_close(r[0]), 0);
	assert_rc(xrma_rseg_close(r[2]), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_seg_import_failed_changes_no_count(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *rseg;
	struct xrma_event ev;
	size_t count = 99;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE,
				   XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE | XRMA_ACCESS_REMOTE_READ,
				   true, 1, &s), 0);
	/* Asks for REMOTE_WRITE, which the segment does not grant. */
	assert_rc(import(1, s.id, &rseg), XRMA_EACCES);
	assert_rc(xrma_seg_importers(s.seg, &count), 0);
	assert_int_equal(count, 0);
	assert_rc(xrma_seg_wait_event(s.seg, 0, &ev), XRMA_ETIMEDOUT);
	assert_int_equal(fixture_count(fx.ctx[1]), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_seg_wait_event_import_connect_then_disconnect(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *rseg;
	struct xrma_event ev;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(import(1, s.id, &rseg), 0);
	memset(&ev, 0, sizeof(ev));
	assert_rc(xrma_seg_wait_event(s.seg, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_CONNECT);
	assert_int_equal(ev.node, fx.node[1]);
	assert_int_equal(ev.status, 0);
	assert_rc(xrma_rseg_close(rseg), 0);
	memset(&ev, 0, sizeof(ev));
	assert_rc(xrma_seg_wait_event(s.seg, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_DISCONNECT);
	assert_int_equal(ev.node, fx.node[1]);
	assert_rc(xrma_seg_wait_event(s.seg, 0, &ev), XRMA_ETIMEDOUT);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_seg_wait_event_none_returns_etimedout(void **state)
{
	struct fixture_seg s;
	struct xrma_event ev;
	uint64_t start;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(xrma_seg_wait_event(s.seg, 0, &ev), XRMA_ETIMEDOUT);
	start = fixture_now_ms();
	assert_rc(xrma_seg_wait_event(s.seg, FIXTURE_SHORT_MS, &ev), XRMA_ETIMEDOUT);
	assert_true(fixture_now_ms() - start >= FIXTURE_SHORT_MS - 5);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_seg_wait_event_bad_args_return_errors(void **state)
{
	struct fixture_seg s;
	struct xrma_event ev;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(xrma_seg_wait_event(s.seg, 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_seg_wait_event(FIXTURE_FORGED(struct xrma_seg), 0, &ev), XRMA_EHANDLE);
	assert_rc(xrma_seg_wait_event((struct xrma_seg *)fx.ctx[0], 0, &ev), XRMA_EHANDLE);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_seg_set_callback_routes_events_wait_returns_estate(void **state)
{
	struct fixture_events log;
	struct fixture_seg s;
	struct xrma_rseg *rseg;
	struct xrma_event ev;

	(void)state;
	fixture_events_init(&log);
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(xrma_seg_set_callback(s.seg, fixture_events_cb, &log), 0);
	assert_rc(xrma_seg_wait_event(s.seg, 0, &ev), XRMA_ESTATE);
	assert_rc(import(1, s.id, &rseg), 0);
	assert_int_equal(fixture_events_wait(&log, 1, FIXTURE_TIMEOUT_MS), 0);
	pthread_mutex_lock(&log.lock);
	assert_int_equal(log.ev[0].type, XRMA_EVENT_CONNECT);
	assert_int_equal(log.ev[0].node, fx.node[1]);
	/* Callbacks run on the service thread, not on ours. */
	assert_false(pthread_equal(log.thread[0], pthread_self()));
	pthread_mutex_unlock(&log.lock);
	/* Back to the queue: the disconnect is queued, not called back. */
	assert_rc(xrma_seg_set_callback(s.seg, NULL, NULL), 0);
	assert_rc(xrma_rseg_close(rseg), 0);
	assert_rc(xrma_seg_wait_event(s.seg, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_DISCONNECT);
	assert_int_equal(fixture_events_count(&log), 1);
	assert_rc(fixture_seg_close(&s), 0);
	fixture_events_destroy(&log);
}

static void test_seg_calls_bad_handle_return_ehandle(void **state)
{
	struct xrma_seg *bad[3];
	struct fixture_seg s;
	void *addr;
	size_t len, i;
	uint64_t id;
	uint32_t access;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 1, &s), 0);
	bad[0] = FIXTURE_FORGED(struct xrma_seg);
	bad[1] = s.seg;
	bad[2] = (struct xrma_seg *)fx.ctx[0];
	assert_rc(fixture_seg_close(&s), 0);
	for (i = 0; i < 3; i++) {
		assert_rc(xrma_seg_addr(bad[i], &addr), XRMA_EHANDLE);
		assert_rc(xrma_seg_size(bad[i], &len), XRMA_EHANDLE);
		assert_rc(xrma_seg_id(bad[i], &id), XRMA_EHANDLE);
		assert_rc(xrma_seg_access(bad[i], &access), XRMA_EHANDLE);
		assert_rc(xrma_seg_export(bad[i], 0), XRMA_EHANDLE);
		assert_rc(xrma_seg_unexport(bad[i], 0), XRMA_EHANDLE);
		assert_rc(xrma_seg_importers(bad[i], &len), XRMA_EHANDLE);
		assert_rc(xrma_seg_set_callback(bad[i], NULL, NULL), XRMA_EHANDLE);
		assert_rc(xrma_seg_close(bad[i]), XRMA_EHANDLE);
	}
	assert_null_handle_rc(xrma_seg_close(NULL));
	assert_null_handle_rc(xrma_seg_size(NULL, &len));
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_seg_getters_null_out_return_einval(void **state)
{
	struct fixture_seg s;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 1, &s), 0);
	assert_rc(xrma_seg_addr(s.seg, NULL), XRMA_EINVAL);
	assert_rc(xrma_seg_size(s.seg, NULL), XRMA_EINVAL);
	assert_rc(xrma_seg_id(s.seg, NULL), XRMA_EINVAL);
	assert_rc(xrma_seg_access(s.seg, NULL), XRMA_EINVAL);
	assert_rc(xrma_seg_importers(s.seg, NULL), XRMA_EINVAL);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_seg_close_twice_returns_ehandle(void **state)
{
	struct fixture_seg s;
	struct xrma_seg *seg;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	seg = s.seg;
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_seg_close(seg), XRMA_EHANDLE);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_seg_close_exported_id_unknown_to_importers(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *rseg;
	uint64_t id;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	id = s.id;
	assert_rc(fixture_seg_close(&s), 0);
	assert_rc(import(1, id, &rseg), XRMA_ENOENT);
	assert_int_equal(fixture_count(fx.ctx[1]), 0);
}

static void test_seg_unexport_force_drops_importers_close_succeeds(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *rseg;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(import(1, s.id, &rseg), 0);
	assert_rc(xrma_seg_unexport(s.seg, XRMA_UNEXPORT_FORCE), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
	/* The importer's handle is dead but still its own to close. */
	assert_rc(xrma_rseg_close(rseg), 0);
}

#define SEG_THREADS 4
#define SEG_PER_THREAD 16

struct seg_worker {
	struct xrma_ctx *ctx;
	struct fixture_barrier *barrier;
	struct xrma_seg *segs[SEG_PER_THREAD];
	uint64_t ids[SEG_PER_THREAD];
	int rc;
};

static void *seg_open_worker(void *arg)
{
	struct seg_worker *w = arg;
	struct xrma_seg_attr attr = seg_attr(FIXTURE_PAGE, XRMA_ID_ANY);
	size_t i;
	int rc;

	if ((w->rc = fixture_barrier_wait(w->barrier, FIXTURE_TIMEOUT_MS)))
		return NULL;
	for (i = 0; i < SEG_PER_THREAD; i++) {
		w->segs[i] = NULL;
		if ((w->rc = xrma_seg_open(w->ctx, &attr, &w->segs[i])))
			return NULL;
		if ((w->rc = xrma_seg_id(w->segs[i], &w->ids[i])))
			return NULL;
		if ((w->rc = xrma_seg_export(w->segs[i], 0)))
			return NULL;
	}
	/*
	 * Wait until every thread has all its segments, then close them concurrently.
	 * rc is written only on failure here: the main thread reads it in between.
	 */
	if ((rc = fixture_barrier_wait(w->barrier, FIXTURE_TIMEOUT_MS)))
		goto fail;
	if ((rc = fixture_barrier_wait(w->barrier, FIXTURE_TIMEOUT_MS)))
		goto fail;
	for (i = 0; i < SEG_PER_THREAD; i++)
		if ((rc = xrma_seg_close(w->segs[i])))
			goto fail;
	return NULL;
fail:
	w->rc = rc;
	return NULL;
}

static void test_seg_open_close_concurrent_threads_unique_ids(void **state)
{
	struct fixture_barrier barrier;
	struct seg_worker w[SEG_THREADS];
	pthread_t threads[SEG_THREADS];
	size_t i, j, x, y;
	int round;

	(void)state;
	for (round = 0; round < 5; round++) {
		fixture_barrier_init(&barrier, SEG_THREADS + 1);
		for (i = 0; i < SEG_THREADS; i++) {
			memset(&w[i], 0, sizeof(w[i]));
			w[i].ctx = fx.ctx[0];
			w[i].barrier = &barrier;
			assert_int_equal(pthread_create(&threads[i], NULL, seg_open_worker, &w[i]), 0);
		}
		assert_int_equal(fixture_barrier_wait(&barrier, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(fixture_barrier_wait(&barrier, FIXTURE_TIMEOUT_MS), 0);
		for (i = 0; i < SEG_THREADS; i++)
			assert_rc(w[i].rc, 0);
		assert_int_equal(fixture_count(fx.ctx[0]), SEG_THREADS * SEG_PER_THREAD);
		for (i = 0; i < SEG_THREADS; i++)
			for (x = 0; x < SEG_PER_THREAD; x++)
				for (j = i; j < SEG_THREADS; j++)
					for (y = (j == i ? x + 1 : 0); y < SEG_PER_THREAD; y++)
						assert_true(w[i].ids[x] != w[j].ids[y]);
		assert_int_equal(fixture_barrier_wait(&barrier, FIXTURE_TIMEOUT_MS), 0);
		for (i = 0; i < SEG_THREADS; i++)
			assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS, NULL), 0);
		fixture_barrier_destroy(&barrier);
		for (i = 0; i < SEG_THREADS; i++)
			assert_rc(w[i].rc, 0);
		assert_int_equal(fixture_count(fx.ctx[0]), 0);
	}
}

struct id_race {
	struct xrma_ctx *ctx;
	struct fixture_barrier *barrier;
	struct xrma_seg *seg;
	int rc;
};

static void *seg_id_race_worker(void *arg)
{
	struct id_race *r = arg;
	struct xrma_seg_attr attr = seg_attr(FIXTURE_PAGE, 3000);

	if ((r->rc = fixture_barrier_wait(r->barrier, FIXTURE_TIMEOUT_MS)))
		return NULL;
	r->rc = xrma_seg_open(r->ctx, &attr, &r->seg);
	return NULL;
}

static void test_seg_open_same_id_concurrent_one_wins(void **state)
{
	struct fixture_barrier barrier;
	struct id_race r[SEG_THREADS];
	pthread_t threads[SEG_THREADS];
	int round, winners;
	size_t i;

	(void)state;
	for (round = 0; round < 20; round++) {
		fixture_barrier_init(&barrier, SEG_THREADS);
		for (i = 0; i < SEG_THREADS; i++) {
			r[i] = (struct id_race){ .ctx = fx.ctx[0], .barrier = &barrier };
			assert_int_equal(pthread_create(&threads[i], NULL, seg_id_race_worker, &r[i]), 0);
		}
		for (i = 0; i < SEG_THREADS; i++)
			assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS, NULL), 0);
		fixture_barrier_destroy(&barrier);
		winners = 0;
		for (i = 0; i < SEG_THREADS; i++) {
			if (r[i].rc == 0) {
				winners++;
				assert_rc(xrma_seg_close(r[i].seg), 0);
			} else {
				assert_rc(r[i].rc, XRMA_EADDRINUSE);
			}
		}
		assert_int_equal(winners, 1);
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_seg_open_allocated_returns_aligned_zeroed_memory),
		T(test_seg_open_fixed_id_returns_that_id),
		T(test_seg_open_taken_id_returns_eaddrinuse),
		T(test_seg_open_same_id_other_node_succeeds),
		T(test_seg_open_any_id_in_range_then_enospc),
		T(test_seg_open_id_outside_range_returns_einval),
		T(test_seg_open_bad_args_return_einval),
		T(test_seg_open_len_above_limit_returns_erange),
		T(test_seg_open_user_memory_shares_caller_buffer),
		T(test_seg_open_private_reserves_no_id_export_einval),
		T(test_seg_export_twice_idempotent_returns_0),
		T(test_seg_export_unexport_bad_flags_return_einval),
		T(test_seg_unexport_refuses_new_keeps_existing),
		T(test_seg_close_while_imported_returns_ebusy),
		T(test_seg_importers_counts_each_import),
		T(test_seg_import_failed_changes_no_count),
		T(test_seg_wait_event_import_connect_then_disconnect),
		T(test_seg_wait_event_none_returns_etimedout),
		T(test_seg_wait_event_bad_args_return_errors),
		T(test_seg_set_callback_routes_events_wait_returns_estate),
		T(test_seg_calls_bad_handle_return_ehandle),
		T(test_seg_getters_null_out_return_einval),
		T(test_seg_close_twice_returns_ehandle),
		T(test_seg_close_exported_id_unknown_to_importers),
		T(test_seg_unexport_force_drops_importers_close_succeeds),
		T(test_seg_open_close_concurrent_threads_unique_ids),
		T(test_seg_open_same_id_concurrent_one_wins),
	};

	return cmocka_run_group_tests_name("seg", tests, seg_group_up, seg_group_down);
}
