/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/pximc/pximc_control.c: the control channel over PXImc. Each remote system (an
 * interface of the Dispatcher) gets one control session: a logical peer window pair with a
 * fixed protocol number (crossing peer requests pair exactly once, docs/pximc.md). Each side
 * produces into the partner's local window through its mapped remote address and consumes
 * its own: single producer, single consumer, assertEvent as the doorbell. A thread per
 * session waits for its events, consumes, answers provider requests and queues core messages
 * for the service thread, which progress() delivers through an eventfd. Node ids come from
 * the HELLO each side sends first, not from interface numbering, so any vendor will do.
 */
#include "providers/pximc/pximc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xrma/errors.h>

#define PXP_REC_HDR 8u

static size_t pxp_round8(size_t n)
{
	return (n + 7u) & ~(size_t)7u;
}

static struct pxp_ring_hdr *pxp_local_hdr(struct pxp_peer *peer)
{
	return (struct pxp_ring_hdr *)(void *)peer->local;
}

static struct pxp_ring_hdr *pxp_remote_hdr(struct pxp_peer *peer)
{
	return (struct pxp_ring_hdr *)(void *)peer->remote;
}

static void pxp_kick(struct pxp_prov *p)
{
	uint64_t one = 1;

	if (write(p->event_fd, &one, sizeof(one)) < 0) {
		/* Saturated: the service thread is due to wake anyway. */
	}
}

/* Queue work for the service thread. Under p->lock. */
static void pxp_inbound_push(struct pxp_prov *p, struct pxp_inbound *in)
{
	in->next = NULL;
	if (p->in_tail)
		p->in_tail->next = in;
	else
		p->in_head = in;
	p->in_tail = in;
	pxp_kick(p);
}

static struct pxp_inbound *pxp_inbound_new(int kind, const struct xrma_prov_addr *src,
					   const void *data, size_t len)
{
	struct pxp_inbound *in = calloc(1, sizeof(*in) + len);

	if (!in)
		return NULL;
	in->kind = kind;
	in->src = *src;
	in->len = len;
	if (len)
		memcpy(in->data, data, len);
	return in;
}

/* ------------------------------------------------------------------ the ring */

/* Write one record if it fits. Under send_lock, ring set. */
static bool pxp_ring_put(struct pxp_peer *peer, uint32_t kind, const void *data, uint32_t len)
{
	size_t size = peer->data_len, rec = PXP_REC_HDR + pxp_round8(len);
	uint64_t ack = atomic_load_explicit(&pxp_local_hdr(peer)->ack, memory_order_acquire);
	size_t pos = peer->prod % size, tail = size - pos;
	size_t need = rec + (tail < rec ? tail : 0);
	unsigned char *ring = peer->remote + PXP_RING_HEADER;
	uint32_t head[2];

	if (need > size - (size_t)(peer->prod - ack))
		return false;
	if (tail < rec) {
		head[0] = 0;
		head[1] = PXP_MSG_PAD;
		memcpy(ring + pos, head, sizeof(head));
		peer->prod += tail;
		pos = 0;
	}
	head[0] = len;
	head[1] = kind;
	memcpy(ring + pos, head, sizeof(head));
	if (len)
		memcpy(ring + pos + PXP_REC_HDR, data, len);
	peer->prod += rec;
	return true;
}

/* Move queued records into the ring; ask the partner to tell us when room appears. */
static bool pxp_flush_locked(struct pxp_peer *peer)
{
	bool wrote = false;

	for (int round = 0; round < 2; round++) {
		while (peer->q_head && pxp_ring_put(peer, peer->q_head->kind, peer->q_head->data,
						    peer->q_head->len)) {
			struct pxp_qrec *q = peer->q_head;

			peer->q_head = q->next;
			if (!peer->q_head)
				peer->q_tail = NULL;
			free(q);
			wrote = true;
		}
		if (!peer->q_head)
			break;
		/* Set want, then look again: the partner may have consumed in between. */
		atomic_store_explicit(&pxp_remote_hdr(peer)->want, 1, memory_order_seq_cst);
	}
	return wrote;
}

static void pxp_publish_locked(struct pxp_peer *peer)
{
	atomic_store_explicit(&pxp_remote_hdr(peer)->prod, peer->prod, memory_order_release);
	(void)peer->prov->api.assertEvent(atomic_load(&peer->session_ring));
}

int pxp_send(struct pxp_peer *peer, uint32_t kind, const void *data, size_t len)
{
	struct pxp_qrec *q;
	bool wrote;

	if (len > PXP_CTRL_MSG_MAX)
		return -XRMA_EMSGSIZE;
	pthread_mutex_lock(&peer->send_lock);
	if (!peer->remote) {
		pthread_mutex_unlock(&peer->send_lock);
		return -XRMA_ECONNRESET;
	}
	if (!peer->q_head && pxp_ring_put(peer, kind, data, (uint32_t)len)) {
		pxp_publish_locked(peer);
		pthread_mutex_unlock(&peer->send_lock);
		return 0;
	}
	/* Full, or older records wait: keep order, never block the caller. */
	q = malloc(sizeof(*q) + len);
	if (!q) {
		pthread_mutex_unlock(&peer->send_lock);
		return -XRMA_ENOMEM;
	}
	q->next = NULL;
	q->kind = kind;
	q->len = (uint32_t)len;
	memcpy(q->data, data, len);
	if (peer->q_tail)
		peer->q_tail->next = q;
	else
		peer->q_head = q;
	peer->q_tail = q;
	wrote = pxp_flush_locked(peer);
	if (wrote)
		pxp_publish_locked(peer);
	pthread_mutex_unlock(&peer->send_lock);
	return 0;
}

/* ------------------------------------------------------------------ requests */

struct pxp_req *pxp_req_open(struct pxp_peer *peer)
{
	struct pxp_prov *p = peer->prov;
	struct pxp_req *req = calloc(1, sizeof(*req));

	if (!req)
		return NULL;
	req->peer = peer;
	pthread_mutex_lock(&p->lock);
	req->id = p->next_req++;
	req->alive = atomic_load(&peer->alive);
	req->next = p->reqs;
	p->reqs = req;
	pthread_mutex_unlock(&p->lock);
	return req;
}

int pxp_req_wait(struct pxp_req *req, int replies, struct pxp_msg *out)
{
	struct pxp_prov *p = req->peer->prov;
	struct timespec deadline;
	int ret = 0;

	pxp_deadline(&deadline, PXP_REPLY_MS);
	pthread_mutex_lock(&p->lock);
	while (req->replies < replies) {
		if (!req->alive || atomic_load(&req->peer->alive) != req->alive) {
			ret = -XRMA_ELOST;
			break;
		}
		if (p->stopping) {
			ret = -XRMA_ECANCELED;
			break;
		}
		if (pxp_wait(p, &deadline) == ETIMEDOUT) {
			ret = req->replies < replies ? -XRMA_EHOSTUNREACH : 0;
			break;
		}
	}
	if (!ret)
		*out = req->reply[replies - 1];
	pthread_mutex_unlock(&p->lock);
	return ret;
}

void pxp_req_close(struct pxp_req *req)
{
	struct pxp_prov *p = req->peer->prov;
	struct pxp_req **pp;

	pthread_mutex_lock(&p->lock);
	for (pp = &p->reqs; *pp; pp = &(*pp)->next) {
		if (*pp == req) {
			*pp = req->next;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	free(req);
}

void pxp_request_reply(struct pxp_prov *p, const struct pxp_msg *msg)
{
	pthread_mutex_lock(&p->lock);
	for (struct pxp_req *req = p->reqs; req; req = req->next) {
		if (req->id == msg->req && req->replies < 2) {
			req->reply[req->replies++] = *msg;
			pthread_cond_broadcast(&p->cond);
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
}

/* ------------------------------------------------------------------ peers */

/* Under p->lock. */
static struct pxp_peer *pxp_peer_find_locked(struct pxp_prov *p, uint32_t node)
{
	for (struct pxp_peer *peer = p->peers; peer; peer = peer->next)
		if (peer->state == PXP_PEER_READY && peer->addr.node == node)
			return peer;
	return NULL;
}

/* Whether an interface's system is not known yet (its session or hello still to come). */
static bool pxp_peers_pending_locked(struct pxp_prov *p)
{
	for (struct pxp_peer *peer = p->peers; peer; peer = peer->next)
		if (peer->state != PXP_PEER_READY && !peer->incompatible && !peer->gone)
			return true;
	return false;
}

/*
 * Waits while some interface's system is still unknown; once a scan that began after the
 * call found every interface's system and none is node, no interface leads there (unless
 * patient: then it waits the whole time, for a system that has yet to start).
 */
struct pxp_peer *pxp_peer_get(struct pxp_prov *p, uint32_t node, int wait_ms, bool patient,
			      uint32_t *ep, int *err)
{
	struct pxp_peer *peer;
	struct timespec deadline;
	uint64_t scanned;

	pxp_deadline(&deadline, wait_ms < 0 ? PXP_PEER_WAIT_MS : wait_ms);
	pthread_mutex_lock(&p->lock);
	scanned = p->scan_gen + 2;
	while (!(peer = pxp_peer_find_locked(p, node))) {
		if (p->stopping || wait_ms == 0 ||
		    (!patient && p->scan_gen >= scanned && !pxp_peers_pending_locked(p)))
			break;
		/* A scan now, not in PXP_SCAN_MS; then the watcher's own scans wake us. */
		if (p->scan_gen < scanned) {
			p->scan_now = true;
			pthread_cond_broadcast(&p->cond);
		}
		if (pxp_wait(p, &deadline) == ETIMEDOUT) {
			peer = pxp_peer_find_locked(p, node);
			break;
		}
	}
	if (peer && ep)
		*ep = peer->addr.ep;
	pthread_mutex_unlock(&p->lock);
	if (!peer) {
		pxp_detail("pximc: no PXImc interface leads to node %u (no pximc context there)", node);
		*err = -XRMA_ENODEV;
	}
	return peer;
}

static void pxp_on_hello(struct pxp_peer *peer, const struct pxp_msg *msg)
{
	struct pxp_prov *p = peer->prov;

	pthread_mutex_lock(&p->lock);
	if (strncmp(msg->fabric, p->fabric, sizeof(p->fabric)) == 0 && msg->node != p->self.node) {
		peer->addr.node = msg->node;
		peer->addr.ep = msg->value;
		peer->state = PXP_PEER_READY;
		atomic_store(&peer->alive, ++p->next_gen);
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
}

/* One record from the partner (peer thread). */
static void pxp_dispatch(struct pxp_peer *peer, uint32_t kind, const unsigned char *data,
			 uint32_t len)
{
	struct pxp_prov *p = peer->prov;
	struct pxp_msg msg;

	if (kind == PXP_MSG_CORE) {
		struct pxp_inbound *in;

		pthread_mutex_lock(&p->lock);
		if (peer->state == PXP_PEER_READY) {
			in = pxp_inbound_new(PXP_IN_CTRL, &peer->addr, data, len);
			if (in)
				pxp_inbound_push(p, in);
		}
		pthread_mutex_unlock(&p->lock);
		return;
	}
	if (kind == PXP_MSG_BYE) {
		peer->bye = true;
		return;
	}
	if (len < sizeof(msg))
		return;   /* malformed: dropped */
	memcpy(&msg, data, sizeof(msg));
	switch (kind) {
	case PXP_MSG_HELLO:
		pxp_on_hello(peer, &msg);
		break;
	case PXP_MSG_LOOKUP:
		pxp_names_on_lookup(peer, &msg);
		break;
	case PXP_MSG_IMPORT:
		pxp_mem_on_import(peer, &msg);
		break;
	case PXP_MSG_UNIMPORT:
		pxp_mem_on_unimport(peer, &msg);
		break;
	case PXP_MSG_LOOKUP_REPLY:
	case PXP_MSG_IMPORT_POSTED:
	case PXP_MSG_IMPORT_READY:
	case PXP_MSG_UNIMPORT_DONE:
		pxp_request_reply(p, &msg);
		break;
	default:
		break;
	}
}

/* Consume what the partner produced, acknowledge it, and move our own queue on. */
static void pxp_drain(struct pxp_peer *peer)
{
	struct pxp_ring_hdr *h = pxp_local_hdr(peer);
	const unsigned char *ring = peer->local + PXP_RING_HEADER;
	size_t size = peer->data_len;
	uint64_t prod = atomic_load_explicit(&h->prod, memory_order_acquire);
	unsigned char *buf = NULL;
	bool consumed = prod != peer->cons;

	while (peer->cons < prod) {
		size_t pos = peer->cons % size;
		uint32_t head[2];

		memcpy(head, ring + pos, sizeof(head));
		if (head[1] == PXP_MSG_PAD) {
			peer->cons += size - pos;
			continue;
		}
		if (head[0] > PXP_CTRL_MSG_MAX || pos + PXP_REC_HDR + head[0] > size)
			break;   /* a corrupt ring: stop reading it */
		if (!buf)
			buf = malloc(PXP_CTRL_MSG_MAX);
		if (!buf)
			break;
		memcpy(buf, ring + pos + PXP_REC_HDR, head[0]);
		peer->cons += PXP_REC_HDR + pxp_round8(head[0]);
		/* Room first: a handler may wait for a reply that needs it. */
		atomic_store_explicit(&pxp_remote_hdr(peer)->ack, peer->cons, memory_order_release);
		pxp_dispatch(peer, head[1], buf, head[0]);
	}
	free(buf);
	if (consumed)
		atomic_store_explicit(&pxp_remote_hdr(peer)->ack, peer->cons, memory_order_release);
	if (atomic_exchange(&h->want, 0))
		(void)peer->prov->api.assertEvent(atomic_load(&peer->session_ring));
	pthread_mutex_lock(&peer->send_lock);
	if (peer->q_head && pxp_flush_locked(peer))
		pxp_publish_locked(peer);
	pthread_mutex_unlock(&peer->send_lock);
}

static bool pxp_should_stop(struct pxp_prov *p)
{
	bool stop;

	pthread_mutex_lock(&p->lock);
	stop = p->stopping;
	pthread_mutex_unlock(&p->lock);
	return stop;
}

/* A bounded pause that close() cuts short. */
static void pxp_pause(struct pxp_prov *p, int ms)
{
	struct timespec deadline;

	pxp_deadline(&deadline, ms);
	pthread_mutex_lock(&p->lock);
	if (!p->stopping)
		(void)pxp_wait(p, &deadline);
	pthread_mutex_unlock(&p->lock);
}

/*
 * Close the control session once, whoever comes first: its thread when it ends, or close()
 * waking a thread blocked on it. False if the other one already did.
 */
static bool pxp_session_close_once(struct pxp_peer *peer, uint32_t s)
{
	bool mine;

	pthread_mutex_lock(&peer->send_lock);
	mine = atomic_load(&peer->session_ring) == s;
	if (mine)
		atomic_store(&peer->session_ring, 0);
	pthread_mutex_unlock(&peer->send_lock);
	if (mine)
		(void)peer->prov->api.closeWindow(s);
	return mine;
}

/*
 * Pair the control session; 0 and the session, or a code (retry later). The wait has no
 * timeout: the partner's request ends it, and close() ends it by closing the session.
 */
static int pxp_pair(struct pxp_peer *peer, uint32_t *session, void **remote, void **local,
		    uint64_t *size)
{
	struct pxp_prov *p = peer->prov;
	uint64_t rsize = 0, lsize = 0;
	uint32_t s = 0;
	tPXIMC_Status st;
	bool closing;

	st = p->api.requestWindowLogicalAsPeer(peer->iface, PXP_PROTO_CONTROL, PXP_RING_WINDOW,
					       PXP_RING_WINDOW, PXP_RING_WINDOW, PXP_RING_WINDOW, 0,
					       NULL, 0, &s);
	if (st != PXIMC_SUCCESS)
		return pxp_error(st);
	/* Published before waiting, so close() finds it (or we see close() began). */
	pthread_mutex_lock(&peer->send_lock);
	atomic_store(&peer->session_ring, s);
	closing = atomic_load(&p->closing);
	pthread_mutex_unlock(&peer->send_lock);
	st = closing ? PXIMC_INVALID_SESSION
		     : p->api.waitForConnection(s, PXIMC_TIMEOUT_INFINITE, remote, &rsize, local,
						&lsize);
	if (st == PXIMC_SUCCESS &&
	    (!*remote || !*local || rsize < PXP_RING_WINDOW || lsize < PXP_RING_WINDOW))
		st = PXIMC_SPACE_NOT_AVAILABLE;
	if (st != PXIMC_SUCCESS) {
		(void)pxp_session_close_once(peer, s);
		return closing || atomic_load(&p->closing) ? -XRMA_ECANCELED : pxp_error(st);
	}
	*session = s;
	*size = PXP_RING_WINDOW;
	return 0;
}

/* The session ended: tell the core once, after everything the partner sent. */
static void pxp_peer_down(struct pxp_peer *peer, int status)
{
	struct pxp_prov *p = peer->prov;
	struct pxp_inbound *in = NULL;

	pthread_mutex_lock(&p->lock);
	if (peer->state == PXP_PEER_READY) {
		in = pxp_inbound_new(PXP_IN_DOWN, &peer->addr, NULL, 0);
		if (in) {
			in->status = status;
			pxp_inbound_push(p, in);
		}
	}
	peer->state = PXP_PEER_DOWN;
	atomic_store(&peer->alive, 0);
	peer->session = 0;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pxp_mem_on_peer_down(peer);
}

static void pxp_link_event(struct pxp_peer *peer, bool up)
{
	struct pxp_prov *p = peer->prov;
	struct pxp_inbound *in;

	/* Under p->lock. */
	peer->link_down = !up;
	if (peer->state != PXP_PEER_READY)
		return;
	in = pxp_inbound_new(PXP_IN_LINK, &peer->addr, NULL, 0);
	if (in) {
		in->up = up;
		pxp_inbound_push(p, in);
	}
}

/*
 * Whether the system behind an interface can take our control messages: they are native
 * structures, so its byte order and word size must be ours (interface attributes
 * PXIMC_U32_REMOTE_ENDIANNESS and _WORD_SIZE; a vendor without them is taken at its word).
 */
static bool pxp_peer_compatible(struct pxp_peer *peer)
{
	const uint32_t probe = 0x12345678u;
	const uint8_t *b = (const uint8_t *)&probe;
	/* The specification's encoding: bytes from low to high address, packed MSB first. */
	uint32_t ours = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	uint32_t order = ours, bits = (uint32_t)sizeof(void *) * 8, actual = 0;
	struct pxp_api *api = &peer->prov->api;

	if (api->queryInterfaceInformation(peer->iface, PXIMC_U32_REMOTE_ENDIANNESS, sizeof(order),
					   &order, &actual) != PXIMC_SUCCESS)
		order = ours;
	if (api->queryInterfaceInformation(peer->iface, PXIMC_U32_REMOTE_WORD_SIZE, sizeof(bits),
					   &bits, &actual) != PXIMC_SUCCESS)
		bits = (uint32_t)sizeof(void *) * 8;
	if (order == ours && bits == sizeof(void *) * 8)
		return true;
	pxp_detail("pximc: interface %u leads to a %u-bit system with byte order 0x%08x; xrma needs "
		   "its own (%zu-bit, 0x%08x) on both sides", peer->iface, bits, order,
		   sizeof(void *) * 8, ours);
	return false;
}

/* One session's life: pair, say hello, serve events until it ends. */
static void pxp_session_run(struct pxp_peer *peer)
{
	struct pxp_prov *p = peer->prov;
	struct pxp_msg hello = { .node = p->self.node, .value = p->self.ep };
	void *remote = NULL, *local = NULL;
	uint32_t s = 0, reason = 0;
	uint64_t size;
	tPXIMC_Status st;
	int status = -XRMA_ELOST;

	if (pxp_pair(peer, &s, &remote, &local, &size)) {
		pxp_pause(p, 100);
		return;
	}
	pthread_mutex_lock(&peer->send_lock);
	peer->local = local;
	peer->remote = remote;
	peer->data_len = (size_t)size - PXP_RING_HEADER;
	peer->prod = 0;
	peer->cons = 0;
	peer->bye = false;
	pthread_mutex_unlock(&peer->send_lock);
	pthread_mutex_lock(&p->lock);
	peer->session = s;
	peer->state = PXP_PEER_IDLE;
	pthread_mutex_unlock(&p->lock);
	memcpy(hello.fabric, p->fabric, sizeof(hello.fabric));
	(void)pxp_send(peer, PXP_MSG_HELLO, &hello, sizeof(hello));

	for (;;) {
		/*
		 * No timeout: the partner's assert, its close (CONNECTION_CLOSED, also when it
		 * dies) or our own close() (pxp_control_stop) ends the wait.
		 */
		st = p->api.waitForSessionEvent(s, PXIMC_TIMEOUT_INFINITE, &reason);
		if (st != PXIMC_SUCCESS) {
			status = -XRMA_ECONNRESET;
			break;
		}
		pxp_drain(peer);
		if (peer->bye) {
			/* The partner closes: closing our side too wakes its wait. */
			status = -XRMA_ECONNRESET;
			break;
		}
		if (reason == PXIMC_EVENT_CONNECTION_CLOSED) {
			status = peer->bye ? -XRMA_ECONNRESET : -XRMA_ELOST;
			break;
		}
		if (reason == PXIMC_EVENT_INTERFACE_DOWN) {
			pthread_mutex_lock(&p->lock);
			pxp_link_event(peer, false);
			pthread_mutex_unlock(&p->lock);
		}
	}
	pxp_peer_down(peer, status);
	pthread_mutex_lock(&peer->send_lock);
	peer->remote = NULL;
	peer->local = NULL;
	while (peer->q_head) {
		struct pxp_qrec *q = peer->q_head;

		peer->q_head = q->next;
		free(q);
	}
	peer->q_tail = NULL;
	pthread_mutex_unlock(&peer->send_lock);
	(void)pxp_session_close_once(peer, s);
}

static void *pxp_peer_main(void *arg)
{
	struct pxp_peer *peer = arg;
	struct pxp_prov *p = peer->prov;

	if (!pxp_peer_compatible(peer)) {
		/* Never paired: its node stays unreachable until close. */
		pthread_mutex_lock(&p->lock);
		peer->incompatible = true;
		while (!p->stopping)
			pthread_cond_wait(&p->cond, &p->lock);
		pthread_mutex_unlock(&p->lock);
	}
	while (!pxp_should_stop(p))
		pxp_session_run(peer);
	pthread_mutex_lock(&p->lock);
	peer->ended = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* ------------------------------------------------------------------ discovery */

static void pxp_scan(struct pxp_prov *p)
{
	uint32_t ids[256], count = 0;
	tPXIMC_Status st = p->api.findInterfaces(256, ids, &count);

	if (st != PXIMC_SUCCESS && st != PXIMC_INSUFFICIENT_SPACE)
		return;
	if (count > 256)
		count = 256;
	for (uint32_t i = 0; i < count; i++) {
		struct pxp_peer *peer;

		pthread_mutex_lock(&p->lock);
		for (peer = p->peers; peer && peer->iface != ids[i]; peer = peer->next)
			;
		if (!peer && !p->stopping && (peer = calloc(1, sizeof(*peer)))) {
			peer->prov = p;
			peer->iface = ids[i];
			pthread_mutex_init(&peer->send_lock, NULL);
			if (pthread_create(&peer->thread, NULL, pxp_peer_main, peer)) {
				pthread_mutex_destroy(&peer->send_lock);
				free(peer);
			} else {
				peer->next = p->peers;
				p->peers = peer;
			}
		}
		pthread_mutex_unlock(&p->lock);
	}
	/* Interfaces no longer listed have no system behind them (pxp_peer_get stops waiting). */
	pthread_mutex_lock(&p->lock);
	for (struct pxp_peer *peer = p->peers; st == PXIMC_SUCCESS && peer; peer = peer->next) {
		peer->gone = true;
		for (uint32_t i = 0; i < count && peer->gone; i++)
			peer->gone = peer->iface != ids[i];
	}
	pthread_mutex_unlock(&p->lock);
	/* A link that went down comes back when its interface is UP again. */
	for (struct pxp_peer *peer = p->peers; peer; peer = peer->next) {
		uint32_t state = 0, actual = 0;
		bool down;

		pthread_mutex_lock(&p->lock);
		down = peer->link_down;
		pthread_mutex_unlock(&p->lock);
		if (!down || p->api.queryInterfaceInformation(peer->iface, PXIMC_U32_INTERFACE_STATE,
							       sizeof(state), &state, &actual) ||
		    state != PXIMC_STATE_UP)
			continue;
		pthread_mutex_lock(&p->lock);
		pxp_link_event(peer, true);
		pthread_mutex_unlock(&p->lock);
	}
}

static void *pxp_watcher_main(void *arg)
{
	struct pxp_prov *p = arg;
	struct timespec deadline;

	for (;;) {
		pxp_scan(p);
		pxp_deadline(&deadline, PXP_SCAN_MS);
		pthread_mutex_lock(&p->lock);
		p->scan_gen++;
		pthread_cond_broadcast(&p->cond);
		while (!p->stopping && !p->scan_now)
			if (pxp_wait(p, &deadline) == ETIMEDOUT)
				break;
		p->scan_now = false;
		if (p->stopping) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		pthread_mutex_unlock(&p->lock);
	}
}

int pxp_control_start(struct pxp_prov *p)
{
	if (pthread_create(&p->watcher, NULL, pxp_watcher_main, p))
		return -XRMA_ENOMEM;
	return 0;
}

/* Join every peer thread once close() or exit began (pxp_control_quiesce). */
static void pxp_control_join_all(struct pxp_prov *p)
{
	pthread_join(p->watcher, NULL);
	/* Imports end within their bounded waits; no new one starts once stopping is set. */
	pxp_mem_import_reap(p, true);
	/*
	 * Goodbye to each partner: it closes its side, which ends our thread's wait
	 * (CONNECTION_CLOSED). A partner that does not within PXP_REPLY_MS, and sessions not
	 * paired yet, are closed here; that wakes the wait in xrma's vendor library (the
	 * specification leaves waking local waiters on a local close to the vendor).
	 */
	atomic_store(&p->closing, true);
	for (struct pxp_peer *peer = p->peers; peer; peer = peer->next)
		peer->bye_sent = pxp_send(peer, PXP_MSG_BYE, NULL, 0) == 0;
	for (struct pxp_peer *peer = p->peers; peer; peer = peer->next) {
		struct timespec deadline;
		uint32_t s;

		pxp_deadline(&deadline, PXP_REPLY_MS);
		pthread_mutex_lock(&p->lock);
		while (peer->bye_sent && !peer->ended && pxp_wait(p, &deadline) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&p->lock);
		s = atomic_load(&peer->session_ring);
		if (s)
			(void)pxp_session_close_once(peer, s);
		pthread_join(peer->thread, NULL);
	}
}

void pxp_control_quiesce(struct pxp_prov *p)
{
	bool mine;

	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_broadcast(&p->cond);
	while (p->quiesce == PXP_QUIESCING)
		pthread_cond_wait(&p->cond, &p->lock);
	mine = p->quiesce == PXP_RUNNING;
	if (mine)
		p->quiesce = PXP_QUIESCING;
	pthread_mutex_unlock(&p->lock);
	if (!mine)
		return;
	pxp_control_join_all(p);
	pthread_mutex_lock(&p->lock);
	p->quiesce = PXP_QUIESCED;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void pxp_control_stop(struct pxp_prov *p)
{
	pxp_control_quiesce(p);
	while (p->peers) {
		struct pxp_peer *peer = p->peers;

		p->peers = peer->next;
		pthread_mutex_destroy(&peer->send_lock);
		free(peer);
	}
}

/* ------------------------------------------------------------------ ops */

int pxp_progress_fd(void *state)
{
	struct pxp_prov *p = state;

	return p ? p->event_fd : -XRMA_EINVAL;
}

int pxp_progress(void *state)
{
	struct pxp_prov *p = state;
	struct pxp_inbound *in;
	uint64_t n;

	if (!p)
		return -XRMA_EINVAL;
	if (read(p->event_fd, &n, sizeof(n)) < 0) {
		/* EAGAIN: nothing new was signalled; the queue is looked at anyway. */
	}
	pthread_mutex_lock(&p->lock);
	in = p->in_head;
	p->in_head = p->in_tail = NULL;
	pthread_mutex_unlock(&p->lock);
	while (in) {
		struct pxp_inbound *next = in->next;

		if (in->kind == PXP_IN_CTRL)
			p->upcalls.ctrl_recv(p->core, &in->src, in->data, in->len);
		else if (in->kind == PXP_IN_DOWN)
			p->upcalls.peer_down(p->core, &in->src, in->status);
		else
			p->upcalls.link_event(p->core, in->src.node, in->up);
		free(in);
		in = next;
	}
	return 0;
}

static int pxp_node_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int pxp_node_list(void *state, uint32_t *ids, size_t max, size_t *count)
{
	struct pxp_prov *p = state;
	size_t n = 0;

	if (!p || !count || (!ids && max))
		return -XRMA_EINVAL;
	if (max)
		ids[0] = p->self.node;
	n = 1;
	pthread_mutex_lock(&p->lock);
	for (struct pxp_peer *peer = p->peers; peer; peer = peer->next) {
		if (peer->state != PXP_PEER_READY)
			continue;
		if (n < max)
			ids[n] = peer->addr.node;
		n++;
	}
	pthread_mutex_unlock(&p->lock);
	/* Ascending, as the other providers list them (SCIF's scif_get_nodeIDs shows the order). */
	if (n > 1 && max > 1)
		qsort(ids, n < max ? n : max, sizeof(*ids), pxp_node_cmp);
	*count = n;
	return 0;
}

int pxp_node_probe(void *state, uint32_t node, int timeout_ms)
{
	struct pxp_prov *p = state;
	struct pxp_peer *peer;
	int err = 0;
	bool down;

	if (!p)
		return -XRMA_EINVAL;
	if (node == p->self.node)
		return 0;
	peer = pxp_peer_get(p, node, timeout_ms < 0 || timeout_ms > PXP_PEER_WAIT_MS ?
				     PXP_PEER_WAIT_MS : timeout_ms, true, NULL, &err);
	if (!peer)
		return err;
	pthread_mutex_lock(&p->lock);
	down = peer->link_down;
	pthread_mutex_unlock(&p->lock);
	return down ? -XRMA_ENODEV : 0;
}

int pxp_ctrl_send(void *state, const struct xrma_prov_addr *dst, const void *msg, size_t len)
{
	struct pxp_prov *p = state;
	struct pxp_peer *peer;

	if (!p || !dst || !msg || !len)
		return -XRMA_EINVAL;
	if (len > PXP_CTRL_MSG_MAX)
		return -XRMA_EMSGSIZE;
	if (dst->node == p->self.node) {
		struct pxp_inbound *in;

		if (dst->ep != p->self.ep)
			return -XRMA_ECONNRESET;
		in = pxp_inbound_new(PXP_IN_CTRL, &p->self, msg, len);
		if (!in)
			return -XRMA_ENOMEM;
		pthread_mutex_lock(&p->lock);
		pxp_inbound_push(p, in);
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	pthread_mutex_lock(&p->lock);
	peer = pxp_peer_find_locked(p, dst->node);
	if (peer && peer->addr.ep != dst->ep)
		peer = NULL;
	pthread_mutex_unlock(&p->lock);
	if (!peer)
		return -XRMA_ECONNRESET;
	return pxp_send(peer, PXP_MSG_CORE, msg, len);
}
