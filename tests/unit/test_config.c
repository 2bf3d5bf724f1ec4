/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_config.c: configuration (core/config.h, internal, and
 * xrma_config_get / xrma_ctx_open in public): the INI file named by XRMA_CONF,
 * environment over file over defaults, attributes over both, the sources
 * listed by xrma_config_get, and every way a value or file is refused
 * (XRMA_ECONFIG). Each test restores the environment it changed.
 */
#include "tests/helpers/fixture.h"
#include "core/config.h"
#include "providers/providers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct fixture fx;
static char conf_path[256];

static void env_clear(void)
{
	unsetenv("XRMA_PROVIDER");
	unsetenv("XRMA_FABRIC");
	unsetenv("XRMA_NODE_ID");
	unsetenv("XRMA_CONF");
}

static int config_group_up(void **state)
{
	(void)state;
	env_clear();
	/* No user file may leak in. */
	setenv("HOME", "/nonexistent-xrma-test-home", 1);
	return fixture_open(&fx, "config", 1);
}

static int config_group_down(void **state)
{
	(void)state;
	env_clear();
	return fixture_close(&fx);
}

static int config_test_down(void **state)
{
	env_clear();
	if (conf_path[0]) {
		unlink(conf_path);
		conf_path[0] = '\0';
	}
	return fixture_test_down(state);
}

/* Write contents to a temporary file and point XRMA_CONF at it. */
static void use_conf(const char *contents)
{
	assert_int_equal(fixture_write_file(conf_path, sizeof(conf_path), contents), 0);
	setenv("XRMA_CONF", conf_path, 1);
}

static const char full_conf[] = "[xrma]\nprovider = loopback\nnode_id = 7\nfabric = x\n";

/* Open with everything left to the configuration. */
static int open_default(struct xrma_ctx **ctx)
{
	struct xrma_ctx_attr attr = { .provider = NULL, .fabric = NULL, .node_id = XRMA_NODE_ANY };

	return xrma_ctx_open(&attr, ctx);
}

static void test_config_file_sets_provider_node_fabric(void **state)
{
	struct xrma_ctx_info info;
	struct xrma_ctx *ctx = NULL;

	(void)state;
	use_conf(full_conf);
	assert_rc(open_default(&ctx), 0);
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_string_equal(info.provider, "loopback");
	assert_int_equal(info.node_id, 7);
	assert_string_equal(info.fabric, "x");
	assert_rc(xrma_ctx_close(ctx), 0);
	/* A NULL attr means the same. */
	assert_rc(xrma_ctx_open(NULL, &ctx), 0);
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_int_equal(info.node_id, 7);
	assert_string_equal(info.fabric, "x");
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_config_get_lists_file_values(void **state)
{
	struct xrma_config_entry e[XRMA_CONFIG_KEY_COUNT];
	int i;

	(void)state;
	use_conf(full_conf);
	for (i = 0; i < XRMA_CONFIG_KEY_COUNT; i++)
		assert_rc(xrma_config_get(i, &e[i]), 0);
	assert_string_equal(e[XRMA_CONFIG_PROVIDER].key, "provider");
	assert_string_equal(e[XRMA_CONFIG_PROVIDER].value, "loopback");
	assert_string_equal(e[XRMA_CONFIG_NODE_ID].key, "node_id");
	assert_string_equal(e[XRMA_CONFIG_NODE_ID].value, "7");
	assert_string_equal(e[XRMA_CONFIG_FABRIC].key, "fabric");
	assert_string_equal(e[XRMA_CONFIG_FABRIC].value, "x");
}

static void test_config_get_file_source_names_path_and_line(void **state)
{
	struct xrma_config_entry e;
	char want[320];

	(void)state;
	use_conf(full_conf);
	assert_rc(xrma_config_get(XRMA_CONFIG_PROVIDER, &e), 0);
	snprintf(want, sizeof(want), "file %s:2", conf_path);
	assert_string_equal(e.source, want);
	assert_rc(xrma_config_get(XRMA_CONFIG_NODE_ID, &e), 0);
	snprintf(want, sizeof(want), "file %s:3", conf_path);
	assert_string_equal(e.source, want);
	assert_rc(xrma_config_get(XRMA_CONFIG_FABRIC, &e), 0);
	snprintf(want, sizeof(want), "file %s:4", conf_path);
	assert_string_equal(e.source, want);
}

static void test_config_get_defaults_when_nothing_set(void **state)
{
	struct xrma_config_entry e;

	(void)state;
	assert_rc(xrma_config_get(XRMA_CONFIG_PROVIDER, &e), 0);
	assert_string_equal(e.value, xrma_provider_default());
	assert_string_equal(e.source, "default");
	assert_rc(xrma_config_get(XRMA_CONFIG_NODE_ID, &e), 0);
	assert_string_equal(e.value, "1");
	assert_string_equal(e.source, "default");
	assert_rc(xrma_config_get(XRMA_CONFIG_FABRIC, &e), 0);
	assert_string_equal(e.value, "default");
	assert_string_equal(e.source, "default");
}

static void test_config_get_bad_args_return_errors(void **state)
{
	struct xrma_config_entry e;

	(void)state;
	assert_rc(xrma_config_get(0, NULL), XRMA_EINVAL);
	assert_rc(xrma_config_get(XRMA_CONFIG_KEY_COUNT, &e), XRMA_ERANGE);
	assert_rc(xrma_config_get(1000, &e), XRMA_ERANGE);
	assert_rc(xrma_config_get(-1, &e), XRMA_ERANGE);
}

static void test_config_env_overrides_file(void **state)
{
	struct xrma_config_entry e;
	struct xrma_ctx_info info;
	struct xrma_ctx *ctx = NULL;
	char want[320];

	(void)state;
	use_conf(full_conf);
	setenv("XRMA_NODE_ID", "9", 1);
	assert_rc(open_default(&ctx), 0);
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_int_equal(info.node_id, 9);
	assert_string_equal(info.fabric, "x");
	assert_rc(xrma_ctx_close(ctx), 0);
	assert_rc(xrma_config_get(XRMA_CONFIG_NODE_ID, &e), 0);
	assert_string_equal(e.value, "9");
	assert_string_equal(e.source, "environment XRMA_NODE_ID");
	/* The other keys still come from the file. */
	assert_rc(xrma_config_get(XRMA_CONFIG_FABRIC, &e), 0);
	assert_string_equal(e.value, "x");
	snprintf(want, sizeof(want), "file %s", conf_path);
	assert_true(strncmp(e.source, want, strlen(want)) == 0);
}

static void test_config_attr_overrides_env_and_file(void **state)
{
	struct xrma_ctx_attr attr = { .provider = "loopback", .fabric = fx.fabric, .node_id = 3 };
	struct xrma_ctx_info info;
	struct xrma_ctx *ctx = NULL;

	(void)state;
	use_conf(full_conf);
	setenv("XRMA_NODE_ID", "9", 1);
	setenv("XRMA_FABRIC", "some-other-fabric", 1);
	assert_rc(xrma_ctx_open(&attr, &ctx), 0);
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_int_equal(info.node_id, 3);
	assert_string_equal(info.fabric, fx.fabric);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_config_env_node_id_and_fabric_used(void **state)
{
	struct xrma_ctx_attr attr = { .provider = "loopback", .fabric = NULL, .node_id = XRMA_NODE_ANY };
	struct xrma_ctx_info info;
	struct xrma_ctx *ctx = NULL;

	(void)state;
	setenv("XRMA_NODE_ID", "0x10", 1);
	setenv("XRMA_FABRIC", fx.fabric, 1);
	assert_rc(xrma_ctx_open(&attr, &ctx), 0);
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_int_equal(info.node_id, 16);
	assert_string_equal(info.fabric, fx.fabric);
	/* It joined fx's fabric: node 1 is there. */
	assert_rc(xrma_node_probe(ctx, 1, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_config_bad_env_node_id_returns_econfig(void **state)
{
	static const char *const bad[] = { "abc", "12abc", "-1", "4294967296", "1.5", " " };
	struct xrma_ctx *ctx = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("XRMA_NODE_ID", bad[i], 1);
		if (open_default(&ctx) != -XRMA_ECONFIG)
			fail_msg("XRMA_NODE_ID=\"%s\" was not refused with XRMA_ECONFIG", bad[i]);
	}
}

static void test_config_bad_file_node_id_returns_econfig(void **state)
{
	struct xrma_ctx *ctx = NULL;

	(void)state;
	use_conf("[xrma]\nnode_id = seven\n");
	assert_rc(open_default(&ctx), XRMA_ECONFIG);
}

static void test_config_unknown_key_returns_econfig(void **state)
{
	struct xrma_config_entry e;
	struct xrma_config cfg;
	struct xrma_ctx *ctx = NULL;

	(void)state;
	use_conf("[xrma]\nprovider = loopback\nbogus = 1\n");
	assert_rc(xrma_config_load(&cfg), XRMA_ECONFIG);
	assert_rc(open_default(&ctx), XRMA_ECONFIG);
	assert_rc(xrma_config_get(0, &e), XRMA_ECONFIG);
	/* A known key in an unknown section is unknown too. */
	unlink(conf_path);
	conf_path[0] = '\0';
	use_conf("[other]\nnode_id = 1\n");
	assert_rc(xrma_config_load(&cfg), XRMA_ECONFIG);
}

static void test_config_unreadable_or_broken_file_returns_econfig(void **state)
{
	struct xrma_config cfg;
	struct xrma_ctx *ctx = NULL;

	(void)state;
	setenv("XRMA_CONF", "/nonexistent-xrma-test-dir/xrma.conf", 1);
	assert_rc(xrma_config_load(&cfg), XRMA_ECONFIG);
	assert_rc(open_default(&ctx), XRMA_ECONFIG);
	use_conf("[xrma\nprovider loopback\n");
	assert_rc(xrma_config_load(&cfg), XRMA_ECONFIG);
	assert_rc(open_default(&ctx), XRMA_ECONFIG);
}

static void test_config_file_unknown_provider_returns_enoprov(void **state)
{
	struct xrma_ctx *ctx = NULL;

	(void)state;
	use_conf("[xrma]\nprovider = no-such-provider\nnode_id = 7\nfabric = x\n");
	assert_rc(open_default(&ctx), XRMA_ENOPROV);
}

static void test_config_node_id_parses_decimal_and_hex(void **state)
{
	struct xrma_config cfg;
	uint32_t node = 0;

	(void)state;
	assert_rc(xrma_config_load(&cfg), 0);
	snprintf(cfg.entries[XRMA_CONFIG_NODE_ID].value, sizeof(cfg.entries[0].value), "1");
	assert_rc(xrma_config_node_id(&cfg, &node), 0);
	assert_int_equal(node, 1);
	snprintf(cfg.entries[XRMA_CONFIG_NODE_ID].value, sizeof(cfg.entries[0].value), "0x10");
	assert_rc(xrma_config_node_id(&cfg, &node), 0);
	assert_int_equal(node, 16);
	node = 77;
	snprintf(cfg.entries[XRMA_CONFIG_NODE_ID].value, sizeof(cfg.entries[0].value), "abc");
	assert_rc(xrma_config_node_id(&cfg, &node), XRMA_ECONFIG);
	snprintf(cfg.entries[XRMA_CONFIG_NODE_ID].value, sizeof(cfg.entries[0].value), "4294967296");
	assert_rc(xrma_config_node_id(&cfg, &node), XRMA_ECONFIG);
	assert_int_equal(node, 77);
}

static void test_config_load_file_values_readable(void **state)
{
	struct xrma_config cfg;

	(void)state;
	assert_rc(xrma_config_load(&cfg), 0);
	assert_string_equal(xrma_config_value(&cfg, XRMA_CONFIG_FABRIC), "default");
	assert_int_equal(fixture_write_file(conf_path, sizeof(conf_path), full_conf), 0);
	assert_rc(xrma_config_load_file(&cfg, conf_path), 0);
	assert_string_equal(xrma_config_value(&cfg, XRMA_CONFIG_PROVIDER), "loopback");
	assert_string_equal(xrma_config_value(&cfg, XRMA_CONFIG_NODE_ID), "7");
	assert_string_equal(xrma_config_value(&cfg, XRMA_CONFIG_FABRIC), "x");
	assert_string_equal(cfg.file, conf_path);
}

/* Every provider's key, set in a file under its section, reads back through its own table. */
static void test_config_table_keys_read_through_their_table(void **state)
{
	char conf[256], want[64];
	struct xrma_config cfg;
	int total = XRMA_CONFIG_CORE_KEY_COUNT;

	(void)state;
	assert_rc(xrma_config_load(&cfg), 0);
	for (size_t t = 0; t < xrma_providers_config_count; t++) {
		const struct xrma_config_table *table = xrma_providers_config[t];

		for (int k = 0; k < table->count; k++) {
			snprintf(want, sizeof(want), "12%zu%d", t, k);
			snprintf(conf, sizeof(conf), "[%s]\n%s = %s\n", table->keys[k].section,
				 table->keys[k].name, want);
			assert_int_equal(fixture_write_file(conf_path, sizeof(conf_path), conf), 0);
			assert_rc(xrma_config_load(&cfg), 0);
			assert_rc(xrma_config_load_file(&cfg, conf_path), 0);
			assert_string_equal(xrma_config_table_value(&cfg, table, k), want);
			unlink(conf_path);
			conf_path[0] = '\0';
		}
		/* Past its end a table has no key, and nothing is read from a neighbour's. */
		assert_null(xrma_config_table_value(&cfg, table, table->count));
		assert_null(xrma_config_table_value(&cfg, table, -1));
		total += table->count;
	}
	assert_int_equal(XRMA_CONFIG_KEY_COUNT, total);
	assert_true(XRMA_CONFIG_KEY_COUNT <= XRMA_CONFIG_MAX);
}

/* A table that is not in the build's list is refused, not read at some other table's place. */
static void test_config_table_not_built_returns_nothing(void **state)
{
	static const struct xrma_config_key_desc keys[] = {
		{ "absent", "key", "XRMA_ABSENT_KEY", "value" },
	};
	static const struct xrma_config_table absent = { keys, 1 };
	struct xrma_config cfg;
	uint64_t v = 99;

	(void)state;
	assert_rc(xrma_config_load(&cfg), 0);
	assert_null(xrma_config_table_value(&cfg, &absent, 0));
	assert_rc(xrma_config_table_size(&cfg, &absent, 0, 10, &v), XRMA_EINVAL);
	assert_int_equal(v, 99);
	use_conf("[absent]\nkey = 1\n");
	assert_rc(xrma_config_load(&cfg), XRMA_ECONFIG);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, config_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_config_file_sets_provider_node_fabric),
		T(test_config_get_lists_file_values),
		T(test_config_get_file_source_names_path_and_line),
		T(test_config_get_defaults_when_nothing_set),
		T(test_config_get_bad_args_return_errors),
		T(test_config_env_overrides_file),
		T(test_config_attr_overrides_env_and_file),
		T(test_config_env_node_id_and_fabric_used),
		T(test_config_bad_env_node_id_returns_econfig),
		T(test_config_bad_file_node_id_returns_econfig),
		T(test_config_unknown_key_returns_econfig),
		T(test_config_unreadable_or_broken_file_returns_econfig),
		T(test_config_file_unknown_provider_returns_enoprov),
		T(test_config_node_id_parses_decimal_and_hex),
		T(test_config_load_file_values_readable),
		T(test_config_table_keys_read_through_their_table),
		T(test_config_table_not_built_returns_nothing),
	};

	return cmocka_run_group_tests_name("config", tests, config_group_up, config_group_down);
}
