/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/conn.c: connections (xrma/conn.h). Ports are names in the provider's
 * node-wide XRMA_NS_PORT space; connect is a CONN_REQUEST request answered by
 * accept; the stream is CONN_DATA chunks under credit flow control (CONN_CREDIT
 * returns window) and CONN_CLOSE (formats in core/wire.h). The inbound side runs
 * on the service thread (core/conn_inbound.c), the byte stream is
 * core/conn_stream.c; events go through core/event.c.
 * DESIGN.md: the xrma_conn object ("connection & message stream").
 */
#include "core/conn.h"
#include "common/spin.h"
#include "common/killpoint.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <xrma/errors.h>
#include "core/control.h"
#include "core/ctx.h"
#include "core/event.h"
#include "core/prov_call.h"
#include "common/wait.h"

int xrma_core_conn_acquire(struct xrma_conn *handle, struct xrma_core_conn **conn)
{
	return XRMA_HANDLE_GET(handle, XRMA_OBJ_CONN, struct xrma_core_conn, *conn);
}

/* ------------------------------------------------------------------ readiness and waits */

static uint32_t conn_revents_locked(struct xrma_core_conn *conn)
{
	uint32_t revents = 0;

	xrma_lock_assert_held(&conn->lock);
	if (conn->nreqs || conn->ring_count)
		revents |= XRMA_POLLIN;
	if (conn->state == XRMA_CONN_CONNECTED && conn->peer_window > conn->in_flight)
		revents |= XRMA_POLLOUT;
	if (conn->state == XRMA_CONN_DISCONNECTED)
		revents |= XRMA_POLLHUP;
	return revents;
}

/* The fd is readable exactly while POLLIN or POLLHUP holds (a flag spares syscalls). */
static void conn_update_fd_locked(struct xrma_core_conn *conn)
{
	bool ready = conn_revents_locked(conn) & (XRMA_POLLIN | XRMA_POLLHUP);
	uint64_t value = 1;
	ssize_t n;

	if (ready == conn->fd_ready)
		return;
	/* Neither can fail here: the counter is 0 or 1, and the fd is non-blocking. */
	if (ready)
		n = write(conn->fd, &value, sizeof(value));
	else
		n = read(conn->fd, &value, sizeof(value));
	(void)n;
	conn->fd_ready = ready;
}

/* Something a waiter or poller may care about changed. */
void xrma_core_conn_changed_locked(struct xrma_core_conn *conn)
{
	xrma_lock_assert_held(&conn->lock);
	conn_update_fd_locked(conn);
	atomic_fetch_add_explicit(&conn->seq, 1, memory_order_release);
	xrma_cond_broadcast(&conn->cond);
}

/*
 * Wait for the next conn_changed_locked: spin a bounded while on seq with the
 * lock dropped, then block. 0 or -XRMA_ETIMEDOUT; callers re-check either way.
 * seq only changes under the lock, so a change after the spin is seen before
 * blocking and no wake-up is lost.
 */
int xrma_core_conn_wait_locked(struct xrma_core_conn *conn, const struct xrma_deadline *deadline)
{
	uint_fast64_t seen;
	struct xrma_spin spin;

	xrma_lock_assert_held(&conn->lock);
	if (deadline->poll)
		return -XRMA_ETIMEDOUT;
	seen = atomic_load_explicit(&conn->seq, memory_order_relaxed);
	xrma_unlock(&conn->lock);
	/* seq changes as this process's service thread takes the peer's messages. */
	xrma_spin_start(&spin, XRMA_SPIN_LOCAL);
	while (atomic_load_explicit(&conn->seq, memory_order_acquire) == seen && xrma_spin_again(&spin))
		;
	xrma_lock(&conn->lock);
	if (atomic_load_explicit(&conn->seq, memory_order_relaxed) != seen)
		return 0;
	return xrma_cond_wait(&conn->cond, &conn->lock, deadline);
}

void xrma_core_conn_post(struct xrma_core_conn *conn, enum xrma_event_type type, uint32_t node, int status)
{
	struct xrma_event ev = { .type = type, .node = node, .status = status };

	xrma_evq_post(&conn->evq, &ev);
}

/* The event a departure is reported with: LOST for a death, else DISCONNECT. */
enum xrma_event_type xrma_core_conn_leave_event(int status)
{
	return status == -XRMA_ELOST ? XRMA_EVENT_LOST : XRMA_EVENT_DISCONNECT;
}

/*
 * The peer left a connected endpoint: end of stream. Returns true when the
 * caller must post the event (after unlocking).
 */
bool xrma_core_conn_peer_left_locked(struct xrma_core_conn *conn, int status)
{
	xrma_lock_assert_held(&conn->lock);
	if (conn->peer_left)
		return false;
	conn->peer_left = true;
	conn->peer_status = status;
	/* A connect still waiting for its reply finishes the change itself. */
	if (conn->state != XRMA_CONN_CONNECTED)
		return false;
	conn->state = XRMA_CONN_DISCONNECTED;
	xrma_core_conn_changed_locked(conn);
	return true;
}

/* ------------------------------------------------------------------ messages out */

int xrma_core_conn_send_ctrl(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
			  enum xrma_wire_type type, uint64_t a0, uint64_t a1)
{
	struct xrma_wire_msg msg = { .type = (uint16_t)type, .arg = { a0, a1 } };

	return xrma_core_control_send(ctx, dst, &msg);
}

void xrma_core_conn_reply_request(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
			       uint64_t req, int status)
{
	/* arg[3] marks the reply as a connect's, for xrma_core_conn_on_late_reply. */
	const uint64_t arg[4] = { 0, 0, 0, XRMA_WIRE_CONN_REQUEST };

	xrma_core_control_reply(ctx, dst, req, status, arg, NULL, 0);
}

static void conn_refuse_all(struct xrma_core_ctx *ctx, struct conn_req *reqs)
{
	while (reqs) {
		struct conn_req *next = reqs->next;

		xrma_core_conn_reply_request(ctx, &reqs->src, reqs->req, -XRMA_ECONNREFUSED);
		free(reqs);
		reqs = next;
	}
}

/* ------------------------------------------------------------------ open and close */

static void conn_destroy(struct xrma_obj *obj)
{
	struct xrma_core_conn *conn = (struct xrma_core_conn *)obj;
	struct xrma_core_ctx *ctx = conn->ctx;
	struct conn_req *req = conn->reqs;

	while (req) {
		struct conn_req *next = req->next;

		free(req);
		req = next;
	}
	close(conn->fd);
	free(conn->ring);
	xrma_evq_destroy(&conn->evq);
	xrma_cond_destroy(&conn->cond);
	xrma_lock_destroy(&conn->lock);
	free(conn);
	xrma_core_ctx_child_destroyed(ctx);
}

/* A fresh UNBOUND endpoint, counted as a child of ctx but without a handle yet. */
static int conn_new(struct xrma_core_ctx *ctx, struct xrma_core_conn **out)
{
	struct xrma_core_conn *conn;
	size_t chunk_max = CONN_CHUNK_MAX;
	int ret;

	if (ctx->caps.ctrl_msg_max <= XRMA_WIRE_HEADER_LEN)
		return -XRMA_ENOTSUP;
	if (chunk_max > ctx->caps.ctrl_msg_max - XRMA_WIRE_HEADER_LEN)
		chunk_max = ctx->caps.ctrl_msg_max - XRMA_WIRE_HEADER_LEN;
	conn = calloc(1, sizeof(*conn));
	if (!conn)
		return -XRMA_ENOMEM;
	conn->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (conn->fd < 0) {
		ret = -XRMA_ENOSPC;
		goto err_free_conn;
	}
	ret = xrma_core_ctx_child_open(ctx);
	if (ret)
		goto err_close_fd;
	conn->ctx = ctx;
	conn->chunk_max = chunk_max;
	conn->state = XRMA_CONN_UNBOUND;
	conn->window = CONN_WINDOW;
	conn->reqs_tail = &conn->reqs;
	atomic_init(&conn->seq, 0);
	atomic_init(&conn->closing, false);
	xrma_evq_init(&conn->evq, ctx, &conn->obj);
	xrma_lock_init(&conn->lock);
	xrma_cond_init(&conn->cond);
	*out = conn;
	return 0;

err_close_fd:
	close(conn->fd);
err_free_conn:
	free(conn);
	return ret;
}

/* Undo conn_new (no handle was given out). */
static void conn_discard(struct xrma_core_conn *conn)
{
	struct xrma_core_ctx *ctx = conn->ctx;

	xrma_core_ctx_child_killed(ctx);
	conn_destroy(&conn->obj);
}

int xrma_conn_open(struct xrma_ctx *handle, uint32_t flags, struct xrma_conn **out)
{
	struct xrma_core_ctx *ctx;
	struct xrma_core_conn *conn;
	int ret;

	if (!out || flags)
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	ret = conn_new(ctx, &conn);
	if (ret)
		goto out_put_ctx;
	ret = xrma_handle_alloc(&conn->obj, XRMA_OBJ_CONN, conn_destroy);
	if (ret) {
		conn_discard(conn);
		goto out_put_ctx;
	}
	*out = conn->obj.handle;
out_put_ctx:
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_conn_set_window(struct xrma_conn *handle, size_t bytes, uint32_t flags)
{
	struct xrma_core_conn *conn;
	int ret;

	if (!bytes || bytes > CONN_WINDOW || flags)
		return -XRMA_EINVAL;
	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	xrma_lock(&conn->lock);
	switch (conn->state) {
	case XRMA_CONN_UNBOUND:
	case XRMA_CONN_BOUND:
		conn->window = bytes;
		break;
	case XRMA_CONN_LISTENING:
		ret = -XRMA_EINVAL;
		break;
	default:
		ret = -XRMA_EISCONN;
	}
	xrma_unlock(&conn->lock);
	xrma_handle_put(&conn->obj);
	return ret;
}

int xrma_conn_close(struct xrma_conn *handle)
{
	struct xrma_core_conn *conn;
	struct xrma_core_ctx *ctx;
	struct xrma_prov_addr peer;
	struct conn_req *reqs;
	enum xrma_conn_state state;
	uint64_t peer_id;
	uint32_t port;
	bool unbind;
	int ret;

	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	ctx = conn->ctx;
	/* The kill decides which of two racing closes does the work. */
	ret = xrma_handle_kill(&conn->obj);
	if (ret)
		goto out_put;
	xrma_core_ctx_child_killed(ctx);

	/* closed first: a listen or connect racing with us sees it before registering. */
	xrma_lock(&conn->lock);
	conn->closed = true;
	atomic_store_explicit(&conn->closing, true, memory_order_release);
	state = conn->state;
	peer = conn->peer;
	peer_id = conn->peer_id;
	reqs = conn->reqs;
	conn->reqs = NULL;
	conn->reqs_tail = &conn->reqs;
	conn->nreqs = 0;
	unbind = conn->owns_port;
	conn->owns_port = false;
	port = conn->port;
	xrma_core_conn_changed_locked(conn);
	xrma_unlock(&conn->lock);
	/* A connect waiting for the listener's answer (which may never come) gives up. */
	if (state == XRMA_CONN_CONNECTING)
		xrma_core_control_wake(ctx);

	xrma_lock(&ctx->lock);
	if (conn->id) {
		xrma_idmap_remove(&ctx->conns, conn->id);
		conn->id = 0;
	}
	if (conn->listed) {
		xrma_idmap_remove(&ctx->listeners, port);
		conn->listed = false;
	}
	xrma_unlock(&ctx->lock);

	/* Best effort: a peer that is gone already needs no goodbye. */
	if (state == XRMA_CONN_CONNECTED)
		xrma_core_conn_send_ctrl(ctx, &peer, XRMA_WIRE_CONN_CLOSE, peer_id, 0);
	conn_refuse_all(ctx, reqs);
	if (unbind)
		xrma_core_call_name_unbind(ctx, XRMA_NS_PORT, port);
	xrma_evq_close(&conn->evq);
out_put:
	xrma_handle_put(&conn->obj);
	return ret;
}

/* ------------------------------------------------------------------ bind, listen, connect, accept */

/*
 * Bind conn to want (XRMA_PORT_ANY: the first free port in [min, max]). With
 * for_connect an endpoint another thread bound meanwhile is fine as it is.
 */
static int conn_bind_port(struct xrma_core_conn *conn, uint32_t want, uint32_t min, uint32_t max,
			  bool for_connect, uint32_t *bound)
{
	struct xrma_core_ctx *ctx = conn->ctx;
	uint64_t id = want == XRMA_PORT_ANY ? XRMA_ID_ANY : want;
	bool undo = false;
	int ret = 0;

	if (!min && !max) {
		min = CONN_PORT_ANY_MIN;
		max = XRMA_PORT_MAX;
	}
	if (!min)
		min = 1;   /* 0 is XRMA_PORT_ANY, never a port */

	xrma_lock(&conn->lock);
	if (conn->closed)
		ret = -XRMA_ECANCELED;
	else if (conn->binding)
		ret = for_connect ? -XRMA_ESTATE : -XRMA_EINVAL;
	else if (conn->state == XRMA_CONN_CONNECTING || conn->state == XRMA_CONN_CONNECTED)
		ret = -XRMA_EISCONN;
	else if (conn->state == XRMA_CONN_BOUND && for_connect)
		ret = 1;
	else if (conn->state != XRMA_CONN_UNBOUND)
		ret = -XRMA_EINVAL;
	else
		conn->binding = true;
	xrma_unlock(&conn->lock);
	if (ret)
		return ret > 0 ? 0 : ret;

	ret = xrma_core_call_name_bind(ctx, XRMA_NS_PORT, &id, min, max);

	xrma_lock(&conn->lock);
	conn->binding = false;
	if (!ret && conn->closed) {
		undo = true;
		ret = -XRMA_ECANCELED;
	} else if (!ret) {
		conn->state = XRMA_CONN_BOUND;
		conn->port = (uint32_t)id;
		conn->owns_port = true;
		if (bound)
			*bound = conn->port;
	}
	xrma_core_conn_changed_locked(conn);
	xrma_unlock(&conn->lock);
	if (undo)
		xrma_core_call_name_unbind(ctx, XRMA_NS_PORT, id);
	return ret;
}

int xrma_conn_bind(struct xrma_conn *handle, uint32_t *port, uint32_t port_min, uint32_t port_max)
{
	struct xrma_core_conn *conn;
	uint32_t bound;
	int ret;

	if (!port || *port > XRMA_PORT_MAX || port_min > port_max || port_max > XRMA_PORT_MAX)
		return -XRMA_EINVAL;
	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	ret = conn_bind_port(conn, *port, port_min, port_max, false, &bound);
	if (!ret)
		*port = bound;
	xrma_handle_put(&conn->obj);
	return ret;
}

int xrma_conn_listen(struct xrma_conn *handle, int backlog)
{
	struct xrma_core_conn *conn;
	struct xrma_core_ctx *ctx;
	int ret;

	if (backlog < 1)
		return -XRMA_EINVAL;
	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	ctx = conn->ctx;
	/* Both locks: the state change and the registration are one step for on_request. */
	xrma_lock(&ctx->lock);
	xrma_lock(&conn->lock);
	if (conn->closed) {
		ret = -XRMA_ECANCELED;
	} else if (conn->state == XRMA_CONN_LISTENING) {
		conn->backlog = backlog;   /* as listen(2): a second call changes the backlog */
	} else if (conn->state == XRMA_CONN_CONNECTING || conn->state == XRMA_CONN_CONNECTED ||
		   conn->state == XRMA_CONN_DISCONNECTED) {
		ret = -XRMA_EISCONN;
	} else if (conn->state != XRMA_CONN_BOUND || conn->binding) {
		ret = -XRMA_EINVAL;
	} else {
		ret = xrma_idmap_insert(&ctx->listeners, conn->port, conn);
		if (!ret) {
			conn->listed = true;
			conn->backlog = backlog;
			conn->state = XRMA_CONN_LISTENING;
			xrma_core_conn_changed_locked(conn);
		} else if (ret == -XRMA_EEXIST) {
			ret = -XRMA_EADDRINUSE;   /* cannot happen: the port name is ours */
		}
	}
	xrma_unlock(&conn->lock);
	xrma_unlock(&ctx->lock);
	xrma_handle_put(&conn->obj);
	return ret;
}

/* Why a connect cannot start from the current state; 0 if it can (BOUND). */
static int conn_connect_state_error_locked(struct xrma_core_conn *conn)
{
	if (conn->closed)
		return -XRMA_ECANCELED;
	switch (conn->state) {
	case XRMA_CONN_BOUND:
		return conn->binding ? -XRMA_ESTATE : 0;
	case XRMA_CONN_UNBOUND:
		return -XRMA_ESTATE;   /* another thread unbound it: cannot happen */
	case XRMA_CONN_LISTENING:
	case XRMA_CONN_CONNECTING:
		return -XRMA_ESTATE;
	case XRMA_CONN_CONNECTED:
	case XRMA_CONN_DISCONNECTED:
		return -XRMA_EISCONN;
	}
	return -XRMA_ESTATE;
}

int xrma_conn_connect(struct xrma_conn *handle, uint32_t node, uint32_t port, int timeout_ms)
{
	struct xrma_core_conn *conn;
	struct xrma_core_ctx *ctx;
	struct xrma_prov_addr owner;
	struct xrma_wire_msg msg = { .type = XRMA_WIRE_CONN_REQUEST };
	struct xrma_reply reply;
	uint8_t *ring = NULL;
	enum xrma_event_type leave_event = 0;
	bool send_close = false, need_bind = false, need_ring;
	int leave_status = 0;
	uint64_t id = 0;
	int ret;

	if (port == XRMA_PORT_ANY || port > XRMA_PORT_MAX)
		return -XRMA_EINVAL;
	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	ctx = conn->ctx;

	xrma_lock(&conn->lock);
	if (conn->state == XRMA_CONN_UNBOUND && !conn->binding && !conn->closed)
		need_bind = true;
	else
		ret = conn_connect_state_error_locked(conn);
	need_ring = !conn->ring;
	xrma_unlock(&conn->lock);
	if (!ret && need_bind)
		ret = conn_bind_port(conn, XRMA_PORT_ANY, 0, 0, true, NULL);
	if (ret)
		goto out_put;

	ret = xrma_core_call_name_lookup(ctx, node, XRMA_NS_PORT, port, &owner);
	if (ret == -XRMA_ENOENT)
		ret = -XRMA_ECONNREFUSED;
	if (ret)
		goto out_put;
	if (need_ring)
		ring = malloc(CONN_WINDOW);   /* kept for later attempts: freed by destroy */

	/* Registered before the request goes out: the acceptor may send data at once. */
	xrma_lock(&ctx->lock);
	xrma_lock(&conn->lock);
	ret = conn_connect_state_error_locked(conn);
	if (!ret && !conn->ring && !ring)
		ret = -XRMA_ENOMEM;
	if (!ret) {
		id = xrma_core_ctx_next_id(ctx);
		ret = xrma_idmap_insert(&ctx->conns, id, conn);
	}
	if (!ret) {
		conn->id = id;
		if (!conn->ring) {
			conn->ring = ring;
			ring = NULL;
		}
		conn->state = XRMA_CONN_CONNECTING;
		conn->peer = owner;
		conn->peer_port = port;
		conn->peer_id = 0;
		conn->peer_left = false;
		conn->peer_status = 0;
		conn->ring_head = conn->ring_count = conn->consumed = 0;
		conn->peer_window = conn->in_flight = 0;
		msg.arg[0] = port;
		msg.arg[1] = conn->port;
		msg.arg[2] = id;
		msg.arg[3] = conn->window;
		xrma_core_conn_changed_locked(conn);
	}
	xrma_unlock(&conn->lock);
	xrma_unlock(&ctx->lock);
	free(ring);
	if (ret)
		goto out_put;

	ret = xrma_core_control_call_cancelable(ctx, &owner, &msg, &reply, timeout_ms,
						&conn->closing);
	if (!ret)
		XRMA_KILL_POINT("core.conn.connect.after_reply");
	if (!ret && (!reply.arg[0] || !reply.arg[1] || reply.arg[1] > CONN_PEER_WINDOW_MAX)) {
		ret = -XRMA_EPROTO;
		send_close = true;
	}
	/* The listener's endpoint vanished under the request: nobody listens any more. */
	if (ret == -XRMA_ECONNRESET || ret == -XRMA_ELOST)
		ret = -XRMA_ECONNREFUSED;

	xrma_lock(&ctx->lock);
	xrma_lock(&conn->lock);
	if (conn->closed) {
		/* close ran meanwhile and could not say goodbye to a peer it did not know. */
		send_close = !ret || send_close;
		ret = -XRMA_ECANCELED;
	} else if (!ret) {
		conn->peer_id = reply.arg[0];
		conn->peer_window = (size_t)reply.arg[1];
		if (conn->peer_left) {
			conn->state = XRMA_CONN_DISCONNECTED;
			leave_status = conn->peer_status;
			leave_event = xrma_core_conn_leave_event(leave_status);
			/* A peer that broke the protocol is dropped; one that left needs no word. */
			send_close = leave_status == -XRMA_EPROTO;
		} else {
			conn->state = XRMA_CONN_CONNECTED;
		}
	} else {
		if (conn->id == id) {
			xrma_idmap_remove(&ctx->conns, id);
			conn->id = 0;
		}
		conn->state = XRMA_CONN_BOUND;
		conn->ring_head = conn->ring_count = conn->consumed = 0;
	}
	xrma_core_conn_changed_locked(conn);
	xrma_unlock(&conn->lock);
	xrma_unlock(&ctx->lock);

	if (send_close && reply.arg[0])
		xrma_core_conn_send_ctrl(ctx, &owner, XRMA_WIRE_CONN_CLOSE, reply.arg[0], 0);
	if (leave_event)
		xrma_core_conn_post(conn, leave_event, owner.node, leave_status);
out_put:
	xrma_handle_put(&conn->obj);
	return ret;
}

int xrma_conn_accept(struct xrma_conn *handle, int timeout_ms, struct xrma_conn **out)
{
	struct xrma_core_conn *listener, *conn;
	struct xrma_core_ctx *ctx;
	struct xrma_deadline deadline;
	struct conn_req *req = NULL;
	uint64_t arg[4] = { 0, CONN_WINDOW, 0, XRMA_WIRE_CONN_REQUEST };
	bool timed_out = false;
	size_t window = CONN_WINDOW;
	uint32_t port = 0;
	int ret;

	if (!out)
		return -XRMA_EINVAL;
	ret = xrma_core_conn_acquire(handle, &listener);
	if (ret)
		return ret;
	ctx = listener->ctx;
	xrma_deadline_set(&deadline, timeout_ms);

	xrma_lock(&listener->lock);
	for (;;) {
		if (listener->closed) {
			ret = -XRMA_ECANCELED;
			break;
		}
		if (listener->state != XRMA_CONN_LISTENING) {
			ret = -XRMA_EINVAL;
			break;
		}
		if (listener->reqs) {
			req = listener->reqs;
			listener->reqs = req->next;
			if (!listener->reqs)
				listener->reqs_tail = &listener->reqs;
			listener->nreqs--;
			port = listener->port;
			window = listener->window;
			xrma_core_conn_changed_locked(listener);
			break;
		}
		if (timed_out) {
			ret = deadline.poll ? -XRMA_EAGAIN : -XRMA_ETIMEDOUT;
			break;
		}
		timed_out = xrma_core_conn_wait_locked(listener, &deadline) != 0;
	}
	xrma_unlock(&listener->lock);
	if (ret)
		goto out_put;

	/* From here every failure refuses the request, so its connector does not hang. */
	ret = conn_new(ctx, &conn);
	if (ret)
		goto err_refuse;
	conn->ring = malloc(CONN_WINDOW);
	if (!conn->ring) {
		ret = -XRMA_ENOMEM;
		goto err_discard;
	}
	conn->state = XRMA_CONN_CONNECTED;
	conn->port = port;
	conn->window = window;
	arg[1] = window;
	conn->peer = req->src;
	conn->peer_port = req->src_port;
	conn->peer_id = req->src_id;
	conn->peer_window = (size_t)req->src_window;
	ret = xrma_handle_alloc(&conn->obj, XRMA_OBJ_CONN, conn_destroy);
	if (ret)
		goto err_discard;
	xrma_lock(&ctx->lock);
	conn->id = xrma_core_ctx_next_id(ctx);
	ret = xrma_idmap_insert(&ctx->conns, conn->id, conn);
	if (ret)
		conn->id = 0;
	xrma_unlock(&ctx->lock);
	if (ret)
		goto err_kill;

	arg[0] = conn->id;
	if (xrma_core_control_reply(ctx, &req->src, req->req, 0, arg, NULL, 0)) {
		bool post;

		/* The connector is gone (or cannot be told): a connection it never saw. */
		xrma_lock(&conn->lock);
		post = xrma_core_conn_peer_left_locked(conn, -XRMA_ECONNRESET);
		xrma_unlock(&conn->lock);
		if (post)
			xrma_core_conn_post(conn, XRMA_EVENT_DISCONNECT, req->src.node, -XRMA_ECONNRESET);
	}
	*out = conn->obj.handle;
	free(req);
	goto out_put;

err_kill:
	xrma_core_ctx_child_killed(ctx);
	xrma_handle_kill(&conn->obj);   /* the table's reference was the last: destroys */
	goto err_refuse;
err_discard:
	conn_discard(conn);
err_refuse:
	xrma_core_conn_reply_request(ctx, &req->src, req->req, -XRMA_ECONNREFUSED);
	free(req);
out_put:
	xrma_handle_put(&listener->obj);
	return ret;
}

/* ------------------------------------------------------------------ queries and events */

int xrma_conn_poll(struct xrma_conn *handle, uint32_t *revents)
{
	struct xrma_core_conn *conn;
	int ret;

	if (!revents)
		return -XRMA_EINVAL;
	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	xrma_lock(&conn->lock);
	*revents = conn_revents_locked(conn);
	xrma_unlock(&conn->lock);
	/* Nothing to read yet: the peer's last bytes or request may be in the provider still. */
	if (!(*revents & (XRMA_POLLIN | XRMA_POLLHUP))) {
		xrma_core_conn_pull(conn);
		xrma_lock(&conn->lock);
		*revents = conn_revents_locked(conn);
		xrma_unlock(&conn->lock);
	}
	xrma_handle_put(&conn->obj);
	return 0;
}

int xrma_conn_fd(struct xrma_conn *handle)
{
	struct xrma_core_conn *conn;
	int ret;

	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	ret = conn->fd;
	xrma_handle_put(&conn->obj);
	return ret;
}

int xrma_conn_state(struct xrma_conn *handle, enum xrma_conn_state *state)
{
	struct xrma_core_conn *conn;
	int ret;

	if (!state)
		return -XRMA_EINVAL;
	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	*state = atomic_load_explicit(&conn->state, memory_order_acquire);
	xrma_handle_put(&conn->obj);
	return 0;
}

int xrma_conn_local(struct xrma_conn *handle, uint32_t *node, uint32_t *port)
{
	struct xrma_core_conn *conn;
	int ret;

	if (!node || !port)
		return -XRMA_EINVAL;
	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	xrma_lock(&conn->lock);
	*node = conn->ctx->self.node;
	*port = conn->port;   /* XRMA_PORT_ANY while unbound */
	xrma_unlock(&conn->lock);
	xrma_handle_put(&conn->obj);
	return 0;
}

int xrma_conn_peer(struct xrma_conn *handle, uint32_t *node, uint32_t *port)
{
	struct xrma_core_conn *conn;
	int ret;

	if (!node || !port)
		return -XRMA_EINVAL;
	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	xrma_lock(&conn->lock);
	/* A peer that left is still the peer the stream came from. */
	if (conn->state == XRMA_CONN_CONNECTED || conn->state == XRMA_CONN_DISCONNECTED) {
		*node = conn->peer.node;
		*port = conn->peer_port;
	} else {
		ret = -XRMA_ENOTCONN;
	}
	xrma_unlock(&conn->lock);
	xrma_handle_put(&conn->obj);
	return ret;
}

int xrma_conn_set_callback(struct xrma_conn *handle, xrma_event_cb cb, void *arg)
{
	struct xrma_core_conn *conn;
	int ret;

	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	ret = xrma_evq_set_callback(&conn->evq, cb, arg);
	xrma_handle_put(&conn->obj);
	return ret;
}

int xrma_conn_wait_event(struct xrma_conn *handle, int timeout_ms, struct xrma_event *event)
{
	struct xrma_core_conn *conn;
	int ret;

	if (!event)
		return -XRMA_EINVAL;
	ret = xrma_core_conn_acquire(handle, &conn);
	if (ret)
		return ret;
	ret = xrma_evq_wait(&conn->evq, timeout_ms, event);
	xrma_handle_put(&conn->obj);
	return ret;
}
