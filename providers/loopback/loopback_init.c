/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/loopback/loopback_init.c: the loopback provider object and its ops
 * table, endpoint open/close, the process-wide registry of fabrics (one per
 * fabric string, refcounted, freed with its last endpoint), and the fault hooks
 * of loopback_test.h (sever, gate, link). Memory, transfers and the control
 * channel live in loopback_mem.c, loopback_rma.c/_map.c and loopback_control.c.
 */
#include "providers/loopback/loopback.h"
#include "providers/loopback/loopback_test.h"

#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

static const struct xrma_provider_ops xrma_prov_loopback_ops = {
	.open = xrma_prov_loopback_open,
	.close = xrma_prov_loopback_close,
	.progress_fd = xrma_prov_loopback_progress_fd,
	.progress = xrma_prov_loopback_progress,
	.node_list = xrma_prov_loopback_node_list,
	.node_probe = xrma_prov_loopback_node_probe,
	.name_bind = xrma_prov_loopback_name_bind,
	.name_unbind = xrma_prov_loopback_name_unbind,
	.name_lookup = xrma_prov_loopback_name_lookup,
	.ctrl_send = xrma_prov_loopback_ctrl_send,
	.mem_alloc = xrma_prov_loopback_mem_alloc,
	.mem_free = xrma_prov_loopback_mem_free,
	.mem_export = xrma_prov_loopback_mem_export,
	.mem_unexport = xrma_prov_loopback_mem_unexport,
	.mem_import = xrma_prov_loopback_mem_import,
	.mem_unimport = xrma_prov_loopback_mem_unimport,
	.rma = xrma_prov_loopback_rma,
	.rma_try = xrma_prov_loopback_rma_try,
	.mem_register = xrma_prov_loopback_mem_register,
	.map = xrma_prov_loopback_map,
	.unmap = xrma_prov_loopback_unmap,
	.atomic = xrma_prov_loopback_atomic,
};

const struct xrma_provider xrma_prov_loopback = {
	.name = "loopback",
	.description = "all nodes inside one process (tests, single-process demos)",
	.caps = &xrma_prov_loopback_caps,
	.ops = &xrma_prov_loopback_ops,
};

/* ---- the registry of fabrics ---- */

/* Guards xrma_prov_loopback_fabrics and every fabric's refs. */
static pthread_mutex_t xrma_prov_loopback_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xrma_prov_loopback_fabric *xrma_prov_loopback_fabrics;

static struct xrma_prov_loopback_fabric *xrma_prov_loopback_fabric_new(const char *name)
{
	struct xrma_prov_loopback_fabric *fabric = calloc(1, sizeof(*fabric));

	if (!fabric)
		return NULL;
	fabric->name = strdup(name);
	if (!fabric->name) {
		free(fabric);
		return NULL;
	}
	pthread_mutex_init(&fabric->lock.mutex, NULL);
	atomic_init(&fabric->lock.held, false);
	pthread_cond_init(&fabric->gate_open, NULL);
	return fabric;
}

/* Runs once the last reference is gone: no endpoint, hence no memory, is left. */
static void xrma_prov_loopback_fabric_destroy(struct xrma_prov_loopback_fabric *fabric)
{
	assert(!fabric->eps && fabric->mems.n == 0);
	for (size_t i = 0; i < fabric->nodes.n; i++) {
		struct xrma_prov_loopback_node *node = fabric->nodes.v[i].ptr;

		for (int ns = 0; ns < XRMA_NS_COUNT; ns++)
			xrma_prov_loopback_idmap_fini(&node->names[ns]);
		free(node);
	}
	xrma_prov_loopback_idmap_fini(&fabric->nodes);
	xrma_prov_loopback_idmap_fini(&fabric->mems);
	pthread_cond_destroy(&fabric->gate_open);
	pthread_mutex_destroy(&fabric->lock.mutex);
	free(fabric->name);
	free(fabric);
}

/*
 * Take a reference on the fabric called name, creating it if create.
 * -XRMA_ENOENT if absent and !create, -XRMA_ENOMEM.
 */
static int xrma_prov_loopback_fabric_get(const char *name, bool create,
					 struct xrma_prov_loopback_fabric **out)
{
	struct xrma_prov_loopback_fabric *fabric;
	int ret = 0;

	pthread_mutex_lock(&xrma_prov_loopback_registry_lock);
	for (fabric = xrma_prov_loopback_fabrics; fabric; fabric = fabric->next)
		if (!strcmp(fabric->name, name))
			break;
	if (!fabric && create) {
		fabric = xrma_prov_loopback_fabric_new(name);
		if (fabric) {
			fabric->next = xrma_prov_loopback_fabrics;
			xrma_prov_loopback_fabrics = fabric;
		} else {
			ret = -XRMA_ENOMEM;
		}
	} else if (!fabric) {
		ret = -XRMA_ENOENT;
	}
	if (fabric)
		fabric->refs++;
	pthread_mutex_unlock(&xrma_prov_loopback_registry_lock);
	*out = fabric;
	return ret;
}

static void xrma_prov_loopback_fabric_put(struct xrma_prov_loopback_fabric *fabric)
{
	bool last;

	pthread_mutex_lock(&xrma_prov_loopback_registry_lock);
	last = --fabric->refs == 0;
	if (last) {
		struct xrma_prov_loopback_fabric **p = &xrma_prov_loopback_fabrics;

		while (*p != fabric)
			p = &(*p)->next;
		*p = fabric->next;
	}
	pthread_mutex_unlock(&xrma_prov_loopback_registry_lock);
	if (last)
		xrma_prov_loopback_fabric_destroy(fabric);
}

/* ---- fabric membership ---- */

struct xrma_prov_loopback_node *xrma_prov_loopback_node_get_locked(
	struct xrma_prov_loopback_fabric *fabric, uint32_t id, bool create)
{
	struct xrma_prov_loopback_idmap_entry *e;
	struct xrma_prov_loopback_node *node;

	xrma_prov_loopback_assert_locked(fabric);
	e = xrma_prov_loopback_idmap_find(&fabric->nodes, id);
	if (e || !create)
		return e ? e->ptr : NULL;
	node = calloc(1, sizeof(*node));
	if (!node)
		return NULL;
	node->id = id;
	if (xrma_prov_loopback_idmap_insert(&fabric->nodes,
					    (struct xrma_prov_loopback_idmap_entry){ .id = id, .ptr = node })) {
		free(node);
		return NULL;
	}
	return node;
}

struct xrma_prov_loopback_ep *xrma_prov_loopback_ep_find_locked(
	struct xrma_prov_loopback_fabric *fabric, const struct xrma_prov_addr *addr)
{
	xrma_prov_loopback_assert_locked(fabric);
	for (struct xrma_prov_loopback_ep *ep = fabric->eps; ep; ep = ep->next)
		if (ep->self.node == addr->node && ep->self.ep == addr->ep)
			return ep;
	return NULL;
}

/* Take ep out of fabric->eps and release its names; its state stays. */
static void xrma_prov_loopback_ep_leave_locked(struct xrma_prov_loopback_ep *ep)
{
	struct xrma_prov_loopback_fabric *fabric = ep->fabric;

	xrma_prov_loopback_assert_locked(fabric);
	if (ep->prev)
		ep->prev->next = ep->next;
	else
		fabric->eps = ep->next;
	if (ep->next)
		ep->next->prev = ep->prev;
	ep->prev = ep->next = NULL;
	ep->live = false;
	ep->node->live_eps--;
	xrma_prov_loopback_names_release_locked(ep);
}

static void xrma_prov_loopback_items_free(struct xrma_prov_loopback_item *item)
{
	while (item) {
		struct xrma_prov_loopback_item *next = item->next;

		free(item);
		item = next;
	}
}

/* A chain of n zeroed peer_down items, or NULL (n > 0) when memory runs out. */
static struct xrma_prov_loopback_item *xrma_prov_loopback_items_alloc(size_t n,
								     enum xrma_prov_loopback_item_kind kind)
{
	struct xrma_prov_loopback_item *head = NULL;

	for (size_t i = 0; i < n; i++) {
		struct xrma_prov_loopback_item *item = xrma_prov_loopback_item_new(kind, 0);

		if (!item) {
			xrma_prov_loopback_items_free(head);
			return NULL;
		}
		item->next = head;
		head = item;
	}
	return head;
}

/* Callers allocated exactly one item per recipient under the same lock hold. */
static struct xrma_prov_loopback_item *xrma_prov_loopback_items_pop(struct xrma_prov_loopback_item **list)
{
	struct xrma_prov_loopback_item *item = *list;

	assert(item);
	*list = item->next;
	item->next = NULL;
	return item;
}

static size_t xrma_prov_loopback_live_count_locked(struct xrma_prov_loopback_fabric *fabric)
{
	size_t n = 0;

	for (struct xrma_prov_loopback_ep *ep = fabric->eps; ep; ep = ep->next)
		n++;
	return n;
}

/* ---- open / close ---- */

int xrma_prov_loopback_open(const struct xrma_prov_open_args *args, void **state,
			    struct xrma_prov_addr *self)
{
	struct xrma_prov_loopback_fabric *fabric;
	struct xrma_prov_loopback_ep *ep;
	long page_size = sysconf(_SC_PAGESIZE);
	int ret;

	if (!args || !args->fabric || !args->upcalls || !state || !self)
		return -XRMA_EINVAL;
	if (args->node_id > xrma_prov_loopback_caps.max_node_id)
		return -XRMA_EINVAL;
	/* Mapping hands out the owner's pages as they are: the advertised page must be real. */
	if (page_size <= 0 || (size_t)page_size != xrma_prov_loopback_caps.page_size)
		return -XRMA_ENOTSUP;

	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -XRMA_ENOMEM;
	ep->upcalls = *args->upcalls;
	ep->core = args->core;
	ep->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ep->efd < 0) {
		ret = errno == ENOMEM ? -XRMA_ENOMEM : -XRMA_ENOSPC;
		goto err_free_ep;
	}
	ret = xrma_prov_loopback_fabric_get(args->fabric, true, &fabric);
	if (ret)
		goto err_close_efd;

	xrma_prov_loopback_lock_take(&fabric->lock);
	ep->node = xrma_prov_loopback_node_get_locked(fabric, args->node_id, true);
	if (!ep->node) {
		xrma_prov_loopback_lock_drop(&fabric->lock);
		ret = -XRMA_ENOMEM;
		goto err_put_fabric;
	}
	ep->fabric = fabric;
	ep->self.node = args->node_id;
	ep->self.ep = ++ep->node->last_ep;
	ep->live = true;
	ep->next = fabric->eps;
	if (fabric->eps)
		fabric->eps->prev = ep;
	fabric->eps = ep;
	ep->node->live_eps++;
	xrma_prov_loopback_lock_drop(&fabric->lock);

	*self = ep->self;
	*state = ep;
	return 0;

err_put_fabric:
	xrma_prov_loopback_fabric_put(fabric);
err_close_efd:
	close(ep->efd);
err_free_ep:
	free(ep);
	return ret;
}

void xrma_prov_loopback_close(void *state)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_fabric *fabric;
	struct xrma_prov_loopback_item *dropped, *notices = NULL;
	struct xrma_prov_loopback_mem *doomed = NULL;

	if (!ep)
		return;
	fabric = ep->fabric;
	xrma_prov_loopback_lock_take(&fabric->lock);
	if (ep->live) {
		/* A severed endpoint was already announced (as ELOST); say nothing twice. */
		xrma_prov_loopback_ep_leave_locked(ep);
		notices = xrma_prov_loopback_items_alloc(xrma_prov_loopback_live_count_locked(fabric),
							 XRMA_PROV_LOOPBACK_ITEM_PEER_DOWN);
		if (!notices && fabric->eps) {
			/*
			 * close cannot fail, and a missed peer_down would leave peers
			 * waiting on us for ever: out of memory here is fatal.
			 */
			fprintf(stderr, "xrma loopback: out of memory announcing a closed endpoint\n");
			abort();
		}
		for (struct xrma_prov_loopback_ep *peer = fabric->eps; peer; peer = peer->next) {
			struct xrma_prov_loopback_item *item = xrma_prov_loopback_items_pop(&notices);

			item->addr = ep->self;
			item->status = -XRMA_ECONNRESET;
			xrma_prov_loopback_inbox_push_locked(peer, item);
		}
	}
	xrma_prov_loopback_mem_release_all_locked(ep, &doomed);
	dropped = xrma_prov_loopback_inbox_take_locked(ep);
	xrma_prov_loopback_lock_drop(&fabric->lock);

	xrma_prov_loopback_items_free(dropped);
	xrma_prov_loopback_mem_destroy(doomed);
	close(ep->efd);
	free(ep);
	xrma_prov_loopback_fabric_put(fabric);
}

/* ---- fault hooks (loopback_test.h) ---- */

int xrma_prov_loopback_sever(const char *fabric_name, uint32_t node_id)
{
	struct xrma_prov_loopback_fabric *fabric;
	struct xrma_prov_loopback_ep *severed = NULL, *ep, *next;
	struct xrma_prov_loopback_item *notices;
	size_t nsevered = 0, nlive;
	int ret;

	if (!fabric_name)
		return -XRMA_EINVAL;
	ret = xrma_prov_loopback_fabric_get(fabric_name, false, &fabric);
	if (ret)
		return ret;
	xrma_prov_loopback_lock_take(&fabric->lock);
	nlive = xrma_prov_loopback_live_count_locked(fabric);
	for (ep = fabric->eps; ep; ep = ep->next)
		nsevered += ep->self.node == node_id;
	if (!nsevered) {
		ret = -XRMA_ENODEV;
		goto out_unlock;
	}
	/* Allocate every notice first, so failure changes nothing. */
	notices = xrma_prov_loopback_items_alloc(2 * nsevered * (nlive - nsevered),
						 XRMA_PROV_LOOPBACK_ITEM_PEER_DOWN);
	if (!notices && nlive > nsevered) {
		ret = -XRMA_ENOMEM;
		goto out_unlock;
	}

	/* All of the node goes at once: move its endpoints onto a private chain. */
	for (ep = fabric->eps; ep; ep = next) {
		next = ep->next;
		if (ep->self.node != node_id)
			continue;
		xrma_prov_loopback_ep_leave_locked(ep);
		ep->severed = true;
		xrma_prov_loopback_mem_lose_locked(ep);
		ep->next = severed;
		severed = ep;
	}
	for (ep = severed; ep; ep = ep->next) {
		for (struct xrma_prov_loopback_ep *peer = fabric->eps; peer; peer = peer->next) {
			struct xrma_prov_loopback_item *item = xrma_prov_loopback_items_pop(&notices);

			item->addr = ep->self;
			item->status = -XRMA_ELOST;
			xrma_prov_loopback_inbox_push_locked(peer, item);
			item = xrma_prov_loopback_items_pop(&notices);
			item->addr = peer->self;
			item->status = -XRMA_ELOST;
			xrma_prov_loopback_inbox_push_locked(ep, item);
		}
	}
	for (ep = severed; ep; ep = next) {
		next = ep->next;
		ep->next = NULL;
	}
	assert(!notices);
out_unlock:
	xrma_prov_loopback_lock_drop(&fabric->lock);
	xrma_prov_loopback_fabric_put(fabric);
	return ret;
}

int xrma_prov_loopback_gate(const char *fabric_name, uint32_t node_id, bool closed)
{
	struct xrma_prov_loopback_fabric *fabric;
	struct xrma_prov_loopback_node *node;
	int ret;

	if (!fabric_name)
		return -XRMA_EINVAL;
	ret = xrma_prov_loopback_fabric_get(fabric_name, false, &fabric);
	if (ret)
		return ret;
	xrma_prov_loopback_lock_take(&fabric->lock);
	node = xrma_prov_loopback_node_get_locked(fabric, node_id, true);
	if (!node) {
		ret = -XRMA_ENOMEM;
	} else {
		node->gate_closed = closed;
		if (!closed)
			pthread_cond_broadcast(&fabric->gate_open);
	}
	xrma_prov_loopback_lock_drop(&fabric->lock);
	xrma_prov_loopback_fabric_put(fabric);
	return ret;
}

int xrma_prov_loopback_link(const char *fabric_name, uint32_t node_id, bool up)
{
	struct xrma_prov_loopback_fabric *fabric;
	struct xrma_prov_loopback_node *node;
	struct xrma_prov_loopback_item *events;
	size_t n = 0;
	int ret;

	if (!fabric_name)
		return -XRMA_EINVAL;
	ret = xrma_prov_loopback_fabric_get(fabric_name, false, &fabric);
	if (ret)
		return ret;
	xrma_prov_loopback_lock_take(&fabric->lock);
	node = xrma_prov_loopback_node_get_locked(fabric, node_id, true);
	if (!node) {
		ret = -XRMA_ENOMEM;
		goto out_unlock;
	}
	if (node->link_down == !up)
		goto out_unlock;      /* no change, no event */
	for (struct xrma_prov_loopback_ep *ep = fabric->eps; ep; ep = ep->next)
		n += ep->self.node != node_id;
	events = xrma_prov_loopback_items_alloc(n, XRMA_PROV_LOOPBACK_ITEM_LINK);
	if (!events && n) {
		ret = -XRMA_ENOMEM;
		goto out_unlock;
	}
	node->link_down = !up;
	for (struct xrma_prov_loopback_ep *ep = fabric->eps; ep; ep = ep->next) {
		struct xrma_prov_loopback_item *item;

		if (ep->self.node == node_id)
			continue;
		item = xrma_prov_loopback_items_pop(&events);
		item->node = node_id;
		item->up = up;
		xrma_prov_loopback_inbox_push_locked(ep, item);
	}
out_unlock:
	xrma_prov_loopback_lock_drop(&fabric->lock);
	xrma_prov_loopback_fabric_put(fabric);
	return ret;
}
