/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_request.c: the five window requests (spec 3.3.2.3), in the order of
 * their sequence rules, and the requester's half of pairing: ask the remote owner, then make
 * and announce our own window. Owner-side pairing is in pximc_pairing.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "personalities/pximc/pximc_vendor.h"

/*
 * Bounds the lower node's retries while its partner's peer is itself claiming: longer
 * than that single claim can last (its connect, request and answer, each up to
 * XRMA_PXIMC_CALL_MS), so a slow partner still ends up pairing with us.
 */
#define XRMA_PXIMC_CLAIM_MS (5u * XRMA_PXIMC_CALL_MS)
/* The longest pause between two of those retries (the pause doubles from 1 ms). */
#define XRMA_PXIMC_BUSY_PAUSE_MAX_MS 64u

struct xrma_pximc_claim {
	struct xrma_conn *link;
	struct xrma_pximc_pair_reply reply;
};

/* Ask node to pair req with one of its posted windows. Core error, or 0 and *result. */
static int xrma_pximc_ask(struct xrma_pximc *px, uint32_t node, const struct xrma_pximc_pair_req *req,
			  uint32_t *result, struct xrma_pximc_claim *claim)
{
	struct xrma_pximc_hdr hdr;
	struct xrma_conn *conn = NULL;
	int ret = xrma_pximc_call(px, node, XRMA_PXIMC_MSG_PAIR, 0, req, sizeof(*req), &hdr,
				  &claim->reply, sizeof(claim->reply), &conn);

	if (ret)
		return ret;
	*result = hdr.arg;
	if (hdr.arg != XRMA_PXIMC_PAIR_OK || hdr.len != sizeof(claim->reply)) {
		xrma_conn_close(conn);
		if (hdr.arg == XRMA_PXIMC_PAIR_OK)
			return -XRMA_EPROTO;
		return 0;
	}
	claim->link = conn;
	return 0;
}

/*
 * The requester's window setup after the owner said yes: our local window is the owner's
 * remote one; map the owner's local window as our remote one; tell the owner our id.
 * Fills s and watches its link; 0 or a core error (then nothing is kept).
 */
static int xrma_pximc_complete(struct xrma_pximc *px, struct xrma_pximc_session *s,
			       struct xrma_pximc_claim *claim)
{
	struct xrma_seg_attr attr = { .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL };
	struct xrma_pximc_segid ours = { 0, 0, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	int ret = 0;

	s->local_size = claim->reply.owner_remote;
	s->remote_size = claim->reply.owner_local;
	if (s->local_size) {
		attr.len = (size_t)s->local_size;
		ret = xrma_seg_open(px->ctx, &attr, &s->local_seg);
		if (!ret)
			ret = xrma_seg_export(s->local_seg, 0);
		if (!ret)
			ret = xrma_seg_addr(s->local_seg, &s->local_addr);
		if (!ret)
			ret = xrma_seg_id(s->local_seg, &ours.seg_id);
		ours.bus = xrma_pximc_window_bus(s->local_seg);
	}
	s->remote_bus = claim->reply.owner_bus;
	s->partner_uid = claim->reply.uid;
	/* A peer's window is posted too: the owner's session learns its id. */
	if (s->conn_type == PXIMC_CONNECTION_PEER)
		ours.uid = s->uid;
	if (!ret)
		ret = xrma_pximc_events_open(px, s, &ours.intr);
	if (!ret)
		ret = xrma_rintr_open(px->ctx, s->node, claim->reply.owner_intr, XRMA_PXIMC_CALL_MS,
				      &s->partner_intr);
	if (!ret && s->remote_size) {
		ret = xrma_rseg_open(px->ctx, s->node, claim->reply.owner_seg_id,
				     XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE, 0,
				     XRMA_PXIMC_CALL_MS, &s->remote_rseg);
		if (!ret)
			ret = xrma_rseg_map(s->remote_rseg, (size_t)claim->reply.owner_offset,
					    (size_t)s->remote_size, XRMA_MAP_READ | XRMA_MAP_WRITE,
					    &s->remote_addr);
	}
	if (!ret)
		ret = xrma_pximc_send_msg(claim->link, XRMA_PXIMC_MSG_SEGID, 0, false, &ours, sizeof(ours),
					  XRMA_PXIMC_CALL_MS);
	s->link = claim->link;
	pthread_mutex_lock(&px->lock);
	if (s->closed)
		ret = -XRMA_ECANCELED;
	if (!ret)
		ret = xrma_pximc_link_watch(px, s);
	if (ret) {
		bool posted = s->posted;

		xrma_pximc_session_free_resources(px, s);
		s->posted = posted;
	} else {
		s->state = XRMA_PXIMC_PAIRED;
		if (!s->uid)
			s->uid = claim->reply.uid;
	}
	pthread_cond_broadcast(&px->cond);
	pthread_mutex_unlock(&px->lock);
	return ret;
}

/*
 * After an ask: whether the lower node asks again (docs/pximc.md). It does while the
 * partner's window is CLAIMING (BUSY), and also when its own window answered BUSY to the
 * partner meanwhile, whatever its own answer was: the partner then gave up, so its window
 * is posted or about to be. Otherwise a posted window stops CLAIMING here, in the same
 * locked step, so no later request of the partner hears BUSY unnoticed.
 */
static bool xrma_pximc_claim_again(struct xrma_pximc *px, struct xrma_pximc_session *s, int ret,
				   uint32_t result, bool in_time)
{
	bool again, paired;

	pthread_mutex_lock(&px->lock);
	paired = !ret && result == XRMA_PXIMC_PAIR_OK;
	again = !paired && in_time && px->self < s->node &&
		((!ret && result == XRMA_PXIMC_PAIR_BUSY) || s->answered_busy);
	s->answered_busy = false;
	if (!again && !paired && s->posted && s->state == XRMA_PXIMC_CLAIMING)
		s->state = XRMA_PXIMC_POSTED;
	pthread_mutex_unlock(&px->lock);
	return again;
}

/* Wait on the instance for ms from now, never past deadline. */
static void xrma_pximc_claim_pause(struct xrma_pximc *px, uint64_t now, uint32_t ms,
				   uint64_t deadline)
{
	pthread_mutex_lock(&px->lock);
	xrma_pximc_cond_wait(px, now + ms < deadline ? now + ms : deadline);
	pthread_mutex_unlock(&px->lock);
}

/*
 * The test-only libraries can hold an ask's answer back while the fail point is armed
 * (bounded by the claim's deadline), as a busy host would before the requester reads it.
 */
static void xrma_pximc_answer_late(struct xrma_pximc *px, uint64_t deadline)
{
	uint64_t now;

	while (XRMA_FAIL_POINT("pximc.request.answer_late") &&
	       (now = xrma_pximc_now_ms()) < deadline)
		xrma_pximc_claim_pause(px, now, 1, deadline);
}

/*
 * Pair s (not yet or CLAIMING-posted) with a window of its node. Returns the final
 * XRMA_PXIMC_PAIR_* result, or a core error when the node could not be asked.
 */
static int xrma_pximc_claim(struct xrma_pximc *px, struct xrma_pximc_session *s, uint32_t target)
{
	struct xrma_pximc_pair_req req = {
		.conn_type = s->conn_type, .loc_type = s->loc_type, .protocol = s->protocol,
		.target_uid = target, .min_local = s->min_local, .max_local = s->max_local,
		.min_remote = s->min_remote, .max_remote = s->max_remote,
	};
	uint64_t deadline = xrma_pximc_now_ms() + XRMA_PXIMC_CLAIM_MS, now;
	struct xrma_pximc_claim claim;
	uint32_t result = XRMA_PXIMC_PAIR_NO_MATCH, pause_ms = 1;
	int ret;

	for (;;) {
		memset(&claim, 0, sizeof(claim));
		ret = xrma_pximc_ask(px, s->node, &req, &result, &claim);
		xrma_pximc_answer_late(px, deadline);
		/* Crossing peers: only the lower node id insists. */
		now = xrma_pximc_now_ms();
		if (!xrma_pximc_claim_again(px, s, ret, result, now < deadline))
			break;
		/*
		 * The partner's window turns POSTED when its own ask ends, and the notice it
		 * sends then wakes us; until then, pause rather than ask in a tight loop, which
		 * on a busy host would take the CPU that ask needs.
		 */
		xrma_pximc_claim_pause(px, now, pause_ms, deadline);
		if (pause_ms < XRMA_PXIMC_BUSY_PAUSE_MAX_MS)
			pause_ms *= 2;
	}
	if (ret)
		return ret;
	if (result != XRMA_PXIMC_PAIR_OK)
		return (int)result;
	XRMA_KILL_POINT("pximc.request.mid_pairing");
	ret = xrma_pximc_complete(px, s, &claim);
	return ret ? ret : XRMA_PXIMC_PAIR_OK;
}

/* ------------------------------------------------------------------ validation */

/* S1..S5 of the logical requests. data_len is checked only for posting requests. */
static tPXIMC_Status xrma_pximc_check_logical(struct xrma_pximc *px, uint32_t interface_id,
					      uint64_t max_local, uint64_t min_local,
					      uint64_t max_remote, uint64_t min_remote,
					      const uint8_t *data, uint32_t data_len, bool posts,
					      const uint32_t *session, uint32_t *node)
{
	if (xrma_pximc_iface_node(px, interface_id, node))
		return PXIMC_INVALID_INTERFACE;
	if ((!max_local && !max_remote) || max_local < min_local || max_remote < min_remote)
		return PXIMC_INVALID_ARGUMENT;
	if (posts && (data_len > XRMA_PXIMC_DATA_MAX || (data_len && !data)))
		return PXIMC_INVALID_ARGUMENT;
	if (!session)
		return PXIMC_INVALID_ARGUMENT;
	if (!px->can_map)
		return PXIMC_PHY_RESOURCE_NOT_AVAILABLE;
	if (min_local > px->win_limit || min_remote > px->win_limit)
		return PXIMC_SPACE_NOT_AVAILABLE;
	return PXIMC_SUCCESS;
}

static struct xrma_pximc_session *xrma_pximc_session_new(uint32_t node, uint32_t conn_type,
							 uint32_t protocol, uint64_t max_local,
							 uint64_t min_local, uint64_t max_remote,
							 uint64_t min_remote, const uint8_t *data,
							 uint32_t data_len)
{
	struct xrma_pximc_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->node = node;
	s->conn_type = conn_type;
	s->loc_type = PXIMC_LOCATION_LOGICAL;
	s->protocol = protocol;
	s->max_local = max_local;
	s->min_local = min_local;
	s->max_remote = max_remote;
	s->min_remote = min_remote;
	s->data_len = data_len;
	if (data_len)
		memcpy(s->data, data, data_len);
	atomic_init(&s->event, 0);
	return s;
}

/* S1..S6 of a logical request, then its session (not listed yet); SUCCESS and *out, or why not. */
static tPXIMC_Status xrma_pximc_request_begin(struct xrma_pximc *px, uint32_t conn_type,
					      uint32_t interface_id, uint32_t protocol,
					      uint64_t max_local, uint64_t min_local,
					      uint64_t max_remote, uint64_t min_remote,
					      const uint8_t *data, uint32_t data_len,
					      const uint32_t *session, struct xrma_pximc_session **out)
{
	bool posts = conn_type != PXIMC_CONNECTION_CLIENT;
	tPXIMC_Status status;
	uint32_t node;

	status = xrma_pximc_check_logical(px, interface_id, max_local, min_local, max_remote,
					  min_remote, data, data_len, posts, session, &node);
	if (status)
		return status;
	*out = xrma_pximc_session_new(node, conn_type, protocol, max_local, min_local, max_remote,
				      min_remote, data, data_len);
	return *out ? PXIMC_SUCCESS : PXIMC_SPACE_NOT_AVAILABLE;
}

/* Is uid taken by a window this instance posted to node? Under lock. */
static bool xrma_pximc_uid_taken(struct xrma_pximc *px, uint32_t node, uint32_t uid)
{
	for (size_t i = 0; i < px->session_count; i++)
		if (px->sessions[i]->node == node && px->sessions[i]->posted &&
		    px->sessions[i]->uid == uid)
			return true;
	return false;
}

/* S7/S8 then post: give s its uid and list it. Under lock. */
static tPXIMC_Status xrma_pximc_post(struct xrma_pximc *px, struct xrma_pximc_session *s,
				     uint32_t uid, enum xrma_pximc_state state)
{
	if (uid && xrma_pximc_uid_taken(px, s->node, uid))
		return PXIMC_UID_CONFLICT;
	while (!uid) {
		uid = px->next_uid++;
		if (uid && xrma_pximc_uid_taken(px, s->node, uid))
			uid = 0;
	}
	s->uid = uid;
	s->posted = true;
	s->state = state;
	if (xrma_pximc_session_add(px, s))
		return PXIMC_SPACE_NOT_AVAILABLE;
	return PXIMC_SUCCESS;
}

/* ------------------------------------------------------------------ the requests */

tPXIMC_Status xrma_pximc_request_server(struct xrma_pximc *px, uint32_t interface_id,
					uint32_t protocol, uint64_t max_local, uint64_t min_local,
					uint64_t max_remote, uint64_t min_remote, uint32_t uid,
					const uint8_t *data, uint32_t data_len, uint32_t *session)
{
	struct xrma_pximc_session *s = NULL;
	tPXIMC_Status status;

	status = xrma_pximc_request_begin(px, PXIMC_CONNECTION_SERVER, interface_id, protocol,
					  max_local, min_local, max_remote, min_remote, data, data_len,
					  session, &s);
	if (status)
		return status;
	pthread_mutex_lock(&px->lock);
	status = xrma_pximc_post(px, s, uid, XRMA_PXIMC_POSTED);
	if (status) {
		free(s);
	} else {
		*session = s->number;
		xrma_pximc_notice_windows(px, s->node);
	}
	pthread_mutex_unlock(&px->lock);
	return status;
}

/* After a claim: map its outcome for a client (nothing listed before the call). */
static tPXIMC_Status xrma_pximc_claim_status(int ret)
{
	if (ret == XRMA_PXIMC_PAIR_OK)
		return PXIMC_SUCCESS;
	/* A node without a PXImc service is an interface that is not up. */
	if (ret == -XRMA_ECONNREFUSED)
		return PXIMC_INTERFACE_DOWN;
	if (ret > 0)
		return PXIMC_NO_PAIRING;
	return xrma_pximc_status(ret, PXIMC_NO_PAIRING);
}

/*
 * List s unposted and hold it (so cleanup cannot free it under the claim). Its number is
 * what the link is watched under. Under no lock.
 */
static tPXIMC_Status xrma_pximc_hold_new(struct xrma_pximc *px, struct xrma_pximc_session *s)
{
	tPXIMC_Status status = PXIMC_SUCCESS;

	pthread_mutex_lock(&px->lock);
	s->state = XRMA_PXIMC_CLAIMING;
	if (xrma_pximc_session_add(px, s))
		status = PXIMC_SPACE_NOT_AVAILABLE;
	else
		s->waiters++;
	pthread_mutex_unlock(&px->lock);
	if (status)
		free(s);
	return status;
}

/*
 * Let go of a held session after its claim. failure != SUCCESS: the request fails and s is
 * dropped; else the number goes to *session. A cleanup that ran meanwhile wins.
 */
static tPXIMC_Status xrma_pximc_unhold(struct xrma_pximc *px, struct xrma_pximc_session *s,
				       tPXIMC_Status failure, uint32_t *session)
{
	tPXIMC_Status status = failure;

	pthread_mutex_lock(&px->lock);
	if (s->closed) {
		status = PXIMC_SPACE_NOT_AVAILABLE;
	} else if (failure) {
		xrma_pximc_session_free_resources(px, s);
		xrma_pximc_session_drop(px, s);
	} else {
		if (s->state == XRMA_PXIMC_CLAIMING)
			s->state = XRMA_PXIMC_POSTED;
		*session = s->number;
		xrma_pximc_notice_windows(px, s->node);
	}
	pthread_cond_broadcast(&px->cond);
	xrma_pximc_session_release(px, s);
	pthread_mutex_unlock(&px->lock);
	return status;
}

tPXIMC_Status xrma_pximc_request_client(struct xrma_pximc *px, uint32_t interface_id,
					uint32_t protocol, uint64_t max_local, uint64_t min_local,
					uint64_t max_remote, uint64_t min_remote, uint32_t uid,
					uint32_t *session)
{
	struct xrma_pximc_session *s = NULL;
	tPXIMC_Status status;

	status = xrma_pximc_request_begin(px, PXIMC_CONNECTION_CLIENT, interface_id, protocol,
					  max_local, min_local, max_remote, min_remote, NULL, 0,
					  session, &s);
	if (status)
		return status;
	status = xrma_pximc_hold_new(px, s);
	if (status)
		return status;
	status = xrma_pximc_claim_status(xrma_pximc_claim(px, s, uid));
	return xrma_pximc_unhold(px, s, status, session);
}

tPXIMC_Status xrma_pximc_request_peer(struct xrma_pximc *px, uint32_t interface_id,
				      uint32_t protocol, uint64_t max_local, uint64_t min_local,
				      uint64_t max_remote, uint64_t min_remote, uint32_t uid,
				      const uint8_t *data, uint32_t data_len, uint32_t *session)
{
	struct xrma_pximc_session *s = NULL;
	tPXIMC_Status status;
	int ret;

	status = xrma_pximc_request_begin(px, PXIMC_CONNECTION_PEER, interface_id, protocol,
					  max_local, min_local, max_remote, min_remote, data, data_len,
					  session, &s);
	if (status)
		return status;
	pthread_mutex_lock(&px->lock);
	/* Post first (as CLAIMING), then ask: of two crossing peers the later ask sees the other. */
	status = xrma_pximc_post(px, s, uid, XRMA_PXIMC_CLAIMING);
	if (!status)
		s->waiters++;
	pthread_mutex_unlock(&px->lock);
	if (status == PXIMC_UID_CONFLICT) {
		/* The uid only matters if we have to post (N1): a match now is still a success. */
		status = xrma_pximc_hold_new(px, s);
		if (status)
			return status;
		ret = xrma_pximc_claim(px, s, uid);
		return xrma_pximc_unhold(px, s, ret == XRMA_PXIMC_PAIR_OK ? PXIMC_SUCCESS
									 : PXIMC_UID_CONFLICT,
					 session);
	}
	if (status) {
		free(s);
		return status;
	}
	(void)xrma_pximc_claim(px, s, uid);
	return xrma_pximc_unhold(px, s, PXIMC_SUCCESS, session);
}

/*
 * A physical server exposes device memory of this system (xrma_pximc_device_memory) at its
 * bus address. Without bus addresses, or at an address no device memory covers, it is
 * PHY_RESOURCE_NOT_AVAILABLE (docs/pximc.md).
 */
tPXIMC_Status xrma_pximc_request_physical_server(struct xrma_pximc *px, uint32_t interface_id,
						 uint32_t protocol, uint64_t local_size, uint32_t uid,
						 uint64_t physical_address, const uint8_t *data,
						 uint32_t data_len, uint32_t *session)
{
	struct xrma_pximc_session *s;
	tPXIMC_Status status;
	uint32_t node;

	if (xrma_pximc_iface_node(px, interface_id, &node))
		return PXIMC_INVALID_INTERFACE;
	if (data_len > XRMA_PXIMC_DATA_MAX || (data_len && !data) || !local_size ||
	    !physical_address || !session)
		return PXIMC_INVALID_ARGUMENT;
	if (!px->can_map)
		return PXIMC_PHY_RESOURCE_NOT_AVAILABLE;
	if (local_size > px->win_limit)
		return PXIMC_SPACE_NOT_AVAILABLE;
	s = xrma_pximc_session_new(node, PXIMC_CONNECTION_SERVER, protocol, local_size, local_size,
				   0, 0, data, data_len);
	if (!s)
		return PXIMC_SPACE_NOT_AVAILABLE;
	s->loc_type = PXIMC_LOCATION_PHYSICAL;
	pthread_mutex_lock(&px->lock);
	status = xrma_pximc_physical_range(px, physical_address, local_size, s);
	if (!status)
		status = xrma_pximc_post(px, s, uid, XRMA_PXIMC_POSTED);
	if (status) {
		pthread_mutex_unlock(&px->lock);
		free(s);
		return status;
	}
	*session = s->number;
	xrma_pximc_notice_windows(px, s->node);
	pthread_mutex_unlock(&px->lock);
	return PXIMC_SUCCESS;
}

/* A physical client pairs only with a physical server; its one window is the remote one. */
tPXIMC_Status xrma_pximc_request_physical_client(struct xrma_pximc *px, uint32_t interface_id,
						 uint32_t protocol, uint64_t max_remote,
						 uint64_t min_remote, uint32_t uid,
						 uint32_t *session)
{
	struct xrma_pximc_session *s;
	tPXIMC_Status status;
	uint32_t node;

	if (xrma_pximc_iface_node(px, interface_id, &node))
		return PXIMC_INVALID_INTERFACE;
	if (!min_remote || !max_remote || max_remote < min_remote || !session)
		return PXIMC_INVALID_ARGUMENT;
	if (!px->can_map)
		return PXIMC_PHY_RESOURCE_NOT_AVAILABLE;
	if (min_remote > px->win_limit)
		return PXIMC_SPACE_NOT_AVAILABLE;
	s = xrma_pximc_session_new(node, PXIMC_CONNECTION_CLIENT, protocol, 0, 0, max_remote,
				   min_remote, NULL, 0);
	if (!s)
		return PXIMC_SPACE_NOT_AVAILABLE;
	s->loc_type = PXIMC_LOCATION_PHYSICAL;
	status = xrma_pximc_hold_new(px, s);
	if (status)
		return status;
	status = xrma_pximc_claim_status(xrma_pximc_claim(px, s, uid));
	return xrma_pximc_unhold(px, s, status, session);
}
