/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_ctx.c: contexts (include/xrma/ctx.h): open with explicit and
 * default attributes, query, live-object counting over every child type,
 * XRMA_EBUSY while children live, bad handles and attributes, isolation of
 * fabrics, and many threads opening and closing contexts at once.
 */
#include "tests/helpers/fixture.h"

#include <stdlib.h>
#include <string.h>

static struct fixture fx;

static int ctx_group_up(void **state)
{
	(void)state;
	/* Defaults must not come from the environment of whoever runs the suite. */
	unsetenv("XRMA_PROVIDER");
	unsetenv("XRMA_FABRIC");
	unsetenv("XRMA_NODE_ID");
	unsetenv("XRMA_CONF");
	setenv("HOME", "/nonexistent-xrma-test-home", 1);
	return fixture_open(&fx, "ctx", 2);
}

static int ctx_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

static void test_ctx_open_loopback_query_reports_attr(void **state)
{
	struct xrma_ctx *ctx = NULL;
	struct xrma_ctx_info info;

	(void)state;
	assert_rc(fixture_ctx_open(fx.fabric, 4, &ctx), 0);
	assert_non_null(ctx);
	memset(&info, 0xa5, sizeof(info));
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_string_equal(info.provider, "loopback");
	assert_string_equal(info.fabric, fx.fabric);
	assert_int_equal(info.node_id, 4);
	assert_int_equal(info.caps.flags & (XRMA_CAP_MAP | XRMA_CAP_ATOMIC | XRMA_CAP_REGISTER),
			 XRMA_CAP_MAP | XRMA_CAP_ATOMIC | XRMA_CAP_REGISTER);
	assert_int_equal(info.caps.page_size, FIXTURE_PAGE);
	assert_int_equal(info.caps.max_node_id, 65535);
	assert_int_equal(fixture_count(ctx), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_ctx_open_null_out_returns_einval(void **state)
{
	struct xrma_ctx_attr attr = { .provider = "loopback", .fabric = fx.fabric, .node_id = 5 };

	(void)state;
	assert_rc(xrma_ctx_open(&attr, NULL), XRMA_EINVAL);
}

static void test_ctx_open_flags_nonzero_returns_einval(void **state)
{
	struct xrma_ctx_attr attr = { .provider = "loopback", .fabric = fx.fabric, .node_id = 5 };
	struct xrma_ctx *ctx = NULL;

	(void)state;
	attr.flags = 1;
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_EINVAL);
	attr.flags = 0x80000000u;
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_EINVAL);
	/* Node 5 was not taken by the failed opens. */
	attr.flags = 0;
	assert_rc(xrma_ctx_open(&attr, &ctx), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_ctx_open_unknown_provider_returns_enoprov(void **state)
{
	struct xrma_ctx_attr attr = { .provider = "no-such-provider", .fabric = fx.fabric, .node_id = 5 };
	struct xrma_ctx *ctx = NULL;

	(void)state;
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_ENOPROV);
	attr.provider = "";
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_ENOPROV);
	attr.provider = "LOOPBACK";   /* exact match only */
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_ENOPROV);
}

static void test_ctx_open_node_id_above_max_returns_einval(void **state)
{
	struct xrma_ctx_attr attr = { .provider = "loopback", .fabric = fx.fabric, .node_id = 65536 };
	struct xrma_ctx *ctx = NULL;

	(void)state;
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_EINVAL);
	attr.node_id = XRMA_NODE_ANY - 1;
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_EINVAL);
}

static void test_ctx_open_null_attr_uses_defaults(void **state)
{
	struct xrma_ctx *ctx = NULL;
	struct xrma_ctx_info info;
	const char *def = xrma_provider_default();

	(void)state;
	assert_non_null(def);
	if (strcmp(def, "loopback") != 0)
		skip();   /* the default provider is not the in-process one */
	assert_rc(xrma_ctx_open(NULL, &ctx), 0);
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_string_equal(info.provider, def);
	assert_string_equal(info.fabric, "default");
	assert_int_equal(info.node_id, 1);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_ctx_close_bad_handle_returns_ehandle(void **state)
{
	struct fixture_seg s;

	(void)state;
	assert_rc(xrma_ctx_close(FIXTURE_FORGED(struct xrma_ctx)), XRMA_EHANDLE);
	assert_null_handle_rc(xrma_ctx_close(NULL));
	assert_rc(fixture_seg_make(fx.ctx[0], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 0, &s), 0);
	assert_rc(xrma_ctx_close((struct xrma_ctx *)s.seg), XRMA_EHANDLE);
	assert_int_equal(fixture_count(fx.ctx[0]), 1);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_ctx_close_twice_returns_ehandle(void **state)
{
	struct xrma_ctx *ctx = NULL;
	struct xrma_ctx_info info;
	size_t count;

	(void)state;
	assert_rc(fixture_ctx_open(fx.fabric, 6, &ctx), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	assert_rc(xrma_ctx_close(ctx), XRMA_EHANDLE);
	assert_rc(xrma_ctx_query(ctx, &info), XRMA_EHANDLE);
	assert_rc(xrma_ctx_object_count(ctx, &count), XRMA_EHANDLE);
}

static void test_ctx_close_with_seg_returns_ebusy_and_keeps_ctx(void **state)
{
	struct xrma_ctx *ctx = NULL;
	struct xrma_ctx_info info;
	struct fixture_seg s;

	(void)state;
	assert_rc(fixture_ctx_open(fx.fabric, 7, &ctx), 0);
	assert_rc(fixture_seg_make(ctx, FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 3, &s), 0);
	assert_rc(xrma_ctx_close(ctx), XRMA_EBUSY);
	/* Nothing changed: the context and its segment still work. */
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_int_equal(info.node_id, 7);
	assert_int_equal(fixture_count(ctx), 1);
	assert_int_equal(fixture_pattern_check(s.addr, s.len, 3, 0), FIXTURE_MATCH);
	assert_rc(fixture_seg_close(&s), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_ctx_close_with_each_child_type_returns_ebusy(void **state)
{
	struct xrma_ctx *ctx = NULL;
	struct xrma_dmaq *dmaq;
	struct xrma_win *win;
	struct xrma_conn *conn;
	struct xrma_intr *intr;
	uint64_t number = XRMA_ID_ANY;

	(void)state;
	assert_rc(fixture_ctx_open(fx.fabric, 8, &ctx), 0);

	assert_rc(xrma_dmaq_open(ctx, 4, 0, &dmaq), 0);
	assert_rc(xrma_ctx_close(ctx), XRMA_EBUSY);
	assert_rc(xrma_dmaq_close(dmaq), 0);

	assert_rc(xrma_win_open(ctx, 0, &win), 0);
	assert_rc(xrma_ctx_close(ctx), XRMA_EBUSY);
	assert_rc(xrma_win_close(win), 0);

	assert_rc(xrma_conn_open(ctx, 0, &conn), 0);
	assert_rc(xrma_ctx_close(ctx), XRMA_EBUSY);
	assert_rc(xrma_conn_close(conn), 0);

	assert_rc(xrma_intr_open(ctx, &number, 0, 0, 0, &intr), 0);
	assert_rc(xrma_ctx_close(ctx), XRMA_EBUSY);
	assert_rc(xrma_intr_close(intr), 0);

	assert_int_equal(fixture_count(ctx), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_ctx_object_count_tracks_children(void **state)
{
	struct xrma_ctx *ctx = fx.ctx[0];
	struct fixture_seg s;
	struct xrma_dmaq *dmaq;
	struct xrma_win *win;
	struct xrma_conn *conn;
	struct xrma_intr *intr;
	uint64_t number = XRMA_ID_ANY;

	(void)state;
	assert_int_equal(fixture_count(ctx), 0);
	assert_rc(fixture_seg_make(ctx, FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 0, &s), 0);
	assert_int_equal(fixture_count(ctx), 1);
	assert_rc(xrma_dmaq_open(ctx, 4, 0, &dmaq), 0);
	assert_int_equal(fixture_count(ctx), 2);
	assert_rc(xrma_win_open(ctx, 0, &win), 0);
	assert_int_equal(fixture_count(ctx), 3);
	assert_rc(xrma_conn_open(ctx, 0, &conn), 0);
	assert_int_equal(fixture_count(ctx), 4);
	assert_rc(xrma_intr_open(ctx, &number, 0, 0, 0, &intr), 0);
	assert_int_equal(fixture_count(ctx), 5);
	/* Another context's count is its own. */
	assert_int_equal(fixture_count(fx.ctx[1]), 0);

	assert_rc(xrma_intr_close(intr), 0);
	assert_int_equal(fixture_count(ctx), 4);
	assert_rc(xrma_conn_close(conn), 0);
	assert_rc(xrma_win_close(win), 0);
	assert_rc(xrma_dmaq_close(dmaq), 0);
	assert_int_equal(fixture_count(ctx), 1);
	assert_rc(fixture_seg_close(&s), 0);
	assert_int_equal(fixture_count(ctx), 0);
}

static void test_ctx_object_count_failed_open_unchanged(void **state)
{
	struct xrma_seg_attr attr = { .len = 0, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL };
	struct xrma_seg *seg;
	struct xrma_dmaq *dmaq;

	(void)state;
	assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), XRMA_EINVAL);
	assert_rc(xrma_dmaq_open(fx.ctx[0], 0, 0, &dmaq), XRMA_EINVAL);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_ctx_object_count_bad_args_return_errors(void **state)
{
	size_t count = 99;

	(void)state;
	assert_rc(xrma_ctx_object_count(fx.ctx[0], NULL), XRMA_EINVAL);
	assert_rc(xrma_ctx_object_count(FIXTURE_FORGED(struct xrma_ctx), &count), XRMA_EHANDLE);
	assert_null_handle_rc(xrma_ctx_object_count(NULL, &count));
	assert_int_equal(count, 99);
}

static void test_ctx_query_bad_args_return_errors(void **state)
{
	struct xrma_ctx_info info;

	(void)state;
	assert_rc(xrma_ctx_query(fx.ctx[0], NULL), XRMA_EINVAL);
	assert_rc(xrma_ctx_query(FIXTURE_FORGED(struct xrma_ctx), &info), XRMA_EHANDLE);
	assert_null_handle_rc(xrma_ctx_query(NULL, &info));
}

/* On the default provider, which has no thread to relieve, the call validates and does nothing. */
static void test_ctx_progress_validates_and_does_nothing_here(void **state)
{
	(void)state;
	assert_rc(xrma_ctx_progress(FIXTURE_FORGED(struct xrma_ctx)), XRMA_EHANDLE);
	assert_null_handle_rc(xrma_ctx_progress(NULL));
	assert_rc(xrma_ctx_progress(fx.ctx[0]), 0);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_ctx_open_other_fabric_isolated(void **state)
{
	char fabric[XRMA_NAME_MAX];
	struct xrma_ctx *ctx = NULL;
	uint32_t ids[8];
	size_t count = 0;

	(void)state;
	fixture_fabric_name(fabric, sizeof(fabric), "ctx");
	/* Node 1 exists on fx's fabric, but that is another fabric. */
	assert_rc(fixture_ctx_open(fabric, 1, &ctx), 0);
	assert_rc(xrma_node_list(ctx, ids, 8, &count), 0);
	assert_int_equal(count, 1);
	assert_int_equal(ids[0], 1);
	assert_rc(xrma_node_probe(ctx, 2, FIXTURE_TIMEOUT_MS), XRMA_ENODEV);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_ctx_open_same_node_twice_refused_or_separate(void **state)
{
	struct xrma_ctx *ctx = NULL;
	uint32_t node = 0;
	int rc;

	(void)state;
	/* The provider may refuse (EADDRINUSE) or give a separate endpoint; nothing else. */
	rc = fixture_ctx_open(fx.fabric, fx.node[0], &ctx);
	if (rc == -XRMA_EADDRINUSE) {
		assert_int_equal(fixture_count(fx.ctx[0]), 0);
		return;
	}
	assert_rc(rc, 0);
	assert_true(ctx != fx.ctx[0]);
	assert_rc(xrma_node_self(ctx, &node), 0);
	assert_int_equal(node, fx.node[0]);
	assert_rc(xrma_ctx_close(ctx), 0);
	assert_rc(xrma_node_self(fx.ctx[0], &node), 0);
	assert_int_equal(node, fx.node[0]);
}

#define CTX_THREADS 4
#define CTX_ROUNDS 20

struct ctx_worker {
	const char *fabric;
	uint32_t node;
	struct fixture_barrier *barrier;
	int rc;
	int step;
};

static void *ctx_worker(void *arg)
{
	struct ctx_worker *w = arg;
	struct xrma_ctx *ctx;
	struct fixture_seg s;
	size_t count;
	int round;

	if (fixture_barrier_wait(w->barrier, FIXTURE_TIMEOUT_MS)) {
		w->rc = -ETIMEDOUT;
		return NULL;
	}
	for (round = 0; round < CTX_ROUNDS; round++) {
		w->step = 1;
		if ((w->rc = fixture_ctx_open(w->fabric, w->node, &ctx)))
			return NULL;
		w->step = 2;
		if ((w->rc = fixture_seg_make(ctx, FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 1, &s)))
			goto close_ctx;
		w->step = 3;
		if ((w->rc = xrma_ctx_close(ctx)) != -XRMA_EBUSY) {
			w->rc = w->rc ? w->rc : -1;
			return NULL;
		}
		w->step = 4;
		if ((w->rc = fixture_seg_close(&s)))
			goto close_ctx;
		w->step = 5;
		if ((w->rc = xrma_ctx_object_count(ctx, &count)) || count != 0) {
			w->rc = w->rc ? w->rc : -2;
			goto close_ctx;
		}
		w->step = 6;
		if ((w->rc = xrma_ctx_close(ctx)))
			return NULL;
	}
	w->rc = 0;
	return NULL;
close_ctx:
	xrma_ctx_close(ctx);
	return NULL;
}

static void test_ctx_open_close_concurrent_threads_succeed(void **state)
{
	struct fixture_barrier barrier;
	struct ctx_worker w[CTX_THREADS];
	pthread_t threads[CTX_THREADS];
	size_t i;

	(void)state;
	fixture_barrier_init(&barrier, CTX_THREADS);
	for (i = 0; i < CTX_THREADS; i++) {
		w[i] = (struct ctx_worker){ .fabric = fx.fabric, .node = (uint32_t)(20 + i),
					    .barrier = &barrier };
		assert_int_equal(pthread_create(&threads[i], NULL, ctx_worker, &w[i]), 0);
	}
	for (i = 0; i < CTX_THREADS; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 5, NULL), 0);
	fixture_barrier_destroy(&barrier);
	for (i = 0; i < CTX_THREADS; i++)
		if (w[i].rc)
			fail_msg("thread %zu failed at step %d: %d (%s)", i, w[i].step, w[i].rc,
				 xrma_error_name(w[i].rc) ? xrma_error_name(w[i].rc) : "?");
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ctx_open_loopback_query_reports_attr),
		T(test_ctx_open_null_out_returns_einval),
		T(test_ctx_open_flags_nonzero_returns_einval),
		T(test_ctx_open_unknown_provider_returns_enoprov),
		T(test_ctx_open_node_id_above_max_returns_einval),
		T(test_ctx_open_null_attr_uses_defaults),
		T(test_ctx_close_bad_handle_returns_ehandle),
		T(test_ctx_close_twice_returns_ehandle),
		T(test_ctx_close_with_seg_returns_ebusy_and_keeps_ctx),
		T(test_ctx_close_with_each_child_type_returns_ebusy),
		T(test_ctx_object_count_tracks_children),
		T(test_ctx_object_count_failed_open_unchanged),
		T(test_ctx_object_count_bad_args_return_errors),
		T(test_ctx_query_bad_args_return_errors),
		T(test_ctx_progress_validates_and_does_nothing_here),
		T(test_ctx_open_other_fabric_isolated),
		T(test_ctx_open_same_node_twice_refused_or_separate),
		T(test_ctx_open_close_concurrent_threads_succeed),
	};

	return cmocka_run_group_tests_name("ctx", tests, ctx_group_up, ctx_group_down);
}
