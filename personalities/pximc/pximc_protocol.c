/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_protocol.c: the control messages between PXImc instances, carried
 * by core connections (xrma/conn.h) to the PXImc service port: one request per connection
 * (hello, find, query, pair, notice), answered by the owner's service thread. A successful
 * pair keeps its connection as the session's link. Messages are little-endian on the wire, so
 * systems of either byte order understand each other (docs/pximc.md).
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "personalities/pximc/pximc_vendor.h"

/* Convert n32 32-bit words, then n64 64-bit words, of the first len bytes of p. */
static void xrma_pximc_wire_words(void *p, size_t len, size_t n32, size_t n64)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n32 && (i + 1) * 4 <= len; i++, b += 4) {
		uint32_t v;

		memcpy(&v, b, 4);
		v = htole32(v);
		memcpy(b, &v, 4);
	}
	for (size_t i = 0; i < n64 && n32 * 4 + (i + 1) * 8 <= len; i++, b += 8) {
		uint64_t v;

		memcpy(&v, b, 8);
		v = htole64(v);
		memcpy(b, &v, 8);
	}
}

void xrma_pximc_hdr_wire(struct xrma_pximc_hdr *hdr)
{
	xrma_pximc_wire_words(hdr, sizeof(*hdr), 4, 0);
}

/* Every payload is its 32-bit fields, then its 64-bit fields, then bytes (window data, os). */
void xrma_pximc_wire(uint32_t type, bool reply, void *payload, size_t len)
{
	switch (type) {
	case XRMA_PXIMC_MSG_HELLO:
		xrma_pximc_wire_words(payload, len, 2, 0);
		break;
	case XRMA_PXIMC_MSG_FIND:
		xrma_pximc_wire_words(payload, len, len / 4, 0);
		break;
	case XRMA_PXIMC_MSG_QUERY:
		xrma_pximc_wire_words(payload, len, reply ? 8 : 1, reply ? 4 : 0);
		break;
	case XRMA_PXIMC_MSG_PAIR:
		xrma_pximc_wire_words(payload, len, reply ? 2 : 4, reply ? 6 : 4);
		break;
	case XRMA_PXIMC_MSG_SEGID:
		xrma_pximc_wire_words(payload, len, 2, 3);
		break;
	default:
		break;
	}
}

int xrma_pximc_send_msg(struct xrma_conn *conn, uint32_t type, uint32_t arg, bool reply,
			const void *payload, uint32_t len, int timeout_ms)
{
	uint8_t buf[sizeof(struct xrma_pximc_hdr) + sizeof(struct xrma_pximc_window_info)];
	struct xrma_pximc_hdr hdr = { XRMA_PXIMC_MAGIC, type, len, arg };
	ssize_t sent;

	if (len > sizeof(buf) - sizeof(hdr))
		return -XRMA_EMSGSIZE;
	xrma_pximc_hdr_wire(&hdr);
	memcpy(buf, &hdr, sizeof(hdr));
	if (len) {
		memcpy(buf + sizeof(hdr), payload, len);
		xrma_pximc_wire(type, reply, buf + sizeof(hdr), len);
	}
	sent = xrma_conn_send(conn, buf, sizeof(hdr) + len, XRMA_CONN_BLOCK, timeout_ms);
	if (sent < 0)
		return (int)sent;
	return (size_t)sent == sizeof(hdr) + len ? 0 : -XRMA_ECONNRESET;
}

int xrma_pximc_recv_full(struct xrma_conn *conn, void *buf, size_t len, int timeout_ms)
{
	ssize_t got;

	if (!len)
		return 0;
	got = xrma_conn_recv(conn, buf, len, XRMA_CONN_BLOCK, timeout_ms);
	if (got < 0)
		return (int)got;
	return (size_t)got == len ? 0 : -XRMA_ECONNRESET;
}

/* Read a payload of len bytes, keeping at most max of them. */
static int xrma_pximc_recv_payload(struct xrma_conn *conn, void *buf, uint32_t len, uint32_t max)
{
	uint8_t sink[64];
	int ret = xrma_pximc_recv_full(conn, buf, len < max ? len : max, XRMA_PXIMC_CALL_MS);

	for (uint32_t left = len > max ? len - max : 0; !ret && left;) {
		uint32_t chunk = left < sizeof(sink) ? left : (uint32_t)sizeof(sink);

		ret = xrma_pximc_recv_full(conn, sink, chunk, XRMA_PXIMC_CALL_MS);
		left -= chunk;
	}
	return ret;
}

int xrma_pximc_call(struct xrma_pximc *px, uint32_t node, uint32_t type, uint32_t arg,
		    const void *req, uint32_t req_len, struct xrma_pximc_hdr *reply_hdr,
		    void *reply, uint32_t reply_max, struct xrma_conn **keep)
{
	struct xrma_conn *conn;
	int ret;

	/* Control messages would still pass; the interface is down all the same. */
	if (!xrma_pximc_link_up(px, node))
		return -XRMA_ENETDOWN;
	ret = xrma_conn_open(px->ctx, 0, &conn);
	if (ret)
		return ret;
	ret = xrma_conn_connect(conn, node, XRMA_PXIMC_PORT, XRMA_PXIMC_CALL_MS);
	if (!ret)
		ret = xrma_pximc_send_msg(conn, type, arg, false, req, req_len, XRMA_PXIMC_CALL_MS);
	if (!ret)
		ret = xrma_pximc_recv_full(conn, reply_hdr, sizeof(*reply_hdr), XRMA_PXIMC_CALL_MS);
	if (!ret)
		xrma_pximc_hdr_wire(reply_hdr);
	if (!ret && (reply_hdr->magic != XRMA_PXIMC_MAGIC || reply_hdr->type != type))
		ret = -XRMA_EPROTO;
	if (!ret)
		ret = xrma_pximc_recv_payload(conn, reply, reply_hdr->len, reply_max);
	if (!ret && reply)
		xrma_pximc_wire(type, true, reply,
				reply_hdr->len < reply_max ? reply_hdr->len : reply_max);
	if (!ret && keep) {
		*keep = conn;
		return 0;
	}
	xrma_conn_close(conn);
	return ret;
}

/* ------------------------------------------------------------------ the owner's side */

static void xrma_pximc_serve_hello(struct xrma_conn *conn)
{
	struct xrma_pximc_hello hello = { .word_size = (uint32_t)(sizeof(void *) * 8) };
	const uint32_t probe = 0x12345678u;
	const uint8_t *b = (const uint8_t *)&probe;
	struct utsname uts;

	/* The remote-endianness encoding of spec 3.3.1.2: bytes low to high, MSB first. */
	hello.endianness = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	if (!uname(&uts))
		snprintf(hello.os, sizeof(hello.os), "%s %s", uts.sysname, uts.release);
	(void)xrma_pximc_send_msg(conn, XRMA_PXIMC_MSG_HELLO, 0, true, &hello, sizeof(hello),
				  XRMA_PXIMC_CALL_MS);
}

/* Windows of this instance posted to node: server and peer sessions, paired or not. */
static void xrma_pximc_serve_find(struct xrma_pximc *px, struct xrma_conn *conn, uint32_t node)
{
	uint32_t ids[XRMA_PXIMC_FIND_MAX];
	uint32_t count = 0;

	pthread_mutex_lock(&px->lock);
	for (size_t i = 0; i < px->session_count && count < XRMA_PXIMC_FIND_MAX; i++) {
		const struct xrma_pximc_session *s = px->sessions[i];

		if (s->node == node && s->posted)
			ids[count++] = s->uid;
	}
	pthread_mutex_unlock(&px->lock);
	(void)xrma_pximc_send_msg(conn, XRMA_PXIMC_MSG_FIND, count, true, ids,
				  count * (uint32_t)sizeof(ids[0]), XRMA_PXIMC_CALL_MS);
}

static void xrma_pximc_serve_query(struct xrma_pximc *px, struct xrma_conn *conn, uint32_t node,
				   uint32_t uid)
{
	struct xrma_pximc_window_info info;
	bool found = false;

	pthread_mutex_lock(&px->lock);
	for (size_t i = 0; i < px->session_count; i++) {
		struct xrma_pximc_session *s = px->sessions[i];

		if (s->node == node && s->posted && s->uid == uid) {
			xrma_pximc_window_info(s, &info);
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&px->lock);
	(void)xrma_pximc_send_msg(conn, XRMA_PXIMC_MSG_QUERY, found, true, &info,
				  found ? (uint32_t)sizeof(info) : 0, XRMA_PXIMC_CALL_MS);
}

static void xrma_pximc_serve_notice(struct xrma_pximc *px, uint32_t node, uint32_t bits)
{
	pthread_mutex_lock(&px->lock);
	struct xrma_pximc_iface *iface = xrma_pximc_iface_get(px, node);

	if (iface) {
		iface->latch |= bits;
		pthread_cond_broadcast(&px->cond);
	}
	pthread_mutex_unlock(&px->lock);
}

/* One request on a freshly accepted connection. Consumes conn. */
void xrma_pximc_serve(struct xrma_pximc *px, struct xrma_conn *conn)
{
	union {
		struct xrma_pximc_pair_req pair;
		uint32_t uid;
	} req;
	struct xrma_pximc_hdr hdr;
	uint32_t node, port;

	if (xrma_conn_peer(conn, &node, &port) ||
	    xrma_pximc_recv_full(conn, &hdr, sizeof(hdr), XRMA_PXIMC_CALL_MS)) {
		xrma_conn_close(conn);
		return;
	}
	xrma_pximc_hdr_wire(&hdr);
	if (hdr.magic != XRMA_PXIMC_MAGIC || xrma_pximc_recv_payload(conn, &req, hdr.len, sizeof(req))) {
		xrma_conn_close(conn);
		return;
	}
	xrma_pximc_wire(hdr.type, false, &req, hdr.len < sizeof(req) ? hdr.len : sizeof(req));
	if (hdr.type != XRMA_PXIMC_MSG_NOTICE) {
		pthread_mutex_lock(&px->lock);
		xrma_pximc_subscriber_add(px, node);
		pthread_mutex_unlock(&px->lock);
	}
	switch (hdr.type) {
	case XRMA_PXIMC_MSG_HELLO:
		xrma_pximc_serve_hello(conn);
		break;
	case XRMA_PXIMC_MSG_FIND:
		xrma_pximc_serve_find(px, conn, node);
		break;
	case XRMA_PXIMC_MSG_QUERY:
		if (hdr.len >= sizeof(uint32_t))
			xrma_pximc_serve_query(px, conn, node, req.uid);
		break;
	case XRMA_PXIMC_MSG_NOTICE:
		xrma_pximc_serve_notice(px, node, hdr.arg);
		break;
	case XRMA_PXIMC_MSG_PAIR:
		if (hdr.len == sizeof(req.pair)) {
			xrma_pximc_handle_pair(px, conn, node, &req.pair);
			return;  /* it keeps or closes conn */
		}
		break;
	default:
		break;
	}
	xrma_conn_close(conn);
}
