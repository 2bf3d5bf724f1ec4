/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/intr.h: interrupts. A local interrupt has a number unique per
 * node; any node may connect to it and trigger it, with up to
 * XRMA_INTR_DATA_MAX bytes of data. The owner waits (spinning briefly, then
 * blocking) or takes a callback on the context's callback thread.
 */
#ifndef XRMA_INTR_H
#define XRMA_INTR_H

#include <stddef.h>
#include <stdint.h>
#include <xrma/api.h>
#include <xrma/node.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;
struct xrma_intr;
struct xrma_rintr;

#define XRMA_INTR_DATA_MAX 1024u
#define XRMA_INTR_QUEUE_DEPTH 256u  /* triggers queued before new ones are refused */

/* Called once per trigger with its data (len may be 0). */
typedef void (*xrma_intr_cb)(void *arg, const void *data, size_t len);

/*
 * Create an interrupt numbered *number, or with XRMA_ID_ANY a free number in
 * [min, max] (0, 0: the core's default range); the number is written back.
 * Errors: XRMA_EINVAL, XRMA_EADDRINUSE, XRMA_ENOSPC.
 */
XRMA_API int xrma_intr_open(struct xrma_ctx *ctx, uint64_t *number, uint64_t min, uint64_t max,
			    uint32_t flags, struct xrma_intr **intr);

/* Remove; waiters return XRMA_ECANCELED, connected triggers get XRMA_ENOENT. */
XRMA_API int xrma_intr_close(struct xrma_intr *intr);

/*
 * Wait for one trigger. data/len may be NULL/0 to ignore data; otherwise *len is
 * the capacity on entry and the data length on return (XRMA_EMSGSIZE, with the
 * trigger consumed and the data cut, when it did not fit). Errors:
 * XRMA_ETIMEDOUT, XRMA_ECANCELED (closed meanwhile), XRMA_ESTATE (callback set).
 */
XRMA_API int xrma_intr_wait(struct xrma_intr *intr, int timeout_ms, void *data, size_t *len);

XRMA_API int xrma_intr_set_callback(struct xrma_intr *intr, xrma_intr_cb cb, void *arg);

XRMA_API int xrma_intr_number(struct xrma_intr *intr, uint64_t *number);

/*
 * Connect to interrupt number of node. Errors: XRMA_ENODEV, XRMA_ENOENT,
 * XRMA_ETIMEDOUT.
 */
XRMA_API int xrma_rintr_open(struct xrma_ctx *ctx, uint32_t node, uint64_t number, int timeout_ms,
			     struct xrma_rintr **rintr);

/*
 * The same, with flags: XRMA_OPEN_CLUSTER and XRMA_OPEN_WAIT (xrma/node.h), so
 * that a node of the cluster not up yet is one without the interrupt, and the
 * open may wait up to timeout_ms for it to be created. XRMA_EINVAL for other bits.
 */
XRMA_API int xrma_rintr_open_flags(struct xrma_ctx *ctx, uint32_t node, uint64_t number,
				   uint32_t flags, int timeout_ms, struct xrma_rintr **rintr);
XRMA_API int xrma_rintr_close(struct xrma_rintr *rintr);

/*
 * Trigger with len bytes of data (data may be NULL when len is 0).
 * Errors: XRMA_EMSGSIZE, XRMA_ENOENT (the interrupt was removed), XRMA_ELOST
 * (its node died), XRMA_EAGAIN (its queue is full).
 */
XRMA_API int xrma_rintr_trigger(struct xrma_rintr *rintr, const void *data, size_t len);

XRMA_END_DECLS

#endif
