/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/pximc_test.c: the helpers of pximc_test.h.
 */
#include "tests/conformance/pximc/pximc_test.h"

#include <stdio.h>
#include <string.h>

const char *pxt_status_name(tPXIMC_Status status)
{
	static const struct {
		tPXIMC_Status status;
		const char *name;
	} names[] = {
		{ PXIMC_SUCCESS, "PXIMC_SUCCESS" },
		{ PXIMC_INSUFFICIENT_SPACE, "PXIMC_INSUFFICIENT_SPACE" },
		{ PXIMC_INVALID_INTERFACE, "PXIMC_INVALID_INTERFACE" },
		{ PXIMC_INTERFACE_DOWN, "PXIMC_INTERFACE_DOWN" },
		{ PXIMC_NSUP_ATTRIBUTE, "PXIMC_NSUP_ATTRIBUTE" },
		{ PXIMC_INVALID_ARGUMENT, "PXIMC_INVALID_ARGUMENT" },
		{ PXIMC_SPACE_NOT_AVAILABLE, "PXIMC_SPACE_NOT_AVAILABLE" },
		{ PXIMC_UID_CONFLICT, "PXIMC_UID_CONFLICT" },
		{ PXIMC_NO_PAIRING, "PXIMC_NO_PAIRING" },
		{ PXIMC_PHY_RESOURCE_NOT_AVAILABLE, "PXIMC_PHY_RESOURCE_NOT_AVAILABLE" },
		{ PXIMC_INVALID_SESSION, "PXIMC_INVALID_SESSION" },
		{ PXIMC_NO_WINDOW, "PXIMC_NO_WINDOW" },
		{ PXIMC_SESSION_CLOSED, "PXIMC_SESSION_CLOSED" },
		{ PXIMC_INVALID_WINDOW, "PXIMC_INVALID_WINDOW" },
		{ PXIMC_INVALID_RESOURCE, "PXIMC_INVALID_RESOURCE" },
		{ PXIMC_ALIGNMENT_ERROR, "PXIMC_ALIGNMENT_ERROR" },
		{ PXIMC_NO_PROVIDER, "PXIMC_NO_PROVIDER" },
		{ PXIMC_TIMEOUT, "PXIMC_TIMEOUT" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].status == status)
			return names[i].name;
	return "(unknown status)";
}

void pxt_assert_status(tPXIMC_Status actual, tPXIMC_Status expected, const char *expr,
		       const char *file, int line)
{
	if (actual == expected)
		return;
	print_error("%s:%d: %s returned %s (%d), expected %s (%d)\n", file, line, expr,
		    pxt_status_name(actual), actual, pxt_status_name(expected), expected);
	fail();
}
