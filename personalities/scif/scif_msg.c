/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_msg.c: the messaging layer (§3.4) and readiness
 * (§3.12): scif_send and scif_recv on the core's ordered byte stream, with
 * partial non-blocking transfers, and scif_poll over the endpoints' state.
 * The endpoint descriptor is the core connection's eventfd, readable while data
 * or a connection request waits or the peer has gone (docs/scif.md).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include "personalities/scif/scif_internal.h"

/*
 * State errors of the stream calls: not connected yet, or the peer left. Until
 * the handshake took its bytes (scif_ep.c) the stream is not the program's,
 * whatever the core's state.
 */
static int msg_state_error(struct xrma_scif_ep *ep)
{
	enum xrma_conn_state state;
	int ret;

	if (!__atomic_load_n(&ep->stream_ready, __ATOMIC_ACQUIRE))
		return -XRMA_ENOTCONN;
	ret = xrma_conn_state(ep->conn, &state);
	if (ret)
		return ret;
	if (state == XRMA_CONN_DISCONNECTED)
		return -XRMA_ECONNRESET;
	return state == XRMA_CONN_CONNECTED ? 0 : -XRMA_ENOTCONN;
}

static int msg_transfer(scif_epd_t epd, void *msg, int len, int flags, bool send)
{
	uint32_t core_flags = flags ? XRMA_CONN_BLOCK : 0;
	struct xrma_scif_ep *ep;
	ssize_t n;
	int ret;

	if (len < 0 || (flags & ~SCIF_SEND_BLOCK) || (len > 0 && !msg)) {
		return xrma_scif_fail_errno(len > 0 && !msg ? EFAULT : EINVAL);
	}
	ret = xrma_scif_ep_get(epd, &ep);
	if (ret)
		return xrma_scif_fail(ret);
	ret = msg_state_error(ep);
	/* After the peer left, queued bytes still drain (§3.10.1). */
	if (ret == -XRMA_ECONNRESET && !send)
		ret = 0;
	if (ret || len == 0) {
		xrma_scif_ep_put(ep);
		return ret ? xrma_scif_fail(ret) : 0;
	}
	if (send)
		n = xrma_conn_send(ep->conn, msg, (size_t)len, core_flags, XRMA_TIMEOUT_INFINITE);
	else
		n = xrma_conn_recv(ep->conn, msg, (size_t)len, core_flags, XRMA_TIMEOUT_INFINITE);
	xrma_scif_ep_put(ep);
	if (n > 0)
		XRMA_KILL_POINT(send ? "scif.send.after_data" : "scif.recv.after_data");
	/* A non-blocking call that moves nothing reports 0 bytes (§3.4). */
	if (n == -XRMA_EAGAIN)
		return 0;
	return n < 0 ? xrma_scif_fail((int)n) : (int)n;
}

int scif_send(scif_epd_t epd, void *msg, int len, int flags)
{
	XRMA_SCIF_ERRNO_KEEP();
	return msg_transfer(epd, msg, len, flags, true);
}

int scif_recv(scif_epd_t epd, void *msg, int len, int flags)
{
	XRMA_SCIF_ERRNO_KEEP();
	return msg_transfer(epd, msg, len, flags, false);
}

/* The core's readiness of ep, as the program sees it. */
static int poll_ep(struct xrma_scif_ep *ep, uint32_t *core, bool *hidden_in)
{
	/* Read first: true means the bytes counted below are the program's. */
	bool ready = __atomic_load_n(&ep->stream_ready, __ATOMIC_ACQUIRE);
	enum xrma_conn_state state;
	int ret = xrma_conn_poll(ep->conn, core);

	*hidden_in = false;
	if (ret || ready)
		return ret;
	ret = xrma_conn_state(ep->conn, &state);
	if (ret || state == XRMA_CONN_LISTENING)
		return ret;
	/* A connection whose handshake runs: its first bytes are the handshake's. */
	*hidden_in = *core & XRMA_POLLIN;
	*core &= ~(XRMA_POLLIN | XRMA_POLLOUT);
	return 0;
}

/*
 * One pass over the set: fills revents and the descriptors to wait on, returns
 * how many revents are non-zero. *recheck: some entry changes without its
 * descriptor waking (output, a handshake's input), so the wait must be short.
 */
static int poll_once(struct scif_pollepd *epds, unsigned int nepds, struct pollfd *fds, bool *recheck)
{
	int ready = 0;

	*recheck = false;
	for (unsigned int i = 0; i < nepds; i++) {
		struct xrma_scif_ep *ep;
		uint32_t core = 0;
		short revents = 0;
		bool hidden_in = false;

		fds[i] = (struct pollfd){ .fd = epds[i].epd, .events = POLLIN };
		if (xrma_scif_ep_get(epds[i].epd, &ep) || poll_ep(ep, &core, &hidden_in)) {
			if (ep)
				xrma_scif_ep_put(ep);
			revents = SCIF_POLLNVAL;
		} else {
			int connect = __atomic_load_n(&ep->connect_state, __ATOMIC_ACQUIRE);

			/* A non-blocking connect is writable once done, in error if it failed. */
			if (connect == XRMA_SCIF_CONNECT_RUNNING || connect == XRMA_SCIF_CONNECT_COLLECTING)
				core &= ~XRMA_POLLOUT;
			else if (connect == XRMA_SCIF_CONNECT_DONE)
				core |= XRMA_POLLOUT |
					(__atomic_load_n(&ep->connect_result, __ATOMIC_RELAXED) ? XRMA_POLLERR : 0);
			xrma_scif_ep_put(ep);
			if (core & XRMA_POLLIN)
				revents |= SCIF_POLLIN;
			if (core & XRMA_POLLOUT)
				revents |= SCIF_POLLOUT;
			if (core & XRMA_POLLHUP)
				revents |= SCIF_POLLHUP;
			if (core & XRMA_POLLERR)
				revents |= SCIF_POLLERR;
			revents &= (short)(epds[i].events | SCIF_POLLHUP | SCIF_POLLERR);
			/* The descriptor only wakes on input and hang-up; output is re-checked. */
			if (!revents && (epds[i].events & SCIF_POLLOUT))
				*recheck = true;
			/* Readable for the handshake's bytes, it would wake us at once: skip it. */
			if (!revents && hidden_in) {
				fds[i].fd = -1;
				*recheck = true;
			}
		}
		epds[i].revents = revents;
		ready += revents != 0;
	}
	return ready;
}

static long elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)((now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000);
}

/*
 * Wait on every endpoint's descriptor for input; POLLOUT waiters and
 * connections in their handshake re-check each millisecond.
 */
int scif_poll(struct scif_pollepd *epds, unsigned int nepds, long timeout)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct pollfd stack[16], *fds = stack;
	struct timespec start;
	int ready;
	bool recheck;

	if (nepds && !epds) {
		return xrma_scif_fail_errno(EFAULT);
	}
	if (nepds > 65536) {
		return xrma_scif_fail_errno(EINVAL);
	}
	if (nepds > sizeof(stack) / sizeof(stack[0])) {
		fds = calloc(nepds, sizeof(*fds));
		if (!fds) {
			return xrma_scif_fail_errno(ENOMEM);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		long left = timeout < 0 ? -1 : timeout - elapsed_ms(&start);
		int wait_ms;

		ready = poll_once(epds, nepds, fds, &recheck);
		if (ready || (timeout >= 0 && left <= 0))
			break;
		wait_ms = left < 0 || left > INT32_MAX ? -1 : (int)left;
		if (recheck && (wait_ms < 0 || wait_ms > 1))
			wait_ms = 1;
		if (poll(fds, nepds, wait_ms) < 0 && errno == EINTR) {
			ready = xrma_scif_fail_errno(EINTR);
			break;
		}
	}
	if (fds != stack)
		free(fds);
	return ready;
}
