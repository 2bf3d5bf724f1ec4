/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/test_pximc_adapter.c: the interface attributes that
 * describe hardware (PCI ids and location, manufacturer id) on a machine with an
 * NTB: tests/unit/topo_devices.xml read as the topology ([core] topology_xml),
 * the vendor library's contexts tied to its Intel NTB ([core] adapter = ntb0).
 * test_pximc_vendor covers the same attributes on a machine without one.
 */
#include <stdio.h>
#include <stdlib.h>
#include "tests/conformance/pximc/pximc_test.h"

static struct pxt_pair pp;

static int group_up(void **state)
{
	char path[4096];
	const char *srcdir = getenv("XRMA_TEST_SRCDIR");

	(void)state;
	/* The topology is read once per process: set before any context opens. */
	snprintf(path, sizeof(path), "%s/tests/unit/topo_devices.xml", srcdir ? srcdir : ".");
	setenv("XRMA_TOPOLOGY_XML", path, 1);
	setenv("XRMA_ADAPTER", "ntb0", 1);
	return pxt_pair_open(&pp, "pximcpci");
}

static int group_down(void **state)
{
	(void)state;
	pxt_pair_close(&pp);
	return 0;
}

static uint32_t query_u32(uint32_t attribute)
{
	uint32_t value = 0xdeadbeefu, actual = 0;

	xrma_pximc_use(pp.a);
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, attribute, 4, &value, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(actual, 4);
	return value;
}

static void test_interface_pci_attributes_are_the_ntb(void **state)
{
	(void)state;
	assert_int_equal(query_u32(PXIMC_U32_MANF_ID), 0x8086);
	assert_int_equal(query_u32(PXIMC_U32_INTERFACE_VENDOR_ID), 0x8086);
	assert_int_equal(query_u32(PXIMC_U32_INTERFACE_DEVICE_ID), 0x201c);
	assert_int_equal(query_u32(PXIMC_U32_INTERFACE_SS_VENDOR_ID), 0x8086);
	assert_int_equal(query_u32(PXIMC_U32_INTERFACE_SS_ID), 0);
	assert_int_equal(query_u32(PXIMC_U32_INTERFACE_BUS), 0x5e);
	assert_int_equal(query_u32(PXIMC_U32_INTERFACE_DEV), 0);
	assert_int_equal(query_u32(PXIMC_U32_INTERFACE_FUNC), 0);
	assert_int_equal(query_u32(PXIMC_U32_INTERFACE_LOCAL), PXIMC_LOCAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interface_pci_attributes_are_the_ntb),
	};

	return cmocka_run_group_tests_name("pximc_adapter", tests, group_up, group_down);
}
