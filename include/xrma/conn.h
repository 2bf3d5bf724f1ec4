/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/conn.h: connections: ports unique per node, listen / connect /
 * accept by (node, port), and an ordered, reliable, flow-controlled byte stream
 * per connected pair, with blocking and partial non-blocking sends and receives.
 * Each connection has a pollable file descriptor. The protocol runs over the
 * provider's control channel (core/conn.c); peer death closes the stream.
 */
#ifndef XRMA_CONN_H
#define XRMA_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <xrma/api.h>
#include <xrma/event.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;
struct xrma_conn;

#define XRMA_PORT_ANY  0u
#define XRMA_PORT_MAX  65535u

enum xrma_conn_state {
	XRMA_CONN_UNBOUND = 1,
	XRMA_CONN_BOUND,
	XRMA_CONN_LISTENING,
	XRMA_CONN_CONNECTING,
	XRMA_CONN_CONNECTED,
	XRMA_CONN_DISCONNECTED,   /* peer closed or died; queued bytes still readable */
};

XRMA_API int xrma_conn_open(struct xrma_ctx *ctx, uint32_t flags, struct xrma_conn **conn);

/* The largest receive window, and every endpoint's until xrma_conn_set_window. */
#define XRMA_CONN_WINDOW_MAX ((size_t)64 * 1024)

/*
 * How many bytes the peer may have sent that we have not read: its sends block
 * (or send less) beyond that. Set before connect or listen (accepted endpoints
 * take their listener's). Errors: XRMA_EINVAL (0 or above XRMA_CONN_WINDOW_MAX,
 * flags not 0, listening already), XRMA_EISCONN (connecting or connected).
 */
XRMA_API int xrma_conn_set_window(struct xrma_conn *conn, size_t bytes, uint32_t flags);

/*
 * Close; a connected peer sees end of stream. Pending accepts are refused. A
 * connect, accept, send or receive blocked on conn in another thread returns
 * XRMA_ECANCELED (a send or receive that moved bytes returns their count).
 */
XRMA_API int xrma_conn_close(struct xrma_conn *conn);

/*
 * Bind to *port, or with XRMA_PORT_ANY to a free port in [port_min, port_max]
 * (0, 0: the core's default range); the port is written back.
 * Errors: XRMA_EINVAL (port above XRMA_PORT_MAX, already bound, bad range),
 * XRMA_EADDRINUSE, XRMA_EISCONN, XRMA_ENOSPC (no free port).
 */
XRMA_API int xrma_conn_bind(struct xrma_conn *conn, uint32_t *port, uint32_t port_min, uint32_t port_max);

/* Listen for up to backlog (>= 1) pending requests. XRMA_EINVAL unbound; XRMA_EISCONN. */
XRMA_API int xrma_conn_listen(struct xrma_conn *conn, int backlog);

/*
 * Connect to (node, port); binds to a free port first if unbound.
 * Errors: XRMA_ENODEV (no such node), XRMA_ECONNREFUSED (nobody listens or the
 * backlog is full), XRMA_ETIMEDOUT, XRMA_EISCONN, XRMA_ESTATE (listening),
 * XRMA_ECANCELED (closed meanwhile, also while waiting for the accept).
 */
XRMA_API int xrma_conn_connect(struct xrma_conn *conn, uint32_t node, uint32_t port, int timeout_ms);

/*
 * Accept one pending request as a new connected endpoint on the same port.
 * timeout_ms 0 polls (XRMA_EAGAIN when none). Errors: XRMA_EINVAL (not listening).
 */
XRMA_API int xrma_conn_accept(struct xrma_conn *listener, int timeout_ms, struct xrma_conn **conn);

#define XRMA_CONN_BLOCK (1u << 0)  /* move all len bytes before returning */

/*
 * Send up to len bytes; returns the count sent. Without XRMA_CONN_BLOCK only what
 * the peer's window admits now (XRMA_EAGAIN if nothing). Errors: XRMA_ENOTCONN,
 * XRMA_ECONNRESET (peer gone; returned only when nothing was sent),
 * XRMA_ETIMEDOUT (blocking, nothing sent in time).
 */
XRMA_API ssize_t xrma_conn_send(struct xrma_conn *conn, const void *buf, size_t len, uint32_t flags,
				int timeout_ms);

/*
 * Receive up to len bytes; returns the count. Without XRMA_CONN_BLOCK only what is
 * queued (XRMA_EAGAIN if nothing). After the peer left, queued bytes drain first,
 * then XRMA_ECONNRESET.
 */
XRMA_API ssize_t xrma_conn_recv(struct xrma_conn *conn, void *buf, size_t len, uint32_t flags,
				int timeout_ms);

#define XRMA_POLLIN  0x01u  /* bytes or an accept are waiting */
#define XRMA_POLLOUT 0x04u  /* a send would move at least one byte */
#define XRMA_POLLERR 0x08u
#define XRMA_POLLHUP 0x10u  /* peer gone */

/* Current readiness as XRMA_POLL* bits. */
XRMA_API int xrma_conn_poll(struct xrma_conn *conn, uint32_t *revents);

/*
 * A file descriptor that is readable whenever xrma_conn_poll would report
 * XRMA_POLLIN or XRMA_POLLHUP, for poll/select/epoll. Owned by the connection.
 */
XRMA_API int xrma_conn_fd(struct xrma_conn *conn);

XRMA_API int xrma_conn_state(struct xrma_conn *conn, enum xrma_conn_state *state);
XRMA_API int xrma_conn_local(struct xrma_conn *conn, uint32_t *node, uint32_t *port);
XRMA_API int xrma_conn_peer(struct xrma_conn *conn, uint32_t *node, uint32_t *port);

/* Route events to cb (NULL: back to the queue); events already queued go to cb first, in order. */
XRMA_API int xrma_conn_set_callback(struct xrma_conn *conn, xrma_event_cb cb, void *arg);
XRMA_API int xrma_conn_wait_event(struct xrma_conn *conn, int timeout_ms, struct xrma_event *event);

XRMA_END_DECLS

#endif
