/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_node.c: the nodes of a fabric (include/xrma/node.h): self,
 * the ascending live list with a short buffer, probe of live, absent,
 * impossible and departed nodes, and lists taken while nodes come and go.
 */
#include "tests/helpers/fixture.h"

#include <string.h>

static struct fixture fx;

static int node_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "node", 3);
}

static int node_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

static void test_node_self_each_ctx_returns_its_id(void **state)
{
	uint32_t node;
	size_t i;

	(void)state;
	for (i = 0; i < fx.count; i++) {
		node = 0xdeadbeef;
		assert_rc(xrma_node_self(fx.ctx[i], &node), 0);
		assert_int_equal(node, fx.node[i]);
	}
}

static void test_node_self_bad_args_return_errors(void **state)
{
	uint32_t node = 77;

	(void)state;
	assert_rc(xrma_node_self(fx.ctx[0], NULL), XRMA_EINVAL);
	assert_rc(xrma_node_self(FIXTURE_FORGED(struct xrma_ctx), &node), XRMA_EHANDLE);
	assert_null_handle_rc(xrma_node_self(NULL, &node));
	assert_int_equal(node, 77);
}

static void test_node_list_all_nodes_ascending(void **state)
{
	uint32_t ids[8];
	size_t count, i;

	(void)state;
	for (i = 0; i < fx.count; i++) {
		memset(ids, 0xff, sizeof(ids));
		count = 0;
		assert_rc(xrma_node_list(fx.ctx[i], ids, 8, &count), 0);
		assert_int_equal(count, 3);
		assert_int_equal(ids[0], 1);
		assert_int_equal(ids[1], 2);
		assert_int_equal(ids[2], 3);
		assert_int_equal(ids[3], UINT32_MAX);
	}
}

static void test_node_list_short_buffer_fills_max_counts_all(void **state)
{
	uint32_t ids[4];
	size_t count = 0;

	(void)state;
	memset(ids, 0xee, sizeof(ids));
	assert_rc(xrma_node_list(fx.ctx[2], ids, 2, &count), 0);
	assert_int_equal(count, 3);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], 2);
	assert_int_equal(fixture_check(&ids[2], 2 * sizeof(uint32_t), 0xee), FIXTURE_MATCH);
}

static void test_node_list_max_zero_counts_only(void **state)
{
	uint32_t ids[2];
	size_t count = 0;

	(void)state;
	memset(ids, 0xee, sizeof(ids));
	assert_rc(xrma_node_list(fx.ctx[0], ids, 0, &count), 0);
	assert_int_equal(count, 3);
	assert_int_equal(fixture_check(ids, sizeof(ids), 0xee), FIXTURE_MATCH);
}

static void test_node_list_bad_args_return_errors(void **state)
{
	uint32_t ids[4];
	size_t count = 42;

	(void)state;
	assert_rc(xrma_node_list(fx.ctx[0], ids, 4, NULL), XRMA_EINVAL);
	assert_rc(xrma_node_list(fx.ctx[0], NULL, 4, &count), XRMA_EINVAL);
	assert_rc(xrma_node_list(FIXTURE_FORGED(struct xrma_ctx), ids, 4, &count), XRMA_EHANDLE);
	assert_int_equal(count, 42);
}

static void test_node_list_after_ctx_close_node_gone(void **state)
{
	struct xrma_ctx *ctx = NULL;
	uint32_t ids[8];
	size_t count = 0;

	(void)state;
	assert_rc(fixture_ctx_open(fx.fabric, 9, &ctx), 0);
	assert_rc(xrma_node_list(fx.ctx[0], ids, 8, &count), 0);
	assert_int_equal(count, 4);
	assert_int_equal(ids[3], 9);
	assert_rc(xrma_ctx_close(ctx), 0);
	assert_rc(xrma_node_list(fx.ctx[0], ids, 8, &count), 0);
	assert_int_equal(count, 3);
	assert_int_equal(ids[2], 3);
}

static void test_node_probe_self_and_peers_return_0(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < fx.count; i++)
		for (j = 0; j < fx.count; j++)
			assert_rc(xrma_node_probe(fx.ctx[i], fx.node[j], FIXTURE_TIMEOUT_MS), 0);
}

static void test_node_probe_absent_node_returns_enodev(void **state)
{
	(void)state;
	assert_rc(xrma_node_probe(fx.ctx[0], 42, FIXTURE_TIMEOUT_MS), XRMA_ENODEV);
	assert_rc(xrma_node_probe(fx.ctx[0], 65535, FIXTURE_TIMEOUT_MS), XRMA_ENODEV);
}

static void test_node_probe_impossible_id_returns_einval(void **state)
{
	(void)state;
	assert_rc(xrma_node_probe(fx.ctx[0], 65536, FIXTURE_TIMEOUT_MS), XRMA_EINVAL);
	assert_rc(xrma_node_probe(fx.ctx[0], UINT32_MAX, FIXTURE_TIMEOUT_MS), XRMA_EINVAL);
}

static void test_node_probe_departed_node_returns_enodev(void **state)
{
	struct xrma_ctx *ctx = NULL;

	(void)state;
	assert_rc(fixture_ctx_open(fx.fabric, 10, &ctx), 0);
	assert_rc(xrma_node_probe(fx.ctx[1], 10, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	assert_rc(xrma_node_probe(fx.ctx[1], 10, FIXTURE_TIMEOUT_MS), XRMA_ENODEV);
}

static void test_node_probe_bad_handle_returns_ehandle(void **state)
{
	struct xrma_ctx *ctx = NULL;

	(void)state;
	assert_rc(xrma_node_probe(FIXTURE_FORGED(struct xrma_ctx), 1, FIXTURE_TIMEOUT_MS), XRMA_EHANDLE);
	assert_rc(fixture_ctx_open(fx.fabric, 12, &ctx), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	assert_rc(xrma_node_probe(ctx, 1, FIXTURE_TIMEOUT_MS), XRMA_EHANDLE);
}

#define NODE_THREADS 3

struct lister {
	struct xrma_ctx *ctx;
	struct fixture_barrier *listed;   /* every lister listed once before nodes come and go */
	int *stop;
	int bad;
	unsigned long lists;
};

static void *node_lister(void *arg)
{
	struct lister *l = arg;
	uint32_t ids[8];
	size_t count, i;
	uint64_t end = fixture_now_ms() + FIXTURE_TIMEOUT_MS * 2;
	int rc;

	while (!__atomic_load_n(l->stop, __ATOMIC_ACQUIRE) && fixture_now_ms() < end) {
		rc = xrma_node_list(l->ctx, ids, 8, &count);
		l->lists++;
		if (rc || count < 3 || count > 4) {
			l->bad = rc ? rc : -1;
			return NULL;
		}
		for (i = 1; i < count; i++)
			if (ids[i] <= ids[i - 1]) {
				l->bad = -2;
				return NULL;
			}
		rc = xrma_node_probe(l->ctx, 2, FIXTURE_TIMEOUT_MS);
		if (rc) {
			l->bad = rc;
			break;
		}
		if (l->lists == 1 && fixture_barrier_wait(l->listed, FIXTURE_TIMEOUT_MS)) {
			l->bad = -3;
			break;
		}
	}
	return NULL;
}

static void test_node_list_concurrent_join_leave_consistent(void **state)
{
	struct lister l[NODE_THREADS];
	pthread_t threads[NODE_THREADS];
	struct fixture_barrier listed;
	struct xrma_ctx *ctx;
	int stop = 0, round, ready;
	size_t i;

	(void)state;
	fixture_barrier_init(&listed, NODE_THREADS + 1);
	for (i = 0; i < NODE_THREADS; i++) {
		l[i] = (struct lister){ .ctx = fx.ctx[i], .listed = &listed, .stop = &stop };
		assert_int_equal(pthread_create(&threads[i], NULL, node_lister, &l[i]), 0);
	}
	/* Under load a lister may not run before the rounds end: start them once all listed. */
	ready = fixture_barrier_wait(&listed, FIXTURE_TIMEOUT_MS * 2);
	for (round = 0; round < 20 && !ready; round++) {
		assert_rc(fixture_ctx_open(fx.fabric, 11, &ctx), 0);
		assert_rc(xrma_ctx_close(ctx), 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < NODE_THREADS; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 3, NULL), 0);
	fixture_barrier_destroy(&listed);
	assert_int_equal(ready, 0);
	for (i = 0; i < NODE_THREADS; i++) {
		assert_int_equal(l[i].bad, 0);
		assert_true(l[i].lists > 0);
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_node_self_each_ctx_returns_its_id),
		T(test_node_self_bad_args_return_errors),
		T(test_node_list_all_nodes_ascending),
		T(test_node_list_short_buffer_fills_max_counts_all),
		T(test_node_list_max_zero_counts_only),
		T(test_node_list_bad_args_return_errors),
		T(test_node_list_after_ctx_close_node_gone),
		T(test_node_probe_self_and_peers_return_0),
		T(test_node_probe_absent_node_returns_enodev),
		T(test_node_probe_impossible_id_returns_einval),
		T(test_node_probe_departed_node_returns_enodev),
		T(test_node_probe_bad_handle_returns_ehandle),
		T(test_node_list_concurrent_join_leave_consistent),
	};

	return cmocka_run_group_tests_name("node", tests, node_group_up, node_group_down);
}
