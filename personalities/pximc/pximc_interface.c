/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_interface.c: interfaces (spec 3.3.1.1, 3.3.1.3, 3.3.1.4): the other
 * live nodes of the instance's fabric, their per-instance event latches, and the list of
 * windows a remote node posted to us. Attribute queries are in pximc_query.c.
 */
#include <string.h>
#include "personalities/pximc/pximc_vendor.h"

/* How often a blocked waitForInterfaceEvent re-checks that the node is still there. */
#define XRMA_PXIMC_STATE_POLL_MS 100u

/*
 * Whether an interface joins us to node. A PXImc system is a tree (spec 6): the host has an
 * interface to each device, a device only to the host; without pximc.tree_host every node
 * meets every other, as processes on one machine do.
 */
static bool xrma_pximc_tree_edge(const struct xrma_pximc *px, uint32_t node)
{
	return px->tree_host == UINT32_MAX || px->self == px->tree_host || node == px->tree_host;
}

static bool xrma_pximc_node_live(struct xrma_pximc *px, uint32_t node)
{
	uint32_t ids[256];
	size_t count = 0;

	if (xrma_node_list(px->ctx, ids, 256, &count))
		return false;
	if (count > 256)
		return xrma_node_probe(px->ctx, node, 0) == 0;
	for (size_t i = 0; i < count; i++)
		if (ids[i] == node)
			return true;
	return false;
}

bool xrma_pximc_link_up(struct xrma_pximc *px, uint32_t node)
{
	/* A probe fails while either end's modelled link is down (ntb); a node that left is
	 * not a link matter (its sessions see CONNECTION_CLOSED). */
	if (xrma_node_probe(px->ctx, px->self, 0))
		return false;
	return xrma_node_probe(px->ctx, node, 0) == 0 || !xrma_pximc_node_live(px, node);
}

void xrma_pximc_iface_link(struct xrma_pximc *px, uint32_t node, bool up)
{
	struct xrma_pximc_iface *iface = xrma_pximc_iface_get(px, node);

	if (!iface || iface->link_down == !up)
		return;
	iface->link_down = !up;
	iface->state = up ? PXIMC_STATE_UP : PXIMC_STATE_DOWN;
	iface->latch |= PXIMC_EVENT_INTERFACE_STATE_CHANGE;
	for (size_t i = 0; !up && i < px->session_count; i++) {
		struct xrma_pximc_session *s = px->sessions[i];
		unsigned event = atomic_load(&s->event);

		if (s->node != node || s->closed || s->state < XRMA_PXIMC_PAIRING)
			continue;
		/* The latest event wins (one-deep), except CONNECTION_CLOSED (3.3.4.2-R4). */
		while (event != PXIMC_EVENT_CONNECTION_CLOSED &&
		       !atomic_compare_exchange_weak(&s->event, &event, PXIMC_EVENT_INTERFACE_DOWN))
			;
		if (s->wake)
			(void)xrma_rintr_trigger(s->wake, NULL, 0);
	}
	pthread_cond_broadcast(&px->cond);
}

void xrma_pximc_window_event(void *arg, const struct xrma_event *event)
{
	struct xrma_pximc *px = arg;

	if (event->type != XRMA_EVENT_NOT_OPERATIONAL && event->type != XRMA_EVENT_OPERATIONAL)
		return;
	pthread_mutex_lock(&px->lock);
	xrma_pximc_iface_link(px, event->node, event->type == XRMA_EVENT_OPERATIONAL);
	pthread_mutex_unlock(&px->lock);
}

int xrma_pximc_iface_node(struct xrma_pximc *px, uint32_t interface_id, uint32_t *node)
{
	if (!interface_id || interface_id - 1 == px->self ||
	    !xrma_pximc_tree_edge(px, interface_id - 1) || !xrma_pximc_node_live(px, interface_id - 1))
		return -1;
	*node = interface_id - 1;
	return 0;
}

/* The latch record of node, created "pending" so a first wait returns at once. Under lock. */
struct xrma_pximc_iface *xrma_pximc_iface_get(struct xrma_pximc *px, uint32_t node)
{
	struct xrma_pximc_iface *iface;

	for (size_t i = 0; i < px->iface_count; i++)
		if (px->ifaces[i].node == node)
			return &px->ifaces[i];
	if (xrma_pximc_grow((void **)&px->ifaces, &px->iface_cap, px->iface_count + 1,
			    sizeof(*px->ifaces)))
		return NULL;
	iface = &px->ifaces[px->iface_count++];
	*iface = (struct xrma_pximc_iface){
		.node = node,
		.latch = PXIMC_EVENT_INTERFACE_STATE_CHANGE | PXIMC_EVENT_WINDOW_STATE_CHANGE,
		.state = PXIMC_STATE_UP,
	};
	return iface;
}

void xrma_pximc_subscriber_add(struct xrma_pximc *px, uint32_t node)
{
	for (size_t i = 0; i < px->subscriber_count; i++)
		if (px->subscribers[i] == node)
			return;
	if (!xrma_pximc_grow((void **)&px->subscribers, &px->subscriber_cap,
			     px->subscriber_count + 1, sizeof(uint32_t)))
		px->subscribers[px->subscriber_count++] = node;
}

/* Queue a window-change notice for node (the service thread sends it). Under lock. */
void xrma_pximc_notice_windows(struct xrma_pximc *px, uint32_t node)
{
	bool known = false;

	for (size_t i = 0; i < px->subscriber_count; i++)
		known |= px->subscribers[i] == node;
	if (!known)
		return;
	for (size_t i = 0; i < px->notice_count; i++)
		if (px->notices[i].node == node)
			return;
	if (xrma_pximc_grow((void **)&px->notices, &px->notice_cap, px->notice_count + 1,
			    sizeof(*px->notices)))
		return;
	px->notices[px->notice_count++] = (struct xrma_pximc_notice){
		node, PXIMC_EVENT_WINDOW_STATE_CHANGE
	};
	pthread_cond_broadcast(&px->cond);
}

tPXIMC_Status xrma_pximc_find_interfaces(struct xrma_pximc *px, uint32_t max, uint32_t *ids,
					 uint32_t *actual)
{
	uint32_t nodes[1024];
	size_t count = 0;
	uint32_t n = 0;

	if (!actual || (max && !ids))
		return PXIMC_INVALID_ARGUMENT;
	if (xrma_node_list(px->ctx, nodes, 1024, &count))
		return PXIMC_INVALID_ARGUMENT;
	if (count > 1024)
		count = 1024;
	for (size_t i = 0; i < count; i++)
		n += nodes[i] != px->self && xrma_pximc_tree_edge(px, nodes[i]);
	*actual = n;
	if (n > max)
		return PXIMC_INSUFFICIENT_SPACE;
	n = 0;
	for (size_t i = 0; i < count; i++)
		if (nodes[i] != px->self && xrma_pximc_tree_edge(px, nodes[i]))
			ids[n++] = nodes[i] + 1;
	return PXIMC_SUCCESS;
}

tPXIMC_Status xrma_pximc_wait_interface_event(struct xrma_pximc *px, uint32_t interface_id,
					      uint32_t timeout_ms, uint32_t *reason)
{
	struct xrma_pximc_hdr hdr;
	struct xrma_pximc_iface *iface;
	uint64_t deadline = xrma_pximc_deadline(timeout_ms);
	tPXIMC_Status status = PXIMC_TIMEOUT;
	uint32_t node;
	bool subscribe;

	if (xrma_pximc_iface_node(px, interface_id, &node))
		return PXIMC_INVALID_INTERFACE;
	if (!reason)
		return PXIMC_INVALID_ARGUMENT;
	pthread_mutex_lock(&px->lock);
	iface = xrma_pximc_iface_get(px, node);
	subscribe = iface && !iface->subscribed;
	pthread_mutex_unlock(&px->lock);
	if (!iface)
		return PXIMC_SPACE_NOT_AVAILABLE;
	/* Asking once makes the remote side send us its window notices from now on. */
	if (subscribe && !xrma_pximc_call(px, node, XRMA_PXIMC_MSG_HELLO, 0, NULL, 0, &hdr, NULL, 0,
					  NULL)) {
		pthread_mutex_lock(&px->lock);
		xrma_pximc_iface_get(px, node)->subscribed = true;
		pthread_mutex_unlock(&px->lock);
	}
	pthread_mutex_lock(&px->lock);
	for (;;) {
		uint64_t slice = xrma_pximc_now_ms() + XRMA_PXIMC_STATE_POLL_MS;
		bool live, link_up;
		uint32_t state;

		iface = xrma_pximc_iface_get(px, node);
		if (iface->latch) {
			*reason = iface->latch;
			iface->latch = 0;
			status = PXIMC_SUCCESS;
			break;
		}
		if (xrma_pximc_now_ms() >= deadline)
			break;
		xrma_pximc_cond_wait(px, slice < deadline ? slice : deadline);
		pthread_mutex_unlock(&px->lock);
		live = xrma_pximc_node_live(px, node);
		link_up = !live || xrma_pximc_link_up(px, node);
		state = live && link_up ? PXIMC_STATE_UP : PXIMC_STATE_DOWN;
		pthread_mutex_lock(&px->lock);
		/* Our own link going down is seen here: no core event names our sessions. */
		xrma_pximc_iface_link(px, node, link_up);
		iface = xrma_pximc_iface_get(px, node);
		if (state != iface->state) {
			iface->state = state;
			iface->latch |= PXIMC_EVENT_INTERFACE_STATE_CHANGE;
		}
	}
	pthread_mutex_unlock(&px->lock);
	return status;
}

tPXIMC_Status xrma_pximc_find_windows(struct xrma_pximc *px, uint32_t interface_id, uint32_t max,
				      uint32_t *ids, uint32_t *actual)
{
	uint32_t found[XRMA_PXIMC_FIND_MAX];
	struct xrma_pximc_hdr hdr;
	uint32_t node;
	int ret;

	if (xrma_pximc_iface_node(px, interface_id, &node))
		return PXIMC_INVALID_INTERFACE;
	if (!actual || (max && !ids))
		return PXIMC_INVALID_ARGUMENT;
	ret = xrma_pximc_call(px, node, XRMA_PXIMC_MSG_FIND, 0, NULL, 0, &hdr, found, sizeof(found),
			      NULL);
	if (ret)
		return xrma_pximc_status(ret, PXIMC_INTERFACE_DOWN);
	if (hdr.arg > XRMA_PXIMC_FIND_MAX || hdr.len != hdr.arg * sizeof(uint32_t))
		return PXIMC_INTERFACE_DOWN;
	*actual = hdr.arg;
	if (hdr.arg > max)
		return PXIMC_INSUFFICIENT_SPACE;
	if (hdr.len)
		memcpy(ids, found, hdr.len);   /* ids may be NULL when max is 0 */
	return PXIMC_SUCCESS;
}
