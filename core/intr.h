/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/intr.h: the interrupt protocol's inbound side, called by the context's
 * dispatcher on the service thread (never blocks, never runs user code).
 */
#ifndef XRMA_CORE_INTR_H
#define XRMA_CORE_INTR_H

#include <xrma/intr.h>
#include "core/wire.h"
#include "providers/provider.h"

struct xrma_core_ctx;

void xrma_core_intr_on_connect(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			       const struct xrma_wire_msg *msg);
void xrma_core_intr_on_disconnect(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
				  const struct xrma_wire_msg *msg);
void xrma_core_intr_on_trigger(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			       const struct xrma_wire_msg *msg);
void xrma_core_rintr_on_gone(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			     const struct xrma_wire_msg *msg);
void xrma_core_intr_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer, int status);
void xrma_core_rintr_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer,
				  int status);

#endif
