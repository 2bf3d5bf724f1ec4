/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/sci/sci_mem.c: exports and imports through address translation
 * tables. An export takes a run of consecutive entries of its node's ATT (the
 * host fabric's window space: one window of att_entries pages, carved in
 * att_page_size units), which gives it a 48-bit offset in the node's SCI space
 * and so a global address (node << 48 | offset, xrma_seg_bus_addr). An import
 * takes entries of the importer's ATT, counted per context; the table's
 * limits are the refusals the documentation lists, each with a detail that
 * names them. A raw import by global address (SCIConnectSCISpace) finds its
 * owner in the node's ATT; the owner's [sci] raw_space says who may do it.
 */
#include "providers/sci/sci.h"

#include <stdlib.h>

static uint64_t entries_for(const struct sci_model *model, uint64_t len)
{
	return (len + model->att_page_size - 1) / model->att_page_size;
}

int xrma_prov_sci_mem_export(void *state, struct xrma_prov_mem *mem, uint32_t access,
			     struct xrma_prov_key *key)
{
	struct hostfab_ep *ep = state;
	const struct sci_model *model;
	int ret;

	if (!ep || !mem)
		return -XRMA_EINVAL;
	model = sci_model_of(ep);
	ret = hostfab_mem_export(state, mem, access, key);
	if (ret == -XRMA_ENOSPC || ret == -XRMA_ERANGE) {
		uint64_t len = ((struct hostfab_mem *)mem)->len;

		hostfab_detail("sci: node %u has no run of %llu free ATT entries for %llu bytes "
			       "(att_entries=%u of att_page_size=%llu)", ep->self.node,
			       (unsigned long long)entries_for(model, len), (unsigned long long)len,
			       model->att_entries, (unsigned long long)model->att_page_size);
	}
	return ret;
}

int xrma_prov_sci_mem_import(void *state, const struct xrma_prov_addr *owner,
			     const struct xrma_prov_key *key, size_t len, uint32_t access,
			     struct xrma_prov_rmem **rmem)
{
	struct hostfab_ep *ep = state;
	struct sci_model *model;
	struct xrma_prov_rmem *h;
	struct sci_rmem *r;
	uint64_t need;
	int ret;

	if (!ep || !owner || !rmem)
		return -XRMA_EINVAL;
	model = sci_model_of(ep);
	need = entries_for(model, len);
	r = calloc(1, sizeof(*r));
	if (!r)
		return -XRMA_ENOMEM;
	pthread_mutex_lock(&model->lock);
	if (need > model->att_entries - model->import_entries) {
		uint32_t used = model->import_entries;

		pthread_mutex_unlock(&model->lock);
		free(r);
		hostfab_detail("sci: importing %zu bytes needs %llu ATT entries; %u of att_entries=%u "
			       "are taken by this context's imports", len, (unsigned long long)need,
			       used, model->att_entries);
		return -XRMA_ENOSPC;
	}
	model->import_entries += (uint32_t)need;
	pthread_mutex_unlock(&model->lock);
	ret = hostfab_mem_import(state, owner, key, len, access, &h);
	if (ret) {
		pthread_mutex_lock(&model->lock);
		model->import_entries -= (uint32_t)need;
		pthread_mutex_unlock(&model->lock);
		free(r);
		return ret;
	}
	r->h = (struct hostfab_rmem *)h;
	r->node = owner->node;
	r->att_entries = (uint32_t)need;
	atomic_init(&r->retriable, 0);
	atomic_init(&r->fatal, 0);
	*rmem = (struct xrma_prov_rmem *)r;
	return 0;
}

void xrma_prov_sci_mem_unimport(void *state, struct xrma_prov_rmem *rmem)
{
	struct hostfab_ep *ep = state;
	struct sci_rmem *r = (struct sci_rmem *)rmem;
	struct sci_model *model;

	if (!ep || !r)
		return;
	model = sci_model_of(ep);
	hostfab_mem_unimport(state, (struct xrma_prov_rmem *)r->h);
	pthread_mutex_lock(&model->lock);
	model->import_entries -= r->att_entries;
	pthread_mutex_unlock(&model->lock);
	free(r);
}

int xrma_prov_sci_bus_owner(void *state, uint32_t node, uint64_t bus, struct xrma_prov_addr *owner)
{
	if (!sci_node_valid(node)) {
		hostfab_detail("sci: %u is not an SCI node id (multiples of 4, 4..0x%x)", node,
			       SCI_NODE_MAX);
		return -XRMA_ENODEV;
	}
	/* A global address names its node: one of another node is not in node's space. */
	if (bus >> SCI_OFFSET_BITS != node) {
		hostfab_detail("sci: 0x%016llx is an address of node %llu, not of node %u",
			       (unsigned long long)bus, (unsigned long long)(bus >> SCI_OFFSET_BITS),
			       node);
		return -XRMA_ENOENT;
	}
	return hostfab_bus_owner(state, node, bus, owner);
}

int xrma_prov_sci_bus_permit(void *state, const struct xrma_prov_addr *src)
{
	struct hostfab_ep *ep = state;

	if (!ep || !src)
		return -XRMA_EINVAL;
	switch (sci_model_of(ep)->raw_space) {
	case SCI_RAW_ALL:
		return 0;
	case SCI_RAW_USER:
		if (hostfab_peer_same_user(ep, src))
			return 0;
		break;
	case SCI_RAW_NONE:
		break;
	}
	hostfab_detail("sci: node %u refuses raw SCI space access to node %u (sci.raw_space)",
		       ep->self.node, src->node);
	return -XRMA_EPERM;
}
