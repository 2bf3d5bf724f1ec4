/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/pximc_test_iface.c: pxt_interface_to and pxt_interface_wait, for the
 * programs that reach other nodes through the Dispatcher (apart from pximc_test.c, which links
 * no PXImc library).
 */
#include "tests/conformance/pximc/pximc_test.h"
#include "tests/helpers/fixture.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

uint32_t pxt_interface_to(uint32_t node)
{
	uint32_t ids[16], actual = 0;
	char want[32];
	size_t want_len;

	want_len = (size_t)snprintf(want, sizeof(want), " to node %u", node);
	if (PXIMC_findInterfaces(16, ids, &actual) != PXIMC_SUCCESS)
		return 0;
	for (uint32_t i = 0; i < actual && i < 16; i++) {
		char name[128] = "";
		uint32_t len = 0;
		size_t n;

		if (PXIMC_queryInterfaceInformation(ids[i], PXIMC_STR_INTERFACE_NAME, sizeof(name),
						    name, &len) != PXIMC_SUCCESS)
			continue;
		n = strlen(name);
		if (n >= want_len && !strcmp(name + n - want_len, want))
			return ids[i];
	}
	return 0;
}

uint32_t pxt_interface_wait(uint32_t node, unsigned int wait_ms)
{
	/* Between listings: a missed node is taken as down without a ping for a while. */
	const struct timespec pause = { .tv_nsec = 10 * 1000 * 1000 };
	uint64_t deadline = fixture_now_ms() + wait_ms;
	uint32_t iface;

	while (!(iface = pxt_interface_to(node)) && fixture_now_ms() < deadline)
		nanosleep(&pause, NULL);
	return iface;
}
