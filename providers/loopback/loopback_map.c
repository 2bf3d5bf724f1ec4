/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/loopback/loopback_map.c: load/store mapping for the loopback
 * provider. Every node shares the process's address space, so a mapping is the
 * owner's own address: real loads and stores, no copy. Unmap only counts.
 * Mappings are not gated (they are not transfers); a lost owner refuses new ones.
 */
#include "providers/loopback/loopback.h"

int xrma_prov_loopback_map(void *state, struct xrma_prov_rmem *rmem, size_t offset, size_t len,
			   uint32_t prot, void **addr)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_rmem *r = (struct xrma_prov_loopback_rmem *)rmem;
	size_t page = xrma_prov_loopback_caps.page_size, span;
	int ret = 0;

	if (!ep || !r || !addr || !len || (prot & ~(XRMA_MAP_READ | XRMA_MAP_WRITE)))
		return -XRMA_EINVAL;
	/*
	 * The core maps whole pages, so the last page of an import whose length is
	 * not a page multiple is allowed in full: it exists in this process (our
	 * mmap rounds up; registered memory lies in the caller's mapped pages).
	 */
	span = r->len > SIZE_MAX - (page - 1) ? SIZE_MAX : (r->len + page - 1) & ~(page - 1);
	if (offset > span || len > span - offset)
		return -XRMA_ERANGE;

	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	if (ep->severed || r->mem->lost)
		ret = -XRMA_ELOST;
	else
		r->maps++;
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	if (!ret)
		*addr = (unsigned char *)r->mem->addr + offset;
	return ret;
}

void xrma_prov_loopback_unmap(void *state, struct xrma_prov_rmem *rmem, void *addr, size_t len)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_rmem *r = (struct xrma_prov_loopback_rmem *)rmem;

	(void)addr;
	(void)len;
	if (!ep || !r)
		return;
	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	assert(r->maps > 0);
	if (r->maps)
		r->maps--;
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
}
