/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_pairing.c: session pairing (spec 3.3.2.2) on the owner's side, and
 * the session link that follows. The owner of a posted window decides under its instance lock,
 * so a window pairs once and with one partner. A posted peer that is itself asking its partner
 * node to pair is CLAIMING and answers BUSY; docs/pximc.md shows why the lower node id retries
 * and the higher one gives up, so crossing peers always pair exactly once.
 */
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include "personalities/pximc/pximc_vendor.h"

static uint64_t xrma_pximc_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t xrma_pximc_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * Criteria C3..C6 for requester req and owner window w. The sizes are the net maxima,
 * cut to the resource limit; a net minimum above that limit is "no resources" (C5).
 */
void xrma_pximc_pair_sizes(const struct xrma_pximc_pair_req *req, const struct xrma_pximc_session *w,
			   uint64_t limit, bool *ok, uint64_t *owner_local, uint64_t *owner_remote)
{
	uint64_t min_a = xrma_pximc_max(w->min_local, req->min_remote);
	uint64_t max_a = xrma_pximc_min(w->max_local, req->max_remote);
	uint64_t min_b = xrma_pximc_max(w->min_remote, req->min_local);
	uint64_t max_b = xrma_pximc_min(w->max_remote, req->max_local);

	*ok = false;
	if (max_a < min_a || max_b < min_b || (!max_a && !max_b))
		return;
	max_a = xrma_pximc_min(max_a, limit);
	max_b = xrma_pximc_min(max_b, limit);
	if (max_a < min_a || max_b < min_b)
		return;
	*owner_local = max_a;
	*owner_remote = max_b;
	*ok = true;
}

static bool xrma_pximc_types_pair(uint32_t requester, uint32_t owner)
{
	return (requester == PXIMC_CONNECTION_CLIENT && owner == PXIMC_CONNECTION_SERVER) ||
	       (requester == PXIMC_CONNECTION_PEER && owner == PXIMC_CONNECTION_PEER);
}

int xrma_pximc_events_open(struct xrma_pximc *px, struct xrma_pximc_session *s, uint64_t *number)
{
	int ret;

	*number = XRMA_ID_ANY;
	ret = xrma_intr_open(px->ctx, number, 0, 0, 0, &s->intr);
	if (!ret)
		ret = xrma_rintr_open(px->ctx, px->self, *number, XRMA_PXIMC_CALL_MS, &s->wake);
	return ret;
}

uint64_t xrma_pximc_window_bus(struct xrma_seg *seg)
{
	uint64_t bus = UINT64_MAX;

	if (!seg || xrma_seg_bus_addr(seg, &bus))
		return UINT64_MAX;
	return bus;
}

/* Allocate and export a window of len bytes (none for 0). */
static int xrma_pximc_window_alloc(struct xrma_pximc *px, uint64_t len, struct xrma_seg **seg,
				   void **addr, uint64_t *id)
{
	struct xrma_seg_attr attr = {
		.len = (size_t)len, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
	};
	int ret;

	*seg = NULL;
	*addr = NULL;
	*id = UINT64_MAX;
	if (!len)
		return 0;
	ret = xrma_seg_open(px->ctx, &attr, seg);
	if (ret)
		return ret;
	ret = xrma_seg_export(*seg, 0);
	if (!ret)
		ret = xrma_seg_addr(*seg, addr);
	if (!ret)
		ret = xrma_seg_id(*seg, id);
	if (ret) {
		xrma_seg_close(*seg);
		*seg = NULL;
	}
	return ret;
}

/*
 * The owner's local window for a pairing: a new exported segment, or for a physical server
 * the device memory it names (which it does not own). Fills the reply's window fields.
 */
static int xrma_pximc_owner_window(struct xrma_pximc *px, struct xrma_pximc_session *w,
				   uint64_t len, struct xrma_pximc_pair_reply *reply)
{
	int ret;

	if (w->loc_type == PXIMC_LOCATION_PHYSICAL) {
		reply->owner_seg_id = w->phys_seg_id;
		reply->owner_offset = w->phys_offset;
		reply->owner_bus = w->phys_address;
		return 0;
	}
	ret = xrma_pximc_window_alloc(px, len, &w->local_seg, &w->local_addr, &reply->owner_seg_id);
	reply->owner_bus = xrma_pximc_window_bus(w->local_seg);
	return ret;
}

/* The owner's answer to a pair request (service thread). Keeps conn as the link on success. */
void xrma_pximc_handle_pair(struct xrma_pximc *px, struct xrma_conn *conn, uint32_t node,
			    const struct xrma_pximc_pair_req *req)
{
	struct xrma_pximc_pair_reply reply = { 0 };
	struct xrma_pximc_session *chosen = NULL, *busy = NULL;
	uint32_t result = XRMA_PXIMC_PAIR_NO_MATCH;
	uint64_t local = 0, remote = 0;

	pthread_mutex_lock(&px->lock);
	for (size_t i = 0; i < px->session_count && !chosen; i++) {
		struct xrma_pximc_session *w = px->sessions[i];
		bool ok;

		if (w->node != node || !w->posted || w->loc_type != req->loc_type ||
		    !xrma_pximc_types_pair(req->conn_type, w->conn_type) ||
		    w->protocol != req->protocol || (req->target_uid && req->target_uid != w->uid) ||
		    (w->state != XRMA_PXIMC_POSTED && w->state != XRMA_PXIMC_CLAIMING))
			continue;
		xrma_pximc_pair_sizes(req, w, px->win_limit, &ok, &local, &remote);
		if (!ok)
			continue;
		if (w->state != XRMA_PXIMC_CLAIMING)
			chosen = w;
		else if (!busy)
			busy = w;
	}
	if (chosen && !xrma_pximc_owner_window(px, chosen, local, &reply) &&
	    !xrma_pximc_events_open(px, chosen, &reply.owner_intr)) {
		chosen->state = XRMA_PXIMC_PAIRING;
		chosen->local_size = local;
		chosen->remote_size = remote;
		chosen->link = conn;
		reply.uid = chosen->uid;
		reply.owner_local = local;
		reply.owner_remote = remote;
		result = XRMA_PXIMC_PAIR_OK;
	} else if (chosen) {
		xrma_pximc_session_free_resources(px, chosen);
		chosen->posted = true;
	}
	if (result != XRMA_PXIMC_PAIR_OK && busy) {
		/* The requester gives up or retries: busy's own ask must not end unpaired. */
		busy->answered_busy = true;
		result = XRMA_PXIMC_PAIR_BUSY;
	}
	if (result == XRMA_PXIMC_PAIR_OK)
		XRMA_KILL_POINT("pximc.pairing.before_reply");
	/*
	 * The reply goes out under the lock so that no link input can precede it. The
	 * test-only libraries can have it lost, as to a requester gone meanwhile.
	 */
	if ((result == XRMA_PXIMC_PAIR_OK && XRMA_FAIL_POINT("pximc.pairing.reply_lost")) ||
	    xrma_pximc_send_msg(conn, XRMA_PXIMC_MSG_PAIR, result, true, &reply, sizeof(reply),
				XRMA_PXIMC_CALL_MS) ||
	    result != XRMA_PXIMC_PAIR_OK) {
		if (result == XRMA_PXIMC_PAIR_OK) {
			/* The requester went away: the window is posted again, listed and pairable. */
			chosen->link = NULL;
			xrma_pximc_session_free_resources(px, chosen);
			chosen->state = XRMA_PXIMC_POSTED;
			chosen->posted = true;
		}
		pthread_mutex_unlock(&px->lock);
		xrma_conn_close(conn);
		return;
	}
	if (xrma_pximc_link_watch(px, chosen)) {
		atomic_store(&chosen->event, PXIMC_EVENT_CONNECTION_CLOSED);
		chosen->state = XRMA_PXIMC_REMOTE_CLOSED;
	}
	xrma_pximc_notice_windows(px, node);
	pthread_cond_broadcast(&px->cond);
	pthread_mutex_unlock(&px->lock);
}

/* The partner is gone: CONNECTION_CLOSED from now on, and a blocked waiter is woken. */
static void xrma_pximc_mark_closed(struct xrma_pximc_session *s)
{
	atomic_store(&s->event, PXIMC_EVENT_CONNECTION_CLOSED);
	s->state = XRMA_PXIMC_REMOTE_CLOSED;
	/* A waiter blocks in its interrupt: knock so it sees the flag. */
	if (s->wake)
		(void)xrma_rintr_trigger(s->wake, NULL, 0);
}

/* The owner maps the requester's window once it knows its id. Under lock. */
static void xrma_pximc_import_partner(struct xrma_pximc *px, struct xrma_pximc_session *s,
				      const struct xrma_pximc_segid *partner)
{
	uint64_t id = partner->seg_id;
	int ret = 0;

	if (s->state != XRMA_PXIMC_PAIRING)
		return;
	if (s->remote_size && id != UINT64_MAX) {
		ret = xrma_rseg_open(px->ctx, s->node, id,
				     XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE, 0,
				     XRMA_PXIMC_CALL_MS, &s->remote_rseg);
		if (!ret)
			ret = xrma_rseg_map(s->remote_rseg, 0, (size_t)s->remote_size,
					    XRMA_MAP_READ | XRMA_MAP_WRITE, &s->remote_addr);
		if (!ret)
			(void)xrma_rseg_set_callback(s->remote_rseg, xrma_pximc_window_event, px);
	} else if (s->remote_size) {
		ret = -XRMA_EPROTO;
	}
	if (!ret)
		ret = xrma_rintr_open(px->ctx, s->node, partner->intr, XRMA_PXIMC_CALL_MS,
				      &s->partner_intr);
	if (ret) {
		xrma_pximc_mark_closed(s);
	} else {
		s->remote_bus = partner->bus;
		s->partner_uid = partner->uid;
		s->state = XRMA_PXIMC_PAIRED;
	}
}

static void xrma_pximc_link_closed(struct xrma_pximc *px, struct xrma_pximc_session *s)
{
	int fd = xrma_conn_fd(s->link);

	if (fd >= 0)
		epoll_ctl(px->epfd, EPOLL_CTL_DEL, fd, NULL);
	xrma_pximc_mark_closed(s);
}

/* Read what the partner sent on the link (service thread, under lock). */
void xrma_pximc_link_input(struct xrma_pximc *px, struct xrma_pximc_session *s)
{
	for (;;) {
		struct xrma_pximc_hdr hdr;
		ssize_t got = xrma_conn_recv(s->link, s->rx + s->rx_len, sizeof(s->rx) - s->rx_len, 0,
					     0);

		if (got == -XRMA_EAGAIN)
			break;
		if (got <= 0) {
			xrma_pximc_link_closed(px, s);
			break;
		}
		s->rx_len += (size_t)got;
		while (s->rx_len >= sizeof(hdr)) {
			struct xrma_pximc_segid partner;
			size_t need;

			memcpy(&hdr, s->rx, sizeof(hdr));
			xrma_pximc_hdr_wire(&hdr);
			need = sizeof(hdr) + hdr.len;
			if (hdr.magic != XRMA_PXIMC_MAGIC || need > sizeof(s->rx)) {
				xrma_pximc_link_closed(px, s);
				pthread_cond_broadcast(&px->cond);
				return;
			}
			if (s->rx_len < need)
				break;
			if (hdr.type == XRMA_PXIMC_MSG_SEGID && hdr.len == sizeof(partner)) {
				memcpy(&partner, s->rx + sizeof(hdr), sizeof(partner));
				xrma_pximc_wire(hdr.type, false, &partner, sizeof(partner));
				xrma_pximc_import_partner(px, s, &partner);
			} else if (hdr.type == XRMA_PXIMC_MSG_ASSERT) {
				unsigned expected = 0;

				/* CONNECTION_CLOSED is never overwritten (3.3.4.2-R4). */
				atomic_compare_exchange_strong(&s->event, &expected, PXIMC_EVENT_ASSERTED);
				if (s->wake)
					(void)xrma_rintr_trigger(s->wake, NULL, 0);
			}
			memmove(s->rx, s->rx + need, s->rx_len - need);
			s->rx_len -= need;
		}
		if (s->state == XRMA_PXIMC_REMOTE_CLOSED)
			break;
	}
	pthread_cond_broadcast(&px->cond);
}

/* Release what a session holds (its number stays listed until the caller drops it). */
void xrma_pximc_session_free_resources(struct xrma_pximc *px, struct xrma_pximc_session *s)
{
	bool posted = s->posted;

	if (s->link) {
		int fd = xrma_conn_fd(s->link);

		if (fd >= 0)
			epoll_ctl(px->epfd, EPOLL_CTL_DEL, fd, NULL);
		xrma_conn_close(s->link);
		s->link = NULL;
	}
	if (s->partner_intr) {
		xrma_rintr_close(s->partner_intr);
		s->partner_intr = NULL;
	}
	if (s->wake) {
		xrma_rintr_close(s->wake);
		s->wake = NULL;
	}
	if (s->intr) {
		xrma_intr_close(s->intr);  /* a blocked waiter returns XRMA_ECANCELED */
		s->intr = NULL;
	}
	if (s->remote_rseg) {
		if (s->remote_addr)
			xrma_rseg_unmap(s->remote_rseg, s->remote_addr);
		xrma_rseg_close(s->remote_rseg);
		s->remote_rseg = NULL;
		s->remote_addr = NULL;
	}
	if (s->local_seg) {
		size_t importers = 0;

		xrma_seg_importers(s->local_seg, &importers);
		/* The partner may still use it: resources live until both sides closed. */
		if (importers || xrma_seg_close(s->local_seg)) {
			xrma_seg_unexport(s->local_seg, 0);
			if (!xrma_pximc_grow((void **)&px->zombies, &px->zombie_cap,
					     px->zombie_count + 1, sizeof(*px->zombies)))
				px->zombies[px->zombie_count++] = s->local_seg;
			xrma_pximc_kick(px);
		}
		s->local_seg = NULL;
		s->local_addr = NULL;
	}
	s->posted = false;
	if (posted)
		xrma_pximc_notice_windows(px, s->node);
}
