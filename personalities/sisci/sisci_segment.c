/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_segment.c: local segments and their state machine
 * (spec §2.3, digest §5.1): created (memory allocated, or EMPTY until
 * SCIRegisterSegmentMemory or SCIAttachPhysicalMemory) -> prepared -> available <-> unavailable,
 * removed only without maps or DMA entries (SCI_ERR_BUSY); importers still connected
 * are cut off, or make it SCI_ERR_BUSY under [sisci] remove_connected = busy
 * (the 1999 rule). Ids are the
 * core's per-node segment ids; an EMPTY segment holds its id with a one-page
 * placeholder until its memory is registered. Events from importers come from
 * the core's callback and go to the SISCI callback or the wait queue.
 */
#include "personalities/sisci/sisci.h"
#include "common/detail.h"

#include <stdlib.h>
#include <string.h>
#include "common/errno_keep.h"

/*
 * SCI_FLAG_AUTO_ID: ids the core picks, in its default range (docs/core.md).
 * SCI_FLAG_DMA_GLOBAL asks for a segment any DMA engine may reach: every
 * segment is one here, so it is accepted and changes nothing (docs/sisci.md).
 */
#define CREATE_FLAGS                                                                            \
	(SCI_FLAG_USE_CALLBACK | SCI_FLAG_EMPTY | SCI_FLAG_PRIVATE | SCI_FLAG_AUTO_ID |           \
	 SCI_FLAG_DMA_SOURCE_ONLY | SCI_FLAG_BROADCAST | SCI_FLAG_SHARED | SCI_FLAG_DMA_GLOBAL)

static void lseg_destroy(struct xrma_sisci_obj *obj)
{
	struct xrma_sisci_lseg *l = (struct xrma_sisci_lseg *)obj;

	xrma_sisci_evq_destroy(&l->events);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

static void lseg_on_event(void *arg, const struct xrma_event *event)
{
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(arg, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	struct xrma_sisci_event ev;

	if (!l)
		return; /* removed meanwhile */
	ev.reason = xrma_sisci_reason(event->type);
	ev.node = event->node;
	ev.status = xrma_sisci_error(event->status, XRMA_SISCI_DOMAIN_SEGMENT);
	if (xrma_sisci_evq_push(&l->events, &ev) &&
	    l->cb(l->cb_arg, arg, ev.reason, ev.node, 0, ev.status) == SCI_CALLBACK_CANCEL)
		xrma_sisci_evq_cancel_callback(&l->events);
	xrma_sisci_obj_put(&l->obj);
}

/* Open the core segment (addr NULL: provider memory) with l's id rules. */
static int open_core_seg(struct xrma_sisci_lseg *l, void *addr, size_t len, uint64_t id,
			 struct xrma_seg **seg)
{
	struct xrma_seg_attr attr = {
		.len = len,
		.addr = addr,
		.id = id,
		.access = XRMA_ACCESS_ALL,
		.flags = ((l->flags & SCI_FLAG_PRIVATE) ? XRMA_SEG_PRIVATE : 0) |
			 ((l->flags & SCI_FLAG_BROADCAST) ? XRMA_SEG_BROADCAST : 0),
	};

	return xrma_seg_open(l->node->ctx, &attr, seg);
}

void SCICreateSegment(sci_desc_t sd, sci_local_segment_t *segment, unsigned int segmentId,
		      size_t size, sci_cb_local_segment_t callback, void *callbackArg,
		      unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	const struct xrma_sisci_open_args args = {
		.flags = flags,
		.accepted = CREATE_FLAGS,
		.args_ok = segment && size && (!(flags & SCI_FLAG_USE_CALLBACK) || callback),
	};
	uint64_t id = (flags & SCI_FLAG_AUTO_ID) ? XRMA_ID_ANY : segmentId;
	struct xrma_seg *core = NULL;
	struct xrma_sisci_desc *d;
	struct xrma_sisci_node *node;
	struct xrma_sisci_lseg *l;
	sci_error_t err;
	int ret;

	l = xrma_sisci_open_begin(sd, sizeof(*l), &args, &d, &node, &err);
	/* A private segment has no id, so no group can name it. */
	if (l && (flags & SCI_FLAG_PRIVATE) && (flags & SCI_FLAG_BROADCAST))
		err = SCI_ERR_ILLEGAL_FLAG;
	else if (l && size > node->caps.max_seg_size)
		err = SCI_ERR_OUT_OF_RANGE;
	if (l && err != SCI_ERR_OK) {
		free(l);
		xrma_sisci_obj_put(&d->obj);
		l = NULL;
	}
	if (!l) {
		xrma_sisci_set(error, err);
		return;
	}
	l->desc = d;
	l->node = node;
	l->flags = flags;
	l->max_size = size;
	l->cb = (flags & SCI_FLAG_USE_CALLBACK) ? callback : NULL;
	l->cb_arg = callbackArg;
	pthread_mutex_init(&l->lock, NULL);
	xrma_sisci_evq_init(&l->events, l->cb != NULL);
	if (flags & SCI_FLAG_EMPTY) {
		/* No memory yet; a non-private segment still owns its id from now on. */
		ret = (flags & SCI_FLAG_PRIVATE) ? 0
						 : open_core_seg(l, NULL, l->node->caps.page_size, id,
								 &l->reserve);
		core = l->reserve;
	} else {
		ret = open_core_seg(l, NULL, size, id, &l->seg);
		core = l->seg;
		l->size = size;
	}
	if (!ret && core && !(flags & SCI_FLAG_PRIVATE)) {
		uint64_t got = 0;

		ret = xrma_seg_id(core, &got);
		l->id = (unsigned int)got;
	} else {
		l->id = segmentId;
	}
	if (!ret && l->seg)
		ret = xrma_seg_addr(l->seg, &l->addr);
	if (ret) {
		err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
		goto err_close;
	}
	err = xrma_sisci_obj_publish(&l->obj, XRMA_SISCI_LSEG, lseg_destroy);
	if (err != SCI_ERR_OK)
		goto err_close;
	if (l->seg)
		(void)xrma_seg_set_callback(l->seg, lseg_on_event, l->obj.handle);
	xrma_sisci_desc_child_add(d);
	*segment = l->obj.handle;
	goto put_desc;

err_close:
	if (core)
		(void)xrma_seg_close(core);
	xrma_sisci_evq_destroy(&l->events);
	pthread_mutex_destroy(&l->lock);
	free(l);
put_desc:
	xrma_sisci_obj_put(&d->obj);
	xrma_sisci_set(error, err);
}

/*
 * Give EMPTY segment l the memory [address, address+size): the checks and the
 * id handover SCIRegisterSegmentMemory and SCIAttachPhysicalMemory share.
 * Called with l->lock held.
 */
static sci_error_t lseg_give_memory(struct xrma_sisci_lseg *l, void *address, size_t size)
{
	struct xrma_seg *seg = NULL;
	sci_error_t err = SCI_ERR_OK;
	int ret = 0;

	if (!(l->flags & SCI_FLAG_EMPTY) || l->seg)
		err = SCI_ERR_ILLEGAL_OPERATION; /* not EMPTY, or given memory already */
	else if (!address)
		err = SCI_ERR_ILLEGAL_ADDRESS;
	else if (!size)
		err = SCI_ERR_SIZE_ALIGNMENT;
	else if (size > l->max_size)
		err = SCI_ERR_OUT_OF_RANGE;
	else if (!(l->node->caps.flags & XRMA_CAP_REGISTER))
		err = SCI_ERR_NOT_IMPLEMENTED;
	if (err == SCI_ERR_OK) {
		/* Hand the id over from the placeholder; restore it if the swap fails. */
		if (l->reserve)
			ret = xrma_seg_close(l->reserve);
		if (!ret) {
			ret = open_core_seg(l, address, size, l->id, &seg);
			if (ret && l->reserve &&
			    open_core_seg(l, NULL, l->node->caps.page_size, l->id, &l->reserve))
				l->reserve = NULL;
			if (!ret)
				l->reserve = NULL;
		}
		if (ret)
			err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
	}
	if (err == SCI_ERR_OK) {
		l->seg = seg;
		l->addr = address;
		l->size = size;
		(void)xrma_seg_set_callback(seg, lseg_on_event, l->obj.handle);
	}
	return err;
}

void SCIRegisterSegmentMemory(void *address, size_t size, sci_local_segment_t segment,
			      unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	sci_error_t err;

	if (!l) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, SCI_FLAG_LOCK_USER_MEM, 0);
	pthread_mutex_lock(&l->lock);
	if (err == SCI_ERR_OK)
		err = lseg_give_memory(l, address, size);
	pthread_mutex_unlock(&l->lock);
	xrma_sisci_obj_put(&l->obj);
	xrma_sisci_set(error, err);
}

/*
 * Device memory named by bus address is memory some segment of this node
 * exports at that address (as PXImc's physical windows): it is imported from
 * the node itself and its mapping becomes the segment's memory, so both name
 * the same bytes. Without an ioaddress, address is memory the CPU reaches,
 * given as SCIRegisterSegmentMemory would.
 */
/* The node answers itself through its service thread: no wait should come near this. */
#define ATTACH_TIMEOUT_MS 10000

static sci_error_t attach_bus(struct xrma_sisci_lseg *l, uint64_t bus, size_t size)
{
	const uint32_t access = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	const uint64_t need = XRMA_CAP_BUS_ADDR | XRMA_CAP_BUS_IMPORT | XRMA_CAP_MAP;
	struct xrma_rseg *rseg = NULL;
	void *addr = NULL;
	sci_error_t err;
	int ret;

	if ((l->node->caps.flags & need) != need) {
		xrma_detail_set("SCIAttachPhysicalMemory: this provider models no bus addresses "
				"(ntb and sci do)");
		return SCI_ERR_NOT_SUPPORTED;
	}
	if (!(l->flags & SCI_FLAG_EMPTY) || l->seg)
		return SCI_ERR_ILLEGAL_OPERATION;
	if (!size)
		return SCI_ERR_SIZE_ALIGNMENT;
	if (size > l->max_size)
		return SCI_ERR_OUT_OF_RANGE;
	ret = xrma_rseg_open_bus(l->node->ctx, l->node->node_id, bus, size, access, 0,
				 ATTACH_TIMEOUT_MS, &rseg);
	if (!ret)
		ret = xrma_rseg_map(rseg, 0, size, XRMA_MAP_READ | XRMA_MAP_WRITE, &addr);
	if (ret == -XRMA_ENOENT) {
		xrma_detail_set("SCIAttachPhysicalMemory: no memory of this node is at bus address "
				"0x%llx", (unsigned long long)bus);
		err = SCI_ERR_ILLEGAL_ADDRESS;
	} else {
		err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
	}
	if (err == SCI_ERR_OK)
		err = lseg_give_memory(l, addr, size);
	if (err == SCI_ERR_OK) {
		l->attach_rseg = rseg;
		l->attach_addr = addr;
		l->attach_bus = bus;
	} else if (rseg) {
		if (addr)
			(void)xrma_rseg_unmap(rseg, addr);
		(void)xrma_rseg_close(rseg);
	}
	return err;
}

void SCIAttachPhysicalMemory(sci_ioaddr_t ioaddress, void *address, unsigned int busNo, size_t size,
			     sci_local_segment_t segment, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	sci_error_t err;

	if (!l) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, SCI_FLAG_CUDA_BUFFER, 0);
	if (err == SCI_ERR_OK && (flags & SCI_FLAG_CUDA_BUFFER)) {
		xrma_detail_set("SCIAttachPhysicalMemory: GPU memory (SCI_FLAG_CUDA_BUFFER) is not "
				"supported yet; attach host memory instead");
		err = SCI_ERR_NOT_SUPPORTED;
	}
	/* One I/O bus per node here: bus 0. */
	if (err == SCI_ERR_OK && busNo != 0)
		err = SCI_ERR_ILLEGAL_PARAMETER;
	if (err == SCI_ERR_OK && !ioaddress && !address)
		err = SCI_ERR_ILLEGAL_ADDRESS;
	if (err == SCI_ERR_OK) {
		pthread_mutex_lock(&l->lock);
		err = ioaddress ? attach_bus(l, ioaddress, size) : lseg_give_memory(l, address, size);
		pthread_mutex_unlock(&l->lock);
	}
	xrma_sisci_obj_put(&l->obj);
	xrma_sisci_set(error, err);
}

/*
 * What SCIRemoveSegment does with importers that are still connected:
 * [sisci] remove_connected = disconnect (Dolphin's library: cut them off and
 * remove) or busy (the 1999 specification: SCI_ERR_BUSY). Read at each call,
 * so a program's environment decides. Another value: SCI_ERR_NOT_INITIALIZED,
 * as a bad setting is at SCIOpen.
 */
static sci_error_t remove_rule(bool *cut_off)
{
	struct xrma_config_entry entry;

	if (xrma_config_find("sisci.remove_connected", &entry))
		return SCI_ERR_NOT_INITIALIZED;
	if (!strcmp(entry.value, "disconnect"))
		*cut_off = true;
	else if (!strcmp(entry.value, "busy"))
		*cut_off = false;
	else
		return SCI_ERR_NOT_INITIALIZED;
	return SCI_ERR_OK;
}

void SCIRemoveSegment(sci_local_segment_t segment, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	bool cut_off = false;
	sci_error_t err;
	int ret = 0;

	if (!l) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, 0, 0);
	if (err == SCI_ERR_OK)
		err = remove_rule(&cut_off);
	pthread_mutex_lock(&l->lock);
	if (err == SCI_ERR_OK && (l->maps || l->dma_users))
		err = SCI_ERR_BUSY;
	/*
	 * Importers still connected (mapped or not: their maps are theirs) are
	 * asked to leave and cut off, in that order, so they see SCI_CB_DISCONNECT
	 * then SCI_CB_LOST; under the 1999 rule the core refuses while any remain.
	 */
	if (err == SCI_ERR_OK && l->seg && cut_off && !(l->flags & SCI_FLAG_PRIVATE)) {
		ret = xrma_seg_unexport(l->seg, XRMA_UNEXPORT_NOTIFY);
		if (!ret)
			ret = xrma_seg_unexport(l->seg, XRMA_UNEXPORT_FORCE);
		if (!ret)
			l->available = false;
	}
	if (err == SCI_ERR_OK && !ret && l->seg)
		ret = xrma_seg_close(l->seg);
	if (err == SCI_ERR_OK && !ret && l->reserve)
		ret = xrma_seg_close(l->reserve);
	if (ret)
		err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
	/* Memory attached by bus address: let go of the import that reached it. */
	if (err == SCI_ERR_OK && l->attach_rseg) {
		(void)xrma_rseg_unmap(l->attach_rseg, l->attach_addr);
		(void)xrma_rseg_close(l->attach_rseg);
		l->attach_rseg = NULL;
	}
	if (err == SCI_ERR_OK) {
		l->seg = l->reserve = NULL;
		if (xrma_sisci_obj_kill(&l->obj)) {
			xrma_sisci_evq_close(&l->events);
			xrma_sisci_desc_child_del(l->desc);
		}
	}
	pthread_mutex_unlock(&l->lock);
	xrma_sisci_obj_put(&l->obj);
	xrma_sisci_set(error, err);
}

/* The checks SCIPrepareSegment and SCISet/UnsetSegment[Un]Available share. */
static sci_error_t adapter_check(struct xrma_sisci_lseg *l, unsigned int adapter, unsigned int flags,
				 unsigned int accepted)
{
	struct xrma_sisci_node *node;
	sci_error_t err = xrma_sisci_flags(flags, accepted, 0);

	if (err == SCI_ERR_OK)
		err = xrma_sisci_adapter(l->desc, adapter, &node);
	/* Segment memory lives in adapter 0's context; other adapters cannot export it. */
	if (err == SCI_ERR_OK && node != l->node)
		err = SCI_ERR_NOT_IMPLEMENTED;
	return err;
}

void SCIPrepareSegment(sci_local_segment_t segment, unsigned int localAdapterNo, unsigned int flags,
		       sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	sci_error_t err;

	if (!l) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	/* SCI_FLAG_DMA_SOURCE_ONLY: memory is always fully prepared here, so it changes nothing. */
	err = adapter_check(l, localAdapterNo, flags, SCI_FLAG_DMA_SOURCE_ONLY);
	if (err == SCI_ERR_OK) {
		/* Memory is always pinned and shareable here: preparing is bookkeeping, idempotent. */
		pthread_mutex_lock(&l->lock);
		l->prepared = true;
		pthread_mutex_unlock(&l->lock);
	}
	xrma_sisci_obj_put(&l->obj);
	xrma_sisci_set(error, err);
}

void SCISetSegmentAvailable(sci_local_segment_t segment, unsigned int localAdapterNo,
			    unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	sci_error_t err;
	int ret;

	if (!l) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = adapter_check(l, localAdapterNo, flags, 0);
	pthread_mutex_lock(&l->lock);
	if (err == SCI_ERR_OK && (l->flags & SCI_FLAG_PRIVATE))
		err = SCI_ERR_ILLEGAL_OPERATION;
	else if (err == SCI_ERR_OK && !l->prepared)
		err = SCI_ERR_SEGMENT_NOT_PREPARED;
	else if (err == SCI_ERR_OK && !l->seg)
		err = SCI_ERR_ILLEGAL_OPERATION; /* EMPTY and no memory registered yet */
	if (err == SCI_ERR_OK) {
		ret = xrma_seg_export(l->seg, 0);
		err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
		if (!ret)
			l->available = true;
	}
	pthread_mutex_unlock(&l->lock);
	xrma_sisci_obj_put(&l->obj);
	xrma_sisci_set(error, err);
}

void SCISetSegmentUnavailable(sci_local_segment_t segment, unsigned int localAdapterNo,
			      unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	uint32_t core_flags = 0;
	sci_error_t err;
	int ret;

	if (!l) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = adapter_check(l, localAdapterNo, flags, SCI_FLAG_NOTIFY | SCI_FLAG_FORCE_DISCONNECT);
	if (flags & SCI_FLAG_NOTIFY)
		core_flags |= XRMA_UNEXPORT_NOTIFY;
	/* Both flags: importers are cut off; they see LOST (the stronger event). */
	if (flags & SCI_FLAG_FORCE_DISCONNECT)
		core_flags |= XRMA_UNEXPORT_FORCE;
	pthread_mutex_lock(&l->lock);
	if (err == SCI_ERR_OK && !l->available)
		err = SCI_ERR_ILLEGAL_OPERATION;
	if (err == SCI_ERR_OK) {
		ret = xrma_seg_unexport(l->seg, core_flags);
		err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
		if (!ret)
			l->available = false;
	}
	pthread_mutex_unlock(&l->lock);
	xrma_sisci_obj_put(&l->obj);
	xrma_sisci_set(error, err);
}

sci_segment_cb_reason_t SCIWaitForLocalSegmentEvent(sci_local_segment_t segment,
						    unsigned int *sourceNodeId,
						    unsigned int *localAdapterNo, unsigned int timeout,
						    unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	struct xrma_sisci_event ev = { .reason = SCI_CB_LOST };
	sci_error_t err;

	if (!l) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return SCI_CB_LOST;
	}
	err = xrma_sisci_flags(flags, 0, 0);
	if (err == SCI_ERR_OK && (!sourceNodeId || !localAdapterNo))
		err = SCI_ERR_ILLEGAL_PARAMETER;
	if (err == SCI_ERR_OK)
		err = xrma_sisci_evq_wait(&l->events, timeout, &ev);
	if (err == SCI_ERR_OK) {
		*sourceNodeId = ev.node;
		*localAdapterNo = 0;
	}
	xrma_sisci_obj_put(&l->obj);
	xrma_sisci_set(error, err);
	return ev.reason;
}

unsigned int SCIGetLocalSegmentId(sci_local_segment_t segment)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	unsigned int id;

	if (!l)
		return 0;
	id = l->id;
	xrma_sisci_obj_put(&l->obj);
	return id;
}

size_t SCIGetLocalSegmentSize(sci_local_segment_t segment)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	size_t size;

	if (!l)
		return 0;
	pthread_mutex_lock(&l->lock);
	size = l->seg ? l->size : l->max_size;
	pthread_mutex_unlock(&l->lock);
	xrma_sisci_obj_put(&l->obj);
	return size;
}

void xrma_sisci_lseg_use(struct xrma_sisci_lseg *l, int delta)
{
	pthread_mutex_lock(&l->lock);
	l->dma_users += (unsigned)delta;
	pthread_mutex_unlock(&l->lock);
}
