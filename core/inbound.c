/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/inbound.c: what a provider reports, handed to the objects. Control
 * messages go by wire type to the object file that handles them; a peer gone
 * or a link event goes to every object that keeps state per peer or node.
 * This file sits above the objects, so they never call back into it.
 */
#include "core/inbound.h"

#include "core/conn.h"
#include "core/control.h"
#include "core/ctx.h"
#include "core/intr.h"
#include "core/rseg.h"
#include "core/seg.h"
#include "core/wire.h"

static void on_ctrl_recv(void *core, const struct xrma_prov_addr *src, const void *buf, size_t len)
{
	struct xrma_core_ctx *ctx = core;
	struct xrma_wire_msg msg;

	/* A malformed message is dropped: it cannot be answered reliably. */
	if (xrma_wire_decode(buf, len, &msg))
		return;
	switch (msg.type) {
	case XRMA_WIRE_REPLY:
		if (!xrma_core_control_on_reply(ctx, src, &msg))
			xrma_core_conn_on_late_reply(ctx, src, &msg);
		break;
	case XRMA_WIRE_PING:
		xrma_core_control_reply(ctx, src, msg.req, 0, NULL, NULL, 0);
		break;
	case XRMA_WIRE_SEG_IMPORT:
		xrma_core_seg_on_import(ctx, src, &msg);
		break;
	case XRMA_WIRE_SEG_IMPORT_BUS:
		xrma_core_seg_on_import_bus(ctx, src, &msg);
		break;
	case XRMA_WIRE_SEG_RELEASE:
		xrma_core_seg_on_release(ctx, src, &msg);
		break;
	case XRMA_WIRE_SEG_NOTICE:
		xrma_core_rseg_on_notice(ctx, src, &msg);
		break;
	case XRMA_WIRE_INTR_CONNECT:
		xrma_core_intr_on_connect(ctx, src, &msg);
		break;
	case XRMA_WIRE_INTR_DISCONNECT:
		xrma_core_intr_on_disconnect(ctx, src, &msg);
		break;
	case XRMA_WIRE_INTR_TRIGGER:
		xrma_core_intr_on_trigger(ctx, src, &msg);
		break;
	case XRMA_WIRE_INTR_GONE:
		xrma_core_rintr_on_gone(ctx, src, &msg);
		break;
	case XRMA_WIRE_CONN_REQUEST:
		xrma_core_conn_on_request(ctx, src, &msg);
		break;
	case XRMA_WIRE_CONN_DATA:
		xrma_core_conn_on_data(ctx, src, &msg);
		break;
	case XRMA_WIRE_CONN_CREDIT:
		xrma_core_conn_on_credit(ctx, src, &msg);
		break;
	case XRMA_WIRE_CONN_CLOSE:
		xrma_core_conn_on_close(ctx, src, &msg);
		break;
	default:
		break;
	}
}

static void on_peer_down(void *core, const struct xrma_prov_addr *peer, int status)
{
	struct xrma_core_ctx *ctx = core;

	xrma_core_control_on_peer_down(ctx, peer, status);
	xrma_core_seg_on_peer_down(ctx, peer, status);
	xrma_core_rseg_on_peer_down(ctx, peer, status);
	xrma_core_conn_on_peer_down(ctx, peer, status);
	xrma_core_intr_on_peer_down(ctx, peer, status);
	xrma_core_rintr_on_peer_down(ctx, peer, status);
}

static void on_link_event(void *core, uint32_t node, bool up)
{
	struct xrma_core_ctx *ctx = core;

	xrma_core_seg_on_link(ctx, node, up);
	xrma_core_rseg_on_link(ctx, node, up);
}

const struct xrma_prov_upcalls xrma_core_inbound_upcalls = {
	.ctrl_recv = on_ctrl_recv,
	.peer_down = on_peer_down,
	.link_event = on_link_event,
};
