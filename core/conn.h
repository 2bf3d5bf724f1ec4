/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/conn.h: the connection protocol's inbound side, called by the context's
 * dispatcher on the service thread (never blocks, never runs user code).
 */
#ifndef XRMA_CORE_CONN_H
#define XRMA_CORE_CONN_H

#include <xrma/conn.h>
#include "core/wire.h"
#include "providers/provider.h"

struct xrma_core_ctx;

void xrma_core_conn_on_request(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			       const struct xrma_wire_msg *msg);
void xrma_core_conn_on_data(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			    const struct xrma_wire_msg *msg);
void xrma_core_conn_on_credit(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			      const struct xrma_wire_msg *msg);
void xrma_core_conn_on_close(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			     const struct xrma_wire_msg *msg);
/* A reply nobody waited for: an accept that reached a connector who gave up. */
void xrma_core_conn_on_late_reply(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
				  const struct xrma_wire_msg *msg);
void xrma_core_conn_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer, int status);

#endif
