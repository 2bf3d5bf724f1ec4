/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_ras.c: the registered address space of an endpoint
 * (§3.5, §3.9): SCIF's rules for scif_register and scif_unregister over the
 * core's shared space (xrma_rwin, core/rwin.c), which places the windows,
 * publishes them to the peer and keeps the peer's view coherent. Each window
 * is an exported segment over the caller's pages, which the provider's
 * registration makes mappable by the peer whatever backs them (a window over
 * pages another window has already registered shares them); its range stays
 * taken after scif_unregister until its segment is idle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "personalities/scif/scif_internal.h"

/* Offsets stay below 2^62, as in MPSS. */
#define RAS_OFFSET_LIMIT XRMA_WIN_OFFSET_LIMIT

int xrma_scif_ep_usable(struct xrma_scif_ep *ep)
{
	enum xrma_conn_state state;
	int ret;

	if (ep->closed)
		return -XRMA_EHANDLE;
	ret = xrma_conn_state(ep->conn, &state);
	if (ret)
		return ret;
	if (state == XRMA_CONN_DISCONNECTED) {
		if (ep->connected)
			xrma_rwin_sweep(ep->rwin, true);
		return -XRMA_ECONNRESET;
	}
	return ep->connected ? 0 : -XRMA_ENOTCONN;
}

int xrma_scif_ep_enter(scif_epd_t epd, struct xrma_scif_ep **ep)
{
	int ret = xrma_scif_ep_get(epd, ep);

	if (ret)
		return ret;
	pthread_mutex_lock(&(*ep)->lock);
	ret = xrma_scif_ep_usable(*ep);
	if (ret) {
		xrma_scif_ep_leave(*ep);
		return ret;
	}
	xrma_rwin_sweep((*ep)->rwin, false);
	return 0;
}

void xrma_scif_ep_leave(struct xrma_scif_ep *ep)
{
	pthread_mutex_unlock(&ep->lock);
	xrma_scif_ep_put(ep);
}

uint32_t xrma_scif_prot(int prot)
{
	return ((prot & SCIF_PROT_READ) ? XRMA_RWIN_PROT_READ : 0) |
	       ((prot & SCIF_PROT_WRITE) ? XRMA_RWIN_PROT_WRITE : 0);
}

/*
 * Ranges of the program moved onto provider memory (window_on_provider_memory),
 * each with the segment now behind it and the windows using it. A later window
 * over the same pages must use that segment too: moving the range again would
 * leave the earlier windows on pages the program no longer sees.
 */
struct moved_range {
	uintptr_t base;
	size_t len;
	struct xrma_seg *seg;     /* exported; the range is [0, len) of it */
	bool writable;            /* remote write granted */
	size_t refs;              /* windows over it; under moved_lock */
	struct moved_range *next;
};

static pthread_mutex_t moved_lock = PTHREAD_MUTEX_INITIALIZER;
static struct moved_range *moved;

/* Under moved_lock. */
static struct moved_range **moved_find_seg(struct xrma_seg *seg)
{
	struct moved_range **m = &moved;

	while (*m && (*m)->seg != seg)
		m = &(*m)->next;
	return m;
}

/*
 * A window lets go of its segment: true once its range may be reused; false
 * while a transfer or mapping still uses it (retire: close it later instead
 * and return true). A moved range's segment closes with its last window; the
 * others only drop their reference (its pages stay valid for the peer).
 */
static bool window_release(void *pages, bool retire)
{
	struct xrma_seg *seg = pages;
	struct moved_range **link, *m, *gone = NULL;
	bool done = true, busy;

	pthread_mutex_lock(&moved_lock);
	link = moved_find_seg(seg);
	m = *link;
	if (m && m->refs > 1) {
		m->refs--;
	} else if (!(busy = xrma_seg_close(seg) == -XRMA_EBUSY) || retire) {
		/* Closed or retired: the program's range keeps the pages; a new window moves it again. */
		if (busy)
			xrma_scif_retire(seg);
		if (m)
			*link = m->next;
		gone = m;
	} else {
		done = false;   /* the last window keeps its reference until asked again */
	}
	pthread_mutex_unlock(&moved_lock);
	free(gone);
	return done;
}

/*
 * A provider that cannot register the caller's pages (pximc): the window's
 * pages become memory the provider allocated, the program's range moved onto
 * them (mremap with old size 0 maps the same shared pages there too). Where
 * the provider's memory is not shared memory that cannot be done: EOPNOTSUPP.
 * Pages already moved are not moved again: the window shares their segment,
 * with the same write right only (the segment enforces it for every window);
 * a range that only partly overlaps moved pages, or asks another write right,
 * is EINVAL. The list cannot see munmap: memory mapped anew over a moved range
 * while its windows live would get their segment, not its own pages.
 * Under moved_lock, so two threads never move one range twice.
 */
static int window_on_provider_memory(struct xrma_ctx *ctx, struct xrma_seg_attr *attr,
				     struct xrma_seg **out, size_t *seg_offset)
{
	uintptr_t addr = (uintptr_t)attr->addr;
	bool writable = attr->access & XRMA_ACCESS_REMOTE_WRITE;
	struct moved_range *m;
	void *p;
	int ret;

	for (m = moved; m; m = m->next) {
		if (addr >= m->base + m->len || m->base >= addr + attr->len)
			continue;
		if (addr < m->base || addr + attr->len > m->base + m->len || writable != m->writable)
			return -XRMA_EINVAL;
		m->refs++;
		*out = m->seg;
		*seg_offset = addr - m->base;
		return 0;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -XRMA_ENOMEM;
	attr->addr = NULL;
	ret = xrma_seg_open(ctx, attr, out);
	if (!ret)
		ret = xrma_seg_addr(*out, &p);
	if (!ret) {
		memcpy(p, (void *)addr, attr->len);
		if (mremap(p, 0, attr->len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)addr) == MAP_FAILED)
			ret = -XRMA_ENOTSUP;
		else
			ret = xrma_seg_export(*out, 0);
		if (ret)
			xrma_seg_close(*out);
	}
	if (ret) {
		free(m);
		return ret;
	}
	*m = (struct moved_range){ .base = addr, .len = attr->len, .seg = *out,
				   .writable = writable, .refs = 1, .next = moved };
	moved = m;
	return 0;
}

/* Local access always; remote write only for a writable window (remote read always). */
static int window_segment(void *addr, size_t len, bool writable, struct xrma_seg **out,
			  size_t *seg_offset)
{
	struct xrma_seg_attr attr = {
		.len = len, .addr = addr, .id = XRMA_ID_ANY,
		.access = XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE | XRMA_ACCESS_REMOTE_READ |
			  (writable ? XRMA_ACCESS_REMOTE_WRITE : 0),
	};
	struct xrma_ctx *ctx;
	int ret = xrma_scif_ctx(&ctx);

	*seg_offset = 0;
	if (!ret)
		ret = xrma_seg_open(ctx, &attr, out);
	if (ret == -XRMA_ENOTSUP) {
		/* Exported already: it may be another window's. */
		pthread_mutex_lock(&moved_lock);
		ret = window_on_provider_memory(ctx, &attr, out, seg_offset);
		pthread_mutex_unlock(&moved_lock);
	} else if (!ret) {
		ret = xrma_seg_export(*out, 0);
		if (ret)
			xrma_seg_close(*out);
	}
	/* MPSS refuses a window it has no room for with ENOMEM, never ENXIO. */
	return ret == -XRMA_ERANGE || ret == -XRMA_ENOSPC ? -XRMA_ENOMEM : ret;
}

int xrma_scif_ras_setup(struct xrma_scif_ep *ep, uint64_t *ras_id)
{
	struct xrma_ctx *ctx;
	int ret;

	ret = xrma_scif_ctx(&ctx);
	if (ret)
		return ret;
	ret = xrma_dmaq_open(ctx, XRMA_SCIF_DMAQ_DEPTH, 0, &ep->dmaq);
	if (ret)
		return ret;
	/* Our table also carries the queue's marks, for the peer's SCIF_FENCE_INIT_PEER. */
	ret = xrma_rwin_open(ctx, ep->dmaq, window_release, ras_id, &ep->rwin);
	if (ret) {
		xrma_dmaq_close(ep->dmaq);
		ep->dmaq = NULL;
	}
	return ret;
}

void xrma_scif_ras_teardown(struct xrma_scif_ep *ep)
{
	if (ep->dmaq)
		xrma_dmaq_drain(ep->dmaq, XRMA_TIMEOUT_INFINITE);
	xrma_scif_vcache_drop(ep);
	/* The queue drained, so no import is in a transfer: all of them close. */
	if (ep->rwin) {
		xrma_rwin_close(ep->rwin);
		ep->rwin = NULL;
	}
	if (ep->dmaq) {
		xrma_dmaq_drain(ep->dmaq, XRMA_TIMEOUT_INFINITE);
		xrma_dmaq_close(ep->dmaq);
		ep->dmaq = NULL;
	}
	ep->connected = false;
}

static int ras_register(struct xrma_scif_ep *ep, void *addr, size_t len, uint64_t *offset, int prot,
			bool fixed)
{
	uint32_t flags = fixed ? XRMA_RWIN_FIXED : 0;
	struct xrma_seg *seg;
	size_t seg_offset;
	int ret;

	/* A place first: the caller's pages are registered only for a window that has one. */
	ret = xrma_rwin_place(ep->rwin, offset, len, flags);
	if (!ret)
		ret = window_segment(addr, len, prot & SCIF_PROT_WRITE, &seg, &seg_offset);
	if (ret)
		return ret;
	ret = xrma_rwin_add(ep->rwin, seg, seg_offset, len, offset, xrma_scif_prot(prot), XRMA_RWIN_FIXED, seg);
	if (ret)
		window_release(seg, true);
	return ret;
}

off_t scif_register(scif_epd_t epd, void *addr, size_t len, off_t offset, int prot_flags, int map_flags)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_scif_ep *ep;
	bool fixed = map_flags & SCIF_MAP_FIXED;
	uint64_t placed = (uint64_t)offset;
	int ret;

	if ((map_flags & ~SCIF_MAP_FIXED) || !prot_flags ||
	    (prot_flags & ~(SCIF_PROT_READ | SCIF_PROT_WRITE)) || !addr || !len ||
	    (uintptr_t)addr % XRMA_SCIF_PAGE || len % XRMA_SCIF_PAGE || offset < 0 ||
	    (fixed && offset % (off_t)XRMA_SCIF_PAGE)) {
		return xrma_scif_fail_errno(EINVAL);
	}
	if (fixed && (len > RAS_OFFSET_LIMIT || placed > RAS_OFFSET_LIMIT - len)) {
		return xrma_scif_fail_errno(EADDRINUSE);
	}
	ret = xrma_scif_ep_enter(epd, &ep);
	if (ret)
		return xrma_scif_fail(ret);
	ret = ras_register(ep, addr, len, &placed, prot_flags, fixed);
	xrma_scif_ep_leave(ep);
	if (!ret)
		XRMA_KILL_POINT("scif.register.after_window");
	return ret ? xrma_scif_fail(ret) : (off_t)placed;
}

int scif_unregister(scif_epd_t epd, off_t offset, size_t len)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_scif_ep *ep;
	uint64_t start = (uint64_t)offset, end;
	int ret;

	if (offset < 0 || !len || offset % (off_t)XRMA_SCIF_PAGE || len % XRMA_SCIF_PAGE ||
	    start > UINT64_MAX - len) {
		return xrma_scif_fail_errno(EINVAL);
	}
	end = start + len;
	ret = xrma_scif_ep_enter(epd, &ep);
	if (ret)
		return xrma_scif_fail(ret);
	/* The core decides (whole windows only, at least one) and tells a peer reading a copy. */
	ret = xrma_rwin_remove(ep->rwin, start, end - start);
	xrma_scif_ep_leave(ep);
	return ret ? xrma_scif_fail(ret) : 0;
}
