/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/pximc_test.h: helpers shared by the PXImc conformance programs:
 * status assertions that print names, and two PXImc systems ("A" and "B") in one process,
 * each an xrma_pximc instance on its own node of a fabric unique to the program.
 */
#ifndef XRMA_PXIMC_TEST_H
#define XRMA_PXIMC_TEST_H

#include <pximc.h>
#include <pximc_xrma.h>
#include "tests/helpers/fixture.h"

/* Wide enough for every window a test asks for. */
#define PXT_SIZE 0x1000u
#define PXT_PROTO 0xF0001000u

const char *pxt_status_name(tPXIMC_Status status);
void pxt_assert_status(tPXIMC_Status actual, tPXIMC_Status expected, const char *expr,
		       const char *file, int line);
#define assert_px(actual, expected) \
	pxt_assert_status((actual), (expected), #actual, __FILE__, __LINE__)

/*
 * The Dispatcher's interface to node, found by xrma's vendor library's interface name
 * ("... to node N"), in one scan of the first 16 interfaces. 0 if none.
 */
uint32_t pxt_interface_to(uint32_t node);

/*
 * pxt_interface_to, asked again until node's interface shows or wait_ms passed. For a
 * process that has just started: on a network provider its first listing pings the
 * other nodes, and a connection still being set up may miss that listing's bound.
 */
uint32_t pxt_interface_wait(uint32_t node, unsigned int wait_ms);


struct pxt_pair {
	struct xrma_pximc *a, *b;
	uint32_t node_a, node_b;
	uint32_t if_ab;    /* interface of B, seen from A */
	uint32_t if_ba;    /* interface of A, seen from B */
	char fabric[XRMA_NAME_MAX];
};

/* Open A (node 1) and B (node 2) on a fresh fabric named after tag. 0 or -1. */
int pxt_pair_open(struct pxt_pair *p, const char *tag);
void pxt_pair_close(struct pxt_pair *p);

#endif
