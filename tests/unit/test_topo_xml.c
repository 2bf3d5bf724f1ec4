/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_topo_xml.c: adapter discovery on a machine described by
 * tests/unit/topo_devices.xml ([core] topology_xml): a Dolphin card near NUMA
 * node 0, an Intel NTB near NUMA node 1, a NIC that is no adapter; their PCI
 * ids and locality, the adapter a context chooses by default and by name, PCI
 * address or index, the DMA and service threads bound near the NTB, and SISCI's
 * adapter queries answering with the NTB's PCI facts.
 *
 * The file is a two-socket machine: PU 0 and NUMA node 0 in package 0 with
 * the Dolphin card and the NIC, PU 1 and NUMA node 1 in package 1 with an
 * Intel Xeon Scalable NTB (8086:201c); PU numbers match a 2-CPU VM. It holds
 * no XML comment: hwloc built without libxml2 (no libhwloc-plugins) parses
 * with a minimal reader that refuses them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sisci_api.h>
#include "tests/helpers/fixture.h"
#include "tests/unit/topo_check.h"

/* Longer than the asynchronous transfers a poster runs itself (64 KiB): the engine runs it. */
#define ENGINE_LEN (20 * FIXTURE_PAGE)

static struct fixture fx;

static int xml_group_up(void **state)
{
	char path[4096];
	const char *srcdir = getenv("XRMA_TEST_SRCDIR");

	(void)state;
	unsetenv("XRMA_CONF");
	setenv("HOME", "/nonexistent-xrma-test-home", 1);
	/* Read once per process: set before anything asks for the topology. */
	snprintf(path, sizeof(path), "%s/tests/unit/topo_devices.xml", srcdir ? srcdir : ".");
	setenv("XRMA_TOPOLOGY_XML", path, 1);
	return fixture_open(&fx, "topoxml", 2);
}

static int xml_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

static int xml_test_down(void **state)
{
	unsetenv("XRMA_ADAPTER");
	unsetenv("XRMA_BIND_THREADS");
	return fixture_test_down(state);
}

static void test_topo_xml_finds_dolphin_and_ntb_not_nic(void **state)
{
	struct xrma_adapter_info a;

	(void)state;
	assert_int_equal(xrma_adapter_count(), 3);
	assert_rc(xrma_adapter_get(0, &a), 0);
	assert_string_equal(a.name, "dolphin0");
	assert_int_equal(a.kind, XRMA_ADAPTER_DOLPHIN);
	assert_string_equal(a.pci_addr, "0000:17:00.0");
	assert_int_equal(a.vendor_id, 0x11c8);
	assert_int_equal(a.numa_node, 0);
	assert_rc(xrma_adapter_get(1, &a), 0);
	assert_string_equal(a.name, "ntb0");
	assert_int_equal(a.kind, XRMA_ADAPTER_NTB);
	assert_string_equal(a.model, "Intel Xeon Scalable NTB");
	assert_int_equal(a.pci_domain, 0);
	assert_int_equal(a.pci_bus, 0x5e);
	assert_int_equal(a.pci_dev, 0);
	assert_int_equal(a.pci_func, 0);
	assert_int_equal(a.vendor_id, 0x8086);
	assert_int_equal(a.device_id, 0x201c);
	assert_int_equal(a.subvendor_id, 0x8086);
	assert_rc(xrma_adapter_get(2, &a), 0);
	assert_int_equal(a.kind, XRMA_ADAPTER_HOST);
	assert_int_equal(a.numa_count, 2);
	assert_string_equal(a.numa_nodes, "0-1");
	assert_string_equal(a.cpus, "0-1");
}

static void test_topo_xml_ntb_is_local_to_numa_node_1(void **state)
{
	struct xrma_adapter_info a;
	struct xrma_numa_info n;

	(void)state;
	assert_rc(xrma_adapter_get(1, &a), 0);
	assert_int_equal(a.numa_node, 1);
	assert_int_equal(a.numa_count, 1);
	assert_string_equal(a.numa_nodes, "1");
	assert_int_equal(a.cpu_count, 1);
	assert_string_equal(a.cpus, "1");
	assert_int_equal(xrma_numa_count(), 2);
	assert_rc(xrma_numa_get(1, &n), 0);
	assert_int_equal(n.os_index, 1);
	assert_int_equal(n.memory, 1073741824u);
	assert_string_equal(n.cpus, "1");
}

static void expect_adapter(const char *value, const char *name)
{
	struct xrma_adapter_info a;
	struct xrma_ctx *ctx;

	if (value)
		setenv("XRMA_ADAPTER", value, 1);
	else
		unsetenv("XRMA_ADAPTER");
	assert_rc(fixture_ctx_open(fx.fabric, 3, &ctx), 0);
	assert_rc(xrma_ctx_adapter(ctx, &a), 0);
	assert_string_equal(a.name, name);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_topo_xml_adapter_choice(void **state)
{
	(void)state;
	/* A device comes before the host: the first one found is the default. */
	expect_adapter(NULL, "dolphin0");
	expect_adapter("auto", "dolphin0");
	expect_adapter("ntb0", "ntb0");
	expect_adapter("0000:5e:00.0", "ntb0");
	expect_adapter("5e:00.0", "ntb0");
	expect_adapter("1", "ntb0");
	expect_adapter("host", "host");
}

static void test_topo_xml_threads_bound_near_ntb(void **state)
{
	struct fixture_seg local, remote;
	struct xrma_completion done;
	struct xrma_rseg *rseg;
	struct xrma_dmaq *q;
	struct xrma_iov iov;
	struct xrma_ctx *ctx;
	cpu_set_t want;

	(void)state;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();   /* the XML's PU 1 must exist here */
	topo_cpu_list_parse("1", &want);
	setenv("XRMA_ADAPTER", "ntb0", 1);
	setenv("XRMA_BIND_THREADS", "adapter", 1);
	assert_rc(fixture_ctx_open(fx.fabric, 3, &ctx), 0);
	assert_true(topo_thread_affinity_seen("xrma-service", &want));
	/* The DMA engine starts with the first transfer handed to it. */
	assert_rc(fixture_seg_make(ctx, ENGINE_LEN, XRMA_ACCESS_ALL, false, 1, &local), 0);
	assert_rc(fixture_seg_make(fx.ctx[0], ENGINE_LEN, XRMA_ACCESS_ALL, true, 0, &remote), 0);
	assert_rc(xrma_rseg_open(ctx, fx.node[0], remote.id, XRMA_ACCESS_REMOTE_WRITE, 0,
				 FIXTURE_TIMEOUT_MS, &rseg),
		  0);
	iov = (struct xrma_iov){ .seg = local.seg, .len = ENGINE_LEN };
	assert_rc(xrma_dmaq_open(ctx, 4, 0, &q), 0);
	/*
	 * Not XRMA_RMA_SYNC, and longer than 64 KiB: a lone synchronous transfer,
	 * or a short asynchronous one, runs on the caller's thread.
	 */
	assert_rc(xrma_dmaq_post(q, XRMA_RMA_WRITE, &iov, 1, rseg, 0, ENGINE_LEN, 9, 0), 0);
	assert_rc(xrma_dmaq_wait(q, &done, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(done.status, 0);
	assert_rc(xrma_dmaq_close(q), 0);
	assert_true(topo_thread_affinity_seen("xrma-dma", &want));
	assert_int_equal(fixture_pattern_check(remote.addr, ENGINE_LEN, 1, 0), FIXTURE_MATCH);
	assert_rc(xrma_rseg_close(rseg), 0);
	assert_rc(fixture_wait_importers(remote.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&local), 0);
	assert_rc(fixture_seg_close(&remote), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static unsigned int sisci_adapter_query(unsigned int sub)
{
	unsigned int value = 0xdeadbeefu;
	struct sci_query_adapter q = { .localAdapterNo = 0, .subcommand = sub, .data = &value };
	sci_error_t err;

	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_int_equal(err, SCI_ERR_OK);
	return value;
}

static void test_topo_xml_sisci_query_reports_ntb(void **state)
{
	char node[16];

	(void)state;
	/* SISCI's adapter 0 is a context of its own: on loopback, in this fabric, as node 9. */
	snprintf(node, sizeof(node), "%u", 9u);
	setenv("XRMA_PROVIDER", "loopback", 1);
	setenv("XRMA_FABRIC", fx.fabric, 1);
	setenv("XRMA_NODE_ID", node, 1);
	setenv("XRMA_ADAPTER", "ntb0", 1);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_CARD_TYPE), XRMA_ADAPTER_NTB);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_NUMA_NODE), 1);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_LOCAL_CPU_COUNT), 1);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_PCI_DOMAIN), 0);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_PCI_BUS), 0x5e);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_PCI_DEVICE), 0);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_PCI_FUNCTION), 0);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_PCI_VENDOR_ID), 0x8086);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_PCI_DEVICE_ID), 0x201c);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_NUMA_NODES), 2);
	assert_int_equal(sisci_adapter_query(SCI_Q_ADAPTER_CPU_COUNT), 2);
	unsetenv("XRMA_PROVIDER");
	unsetenv("XRMA_FABRIC");
	unsetenv("XRMA_NODE_ID");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_topo_xml_finds_dolphin_and_ntb_not_nic,
						fixture_test_up, xml_test_down),
		cmocka_unit_test_setup_teardown(test_topo_xml_ntb_is_local_to_numa_node_1,
						fixture_test_up, xml_test_down),
		cmocka_unit_test_setup_teardown(test_topo_xml_adapter_choice, fixture_test_up,
						xml_test_down),
		cmocka_unit_test_setup_teardown(test_topo_xml_threads_bound_near_ntb, fixture_test_up,
						xml_test_down),
		cmocka_unit_test_setup_teardown(test_topo_xml_sisci_query_reports_ntb, fixture_test_up,
						xml_test_down),
	};

	return cmocka_run_group_tests_name("topo_xml", tests, xml_group_up, xml_group_down);
}
