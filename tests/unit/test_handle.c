/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_handle.c: the validated handle table (core/handle.h, internal):
 * alloc / acquire / ref / put / kill, stale, forged and wrong-type handles, the
 * destroy-after-last-put rule, and acquire-versus-close races between threads,
 * both on bare table objects (XRMA_OBJ_TEST) and through the public seg calls.
 */
#include "tests/helpers/fixture.h"
#include "core/handle.h"

#include <string.h>

struct test_obj {
	struct xrma_obj obj;      /* first, as in every core object */
	int destroyed;            /* atomic: destroy calls */
	int in_use;               /* atomic: threads holding a reference */
	int bad;                  /* atomic: destroy ran while someone held a reference */
};

static struct fixture fx;

static int handle_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "handle", 1);
}

static int handle_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

static void test_obj_destroy(struct xrma_obj *obj)
{
	struct test_obj *t = (struct test_obj *)obj;

	if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) != 0)
		__atomic_store_n(&t->bad, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&t->destroyed, 1, __ATOMIC_ACQ_REL);
}

static int destroyed(struct test_obj *t)
{
	return __atomic_load_n(&t->destroyed, __ATOMIC_ACQUIRE);
}

static void obj_alloc(struct test_obj *t)
{
	memset(t, 0, sizeof(*t));
	assert_rc(xrma_handle_alloc(&t->obj, XRMA_OBJ_TEST, test_obj_destroy), 0);
	assert_non_null(t->obj.handle);
	assert_int_equal(t->obj.type, XRMA_OBJ_TEST);
}

/* Close as a core object does: take a reference, kill, put it. */
static void obj_close(struct test_obj *t)
{
	struct xrma_obj *o;

	assert_rc(xrma_handle_acquire(t->obj.handle, XRMA_OBJ_TEST, &o), 0);
	assert_rc(xrma_handle_kill(o), 0);
	xrma_handle_put(o);
}

static void test_handle_alloc_valid_type_acquire_returns_object(void **state)
{
	struct test_obj t;
	struct xrma_obj *o = NULL;
	size_t live = xrma_handle_live(XRMA_OBJ_TEST);

	(void)state;
	obj_alloc(&t);
	assert_int_equal(xrma_handle_live(XRMA_OBJ_TEST), live + 1);
	assert_rc(xrma_handle_acquire(t.obj.handle, XRMA_OBJ_TEST, &o), 0);
	assert_ptr_equal(o, &t.obj);
	xrma_handle_put(o);
	assert_int_equal(destroyed(&t), 0);
	obj_close(&t);
	assert_int_equal(destroyed(&t), 1);
	assert_int_equal(xrma_handle_live(XRMA_OBJ_TEST), live);
}

static void test_handle_alloc_bad_type_returns_einval(void **state)
{
	struct test_obj t;
	size_t live = xrma_handle_live(0);

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_rc(xrma_handle_alloc(&t.obj, (enum xrma_obj_type)0, test_obj_destroy), XRMA_EINVAL);
	assert_rc(xrma_handle_alloc(&t.obj, XRMA_OBJ_TYPE_COUNT, test_obj_destroy), XRMA_EINVAL);
	assert_rc(xrma_handle_alloc(&t.obj, (enum xrma_obj_type)1000, test_obj_destroy), XRMA_EINVAL);
	assert_int_equal(xrma_handle_live(0), live);
	assert_int_equal(destroyed(&t), 0);
}

static void test_handle_acquire_wrong_type_returns_ehandle(void **state)
{
	struct test_obj t;
	struct xrma_obj *o = NULL;
	int type;

	(void)state;
	obj_alloc(&t);
	for (type = XRMA_OBJ_CTX; type < XRMA_OBJ_TYPE_COUNT; type++) {
		if (type == XRMA_OBJ_TEST)
			continue;
		assert_rc(xrma_handle_acquire(t.obj.handle, (enum xrma_obj_type)type, &o), XRMA_EHANDLE);
	}
	obj_close(&t);
	assert_int_equal(destroyed(&t), 1);
}

static void test_handle_acquire_forged_returns_ehandle(void **state)
{
	struct test_obj t;
	struct xrma_obj *o = NULL;
	int local;

	(void)state;
	obj_alloc(&t);
	assert_rc(xrma_handle_acquire(NULL, XRMA_OBJ_TEST, &o), XRMA_EHANDLE);
	assert_rc(xrma_handle_acquire((void *)(uintptr_t)0x12345678u, XRMA_OBJ_TEST, &o), XRMA_EHANDLE);
	assert_rc(xrma_handle_acquire((void *)UINTPTR_MAX, XRMA_OBJ_TEST, &o), XRMA_EHANDLE);
	/* A real address is not a handle either. */
	assert_rc(xrma_handle_acquire(&local, XRMA_OBJ_TEST, &o), XRMA_EHANDLE);
	/* Neighbours of a live handle. */
	assert_rc(xrma_handle_acquire((char *)t.obj.handle + 1, XRMA_OBJ_TEST, &o), XRMA_EHANDLE);
	obj_close(&t);
}

static void test_handle_acquire_after_kill_returns_ehandle(void **state)
{
	struct test_obj t;
	struct xrma_obj *o = NULL;
	void *handle;

	(void)state;
	obj_alloc(&t);
	handle = t.obj.handle;
	obj_close(&t);
	assert_rc(xrma_handle_acquire(handle, XRMA_OBJ_TEST, &o), XRMA_EHANDLE);
	assert_int_equal(destroyed(&t), 1);
}

static void test_handle_put_last_reference_destroys_once(void **state)
{
	struct test_obj t;
	struct xrma_obj *a, *b;

	(void)state;
	obj_alloc(&t);
	assert_rc(xrma_handle_acquire(t.obj.handle, XRMA_OBJ_TEST, &a), 0);
	assert_rc(xrma_handle_acquire(t.obj.handle, XRMA_OBJ_TEST, &b), 0);
	assert_rc(xrma_handle_kill(a), 0);
	assert_int_equal(destroyed(&t), 0);
	xrma_handle_put(a);
	assert_int_equal(destroyed(&t), 0);
	xrma_handle_put(b);
	assert_int_equal(destroyed(&t), 1);
}

static void test_handle_kill_twice_returns_ehandle(void **state)
{
	struct test_obj t;
	struct xrma_obj *a, *b;

	(void)state;
	obj_alloc(&t);
	assert_rc(xrma_handle_acquire(t.obj.handle, XRMA_OBJ_TEST, &a), 0);
	assert_rc(xrma_handle_acquire(t.obj.handle, XRMA_OBJ_TEST, &b), 0);
	assert_rc(xrma_handle_kill(a), 0);
	assert_rc(xrma_handle_kill(b), XRMA_EHANDLE);
	xrma_handle_put(a);
	xrma_handle_put(b);
	assert_int_equal(destroyed(&t), 1);
}

static void test_handle_ref_keeps_killed_object_alive(void **state)
{
	struct test_obj t;
	struct xrma_obj *a;

	(void)state;
	obj_alloc(&t);
	assert_rc(xrma_handle_acquire(t.obj.handle, XRMA_OBJ_TEST, &a), 0);
	xrma_handle_ref(a);
	assert_rc(xrma_handle_kill(a), 0);
	xrma_handle_put(a);
	assert_int_equal(destroyed(&t), 0);
	xrma_handle_put(a);
	assert_int_equal(destroyed(&t), 1);
}

static void test_handle_live_counts_type_and_all(void **state)
{
	struct test_obj t[3];
	size_t live_test = xrma_handle_live(XRMA_OBJ_TEST);
	size_t live_all = xrma_handle_live(0);
	size_t live_seg = xrma_handle_live(XRMA_OBJ_SEG);
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		obj_alloc(&t[i]);
	assert_int_equal(xrma_handle_live(XRMA_OBJ_TEST), live_test + 3);
	assert_int_equal(xrma_handle_live(0), live_all + 3);
	assert_int_equal(xrma_handle_live(XRMA_OBJ_SEG), live_seg);
	for (i = 0; i < 3; i++)
		obj_close(&t[i]);
	assert_int_equal(xrma_handle_live(XRMA_OBJ_TEST), live_test);
	assert_int_equal(xrma_handle_live(0), live_all);
}

static void test_handle_slot_reused_old_handle_stays_stale(void **state)
{
	struct test_obj a, b;
	struct xrma_obj *o;
	void *old;
	int round;

	(void)state;
	for (round = 0; round < 200; round++) {
		obj_alloc(&a);
		old = a.obj.handle;
		obj_close(&a);
		obj_alloc(&b);
		assert_true(b.obj.handle != old);
		assert_rc(xrma_handle_acquire(old, XRMA_OBJ_TEST, &o), XRMA_EHANDLE);
		assert_rc(xrma_handle_acquire(b.obj.handle, XRMA_OBJ_TEST, &o), 0);
		assert_ptr_equal(o, &b.obj);
		xrma_handle_put(o);
		obj_close(&b);
	}
}

static void test_handle_ctx_handle_acquires_as_ctx_only(void **state)
{
	struct xrma_obj *o = NULL;

	(void)state;
	assert_rc(xrma_handle_acquire(fx.ctx[0], XRMA_OBJ_CTX, &o), 0);
	assert_non_null(o);
	assert_int_equal(o->type, XRMA_OBJ_CTX);
	assert_ptr_equal(o->handle, fx.ctx[0]);
	xrma_handle_put(o);
	assert_rc(xrma_handle_acquire(fx.ctx[0], XRMA_OBJ_SEG, &o), XRMA_EHANDLE);
	assert_rc(xrma_handle_acquire(fx.ctx[0], XRMA_OBJ_TEST, &o), XRMA_EHANDLE);
}

static void test_handle_closed_seg_public_call_returns_ehandle(void **state)
{
	struct fixture_seg s;
	struct xrma_seg *handle;
	struct xrma_obj *o;
	size_t len;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 0, &s), 0);
	handle = s.seg;
	assert_rc(xrma_handle_acquire(handle, XRMA_OBJ_SEG, &o), 0);
	xrma_handle_put(o);
	assert_rc(fixture_seg_close(&s), 0);
	assert_rc(xrma_handle_acquire(handle, XRMA_OBJ_SEG, &o), XRMA_EHANDLE);
	assert_rc(xrma_seg_size(handle, &len), XRMA_EHANDLE);
	assert_rc(xrma_seg_close(handle), XRMA_EHANDLE);
}

/* ------------------------------------------------------------------ races */

#define RACE_THREADS 4

struct acquire_race {
	struct test_obj *t;
	struct fixture_barrier *barrier;
	unsigned long successes;   /* atomic */
	int saw_ehandle;
	int other_error;
};

static void *acquire_worker(void *arg)
{
	struct acquire_race *r = arg;
	struct xrma_obj *o;
	uint64_t end;
	int rc;

	if (fixture_barrier_wait(r->barrier, FIXTURE_TIMEOUT_MS))
		return NULL;
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS;
	while (fixture_now_ms() < end) {
		rc = xrma_handle_acquire(r->t->obj.handle, XRMA_OBJ_TEST, &o);
		if (rc == -XRMA_EHANDLE) {
			r->saw_ehandle = 1;
			break;
		}
		if (rc) {
			r->other_error = rc;
			break;
		}
		__atomic_add_fetch(&r->t->in_use, 1, __ATOMIC_ACQ_REL);
		if (destroyed(r->t))
			__atomic_store_n(&r->t->bad, 1, __ATOMIC_RELEASE);
		__atomic_sub_fetch(&r->t->in_use, 1, __ATOMIC_ACQ_REL);
		xrma_handle_put(o);
		__atomic_add_fetch(&r->successes, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_handle_acquire_during_kill_destroys_after_last_user(void **state)
{
	struct test_obj t;
	struct fixture_barrier barrier;
	struct acquire_race r[RACE_THREADS];
	pthread_t threads[RACE_THREADS];
	uint64_t end;
	size_t i;

	(void)state;
	obj_alloc(&t);
	fixture_barrier_init(&barrier, RACE_THREADS + 1);
	for (i = 0; i < RACE_THREADS; i++) {
		r[i] = (struct acquire_race){ .t = &t, .barrier = &barrier };
		assert_int_equal(pthread_create(&threads[i], NULL, acquire_worker, &r[i]), 0);
	}
	assert_int_equal(fixture_barrier_wait(&barrier, FIXTURE_TIMEOUT_MS), 0);
	/* Kill only once every thread is busy acquiring. */
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS / 2;
	for (i = 0; i < RACE_THREADS && fixture_now_ms() < end;)
		if (__atomic_load_n(&r[i].successes, __ATOMIC_ACQUIRE) >= 50)
			i++;
	obj_close(&t);
	for (i = 0; i < RACE_THREADS; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	fixture_barrier_destroy(&barrier);
	for (i = 0; i < RACE_THREADS; i++) {
		assert_int_equal(r[i].other_error, 0);
		assert_true(r[i].saw_ehandle);
		assert_true(r[i].successes > 0);
	}
	assert_int_equal(destroyed(&t), 1);
	assert_int_equal(__atomic_load_n(&t.bad, __ATOMIC_ACQUIRE), 0);
}

struct kill_race {
	struct test_obj *t;
	struct fixture_barrier *barrier;
	int rc;
};

static void *kill_worker(void *arg)
{
	struct kill_race *k = arg;
	struct xrma_obj *o;

	k->rc = xrma_handle_acquire(k->t->obj.handle, XRMA_OBJ_TEST, &o);
	if (k->rc)
		return NULL;
	if (fixture_barrier_wait(k->barrier, FIXTURE_TIMEOUT_MS) == 0)
		k->rc = xrma_handle_kill(o);
	else
		k->rc = -ETIMEDOUT;
	xrma_handle_put(o);
	return NULL;
}

static void test_handle_kill_concurrent_exactly_one_succeeds(void **state)
{
	struct test_obj t;
	struct fixture_barrier barrier;
	struct kill_race k[RACE_THREADS];
	pthread_t threads[RACE_THREADS];
	int round, winners;
	size_t i;

	(void)state;
	for (round = 0; round < 100; round++) {
		obj_alloc(&t);
		fixture_barrier_init(&barrier, RACE_THREADS);
		for (i = 0; i < RACE_THREADS; i++) {
			k[i] = (struct kill_race){ .t = &t, .barrier = &barrier };
			assert_int_equal(pthread_create(&threads[i], NULL, kill_worker, &k[i]), 0);
		}
		for (i = 0; i < RACE_THREADS; i++)
			assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS, NULL), 0);
		fixture_barrier_destroy(&barrier);
		winners = 0;
		for (i = 0; i < RACE_THREADS; i++) {
			if (k[i].rc == 0)
				winners++;
			else
				assert_rc(k[i].rc, XRMA_EHANDLE);
		}
		assert_int_equal(winners, 1);
		assert_int_equal(destroyed(&t), 1);
	}
}

#define ALLOC_PER_THREAD 64

struct alloc_race {
	struct test_obj objs[ALLOC_PER_THREAD];
	struct fixture_barrier *barrier;
	int rc;
};

static void *alloc_worker(void *arg)
{
	struct alloc_race *a = arg;
	struct xrma_obj *o;
	size_t i;

	if (fixture_barrier_wait(a->barrier, FIXTURE_TIMEOUT_MS)) {
		a->rc = -ETIMEDOUT;
		return NULL;
	}
	for (i = 0; i < ALLOC_PER_THREAD; i++) {
		memset(&a->objs[i], 0, sizeof(a->objs[i]));
		a->rc = xrma_handle_alloc(&a->objs[i].obj, XRMA_OBJ_TEST, test_obj_destroy);
		if (a->rc)
			return NULL;
	}
	/* Close every other one at once, so allocation and kill interleave across threads. */
	for (i = 0; i < ALLOC_PER_THREAD; i += 2) {
		a->rc = xrma_handle_acquire(a->objs[i].obj.handle, XRMA_OBJ_TEST, &o);
		if (a->rc)
			return NULL;
		a->rc = xrma_handle_kill(o);
		xrma_handle_put(o);
		if (a->rc)
			return NULL;
	}
	return NULL;
}

static void test_handle_alloc_concurrent_handles_unique(void **state)
{
	static struct alloc_race a[RACE_THREADS];
	struct fixture_barrier barrier;
	pthread_t threads[RACE_THREADS];
	size_t live = xrma_handle_live(XRMA_OBJ_TEST);
	size_t i, j, x, y;

	(void)state;
	fixture_barrier_init(&barrier, RACE_THREADS);
	for (i = 0; i < RACE_THREADS; i++) {
		a[i].barrier = &barrier;
		a[i].rc = 0;
		assert_int_equal(pthread_create(&threads[i], NULL, alloc_worker, &a[i]), 0);
	}
	for (i = 0; i < RACE_THREADS; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS, NULL), 0);
	fixture_barrier_destroy(&barrier);
	for (i = 0; i < RACE_THREADS; i++)
		assert_rc(a[i].rc, 0);
	assert_int_equal(xrma_handle_live(XRMA_OBJ_TEST), live + RACE_THREADS * ALLOC_PER_THREAD / 2);
	/* Live handles are pairwise distinct and each leads to its own object. */
	for (i = 0; i < RACE_THREADS; i++)
		for (x = 1; x < ALLOC_PER_THREAD; x += 2) {
			struct xrma_obj *o;

			assert_rc(xrma_handle_acquire(a[i].objs[x].obj.handle, XRMA_OBJ_TEST, &o), 0);
			assert_ptr_equal(o, &a[i].objs[x].obj);
			xrma_handle_put(o);
			for (j = i; j < RACE_THREADS; j++)
				for (y = (j == i ? x + 2 : 1); y < ALLOC_PER_THREAD; y += 2)
					assert_true(a[i].objs[x].obj.handle != a[j].objs[y].obj.handle);
		}
	for (i = 0; i < RACE_THREADS; i++)
		for (x = 1; x < ALLOC_PER_THREAD; x += 2)
			obj_close(&a[i].objs[x]);
	assert_int_equal(xrma_handle_live(XRMA_OBJ_TEST), live);
	for (i = 0; i < RACE_THREADS; i++)
		for (x = 0; x < ALLOC_PER_THREAD; x++)
			assert_int_equal(destroyed(&a[i].objs[x]), 1);
}

struct seg_race {
	struct xrma_seg *seg;
	struct fixture_barrier *barrier;
	int closed;         /* atomic: set by the closer after xrma_seg_close returned */
	int bad;            /* a call failed with something other than EHANDLE, or succeeded late */
	unsigned long calls;
};

static void *seg_user(void *arg)
{
	struct seg_race *r = arg;
	uint64_t end;
	size_t len;
	int closed, rc;

	if (fixture_barrier_wait(r->barrier, FIXTURE_TIMEOUT_MS))
		return NULL;
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS;
	while (fixture_now_ms() < end) {
		closed = __atomic_load_n(&r->closed, __ATOMIC_ACQUIRE);
		rc = xrma_seg_size(r->seg, &len);
		__atomic_add_fetch(&r->calls, 1, __ATOMIC_RELAXED);
		if (rc == 0 && (closed || len != FIXTURE_PAGE))
			__atomic_store_n(&r->bad, 1, __ATOMIC_RELAXED);
		if (rc != 0 && rc != -XRMA_EHANDLE)
			__atomic_store_n(&r->bad, 1, __ATOMIC_RELAXED);
		if (closed)
			break;
	}
	return NULL;
}

static void test_handle_seg_close_during_use_no_stale_success(void **state)
{
	struct fixture_barrier barrier;
	struct seg_race r;
	struct fixture_seg s;
	pthread_t threads[RACE_THREADS];
	uint64_t end;
	size_t i;
	int round;

	(void)state;
	for (round = 0; round < 20; round++) {
		assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 0, &s), 0);
		fixture_barrier_init(&barrier, RACE_THREADS + 1);
		r = (struct seg_race){ .seg = s.seg, .barrier = &barrier };
		for (i = 0; i < RACE_THREADS; i++)
			assert_int_equal(pthread_create(&threads[i], NULL, seg_user, &r), 0);
		assert_int_equal(fixture_barrier_wait(&barrier, FIXTURE_TIMEOUT_MS), 0);
		end = fixture_now_ms() + FIXTURE_TIMEOUT_MS / 2;
		while (__atomic_load_n(&r.calls, __ATOMIC_RELAXED) < 100 && fixture_now_ms() < end)
			;
		assert_rc(xrma_seg_close(s.seg), 0);
		__atomic_store_n(&r.closed, 1, __ATOMIC_RELEASE);
		for (i = 0; i < RACE_THREADS; i++)
			assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 2, NULL), 0);
		fixture_barrier_destroy(&barrier);
		assert_int_equal(r.bad, 0);
		assert_rc(xrma_seg_close(s.seg), XRMA_EHANDLE);
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_handle_alloc_valid_type_acquire_returns_object),
		T(test_handle_alloc_bad_type_returns_einval),
		T(test_handle_acquire_wrong_type_returns_ehandle),
		T(test_handle_acquire_forged_returns_ehandle),
		T(test_handle_acquire_after_kill_returns_ehandle),
		T(test_handle_put_last_reference_destroys_once),
		T(test_handle_kill_twice_returns_ehandle),
		T(test_handle_ref_keeps_killed_object_alive),
		T(test_handle_live_counts_type_and_all),
		T(test_handle_slot_reused_old_handle_stays_stale),
		T(test_handle_ctx_handle_acquires_as_ctx_only),
		T(test_handle_closed_seg_public_call_returns_ehandle),
		T(test_handle_acquire_during_kill_destroys_after_last_user),
		T(test_handle_kill_concurrent_exactly_one_succeeds),
		T(test_handle_alloc_concurrent_handles_unique),
		T(test_handle_seg_close_during_use_no_stale_success),
	};

	return cmocka_run_group_tests_name("handle", tests, handle_group_up, handle_group_down);
}
