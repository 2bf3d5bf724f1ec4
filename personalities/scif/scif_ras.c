/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_ras.c: the registered address space of an endpoint
 * (§3.5, §3.9). Each window is an exported segment over the caller's pages
 * (scif_backing.c), added to the endpoint's core window space and published in
 * a table shared with the peer, written under a sequence lock; the peer's side
 * of it is scif_peer.c. The table also counts our RMAs for INIT_PEER fences.
 * An unregistered window leaves the table at once, but its range stays taken
 * until its segment can close: no transfer, import, mapping or signal uses it.
 * A peer that reads the table by copy learns of an unregister before the call
 * returns (xrma_scif_peer_notify); of a registration only when a lookup in its
 * copy misses (scif_peer.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "common/peer_shared.h"
#include "personalities/scif/scif_internal.h"

/* Offsets stay below 2^62, as in MPSS. */
#define RAS_OFFSET_LIMIT ((uint64_t)1 << 62)

/*
 * The table's sequence lock orders its entries with fences. ThreadSanitizer
 * does not model fences (GCC warns, -Wtsan); every access to the table is an
 * atomic, which is what it checks, so the warning is off under TSan here.
 */
#if defined(__SANITIZE_THREAD__)
#pragma GCC diagnostic ignored "-Wtsan"
#endif

#define LOAD XRMA_SCIF_LOAD
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

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
			xrma_scif_imports_sweep(ep, true);
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
	xrma_scif_imports_sweep(*ep, false);
	return 0;
}

void xrma_scif_ep_leave(struct xrma_scif_ep *ep)
{
	/* The next call looks at the peer's table again. */
	ep->peer_copy_current = false;
	pthread_mutex_unlock(&ep->lock);
	xrma_scif_ep_put(ep);
}

int xrma_scif_ras_setup(struct xrma_scif_ep *ep, uint64_t *ras_id)
{
	struct xrma_seg_attr attr = {
		.len = XRMA_SCIF_RAS_SIZE, .id = XRMA_ID_ANY,
		.access = XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE | XRMA_ACCESS_REMOTE_READ,
	};
	struct xrma_ctx *ctx;
	void *addr;
	int ret;

	ret = xrma_scif_ctx(&ctx);
	if (ret)
		return ret;
	ret = xrma_win_open(ctx, 0, &ep->win);
	if (ret)
		return ret;
	ret = xrma_dmaq_open(ctx, XRMA_SCIF_DMAQ_DEPTH, 0, &ep->dmaq);
	if (ret)
		goto err_win;
	ret = xrma_seg_open(ctx, &attr, &ep->ras_seg);
	if (ret)
		goto err_dmaq;
	ret = xrma_seg_addr(ep->ras_seg, &addr);
	if (!ret)
		ret = xrma_seg_id(ep->ras_seg, ras_id);
	if (ret)
		goto err_seg;
	ep->ras = addr;
	memset(ep->ras, 0, XRMA_SCIF_RAS_SIZE);
	__atomic_store_n(&ep->ras->magic, XRMA_SCIF_RAS_MAGIC, __ATOMIC_RELEASE);
	/* What a peer's SCIF_FENCE_INIT_PEER marks and waits on, kept by the core. */
	ret = xrma_fence_publish(ep->dmaq, ep->ras_seg, offsetof(struct xrma_scif_ras_shared, posted),
				 offsetof(struct xrma_scif_ras_shared, done), 0);
	if (!ret)
		ret = xrma_seg_export(ep->ras_seg, 0);
	if (ret)
		goto err_seg;
	return 0;

err_seg:
	xrma_fence_publish(ep->dmaq, NULL, 0, 0, 0);
	xrma_seg_close(ep->ras_seg);
	ep->ras_seg = NULL;
	ep->ras = NULL;
err_dmaq:
	xrma_dmaq_close(ep->dmaq);
	ep->dmaq = NULL;
err_win:
	xrma_win_close(ep->win);
	ep->win = NULL;
	return ret;
}

/* Rewrite the shared table from the live windows (ep->lock held). */
static void ras_publish(struct xrma_scif_ep *ep)
{
	struct xrma_scif_ras_shared *ras = ep->ras;
	uint64_t seq, n = 0;

	XRMA_PEER_SHARED_BEGIN();
	seq = LOAD(&ras->seq);
	STORE(&ras->seq, seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (size_t i = 0; i < ep->nwindows; i++) {
		const struct xrma_scif_window *w = &ep->windows[i];

		if (!w->live)
			continue;
		STORE(&ras->win[n].offset, w->offset);
		STORE(&ras->win[n].len, (uint64_t)w->len);
		STORE(&ras->win[n].seg_id, w->seg_id);
		STORE(&ras->win[n].seg_offset, (uint64_t)w->seg_offset);
		STORE(&ras->win[n].prot, (uint64_t)w->prot);
		n++;
	}
	STORE(&ras->count, n);
	__atomic_store_n(&ras->seq, seq + 2, __ATOMIC_RELEASE);
	XRMA_PEER_SHARED_END();
}

/* Drop unregistered windows whose segment could close (their range is free again). */
static void windows_sweep(struct xrma_scif_ep *ep)
{
	size_t kept = 0;

	for (size_t i = 0; i < ep->nwindows; i++) {
		struct xrma_scif_window *w = &ep->windows[i];

		if (!w->live && xrma_scif_backing_put(w->backing, false))
			continue;
		ep->windows[kept++] = *w;
	}
	ep->nwindows = kept;
}

void xrma_scif_ras_teardown(struct xrma_scif_ep *ep)
{
	if (ep->dmaq)
		xrma_dmaq_drain(ep->dmaq, XRMA_TIMEOUT_INFINITE);
	xrma_scif_vcache_drop(ep);
	/* The queue drained, so no import is in a transfer: all of them close. */
	xrma_scif_imports_sweep(ep, true);
	ep->nimports = 0;
	xrma_scif_peer_detach(ep);
	for (size_t i = 0; i < ep->nwindows; i++) {
		struct xrma_scif_window *w = &ep->windows[i];

		if (w->live)
			xrma_win_remove(ep->win, w->offset, w->len);
		xrma_scif_backing_put(w->backing, true);
	}
	ep->nwindows = 0;
	if (ep->win) {
		xrma_win_close(ep->win);
		ep->win = NULL;
	}
	if (ep->dmaq) {
		xrma_dmaq_drain(ep->dmaq, XRMA_TIMEOUT_INFINITE);
		xrma_dmaq_close(ep->dmaq);
		ep->dmaq = NULL;
	}
	if (ep->ras_seg) {
		xrma_scif_retire(ep->ras_seg, NULL);
		ep->ras_seg = NULL;
		ep->ras = NULL;
	}
	ep->connected = false;
}

/*
 * Where [*offset, +len) goes in the sorted list; returns the insert index or a
 * negative code. Without FIXED the offset is a hint: the first free range at or
 * above it, else the first free range from 0.
 */
static long ras_place(struct xrma_scif_ep *ep, uint64_t *offset, size_t len, bool fixed)
{
	uint64_t hint = (*offset + XRMA_SCIF_PAGE - 1) & ~(uint64_t)(XRMA_SCIF_PAGE - 1);
	uint64_t at = fixed ? *offset : hint;
	size_t i;

again:
	for (i = 0; i < ep->nwindows; i++) {
		const struct xrma_scif_window *w = &ep->windows[i];

		if (w->offset + w->len <= at)
			continue;
		if (w->offset >= at + len)
			break;
		if (fixed)
			return -XRMA_EADDRINUSE;
		at = w->offset + w->len;
	}
	if (at > RAS_OFFSET_LIMIT - len) {
		if (fixed)
			return -XRMA_EADDRINUSE;
		if (hint) {
			hint = at = 0;
			goto again;
		}
		return -XRMA_ENOMEM;
	}
	*offset = at;
	return (long)i;
}

/* Take the live windows inside [start, end) out of the table, remembering which. */
static void windows_leave(struct xrma_scif_ep *ep, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < ep->nwindows; i++) {
		struct xrma_scif_window *w = &ep->windows[i];

		if (w->live && w->offset >= start && w->offset + w->len <= end) {
			w->live = false;
			w->leaving = true;
		}
	}
}

/* The peer was told (gone: they stay out) or could not be (back in the table). */
static void windows_left(struct xrma_scif_ep *ep, bool gone)
{
	for (size_t i = 0; i < ep->nwindows; i++) {
		struct xrma_scif_window *w = &ep->windows[i];

		if (w->leaving) {
			w->leaving = false;
			w->live = !gone;
		}
	}
}

static size_t windows_live(const struct xrma_scif_ep *ep)
{
	size_t n = 0;

	for (size_t i = 0; i < ep->nwindows; i++)
		n += ep->windows[i].live;
	return n;
}

static int ras_register(struct xrma_scif_ep *ep, void *addr, size_t len, uint64_t *offset, int prot,
			bool fixed)
{
	struct xrma_scif_window w = { .len = len, .prot = (uint32_t)prot, .live = true }, *grown;
	uint64_t placed;
	long at;
	int ret;

	windows_sweep(ep);
	if (windows_live(ep) >= XRMA_SCIF_RAS_MAX)
		return -XRMA_ENOMEM;
	grown = xrma_scif_grow(ep->windows, &ep->windows_cap, ep->nwindows, sizeof(w));
	if (!grown)
		return -XRMA_ENOMEM;
	ep->windows = grown;
	at = ras_place(ep, offset, len, fixed);
	if (at < 0)
		return (int)at;
	w.offset = *offset;
	ret = xrma_scif_backing_get(addr, len, prot & SCIF_PROT_WRITE, &w.backing, &w.seg_offset);
	if (ret)
		return ret;
	w.seg = xrma_scif_backing_seg(w.backing);
	w.seg_id = xrma_scif_backing_id(w.backing);
	ret = xrma_win_add(ep->win, w.seg, w.seg_offset, len, w.offset,
			   ((prot & SCIF_PROT_READ) ? XRMA_WIN_PROT_READ : 0) |
				   ((prot & SCIF_PROT_WRITE) ? XRMA_WIN_PROT_WRITE : 0),
			   XRMA_WIN_FIXED, &placed);
	if (ret) {
		xrma_scif_backing_put(w.backing, true);
		return ret;
	}
	memmove(&ep->windows[at + 1], &ep->windows[at], (ep->nwindows - (size_t)at) * sizeof(w));
	ep->windows[at] = w;
	ep->nwindows++;
	ras_publish(ep);
	return 0;
}

off_t scif_register(scif_epd_t epd, void *addr, size_t len, off_t offset, int prot_flags, int map_flags)
{
	struct xrma_scif_ep *ep;
	bool fixed = map_flags & SCIF_MAP_FIXED;
	uint64_t placed = (uint64_t)offset;
	int ret;

	if ((map_flags & ~SCIF_MAP_FIXED) || !prot_flags ||
	    (prot_flags & ~(SCIF_PROT_READ | SCIF_PROT_WRITE)) || !addr || !len ||
	    (uintptr_t)addr % XRMA_SCIF_PAGE || len % XRMA_SCIF_PAGE || offset < 0 ||
	    (fixed && offset % (off_t)XRMA_SCIF_PAGE)) {
		errno = EINVAL;
		return SCIF_REGISTER_FAILED;
	}
	if (fixed && (len > RAS_OFFSET_LIMIT || placed > RAS_OFFSET_LIMIT - len)) {
		errno = EADDRINUSE;
		return SCIF_REGISTER_FAILED;
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
	struct xrma_scif_ep *ep;
	uint64_t start = (uint64_t)offset, end;
	int ret;

	if (offset < 0 || !len || offset % (off_t)XRMA_SCIF_PAGE || len % XRMA_SCIF_PAGE ||
	    start > UINT64_MAX - len) {
		errno = EINVAL;
		return -1;
	}
	end = start + len;
	ret = xrma_scif_ep_enter(epd, &ep);
	if (ret)
		return xrma_scif_fail(ret);
	/* The core decides (whole windows only, at least one); the endpoint's lock keeps it so. */
	ret = xrma_win_can_remove(ep->win, start, len);
	if (!ret) {
		windows_leave(ep, start, end);
		ras_publish(ep);
		XRMA_KILL_POINT("scif.unregister.before_notice");
		/* A peer reading a copy of the table must drop it before we return. */
		ret = xrma_scif_peer_notify(ep);
		windows_left(ep, !ret);
		if (!ret)
			ret = xrma_win_remove(ep->win, start, len);
		else
			ras_publish(ep);   /* untold, the peer may still use them: they stay */
		windows_sweep(ep);
	}
	xrma_scif_ep_leave(ep);
	return ret ? xrma_scif_fail(ret) : 0;
}

int xrma_scif_local_cover(struct xrma_scif_ep *ep, uint64_t offset, size_t len, uint32_t prot,
			  struct xrma_iov *iov, size_t max, size_t *count)
{
	uint64_t end, at = offset;
	size_t lo = 0, hi = ep->nwindows, n = 0;

	if (!len || offset > UINT64_MAX - len)
		return -XRMA_ENXIO;
	end = offset + len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ep->windows[mid].offset + ep->windows[mid].len <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; at < end; i++) {
		const struct xrma_scif_window *w = &ep->windows[i];
		size_t take;

		if (i >= ep->nwindows || !w->live || w->offset > at)
			return -XRMA_ENXIO;
		if ((w->prot & prot) != prot)
			return -XRMA_EACCES;
		if (n == max)
			return -XRMA_ENOMEM;
		take = (size_t)((end < w->offset + w->len ? end : w->offset + w->len) - at);
		iov[n++] = (struct xrma_iov){ .seg = w->seg, .offset = w->seg_offset + (size_t)(at - w->offset),
					      .len = take };
		at += take;
	}
	*count = n;
	return 0;
}

const struct xrma_scif_window *xrma_scif_window_find(struct xrma_scif_ep *ep, uint64_t offset, size_t len)
{
	for (size_t i = 0; i < ep->nwindows; i++) {
		const struct xrma_scif_window *w = &ep->windows[i];

		if (w->live && offset >= w->offset && offset - w->offset <= w->len &&
		    len <= w->len - (offset - w->offset))
			return w;
	}
	return NULL;
}
