/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_rma.c: remote memory access (§3.7): scif_readfrom,
 * scif_writeto (local side: a hold on our window space) and scif_vreadfrom,
 * scif_vwriteto (local side: the caller's pages, registered for the call).
 * The remote range is resolved in the peer's table and may span adjacent
 * windows: one core post per remote window, the local vector sliced to match.
 * The core keeps our posted and completed marks in our table (core/rwin.c),
 * where the peer fences on them (INIT_PEER).
 * SCIF_RMA_USECPU and the DMA path share the core's data path (docs/scif.md).
 */
#include <errno.h>
#include "personalities/scif/scif_internal.h"

#define SCIF_RMA_FLAGS (SCIF_RMA_USECPU | SCIF_RMA_USECACHE | SCIF_RMA_SYNC | SCIF_RMA_ORDERED)

/* The part [pos, pos+len) of a local vector. */
static size_t iov_slice(const struct xrma_iov *iov, size_t count, size_t pos, size_t len,
			struct xrma_iov *out)
{
	size_t n = 0;

	for (size_t i = 0; i < count && len; i++) {
		size_t take;

		if (pos >= iov[i].len) {
			pos -= iov[i].len;
			continue;
		}
		take = iov[i].len - pos < len ? iov[i].len - pos : len;
		out[n++] = (struct xrma_iov){ .seg = iov[i].seg, .offset = iov[i].offset + pos, .len = take };
		len -= take;
		pos = 0;
	}
	return n;
}

/*
 * Failed asynchronous RMAs leave completions behind; SCIF has nobody to report
 * them to. They are cleared when they fill the queue, not on every post: a
 * stream of posts then reads no completions it never asked for.
 */
static void rma_reap(struct xrma_scif_ep *ep)
{
	struct xrma_completion done[16];

	while (xrma_dmaq_poll(ep->dmaq, done, 16) == 16)
		;
}

int xrma_scif_dmaq_post(struct xrma_scif_ep *ep, enum xrma_rma_op op, const struct xrma_iov *iov,
			size_t count, struct xrma_rseg *rseg, size_t offset, size_t len, uint64_t cookie,
			uint32_t flags)
{
	int ret = xrma_dmaq_post(ep->dmaq, op, iov, count, rseg, offset, len, cookie, flags);

	if (ret == -XRMA_EAGAIN) {
		/* Queue full: let it drain rather than fail an RMA SCIF cannot refuse. */
		xrma_dmaq_drain(ep->dmaq, XRMA_TIMEOUT_INFINITE);
		rma_reap(ep);
		ret = xrma_dmaq_post(ep->dmaq, op, iov, count, rseg, offset, len, cookie, flags);
	}
	return ret;
}

static int rma_post(struct xrma_scif_ep *ep, enum xrma_rma_op op, const struct xrma_iov *iov,
		    size_t count, uint64_t roffset, size_t len, int flags)
{
	struct xrma_rwin_piece pieces[XRMA_SCIF_PIECES_MAX];
	struct xrma_rseg *rsegs[XRMA_SCIF_PIECES_MAX];
	struct xrma_iov part[XRMA_IOV_MAX];
	bool sync = flags & SCIF_RMA_SYNC;
	size_t npieces, pos = 0;
	int ret;

	ret = xrma_rwin_lookup(ep->rwin, roffset, len,
			       op == XRMA_RMA_WRITE ? XRMA_RWIN_PROT_WRITE : XRMA_RWIN_PROT_READ, pieces,
			       XRMA_SCIF_PIECES_MAX, &npieces);
	for (size_t i = 0; !ret && i < npieces; i++)
		ret = xrma_rwin_import(ep->rwin, &pieces[i], &rsegs[i]);
	if (ret)
		return ret;
	for (size_t i = 0; !ret && i < npieces; i++) {
		size_t nparts = iov_slice(iov, count, pos, pieces[i].len, part);
		uint32_t core = sync ? XRMA_RMA_SYNC : XRMA_RMA_SUPPRESS;

		if (flags & SCIF_RMA_ORDERED && i == npieces - 1)
			core |= XRMA_RMA_ORDERED;
		ret = xrma_scif_dmaq_post(ep, op, part, nparts, rsegs[i], pieces[i].seg_offset,
					  pieces[i].len, 0, core);
		pos += pieces[i].len;
		if (!ret)
			XRMA_KILL_POINT(op == XRMA_RMA_WRITE ? "scif.writeto.mid_transfer" :
						       "scif.readfrom.mid_transfer");
	}
	return ret;
}

/*
 * A transfer that failed on the way (XRMA_ETRANSFER) to a peer that died is the
 * reset SCIF promises, even before the connection noticed. Where the peer's
 * table is read by RMA, a read of it that fails as well says the peer is gone
 * (as the read every call made before did).
 */
static int rma_failure(struct xrma_scif_ep *ep, int ret)
{
	enum xrma_conn_state state;

	if (ret != -XRMA_ETRANSFER)
		return ret;
	if (!xrma_conn_state(ep->conn, &state) && state == XRMA_CONN_DISCONNECTED)
		return -XRMA_ECONNRESET;
	if (xrma_rwin_probe(ep->rwin))
		return -XRMA_ECONNRESET;
	return ret;
}

static int rma_checks(int flags, off_t roffset, size_t len)
{
	if (flags & ~SCIF_RMA_FLAGS || !len)
		return -XRMA_EINVAL;
	return roffset < 0 ? -XRMA_ENXIO : 0;
}

static int rma_window(scif_epd_t epd, off_t loffset, size_t len, off_t roffset, int flags,
		      enum xrma_rma_op op)
{
	struct xrma_iov iov[XRMA_IOV_MAX];
	struct xrma_scif_ep *ep;
	size_t count;
	int ret;

	ret = rma_checks(flags, roffset, len);
	if (!ret && loffset < 0)
		ret = -XRMA_ENXIO;
	if (ret)
		return xrma_scif_fail(ret);
	ret = xrma_scif_ep_enter(epd, &ep);
	if (ret)
		return xrma_scif_fail(ret);
	/* A write reads our window (needs READ); a read fills it (needs WRITE). */
	ret = xrma_rwin_local(ep->rwin, (uint64_t)loffset, len,
			      op == XRMA_RMA_WRITE ? XRMA_RWIN_PROT_READ : XRMA_RWIN_PROT_WRITE, iov, XRMA_IOV_MAX,
			      &count);
	/* In-flight transfers keep the segments (and so the windows' ranges) busy. */
	if (!ret)
		ret = rma_failure(ep, rma_post(ep, op, iov, count, (uint64_t)roffset, len, flags));
	xrma_scif_ep_leave(ep);
	return ret ? xrma_scif_fail(ret) : 0;
}

/*
 * SCIF_RMA_USECACHE: keep the registration of the caller's pages for later
 * calls over the same pages. Where the provider reaches local memory by
 * virtual address (XRMA_CAP_LOCAL_VIRTUAL) the segment only names the range,
 * so a call after the program remapped it moves the pages backing it then, as
 * an uncached v-call must: there every v-call keeps its registration, since
 * registering anew would cost time and change nothing. Returns the cached
 * segment covering [base, +len) (and where it starts), or NULL.
 */
static struct xrma_seg *vcache_find(struct xrma_scif_ep *ep, uintptr_t base, size_t len, uintptr_t *start)
{
	for (size_t i = 0; i < XRMA_SCIF_VCACHE; i++) {
		if (ep->vcache[i].seg && base >= ep->vcache[i].base &&
		    base + len <= ep->vcache[i].base + ep->vcache[i].len) {
			ep->vcache[i].used = ++ep->vcache_clock;
			*start = ep->vcache[i].base;
			return ep->vcache[i].seg;
		}
	}
	return NULL;
}

/* Keep seg in the cache, evicting the least recently used entry. */
static void vcache_keep(struct xrma_scif_ep *ep, uintptr_t base, size_t len, struct xrma_seg *seg)
{
	size_t victim = 0;

	for (size_t i = 1; i < XRMA_SCIF_VCACHE; i++)
		if (ep->vcache[i].used < ep->vcache[victim].used)
			victim = i;
	if (ep->vcache[victim].seg)
		xrma_scif_retire(ep->vcache[victim].seg);
	ep->vcache[victim].base = base;
	ep->vcache[victim].len = len;
	ep->vcache[victim].seg = seg;
	ep->vcache[victim].used = ++ep->vcache_clock;
}

void xrma_scif_vcache_drop(struct xrma_scif_ep *ep)
{
	for (size_t i = 0; i < XRMA_SCIF_VCACHE; i++) {
		if (ep->vcache[i].seg)
			xrma_scif_retire(ep->vcache[i].seg);
		ep->vcache[i].seg = NULL;
	}
}

static int rma_virtual(scif_epd_t epd, void *addr, size_t len, off_t roffset, int flags,
		       enum xrma_rma_op op)
{
	uintptr_t base = (uintptr_t)addr & ~(uintptr_t)(XRMA_SCIF_PAGE - 1);
	struct xrma_seg_attr attr = { .id = XRMA_ID_ANY, .flags = XRMA_SEG_PRIVATE,
				      .access = XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE };
	uintptr_t seg_base = base;
	struct xrma_scif_ep *ep;
	struct xrma_ctx *ctx;
	struct xrma_iov iov;
	bool keep, cached;
	int ret;

	ret = rma_checks(flags, roffset, len);
	if (!ret && (!addr || (uintptr_t)addr > UINTPTR_MAX - len))
		ret = -XRMA_EFAULT;
	if (ret)
		return xrma_scif_fail(ret);
	attr.addr = (void *)base;
	attr.len = (((uintptr_t)addr + len + XRMA_SCIF_PAGE - 1) & ~(uintptr_t)(XRMA_SCIF_PAGE - 1)) - base;
	xrma_scif_retired_trim();
	ret = xrma_scif_ep_enter(epd, &ep);
	if (ret)
		return xrma_scif_fail(ret);
	keep = (flags & SCIF_RMA_USECACHE) || ep->local_virtual;
	iov.seg = keep ? vcache_find(ep, base, attr.len, &seg_base) : NULL;
	cached = iov.seg != NULL;
	ret = cached ? 0 : xrma_scif_ctx(&ctx);
	if (!ret && !cached)
		ret = xrma_seg_open(ctx, &attr, &iov.seg);
	if (!ret) {
		iov.offset = (uintptr_t)addr - seg_base;
		iov.len = len;
		ret = rma_failure(ep, rma_post(ep, op, &iov, 1, (uint64_t)roffset, len, flags));
		/* An asynchronous transfer keeps the segment busy: it closes once done. */
		if (keep && !cached)
			vcache_keep(ep, base, attr.len, iov.seg);
		else if (!cached)
			xrma_scif_retire(iov.seg);
	}
	xrma_scif_ep_leave(ep);
	return ret ? xrma_scif_fail(ret) : 0;
}

int scif_readfrom(scif_epd_t epd, off_t loffset, size_t len, off_t roffset, int rma_flags)
{
	XRMA_SCIF_ERRNO_KEEP();
	return rma_window(epd, loffset, len, roffset, rma_flags, XRMA_RMA_READ);
}

int scif_writeto(scif_epd_t epd, off_t loffset, size_t len, off_t roffset, int rma_flags)
{
	XRMA_SCIF_ERRNO_KEEP();
	return rma_window(epd, loffset, len, roffset, rma_flags, XRMA_RMA_WRITE);
}

int scif_vreadfrom(scif_epd_t epd, void *addr, size_t len, off_t offset, int rma_flags)
{
	XRMA_SCIF_ERRNO_KEEP();
	return rma_virtual(epd, addr, len, offset, rma_flags, XRMA_RMA_READ);
}

int scif_vwriteto(scif_epd_t epd, void *addr, size_t len, off_t offset, int rma_flags)
{
	XRMA_SCIF_ERRNO_KEEP();
	return rma_virtual(epd, addr, len, offset, rma_flags, XRMA_RMA_WRITE);
}
