/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_control.c: everything that travels as a libfabric message.
 *
 *  - Sending: a message that libfabric cannot take now (-FI_EAGAIN) waits in
 *    its peer's queue, and everything later to that peer waits behind it, so
 *    order per destination holds (the endpoint is FI_ORDER_SAS). The progress
 *    thread retries queues; a message queued longer than the liveness timeout
 *    is dropped (its node does not answer).
 *  - Receiving: OFI_RX_COUNT buffers stay posted. Whoever polls the CQ (the
 *    progress thread, or a thread waiting for its transfer) dispatches under
 *    poll_lock, so messages are handled in arrival order. Core messages and
 *    peer deaths become events that ops->progress hands to the core on the
 *    service thread (event_fd tells it there are some).
 *  - Liveness: peers we talk to get a heartbeat every liveness/4; one silent
 *    for liveness_ms is lost (peer_down -XRMA_ELOST); a BYE is an orderly close
 *    (-XRMA_ECONNRESET); a message from a new incarnation of a node means the
 *    old one died. Dead incarnations are remembered so late sends fail fast.
 *  - Requests: name look-ups and probes are a message and its answer, bounded
 *    by a timeout; a node absent from the node file is XRMA_ENODEV at once.
 *  - Serving: a SERVE message has the progress thread poll the target
 *    endpoint for serve_ms (ofi.h says why).
 */
#include "providers/ofi/ofi.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <xrma/errors.h>

#define POLL_BATCH 16
/* Without a CQ wait fd the progress thread polls, backing off to this pause. */
#define POLL_PAUSE_MAX_NS 1000000L
/* How long a close waits for its goodbyes to leave. */
#define BYE_DRAIN_MS 500
/* What a probe that may not wait (timeout 0) waits for an answer from a peer not in contact. */
#define PROBE_NOW_MS 500
/* How soon the progress thread retries sends libfabric refused (a connection being made). */
#define QUEUE_RETRY_MS 1
/* The most the progress thread's polling window grows to, in multiples of progress_spin_us. */
#define OFI_SPIN_WINDOW_GROWTH 16

/* ------------------------------------------------------------------ events */

static void wake_fd(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0) {
		/* Only fails on counter overflow, which still leaves the fd readable. */
	}
}

void ofi_progress_kick(struct ofi_ep *ep)
{
	wake_fd(ep->wake_fd);
}

static int event_push_locked(struct ofi_ep *ep, const struct xrma_prov_addr *addr, int status,
			     const void *data, size_t len)
{
	struct ofi_event *ev = malloc(sizeof(*ev) + len);

	if (!ev)
		return -XRMA_ENOMEM;
	ev->next = NULL;
	ev->addr = *addr;
	ev->status = status;
	ev->len = len;
	if (len)
		memcpy(ev->data, data, len);
	if (ep->ev_tail)
		ep->ev_tail->next = ev;
	else
		ep->ev_head = ev;
	ep->ev_tail = ev;
	wake_fd(ep->event_fd);
	return 0;
}

int ofi_progress_fd(void *state)
{
	struct ofi_ep *ep = state;

	return ep->event_fd;
}

int ofi_progress(void *state)
{
	struct ofi_ep *ep = state;
	struct ofi_event *ev;
	uint64_t count;

	if (read(ep->event_fd, &count, sizeof(count)) < 0) {
		/* EAGAIN: someone else took the count; the queue says what is left. */
	}
	pthread_mutex_lock(&ep->lock);
	ev = ep->ev_head;
	ep->ev_head = ep->ev_tail = NULL;
	pthread_mutex_unlock(&ep->lock);
	while (ev) {
		struct ofi_event *next = ev->next;

		if (ev->status)
			ep->upcalls.peer_down(ep->core, &ev->addr, ev->status);
		else
			ep->upcalls.ctrl_recv(ep->core, &ev->addr, ev->data, ev->len);
		free(ev);
		ev = next;
	}
	return 0;
}

/* ------------------------------------------------------------------ peers */

bool ofi_gone_locked(struct ofi_ep *ep, const struct xrma_prov_addr *addr, int *status)
{
	for (size_t i = 0; i < ep->gone_count; i++) {
		if (ep->gone[i].addr.node == addr->node && ep->gone[i].addr.ep == addr->ep) {
			if (status)
				*status = ep->gone[i].status;
			return true;
		}
	}
	return false;
}

static void tx_unlink_locked(struct ofi_ep *ep, struct ofi_tx *tx)
{
	if (tx->live_prev)
		tx->live_prev->live_next = tx->live_next;
	else
		ep->tx_live = tx->live_next;
	if (tx->live_next)
		tx->live_next->live_prev = tx->live_prev;
}

static void tx_free(struct ofi_tx *tx)
{
	if (tx->mr)
		fi_close(&tx->mr->fid);
	free(tx);
}

static void queue_drop_locked(struct ofi_ep *ep, struct ofi_peer *peer)
{
	while (peer->q_head) {
		struct ofi_tx *tx = peer->q_head;

		peer->q_head = tx->next;
		tx_unlink_locked(ep, tx);
		tx_free(tx);
	}
	peer->q_tail = NULL;
}

/* The incarnation peer->ep is gone: tell the core once, and remember it. */
static void peer_down_locked(struct ofi_ep *ep, struct ofi_peer *peer, int status)
{
	struct xrma_prov_addr addr = { .node = peer->node, .ep = peer->ep };

	if (peer->ep && !ofi_gone_locked(ep, &addr, NULL)) {
		ep->gone[ep->gone_next] = (struct ofi_gone){ .addr = addr, .status = status };
		ep->gone_next = (ep->gone_next + 1) % OFI_GONE_MAX;
		if (ep->gone_count < OFI_GONE_MAX)
			ep->gone_count++;
		event_push_locked(ep, &addr, status, NULL, 0);
		ofi_rma_owner_lost_locked(ep, &addr);
		/* The initiator endpoint may hold a connection to it: have it noticed closed. */
		atomic_store_explicit(&ep->rma_departed_ns, ofi_now_ns(), memory_order_relaxed);
		peer->rma_reconnect = true;
	}
	peer->ep = 0;
	peer->contact = false;
	queue_drop_locked(ep, peer);
}

/* A message from (node, src_ep) arrived: the peer is alive. False: ignore the message. */
static bool peer_heard_locked(struct ofi_ep *ep, struct ofi_peer *peer, uint32_t src_ep)
{
	struct xrma_prov_addr addr = { .node = peer->node, .ep = src_ep };

	if (!src_ep || ofi_gone_locked(ep, &addr, NULL))
		return false;
	if (peer->ep && peer->ep != src_ep)
		peer_down_locked(ep, peer, -XRMA_ELOST);   /* restarted: the old one died */
	if (!peer->contact)
		peer->last_beat_ns = 0;
	peer->ep = src_ep;
	peer->contact = true;
	peer->last_heard_ns = ofi_now_ns();
	return true;
}

/* ------------------------------------------------------------------ sending */

static int tx_post_locked(struct ofi_ep *ep, struct ofi_peer *peer, struct ofi_tx *tx)
{
	fi_addr_t addr;
	void *desc = NULL;
	int ret = ofi_peer_addr_locked(ep, peer, &addr);

	if (ret)
		return ret;
	if (ep->mr_mode & FI_MR_LOCAL) {
		if (!tx->mr && (ret = ofi_mem_local_desc(ep, tx->buf, tx->len, &desc, &tx->mr)))
			return ret;
		if (tx->mr)
			desc = fi_mr_desc(tx->mr);
	}
	ret = (int)fi_send(ep->ep, tx->buf, tx->len, desc, addr, &tx->op);
	return ret == -FI_EAGAIN ? -XRMA_EAGAIN : ofi_error(ret);
}

/* Send a provider message (and payload) to peer's endpoint dst_ep (0: whoever is there). */
static int send_locked(struct ofi_ep *ep, struct ofi_peer *peer, uint32_t kind, uint32_t dst_ep,
		       uint64_t req, int64_t arg0, int64_t arg1, const void *payload, size_t len)
{
	struct ofi_tx *tx = malloc(sizeof(*tx) + sizeof(struct ofi_hdr) + len);
	struct ofi_hdr hdr = {
		.magic = OFI_MAGIC,
		.kind = kind,
		.fabric = ep->fabric_hash,
		.src_node = ep->self.node,
		.src_ep = ep->self.ep,
		.dst_node = peer->node,
		.dst_ep = dst_ep,
		.req = req,
		.arg = { arg0, arg1 },
	};
	int ret;

	if (!tx)
		return -XRMA_ENOMEM;
	memset(tx, 0, sizeof(*tx));
	tx->op.kind = OFI_OP_TX;
	tx->len = sizeof(hdr) + len;
	tx->queued_ns = ofi_now_ns();
	memcpy(tx->buf, &hdr, sizeof(hdr));
	if (len)
		memcpy(tx->buf + sizeof(hdr), payload, len);
	ret = peer->q_head ? -XRMA_EAGAIN : tx_post_locked(ep, peer, tx);
	if (ret && ret != -XRMA_EAGAIN) {
		tx_free(tx);
		return ret;
	}
	tx->live_next = ep->tx_live;
	if (ep->tx_live)
		ep->tx_live->live_prev = tx;
	ep->tx_live = tx;
	if (ret == -XRMA_EAGAIN) {
		if (peer->q_tail)
			peer->q_tail->next = tx;
		else
			peer->q_head = tx;
		peer->q_tail = tx;
		wake_fd(ep->wake_fd);
	}
	return 0;
}

/*
 * Time since then. Stamps are taken under ep->lock by whichever thread sends or
 * receives, so one may be later than a now read before that thread let go of
 * the lock: such an age is 0, never a huge unsigned difference (which dropped
 * fresh messages and declared fresh peers lost).
 */
static uint64_t age_ns(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* Retry queued sends; drop what waited longer than the liveness timeout. */
/* Post what waits in the peers' queues; true if something still waits. */
static bool flush_queues_locked(struct ofi_ep *ep, uint64_t now)
{
	uint64_t limit = (uint64_t)ep->liveness_ms * 1000000ull;
	bool waiting = false;

	for (size_t i = 0; i < ep->peer_count; i++) {
		struct ofi_peer *peer = &ep->peers[i];

		while (peer->q_head) {
			struct ofi_tx *tx = peer->q_head;
			int ret = age_ns(now, tx->queued_ns) > limit ? -XRMA_ETIMEDOUT
							       : tx_post_locked(ep, peer, tx);

			if (ret == -XRMA_EAGAIN) {
				waiting = true;
				break;
			}
			peer->q_head = tx->next;
			if (!peer->q_head)
				peer->q_tail = NULL;
			tx->next = NULL;
			if (ret) {
				tx_unlink_locked(ep, tx);
				tx_free(tx);
			}
		}
	}
	return waiting;
}

int ofi_ctrl_send(void *state, const struct xrma_prov_addr *dst, const void *msg, size_t len)
{
	struct ofi_ep *ep = state;
	struct ofi_peer *peer;
	int status, ret;

	if (!dst || (!msg && len) || len > OFI_MSG_MAX)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&ep->lock);
	peer = ofi_peer_find(ep, dst->node);
	if (!peer) {
		ret = -XRMA_ENODEV;
	} else if (dst->node == ep->self.node) {
		/* To ourselves (a connection within the node): straight into our own event queue. */
		ret = dst->ep != ep->self.ep ? -XRMA_ELOST
		      : ep->closing          ? -XRMA_ECANCELED
					     : event_push_locked(ep, &ep->self, 0, msg, len);
	} else if (ep->closing) {
		ret = -XRMA_ECANCELED;
	} else if (ofi_gone_locked(ep, dst, &status)) {
		ret = status;
	} else if (peer->ep && peer->ep != dst->ep) {
		ret = -XRMA_ELOST;   /* the node restarted since dst was learnt */
	} else {
		if (!peer->contact) {
			/* From now on we watch it; silence counts from here. */
			peer->contact = true;
			peer->last_heard_ns = ofi_now_ns();
			peer->last_beat_ns = 0;
		}
		peer->ep = dst->ep;
		ret = send_locked(ep, peer, OFI_MSG_CTRL, dst->ep, 0, 0, 0, msg, len);
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

/* ------------------------------------------------------------------ requests */

static void req_finish_locked(struct ofi_ep *ep, uint32_t node, uint64_t id, int status, uint32_t src_ep)
{
	for (struct ofi_req *r = ep->reqs; r; r = r->next) {
		if (r->id == id && r->node == node && !r->done) {
			r->done = true;
			r->status = status;
			r->ep = src_ep;
			pthread_cond_broadcast(&ep->req_cond);
			return;
		}
	}
}

static void req_unlink_locked(struct ofi_ep *ep, struct ofi_req *req)
{
	for (struct ofi_req **pp = &ep->reqs; *pp; pp = &(*pp)->next) {
		if (*pp == req) {
			*pp = req->next;
			return;
		}
	}
}

static void deadline_after(struct timespec *ts, int timeout_ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += timeout_ms / 1000;
	ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Send kind to each of nodes[0..n) and wait until all answered or timeout_ms passed. */
static int request_many(struct ofi_ep *ep, uint32_t kind, const uint32_t *nodes, size_t n,
			int64_t arg0, int64_t arg1, int timeout_ms, struct ofi_req *reqs)
{
	struct timespec deadline;
	size_t pending = 0;
	int ret = 0;

	deadline_after(&deadline, timeout_ms);
	pthread_mutex_lock(&ep->lock);
	for (size_t i = 0; i < n; i++) {
		struct ofi_peer *peer = ofi_peer_find(ep, nodes[i]);

		reqs[i] = (struct ofi_req){ .id = ep->next_req++, .node = nodes[i],
					    .status = -XRMA_EHOSTUNREACH };
		if (!peer) {
			reqs[i].done = true;
			reqs[i].status = -XRMA_ENODEV;
			continue;
		}
		ret = ep->closing ? -XRMA_ECANCELED
				  : send_locked(ep, peer, kind, 0, reqs[i].id, arg0, arg1, NULL, 0);
		if (ret) {
			reqs[i].done = true;
			reqs[i].status = ret;
			continue;
		}
		reqs[i].next = ep->reqs;
		ep->reqs = &reqs[i];
		pending++;
	}
	while (pending) {
		size_t done = 0;

		for (size_t i = 0; i < n; i++)
			done += reqs[i].done;
		if (done == n)
			break;
		if (pthread_cond_timedwait(&ep->req_cond, &ep->lock, &deadline) == ETIMEDOUT)
			break;
	}
	for (size_t i = 0; i < n; i++)
		req_unlink_locked(ep, &reqs[i]);
	pthread_mutex_unlock(&ep->lock);
	return 0;
}

int ofi_name_lookup(void *state, uint32_t node, enum xrma_ns ns, uint64_t id,
		    struct xrma_prov_addr *owner)
{
	struct ofi_ep *ep = state;
	struct ofi_req req;

	if ((unsigned)ns >= XRMA_NS_COUNT || !owner)
		return -XRMA_EINVAL;
	if (node == ep->self.node) {
		if (!ofi_names_has(ep, ns, id))
			return -XRMA_ENOENT;
		*owner = ep->self;
		return 0;
	}
	if (!ofi_peer_find(ep, node)) {
		ofi_detail("ofi: node %u is not in the node file", node);
		return -XRMA_ENODEV;
	}
	request_many(ep, OFI_MSG_LOOKUP, &node, 1, ns, (int64_t)id, ep->liveness_ms, &req);
	if (!req.done) {
		ofi_detail("ofi: node %u did not answer within ofi.liveness_ms=%d", node, ep->liveness_ms);
		return -XRMA_EHOSTUNREACH;
	}
	if (req.status)
		return req.status;
	*owner = (struct xrma_prov_addr){ .node = node, .ep = req.ep };
	return 0;
}

int ofi_node_probe(void *state, uint32_t node, int timeout_ms)
{
	struct ofi_ep *ep = state;
	struct ofi_req req;

	struct ofi_peer *peer;
	bool contact;

	if (node == ep->self.node)
		return 0;
	peer = ofi_peer_find(ep, node);
	if (!peer)
		return -XRMA_ENODEV;
	pthread_mutex_lock(&ep->lock);
	contact = peer->contact;
	pthread_mutex_unlock(&ep->lock);
	/* A peer we hear from is reachable: liveness drops it once it falls silent. */
	if (contact)
		return 0;
	/* A network has no link state to read: "now" is one short round trip. */
	if (timeout_ms == 0)
		timeout_ms = PROBE_NOW_MS;
	if (timeout_ms < 0 || timeout_ms > ep->liveness_ms)
		timeout_ms = ep->liveness_ms;
	request_many(ep, OFI_MSG_PING, &node, 1, 0, 0, timeout_ms, &req);
	if (!req.done)
		return -XRMA_EHOSTUNREACH;
	return req.status;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int ofi_node_list(void *state, uint32_t *ids, size_t max, size_t *count)
{
	struct ofi_ep *ep = state;
	uint32_t *nodes = calloc(2 * (ep->peer_count + 1), sizeof(*nodes)), *ask;
	struct ofi_req *reqs = calloc(ep->peer_count + 1, sizeof(*reqs));
	size_t n = 0, live = 1;
	/* Nodes listed but down never answer: a short bound keeps listing cheap. */
	int wait_ms = ep->liveness_ms / 2 < PROBE_NOW_MS ? ep->liveness_ms / 2 : PROBE_NOW_MS;
	uint64_t now, memory = (uint64_t)ep->liveness_ms * 1000000ull;

	if (!nodes || !reqs) {
		free(nodes);
		free(reqs);
		return -XRMA_ENOMEM;
	}
	ask = nodes + ep->peer_count + 1;
	nodes[0] = ep->self.node;
	/*
	 * Peers we hear from are live (liveness drops them when silent). Those that did not
	 * answer a listing within the last liveness_ms count as down without being asked
	 * (one that comes back and contacts us is in contact again); the rest are asked at once.
	 */
	pthread_mutex_lock(&ep->lock);
	now = ofi_now_ns();
	for (size_t i = 0; i < ep->peer_count; i++) {
		struct ofi_peer *peer = &ep->peers[i];

		if (peer->node == ep->self.node)
			continue;
		if (peer->contact)
			nodes[live++] = peer->node;
		else if (!peer->silent_ns || age_ns(now, peer->silent_ns) > memory)
			ask[n++] = peer->node;
	}
	pthread_mutex_unlock(&ep->lock);
	request_many(ep, OFI_MSG_PING, ask, n, 0, 0, wait_ms, reqs);
	pthread_mutex_lock(&ep->lock);
	now = ofi_now_ns();
	for (size_t i = 0; i < n; i++) {
		struct ofi_peer *peer = ofi_peer_find(ep, reqs[i].node);

		if (reqs[i].done && !reqs[i].status)
			nodes[live++] = reqs[i].node;
		else
			peer->silent_ns = now;
	}
	pthread_mutex_unlock(&ep->lock);
	qsort(nodes, live, sizeof(*nodes), cmp_u32);
	for (size_t i = 0; i < live && i < max; i++)
		ids[i] = nodes[i];
	*count = live;
	free(nodes);
	free(reqs);
	return 0;
}

/* ------------------------------------------------------------------ serving */

/* Poll the target endpoint until serve_ns from now (never earlier than already asked). */
static void serve_locked(struct ofi_ep *ep, uint64_t now)
{
	uint64_t until = now + ep->serve_ns;

	if (atomic_load_explicit(&ep->serve_until_ns, memory_order_relaxed) < until)
		atomic_store_explicit(&ep->serve_until_ns, until, memory_order_relaxed);
}

void ofi_serve_ask_locked(struct ofi_ep *ep, struct ofi_peer *peer, uint32_t owner_ep, uint64_t now)
{
	uint64_t due = peer->serve_asked_ns + ep->serve_ns / 2;

	/* Posters come here for every transfer: most are told by the coarse clock it is not time. */
	if (!now && peer->serve_asked_ns && ofi_coarse_ns() + ep->coarse_slack_ns < due)
		return;
	if (!now)
		now = ofi_now_ns();
	if (peer->serve_asked_ns && now < due)
		return;
	peer->serve_asked_ns = now;
	if (peer->node == ep->self.node)
		serve_locked(ep, now);   /* our own memory: our own thread serves it */
	else
		send_locked(ep, peer, OFI_MSG_SERVE, owner_ep, 0, 0, 0, NULL, 0);
}

/*
 * Let libfabric serve the peers' reads and writes that arrive at serve_ep.
 * Nothing is posted there, so nothing completes; an error entry (a broken
 * connection of some peer's) is read and dropped so it cannot block the CQ.
 */
static void serve_poll(struct ofi_ep *ep)
{
	struct fi_cq_err_entry err = { 0 };

	if (fi_cq_read(ep->serve_cq, NULL, 0) == -FI_EAVAIL)
		fi_cq_readerr(ep->serve_cq, &err, 0);
}

/* Whether a peer's SERVE still has the target endpoint polled at now. */
static bool serving(struct ofi_ep *ep, uint64_t now)
{
	return ep->serve_ep && now < atomic_load_explicit(&ep->serve_until_ns, memory_order_relaxed);
}

/* ------------------------------------------------------------------ receiving */

static void handle_msg(struct ofi_ep *ep, const unsigned char *buf, size_t len)
{
	struct ofi_hdr hdr;
	struct ofi_peer *peer;
	struct xrma_prov_addr src;
	int status;

	if (len < sizeof(hdr))
		return;
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.magic != OFI_MAGIC || hdr.fabric != ep->fabric_hash || hdr.dst_node != ep->self.node ||
	    (hdr.dst_ep && hdr.dst_ep != ep->self.ep))
		return;   /* not for us, or for an earlier incarnation of this node */
	/* Names are read before ep->lock is taken: the two locks are never nested. */
	status = 0;
	if (hdr.kind == OFI_MSG_LOOKUP &&
	    ((uint64_t)hdr.arg[0] >= XRMA_NS_COUNT ||
	     !ofi_names_has(ep, (enum xrma_ns)hdr.arg[0], (uint64_t)hdr.arg[1])))
		status = -XRMA_ENOENT;
	src = (struct xrma_prov_addr){ .node = hdr.src_node, .ep = hdr.src_ep };
	pthread_mutex_lock(&ep->lock);
	peer = ofi_peer_find(ep, hdr.src_node);
	if (!peer || peer->node == ep->self.node || !peer_heard_locked(ep, peer, hdr.src_ep))
		goto out;
	switch (hdr.kind) {
	case OFI_MSG_CTRL:
		event_push_locked(ep, &src, 0, buf + sizeof(hdr), len - sizeof(hdr));
		break;
	case OFI_MSG_BYE:
		peer_down_locked(ep, peer, -XRMA_ECONNRESET);
		break;
	case OFI_MSG_LOOKUP:
		send_locked(ep, peer, OFI_MSG_LOOKUP_REPLY, hdr.src_ep, hdr.req, status, 0, NULL, 0);
		break;
	case OFI_MSG_PING:
		send_locked(ep, peer, OFI_MSG_PONG, hdr.src_ep, hdr.req, 0, 0, NULL, 0);
		break;
	case OFI_MSG_LOOKUP_REPLY:
		status = hdr.arg[0] == -XRMA_ENOENT ? -XRMA_ENOENT : hdr.arg[0] ? -XRMA_EPROTO : 0;
		req_finish_locked(ep, hdr.src_node, hdr.req, status, hdr.src_ep);
		break;
	case OFI_MSG_PONG:
		req_finish_locked(ep, hdr.src_node, hdr.req, 0, hdr.src_ep);
		break;
	case OFI_MSG_SERVE:
		serve_locked(ep, ofi_now_ns());
		break;
	default:
		break;   /* heartbeats only refresh liveness */
	}
out:
	pthread_mutex_unlock(&ep->lock);
}

/* Post a receive buffer; one libfabric cannot take now is retried by the progress thread. */
static void rx_post(struct ofi_ep *ep, struct ofi_rx *rx)
{
	void *desc = ep->rx_mr ? fi_mr_desc(ep->rx_mr) : NULL;
	int ret;

	/* The queue has room for every buffer we own; EAGAIN only asks for progress. */
	for (int tries = 0; tries < 100; tries++) {
		ret = (int)fi_recv(ep->ep, rx->buf, sizeof(rx->buf), desc, FI_ADDR_UNSPEC, &rx->op);
		if (ret != -FI_EAGAIN) {
			rx->posted = !ret;
			if (ret)
				break;
			return;
		}
		fi_cq_read(ep->cq, NULL, 0);
	}
	rx->posted = false;
	atomic_store(&ep->rx_unposted, true);
}

/* Repost buffers an earlier rx_post could not (poll_lock held). */
static void rx_repost_locked(struct ofi_ep *ep)
{
	if (!atomic_exchange(&ep->rx_unposted, false))
		return;
	for (int i = 0; i < OFI_RX_COUNT; i++)
		if (!ep->rx[i].posted)
			rx_post(ep, &ep->rx[i]);
}

/*
 * The transfers on rma_ep a completion read ended, counted once for each run
 * of them to one served peer (ofi_rma_ended: two atomic operations), not once
 * for each transfer.
 */
struct rma_tally {
	struct ofi_peer *served;
	unsigned int run;
	bool any;
};

static void tally_run_end(struct ofi_ep *ep, struct rma_tally *t)
{
	if (t->run)
		ofi_rma_ended(ep, t->served, t->run);
	t->run = 0;
}

static void tally_add(struct ofi_ep *ep, struct rma_tally *t, struct ofi_peer *served)
{
	if (served != t->served) {
		tally_run_end(ep, t);
		t->served = served;
	}
	t->run++;
	t->any = true;
}

static void tally_flush(struct ofi_ep *ep, struct rma_tally *t)
{
	tally_run_end(ep, t);
	if (t->any)
		atomic_store_explicit(&ep->rma_moved_ns, ofi_now_ns(), memory_order_relaxed);
	t->any = false;
}

/* *tally: the read's transfers on rma_ep; *finished: its asynchronous ones that ended (ofi_rma_finish). */
static void complete_one(struct ofi_ep *ep, void *context, size_t len, int err,
			 struct rma_tally *tally, struct ofi_rma_wait **finished)
{
	struct ofi_op *op = context;

	if (!op)
		return;
	switch (op->kind) {
	case OFI_OP_RX:
		((struct ofi_rx *)op)->posted = false;
		if (!err)
			handle_msg(ep, ((struct ofi_rx *)op)->buf, len);
		if (err != -XRMA_ECANCELED && !atomic_load(&ep->stop))
			rx_post(ep, (struct ofi_rx *)op);
		break;
	case OFI_OP_TX:
		pthread_mutex_lock(&ep->lock);
		tx_unlink_locked(ep, (struct ofi_tx *)op);
		if (!ep->tx_live && ep->closing)
			pthread_cond_broadcast(&ep->req_cond);   /* a closing endpoint waits for this */
		pthread_mutex_unlock(&ep->lock);
		tx_free((struct ofi_tx *)op);
		break;
	case OFI_OP_RMA:
		if (!((struct ofi_rma_wait *)op)->on_control)
			tally_add(ep, tally, ((struct ofi_rma_wait *)op)->served);
		ofi_rma_complete(ep, (struct ofi_rma_wait *)op, err, finished);
		break;
	}
}

/* Read and dispatch; the caller holds cq's poll lock. */
static int cq_poll_locked(struct ofi_ep *ep, struct fid_cq *cq)
{
	struct fi_cq_data_entry entries[POLL_BATCH];
	int handled = 0;

	for (;;) {
		ssize_t n = fi_cq_read(cq, entries, POLL_BATCH);
		struct ofi_rma_wait *finished = NULL;
		struct rma_tally tally = { 0 };

		if (n == -FI_EAVAIL) {
			struct fi_cq_err_entry err = { 0 };

			if (fi_cq_readerr(cq, &err, 0) == 1) {
				int code = err.err == FI_ECANCELED ? -XRMA_ECANCELED : ofi_error(-(int)err.err);

				if (!code)
					code = -XRMA_ETRANSFER;
				complete_one(ep, err.op_context, 0, code, &tally, &finished);
				tally_flush(ep, &tally);
				ofi_rma_finish(ep, finished);
				handled++;
			}
			continue;
		}
		if (n <= 0)
			return handled;
		for (ssize_t i = 0; i < n; i++)
			complete_one(ep, entries[i].op_context, entries[i].len, 0, &tally, &finished);
		tally_flush(ep, &tally);
		ofi_rma_finish(ep, finished);
		handled += (int)n;
		if (n < POLL_BATCH)
			return handled;
	}
}

int ofi_cq_poll(struct ofi_ep *ep)
{
	int n;

	/* Someone else is polling: what they read they dispatch, in order. */
	if (pthread_mutex_trylock(&ep->poll_lock))
		return 0;
	n = cq_poll_locked(ep, ep->cq);
	pthread_mutex_unlock(&ep->poll_lock);
	return n;
}

int ofi_rma_cq_poll(struct ofi_ep *ep)
{
	int n;

	if (!ep->rma_separate)
		return ofi_cq_poll(ep);
	/* Transfers complete in any order: a reader who finds the lock taken has nothing to keep. */
	if (pthread_mutex_trylock(&ep->rma_poll_lock))
		return 0;
	n = cq_poll_locked(ep, ep->rma_cq);
	pthread_mutex_unlock(&ep->rma_poll_lock);
	return n;
}

/*
 * The application drives progress. The target endpoint is read on every call,
 * since a peer's write lands only when it is read and the caller is most
 * likely waiting for one; the control CQ, whose messages are rarer, on one
 * call in OFI_APP_CONTROL_EVERY (every call when transfers arrive there too);
 * the initiator CQ while transfers are in flight or a peer has just left.
 */
int ofi_app_progress(void *state)
{
	struct ofi_ep *ep = state;
	int n = 0;

	atomic_store_explicit(&ep->app_driven_ns, ofi_now_ns(), memory_order_relaxed);
	if (!pthread_mutex_trylock(&ep->poll_lock)) {
		if (ep->serve_ep)
			serve_poll(ep);
		if (!ep->serve_ep || ep->app_turn++ % OFI_APP_CONTROL_EVERY == 0) {
			n = cq_poll_locked(ep, ep->cq);
			rx_repost_locked(ep);
		}
		pthread_mutex_unlock(&ep->poll_lock);
	}
	if (ep->rma_separate && (ofi_rma_inflight(ep) > 0 || ofi_departed_recently(ep)))
		n += ofi_rma_cq_poll(ep);
	return n;
}

/* Whether the application drove progress lately enough for the thread to rest. */
static bool app_driving(struct ofi_ep *ep, uint64_t now)
{
	uint64_t at = atomic_load_explicit(&ep->app_driven_ns, memory_order_relaxed);

	return at && age_ns(now, at) < OFI_APP_DRIVE_NS;
}

void ofi_drive(void *state, bool on)
{
	struct ofi_ep *ep = state;

	if (!on)
		atomic_store_explicit(&ep->driven_ns, ofi_now_ns(), memory_order_relaxed);
	atomic_fetch_add_explicit(&ep->driving, on ? 1 : -1, memory_order_relaxed);
}

/* ------------------------------------------------------------------ the progress thread */

/* Heartbeats, lost peers, and SERVE again for transfers in flight; true if there are any. */
static bool liveness_locked(struct ofi_ep *ep, uint64_t now)
{
	uint64_t limit = (uint64_t)ep->liveness_ms * 1000000ull, beat = limit / 4;
	bool asking = false;

	for (size_t i = 0; i < ep->peer_count; i++) {
		struct ofi_peer *peer = &ep->peers[i];

		/* A transfer outlasting the owner's serve window: ask again. */
		if (atomic_load_explicit(&peer->rma_inflight, memory_order_relaxed) > 0 && peer->ep) {
			ofi_serve_ask_locked(ep, peer, peer->ep, now);
			asking = true;
		}
		if (!peer->contact)
			continue;
		if (age_ns(now, peer->last_heard_ns) > limit) {
			peer_down_locked(ep, peer, -XRMA_ELOST);
			/*
			 * Silent is not dead: a stopped process keeps its connections, and
			 * our operations on them stay libfabric's until its address goes
			 * (ofi_av_purge, which the caller runs once the lock is let go).
			 */
			ofi_peer_forget_locked(ep, peer);
			continue;
		}
		if (age_ns(now, peer->last_beat_ns) >= beat) {
			peer->last_beat_ns = now;
			send_locked(ep, peer, OFI_MSG_HEARTBEAT, peer->ep, 0, 0, 0, NULL, 0);
		}
	}
	return asking;
}

/*
 * The next polling window, after a sleep of slept ns that traffic ended. A
 * target's RMA traffic completes nothing in its CQ, so the thread cannot see
 * a stream it serves; a sleep cut short by traffic is the sign of one, and
 * the window doubles (to OFI_SPIN_WINDOW_GROWTH times the base) so the next
 * message finds the thread awake. A long sleep brings it back to the base.
 */
static uint64_t spin_window(const struct ofi_ep *ep, uint64_t window, uint64_t slept)
{
	uint64_t max = ep->progress_spin_ns * OFI_SPIN_WINDOW_GROWTH;

	if (slept >= window)
		return ep->progress_spin_ns;
	return window * 2 > max ? max : window * 2;
}

bool ofi_departed_recently(struct ofi_ep *ep)
{
	uint64_t at = atomic_load_explicit(&ep->rma_departed_ns, memory_order_relaxed);

	/* No clock read on the way to a post until some peer has left. */
	return ep->rma_separate && at && age_ns(ofi_now_ns(), at) < OFI_DEPARTED_POLL_NS;
}

/*
 * Whether transfers on a separate initiator endpoint need the progress thread
 * to keep polling: some are in flight and one moved within the liveness
 * timeout. Its CQ has no wait object, so the thread cannot sleep on it; a
 * transfer stuck longer (an owner that died) is polled at QUEUE_RETRY_MS.
 */
static bool rma_busy(struct ofi_ep *ep, uint64_t now)
{
	uint64_t moved = atomic_load_explicit(&ep->rma_moved_ns, memory_order_relaxed);

	return ep->rma_separate && ofi_rma_inflight(ep) > 0 &&
	       age_ns(now, moved) < (uint64_t)ep->liveness_ms * 1000000ull;
}

/*
 * The progress thread. tcp and rxm move data only when someone polls, and on
 * a busy host waking a sleeping thread costs more than the message, so after
 * traffic the thread keeps polling for a window (progress_spin_ns, grown by
 * spin_window while traffic keeps cutting its sleeps short), yielding
 * between polls so that threads sharing its CPU (an application spinning on
 * memory the peer writes) still run; then it sleeps on the control CQ's wait
 * fd. While an application thread drives the transfers' CQ itself
 * (ofi_drive), and for OFI_DRIVER_GRACE_NS after it last drove or posted,
 * the thread leaves that CQ to it but does not sleep: the driver may stop at
 * any moment and a reply may follow. Transfers on a separate
 * initiator endpoint keep it polling while they move (rma_busy).
 */
static void *progress_main(void *arg)
{
	struct ofi_ep *ep = arg;
	int beat_ms = ep->liveness_ms / 8 > 1 ? ep->liveness_ms / 8 : 1;
	long pause_ns = 1000;
	uint64_t spin_until = 0, window = ep->progress_spin_ns, slept_at = 0, post_seen_ns = 0;
	unsigned int posts_seen = atomic_load(&ep->rma_posted);

	while (!atomic_load(&ep->stop)) {
		/* One clock read for the turn's decisions; the bookkeeping below reads it again. */
		uint64_t now = ofi_now_ns();
		unsigned int posts = atomic_load_explicit(&ep->rma_posted, memory_order_relaxed);
		bool driven, inflight, served = serving(ep, now), resting = app_driving(ep, now);
		struct epoll_event ev[2];
		bool queued, asking, purge;
		int n = 0;

		/* Posters read no clock: a post is timed when this thread first sees it. */
		if (posts != posts_seen) {
			posts_seen = posts;
			post_seen_ns = now;
			atomic_store_explicit(&ep->rma_moved_ns, now, memory_order_relaxed);
		}
		driven = atomic_load_explicit(&ep->driving, memory_order_relaxed) != 0 ||
			 age_ns(now, atomic_load_explicit(&ep->driven_ns, memory_order_relaxed)) <
				 OFI_DRIVER_GRACE_NS ||
			 age_ns(now, post_seen_ns) < OFI_DRIVER_GRACE_NS;
		inflight = ep->rma_separate && ofi_rma_inflight(ep) > 0;

		/*
		 * Never wait for a lock: whoever holds it dispatches what it reads, in
		 * order. Peers' transfers are served under the same lock, so whoever
		 * dispatches a peer's message sent after its transfer completed finds
		 * the transfer's bytes stored before it, as on one endpoint.
		 */
		if (!resting && (ep->rma_separate || !driven) && !pthread_mutex_trylock(&ep->poll_lock)) {
			if (served)
				serve_poll(ep);
			n = cq_poll_locked(ep, ep->cq);
			rx_repost_locked(ep);
			pthread_mutex_unlock(&ep->poll_lock);
		}
		pthread_mutex_lock(&ep->lock);
		now = ofi_now_ns();
		queued = flush_queues_locked(ep, now);
		asking = liveness_locked(ep, now);
		ofi_rma_lost_overdue_locked(ep, now);
		purge = ep->av_doomed_count != 0;
		pthread_mutex_unlock(&ep->lock);
		if (purge)
			ofi_av_purge(ep);
		/*
		 * The application polls the endpoints itself (ofi_app_progress): a turn
		 * of ours would only take the CPU from it. The sends waiting for a
		 * connection and the liveness beats above are all we keep doing.
		 */
		if (resting) {
			struct timespec rest = { .tv_sec = 0, .tv_nsec = OFI_APP_REST_NS };

			nanosleep(&rest, NULL);
			continue;
		}
		/* Transfers in flight, or connections of peers that just left to notice closed. */
		if (!driven && (inflight || ofi_departed_recently(ep)))
			n += ofi_rma_cq_poll(ep);
		if (n || driven)
			spin_until = now + window;
		if (n)
			continue;
		/*
		 * Not asleep while a driver reads the CQ: it may stop at once, and a
		 * reply may follow. Never asleep with progress_wait = busy.
		 */
		if (driven || served || now < spin_until || rma_busy(ep, now) || ep->progress_busy) {
			sched_yield();
			continue;
		}
		if (ep->cq_fd >= 0) {
			struct fid *fids[1] = { &ep->cq->fid };
			/* Only sleep when libfabric says nothing is left to progress. */
			if (fi_trywait(ep->fabric, fids, 1) != FI_SUCCESS)
				continue;
			/* A transfer posted after this finds us asleep and kicks us (ofi_rma_posting). */
			atomic_store(&ep->progress_asleep, true);
			if (atomic_load(&ep->rma_posted) != posts) {
				atomic_store(&ep->progress_asleep, false);
				continue;
			}
			/*
			 * Sends waiting for a connection, and stuck transfers, are retried
			 * soon; so is SERVE for transfers longer than the owner's window.
			 */
			slept_at = now;
			n = epoll_wait(ep->epfd, ev, 2,
				       queued || inflight || asking ? QUEUE_RETRY_MS : beat_ms);
			atomic_store(&ep->progress_asleep, false);
		} else {
			/* No wait object: poll with a pause that grows while idle. */
			struct timespec ts = { .tv_sec = 0, .tv_nsec = pause_ns };

			n = epoll_wait(ep->epfd, ev, 2, 0);
			if (n <= 0)
				nanosleep(&ts, NULL);
			pause_ns = n > 0 ? 1000 : pause_ns * 2 > POLL_PAUSE_MAX_NS ? POLL_PAUSE_MAX_NS
										   : pause_ns * 2;
		}
		if (n > 0) {
			now = ofi_now_ns();
			window = spin_window(ep, window, slept_at ? now - slept_at : UINT64_MAX);
			slept_at = 0;
			spin_until = now + window;
		}
		for (int i = 0; i < n; i++) {
			if (ev[i].data.u32 == 1) {
				uint64_t count;

				if (read(ep->wake_fd, &count, sizeof(count)) < 0) {
					/* Already drained. */
				}
			}
		}
	}
	return NULL;
}

int ofi_control_start(struct ofi_ep *ep)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ret = -XRMA_ENOMEM;

	ep->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ep->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ep->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ep->event_fd < 0 || ep->wake_fd < 0 || ep->epfd < 0)
		goto err;
	ev.data.u32 = 1;
	if (epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->wake_fd, &ev))
		goto err;
	ev.data.u32 = 2;
	if (ep->cq_fd >= 0 && epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->cq_fd, &ev))
		ep->cq_fd = -1;   /* not an fd epoll takes: poll instead */
	ep->rx = calloc(OFI_RX_COUNT, sizeof(*ep->rx));
	if (!ep->rx)
		goto err;
	if ((ep->mr_mode & FI_MR_LOCAL) &&
	    fi_mr_reg(ep->domain, ep->rx, OFI_RX_COUNT * sizeof(*ep->rx), FI_RECV, 0, 0, 0, &ep->rx_mr,
		      NULL)) {
		ret = -XRMA_EIO;
		goto err;
	}
	atomic_init(&ep->rx_unposted, false);
	for (int i = 0; i < OFI_RX_COUNT; i++) {
		ep->rx[i].op.kind = OFI_OP_RX;
		rx_post(ep, &ep->rx[i]);
	}
	atomic_init(&ep->stop, false);
	if (pthread_create(&ep->thread, NULL, progress_main, ep))
		goto err;
	/* Beside xrma-service and xrma-dma in ps -L and top -H. */
	pthread_setname_np(ep->thread, "xrma-ofi");
	return 0;
err:
	ofi_detail("ofi: cannot start the progress machinery");
	/* Receives may be posted: the caller closes the endpoint, then we free. */
	return ret;
}

/*
 * From now on nothing is sent but a goodbye to each peer in contact; the
 * progress thread pushes them out, and we wait (bounded) until they left.
 * Once is enough: a second call finds the endpoint closing and returns.
 */
void ofi_depart(void *state)
{
	struct ofi_ep *ep = state;
	struct timespec deadline;

	deadline_after(&deadline, BYE_DRAIN_MS);
	pthread_mutex_lock(&ep->lock);
	if (!ep->closing) {
		ep->closing = true;
		for (size_t i = 0; i < ep->peer_count; i++)
			if (ep->peers[i].contact)
				send_locked(ep, &ep->peers[i], OFI_MSG_BYE, ep->peers[i].ep, 0, 0, 0,
					    NULL, 0);
		while (ep->tx_live)
			if (pthread_cond_timedwait(&ep->req_cond, &ep->lock, &deadline) == ETIMEDOUT)
				break;
	}
	pthread_mutex_unlock(&ep->lock);
}

void ofi_control_stop(struct ofi_ep *ep)
{
	ofi_depart(ep);
	atomic_store(&ep->stop, true);
	wake_fd(ep->wake_fd);
	pthread_join(ep->thread, NULL);
}

void ofi_control_release(struct ofi_ep *ep)
{
	struct ofi_event *ev;

	for (size_t i = 0; i < ep->peer_count; i++)
		queue_drop_locked(ep, &ep->peers[i]);
	while (ep->tx_live) {
		struct ofi_tx *tx = ep->tx_live;

		tx_unlink_locked(ep, tx);
		tx_free(tx);
	}
	ofi_rma_release(ep);
	while ((ev = ep->ev_head)) {
		ep->ev_head = ev->next;
		free(ev);
	}
	ep->ev_tail = NULL;
	if (ep->rx_mr)
		fi_close(&ep->rx_mr->fid);
	free(ep->rx);
	ep->rx = NULL;
	if (ep->epfd >= 0)
		close(ep->epfd);
	if (ep->wake_fd >= 0)
		close(ep->wake_fd);
	if (ep->event_fd >= 0)
		close(ep->event_fd);
}
