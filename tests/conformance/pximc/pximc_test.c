/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/pximc_test.c: the helpers of pximc_test.h.
 */
#include "tests/conformance/pximc/pximc_test.h"

#include <stdio.h>

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

int pxt_pair_open(struct pxt_pair *p, const char *tag)
{
	char fabric[XRMA_NAME_MAX];
	struct xrma_ctx_attr attr = { .provider = NULL, .fabric = fabric };

	fixture_fabric_name(fabric, sizeof(fabric), tag);
	attr.node_id = 1;
	if (xrma_pximc_open(&attr, &p->a))
		return -1;
	attr.node_id = 2;
	if (xrma_pximc_open(&attr, &p->b)) {
		xrma_pximc_close(p->a);
		return -1;
	}
	p->node_a = 1;
	p->node_b = 2;
	p->if_ab = p->node_b + 1;
	p->if_ba = p->node_a + 1;
	return 0;
}

void pxt_pair_close(struct pxt_pair *p)
{
	xrma_pximc_close(p->b);
	xrma_pximc_close(p->a);
}
