/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_query.c: SCIQuery's segment commands (Dolphin's
 * SCI_Q_LOCAL_SEGMENT and SCI_Q_REMOTE_SEGMENT): the bus address of a local
 * segment, or of the window a remote segment was connected by, on providers
 * that model bus addresses (XRMA_CAP_BUS_ADDR). Elsewhere the answer is
 * SCI_ERR_NOT_SUPPORTED with a sentence in xrma_error_detail. The adapter
 * and string commands stay in sisci_general.c; docs/sisci.md has the rules.
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
		ret = xrma_seg_bus_addr(l->seg, &bus);
		if (ret == -XRMA_ENOTAVAIL) {
			err = SCI_ERR_NOT_AVAILABLE;
			xrma_detail_set("SCIQuery: a segment has a bus address once it has been made "
					"available (SCISetSegmentAvailable)");
		} else if (ret) {
			err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
		}
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
	} else {
		/*
		 * An import by segment id learns no address from its owner; the owner
		 * can tell it (SCI_Q_LOCAL_SEGMENT_IOADDR) and SCIConnectSCISpace
		 * imports by that address.
		 */
		err = SCI_ERR_NOT_SUPPORTED;
		xrma_detail_set("SCIQuery: a remote segment connected by id has no bus address here; "
				"one connected by SCIConnectSCISpace has");
	}
	pthread_mutex_unlock(&r->lock);
	xrma_sisci_obj_put(&r->obj);
	if (err == SCI_ERR_OK)
		q->data.ioaddr = bus;
	return err;
}
