/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/conn.h: a connection as core/conn.c (lifetime, ports, handshake,
 * queries), core/conn_stream.c (the byte stream) and core/conn_inbound.c
 * (messages from peers) share it, and the inbound side the context's
 * dispatcher calls on the service thread (never blocks, never runs user code).
 */
#ifndef XRMA_CORE_CONN_H
#define XRMA_CORE_CONN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <xrma/conn.h>
#include "common/lock.h"
#include "common/wait.h"
#include "core/event.h"
#include "core/handle.h"
#include "core/wire.h"
#include "providers/provider.h"

struct xrma_core_ctx;

/* Receive ring each endpoint allocates: room for the largest window. */
#define CONN_WINDOW XRMA_CONN_WINDOW_MAX
/* Largest CONN_DATA payload before the provider's message limit cuts it further. */
#define CONN_CHUNK_MAX ((size_t)16 * 1024)
/* XRMA_PORT_ANY with range (0, 0): the unprivileged ports, as for IP. */
#define CONN_PORT_ANY_MIN 1024u
/* A larger advertised window is nonsense from a broken or hostile peer. */
#define CONN_PEER_WINDOW_MAX ((uint64_t)1 << 30)

/* A connection request queued on a listener until accepted or refused. */
struct conn_req {
	struct conn_req *next;
	struct xrma_prov_addr src;
	uint32_t src_port;
	uint64_t src_id;         /* the connector's conn id */
	uint64_t src_window;
	uint64_t req;            /* control request id to answer */
};

struct xrma_core_conn {
	struct xrma_obj obj;
	struct xrma_core_ctx *ctx;          /* fixed at open */
	int fd;                             /* fixed at open: eventfd of xrma_conn_fd */
	size_t chunk_max;                   /* fixed at open: largest CONN_DATA payload */
	struct xrma_evq evq;                /* its own lock */
	/* Set with closed: a connect waiting for its reply reads it without the lock. */
	atomic_bool closing;

	uint64_t id;                        /* under ctx->lock: key in ctx->conns, 0 if absent */
	bool listed;                        /* under ctx->lock: in ctx->listeners under port */

	struct xrma_lock lock;              /* guards every field below */
	struct xrma_cond cond;              /* broadcast by conn_changed_locked */
	atomic_uint_fast64_t seq;           /* bumped under lock with each broadcast; spun on without */
	/* Written under lock; xrma_conn_state reads it without, on every SCIF call. */
	_Atomic(enum xrma_conn_state) state;
	bool closed;                        /* handle closed: waiters leave with ECANCELED */
	bool binding;                       /* a name_bind is in the provider, outside the lock */
	bool owns_port;                     /* bound by this endpoint: unbound at close */
	/* One sender and one receiver at a time, so each call's bytes stay contiguous. */
	bool sending;
	bool receiving;
	bool fd_ready;                      /* the eventfd counter is non-zero */
	uint32_t port;                      /* 0 until bound (accepted: the listener's) */
	/* What a peer may have in flight to us (<= CONN_WINDOW); fixed once connecting. */
	size_t window;

	/* The peer: set when connecting (address) and connected (the rest). */
	struct xrma_prov_addr peer;
	uint32_t peer_port;
	uint64_t peer_id;
	bool peer_left;                     /* closed, died or broke the protocol */
	int peer_status;                    /* event status when it left: 0 closed, else -XRMA_E* */

	/* Receive ring, allocated by connect or accept, CONN_WINDOW bytes. */
	uint8_t *ring;
	size_t ring_head;
	size_t ring_count;
	size_t consumed;                    /* read but not yet credited back */

	/* Send credit: the peer's window minus what it has not credited back. */
	size_t peer_window;
	size_t in_flight;

	/* Listener. */
	int backlog;
	size_t nreqs;
	struct conn_req *reqs, **reqs_tail;

	struct xrma_core_conn *down_next;   /* service thread only: on_peer_down's work list */
};

/* Shared by the three files; each says its lock rule in its name. */
int xrma_core_conn_acquire(struct xrma_conn *handle, struct xrma_core_conn **conn);
/* Something a waiter or poller may care about changed: fd, seq, broadcast. */
void xrma_core_conn_changed_locked(struct xrma_core_conn *conn);
/* Wait for the next change (spin, then block): 0 or -XRMA_ETIMEDOUT; re-check either way. */
int xrma_core_conn_wait_locked(struct xrma_core_conn *conn, const struct xrma_deadline *deadline);
void xrma_core_conn_post(struct xrma_core_conn *conn, enum xrma_event_type type, uint32_t node,
			 int status);
/* The event a departure is reported with: LOST for a death, else DISCONNECT. */
enum xrma_event_type xrma_core_conn_leave_event(int status);
/* The peer left: end of stream. True when the caller must post the event (after unlocking). */
bool xrma_core_conn_peer_left_locked(struct xrma_core_conn *conn, int status);
int xrma_core_conn_send_ctrl(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
			     enum xrma_wire_type type, uint64_t a0, uint64_t a1);
void xrma_core_conn_reply_request(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
				  uint64_t req, int status);
/*
 * Deliver, from the calling thread, what the provider already holds for the
 * context (its poll op), so bytes a peer's send has handed over are seen before
 * its service thread wakes. No conn lock held: the upcalls take them.
 */
void xrma_core_conn_pull(struct xrma_core_conn *conn);
/* Return credit for what was read, in batches; drops the lock around the send. */
void xrma_core_conn_credit_locked(struct xrma_core_conn *conn);
void xrma_core_conn_ring_write_locked(struct xrma_core_conn *conn, const uint8_t *buf, size_t len);

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
