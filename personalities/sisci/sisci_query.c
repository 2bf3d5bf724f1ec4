/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_query.c: SCIQuery's segment commands (Dolphin's
 * SCI_Q_LOCAL_SEGMENT and SCI_Q_REMOTE_SEGMENT): the bus address of a local
 * segment (from SCIPrepareSegment on), or of a remote segment on its owner's
 * node (connected by id or as a window), on providers that model bus
 * addresses (XRMA_CAP_BUS_ADDR). Elsewhere the answer is
 * SCI_ERR_NOT_SUPPORTED with a sentence in xrma_error_detail. The adapter
 * and string commands stay in sisci_general.c; docs/sisci.md has the rules.
 * SCI_Q_MAP says whether a map's memory is this node's.
 */
#include "personalities/sisci/sisci.h"
#include "common/detail.h"

sci_error_t xrma_sisci_query_local_segment(sci_query_local_segment_t *q)
{
	struct xrma_sisci_lseg *l;
	sci_error_t err = SCI_ERR_OK;
	uint64_t bus = 0;
	int ret;

	if (!q)
		return SCI_ERR_ILLEGAL_PARAMETER;
	l = XRMA_SISCI_GET(q->segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	if (!l)
		return SCI_ERR_ILLEGAL_PARAMETER;
	if (q->subcommand != SCI_Q_LOCAL_SEGMENT_IOADDR && q->subcommand != SCI_Q_LOCAL_SEGMENT_PHYS_ADDR) {
		xrma_sisci_obj_put(&l->obj);
		return SCI_ERR_ILLEGAL_QUERY;
	}
	pthread_mutex_lock(&l->lock);
	if (!(l->node->caps.flags & XRMA_CAP_BUS_ADDR)) {
		err = SCI_ERR_NOT_SUPPORTED;
		xrma_detail_set("SCIQuery: this provider models no bus addresses (ntb and sci do)");
	} else if (l->attach_rseg) {
		/* Memory attached by bus address: the segment is that memory. */
		bus = l->attach_bus;
	} else if (!l->seg || (l->flags & SCI_FLAG_PRIVATE)) {
		err = SCI_ERR_NOT_AVAILABLE;
		xrma_detail_set("SCIQuery: the segment has %s, so no bus address",
				l->seg ? "private memory (never exported)" : "no memory yet");
	} else if (!l->prepared) {
		err = SCI_ERR_SEGMENT_NOT_PREPARED;
	} else {
		/*
		 * As on Dolphin's adapters, a prepared segment has its bus address
		 * before it is made available: give it one without letting importers in.
		 */
		ret = xrma_seg_export(l->seg, XRMA_EXPORT_ADDRESS_ONLY);
		if (!ret)
			ret = xrma_seg_bus_addr(l->seg, &bus);
		if (ret)
			err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
	}
	pthread_mutex_unlock(&l->lock);
	xrma_sisci_obj_put(&l->obj);
	/* No IOMMU is modelled: the physical address is the bus address. */
	if (err == SCI_ERR_OK)
		q->data.ioaddr = bus;
	return err;
}

sci_error_t xrma_sisci_query_remote_segment(sci_query_remote_segment_t *q)
{
	struct xrma_sisci_rseg *r;
	sci_error_t err = SCI_ERR_OK;
	uint64_t bus = 0;
	int ret;

	if (!q)
		return SCI_ERR_ILLEGAL_PARAMETER;
	r = XRMA_SISCI_GET(q->segment, XRMA_SISCI_RSEG, struct xrma_sisci_rseg);
	if (!r)
		return SCI_ERR_ILLEGAL_PARAMETER;
	if (q->subcommand != SCI_Q_REMOTE_SEGMENT_IOADDR) {
		xrma_sisci_obj_put(&r->obj);
		return SCI_ERR_ILLEGAL_QUERY;
	}
	pthread_mutex_lock(&r->lock);
	if (!(r->node->caps.flags & XRMA_CAP_BUS_ADDR)) {
		err = SCI_ERR_NOT_SUPPORTED;
		xrma_detail_set("SCIQuery: this provider models no bus addresses (ntb and sci do)");
	} else if (r->state != XRMA_SISCI_CONNECTED) {
		err = SCI_ERR_NOT_CONNECTED;
	} else if (r->space) {
		bus = r->bus;
	} else if (r->broadcast) {
		/* A group is many segments, each at its own address. */
		err = SCI_ERR_NOT_SUPPORTED;
		xrma_detail_set("SCIQuery: a broadcast group has no one bus address");
	} else {
		/* The owner's answer to the connect carried the address. */
		ret = xrma_rseg_bus_addr(r->rseg, &bus);
		if (ret == -XRMA_ENOTAVAIL) {
			err = SCI_ERR_NOT_AVAILABLE;
			xrma_detail_set("SCIQuery: the segment's owner runs a library that does not "
					"report bus addresses");
		} else if (ret) {
			err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
		}
	}
	pthread_mutex_unlock(&r->lock);
	xrma_sisci_obj_put(&r->obj);
	if (err == SCI_ERR_OK)
		q->data.ioaddr = bus;
	return err;
}

/*
 * Whether a map's memory is this node's: a local segment's always is; a
 * remote one's is when the segment's owner is the node of the adapter it was
 * connected through (a program connected to itself). A broadcast group spans
 * nodes, so it is not. SCI_Q_MAP_QUERY_REMOTE_MAPPED_TO_LOCAL_TARGET asks the
 * same of remote maps only (our reading: Dolphin documents no difference).
 */
sci_error_t xrma_sisci_query_map(sci_query_map_t *q)
{
	struct xrma_sisci_map *m;
	struct xrma_sisci_rseg *r;
	sci_error_t err = SCI_ERR_OK;
	unsigned int local = 0;

	if (!q)
		return SCI_ERR_ILLEGAL_PARAMETER;
	if (q->subcommand != SCI_Q_MAP_MAPPED_TO_LOCAL_TARGET &&
	    q->subcommand != SCI_Q_MAP_QUERY_REMOTE_MAPPED_TO_LOCAL_TARGET)
		return SCI_ERR_ILLEGAL_QUERY;
	m = xrma_sisci_map_enter(q->map);
	if (!m)
		return SCI_ERR_ILLEGAL_PARAMETER;
	r = m->rseg;
	if (!r) {
		if (q->subcommand == SCI_Q_MAP_QUERY_REMOTE_MAPPED_TO_LOCAL_TARGET) {
			err = SCI_ERR_ILLEGAL_PARAMETER;
			xrma_detail_set("SCIQuery: SCI_Q_MAP_QUERY_REMOTE_MAPPED_TO_LOCAL_TARGET "
					"asks about a map of a remote segment");
		}
		local = 1;
	} else {
		local = !r->broadcast && r->node_id == r->node->node_id;
	}
	xrma_sisci_map_leave(m);
	if (err == SCI_ERR_OK)
		q->data = local;
	return err;
}
