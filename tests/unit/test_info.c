/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_info.c: what is compiled in and configured
 * (include/xrma/info.h): the provider list with loopback and its capabilities,
 * indexes past the end, the default provider, and the configuration listing.
 */
#include "tests/helpers/fixture.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static struct fixture fx;

static int info_group_up(void **state)
{
	(void)state;
	unsetenv("XRMA_PROVIDER");
	unsetenv("XRMA_FABRIC");
	unsetenv("XRMA_NODE_ID");
	unsetenv("XRMA_CONF");
	setenv("HOME", "/nonexistent-xrma-test-home", 1);
	return fixture_open(&fx, "info", 1);
}

static int info_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

/* Index of provider name, or -1. */
static int find_provider(const char *name, struct xrma_provider_info *out)
{
	struct xrma_provider_info info;
	int i, n = xrma_provider_count();

	for (i = 0; i < n; i++) {
		assert_rc(xrma_provider_get(i, &info), 0);
		if (strcmp(info.name, name) == 0) {
			if (out)
				*out = info;
			return i;
		}
	}
	return -1;
}

static void test_info_provider_count_at_least_one(void **state)
{
	(void)state;
	assert_true(xrma_provider_count() >= 1);
}

static void test_info_provider_get_lists_loopback_with_caps(void **state)
{
	struct xrma_provider_info info;

	(void)state;
	memset(&info, 0, sizeof(info));
	assert_true(find_provider("loopback", &info) >= 0);
	assert_int_equal(info.caps.flags,
			 XRMA_CAP_MAP | XRMA_CAP_BROADCAST | XRMA_CAP_ATOMIC | XRMA_CAP_REGISTER |
				 XRMA_CAP_LOCAL_VIRTUAL);
	assert_int_equal(info.caps.page_size, 4096);
	assert_int_equal(info.caps.max_node_id, 65535);
	assert_int_equal(info.caps.max_importers, 0); /* any number of importers */
	assert_true(info.caps.rma_offset_align >= 1);
	assert_true(info.caps.rma_size_align >= 1);
	assert_true(info.caps.ctrl_msg_max > 0);
	assert_true(strlen(info.description) > 0);
	assert_true(memchr(info.description, '\0', sizeof(info.description)) != NULL);
}

static void test_info_provider_get_past_end_returns_erange(void **state)
{
	struct xrma_provider_info info;
	int n = xrma_provider_count();

	(void)state;
	memset(&info, 0x5a, sizeof(info));
	assert_rc(xrma_provider_get(n, &info), XRMA_ERANGE);
	assert_rc(xrma_provider_get(n + 100, &info), XRMA_ERANGE);
	assert_rc(xrma_provider_get(INT_MAX, &info), XRMA_ERANGE);
	assert_rc(xrma_provider_get(-1, &info), XRMA_ERANGE);
	assert_int_equal(fixture_check(&info, sizeof(info), 0x5a), FIXTURE_MATCH);
}

static void test_info_provider_get_null_info_returns_einval(void **state)
{
	(void)state;
	assert_rc(xrma_provider_get(0, NULL), XRMA_EINVAL);
}

static void test_info_provider_names_unique_and_terminated(void **state)
{
	struct xrma_provider_info a, b;
	int i, j, n = xrma_provider_count();

	(void)state;
	for (i = 0; i < n; i++) {
		assert_rc(xrma_provider_get(i, &a), 0);
		assert_true(strlen(a.name) > 0);
		assert_true(strlen(a.name) < XRMA_NAME_MAX);
		for (j = i + 1; j < n; j++) {
			assert_rc(xrma_provider_get(j, &b), 0);
			assert_string_not_equal(a.name, b.name);
		}
	}
}

static void test_info_provider_default_is_listed(void **state)
{
	const char *def = xrma_provider_default();

	(void)state;
	assert_non_null(def);
	assert_true(find_provider(def, NULL) >= 0);
}

static void test_info_ctx_query_caps_match_provider_get(void **state)
{
	struct xrma_provider_info info;
	struct xrma_ctx_info ci;

	(void)state;
	assert_true(find_provider("loopback", &info) >= 0);
	assert_rc(xrma_ctx_query(fx.ctx[0], &ci), 0);
	assert_string_equal(ci.provider, info.name);
	assert_memory_equal(&ci.caps, &info.caps, sizeof(ci.caps));
}

static void test_info_config_get_every_index_then_erange(void **state)
{
	struct xrma_config_entry e;
	bool provider = false, node_id = false, fabric = false;
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		int rc = xrma_config_get(i, &e);

		if (rc == -XRMA_ERANGE)
			break;
		assert_rc(rc, 0);
		assert_true(strlen(e.key) > 0);
		assert_true(strlen(e.source) > 0);
		provider |= strcmp(e.key, "provider") == 0;
		node_id |= strcmp(e.key, "node_id") == 0;
		fabric |= strcmp(e.key, "fabric") == 0;
	}
	assert_true(i >= 3 && i < 100);
	assert_true(provider && node_id && fabric);
	assert_rc(xrma_config_get(i, &e), XRMA_ERANGE);
}

static void test_info_provider_list_unchanged_by_contexts(void **state)
{
	struct xrma_ctx *ctx;
	int n = xrma_provider_count();

	(void)state;
	assert_rc(fixture_ctx_open(fx.fabric, 2, &ctx), 0);
	assert_int_equal(xrma_provider_count(), n);
	assert_rc(xrma_ctx_close(ctx), 0);
	assert_int_equal(xrma_provider_count(), n);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_info_provider_count_at_least_one),
		T(test_info_provider_get_lists_loopback_with_caps),
		T(test_info_provider_get_past_end_returns_erange),
		T(test_info_provider_get_null_info_returns_einval),
		T(test_info_provider_names_unique_and_terminated),
		T(test_info_provider_default_is_listed),
		T(test_info_ctx_query_caps_match_provider_get),
		T(test_info_config_get_every_index_then_erange),
		T(test_info_provider_list_unchanged_by_contexts),
	};

	return cmocka_run_group_tests_name("info", tests, info_group_up, info_group_down);
}
