/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/loopback/loopback_test.h: fault hooks of the loopback provider, for
 * tests (linked from the internal library; not exported). A loopback fabric is
 * named by its fabric string; nodes are the node ids of its endpoints.
 */
#ifndef XRMA_PROV_LOOPBACK_TEST_H
#define XRMA_PROV_LOOPBACK_TEST_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Simulate the crash of every endpoint of node: it leaves the fabric at once,
 * survivors get peer_down(XRMA_ELOST) for it, and the severed endpoints get
 * peer_down(XRMA_ELOST) for every survivor; their names are released and their
 * later sends, imports and transfers fail. XRMA_ENODEV if no endpoint matched.
 */
int xrma_prov_loopback_sever(const char *fabric, uint32_t node);

/*
 * While closed, transfers issued by endpoints of node block on entry until the
 * gate opens, so tests can hold an operation in flight. XRMA_ENOENT for an
 * unknown fabric.
 */
int xrma_prov_loopback_gate(const char *fabric, uint32_t node, bool closed);

/*
 * Take the link of node down or up: every other endpoint gets link_event(node, up);
 * while down, transfers to or from node's memory fail with XRMA_ETRANSFER.
 */
int xrma_prov_loopback_link(const char *fabric, uint32_t node, bool up);

#endif
