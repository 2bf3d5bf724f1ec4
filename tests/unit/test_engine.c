/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_engine.c: the DMA engine with a provider that posts
 * transfers asynchronously (rma_post). The provider is loopback with an
 * rma_post that only records each transfer; the test decides when, in which
 * order and with which status each one finishes (the copy is loopback's rma).
 * Covered: several in flight, completions reported in posting order whatever
 * the finishing order, a fence held back until earlier transfers completed,
 * errors and refused posts, done called before rma_post returns, a synchronous
 * post behind asynchronous ones, abort of transfers not yet started. The
 * second group runs them again with rma_poll (the caller posts while the
 * engine is idle and a waiter drives completions), plus what that changes:
 * which thread posts and finishes, order, fences, and completions that another
 * thread reads while a waiter drives.
 */
#include "tests/helpers/fixture.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include "core/registry.h"
#include "providers/loopback/loopback.h"

#define LEN FIXTURE_PAGE
#define POSTED_MAX 64

/* One recorded transfer. */
struct posted {
	void *state;
	enum xrma_rma_op op;
	struct xrma_prov_rmem *rmem;
	size_t offset;
	struct iovec iov[XRMA_IOV_MAX];
	size_t count;
	void (*done)(void *arg, int status);
	void *arg;
	size_t finished_before;   /* transfers finished when this one was posted */
	bool finished;
	pthread_t poster;         /* the thread that called rma_post */
};

static struct {
	pthread_mutex_t lock;
	struct posted p[POSTED_MAX];
	size_t n;                 /* posted so far */
	size_t finished;          /* finished so far */
	int refuse;               /* non-zero: rma_post returns it */
	bool at_once;             /* finish inside rma_post */
	bool progress_finishes;   /* rma_poll finishes the oldest unfinished transfer */
	size_t progress_calls;
	pthread_t progress_thread;   /* the last caller of rma_poll */
} mock = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void finish(size_t i, int status);

static int deferred_rma_post(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
			     const struct iovec *iov, size_t count, uint32_t flags,
			     void (*done)(void *arg, int status), void *arg)
{
	size_t i;
	bool at_once;

	(void)flags;
	pthread_mutex_lock(&mock.lock);
	if (mock.refuse || mock.n == POSTED_MAX) {
		int ret = mock.refuse ? mock.refuse : -XRMA_ENOMEM;

		pthread_mutex_unlock(&mock.lock);
		return ret;
	}
	i = mock.n;
	mock.p[i] = (struct posted){ .state = state, .op = op, .rmem = rmem, .offset = offset,
				     .count = count, .done = done, .arg = arg,
				     .finished_before = mock.finished, .poster = pthread_self() };
	memcpy(mock.p[i].iov, iov, count * sizeof(*iov));
	at_once = mock.at_once;
	mock.n++;
	pthread_mutex_unlock(&mock.lock);
	if (at_once)
		finish(i, 0);
	return 0;
}

/* Finish transfer i: copy through loopback unless status says it failed, then report. */
static void finish(size_t i, int status)
{
	struct posted *p = &mock.p[i];

	if (!status)
		status = xrma_prov_loopback.ops->rma(p->state, p->op, p->rmem, p->offset, p->iov, p->count, 0);
	pthread_mutex_lock(&mock.lock);
	p->finished = true;
	mock.finished++;
	pthread_mutex_unlock(&mock.lock);
	p->done(p->arg, status);
}

/* The driving waiter's read of completions: finishes the oldest unfinished transfer if told. */
static int deferred_rma_progress(void *state)
{
	size_t i;

	(void)state;
	pthread_mutex_lock(&mock.lock);
	mock.progress_calls++;
	mock.progress_thread = pthread_self();
	for (i = 0; i < mock.n && mock.p[i].finished; i++)
		;
	if (!mock.progress_finishes || i == mock.n) {
		pthread_mutex_unlock(&mock.lock);
		return 0;
	}
	pthread_mutex_unlock(&mock.lock);
	finish(i, 0);
	return 1;
}

static void set_progress_finishes(bool on)
{
	pthread_mutex_lock(&mock.lock);
	mock.progress_finishes = on;
	pthread_mutex_unlock(&mock.lock);
}

static size_t posted_count(void)
{
	size_t n;

	pthread_mutex_lock(&mock.lock);
	n = mock.n;
	pthread_mutex_unlock(&mock.lock);
	return n;
}

/* Bounded wait until want transfers were posted. */
static int wait_posted(size_t want)
{
	uint64_t end = fixture_now_ms() + FIXTURE_TIMEOUT_MS;

	while (posted_count() < want) {
		if (fixture_now_ms() > end)
			return -1;
		sched_yield();
	}
	return 0;
}

static struct xrma_caps deferred_caps;
static struct xrma_provider_ops deferred_ops;
static struct xrma_provider deferred = {
	.name = "loopback-deferred",
	.description = "loopback whose transfers finish when the test says",
	.caps = &deferred_caps,
	.ops = &deferred_ops,
};

static struct fixture fx;

static int engine_group_up(void **state)
{
	(void)state;
	deferred_caps = xrma_prov_loopback_caps;
	deferred_ops = *xrma_prov_loopback.ops;
	deferred_ops.rma_post = deferred_rma_post;
	if (xrma_registry_add(&deferred) != 0)
		return -1;
	setenv("XRMA_TEST_PROVIDER", deferred.name, 1);
	return fixture_open(&fx, "engine", 2);
}

static int driven_group_up(void **state)
{
	(void)state;
	deferred_ops.rma_poll = deferred_rma_progress;
	return fixture_open(&fx, "engine-driven", 2);
}

static int engine_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

struct rig {
	struct fixture_seg local, remote;
	struct xrma_rseg *rseg;
	struct xrma_dmaq *q;
};

static int rig_up(void **state)
{
	static struct rig r;

	pthread_mutex_lock(&mock.lock);
	mock.n = mock.finished = 0;
	mock.refuse = 0;
	mock.at_once = false;
	mock.progress_finishes = false;
	mock.progress_calls = 0;
	pthread_mutex_unlock(&mock.lock);
	if (fixture_test_up(state))
		return -1;
	memset(&r, 0, sizeof(r));
	if (fixture_seg_make(fx.ctx[0], 16 * LEN, XRMA_ACCESS_ALL, false, 5, &r.local) ||
	    fixture_seg_make(fx.ctx[1], 16 * LEN, XRMA_ACCESS_ALL, true, 0, &r.remote) ||
	    xrma_rseg_open(fx.ctx[0], fx.node[1], r.remote.id, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
			   0, FIXTURE_TIMEOUT_MS, &r.rseg) ||
	    xrma_dmaq_open(fx.ctx[0], 16, 0, &r.q))
		return -1;
	*state = &r;
	return 0;
}

static int rig_down(void **state)
{
	struct rig *r = *state;

	if (xrma_dmaq_close(r->q) || xrma_rseg_close(r->rseg) ||
	    fixture_wait_importers(r->remote.seg, 0, FIXTURE_TIMEOUT_MS) ||
	    fixture_seg_close(&r->remote) || fixture_seg_close(&r->local))
		return -1;
	return fixture_test_down(state);
}

/* Write piece i of the local segment to piece i of the remote one. */
static int post_write(struct rig *r, size_t i, uint32_t flags)
{
	struct xrma_iov v = { .seg = r->local.seg, .offset = i * LEN, .len = LEN };

	return xrma_dmaq_post(r->q, XRMA_RMA_WRITE, &v, 1, r->rseg, i * LEN, LEN, 100 + i, flags);
}

static void test_engine_post_many_all_in_flight_at_once(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c;

	for (size_t i = 0; i < 8; i++)
		assert_rc(post_write(r, i, 0), 0);
	assert_int_equal(wait_posted(8), 0);
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(mock.p[i].finished_before, 0);
	for (size_t i = 0; i < 8; i++)
		finish(i, 0);
	for (size_t i = 0; i < 8; i++) {
		assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(c.cookie, 100 + i);
		assert_int_equal(c.status, 0);
	}
	assert_int_equal(fixture_pattern_check(r->remote.addr, 8 * LEN, 5, 0), FIXTURE_MATCH);
}

static void test_engine_finished_out_of_order_reported_in_posting_order(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c;
	size_t outstanding = 0;

	for (size_t i = 0; i < 6; i++)
		assert_rc(post_write(r, i, 0), 0);
	assert_int_equal(wait_posted(6), 0);
	for (size_t i = 5; i > 0; i--)
		finish(i, 0);
	/* The first is still running: nothing may be reported before it. */
	assert_rc(xrma_dmaq_poll(r->q, &c, 1), 0);
	assert_rc(xrma_dmaq_outstanding(r->q, &outstanding), 0);
	assert_int_equal(outstanding, 6);
	finish(0, 0);
	for (size_t i = 0; i < 6; i++) {
		assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(c.cookie, 100 + i);
	}
}

static void test_engine_fence_starts_after_earlier_completed(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c;

	assert_rc(post_write(r, 0, 0), 0);
	assert_rc(post_write(r, 1, 0), 0);
	assert_rc(post_write(r, 2, XRMA_RMA_FENCE), 0);
	assert_rc(post_write(r, 3, 0), 0);
	assert_int_equal(wait_posted(2), 0);
	finish(1, 0);
	finish(0, 0);
	assert_int_equal(wait_posted(4), 0);
	/* Posted only once both earlier ones had finished; the one behind it waited for that too. */
	assert_int_equal(mock.p[2].finished_before, 2);
	assert_int_equal(mock.p[3].finished_before, 2);
	finish(3, 0);
	finish(2, 0);
	for (size_t i = 0; i < 4; i++) {
		assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(c.cookie, 100 + i);
	}
}

static void test_engine_errors_and_refused_posts_complete_with_status(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c;

	assert_rc(post_write(r, 0, 0), 0);
	assert_int_equal(wait_posted(1), 0);
	finish(0, -XRMA_ELOST);
	assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.status, -XRMA_ELOST);
	assert_int_equal(c.len, 0);
	pthread_mutex_lock(&mock.lock);
	mock.refuse = -XRMA_ETRANSFER;
	pthread_mutex_unlock(&mock.lock);
	assert_rc(post_write(r, 1, 0), 0);
	assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.cookie, 101);
	assert_int_equal(c.status, -XRMA_ETRANSFER);
}

static void test_engine_done_before_post_returns_completes(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c;

	pthread_mutex_lock(&mock.lock);
	mock.at_once = true;
	pthread_mutex_unlock(&mock.lock);
	for (size_t i = 0; i < 16; i++)
		assert_rc(post_write(r, i, i % 3 ? 0 : XRMA_RMA_FENCE), 0);
	for (size_t i = 0; i < 16; i++) {
		assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(c.cookie, 100 + i);
		assert_int_equal(c.status, 0);
	}
	assert_int_equal(fixture_pattern_check(r->remote.addr, 16 * LEN, 5, 0), FIXTURE_MATCH);
}

/* Finishes the first transfer, then the second with an error, once both are posted. */
static void *finisher(void *arg)
{
	(void)arg;
	if (wait_posted(2) == 0) {
		finish(0, 0);
		finish(1, -XRMA_ETRANSFER);
	}
	return NULL;
}

static void test_engine_sync_post_behind_async_returns_its_status(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c;
	pthread_t t;

	assert_rc(post_write(r, 0, 0), 0);
	assert_int_equal(pthread_create(&t, NULL, finisher, NULL), 0);
	/* Not on an idle queue: it goes through the engine and returns the transfer's status. */
	assert_rc(post_write(r, 1, XRMA_RMA_SYNC), XRMA_ETRANSFER);
	assert_int_equal(fixture_join(t, FIXTURE_TIMEOUT_MS, NULL), 0);
	assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.cookie, 100);
	assert_rc(xrma_dmaq_poll(r->q, &c, 1), 0);
}

static void test_engine_abort_cancels_held_back_transfers(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c[3];

	assert_rc(post_write(r, 0, 0), 0);
	assert_rc(post_write(r, 1, XRMA_RMA_FENCE), 0);
	assert_rc(post_write(r, 2, 0), 0);
	assert_int_equal(wait_posted(1), 0);
	assert_int_equal(xrma_dmaq_abort(r->q), 2);
	finish(0, 0);
	assert_rc(xrma_dmaq_drain(r->q, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(xrma_dmaq_poll(r->q, c, 3), 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(c[i].status, c[i].cookie == 100 ? 0 : -XRMA_ECANCELED);
	assert_int_equal(posted_count(), 1);
}

/* ---- with rma_poll: posts from the caller, waiters drive ---- */

static void test_engine_driven_post_and_finish_in_callers_thread(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c;

	assert_rc(post_write(r, 0, 0), 0);
	/* Posted before xrma_dmaq_post returned, by this thread: no engine hand-off. */
	assert_int_equal(posted_count(), 1);
	assert_true(pthread_equal(mock.p[0].poster, pthread_self()));
	set_progress_finishes(true);
	assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(c.cookie, 100);
	assert_int_equal(c.status, 0);
	pthread_mutex_lock(&mock.lock);
	assert_true(mock.progress_calls > 0);
	assert_true(pthread_equal(mock.progress_thread, pthread_self()));
	pthread_mutex_unlock(&mock.lock);
	assert_int_equal(fixture_pattern_check(r->remote.addr, LEN, 5, 0), FIXTURE_MATCH);
}

static void test_engine_driven_wait_reports_in_posting_order(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c;

	for (size_t i = 0; i < 6; i++)
		assert_rc(post_write(r, i, 0), 0);
	assert_int_equal(posted_count(), 6);
	for (size_t i = 5; i > 0; i--)
		finish(i, 0);
	assert_rc(xrma_dmaq_poll(r->q, &c, 1), 0);
	/* The waiter's own read finishes the first; all six come out in posting order. */
	set_progress_finishes(true);
	for (size_t i = 0; i < 6; i++) {
		assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(c.cookie, 100 + i);
	}
	assert_int_equal(fixture_pattern_check(r->remote.addr, 6 * LEN, 5, 0), FIXTURE_MATCH);
}

static void test_engine_driven_fence_not_posted_by_caller_while_busy(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c;

	assert_rc(post_write(r, 0, 0), 0);
	assert_rc(post_write(r, 1, XRMA_RMA_FENCE), 0);
	assert_rc(post_write(r, 2, 0), 0);
	/* The fence waits for the first; the one behind it waits behind the fence. */
	assert_int_equal(posted_count(), 1);
	set_progress_finishes(true);
	for (size_t i = 0; i < 3; i++) {
		/*
		 * The engine thread posts each held-back one; the mock has no thread of its
		 * own. Once the first is reported, the fence and the one behind it both go
		 * out before the fence finishes: wait for both, or our next wait could
		 * finish the fence before a slow engine thread posted the last one.
		 */
		assert_int_equal(wait_posted(i ? 3 : 1), 0);
		assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(c.cookie, 100 + i);
		assert_int_equal(c.status, 0);
	}
	assert_int_equal(mock.p[1].finished_before, 1);
	assert_int_equal(mock.p[2].finished_before, 1);
}

/* Finishes transfers 0..2 from another thread once all are posted (as a provider's own thread would). */
static void *late_finisher(void *arg)
{
	(void)arg;
	if (wait_posted(3) == 0)
		for (size_t i = 0; i < 3; i++)
			finish(i, 0);
	return NULL;
}

static void test_engine_driven_completions_read_by_another_thread_still_reported(void **state)
{
	struct rig *r = *state;
	struct xrma_completion c;
	pthread_t t;

	for (size_t i = 0; i < 3; i++)
		assert_rc(post_write(r, i, 0), 0);
	/* The waiter's reads find nothing; another thread finishes while it drives or sleeps. */
	assert_int_equal(pthread_create(&t, NULL, late_finisher, NULL), 0);
	for (size_t i = 0; i < 3; i++) {
		assert_rc(xrma_dmaq_wait(r->q, &c, FIXTURE_TIMEOUT_MS), 0);
		assert_int_equal(c.cookie, 100 + i);
	}
	assert_int_equal(fixture_join(t, FIXTURE_TIMEOUT_MS, NULL), 0);
	assert_rc(xrma_dmaq_drain(r->q, FIXTURE_TIMEOUT_MS), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, rig_up, rig_down)
#define COMMON_TESTS                                                              \
	T(test_engine_post_many_all_in_flight_at_once),                           \
	T(test_engine_finished_out_of_order_reported_in_posting_order),           \
	T(test_engine_fence_starts_after_earlier_completed),                      \
	T(test_engine_errors_and_refused_posts_complete_with_status),             \
	T(test_engine_done_before_post_returns_completes),                        \
	T(test_engine_sync_post_behind_async_returns_its_status),                 \
	T(test_engine_abort_cancels_held_back_transfers)
	const struct CMUnitTest tests[] = { COMMON_TESTS };
	const struct CMUnitTest driven[] = {
		COMMON_TESTS,
		T(test_engine_driven_post_and_finish_in_callers_thread),
		T(test_engine_driven_wait_reports_in_posting_order),
		T(test_engine_driven_fence_not_posted_by_caller_while_busy),
		T(test_engine_driven_completions_read_by_another_thread_still_reported),
	};
	int failed = cmocka_run_group_tests_name("engine", tests, engine_group_up, engine_group_down);

	return failed + cmocka_run_group_tests_name("engine with rma_poll", driven, driven_group_up,
						    engine_group_down);
}
