/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_intr.c: interrupts (include/xrma/intr.h): numbers (fixed,
 * chosen in a range, per node), connecting to them, triggers with and without
 * data, size limits on both sides, the trigger queue's order and depth,
 * timeouts, close waking a blocked waiter, callback mode, bad handles, and
 * several threads triggering one interrupt. Node 1 owns the interrupts.
 */
#include "tests/helpers/fixture.h"

#include <string.h>

static struct fixture fx;

static int intr_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "intr", 3);
}

static int intr_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

/* An interrupt on node 1 and a connection to it from node 2. */
struct line {
	struct xrma_intr *intr;
	struct xrma_rintr *rintr;
	uint64_t number;
};

static void line_open(struct line *l)
{
	l->number = XRMA_ID_ANY;
	assert_rc(xrma_intr_open(fx.ctx[0], &l->number, 0, 0, 0, &l->intr), 0);
	assert_rc(xrma_rintr_open(fx.ctx[1], fx.node[0], l->number, FIXTURE_TIMEOUT_MS, &l->rintr), 0);
}

static void line_close(struct line *l)
{
	assert_rc(xrma_rintr_close(l->rintr), 0);
	if (l->intr)
		assert_rc(xrma_intr_close(l->intr), 0);
}

static void test_intr_open_any_default_range_writes_number(void **state)
{
	struct xrma_intr *a = NULL, *b = NULL;
	uint64_t na = XRMA_ID_ANY, nb = XRMA_ID_ANY, got = 0;

	(void)state;
	assert_rc(xrma_intr_open(fx.ctx[0], &na, 0, 0, 0, &a), 0);
	assert_rc(xrma_intr_open(fx.ctx[0], &nb, 0, 0, 0, &b), 0);
	assert_true(na != XRMA_ID_ANY);
	assert_true(nb != XRMA_ID_ANY);
	assert_true(na != nb);
	assert_rc(xrma_intr_number(a, &got), 0);
	assert_int_equal(got, na);
	assert_int_equal(fixture_count(fx.ctx[0]), 2);
	assert_rc(xrma_intr_close(a), 0);
	assert_rc(xrma_intr_close(b), 0);
}

static void test_intr_open_fixed_number_taken_returns_eaddrinuse(void **state)
{
	struct xrma_intr *a = NULL, *b = NULL, *other = NULL;
	uint64_t n = 77, got = 0;

	(void)state;
	assert_rc(xrma_intr_open(fx.ctx[0], &n, 0, 0, 0, &a), 0);
	assert_int_equal(n, 77);
	assert_rc(xrma_intr_number(a, &got), 0);
	assert_int_equal(got, 77);
	assert_rc(xrma_intr_open(fx.ctx[0], &n, 0, 0, 0, &b), XRMA_EADDRINUSE);
	assert_int_equal(fixture_count(fx.ctx[0]), 1);
	/* Numbers are per node. */
	assert_rc(xrma_intr_open(fx.ctx[1], &n, 0, 0, 0, &other), 0);
	assert_rc(xrma_intr_close(other), 0);
	assert_rc(xrma_intr_close(a), 0);
	/* Closing freed the number. */
	assert_rc(xrma_intr_open(fx.ctx[0], &n, 0, 0, 0, &b), 0);
	assert_rc(xrma_intr_close(b), 0);
}

static void test_intr_open_any_range_full_returns_enospc(void **state)
{
	struct xrma_intr *i[3] = { NULL };
	uint64_t n;
	size_t k;

	(void)state;
	for (k = 0; k < 2; k++) {
		n = XRMA_ID_ANY;
		assert_rc(xrma_intr_open(fx.ctx[0], &n, 500, 501, 0, &i[k]), 0);
		assert_in_range(n, 500, 501);
	}
	n = XRMA_ID_ANY;
	assert_rc(xrma_intr_open(fx.ctx[0], &n, 500, 501, 0, &i[2]), XRMA_ENOSPC);
	assert_int_equal(fixture_count(fx.ctx[0]), 2);
	for (k = 0; k < 2; k++)
		assert_rc(xrma_intr_close(i[k]), 0);
}

static void test_intr_open_bad_args_return_einval(void **state)
{
	struct xrma_intr *i = NULL;
	uint64_t n = XRMA_ID_ANY;

	(void)state;
	assert_rc(xrma_intr_open(fx.ctx[0], NULL, 0, 0, 0, &i), XRMA_EINVAL);
	assert_rc(xrma_intr_open(fx.ctx[0], &n, 0, 0, 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_intr_open(fx.ctx[0], &n, 0, 0, 1u << 4, &i), XRMA_EINVAL);
	n = XRMA_ID_ANY;
	assert_rc(xrma_intr_open(fx.ctx[0], &n, 600, 599, 0, &i), XRMA_EINVAL);
	n = XRMA_ID_ANY;
	assert_rc(xrma_intr_open(FIXTURE_FORGED(struct xrma_ctx), &n, 0, 0, 0, &i), XRMA_EHANDLE);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_intr_rintr_open_missing_target_returns_error(void **state)
{
	struct xrma_rintr *r = NULL;
	struct line l;

	(void)state;
	assert_rc(xrma_rintr_open(fx.ctx[1], fx.node[0], 0xabcdef, FIXTURE_TIMEOUT_MS, &r), XRMA_ENOENT);
	assert_rc(xrma_rintr_open(fx.ctx[1], 99, 1, FIXTURE_TIMEOUT_MS, &r), XRMA_ENODEV);
	line_open(&l);
	assert_rc(xrma_rintr_open(fx.ctx[1], fx.node[0], l.number, FIXTURE_TIMEOUT_MS, NULL), XRMA_EINVAL);
	assert_rc(xrma_rintr_open(FIXTURE_FORGED(struct xrma_ctx), fx.node[0], l.number,
				  FIXTURE_TIMEOUT_MS, &r), XRMA_EHANDLE);
	assert_int_equal(fixture_count(fx.ctx[1]), 1);
	line_close(&l);
}

static void test_intr_trigger_with_data_wait_receives_it(void **state)
{
	struct line l;
	char buf[16];
	size_t len = sizeof(buf);

	(void)state;
	line_open(&l);
	assert_rc(xrma_rintr_trigger(l.rintr, "ping", 4), 0);
	memset(buf, 0, sizeof(buf));
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_TIMEOUT_MS, buf, &len), 0);
	assert_int_equal(len, 4);
	assert_memory_equal(buf, "ping", 4);
	assert_int_equal(fixture_check(buf + 4, sizeof(buf) - 4, 0), FIXTURE_MATCH);
	line_close(&l);
}

static void test_intr_trigger_without_data_wait_len_zero(void **state)
{
	struct line l;
	uint8_t buf[8];
	size_t len = sizeof(buf);

	(void)state;
	line_open(&l);
	assert_rc(xrma_rintr_trigger(l.rintr, NULL, 0), 0);
	fixture_fill(buf, sizeof(buf), 0xcc);
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_TIMEOUT_MS, buf, &len), 0);
	assert_int_equal(len, 0);
	assert_int_equal(fixture_check(buf, sizeof(buf), 0xcc), FIXTURE_MATCH);
	line_close(&l);
}

static void test_intr_trigger_data_limit_enforced(void **state)
{
	static uint8_t src[XRMA_INTR_DATA_MAX + 1], dst[XRMA_INTR_DATA_MAX + 8];
	struct line l;
	size_t len = sizeof(dst);

	(void)state;
	line_open(&l);
	fixture_pattern(src, sizeof(src), 80, 0);
	assert_rc(xrma_rintr_trigger(l.rintr, src, XRMA_INTR_DATA_MAX + 1), XRMA_EMSGSIZE);
	assert_rc(xrma_rintr_trigger(l.rintr, src, XRMA_INTR_DATA_MAX), 0);
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_TIMEOUT_MS, dst, &len), 0);
	assert_int_equal(len, XRMA_INTR_DATA_MAX);
	assert_int_equal(fixture_pattern_check(dst, XRMA_INTR_DATA_MAX, 80, 0), FIXTURE_MATCH);
	/* The refused trigger never arrived. */
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_SHORT_MS, NULL, NULL), XRMA_ETIMEDOUT);
	line_close(&l);
}

static void test_intr_wait_small_buffer_emsgsize_consumes(void **state)
{
	struct line l;
	uint8_t src[100], dst[32];
	size_t len = 10;

	(void)state;
	line_open(&l);
	fixture_pattern(src, sizeof(src), 81, 0);
	assert_rc(xrma_rintr_trigger(l.rintr, src, sizeof(src)), 0);
	fixture_fill(dst, sizeof(dst), 0xcc);
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_TIMEOUT_MS, dst, &len), XRMA_EMSGSIZE);
	/* Cut to the capacity, nothing past it written. */
	assert_int_equal(fixture_pattern_check(dst, 10, 81, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_check(dst + 10, sizeof(dst) - 10, 0xcc), FIXTURE_MATCH);
	/* Consumed. */
	len = sizeof(dst);
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_SHORT_MS, dst, &len), XRMA_ETIMEDOUT);
	line_close(&l);
}

static void test_intr_wait_null_data_ignores_data(void **state)
{
	struct line l;

	(void)state;
	line_open(&l);
	assert_rc(xrma_rintr_trigger(l.rintr, "data", 4), 0);
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_TIMEOUT_MS, NULL, NULL), 0);
	assert_rc(xrma_intr_wait(l.intr, 0, NULL, NULL), XRMA_ETIMEDOUT);
	line_close(&l);
}

static void test_intr_wait_timeout_returns_etimedout(void **state)
{
	struct line l;
	uint64_t start;

	(void)state;
	line_open(&l);
	assert_rc(xrma_intr_wait(l.intr, 0, NULL, NULL), XRMA_ETIMEDOUT);
	start = fixture_now_ms();
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_SHORT_MS, NULL, NULL), XRMA_ETIMEDOUT);
	assert_true(fixture_now_ms() - start >= FIXTURE_SHORT_MS - 5);
	line_close(&l);
}

static void test_intr_wait_trigger_bad_args_return_einval(void **state)
{
	struct line l;
	uint8_t buf[8];

	(void)state;
	line_open(&l);
	assert_rc(xrma_intr_wait(l.intr, 0, buf, NULL), XRMA_EINVAL);
	assert_rc(xrma_rintr_trigger(l.rintr, NULL, 4), XRMA_EINVAL);
	assert_rc(xrma_intr_number(l.intr, NULL), XRMA_EINVAL);
	/* Nothing was triggered. */
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_SHORT_MS, NULL, NULL), XRMA_ETIMEDOUT);
	line_close(&l);
}

static void test_intr_triggers_delivered_in_order(void **state)
{
	struct line l;
	uint32_t i, got;
	size_t len;

	(void)state;
	line_open(&l);
	for (i = 0; i < 10; i++)
		assert_rc(xrma_rintr_trigger(l.rintr, &i, sizeof(i)), 0);
	for (i = 0; i < 10; i++) {
		len = sizeof(got);
		assert_rc(xrma_intr_wait(l.intr, FIXTURE_TIMEOUT_MS, &got, &len), 0);
		assert_int_equal(len, sizeof(got));
		assert_int_equal(got, i);
	}
	line_close(&l);
}

static void test_intr_trigger_queue_full_returns_eagain(void **state)
{
	struct line l;
	uint32_t i, got;
	size_t len;

	(void)state;
	line_open(&l);
	for (i = 0; i < XRMA_INTR_QUEUE_DEPTH; i++)
		assert_rc(xrma_rintr_trigger(l.rintr, &i, sizeof(i)), 0);
	assert_rc(xrma_rintr_trigger(l.rintr, &i, sizeof(i)), XRMA_EAGAIN);
	for (i = 0; i < XRMA_INTR_QUEUE_DEPTH; i++) {
		len = sizeof(got);
		assert_rc(xrma_intr_wait(l.intr, FIXTURE_TIMEOUT_MS, &got, &len), 0);
		assert_int_equal(got, i);
	}
	assert_rc(xrma_intr_wait(l.intr, 0, NULL, NULL), XRMA_ETIMEDOUT);
	/* Room again. */
	assert_rc(xrma_rintr_trigger(l.rintr, NULL, 0), 0);
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_TIMEOUT_MS, NULL, NULL), 0);
	line_close(&l);
}

struct intr_waiter {
	struct xrma_intr *intr;
	pid_t tid;
	int rc;
};

static void *intr_waiter_main(void *arg)
{
	struct intr_waiter *w = arg;

	__atomic_store_n(&w->tid, fixture_gettid(), __ATOMIC_RELEASE);
	w->rc = xrma_intr_wait(w->intr, FIXTURE_TIMEOUT_MS, NULL, NULL);
	return NULL;
}

static void test_intr_close_wakes_waiter_with_ecanceled(void **state)
{
	struct intr_waiter w;
	struct xrma_intr *intr = NULL;
	pthread_t thread;
	uint64_t n = XRMA_ID_ANY, end;

	(void)state;
	assert_rc(xrma_intr_open(fx.ctx[0], &n, 0, 0, 0, &intr), 0);
	w = (struct intr_waiter){ .intr = intr, .rc = 1 };
	assert_int_equal(pthread_create(&thread, NULL, intr_waiter_main, &w), 0);
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS;
	while (!__atomic_load_n(&w.tid, __ATOMIC_ACQUIRE) && fixture_now_ms() < end)
		;
	assert_int_equal(fixture_wait_blocked(w.tid, FIXTURE_TIMEOUT_MS / 2), 0);
	assert_rc(xrma_intr_close(intr), 0);
	assert_int_equal(fixture_join(thread, FIXTURE_TIMEOUT_MS, NULL), 0);
	assert_rc(w.rc, XRMA_ECANCELED);
	assert_rc(xrma_intr_wait(intr, 0, NULL, NULL), XRMA_EHANDLE);
}

/* A waiter that takes several plain triggers, counting what it got. */
struct counting_waiter {
	struct xrma_intr *intr;
	int want, got, rc;
};

static void *counting_waiter_main(void *arg)
{
	struct counting_waiter *w = arg;

	while (w->got < w->want) {
		w->rc = xrma_intr_wait(w->intr, FIXTURE_TIMEOUT_MS, NULL, NULL);
		if (w->rc)
			break;
		w->got++;
	}
	return NULL;
}

/*
 * Plain triggers are taken without the lock when nothing else is pending: two
 * waiting threads racing for them take each exactly once, none lost, none twice.
 */
static void test_intr_plain_triggers_racing_waiters_each_taken_once(void **state)
{
	enum { PER_WAITER = 200 };
	struct counting_waiter w[2];
	pthread_t thread[2];
	struct line l;

	(void)state;
	line_open(&l);
	for (int i = 0; i < 2; i++) {
		w[i] = (struct counting_waiter){ .intr = l.intr, .want = PER_WAITER };
		assert_int_equal(pthread_create(&thread[i], NULL, counting_waiter_main, &w[i]), 0);
	}
	for (int i = 0; i < 2 * PER_WAITER; i++)
		assert_rc(xrma_rintr_trigger(l.rintr, NULL, 0), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(fixture_join(thread[i], FIXTURE_TIMEOUT_MS, NULL), 0);
		assert_rc(w[i].rc, 0);
		assert_int_equal(w[i].got, PER_WAITER);
	}
	assert_rc(xrma_intr_wait(l.intr, 0, NULL, NULL), XRMA_ETIMEDOUT);
	line_close(&l);
}

static void test_intr_close_connected_trigger_returns_enoent(void **state)
{
	struct line l;
	uint64_t end;
	int rc;

	(void)state;
	line_open(&l);
	assert_rc(xrma_intr_close(l.intr), 0);
	l.intr = NULL;
	/* The removal reaches node 2 through the control channel: allow it the time. */
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS;
	do
		rc = xrma_rintr_trigger(l.rintr, NULL, 0);
	while (rc == 0 && fixture_now_ms() < end);
	assert_rc(rc, XRMA_ENOENT);
	assert_rc(xrma_rintr_trigger(l.rintr, "x", 1), XRMA_ENOENT);
	line_close(&l);
}

static void test_intr_owner_ctx_closed_trigger_returns_enoent(void **state)
{
	struct xrma_ctx *owner = NULL;
	struct xrma_intr *intr = NULL;
	struct xrma_rintr *rintr = NULL;
	uint64_t number = XRMA_ID_ANY, end;
	int rc;

	(void)state;
	/* An orderly close of the owner's context is a removal, not a death. */
	assert_rc(fixture_ctx_open(fx.fabric, 4, &owner), 0);
	assert_rc(xrma_intr_open(owner, &number, 0, 0, 0, &intr), 0);
	assert_rc(xrma_rintr_open(fx.ctx[1], 4, number, FIXTURE_TIMEOUT_MS, &rintr), 0);
	assert_rc(xrma_intr_close(intr), 0);
	assert_rc(xrma_ctx_close(owner), 0);
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS;
	do
		rc = xrma_rintr_trigger(rintr, NULL, 0);
	while (rc == 0 && fixture_now_ms() < end);
	assert_rc(rc, XRMA_ENOENT);
	assert_rc(xrma_rintr_trigger(rintr, NULL, 0), XRMA_ENOENT);
	assert_rc(xrma_rintr_close(rintr), 0);
}

struct intr_log {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t calls;
	char data[32];
	size_t len;
	pthread_t thread;
};

static void intr_log_cb(void *arg, const void *data, size_t len)
{
	struct intr_log *log = arg;

	pthread_mutex_lock(&log->lock);
	log->calls++;
	log->len = len;
	memcpy(log->data, data, len < sizeof(log->data) ? len : sizeof(log->data));
	log->thread = pthread_self();
	pthread_cond_broadcast(&log->cond);
	pthread_mutex_unlock(&log->lock);
}

static void test_intr_callback_receives_data_wait_returns_estate(void **state)
{
	struct intr_log log = { .calls = 0 };
	struct timespec deadline;
	struct line l;
	char buf[8];
	size_t len = sizeof(buf);

	(void)state;
	pthread_mutex_init(&log.lock, NULL);
	pthread_cond_init(&log.cond, NULL);
	line_open(&l);
	assert_rc(xrma_intr_set_callback(l.intr, intr_log_cb, &log), 0);
	assert_rc(xrma_intr_wait(l.intr, 0, NULL, NULL), XRMA_ESTATE);
	assert_rc(xrma_rintr_trigger(l.rintr, "abc", 3), 0);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += FIXTURE_TIMEOUT_MS / 1000;
	pthread_mutex_lock(&log.lock);
	while (log.calls == 0 && pthread_cond_timedwait(&log.cond, &log.lock, &deadline) == 0)
		;
	assert_int_equal(log.calls, 1);
	assert_int_equal(log.len, 3);
	assert_memory_equal(log.data, "abc", 3);
	assert_false(pthread_equal(log.thread, pthread_self()));
	pthread_mutex_unlock(&log.lock);
	/* Back to waiting. */
	assert_rc(xrma_intr_set_callback(l.intr, NULL, NULL), 0);
	assert_rc(xrma_rintr_trigger(l.rintr, "de", 2), 0);
	assert_rc(xrma_intr_wait(l.intr, FIXTURE_TIMEOUT_MS, buf, &len), 0);
	assert_int_equal(len, 2);
	assert_memory_equal(buf, "de", 2);
	pthread_mutex_lock(&log.lock);
	assert_int_equal(log.calls, 1);
	pthread_mutex_unlock(&log.lock);
	line_close(&l);
	pthread_cond_destroy(&log.cond);
	pthread_mutex_destroy(&log.lock);
}

static void test_intr_calls_bad_handle_return_ehandle(void **state)
{
	struct line l;
	struct xrma_intr *intr;
	struct xrma_rintr *rintr;
	uint64_t n;

	(void)state;
	line_open(&l);
	intr = l.intr;
	rintr = l.rintr;
	line_close(&l);
	assert_rc(xrma_intr_close(intr), XRMA_EHANDLE);
	assert_rc(xrma_intr_wait(intr, 0, NULL, NULL), XRMA_EHANDLE);
	assert_rc(xrma_intr_number(intr, &n), XRMA_EHANDLE);
	assert_rc(xrma_intr_set_callback(intr, NULL, NULL), XRMA_EHANDLE);
	assert_rc(xrma_rintr_close(rintr), XRMA_EHANDLE);
	assert_rc(xrma_rintr_trigger(rintr, NULL, 0), XRMA_EHANDLE);
	assert_rc(xrma_intr_wait(FIXTURE_FORGED(struct xrma_intr), 0, NULL, NULL), XRMA_EHANDLE);
	assert_rc(xrma_rintr_trigger(FIXTURE_FORGED(struct xrma_rintr), NULL, 0), XRMA_EHANDLE);
	/* Wrong types: a live rintr is not an intr and the other way round. */
	line_open(&l);
	assert_rc(xrma_intr_wait((struct xrma_intr *)l.rintr, 0, NULL, NULL), XRMA_EHANDLE);
	assert_rc(xrma_rintr_trigger((struct xrma_rintr *)l.intr, NULL, 0), XRMA_EHANDLE);
	assert_rc(xrma_intr_close((struct xrma_intr *)fx.ctx[0]), XRMA_EHANDLE);
	assert_null_handle_rc(xrma_intr_close(NULL));
	assert_null_handle_rc(xrma_rintr_close(NULL));
	line_close(&l);
}

#define TRIG_THREADS 4
#define TRIGS_PER_THREAD 100

struct trigger_worker {
	struct xrma_rintr *rintr;
	struct fixture_barrier *barrier;
	uint32_t id;
	int rc;
};

static void *trigger_main(void *arg)
{
	struct trigger_worker *t = arg;
	uint32_t rec[2], i;
	uint64_t end;
	int rc;

	if ((t->rc = fixture_barrier_wait(t->barrier, FIXTURE_TIMEOUT_MS)))
		return NULL;
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS * 3;
	for (i = 0; i < TRIGS_PER_THREAD;) {
		rec[0] = t->id;
		rec[1] = i;
		rc = xrma_rintr_trigger(t->rintr, rec, sizeof(rec));
		if (rc == 0) {
			i++;
		} else if (rc != -XRMA_EAGAIN || fixture_now_ms() > end) {
			t->rc = rc;
			return NULL;
		}
	}
	return NULL;
}

static void test_intr_trigger_concurrent_threads_all_delivered(void **state)
{
	struct trigger_worker t[TRIG_THREADS];
	pthread_t threads[TRIG_THREADS];
	struct fixture_barrier barrier;
	struct xrma_rintr *r3;
	uint32_t next[TRIG_THREADS] = { 0 }, rec[2];
	struct line l;
	size_t i, len;

	(void)state;
	line_open(&l);
	assert_rc(xrma_rintr_open(fx.ctx[2], fx.node[0], l.number, FIXTURE_TIMEOUT_MS, &r3), 0);
	fixture_barrier_init(&barrier, TRIG_THREADS);
	for (i = 0; i < TRIG_THREADS; i++) {
		t[i] = (struct trigger_worker){ .rintr = i % 2 ? r3 : l.rintr, .barrier = &barrier,
						.id = (uint32_t)i };
		assert_int_equal(pthread_create(&threads[i], NULL, trigger_main, &t[i]), 0);
	}
	for (i = 0; i < TRIG_THREADS * TRIGS_PER_THREAD; i++) {
		len = sizeof(rec);
		assert_rc(xrma_intr_wait(l.intr, FIXTURE_TIMEOUT_MS, rec, &len), 0);
		assert_int_equal(len, sizeof(rec));
		assert_true(rec[0] < TRIG_THREADS);
		/* Each thread's triggers arrive in the order it made them. */
		assert_int_equal(rec[1], next[rec[0]]);
		next[rec[0]]++;
	}
	for (i = 0; i < TRIG_THREADS; i++) {
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS, NULL), 0);
		assert_rc(t[i].rc, 0);
	}
	fixture_barrier_destroy(&barrier);
	assert_rc(xrma_intr_wait(l.intr, 0, NULL, NULL), XRMA_ETIMEDOUT);
	assert_rc(xrma_rintr_close(r3), 0);
	line_close(&l);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

#ifdef TEST_INTR_MESSAGES_ONLY
#include "core/registry.h"
#include "providers/loopback/loopback.h"

/*
 * Loopback without load/store mapping or atomics: interrupts fall back to
 * triggers as messages (the path providers without mapping, ofi, take), so
 * this build of the suite covers that path while the plain build covers the
 * trigger page.
 */
static struct xrma_caps messages_only_caps;
static struct xrma_provider_ops messages_only_ops;
static struct xrma_provider messages_only = {
	.name = "loopback-messages",
	.description = "loopback without mapping (interrupt message path)",
	.caps = &messages_only_caps,
	.ops = &messages_only_ops,
};

static void use_messages_only_provider(void)
{
	messages_only_caps = xrma_prov_loopback_caps;
	messages_only_caps.flags &= ~(XRMA_CAP_MAP | XRMA_CAP_ATOMIC);
	messages_only_ops = *xrma_prov_loopback.ops;
	messages_only_ops.map = NULL;
	messages_only_ops.unmap = NULL;
	messages_only_ops.atomic = NULL;
	if (xrma_registry_add(&messages_only) != 0)
		abort();
	setenv("XRMA_TEST_PROVIDER", messages_only.name, 1);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_intr_open_any_default_range_writes_number),
		T(test_intr_open_fixed_number_taken_returns_eaddrinuse),
		T(test_intr_open_any_range_full_returns_enospc),
		T(test_intr_open_bad_args_return_einval),
		T(test_intr_rintr_open_missing_target_returns_error),
		T(test_intr_trigger_with_data_wait_receives_it),
		T(test_intr_trigger_without_data_wait_len_zero),
		T(test_intr_trigger_data_limit_enforced),
		T(test_intr_wait_small_buffer_emsgsize_consumes),
		T(test_intr_wait_null_data_ignores_data),
		T(test_intr_wait_timeout_returns_etimedout),
		T(test_intr_wait_trigger_bad_args_return_einval),
		T(test_intr_triggers_delivered_in_order),
		T(test_intr_trigger_queue_full_returns_eagain),
		T(test_intr_close_wakes_waiter_with_ecanceled),
		T(test_intr_plain_triggers_racing_waiters_each_taken_once),
		T(test_intr_close_connected_trigger_returns_enoent),
		T(test_intr_owner_ctx_closed_trigger_returns_enoent),
		T(test_intr_callback_receives_data_wait_returns_estate),
		T(test_intr_calls_bad_handle_return_ehandle),
		T(test_intr_trigger_concurrent_threads_all_delivered),
	};

#ifdef TEST_INTR_MESSAGES_ONLY
	use_messages_only_provider();
	return cmocka_run_group_tests_name("intr (messages only)", tests, intr_group_up, intr_group_down);
#else
	return cmocka_run_group_tests_name("intr", tests, intr_group_up, intr_group_down);
#endif
}
