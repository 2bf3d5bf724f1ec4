/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/loopback/loopback_control.c: the control channel, names and
 * discovery of the loopback provider. Each endpoint has one FIFO inbox (control
 * messages, peer_down notices and link events together, so a peer's last words
 * come before its death notice) and an eventfd the core's service thread polls;
 * progress delivers the inbox through the upcalls with no lock held. Names are a
 * sorted id table per (node, name space); see loopback.h for the locking.
 */
#include "providers/loopback/loopback.h"

#include <unistd.h>

/* ---- the inbox ---- */

struct xrma_prov_loopback_item *xrma_prov_loopback_item_new(enum xrma_prov_loopback_item_kind kind,
							    size_t len)
{
	struct xrma_prov_loopback_item *item = calloc(1, sizeof(*item) + len);

	if (item) {
		item->kind = kind;
		item->len = len;
	}
	return item;
}

void xrma_prov_loopback_inbox_push_locked(struct xrma_prov_loopback_ep *ep,
					  struct xrma_prov_loopback_item *item)
{
	uint64_t one = 1;
	ssize_t ret;

	xrma_prov_loopback_assert_locked(ep->fabric);
	item->next = NULL;
	if (ep->inbox_tail)
		ep->inbox_tail->next = item;
	else
		ep->inbox_head = item;
	ep->inbox_tail = item;
	/*
	 * Under the lock, so close (which detaches ep under the same lock before
	 * closing the fd) cannot close it under us. The counter cannot overflow in
	 * practice; a full counter is readable anyway, which is all we need.
	 */
	ret = write(ep->efd, &one, sizeof(one));
	(void)ret;
}

struct xrma_prov_loopback_item *xrma_prov_loopback_inbox_take_locked(struct xrma_prov_loopback_ep *ep)
{
	struct xrma_prov_loopback_item *head = ep->inbox_head;

	xrma_prov_loopback_assert_locked(ep->fabric);
	ep->inbox_head = ep->inbox_tail = NULL;
	return head;
}

static struct xrma_prov_loopback_item *xrma_prov_loopback_inbox_pop(struct xrma_prov_loopback_ep *ep)
{
	struct xrma_prov_loopback_item *item;

	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	item = ep->inbox_head;
	if (item) {
		ep->inbox_head = item->next;
		if (!ep->inbox_head)
			ep->inbox_tail = NULL;
	}
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	return item;
}

int xrma_prov_loopback_progress_fd(void *state)
{
	struct xrma_prov_loopback_ep *ep = state;

	return ep ? ep->efd : -XRMA_EINVAL;
}

int xrma_prov_loopback_progress(void *state)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_item *item;
	uint64_t count;
	ssize_t ret;

	if (!ep)
		return -XRMA_EINVAL;
	/*
	 * Reset before draining: an item pushed after this read sets the counter
	 * again, so nothing queued is ever left without a readable fd. EAGAIN (a
	 * zero counter) is fine.
	 */
	ret = read(ep->efd, &count, sizeof(count));
	(void)ret;
	/* One item at a time, lock dropped: upcalls may call straight back into us. */
	while ((item = xrma_prov_loopback_inbox_pop(ep))) {
		switch (item->kind) {
		case XRMA_PROV_LOOPBACK_ITEM_MSG:
			if (ep->upcalls.ctrl_recv)
				ep->upcalls.ctrl_recv(ep->core, &item->addr, item->msg, item->len);
			break;
		case XRMA_PROV_LOOPBACK_ITEM_PEER_DOWN:
			if (ep->upcalls.peer_down)
				ep->upcalls.peer_down(ep->core, &item->addr, item->status);
			break;
		case XRMA_PROV_LOOPBACK_ITEM_LINK:
			if (ep->upcalls.link_event)
				ep->upcalls.link_event(ep->core, item->node, item->up);
			break;
		}
		free(item);
	}
	return 0;
}

int xrma_prov_loopback_ctrl_send(void *state, const struct xrma_prov_addr *dst, const void *msg,
				 size_t len)
{
	struct xrma_prov_loopback_ep *ep = state, *to;
	struct xrma_prov_loopback_item *item;
	int ret = 0;

	if (!ep || !dst || !msg || !len)
		return -XRMA_EINVAL;
	if (len > xrma_prov_loopback_caps.ctrl_msg_max)
		return -XRMA_EMSGSIZE;
	/* Copied before taking the lock; thrown away if the send fails. */
	item = xrma_prov_loopback_item_new(XRMA_PROV_LOOPBACK_ITEM_MSG, len);
	if (!item)
		return -XRMA_ENOMEM;
	item->addr = ep->self;
	memcpy(item->msg, msg, len);

	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	if (ep->severed)
		ret = -XRMA_ELOST;
	else if (!(to = xrma_prov_loopback_ep_find_locked(ep->fabric, dst)))
		ret = -XRMA_ECONNRESET;
	else
		xrma_prov_loopback_inbox_push_locked(to, item);
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	if (ret)
		free(item);
	return ret;
}

/* ---- names ---- */

void xrma_prov_loopback_names_release_locked(struct xrma_prov_loopback_ep *ep)
{
	xrma_prov_loopback_assert_locked(ep->fabric);
	for (int ns = 0; ns < XRMA_NS_COUNT; ns++) {
		struct xrma_prov_loopback_idmap *m = &ep->node->names[ns];
		size_t kept = 0;

		for (size_t i = 0; i < m->n; i++)
			if (m->v[i].ep != ep->self.ep)
				m->v[kept++] = m->v[i];
		m->n = kept;
	}
}

int xrma_prov_loopback_name_bind(void *state, enum xrma_ns ns, uint64_t *id, uint64_t min,
				 uint64_t max)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_idmap *m;
	uint64_t want;
	int ret;

	if (!ep || !id || (unsigned)ns >= XRMA_NS_COUNT)
		return -XRMA_EINVAL;
	/* [min, max] only matters for XRMA_ID_ANY; an explicit id is taken as asked. */
	if (*id == XRMA_ID_ANY && min > max)
		return -XRMA_EINVAL;

	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	m = &ep->node->names[ns];
	if (ep->severed) {
		ret = -XRMA_ELOST;
	} else if (*id == XRMA_ID_ANY) {
		/* XRMA_ID_ANY itself is never handed out: it would read as "any" again. */
		ret = xrma_prov_loopback_idmap_first_free(m, min, max < XRMA_ID_ANY ? max : XRMA_ID_ANY - 1,
							  &want);
	} else if (xrma_prov_loopback_idmap_find(m, *id)) {
		ret = -XRMA_EADDRINUSE;
	} else {
		want = *id;
		ret = 0;
	}
	if (!ret)
		ret = xrma_prov_loopback_idmap_insert(m, (struct xrma_prov_loopback_idmap_entry){
							      .id = want, .ep = ep->self.ep });
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	if (!ret)
		*id = want;
	return ret;
}

int xrma_prov_loopback_name_unbind(void *state, enum xrma_ns ns, uint64_t id)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_idmap_entry *e;
	int ret = 0;

	if (!ep || (unsigned)ns >= XRMA_NS_COUNT)
		return -XRMA_EINVAL;
	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	e = xrma_prov_loopback_idmap_find(&ep->node->names[ns], id);
	/* A severed endpoint's names were released when it was cut off. */
	if (!e || e->ep != ep->self.ep || ep->severed)
		ret = -XRMA_ENOENT;
	else
		xrma_prov_loopback_idmap_remove(&ep->node->names[ns], id);
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	return ret;
}

int xrma_prov_loopback_name_lookup(void *state, uint32_t node_id, enum xrma_ns ns, uint64_t id,
				   struct xrma_prov_addr *owner)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_node *node;
	struct xrma_prov_loopback_idmap_entry *e;
	int ret = 0;

	if (!ep || !owner || (unsigned)ns >= XRMA_NS_COUNT)
		return -XRMA_EINVAL;
	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	node = xrma_prov_loopback_node_get_locked(ep->fabric, node_id, false);
	if (ep->severed) {
		ret = -XRMA_ELOST;
	} else if (!node || !node->live_eps) {
		ret = -XRMA_ENODEV;
	} else if (!(e = xrma_prov_loopback_idmap_find(&node->names[ns], id))) {
		ret = -XRMA_ENOENT;
	} else {
		owner->node = node_id;
		owner->ep = e->ep;
	}
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	return ret;
}

/* ---- discovery and liveness ---- */

int xrma_prov_loopback_node_list(void *state, uint32_t *ids, size_t max, size_t *count)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_idmap *nodes;
	size_t n = 0;
	int ret = 0;

	if (!ep || !count || (!ids && max))
		return -XRMA_EINVAL;
	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	nodes = &ep->fabric->nodes;
	if (ep->severed) {
		ret = -XRMA_ELOST;
	} else {
		/* The node table is sorted by id, so the list comes out ascending. */
		for (size_t i = 0; i < nodes->n; i++) {
			const struct xrma_prov_loopback_node *node = nodes->v[i].ptr;

			if (!node->live_eps)
				continue;
			if (n < max)
				ids[n] = node->id;
			n++;
		}
		*count = n;
	}
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	return ret;
}

int xrma_prov_loopback_node_probe(void *state, uint32_t node_id, int timeout_ms)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_node *node;
	int ret;

	(void)timeout_ms;   /* the answer is known at once in one process */
	if (!ep)
		return -XRMA_EINVAL;
	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	node = xrma_prov_loopback_node_get_locked(ep->fabric, node_id, false);
	if (ep->severed)
		ret = -XRMA_ELOST;
	else
		ret = node && node->live_eps ? 0 : -XRMA_ENODEV;
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	return ret;
}
