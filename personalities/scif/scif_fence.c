/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_fence.c: RMA synchronisation (§3.8). INIT_SELF marks
 * are core fence marks on the endpoint's DMA queue. INIT_PEER marks are the
 * core's peer fences (xrma_rwin_peer_mark and _wait, core/fence_peer.c): the
 * peer queue's last posted mark, complete once its completed mark reaches it.
 * A mark is an int: 30 bits of the
 * count and one bit for PEER; waits rebuild the full count from the current one.
 * fence_signal writes its values through the core once the marked set is done.
 */
#include <errno.h>
#include "personalities/scif/scif_internal.h"

#define MARK_PEER ((uint64_t)1 << 30)
#define MARK_COUNT (MARK_PEER - 1)
#define SIGNAL_FLAGS (SCIF_SIGNAL_LOCAL | SCIF_SIGNAL_REMOTE)
#define INIT_FLAGS (SCIF_FENCE_INIT_SELF | SCIF_FENCE_INIT_PEER)

/* The full count whose low bits are low, at or below the current count now. */
static uint64_t mark_count(uint64_t now, uint64_t low)
{
	return now - ((now - low) & MARK_COUNT);
}

static int fence_now(struct xrma_scif_ep *ep, bool peer, uint64_t *count)
{
	if (peer)
		return xrma_rwin_peer_mark(ep->rwin, count);
	return xrma_fence_mark(ep->dmaq, count);
}

int scif_fence_mark(scif_epd_t epd, int flags, int *mark)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_scif_ep *ep;
	uint64_t count;
	int ret;

	if (!mark || (flags != SCIF_FENCE_INIT_SELF && flags != SCIF_FENCE_INIT_PEER)) {
		return xrma_scif_fail_errno(EINVAL);
	}
	/* Entering lets go of the peer's windows it unregistered, so their ranges free up. */
	ret = xrma_scif_ep_enter(epd, &ep);
	if (ret)
		return xrma_scif_fail(ret);
	ret = fence_now(ep, flags == SCIF_FENCE_INIT_PEER, &count);
	xrma_scif_ep_leave(ep);
	if (ret)
		return xrma_scif_fail(ret);
	XRMA_KILL_POINT("scif.fence_mark.after_mark");
	*mark = (int)((count & MARK_COUNT) | (flags == SCIF_FENCE_INIT_PEER ? MARK_PEER : 0));
	return 0;
}

int scif_fence_wait(scif_epd_t epd, int mark)
{
	XRMA_SCIF_ERRNO_KEEP();
	bool peer = (uint64_t)mark & MARK_PEER;
	struct xrma_scif_ep *ep;
	struct xrma_dmaq *dmaq = NULL;
	uint64_t now, target = 0;
	int ret;

	if (mark < 0) {
		return xrma_scif_fail_errno(EINVAL);
	}
	ret = xrma_scif_ep_enter(epd, &ep);
	if (ret)
		return xrma_scif_fail(ret);
	ret = fence_now(ep, peer, &now);
	if (!ret) {
		target = mark_count(now, (uint64_t)mark & MARK_COUNT);
		if (peer)
			ret = xrma_rwin_peer_wait(ep->rwin, target, XRMA_TIMEOUT_INFINITE);
		else
			dmaq = ep->dmaq;
	}
	pthread_mutex_unlock(&ep->lock);
	/* A close meanwhile closes the queue: the wait then fails with a bad handle. */
	if (!ret && dmaq)
		ret = xrma_fence_wait(dmaq, target, XRMA_TIMEOUT_INFINITE);
	xrma_scif_retired_sweep();
	xrma_scif_ep_put(ep);
	return ret ? xrma_scif_fail(ret) : 0;
}

static int signal_checks(off_t loff, off_t roff, int flags)
{
	int init = flags & INIT_FLAGS;

	if ((flags & ~(INIT_FLAGS | SIGNAL_FLAGS)) || !(flags & SIGNAL_FLAGS) ||
	    (init != SCIF_FENCE_INIT_SELF && init != SCIF_FENCE_INIT_PEER) ||
	    ((flags & SCIF_SIGNAL_LOCAL) && loff % 4) || ((flags & SCIF_SIGNAL_REMOTE) && roff % 4))
		return -XRMA_EINVAL;
	if (((flags & SCIF_SIGNAL_LOCAL) && loff < 0) || ((flags & SCIF_SIGNAL_REMOTE) && roff < 0))
		return -XRMA_ENXIO;
	return 0;
}

static int signal_targets(struct xrma_scif_ep *ep, off_t loff, off_t roff, int flags,
			  struct xrma_seg **lseg, size_t *lo, struct xrma_rseg **rseg, size_t *ro)
{
	struct xrma_rwin_piece piece;
	struct xrma_iov iov;
	size_t count;
	int ret;

	if (flags & SCIF_SIGNAL_LOCAL) {
		/* The 8 bytes in one live window, whatever its rights (the value is ours to write). */
		ret = xrma_rwin_local(ep->rwin, (uint64_t)loff, 8, 0, &iov, 1, &count);
		if (ret)
			return -XRMA_ENXIO;
		*lseg = iov.seg;
		*lo = iov.offset;
	}
	if (flags & SCIF_SIGNAL_REMOTE) {
		/*
		 * The signal is a remote write: a window without SCIF_PROT_WRITE is not one
		 * it may land in (its segment refuses writers), reported as no window.
		 */
		ret = xrma_rwin_lookup(ep->rwin, (uint64_t)roff, 8, XRMA_RWIN_PROT_WRITE, &piece, 1, &count);
		if (ret == -XRMA_ENOSPC || ret == -XRMA_EACCES)   /* straddling two windows, or read-only */
			ret = -XRMA_ENXIO;
		if (!ret)
			ret = xrma_rwin_import(ep->rwin, &piece, rseg);
		if (ret)
			return ret;
		*ro = piece.seg_offset;
	}
	return 0;
}

int scif_fence_signal(scif_epd_t epd, off_t loff, uint64_t lval, off_t roff, uint64_t rval, int flags)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_scif_ep *ep;
	struct xrma_seg *lseg = NULL;
	struct xrma_rseg *rseg = NULL;
	size_t lo = 0, ro = 0;
	uint64_t target;
	int ret;

	ret = signal_checks(loff, roff, flags);
	if (ret)
		return xrma_scif_fail(ret);
	ret = xrma_scif_ep_enter(epd, &ep);
	if (ret)
		return xrma_scif_fail(ret);
	ret = signal_targets(ep, loff, roff, flags, &lseg, &lo, &rseg, &ro);
	/*
	 * The peer's set completes on the peer's engine with no word to us, so a
	 * PEER signal waits for it here, then writes (docs/scif.md).
	 */
	if (!ret && (flags & SCIF_FENCE_INIT_PEER)) {
		ret = fence_now(ep, true, &target);
		if (!ret)
			ret = xrma_rwin_peer_wait(ep->rwin, target, XRMA_TIMEOUT_INFINITE);
	}
	if (!ret)
		XRMA_KILL_POINT("scif.fence_signal.before_signal");
	if (!ret)
		ret = xrma_fence_signal(ep->dmaq, lseg, lo, lval, rseg, ro, rval, 0);
	xrma_scif_ep_leave(ep);
	return ret ? xrma_scif_fail(ret) : 0;
}
