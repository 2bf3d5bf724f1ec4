/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/conn_inbound.c: connection messages from peers, on the service thread
 * (never blocks, never runs user code): connect requests queued on listeners,
 * data into the receive ring, credit, close, late accept replies, and a peer's
 * departure ending its connections.
 */
#include "core/conn.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "common/killpoint.h"
#include "common/wait.h"
#include "core/control.h"
#include "core/ctx.h"
#include "core/event.h"
#include "core/prov_call.h"

/* The conn a message names, referenced, or NULL. */
static struct xrma_core_conn *conn_find(struct xrma_core_ctx *ctx, struct xrma_idmap *map, uint64_t id)
{
	struct xrma_core_conn *conn;

	xrma_lock(&ctx->lock);
	conn = xrma_idmap_find(map, id);
	/* In a map means not yet past close's removal, so a reference is still held. */
	if (conn)
		xrma_handle_ref(&conn->obj);
	xrma_unlock(&ctx->lock);
	return conn;
}

void xrma_core_conn_on_request(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			       const struct xrma_wire_msg *msg)
{
	struct xrma_core_conn *listener;
	struct conn_req *req;
	int status = 0;

	if (!msg->req)
		return;   /* cannot be answered */
	if (msg->arg[0] > XRMA_PORT_MAX || !msg->arg[1] || msg->arg[1] > XRMA_PORT_MAX ||
	    !msg->arg[2] || !msg->arg[3] || msg->arg[3] > CONN_PEER_WINDOW_MAX) {
		xrma_core_conn_reply_request(ctx, src, msg->req, -XRMA_EPROTO);
		return;
	}
	listener = conn_find(ctx, &ctx->listeners, msg->arg[0]);
	if (!listener) {
		xrma_core_conn_reply_request(ctx, src, msg->req, -XRMA_ECONNREFUSED);
		return;
	}
	req = malloc(sizeof(*req));
	xrma_lock(&listener->lock);
	if (listener->closed || listener->state != XRMA_CONN_LISTENING ||
	    listener->nreqs >= (size_t)listener->backlog || !req) {
		status = -XRMA_ECONNREFUSED;
	} else {
		*req = (struct conn_req){
			.src = *src,
			.src_port = (uint32_t)msg->arg[1],
			.src_id = msg->arg[2],
			.src_window = msg->arg[3],
			.req = msg->req,
		};
		*listener->reqs_tail = req;
		listener->reqs_tail = &req->next;
		listener->nreqs++;
		req = NULL;
		xrma_core_conn_changed_locked(listener);
	}
	xrma_unlock(&listener->lock);
	free(req);
	if (status)
		xrma_core_conn_reply_request(ctx, src, msg->req, status);
	xrma_handle_put(&listener->obj);
}

void xrma_core_conn_on_data(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			    const struct xrma_wire_msg *msg)
{
	struct xrma_core_conn *conn;
	struct xrma_prov_addr peer;
	uint64_t peer_id = 0;
	bool post = false;

	if (!msg->payload_len)
		return;
	conn = conn_find(ctx, &ctx->conns, msg->arg[0]);
	if (!conn)
		return;   /* closed meanwhile: the peer learns from our CONN_CLOSE */
	xrma_lock(&conn->lock);
	/* Data may overtake connect's wake-up (CONNECTING): the reply came first on the wire. */
	if (conn->closed || conn->peer_left || !conn->ring || !xrma_core_addr_eq(src, &conn->peer) ||
	    (conn->state != XRMA_CONN_CONNECTED && conn->state != XRMA_CONN_CONNECTING)) {
		xrma_unlock(&conn->lock);
		xrma_handle_put(&conn->obj);
		return;
	}
	if (msg->payload_len > conn->window - conn->ring_count) {
		/* Beyond the credit we gave: a broken peer. Drop it rather than trust it. */
		peer = conn->peer;
		peer_id = conn->peer_id;
		post = xrma_core_conn_peer_left_locked(conn, -XRMA_EPROTO);
	} else {
		xrma_core_conn_ring_write_locked(conn, msg->payload, msg->payload_len);
		xrma_core_conn_changed_locked(conn);
	}
	xrma_unlock(&conn->lock);
	if (post) {
		xrma_core_conn_send_ctrl(ctx, &peer, XRMA_WIRE_CONN_CLOSE, peer_id, 0);
		xrma_core_conn_post(conn, XRMA_EVENT_DISCONNECT, peer.node, -XRMA_EPROTO);
	}
	xrma_handle_put(&conn->obj);
}

void xrma_core_conn_on_credit(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			      const struct xrma_wire_msg *msg)
{
	struct xrma_core_conn *conn = conn_find(ctx, &ctx->conns, msg->arg[0]);

	if (!conn)
		return;
	xrma_lock(&conn->lock);
	if (conn->state == XRMA_CONN_CONNECTED && xrma_core_addr_eq(src, &conn->peer)) {
		/* Never more than is in flight: a confused peer cannot inflate its window. */
		conn->in_flight -= msg->arg[1] < conn->in_flight ? (size_t)msg->arg[1] : conn->in_flight;
		xrma_core_conn_changed_locked(conn);
	}
	xrma_unlock(&conn->lock);
	xrma_handle_put(&conn->obj);
}

void xrma_core_conn_on_close(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			     const struct xrma_wire_msg *msg)
{
	struct xrma_core_conn *conn = conn_find(ctx, &ctx->conns, msg->arg[0]);
	bool post = false;

	if (!conn)
		return;
	xrma_lock(&conn->lock);
	if (!conn->closed && xrma_core_addr_eq(src, &conn->peer) &&
	    (conn->state == XRMA_CONN_CONNECTED || conn->state == XRMA_CONN_CONNECTING))
		post = xrma_core_conn_peer_left_locked(conn, 0);
	xrma_unlock(&conn->lock);
	if (post)
		xrma_core_conn_post(conn, XRMA_EVENT_DISCONNECT, src->node, 0);
	xrma_handle_put(&conn->obj);
}

void xrma_core_conn_on_late_reply(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
				  const struct xrma_wire_msg *msg)
{
	/* An accept whose connector gave up: close the acceptor's new endpoint again. */
	if (msg->arg[3] == XRMA_WIRE_CONN_REQUEST && !msg->status && msg->arg[0])
		xrma_core_conn_send_ctrl(ctx, src, XRMA_WIRE_CONN_CLOSE, msg->arg[0], 0);
}

struct conn_down_visit {
	const struct xrma_prov_addr *peer;
	struct xrma_core_conn *list;
};

/* idmap_each visitor (ctx->lock held): collect, referenced, the endpoints peer touches. */
static void conn_down_collect(void *arg, uint64_t id, void *value)
{
	struct conn_down_visit *visit = arg;
	struct xrma_core_conn *conn = value;
	bool hit = false;

	(void)id;
	xrma_lock(&conn->lock);
	if (conn->state == XRMA_CONN_LISTENING) {
		for (struct conn_req *req = conn->reqs; req && !hit; req = req->next)
			hit = xrma_core_addr_eq(&req->src, visit->peer);
	} else if (conn->state == XRMA_CONN_CONNECTED || conn->state == XRMA_CONN_CONNECTING) {
		hit = !conn->peer_left && xrma_core_addr_eq(&conn->peer, visit->peer);
	}
	xrma_unlock(&conn->lock);
	if (hit) {
		xrma_handle_ref(&conn->obj);
		conn->down_next = visit->list;
		visit->list = conn;
	}
}

void xrma_core_conn_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer, int status)
{
	struct conn_down_visit visit = { .peer = peer };

	xrma_lock(&ctx->lock);
	xrma_idmap_each(&ctx->conns, conn_down_collect, &visit);
	xrma_idmap_each(&ctx->listeners, conn_down_collect, &visit);
	xrma_unlock(&ctx->lock);

	while (visit.list) {
		struct xrma_core_conn *conn = visit.list;
		struct conn_req *dropped = NULL;
		bool post = false;

		visit.list = conn->down_next;
		xrma_lock(&conn->lock);
		if (conn->state == XRMA_CONN_LISTENING) {
			/* Nobody left to answer: drop its requests without a reply. */
			struct conn_req **pp = &conn->reqs;

			while (*pp) {
				struct conn_req *req = *pp;

				if (!xrma_core_addr_eq(&req->src, peer)) {
					pp = &req->next;
					continue;
				}
				*pp = req->next;
				req->next = dropped;
				dropped = req;
				conn->nreqs--;
			}
			conn->reqs_tail = pp;
			xrma_core_conn_changed_locked(conn);
		} else if (xrma_core_addr_eq(&conn->peer, peer)) {
			/* A pending connect's request fails in control; its reply may have won the race. */
			post = xrma_core_conn_peer_left_locked(conn, status);
		}
		xrma_unlock(&conn->lock);
		while (dropped) {
			struct conn_req *next = dropped->next;

			free(dropped);
			dropped = next;
		}
		if (post)
			xrma_core_conn_post(conn, xrma_core_conn_leave_event(status), peer->node, status);
		xrma_handle_put(&conn->obj);
	}
}
