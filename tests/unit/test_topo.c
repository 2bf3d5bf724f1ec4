/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_topo.c: the topology on the machine the tests run on
 * (include/xrma/topo.h): the host adapter is always there (on a VM it is the
 * only one), NUMA nodes, a context's adapter and the [core] keys choosing it,
 * segment memory binding read back through hwloc, and a bound service thread's
 * affinity read back from the kernel. test_topo_xml covers a machine with devices.
 */
#include <dirent.h>
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/helpers/fixture.h"
#include "tests/unit/topo_check.h"

static struct fixture fx;

static int topo_group_up(void **state)
{
	(void)state;
	unsetenv("XRMA_CONF");
	unsetenv("XRMA_TOPOLOGY_XML");
	setenv("HOME", "/nonexistent-xrma-test-home", 1);
	return fixture_open(&fx, "topo", 1);
}

static int topo_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

static int topo_test_down(void **state)
{
	unsetenv("XRMA_ADAPTER");
	unsetenv("XRMA_MEMBIND");
	unsetenv("XRMA_BIND_THREADS");
	return fixture_test_down(state);
}

static void test_topo_adapter_list_ends_with_host(void **state)
{
	struct xrma_adapter_info a;
	int count = xrma_adapter_count();

	(void)state;
	assert_true(count >= 1);
	for (int i = 0; i < count; i++) {
		assert_rc(xrma_adapter_get(i, &a), 0);
		assert_int_equal(a.index, (uint32_t)i);
		assert_true(a.name[0] != '\0');
		if (i < count - 1) {
			assert_int_not_equal(a.kind, XRMA_ADAPTER_HOST);
			assert_true(a.pci_addr[0] != '\0');
		}
	}
	assert_int_equal(a.kind, XRMA_ADAPTER_HOST);
	assert_string_equal(a.name, "host");
	assert_string_equal(a.pci_addr, "");
	assert_int_equal(a.numa_node, XRMA_NUMA_NONE);
	/* The host holds every CPU the process may use. */
	assert_true(a.cpu_count >= 1);
	assert_true(a.numa_count >= 1);
}

static void test_topo_adapter_get_bad_args_return_errors(void **state)
{
	struct xrma_adapter_info a;

	(void)state;
	assert_rc(xrma_adapter_get(0, NULL), XRMA_EINVAL);
	assert_rc(xrma_adapter_get(-1, &a), XRMA_ERANGE);
	assert_rc(xrma_adapter_get(xrma_adapter_count(), &a), XRMA_ERANGE);
}

static void test_topo_numa_nodes_cover_the_cpus(void **state)
{
	struct xrma_numa_info n;
	struct xrma_adapter_info host;
	int count = xrma_numa_count();
	uint32_t cpus = 0;

	(void)state;
	assert_true(count >= 1);
	for (int i = 0; i < count; i++) {
		assert_rc(xrma_numa_get(i, &n), 0);
		assert_int_equal(n.index, (uint32_t)i);
		cpus += n.cpu_count;
	}
	assert_rc(xrma_adapter_get(xrma_adapter_count() - 1, &host), 0);
	assert_int_equal(cpus, host.cpu_count);
	assert_rc(xrma_numa_get(0, NULL), XRMA_EINVAL);
	assert_rc(xrma_numa_get(count, &n), XRMA_ERANGE);
	assert_rc(xrma_numa_get(-1, &n), XRMA_ERANGE);
}

static void test_topo_ctx_adapter_defaults_to_first(void **state)
{
	struct xrma_adapter_info a, first;

	(void)state;
	assert_rc(xrma_ctx_adapter(fx.ctx[0], &a), 0);
	assert_rc(xrma_adapter_get(0, &first), 0);
	assert_string_equal(a.name, first.name);
	assert_rc(xrma_ctx_adapter(fx.ctx[0], NULL), XRMA_EINVAL);
	assert_rc(xrma_ctx_adapter(FIXTURE_FORGED(struct xrma_ctx), &a), XRMA_EHANDLE);
}

static void test_topo_adapter_key_chooses_host_by_name_and_index(void **state)
{
	char index[16];
	struct xrma_adapter_info a;
	struct xrma_ctx *ctx;

	(void)state;
	setenv("XRMA_ADAPTER", "host", 1);
	assert_rc(fixture_ctx_open(fx.fabric, 2, &ctx), 0);
	assert_rc(xrma_ctx_adapter(ctx, &a), 0);
	assert_int_equal(a.kind, XRMA_ADAPTER_HOST);
	assert_rc(xrma_ctx_close(ctx), 0);
	snprintf(index, sizeof(index), "%d", xrma_adapter_count() - 1);
	setenv("XRMA_ADAPTER", index, 1);
	assert_rc(fixture_ctx_open(fx.fabric, 2, &ctx), 0);
	assert_rc(xrma_ctx_adapter(ctx, &a), 0);
	assert_string_equal(a.name, "host");
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_topo_bad_placement_keys_refuse_ctx_open(void **state)
{
	static const struct {
		const char *var, *value, *key;
	} bad[] = {
		{ "XRMA_ADAPTER", "no-such-adapter", "core.adapter" },
		{ "XRMA_ADAPTER", "99", "core.adapter" },
		{ "XRMA_MEMBIND", "everywhere", "core.membind" },
		{ "XRMA_BIND_THREADS", "maybe", "core.bind_threads" },
	};
	struct xrma_ctx *ctx = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(bad[i].var, bad[i].value, 1);
		assert_rc(fixture_ctx_open(fx.fabric, 2, &ctx), XRMA_ECONFIG);
		assert_null(ctx);
		/* The detail names the key, so the user knows which line to fix. */
		assert_non_null(strstr(xrma_error_detail(), bad[i].key));
		unsetenv(bad[i].var);
	}
}

/* The policy hwloc reads back for a fresh segment's pages under XRMA_MEMBIND=value. */
static hwloc_membind_policy_t seg_policy(const char *value, hwloc_topology_t hw,
					 hwloc_nodeset_t nodes)
{
	hwloc_membind_policy_t policy = HWLOC_MEMBIND_DEFAULT;
	struct fixture_seg seg;
	struct xrma_ctx *ctx;

	setenv("XRMA_MEMBIND", value, 1);
	assert_rc(fixture_ctx_open(fx.fabric, 2, &ctx), 0);
	assert_rc(fixture_seg_make(ctx, 4 * FIXTURE_PAGE, XRMA_ACCESS_REMOTE_READ, false, 7, &seg),
		  0);
	assert_int_equal(hwloc_get_area_membind(hw, seg.addr, seg.len, nodes, &policy,
						HWLOC_MEMBIND_BYNODESET),
			 0);
	assert_rc(fixture_seg_close(&seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	return policy;
}

static void test_topo_membind_thread_binds_segment_pages(void **state)
{
	const struct hwloc_topology_support *support;
	hwloc_topology_t hw;
	hwloc_nodeset_t nodes = hwloc_bitmap_alloc();

	(void)state;
	assert_int_equal(hwloc_topology_init(&hw), 0);
	assert_int_equal(hwloc_topology_load(hw), 0);
	support = hwloc_topology_get_support(hw);
	if (!support->membind->set_area_membind || !support->membind->get_area_membind ||
	    !support->membind->bind_membind) {
		hwloc_bitmap_free(nodes);
		hwloc_topology_destroy(hw);
		skip();
	}
	assert_int_equal(seg_policy("thread", hw, nodes), HWLOC_MEMBIND_BIND);
	assert_false(hwloc_bitmap_iszero(nodes));
	assert_true(hwloc_bitmap_isincluded(nodes, hwloc_topology_get_topology_nodeset(hw)));
	/* The host adapter has no NUMA node of its own: the default leaves pages alone. */
	setenv("XRMA_ADAPTER", "host", 1);
	assert_int_not_equal(seg_policy("", hw, nodes), HWLOC_MEMBIND_BIND);
	assert_int_not_equal(seg_policy("none", hw, nodes), HWLOC_MEMBIND_BIND);
	assert_int_equal(seg_policy("adapter", hw, nodes), HWLOC_MEMBIND_BIND);
	hwloc_bitmap_free(nodes);
	hwloc_topology_destroy(hw);
}

static void test_topo_bind_threads_adapter_binds_service_thread(void **state)
{
	struct xrma_adapter_info host;
	struct xrma_ctx *ctx;
	cpu_set_t want;

	(void)state;
	assert_rc(xrma_adapter_get(xrma_adapter_count() - 1, &host), 0);
	topo_cpu_list_parse(host.cpus, &want);
	setenv("XRMA_ADAPTER", "host", 1);
	setenv("XRMA_BIND_THREADS", "adapter", 1);
	assert_rc(fixture_ctx_open(fx.fabric, 2, &ctx), 0);
	/* Some service thread of this process (there are two contexts) has exactly the host's CPUs. */
	assert_true(topo_thread_affinity_seen("xrma-service", &want));
	assert_rc(xrma_ctx_close(ctx), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_topo_adapter_list_ends_with_host,
						fixture_test_up, topo_test_down),
		cmocka_unit_test_setup_teardown(test_topo_adapter_get_bad_args_return_errors,
						fixture_test_up, topo_test_down),
		cmocka_unit_test_setup_teardown(test_topo_numa_nodes_cover_the_cpus, fixture_test_up,
						topo_test_down),
		cmocka_unit_test_setup_teardown(test_topo_ctx_adapter_defaults_to_first,
						fixture_test_up, topo_test_down),
		cmocka_unit_test_setup_teardown(test_topo_adapter_key_chooses_host_by_name_and_index,
						fixture_test_up, topo_test_down),
		cmocka_unit_test_setup_teardown(test_topo_bad_placement_keys_refuse_ctx_open,
						fixture_test_up, topo_test_down),
		cmocka_unit_test_setup_teardown(test_topo_membind_thread_binds_segment_pages,
						fixture_test_up, topo_test_down),
		cmocka_unit_test_setup_teardown(test_topo_bind_threads_adapter_binds_service_thread,
						fixture_test_up, topo_test_down),
	};

	return cmocka_run_group_tests_name("topo", tests, topo_group_up, topo_group_down);
}
