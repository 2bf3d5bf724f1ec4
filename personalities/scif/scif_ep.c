/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_ep.c: endpoints and connections (§3.2, §3.3, §3.10):
 * open, bind with SCIF's port rules, listen, connect, accept and close. A
 * connection is a core connection; right after it forms, both sides swap the
 * ids of their RAS tables as the first bytes of the stream (invisible to the
 * program), so each can see the other's windows.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include "personalities/scif/scif_internal.h"

#define XRMA_SCIF_HELLO_MAGIC 0x5343494658524d41ull  /* "SCIFXRMA" */

struct xrma_scif_hello {
	uint64_t magic;
	uint64_t ras_id;
};

/* Take the endpoint of epd and read its connection state; on error nothing is held. */
static int ep_state(scif_epd_t epd, struct xrma_scif_ep **ep, enum xrma_conn_state *state)
{
	int ret = xrma_scif_ep_get(epd, ep);

	if (ret)
		return ret;
	ret = xrma_conn_state((*ep)->conn, state);
	if (ret)
		xrma_scif_ep_put(*ep);
	return ret;
}

/* Connected now or before: SCIF's EISCONN states. */
static bool state_connected(enum xrma_conn_state state)
{
	return state == XRMA_CONN_CONNECTED || state == XRMA_CONN_DISCONNECTED ||
	       state == XRMA_CONN_CONNECTING;
}

/*
 * Join a non-blocking connect's thread if one ran and nobody joined it yet.
 * Not ep->lock: an RMA or fence call may hold that for long.
 */
static void connect_join(struct xrma_scif_ep *ep)
{
	if (__atomic_exchange_n(&ep->connect_joinable, false, __ATOMIC_ACQ_REL))
		pthread_join(ep->connect_thread, NULL);
}

/* A free port at or above SCIF_PORT_RSVD; running out of ports reads as EADDRINUSE. */
static int bind_any(struct xrma_conn *conn, uint32_t *port)
{
	int ret;

	*port = XRMA_PORT_ANY;
	ret = xrma_conn_bind(conn, port, SCIF_PORT_RSVD, XRMA_PORT_MAX);
	return ret == -XRMA_ENOSPC ? -XRMA_EADDRINUSE : ret;
}

scif_epd_t scif_open(void)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_ctx *ctx;
	struct xrma_conn *conn;
	struct xrma_scif_ep *ep;
	int ret;

	xrma_scif_retired_sweep();
	ret = xrma_scif_ctx(&ctx);
	if (!ret)
		ret = xrma_conn_open(ctx, 0, &conn);
	if (ret)
		return xrma_scif_fail(ret);
	/* Accepted endpoints take their listener's window: every SCIF stream has MPSS's queue. */
	ret = xrma_conn_set_window(conn, XRMA_SCIF_MSG_QUEUE, 0);
	if (ret) {
		xrma_conn_close(conn);
		return xrma_scif_fail(ret);
	}
	ep = xrma_scif_ep_new(conn);
	if (!ep) {
		xrma_conn_close(conn);
		return xrma_scif_fail(-XRMA_ENOMEM);
	}
	ret = xrma_scif_ep_insert(ep);
	if (ret) {
		xrma_conn_close(conn);
		xrma_scif_ep_put(ep);
		return xrma_scif_fail(ret);
	}
	return ep->fd;
}

int scif_close(scif_epd_t epd)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_scif_ep *ep;
	int ret;

	ret = xrma_scif_ep_get(epd, &ep);
	if (!ret)
		ret = xrma_scif_ep_remove(ep);
	if (ret) {
		if (ep)
			xrma_scif_ep_put(ep);
		return xrma_scif_fail(ret);
	}
	pthread_mutex_lock(&ep->lock);
	ep->closed = true;
	/* RMAs already started complete first (§3.10.1 step 2); windows go as if unregistered. */
	if (ep->connected)
		xrma_scif_ras_teardown(ep);
	pthread_mutex_unlock(&ep->lock);
	XRMA_KILL_POINT("scif.close.after_teardown");
	/* Wakes blocked connects, sends and receives; the peer sees the end of the stream. */
	xrma_conn_close(ep->conn);
	/* A non-blocking connect's thread, woken just now, ends before we return. */
	connect_join(ep);
	xrma_scif_ep_put(ep);
	xrma_scif_retired_sweep();
	return 0;
}

int scif_bind(scif_epd_t epd, uint16_t pn)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_scif_ep *ep;
	enum xrma_conn_state state;
	uint32_t port = pn;
	int ret;

	ret = ep_state(epd, &ep, &state);
	if (ret)
		return xrma_scif_fail(ret);
	if (state != XRMA_CONN_UNBOUND)
		ret = state_connected(state) ? -XRMA_EISCONN : -XRMA_EINVAL;
	else if (pn != SCIF_PORT_ANY && pn < SCIF_ADMIN_PORT_END && geteuid() != 0)
		ret = -XRMA_EACCES;
	else if (pn == SCIF_PORT_ANY)
		ret = bind_any(ep->conn, &port);
	else
		ret = xrma_conn_bind(ep->conn, &port, 0, 0);
	xrma_scif_ep_put(ep);
	return ret ? xrma_scif_fail(ret) : (int)port;
}

int scif_listen(scif_epd_t epd, int backlog)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_scif_ep *ep;
	enum xrma_conn_state state;
	int ret;

	ret = ep_state(epd, &ep, &state);
	if (ret)
		return xrma_scif_fail(ret);
	if (state_connected(state))
		ret = -XRMA_EISCONN;
	else if (state != XRMA_CONN_BOUND || backlog < 0)
		ret = -XRMA_EINVAL;
	else
		ret = xrma_conn_listen(ep->conn, backlog < 1 ? 1 : backlog > 1024 ? 1024 : backlog);
	xrma_scif_ep_put(ep);
	return ret ? xrma_scif_fail(ret) : 0;
}

/* Both sides send first, then read: neither waits on the other to start. */
static int scif_handshake(struct xrma_scif_ep *ep)
{
	struct xrma_scif_hello mine = { .magic = XRMA_SCIF_HELLO_MAGIC }, theirs;
	ssize_t n;
	int ret;

	pthread_mutex_lock(&ep->lock);
	/* A non-blocking connect's thread may get here after scif_close. */
	ret = ep->closed ? -XRMA_ECANCELED : xrma_conn_peer(ep->conn, &ep->peer_node, &ep->peer_port);
	if (!ret)
		ret = xrma_scif_ras_setup(ep, &mine.ras_id);
	pthread_mutex_unlock(&ep->lock);
	if (ret)
		return ret;
	n = xrma_conn_send(ep->conn, &mine, sizeof(mine), XRMA_CONN_BLOCK, XRMA_SCIF_HANDSHAKE_MS);
	if (n >= 0 && n != sizeof(mine))
		n = -XRMA_ECONNRESET;
	if (n >= 0)
		n = xrma_conn_recv(ep->conn, &theirs, sizeof(theirs), XRMA_CONN_BLOCK,
				   XRMA_SCIF_HANDSHAKE_MS);
	if (n >= 0 && (n != sizeof(theirs) || theirs.magic != XRMA_SCIF_HELLO_MAGIC))
		n = -XRMA_ECONNRESET;
	pthread_mutex_lock(&ep->lock);
	ret = n < 0 ? (int)n : ep->closed ? -XRMA_ECANCELED : xrma_rwin_attach(ep->rwin, ep->conn, theirs.ras_id,
										       XRMA_SCIF_HANDSHAKE_MS);
	/* The peer answered a moment ago: its node or table gone since means it left (ECONNRESET). */
	if (ret == -XRMA_ENODEV || ret == -XRMA_ENOENT)
		ret = -XRMA_ECONNRESET;
	if (ret) {
		xrma_scif_ras_teardown(ep);
	} else {
		ep->connected = true;
		__atomic_store_n(&ep->stream_ready, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

/*
 * What the core's connect result means to SCIF. A node of the cluster (the
 * node file's, else an id the provider allows) whose process has not started
 * or has exited is a node where nobody listens, ECONNREFUSED, as a card that
 * is up without a listener (programs retry only on that); ENODEV is left for
 * ids that name no node.
 */
static int connect_result(int ret, uint32_t node)
{
	struct xrma_ctx *ctx;

	if (ret != -XRMA_EINVAL && ret != -XRMA_EHOSTUNREACH && ret != -XRMA_ENODEV)
		return ret;
	if (!xrma_scif_ctx(&ctx) && !xrma_node_in_cluster(ctx, node))
		return -XRMA_ECONNREFUSED;
	return -XRMA_ENODEV;
}

struct connect_job {
	struct xrma_scif_ep *ep;     /* referenced until the job ends */
	uint32_t node, port;
};

/* Connect and handshake; the result waits in the endpoint for the next scif_connect. */
static void *connect_main(void *arg)
{
	struct connect_job *job = arg;
	struct xrma_scif_ep *ep = job->ep;
	int ret = connect_result(xrma_conn_connect(ep->conn, job->node, job->port, XRMA_TIMEOUT_INFINITE),
				 job->node);

	if (!ret)
		ret = scif_handshake(ep);
	__atomic_store_n(&ep->connect_result, ret, __ATOMIC_RELAXED);
	__atomic_store_n(&ep->connect_state, XRMA_SCIF_CONNECT_DONE, __ATOMIC_RELEASE);
	xrma_scif_ep_put(ep);
	free(job);
	return NULL;
}

/*
 * What scif_connect checks before it connects, binding an unbound endpoint to a
 * port outside the reserved range (as scif_bind(epd, 0)). A bind lost to a
 * concurrent call's is not an error: the state it made decides.
 */
static int connect_check(struct xrma_scif_ep *ep, const struct scif_portID *dst)
{
	enum xrma_conn_state state;
	uint32_t port;
	int ret;

	if (!dst || dst->port == 0)
		return -XRMA_EINVAL;
	ret = xrma_conn_state(ep->conn, &state);
	if (!ret && state == XRMA_CONN_UNBOUND && (ret = bind_any(ep->conn, &port)) == -XRMA_EINVAL)
		ret = xrma_conn_state(ep->conn, &state);
	if (ret)
		return ret;
	if (state == XRMA_CONN_LISTENING)
		return -XRMA_EINVAL;
	return state_connected(state) ? -XRMA_EISCONN : 0;
}

/*
 * With O_NONBLOCK on the descriptor the connect runs on a thread of its own:
 * EINPROGRESS now, SCIF_POLLOUT from scif_poll once done, and the result from
 * the next scif_connect (a failed connect leaves the endpoint bound), which
 * joins the thread; scif_close joins it if nobody did. Concurrent calls claim
 * each step with a compare-and-swap: one starts the attempt and one collects its
 * result, the others see it in progress.
 * Returns 1 for "in progress", else 0 or a core code.
 */
static int connect_nonblocking(struct xrma_scif_ep *ep, const struct scif_portID *dst)
{
	int state = __atomic_load_n(&ep->connect_state, __ATOMIC_ACQUIRE), ret;
	struct connect_job *job;
	pthread_t thread;

	do {
		if (state == XRMA_SCIF_CONNECT_RUNNING || state == XRMA_SCIF_CONNECT_COLLECTING)
			return 1;
	} while (!__atomic_compare_exchange_n(&ep->connect_state, &state,
					      state == XRMA_SCIF_CONNECT_DONE ? XRMA_SCIF_CONNECT_COLLECTING
									: XRMA_SCIF_CONNECT_RUNNING,
					      false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	if (state == XRMA_SCIF_CONNECT_DONE) {
		/* The thread stored DONE on its way out: the join does not wait for a connect. */
		connect_join(ep);
		ret = __atomic_load_n(&ep->connect_result, __ATOMIC_RELAXED);
		__atomic_store_n(&ep->connect_state, XRMA_SCIF_CONNECT_IDLE, __ATOMIC_RELEASE);
		return ret;
	}
	ret = connect_check(ep, dst);
	if (!ret && !(job = malloc(sizeof(*job))))
		ret = -XRMA_ENOMEM;
	if (ret) {
		__atomic_store_n(&ep->connect_state, XRMA_SCIF_CONNECT_IDLE, __ATOMIC_RELEASE);
		return ret;
	}
	*job = (struct connect_job){ .ep = ep, .node = dst->node, .port = dst->port };
	__atomic_add_fetch(&ep->refs, 1, __ATOMIC_RELAXED);   /* we hold one: not the last */
	if (pthread_create(&thread, NULL, connect_main, job)) {
		__atomic_store_n(&ep->connect_state, XRMA_SCIF_CONNECT_IDLE, __ATOMIC_RELEASE);
		xrma_scif_ep_put(ep);
		free(job);
		return -XRMA_ENOMEM;
	}
	/* Named like the core's threads, so a debugger's or a test's thread list tells it apart. */
	pthread_setname_np(thread, "scif-connect");
	ep->connect_thread = thread;
	__atomic_store_n(&ep->connect_joinable, true, __ATOMIC_RELEASE);
	return 1;
}

/*
 * Drop the caller's reference and turn a connect's result into SCIF's: the
 * local port the endpoint is bound to on success (MPSS's libscif returns it,
 * and mpssd checks it against the port scif_accept reported to its peer).
 */
static int connect_finish(struct xrma_scif_ep *ep, int ret)
{
	uint32_t node, port = 0;

	if (!ret)
		ret = xrma_conn_local(ep->conn, &node, &port);
	xrma_scif_ep_put(ep);
	if (ret == 1) {
		return xrma_scif_fail_errno(EINPROGRESS);
	}
	return ret ? xrma_scif_fail(ret) : (int)port;
}

int scif_connect(scif_epd_t epd, struct scif_portID *dst)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_scif_ep *ep;
	int ret, fl;

	ret = xrma_scif_ep_get(epd, &ep);
	if (ret)
		return xrma_scif_fail(ret);
	fl = fcntl(ep->fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		return connect_finish(ep, connect_nonblocking(ep, dst));
	ret = connect_check(ep, dst);
	if (!ret)
		ret = connect_result(xrma_conn_connect(ep->conn, dst->node, dst->port, XRMA_TIMEOUT_INFINITE),
				     dst->node);
	if (!ret)
		XRMA_KILL_POINT("scif.connect.after_request");
	if (!ret)
		ret = scif_handshake(ep);
	return connect_finish(ep, ret);
}

/*
 * Whether a failed accept handshake is the requester's doing (it died, stalled or
 * broke the protocol), not the listener's: the request is dropped and reported
 * as ECONNRESET, so the listener can take the next.
 */
static bool accept_requester_failed(int ret)
{
	/* The listener's own shortages (core codes equal to errno values) are its to report. */
	return ret != -XRMA_ENOMEM && ret != -XRMA_ENOSPC && ret != -EMFILE && ret != -ENFILE &&
	       ret != -XRMA_EINTR && ret != -XRMA_ECANCELED;
}

/*
 * Take one request from the listener and finish its handshake: 0 and the new
 * endpoint in *out, or a core code; *skipped when the requester was at fault.
 */
static int accept_one(scif_epd_t epd, int flags, struct xrma_scif_ep **out, bool *skipped)
{
	struct xrma_scif_ep *ep, *child;
	struct xrma_conn *conn;
	enum xrma_conn_state state;
	int ret;

	ret = ep_state(epd, &ep, &state);
	if (ret)
		return ret;
	ret = state != XRMA_CONN_LISTENING ? -XRMA_EINVAL : 0;
	if (!ret)
		ret = xrma_conn_accept(ep->conn, flags & SCIF_ACCEPT_SYNC ? XRMA_TIMEOUT_INFINITE : 0,
				       &conn);
	xrma_scif_ep_put(ep);
	if (ret)
		return ret;
	child = xrma_scif_ep_new(conn);
	if (!child) {
		xrma_conn_close(conn);
		return -XRMA_ENOMEM;
	}
	XRMA_KILL_POINT("scif.accept.before_handshake");
	ret = scif_handshake(child);
	if (!ret)
		ret = xrma_scif_ep_insert(child);
	if (ret) {
		pthread_mutex_lock(&child->lock);
		if (child->connected)
			xrma_scif_ras_teardown(child);
		pthread_mutex_unlock(&child->lock);
		xrma_conn_close(conn);
		xrma_scif_ep_put(child);
		*skipped = accept_requester_failed(ret);
		return ret;
	}
	*out = child;
	return 0;
}

int scif_accept(scif_epd_t epd, struct scif_portID *peer, scif_epd_t *newepd, int flags)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_scif_ep *child;
	bool skipped;
	int ret;

	if (flags & ~SCIF_ACCEPT_SYNC || !peer || !newepd)
		return xrma_scif_fail_errno(EINVAL);
	skipped = false;
	ret = accept_one(epd, flags, &child, &skipped);
	/* The requester's failure, whatever it was, is the guide's reset by the peer:
	 * the listener is fine and the next call takes the next request. */
	if (ret && skipped)
		ret = -XRMA_ECONNRESET;
	if (ret)
		return xrma_scif_fail(ret);
	peer->node = (uint16_t)child->peer_node;
	peer->port = (uint16_t)child->peer_port;
	*newepd = child->fd;
	return 0;
}
