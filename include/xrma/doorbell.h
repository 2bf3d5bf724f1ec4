/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/doorbell.h: doorbells and scratchpads, as an NTB has them, on
 * providers with XRMA_CAP_DOORBELL. Each node has one doorbell register of
 * caps.doorbell_count bits and caps.spad_count 32-bit scratchpad registers,
 * shared by every context on the node. Ringing sets bits on a node (the local
 * one included); waiting takes the set bits of a mask, spinning briefly and
 * then sleeping. Without the capability every call is XRMA_ENOTSUP.
 */
#ifndef XRMA_DOORBELL_H
#define XRMA_DOORBELL_H

#include <stdint.h>
#include <xrma/api.h>
#include <xrma/ctx.h>

XRMA_BEGIN_DECLS

/*
 * Set bits in node's doorbell register. XRMA_EINVAL for no bits or a bit at or
 * beyond caps.doorbell_count (xrma_error_detail names the limit), XRMA_ENODEV
 * for an unknown node, XRMA_ENETDOWN while the link to it is down.
 */
XRMA_API int xrma_doorbell_ring(struct xrma_ctx *ctx, uint32_t node, uint64_t bits);

/*
 * Wait until a bit of mask is set in the local node's register, clear the set
 * bits of mask and return them in *fired. timeout_ms: 0 polls,
 * XRMA_TIMEOUT_INFINITE waits for ever; XRMA_ETIMEDOUT when it passes.
 */
XRMA_API int xrma_doorbell_wait(struct xrma_ctx *ctx, uint64_t mask, int timeout_ms, uint64_t *fired);

/* Scratchpad index of node (local or remote). XRMA_ERANGE beyond caps.spad_count. */
XRMA_API int xrma_scratchpad_read(struct xrma_ctx *ctx, uint32_t node, uint32_t index,
				  uint32_t *value);
XRMA_API int xrma_scratchpad_write(struct xrma_ctx *ctx, uint32_t node, uint32_t index,
				   uint32_t value);

XRMA_END_DECLS

#endif
