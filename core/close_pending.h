/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/close_pending.h: contexts whose close finishes on a thread of their own
 * (a close asked for from the context's own callback, core/ctx.c). Until such
 * a context is destroyed its provider still holds the node, so an open of the
 * same node waits for it first.
 */
#ifndef XRMA_CORE_CLOSE_PENDING_H
#define XRMA_CORE_CLOSE_PENDING_H

#include <stdbool.h>
#include <stdint.h>
#include "providers/provider.h"

struct xrma_core_ctx;

/* ctx's close will finish on a closer thread: list it before that thread starts. */
void xrma_close_pending_add(struct xrma_core_ctx *ctx);

/* ctx is closed, or its closer could not start: unlist it (a no-op if not listed). */
void xrma_close_pending_remove(struct xrma_core_ctx *ctx);

/*
 * Wait until no listed context of prov holds node on fabric, or timeout_ms
 * passed. Returns at once on a callback thread: the close waited for may be
 * that thread's own context's, which cannot end before its callback returns.
 */
void xrma_close_pending_wait(const struct xrma_provider *prov, const char *fabric, uint32_t node,
			     int timeout_ms);

#endif
