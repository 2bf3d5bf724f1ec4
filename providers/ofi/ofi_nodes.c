/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_nodes.c: the peers of the node file (parsed by the core,
 * common/node_list.c: "id host[:port]" per line) and the libfabric
 * address of each peer, resolved on first use with fi_getinfo and inserted
 * into the address vector; the address of a peer's target endpoint is its
 * control address with the port its keys name. docs/config.md documents the
 * format.
 */
#include "providers/ofi/ofi.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_domain.h>
#include <xrma/errors.h>
#include "common/node_list.h"

int ofi_nodes_load(struct ofi_ep *ep, const char *path, const char *key)
{
	struct xrma_node_list list;
	int ret;

	/* One format for the whole library: the core parses, ofi keeps what it resolves. */
	ret = ofi_core->node_list_load(path, key, &list);
	if (ret)
		return ret;
	ep->peers = calloc(list.count ? list.count : 1, sizeof(*ep->peers));
	if (!ep->peers) {
		ofi_core->node_list_free(&list);
		return -XRMA_ENOMEM;
	}
	for (size_t i = 0; i < list.count; i++) {
		struct ofi_peer *peer = &ep->peers[i];
		const struct xrma_node_entry *e = &list.entries[i];

		peer->node = e->node;
		snprintf(peer->host, sizeof(peer->host), "%s", e->host);
		snprintf(peer->port, sizeof(peer->port), "%s", e->port[0] ? e->port : OFI_DEFAULT_PORT);
		peer->addr = FI_ADDR_NOTAVAIL;
		peer->rma_addr = FI_ADDR_NOTAVAIL;
	}
	ep->peer_count = list.count;
	ofi_core->node_list_free(&list);
	return 0;
}

struct ofi_peer *ofi_peer_find(struct ofi_ep *ep, uint32_t node)
{
	for (size_t i = 0; i < ep->peer_count; i++)
		if (ep->peers[i].node == node)
			return &ep->peers[i];
	return NULL;
}

int ofi_peer_addr_locked(struct ofi_ep *ep, struct ofi_peer *peer, fi_addr_t *addr)
{
	struct fi_info *hints, *info = NULL;
	int ret;

	if (peer->addr != FI_ADDR_NOTAVAIL) {
		*addr = peer->addr;
		return 0;
	}
	hints = fi_dupinfo(ep->info);
	if (!hints)
		return -XRMA_ENOMEM;
	free(hints->src_addr);
	hints->src_addr = NULL;
	hints->src_addrlen = 0;
	free(hints->dest_addr);
	hints->dest_addr = NULL;
	hints->dest_addrlen = 0;
	ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), peer->host, peer->port, 0,
			 hints, &info);
	fi_freeinfo(hints);
	if (ret || !info->dest_addr) {
		if (info)
			fi_freeinfo(info);
		ofi_detail("ofi: cannot resolve node %u at %s:%s", peer->node, peer->host, peer->port);
		return -XRMA_EHOSTUNREACH;
	}
	ret = fi_av_insert(ep->av, info->dest_addr, 1, &peer->addr, 0, NULL);
	fi_freeinfo(info);
	if (ret != 1) {
		peer->addr = FI_ADDR_NOTAVAIL;
		ofi_detail("ofi: cannot add node %u (%s:%s) to the address vector", peer->node,
			   peer->host, peer->port);
		return -XRMA_EHOSTUNREACH;
	}
	*addr = peer->addr;
	return 0;
}

int ofi_peer_rma_addr_locked(struct ofi_ep *ep, struct ofi_peer *peer, uint32_t port,
			     fi_addr_t *addr)
{
	union ofi_sockaddr name;
	size_t len = sizeof(name);
	fi_addr_t control;
	int ret;

	if (peer->rma_port == port && peer->rma_addr != FI_ADDR_NOTAVAIL) {
		*addr = peer->rma_addr;
		return 0;
	}
	if ((ret = ofi_peer_addr_locked(ep, peer, &control)))
		return ret;
	memset(&name, 0, sizeof(name));
	if (port > 65535 || fi_av_lookup(ep->av, control, &name, &len) || len > sizeof(name) ||
	    !ofi_sockaddr_set_port(&name, (uint16_t)port)) {
		ofi_detail("ofi: node %u's target endpoint has no socket address", peer->node);
		return -XRMA_EHOSTUNREACH;
	}
	/*
	 * A new incarnation's port replaces the cached one; the old entry stays in
	 * the AV (one per incarnation met), where a transfer still in flight to it
	 * may need it.
	 */
	if (fi_av_insert(ep->av, &name, 1, &peer->rma_addr, 0, NULL) != 1) {
		peer->rma_addr = FI_ADDR_NOTAVAIL;
		ofi_detail("ofi: cannot add node %u's target endpoint to the address vector",
			   peer->node);
		return -XRMA_EHOSTUNREACH;
	}
	peer->rma_port = port;
	*addr = peer->rma_addr;
	return 0;
}

/* Put one AV entry on the doomed list; one that cannot be kept there stays in the AV. */
static void av_doom_locked(struct ofi_ep *ep, fi_addr_t addr)
{
	if (addr == FI_ADDR_NOTAVAIL)
		return;
	if (ep->av_doomed_count == ep->av_doomed_cap) {
		size_t cap = ep->av_doomed_cap ? 2 * ep->av_doomed_cap : 8;
		fi_addr_t *grown = realloc(ep->av_doomed, cap * sizeof(*grown));

		if (!grown)
			return;
		ep->av_doomed = grown;
		ep->av_doomed_cap = cap;
	}
	ep->av_doomed[ep->av_doomed_count++] = addr;
}

void ofi_peer_forget_locked(struct ofi_ep *ep, struct ofi_peer *peer)
{
	if (peer->addr == FI_ADDR_NOTAVAIL && peer->rma_addr == FI_ADDR_NOTAVAIL)
		return;
	av_doom_locked(ep, peer->addr);
	av_doom_locked(ep, peer->rma_addr);
	peer->addr = FI_ADDR_NOTAVAIL;
	peer->rma_addr = FI_ADDR_NOTAVAIL;
	peer->rma_port = 0;
	atomic_fetch_add(&ep->av_epoch, 1);
}

void ofi_av_purge(struct ofi_ep *ep)
{
	fi_addr_t *doomed;
	size_t count;

	pthread_mutex_lock(&ep->lock);
	count = ep->av_doomed_count;
	pthread_mutex_unlock(&ep->lock);
	if (!count)
		return;
	/* Every post that may use a doomed entry has returned, and later ones see av_epoch moved. */
	pthread_rwlock_wrlock(&ep->av_lock);
	pthread_mutex_lock(&ep->lock);
	doomed = ep->av_doomed;
	count = ep->av_doomed_count;
	ep->av_doomed = NULL;
	ep->av_doomed_count = ep->av_doomed_cap = 0;
	pthread_mutex_unlock(&ep->lock);
	if (count && fi_av_remove(ep->av, doomed, count, 0))
		ofi_detail("ofi: cannot remove %zu lost address(es) from the address vector", count);
	pthread_rwlock_unlock(&ep->av_lock);
	free(doomed);
}

void ofi_post_guard(struct ofi_ep *ep)
{
	pthread_rwlock_rdlock(&ep->av_lock);
}

void ofi_post_unguard(struct ofi_ep *ep)
{
	pthread_rwlock_unlock(&ep->av_lock);
}
