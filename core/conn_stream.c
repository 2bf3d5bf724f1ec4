/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/conn_stream.c: a connection's byte stream. Sends cut the caller's bytes
 * into CONN_DATA chunks within the peer's credit; receives drain the ring that
 * CONN_DATA fills (core/conn_inbound.c) and return credit in batches
 * (CONN_CREDIT). Lifetime, ports and the handshake are core/conn.c's.
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
#include "core/service.h"

/*
 * Return credit for what the application read, in quarter-window batches, but
 * at once when the ring ran empty or when the sender has less than a quarter
 * window left (window - ring_count - consumed bounds what it may still
 * send): then it may be stalled on us. Drops the lock around the send.
 */
void xrma_core_conn_credit_locked(struct xrma_core_conn *conn)
{
	struct xrma_prov_addr dst;
	uint64_t peer_id, bytes;

	xrma_lock_assert_held(&conn->lock);
	if (!conn->consumed)
		return;
	if (conn->state != XRMA_CONN_CONNECTED) {
		conn->consumed = 0;
		return;
	}
	if (conn->consumed < conn->window / 4 && conn->ring_count &&
	    conn->window - conn->ring_count - conn->consumed >= conn->window / 4)
		return;
	dst = conn->peer;
	peer_id = conn->peer_id;
	bytes = conn->consumed;
	conn->consumed = 0;
	xrma_unlock(&conn->lock);
	/* A failure means the peer is gone; its peer_down follows. */
	xrma_core_conn_send_ctrl(conn->ctx, &dst, XRMA_WIRE_CONN_CREDIT, peer_id, bytes);
	xrma_lock(&conn->lock);
}

void xrma_core_conn_pull(struct xrma_core_conn *conn)
{
	if (XRMA_PROV_HAS(conn->ctx, poll) && !xrma_service_on_service_thread(conn->ctx))
		xrma_core_call_poll(conn->ctx);
}

ssize_t xrma_conn_send(struct xrma_conn *handle, const void *buf, size_t len, uint32_t flags,
		       int timeout_ms)
{
	const bool block = flags & XRMA_CONN_BLOCK;
	struct xrma_core_conn *conn;
	struct xrma_deadline deadline;
	bool timed_out = false;
	size_t sent = 0;
	ssize_t ret = 0;
	int err;

	if ((flags & ~XRMA_CONN_BLOCK) || (!buf && len))
		return -XRMA_EINVAL;
	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	err = xrma_core_conn_acquire(handle, &conn);
	if (err)
		return err;
	xrma_deadline_set(&deadline, timeout_ms);

	xrma_lock(&conn->lock);
	for (;;) {
		if (conn->closed)
			ret = -XRMA_ECANCELED;
		else if (conn->state == XRMA_CONN_DISCONNECTED)
			ret = -XRMA_ECONNRESET;
		else if (conn->state != XRMA_CONN_CONNECTED)
			ret = -XRMA_ENOTCONN;
		else if (!conn->sending)
			break;
		/* Another sender: without BLOCK that is "would block". */
		else if (!block)
			ret = -XRMA_EAGAIN;
		else if (timed_out)
			ret = -XRMA_ETIMEDOUT;
		if (ret)
			goto out_unlock;
		timed_out = xrma_core_conn_wait_locked(conn, &deadline) != 0;
	}
	if (!len)
		goto out_unlock;
	conn->sending = true;
	timed_out = false;
	while (sent < len) {
		struct xrma_wire_msg msg = { .type = XRMA_WIRE_CONN_DATA };
		struct xrma_prov_addr dst;
		size_t chunk;

		if (conn->closed) {
			ret = -XRMA_ECANCELED;
			break;
		}
		if (conn->state != XRMA_CONN_CONNECTED) {
			ret = -XRMA_ECONNRESET;
			break;
		}
		if (conn->peer_window <= conn->in_flight) {
			if (!block) {
				ret = -XRMA_EAGAIN;
				break;
			}
			if (timed_out) {
				ret = -XRMA_ETIMEDOUT;
				break;
			}
			timed_out = xrma_core_conn_wait_locked(conn, &deadline) != 0;
			continue;
		}
		chunk = conn->peer_window - conn->in_flight;
		if (chunk > len - sent)
			chunk = len - sent;
		if (chunk > conn->chunk_max)
			chunk = conn->chunk_max;
		/* Counted before the send: a credit for it may come back before we relock. */
		conn->in_flight += chunk;
		dst = conn->peer;
		msg.arg[0] = conn->peer_id;
		msg.payload = (const uint8_t *)buf + sent;
		msg.payload_len = (uint32_t)chunk;
		xrma_unlock(&conn->lock);
		err = xrma_core_control_send(conn->ctx, &dst, &msg);
		xrma_lock(&conn->lock);
		if (err) {
			conn->in_flight -= chunk < conn->in_flight ? chunk : conn->in_flight;
			ret = err == -XRMA_ECONNRESET || err == -XRMA_ELOST ? -XRMA_ECONNRESET : err;
			break;
		}
		sent += chunk;
	}
	conn->sending = false;
	xrma_core_conn_changed_locked(conn);
	/* Bytes moved count more than why the rest did not. */
	if (sent)
		ret = (ssize_t)sent;
out_unlock:
	xrma_unlock(&conn->lock);
	xrma_handle_put(&conn->obj);
	return ret;
}

/* Copy up to len queued bytes out of the ring. */
static size_t conn_ring_read_locked(struct xrma_core_conn *conn, uint8_t *buf, size_t len)
{
	size_t n = len < conn->ring_count ? len : conn->ring_count;
	size_t first = CONN_WINDOW - conn->ring_head;

	xrma_lock_assert_held(&conn->lock);
	if (first > n)
		first = n;
	memcpy(buf, conn->ring + conn->ring_head, first);
	memcpy(buf + first, conn->ring, n - first);
	conn->ring_head = (conn->ring_head + n) % CONN_WINDOW;
	conn->ring_count -= n;
	conn->consumed += n;
	return n;
}

void xrma_core_conn_ring_write_locked(struct xrma_core_conn *conn, const uint8_t *buf, size_t len)
{
	size_t tail = (conn->ring_head + conn->ring_count) % CONN_WINDOW;
	size_t first = CONN_WINDOW - tail;

	xrma_lock_assert_held(&conn->lock);
	if (first > len)
		first = len;
	memcpy(conn->ring + tail, buf, first);
	memcpy(conn->ring, buf + first, len - first);
	conn->ring_count += len;
}

ssize_t xrma_conn_recv(struct xrma_conn *handle, void *buf, size_t len, uint32_t flags, int timeout_ms)
{
	const bool block = flags & XRMA_CONN_BLOCK;
	struct xrma_core_conn *conn;
	struct xrma_deadline deadline;
	bool timed_out = false, pulled = false;
	size_t got = 0;
	ssize_t ret = 0;
	int err;

	if ((flags & ~XRMA_CONN_BLOCK) || (!buf && len))
		return -XRMA_EINVAL;
	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	err = xrma_core_conn_acquire(handle, &conn);
	if (err)
		return err;
	xrma_deadline_set(&deadline, timeout_ms);

	xrma_lock(&conn->lock);
	for (;;) {
		if (conn->closed)
			ret = -XRMA_ECANCELED;
		else if (conn->state != XRMA_CONN_CONNECTED && conn->state != XRMA_CONN_DISCONNECTED)
			ret = -XRMA_ENOTCONN;
		else if (!conn->receiving)
			break;
		else if (!block)
			ret = -XRMA_EAGAIN;   /* the blocked receiver takes what comes */
		else if (timed_out)
			ret = -XRMA_ETIMEDOUT;
		if (ret)
			goto out_unlock;
		timed_out = xrma_core_conn_wait_locked(conn, &deadline) != 0;
	}
	if (!len) {
		if (conn->state == XRMA_CONN_DISCONNECTED && !conn->ring_count)
			ret = -XRMA_ECONNRESET;
		goto out_unlock;
	}
	conn->receiving = true;
	timed_out = false;
	for (;;) {
		size_t n = conn_ring_read_locked(conn, (uint8_t *)buf + got, len - got);

		got += n;
		if (n) {
			xrma_core_conn_changed_locked(conn);
			xrma_core_conn_credit_locked(conn);   /* may drop the lock: re-check all below */
		}
		if (got == len)
			break;
		if (conn->closed) {
			ret = -XRMA_ECANCELED;
			break;
		}
		if (conn->ring_count)
			continue;
		if (conn->state == XRMA_CONN_DISCONNECTED) {
			ret = -XRMA_ECONNRESET;
			break;
		}
		if (!block && !pulled) {
			/* What the peer sent before we were called counts as queued. */
			pulled = true;
			xrma_unlock(&conn->lock);
			xrma_core_conn_pull(conn);
			xrma_lock(&conn->lock);
			continue;
		}
		if (!block) {
			ret = -XRMA_EAGAIN;
			break;
		}
		if (timed_out) {
			ret = -XRMA_ETIMEDOUT;
			break;
		}
		timed_out = xrma_core_conn_wait_locked(conn, &deadline) != 0;
	}
	conn->receiving = false;
	xrma_core_conn_changed_locked(conn);
	if (got)
		ret = (ssize_t)got;
out_unlock:
	xrma_unlock(&conn->lock);
	xrma_handle_put(&conn->obj);
	return ret;
}
