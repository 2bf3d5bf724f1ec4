/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/node.h: the nodes of a context's fabric: who is there, and is a
 * given node reachable now. Node ids are the providers' (and the APIs') ids.
 */
#ifndef XRMA_NODE_H
#define XRMA_NODE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <xrma/api.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;

/* The local node id. */
XRMA_API int xrma_node_self(struct xrma_ctx *ctx, uint32_t *node_id);

/*
 * Fill ids with up to max live node ids (ascending, the local node included) and
 * set *count to the number of live nodes, which may exceed max.
 */
XRMA_API int xrma_node_list(struct xrma_ctx *ctx, uint32_t *ids, size_t max, size_t *count);

/*
 * Is node reachable? 0 yes; XRMA_ENODEV no such node; XRMA_EINVAL an id the
 * provider can never have; XRMA_EHOSTUNREACH it did not answer in time.
 */
XRMA_API int xrma_node_probe(struct xrma_ctx *ctx, uint32_t node_id, int timeout_ms);

/*
 * Take the modelled link between this fabric and node down (up == false) or
 * bring it back, on providers that model links (fault injection; ntb does).
 * Every context of the fabric gets the link event; transfers touching the
 * node fail meanwhile. XRMA_ENOTSUP where links are not modelled.
 */
XRMA_API int xrma_node_set_link(struct xrma_ctx *ctx, uint32_t node_id, bool up);

/*
 * Read or write the 32-bit register at offset (a multiple of 4, else
 * XRMA_EALIGN_OFFSET) of node's control and status space, on providers that
 * model one (XRMA_CAP_CSR; XRMA_ENOTSUP elsewhere). The provider documents its
 * registers. Errors: XRMA_ENODEV (no such node), XRMA_ERANGE (outside the
 * space), XRMA_EACCES (read-only register), XRMA_ENETDOWN (this node's link is
 * down), XRMA_EHOSTUNREACH (node's link is down).
 */
XRMA_API int xrma_node_csr_read(struct xrma_ctx *ctx, uint32_t node_id, uint32_t offset,
				uint32_t *value);
XRMA_API int xrma_node_csr_write(struct xrma_ctx *ctx, uint32_t node_id, uint32_t offset,
				 uint32_t value);

XRMA_END_DECLS

#endif
