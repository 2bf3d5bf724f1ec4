/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_fence.c: ordering marks and signals on a DMA queue
 * (include/xrma/fence.h): mark / wait / test on idle and busy queues, unknown
 * marks, local and remote signals written after the marked data is visible,
 * alignment, range, rights and argument errors (nothing written on failure),
 * threads marking their own queues at once, and the posted and completed
 * marks a queue publishes in memory. Marks held open by an
 * in-flight operation (XRMA_ETIMEDOUT, test == 0) need the loopback gate and
 * live in test_provider.c. Node 1 posts; node 2 owns the remote segment.
 */
#include "tests/helpers/fixture.h"

#include <sched.h>
#include <string.h>

#define RW (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)
#define LEN (FIXTURE_PAGE)
#define CANARY 0xaa

static struct fixture fx;

static int fence_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "fence", 2);
}

static int fence_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

struct rig {
	struct fixture_seg local, remote;
	struct xrma_rseg *rseg;
	struct xrma_dmaq *q;
};

static void rig_open_ex(struct rig *r, uint32_t local_access, uint32_t import_access)
{
	assert_rc(fixture_seg_make(fx.ctx[0], LEN, local_access, false, 0, &r->local), 0);
	fixture_fill(r->local.addr, LEN, CANARY);
	assert_rc(fixture_seg_make(fx.ctx[1], LEN, XRMA_ACCESS_ALL, true, 0, &r->remote), 0);
	fixture_fill(r->remote.addr, LEN, CANARY);
	assert_rc(xrma_rseg_open(fx.ctx[0], fx.node[1], r->remote.id, import_access, 0,
				 FIXTURE_TIMEOUT_MS, &r->rseg), 0);
	assert_rc(xrma_dmaq_open(fx.ctx[0], 64, 0, &r->q), 0);
}

static void rig_open(struct rig *r)
{
	rig_open_ex(r, XRMA_ACCESS_ALL, RW);
}

static void rig_close(struct rig *r)
{
	assert_rc(xrma_dmaq_close(r->q), 0);
	assert_rc(xrma_rseg_close(r->rseg), 0);
	assert_int_equal(fixture_wait_importers(r->remote.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&r->remote), 0);
	assert_rc(fixture_seg_close(&r->local), 0);
}

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

/*
 * Yield-spin until the 64-bit value at p equals want. An 8-byte aligned word is
 * read atomically (acquire), as a program polling a signal word would; a
 * 4-byte aligned one can only be copied.
 */
static int wait_value(const uint8_t *p, uint64_t want)
{
	uint64_t end = fixture_now_ms() + FIXTURE_TIMEOUT_MS, v;

	if ((uintptr_t)p % 8 == 0)
		return fixture_wait_u64(p, want, FIXTURE_TIMEOUT_MS);
	do {
		__asm__ __volatile__("" ::: "memory");
		memcpy(&v, p, sizeof(v));
		if (v == want)
			return 0;
		sched_yield();
	} while (fixture_now_ms() < end);
	return ETIMEDOUT;
}

static void post_write(struct rig *r, size_t offset, size_t len, uint64_t cookie)
{
	struct xrma_iov v = { .seg = r->local.seg, .offset = offset, .len = len };

	assert_rc(xrma_dmaq_post(r->q, XRMA_RMA_WRITE, &v, 1, r->rseg, offset, len, cookie,
				 XRMA_RMA_SUPPRESS), 0);
}

static void test_fence_mark_idle_queue_completed(void **state)
{
	struct rig r;
	uint64_t m = 0;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_fence_mark(r.q, &m), 0);
	assert_count(xrma_fence_test(r.q, m), 1);
	assert_rc(xrma_fence_wait(r.q, m, 0), 0);
	assert_rc(xrma_fence_wait(r.q, m, FIXTURE_TIMEOUT_MS), 0);
	rig_close(&r);
}

static void test_fence_wait_after_posts_all_data_landed(void **state)
{
	struct rig r;
	uint64_t m = 0;

	(void)state;
	rig_open(&r);
	fixture_pattern(r.local.addr, LEN, 50, 0);
	post_write(&r, 0, 1024, 1);
	post_write(&r, 1024, 1024, 2);
	post_write(&r, 2048, 2048, 3);
	assert_rc(xrma_fence_mark(r.q, &m), 0);
	assert_rc(xrma_fence_wait(r.q, m, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(fixture_pattern_check(r.remote.addr, LEN, 50, 0), FIXTURE_MATCH);
	assert_count(xrma_fence_test(r.q, m), 1);
	rig_close(&r);
}

static void test_fence_mark_grows_with_posts(void **state)
{
	struct rig r;
	uint64_t m1 = 0, m2 = 0, m3 = 0;

	(void)state;
	rig_open(&r);
	fixture_pattern(r.local.addr, LEN, 51, 0);
	assert_rc(xrma_fence_mark(r.q, &m1), 0);
	post_write(&r, 0, 64, 1);
	assert_rc(xrma_fence_mark(r.q, &m2), 0);
	post_write(&r, 64, 64, 2);
	assert_rc(xrma_fence_mark(r.q, &m3), 0);
	assert_true(m2 > m1);
	assert_true(m3 > m2);
	/* An older mark is done no later than a newer one. */
	assert_rc(xrma_fence_wait(r.q, m3, FIXTURE_TIMEOUT_MS), 0);
	assert_count(xrma_fence_test(r.q, m1), 1);
	assert_count(xrma_fence_test(r.q, m2), 1);
	rig_close(&r);
}

static void test_fence_wait_unknown_mark_returns_einval(void **state)
{
	struct rig r;
	uint64_t m = 0;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_fence_mark(r.q, &m), 0);
	assert_rc(xrma_fence_wait(r.q, m + 1000, FIXTURE_SHORT_MS), XRMA_EINVAL);
	assert_rc(xrma_fence_test(r.q, m + 1000), XRMA_EINVAL);
	assert_rc(xrma_fence_wait(r.q, UINT64_MAX, FIXTURE_SHORT_MS), XRMA_EINVAL);
	assert_rc(xrma_fence_test(r.q, UINT64_MAX), XRMA_EINVAL);
	rig_close(&r);
}

static void test_fence_calls_bad_args_return_errors(void **state)
{
	struct rig r;
	struct xrma_dmaq *closed;
	uint64_t m = 0;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_fence_mark(r.q, NULL), XRMA_EINVAL);
	assert_rc(xrma_dmaq_open(fx.ctx[0], 4, 0, &closed), 0);
	assert_rc(xrma_dmaq_close(closed), 0);
	assert_rc(xrma_fence_mark(closed, &m), XRMA_EHANDLE);
	assert_rc(xrma_fence_mark(FIXTURE_FORGED(struct xrma_dmaq), &m), XRMA_EHANDLE);
	assert_rc(xrma_fence_mark((struct xrma_dmaq *)r.rseg, &m), XRMA_EHANDLE);
	assert_rc(xrma_fence_wait(closed, 0, 0), XRMA_EHANDLE);
	assert_rc(xrma_fence_test(FIXTURE_FORGED(struct xrma_dmaq), 0), XRMA_EHANDLE);
	assert_rc(xrma_fence_signal(closed, r.local.seg, 0, 1, NULL, 0, 0, 0), XRMA_EHANDLE);
	assert_rc(xrma_fence_signal(r.q, FIXTURE_FORGED(struct xrma_seg), 0, 1, NULL, 0, 0, 0),
		  XRMA_EHANDLE);
	assert_rc(xrma_fence_signal(r.q, NULL, 0, 0, FIXTURE_FORGED(struct xrma_rseg), 0, 1, 0),
		  XRMA_EHANDLE);
	assert_rc(xrma_fence_signal(r.q, (struct xrma_seg *)r.rseg, 0, 1, NULL, 0, 0, 0), XRMA_EHANDLE);
	assert_int_equal(fixture_check(r.local.addr, LEN, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(r.remote.addr, LEN, CANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_fence_signal_local_writes_value(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_fence_signal(r.q, r.local.seg, 64, 0x1122334455667788ull, NULL, 0, 0, 0), 0);
	assert_int_equal(wait_value((uint8_t *)r.local.addr + 64, 0x1122334455667788ull), 0);
	assert_int_equal(fixture_check(r.local.addr, 64, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check((uint8_t *)r.local.addr + 72, LEN - 72, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(r.remote.addr, LEN, CANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_fence_signal_remote_writes_value(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_fence_signal(r.q, NULL, 0, 0, r.rseg, 128, 0xdeadbeefcafef00dull, 0), 0);
	assert_int_equal(wait_value((uint8_t *)r.remote.addr + 128, 0xdeadbeefcafef00dull), 0);
	assert_int_equal(fixture_check(r.remote.addr, 128, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check((uint8_t *)r.remote.addr + 136, LEN - 136, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(r.local.addr, LEN, CANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_fence_signal_both_at_four_byte_offsets(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_fence_signal(r.q, r.local.seg, 4, 5, r.rseg, LEN - 12, 6, 0), 0);
	assert_int_equal(wait_value((uint8_t *)r.local.addr + 4, 5), 0);
	assert_int_equal(wait_value((uint8_t *)r.remote.addr + LEN - 12, 6), 0);
	assert_int_equal(fixture_check(r.local.addr, 4, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check((uint8_t *)r.remote.addr + LEN - 4, 4, CANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_fence_signal_after_posts_data_visible_first(void **state)
{
	struct rig r;
	int round;

	(void)state;
	rig_open(&r);
	for (round = 1; round <= 20; round++) {
		fixture_pattern(r.local.addr, 3072, (uint8_t)(60 + round), 0);
		post_write(&r, 0, 1024, 1);
		post_write(&r, 1024, 2048, 2);
		assert_rc(xrma_fence_signal(r.q, NULL, 0, 0, r.rseg, 3072, (uint64_t)round, 0), 0);
		assert_int_equal(wait_value((uint8_t *)r.remote.addr + 3072, (uint64_t)round), 0);
#ifdef UNDER_TSAN
		/* TSan needs a happens-before edge from the engine to this read. */
		assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
#endif
		/* The flag is visible, so the writes posted before it are too. */
		assert_int_equal(fixture_pattern_check(r.remote.addr, 3072, (uint8_t)(60 + round), 0),
				 FIXTURE_MATCH);
		assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	}
	rig_close(&r);
}

static void test_fence_signal_no_target_returns_einval(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_fence_signal(r.q, NULL, 0, 1, NULL, 0, 1, 0), XRMA_EINVAL);
	assert_rc(xrma_fence_signal(r.q, r.local.seg, 0, 1, NULL, 0, 0, 1u << 3), XRMA_EINVAL);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(fixture_check(r.local.addr, LEN, CANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_fence_signal_misaligned_returns_ealign_offset(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_fence_signal(r.q, r.local.seg, 2, 1, NULL, 0, 0, 0), XRMA_EALIGN_OFFSET);
	assert_rc(xrma_fence_signal(r.q, r.local.seg, 7, 1, NULL, 0, 0, 0), XRMA_EALIGN_OFFSET);
	assert_rc(xrma_fence_signal(r.q, NULL, 0, 0, r.rseg, 6, 1, 0), XRMA_EALIGN_OFFSET);
	/* One bad target fails the whole call: the good one is not written either. */
	assert_rc(xrma_fence_signal(r.q, r.local.seg, 8, 1, r.rseg, 1, 1, 0), XRMA_EALIGN_OFFSET);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(fixture_check(r.local.addr, LEN, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(r.remote.addr, LEN, CANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_fence_signal_outside_segment_returns_erange(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_fence_signal(r.q, r.local.seg, LEN - 4, 1, NULL, 0, 0, 0), XRMA_ERANGE);
	assert_rc(xrma_fence_signal(r.q, r.local.seg, LEN, 1, NULL, 0, 0, 0), XRMA_ERANGE);
	assert_rc(xrma_fence_signal(r.q, NULL, 0, 0, r.rseg, LEN - 4, 1, 0), XRMA_ERANGE);
	assert_rc(xrma_fence_signal(r.q, NULL, 0, 0, r.rseg, SIZE_MAX - 3, 1, 0), XRMA_ERANGE);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(fixture_check(r.local.addr, LEN, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(r.remote.addr, LEN, CANARY), FIXTURE_MATCH);
	rig_close(&r);
}

static void test_fence_signal_rights_missing_returns_eacces(void **state)
{
	struct rig r;
	struct fixture_seg ro;

	(void)state;
	rig_open_ex(&r, XRMA_ACCESS_ALL, XRMA_ACCESS_REMOTE_READ);
	assert_rc(fixture_seg_make(fx.ctx[0], LEN, XRMA_ACCESS_LOCAL_READ, false, 0, &ro), 0);
	fixture_fill(ro.addr, LEN, CANARY);
	assert_rc(xrma_fence_signal(r.q, ro.seg, 0, 1, NULL, 0, 0, 0), XRMA_EACCES);
	assert_rc(xrma_fence_signal(r.q, NULL, 0, 0, r.rseg, 0, 1, 0), XRMA_EACCES);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(fixture_check(ro.addr, LEN, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(r.remote.addr, LEN, CANARY), FIXTURE_MATCH);
	assert_rc(fixture_seg_close(&ro), 0);
	rig_close(&r);
}

/* Where the published words sit in the local segment. */
#define POSTED_AT 128
#define DONE_AT 136

static uint64_t word_at(const struct fixture_seg *seg, size_t offset)
{
	return __atomic_load_n((const uint64_t *)(const void *)((const uint8_t *)seg->addr + offset),
			       __ATOMIC_ACQUIRE);
}

static void test_fence_publish_tracks_posted_and_done_marks(void **state)
{
	struct rig r;
	uint64_t m = 0;

	(void)state;
	rig_open(&r);
	assert_rc(xrma_fence_mark(r.q, &m), 0);
	assert_rc(xrma_fence_publish(r.q, r.local.seg, POSTED_AT, DONE_AT, 0), 0);
	assert_true(word_at(&r.local, POSTED_AT) == m);
	assert_true(word_at(&r.local, DONE_AT) == m);
	fixture_pattern(r.remote.addr, LEN, 0, 0);
	/* Read the remote pattern into the part of the local segment the words leave alone. */
	for (size_t at = 1024; at < LEN; at += 1024) {
		struct xrma_iov v = { .seg = r.local.seg, .offset = at, .len = 1024 };

		assert_rc(xrma_dmaq_post(r.q, XRMA_RMA_READ, &v, 1, r.rseg, at, 1024, at,
					 XRMA_RMA_SUPPRESS), 0);
	}
	assert_rc(xrma_fence_mark(r.q, &m), 0);
	/* Posted is stored before the post returns; done follows the data. */
	assert_true(word_at(&r.local, POSTED_AT) == m);
	assert_int_equal(wait_value((uint8_t *)r.local.addr + DONE_AT, m), 0);
	assert_int_equal(fixture_pattern_check((uint8_t *)r.local.addr + 1024, LEN - 1024, 0, 1024),
			 FIXTURE_MATCH);
	assert_int_equal(fixture_check(r.local.addr, POSTED_AT, CANARY), FIXTURE_MATCH);
	assert_count(xrma_fence_test(r.q, m), 1);
	/* The published segment is the queue's until the queue closes. */
	assert_rc(xrma_seg_close(r.local.seg), XRMA_EBUSY);
	rig_close(&r);
}

static void test_fence_publish_replaced_or_stopped_leaves_old_words(void **state)
{
	struct fixture_seg other;
	struct rig r;
	uint64_t m = 0, first;

	(void)state;
	rig_open(&r);
	assert_rc(fixture_seg_make(fx.ctx[0], LEN, XRMA_ACCESS_ALL, false, 0, &other), 0);
	fixture_fill(other.addr, LEN, CANARY);
	assert_rc(xrma_fence_publish(r.q, r.local.seg, POSTED_AT, DONE_AT, 0), 0);
	post_write(&r, 2048, 1024, 1);
	assert_rc(xrma_fence_mark(r.q, &first), 0);
	assert_int_equal(wait_value((uint8_t *)r.local.addr + DONE_AT, first), 0);
	/* Moved: the first segment is free to close and its words stay as they were. */
	assert_rc(xrma_fence_publish(r.q, other.seg, 0, 8, 0), 0);
	post_write(&r, 3072, 1024, 2);
	assert_rc(xrma_fence_mark(r.q, &m), 0);
	assert_int_equal(wait_value((uint8_t *)other.addr + 8, m), 0);
	assert_true(word_at(&other, 0) == m);
	assert_true(word_at(&r.local, POSTED_AT) == first && word_at(&r.local, DONE_AT) == first);
	/* Stopped: the second keeps its last values through later posts. */
	assert_rc(xrma_fence_publish(r.q, NULL, 0, 0, 0), 0);
	post_write(&r, 3072, 1024, 3);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	assert_true(word_at(&other, 0) == m && word_at(&other, 8) == m);
	assert_int_equal(fixture_check((uint8_t *)other.addr + 16, LEN - 16, CANARY), FIXTURE_MATCH);
	assert_rc(fixture_seg_close(&other), 0);
	rig_close(&r);
}

static void test_fence_publish_bad_args_change_nothing(void **state)
{
	struct fixture_seg ro;
	struct xrma_dmaq *closed;
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_rc(fixture_seg_make(fx.ctx[0], LEN, XRMA_ACCESS_LOCAL_READ, false, 0, &ro), 0);
	fixture_fill(ro.addr, LEN, CANARY);
	assert_rc(xrma_dmaq_open(fx.ctx[0], 4, 0, &closed), 0);
	assert_rc(xrma_dmaq_close(closed), 0);
	assert_rc(xrma_fence_publish(closed, r.local.seg, 0, 8, 0), XRMA_EHANDLE);
	assert_rc(xrma_fence_publish(FIXTURE_FORGED(struct xrma_dmaq), r.local.seg, 0, 8, 0),
		  XRMA_EHANDLE);
	assert_rc(xrma_fence_publish(r.q, FIXTURE_FORGED(struct xrma_seg), 0, 8, 0), XRMA_EHANDLE);
	assert_rc(xrma_fence_publish(r.q, (struct xrma_seg *)r.rseg, 0, 8, 0), XRMA_EHANDLE);
	assert_rc(xrma_fence_publish(r.q, r.local.seg, 0, 8, 1), XRMA_EINVAL);
	assert_rc(xrma_fence_publish(r.q, r.local.seg, 16, 16, 0), XRMA_EINVAL);
	assert_rc(xrma_fence_publish(r.q, r.local.seg, 4, 16, 0), XRMA_EALIGN_OFFSET);
	assert_rc(xrma_fence_publish(r.q, r.local.seg, 0, 12, 0), XRMA_EALIGN_OFFSET);
	assert_rc(xrma_fence_publish(r.q, r.local.seg, LEN, 0, 0), XRMA_ERANGE);
	assert_rc(xrma_fence_publish(r.q, r.local.seg, 0, LEN, 0), XRMA_ERANGE);
	assert_rc(xrma_fence_publish(r.q, r.local.seg, SIZE_MAX - 7, 0, 0), XRMA_ERANGE);
	assert_rc(xrma_fence_publish(r.q, ro.seg, 0, 8, 0), XRMA_EACCES);
	/* A refused call holds nothing: both segments close, and no word was written. */
	post_write(&r, 0, 1024, 1);
	assert_rc(xrma_dmaq_drain(r.q, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(fixture_check(ro.addr, LEN, CANARY), FIXTURE_MATCH);
	assert_int_equal(fixture_check(r.local.addr, LEN, CANARY), FIXTURE_MATCH);
	assert_rc(fixture_seg_close(&ro), 0);
	rig_close(&r);
}

#define FENCE_THREADS 4

struct marker {
	struct rig *r;
	struct xrma_dmaq *q;
	unsigned id;
	int rc;
};

static void *marker_main(void *arg)
{
	struct marker *m = arg;
	size_t base = m->id * 1024;
	struct xrma_iov v = { .seg = m->r->local.seg, .offset = base, .len = 1024 };
	uint64_t mark, prev = 0;
	int i;

	for (i = 0; i < 100; i++) {
		if ((m->rc = xrma_dmaq_post(m->q, XRMA_RMA_WRITE, &v, 1, m->r->rseg, base, 1024, 0,
					    XRMA_RMA_SUPPRESS)))
			return NULL;
		if ((m->rc = xrma_fence_mark(m->q, &mark)))
			return NULL;
		if (i > 0 && mark <= prev) {
			m->rc = -1;
			return NULL;
		}
		prev = mark;
		if ((m->rc = xrma_fence_wait(m->q, mark, FIXTURE_TIMEOUT_MS)))
			return NULL;
		if (xrma_fence_test(m->q, mark) != 1) {
			m->rc = -2;
			return NULL;
		}
	}
	return NULL;
}

static void test_fence_mark_wait_concurrent_queues_succeed(void **state)
{
	struct marker m[FENCE_THREADS];
	pthread_t threads[FENCE_THREADS];
	struct rig r;
	size_t i;

	(void)state;
	rig_open(&r);
	fixture_pattern(r.local.addr, LEN, 70, 0);
	for (i = 0; i < FENCE_THREADS; i++) {
		m[i] = (struct marker){ .r = &r, .id = (unsigned)i };
		assert_rc(xrma_dmaq_open(fx.ctx[0], 8, 0, &m[i].q), 0);
		assert_int_equal(pthread_create(&threads[i], NULL, marker_main, &m[i]), 0);
	}
	for (i = 0; i < FENCE_THREADS; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 4, NULL), 0);
	for (i = 0; i < FENCE_THREADS; i++) {
		assert_rc(m[i].rc, 0);
		assert_rc(xrma_dmaq_close(m[i].q), 0);
	}
	assert_int_equal(fixture_pattern_check(r.remote.addr, LEN, 70, 0), FIXTURE_MATCH);
	rig_close(&r);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_fence_mark_idle_queue_completed),
		T(test_fence_wait_after_posts_all_data_landed),
		T(test_fence_mark_grows_with_posts),
		T(test_fence_wait_unknown_mark_returns_einval),
		T(test_fence_calls_bad_args_return_errors),
		T(test_fence_signal_local_writes_value),
		T(test_fence_signal_remote_writes_value),
		T(test_fence_signal_both_at_four_byte_offsets),
		T(test_fence_signal_after_posts_data_visible_first),
		T(test_fence_signal_no_target_returns_einval),
		T(test_fence_signal_misaligned_returns_ealign_offset),
		T(test_fence_signal_outside_segment_returns_erange),
		T(test_fence_signal_rights_missing_returns_eacces),
		T(test_fence_mark_wait_concurrent_queues_succeed),
		T(test_fence_publish_tracks_posted_and_done_marks),
		T(test_fence_publish_replaced_or_stopped_leaves_old_words),
		T(test_fence_publish_bad_args_change_nothing),
	};

	return cmocka_run_group_tests_name("fence", tests, fence_group_up, fence_group_down);
}
