/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/pximc_test_pair.c: two PXImc systems in one process (pximc_test.h),
 * for the programs that link xrma's vendor library directly.
 */
#include "tests/conformance/pximc/pximc_test.h"

#include <stdio.h>

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
	snprintf(p->fabric, sizeof(p->fabric), "%s", fabric);
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
