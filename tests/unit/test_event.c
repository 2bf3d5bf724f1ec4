/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_event.c: object events (include/xrma/event.h) as seen
 * through segments and remote segments: queue order, the queue depth with
 * oldest-first dropping, callbacks on the service thread that call the API
 * (even closing their own object), never concurrent per object, and a blocked
 * waiter woken by an event. Node 1 owns; nodes 2 and 3 import.
 */
#include "tests/helpers/fixture.h"

#include <string.h>

#define RW (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)

static struct fixture fx;

static int event_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "event", 3);
}

static int event_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

static int import(size_t from, uint64_t id, struct xrma_rseg **rseg)
{
	return xrma_rseg_open(fx.ctx[from], fx.node[0], id, RW, 0, FIXTURE_TIMEOUT_MS, rseg);
}

static void expect_event(struct xrma_seg *seg, enum xrma_event_type type, uint32_t node)
{
	struct xrma_event ev;

	memset(&ev, 0, sizeof(ev));
	assert_rc(xrma_seg_wait_event(seg, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, type);
	assert_int_equal(ev.node, node);
	assert_int_equal(ev.status, 0);
}

static void test_event_queue_keeps_arrival_order(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *r2, *r3;
	struct xrma_event ev;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(import(1, s.id, &r2), 0);
	assert_rc(import(2, s.id, &r3), 0);
	assert_rc(xrma_rseg_close(r2), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 1, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_rseg_close(r3), 0);
	expect_event(s.seg, XRMA_EVENT_CONNECT, fx.node[1]);
	expect_event(s.seg, XRMA_EVENT_CONNECT, fx.node[2]);
	expect_event(s.seg, XRMA_EVENT_DISCONNECT, fx.node[1]);
	expect_event(s.seg, XRMA_EVENT_DISCONNECT, fx.node[2]);
	assert_rc(xrma_seg_wait_event(s.seg, 0, &ev), XRMA_ETIMEDOUT);
	assert_rc(fixture_seg_close(&s), 0);
}

#define CYCLES 35   /* 70 events: 6 more than XRMA_EVENT_QUEUE_DEPTH */

static void test_event_queue_overflow_drops_oldest(void **state)
{
	struct fixture_seg s, sync;
	struct xrma_rseg *r;
	struct xrma_event ev;
	int i;

	(void)state;
	assert_int_equal(XRMA_EVENT_QUEUE_DEPTH, 64);
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &sync), 0);
	for (i = 0; i < CYCLES; i++) {
		assert_rc(import(1, s.id, &r), 0);
		assert_rc(xrma_rseg_close(r), 0);
	}
	/*
	 * Control messages are ordered per source and handled by one service thread:
	 * once an import of another segment has been answered, node 1 has handled
	 * every earlier message from node 2, so all 70 events are queued.
	 */
	assert_rc(import(1, sync.id, &r), 0);
	assert_rc(xrma_rseg_close(r), 0);
	for (i = 2 * CYCLES - XRMA_EVENT_QUEUE_DEPTH; i < 2 * CYCLES; i++)
		expect_event(s.seg, i % 2 ? XRMA_EVENT_DISCONNECT : XRMA_EVENT_CONNECT, fx.node[1]);
	assert_rc(xrma_seg_wait_event(s.seg, 0, &ev), XRMA_ETIMEDOUT);
	assert_int_equal(fixture_wait_importers(sync.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&sync), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

struct api_cb {
	struct fixture_events log;
	struct xrma_seg *seg;
	int rc;      /* under log.lock */
	size_t importers;
};

static void api_calling_cb(void *arg, const struct xrma_event *event)
{
	struct api_cb *a = arg;
	size_t n = 0;
	int rc = xrma_seg_importers(a->seg, &n);

	pthread_mutex_lock(&a->log.lock);
	a->rc = rc;
	a->importers = n;
	pthread_mutex_unlock(&a->log.lock);
	fixture_events_cb(&a->log, event);
}

static void test_event_callback_on_service_thread_may_call_api(void **state)
{
	struct api_cb a;
	struct fixture_seg s;
	struct xrma_rseg *r;

	(void)state;
	fixture_events_init(&a.log);
	a.rc = 1;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	a.seg = s.seg;
	assert_rc(xrma_seg_set_callback(s.seg, api_calling_cb, &a), 0);
	assert_rc(import(1, s.id, &r), 0);
	assert_int_equal(fixture_events_wait(&a.log, 1, FIXTURE_TIMEOUT_MS), 0);
	pthread_mutex_lock(&a.log.lock);
	assert_rc(a.rc, 0);
	assert_int_equal(a.log.ev[0].type, XRMA_EVENT_CONNECT);
	assert_false(pthread_equal(a.log.thread[0], pthread_self()));
	pthread_mutex_unlock(&a.log.lock);
	assert_rc(xrma_rseg_close(r), 0);
	assert_int_equal(fixture_events_wait(&a.log, 2, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_set_callback(s.seg, NULL, NULL), 0);
	assert_rc(fixture_seg_close(&s), 0);
	fixture_events_destroy(&a.log);
}

static void test_event_callback_set_events_not_queued(void **state)
{
	struct fixture_events log;
	struct fixture_seg s;
	struct xrma_rseg *r;
	struct xrma_event ev;

	(void)state;
	fixture_events_init(&log);
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(xrma_seg_set_callback(s.seg, fixture_events_cb, &log), 0);
	assert_rc(import(1, s.id, &r), 0);
	assert_int_equal(fixture_events_wait(&log, 1, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_set_callback(s.seg, NULL, NULL), 0);
	/* What the callback took is not also in the queue. */
	assert_rc(xrma_seg_wait_event(s.seg, FIXTURE_SHORT_MS, &ev), XRMA_ETIMEDOUT);
	assert_rc(xrma_rseg_close(r), 0);
	expect_event(s.seg, XRMA_EVENT_DISCONNECT, fx.node[1]);
	assert_int_equal(fixture_events_count(&log), 1);
	assert_rc(fixture_seg_close(&s), 0);
	fixture_events_destroy(&log);
}

struct serial_cb {
	struct fixture_events log;
	int inside;       /* atomic */
	int overlap;      /* atomic */
};

static void serial_check_cb(void *arg, const struct xrma_event *event)
{
	struct serial_cb *c = arg;
	volatile unsigned spin;

	if (__atomic_add_fetch(&c->inside, 1, __ATOMIC_ACQ_REL) != 1)
		__atomic_store_n(&c->overlap, 1, __ATOMIC_RELEASE);
	for (spin = 0; spin < 20000; spin++)
		;
	__atomic_sub_fetch(&c->inside, 1, __ATOMIC_ACQ_REL);
	fixture_events_cb(&c->log, event);
}

struct churner {
	struct xrma_ctx *ctx;
	uint32_t owner;
	uint64_t id;
	struct fixture_barrier *barrier;
	int rc;
};

static void *churn_main(void *arg)
{
	struct churner *c = arg;
	struct xrma_rseg *r;
	int i;

	if ((c->rc = fixture_barrier_wait(c->barrier, FIXTURE_TIMEOUT_MS)))
		return NULL;
	for (i = 0; i < 20; i++) {
		if ((c->rc = xrma_rseg_open(c->ctx, c->owner, c->id, RW, 0, FIXTURE_TIMEOUT_MS, &r)))
			return NULL;
		if ((c->rc = xrma_rseg_close(r)))
			return NULL;
	}
	return NULL;
}

static void test_event_callback_never_concurrent_per_object(void **state)
{
	struct serial_cb cb = { .inside = 0, .overlap = 0 };
	struct churner c[2];
	pthread_t threads[2];
	struct fixture_barrier barrier;
	struct fixture_seg s;
	size_t i;

	(void)state;
	fixture_events_init(&cb.log);
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(xrma_seg_set_callback(s.seg, serial_check_cb, &cb), 0);
	fixture_barrier_init(&barrier, 2);
	for (i = 0; i < 2; i++) {
		c[i] = (struct churner){ .ctx = fx.ctx[1 + i], .owner = fx.node[0], .id = s.id,
					 .barrier = &barrier };
		assert_int_equal(pthread_create(&threads[i], NULL, churn_main, &c[i]), 0);
	}
	for (i = 0; i < 2; i++) {
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 3, NULL), 0);
		assert_rc(c[i].rc, 0);
	}
	fixture_barrier_destroy(&barrier);
	assert_int_equal(fixture_events_wait(&cb.log, 80, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(__atomic_load_n(&cb.overlap, __ATOMIC_ACQUIRE), 0);
	assert_rc(xrma_seg_set_callback(s.seg, NULL, NULL), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
	fixture_events_destroy(&cb.log);
}

struct closing_cb {
	struct fixture_events log;
	struct xrma_rseg *rseg;
	int rc;   /* under log.lock */
};

static void close_self_cb(void *arg, const struct xrma_event *event)
{
	struct closing_cb *c = arg;
	int rc = 1;

	if (event->type == XRMA_EVENT_DISCONNECT)
		rc = xrma_rseg_close(c->rseg);
	pthread_mutex_lock(&c->log.lock);
	c->rc = rc;
	pthread_mutex_unlock(&c->log.lock);
	fixture_events_cb(&c->log, event);
}

static void test_event_callback_closes_own_rseg_on_notify(void **state)
{
	struct closing_cb c;
	struct fixture_seg s;

	(void)state;
	fixture_events_init(&c.log);
	c.rc = 2;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(import(1, s.id, &c.rseg), 0);
	assert_rc(xrma_rseg_set_callback(c.rseg, close_self_cb, &c), 0);
	assert_rc(xrma_seg_unexport(s.seg, XRMA_UNEXPORT_NOTIFY), 0);
	assert_int_equal(fixture_events_wait(&c.log, 1, FIXTURE_TIMEOUT_MS), 0);
	pthread_mutex_lock(&c.log.lock);
	assert_int_equal(c.log.ev[0].type, XRMA_EVENT_DISCONNECT);
	assert_rc(c.rc, 0);
	pthread_mutex_unlock(&c.log.lock);
	/* The owner saw the importer leave. */
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(fixture_count(fx.ctx[1]), 0);
	assert_rc(fixture_seg_close(&s), 0);
	fixture_events_destroy(&c.log);
}

struct event_waiter {
	struct xrma_seg *seg;
	struct xrma_event ev;
	pid_t tid;
	int rc;
};

static void *event_waiter_main(void *arg)
{
	struct event_waiter *w = arg;

	__atomic_store_n(&w->tid, fixture_gettid(), __ATOMIC_RELEASE);
	w->rc = xrma_seg_wait_event(w->seg, FIXTURE_TIMEOUT_MS, &w->ev);
	return NULL;
}

static void test_event_wait_blocked_thread_woken_by_event(void **state)
{
	struct event_waiter w;
	struct fixture_seg s;
	struct xrma_rseg *r;
	pthread_t thread;
	uint64_t end;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s), 0);
	w = (struct event_waiter){ .seg = s.seg, .rc = 1 };
	assert_int_equal(pthread_create(&thread, NULL, event_waiter_main, &w), 0);
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS;
	while (!__atomic_load_n(&w.tid, __ATOMIC_ACQUIRE) && fixture_now_ms() < end)
		;
	assert_int_equal(fixture_wait_blocked(w.tid, FIXTURE_TIMEOUT_MS / 2), 0);
	assert_rc(import(2, s.id, &r), 0);
	assert_int_equal(fixture_join(thread, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	assert_rc(w.rc, 0);
	assert_int_equal(w.ev.type, XRMA_EVENT_CONNECT);
	assert_int_equal(w.ev.node, fx.node[2]);
	assert_rc(xrma_rseg_close(r), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_event_queue_keeps_arrival_order),
		T(test_event_queue_overflow_drops_oldest),
		T(test_event_callback_on_service_thread_may_call_api),
		T(test_event_callback_set_events_not_queued),
		T(test_event_callback_never_concurrent_per_object),
		T(test_event_callback_closes_own_rseg_on_notify),
		T(test_event_wait_blocked_thread_woken_by_event),
	};

	return cmocka_run_group_tests_name("event", tests, event_group_up, event_group_down);
}
