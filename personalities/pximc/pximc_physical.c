/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_physical.c: physical windows on providers with modelled bus
 * addresses (ntb). A system's "device memory" is an exported segment whose bus address lies
 * in the node's inbound windows; a physical server exposes a page-aligned range of it at its
 * bus address, and the physical client imports and maps that range (docs/pximc.md).
 */
#include <stdint.h>
#include <stdlib.h>
#include "personalities/pximc/pximc_vendor.h"
#include "common/errno_keep.h"

XRMA_PXIMC_EXPORT int xrma_pximc_device_memory(struct xrma_pximc *px, size_t len, uint64_t *bus,
					       void **addr)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_seg_attr attr = { .len = len, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL };
	struct xrma_pximc_devmem d = { .len = len };
	struct xrma_ctx_info info;
	int ret;

	tPXIMC_Status status = PXIMC_SUCCESS;

	if (!bus || !addr || !len)
		return -XRMA_EINVAL;
	/* NULL: the calling thread's instance, the one its PXIMC_* calls use. */
	if (!px && !(px = xrma_pximc_current(&status)))
		return -XRMA_ENODEV;
	ret = xrma_ctx_query(px->ctx, &info);
	if (ret)
		return ret;
	if (!(info.caps.flags & XRMA_CAP_BUS_ADDR))
		return -XRMA_ENOTSUP;
	if (len % info.caps.page_size)
		return -XRMA_EINVAL;
	ret = xrma_seg_open(px->ctx, &attr, &d.seg);
	if (ret)
		return ret;
	ret = xrma_seg_export(d.seg, 0);
	if (!ret)
		ret = xrma_seg_addr(d.seg, &d.addr);
	if (!ret)
		ret = xrma_seg_id(d.seg, &d.seg_id);
	if (!ret)
		ret = xrma_seg_bus_addr(d.seg, &d.bus);
	pthread_mutex_lock(&px->lock);
	if (!ret)
		ret = xrma_pximc_grow((void **)&px->devmem, &px->devmem_cap, px->devmem_count + 1,
				      sizeof(*px->devmem));
	if (!ret)
		px->devmem[px->devmem_count++] = d;
	pthread_mutex_unlock(&px->lock);
	if (ret) {
		xrma_seg_close(d.seg);
		return ret;
	}
	*bus = d.bus;
	*addr = d.addr;
	return 0;
}

tPXIMC_Status xrma_pximc_physical_range(struct xrma_pximc *px, uint64_t address, uint64_t size,
					struct xrma_pximc_session *s)
{
	struct xrma_ctx_info info;

	if (xrma_ctx_query(px->ctx, &info) || !(info.caps.flags & XRMA_CAP_BUS_ADDR))
		return PXIMC_PHY_RESOURCE_NOT_AVAILABLE;
	for (size_t i = 0; i < px->devmem_count; i++) {
		const struct xrma_pximc_devmem *d = &px->devmem[i];

		if (address < d->bus || address - d->bus >= d->len || size > d->len - (address - d->bus))
			continue;
		/* The client maps the range: it starts on a page of the device memory. */
		if ((address - d->bus) % info.caps.page_size)
			return PXIMC_INVALID_ARGUMENT;
		s->phys_seg_id = d->seg_id;
		s->phys_offset = address - d->bus;
		s->phys_address = address;
		return PXIMC_SUCCESS;
	}
	return PXIMC_PHY_RESOURCE_NOT_AVAILABLE;
}

void xrma_pximc_device_memory_free(struct xrma_pximc *px)
{
	/* This system is going away: importers are cut off. */
	for (size_t i = 0; i < px->devmem_count; i++) {
		xrma_seg_unexport(px->devmem[i].seg, XRMA_UNEXPORT_FORCE);
		xrma_seg_close(px->devmem[i].seg);
	}
	free(px->devmem);
	px->devmem = NULL;
	px->devmem_count = px->devmem_cap = 0;
}
