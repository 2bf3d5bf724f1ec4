/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/loopback/loopback_rma.c: transfers of the loopback provider: RMA
 * (a memmove between the imported memory and the caller's vector) and 64-bit
 * atomics (the compiler's __atomic builtins, sequentially consistent), both
 * behind the fault model of loopback_test.h: the caller's node gate, a lost
 * owner (XRMA_ELOST) and a link down at either end (XRMA_ETRANSFER).
 */
#include "providers/loopback/loopback.h"
#include "providers/prov_atomic.h"

#define XRMA_PROV_LOOPBACK_CACHE_LINE 64

/*
 * Wait while the caller's node gate is closed (the condvar releases the lock),
 * then decide whether the transfer may touch r's memory. Checked after the gate
 * so a transfer held in flight sees a sever or link change made meanwhile.
 * Without may_wait (the rma_try op) a closed gate is -XRMA_EAGAIN instead.
 */
static int xrma_prov_loopback_transfer_enter(struct xrma_prov_loopback_ep *ep,
					     struct xrma_prov_loopback_rmem *r, bool may_wait)
{
	struct xrma_prov_loopback_fabric *fabric = ep->fabric;
	int ret = 0;

	xrma_prov_loopback_lock_take(&fabric->lock);
	if (ep->node->gate_closed && !may_wait) {
		xrma_prov_loopback_lock_drop(&fabric->lock);
		return -XRMA_EAGAIN;
	}
	while (ep->node->gate_closed)
		xrma_prov_loopback_lock_wait(&fabric->lock, &fabric->gate_open);
	if (ep->severed || r->mem->lost)
		ret = -XRMA_ELOST;
	else if (ep->node->link_down || r->mem->owner_node->link_down)
		ret = -XRMA_ETRANSFER;
	xrma_prov_loopback_lock_drop(&fabric->lock);
	return ret;
}

/*
 * Copy bytes [from, to) of the transfer between remote (byte 0 of the transfer)
 * and the vector. memmove: a node may read or write its own memory through an
 * import, so source and destination can overlap.
 */
static void xrma_prov_loopback_copy(enum xrma_rma_op op, unsigned char *remote,
				    const struct iovec *iov, size_t count, size_t from, size_t to)
{
	size_t pos = 0;   /* transfer offset of iov[i] */

	for (size_t i = 0; i < count && pos < to; pos += iov[i].iov_len, i++) {
		size_t begin, end;
		unsigned char *local;

		if (pos + iov[i].iov_len <= from)
			continue;
		begin = from > pos ? from - pos : 0;
		end = to - pos < iov[i].iov_len ? to - pos : iov[i].iov_len;
		local = (unsigned char *)iov[i].iov_base + begin;
		if (op == XRMA_RMA_READ)
			memmove(local, remote + pos + begin, end - begin);
		else
			memmove(remote + pos + begin, local, end - begin);
	}
}

static int xrma_prov_loopback_transfer(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem,
				       size_t offset, const struct iovec *iov, size_t count,
				       uint32_t flags, bool may_wait)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_rmem *r = (struct xrma_prov_loopback_rmem *)rmem;
	unsigned char *remote;
	size_t total = 0, tail;
	int ret;

	/* Only XRMA_RMA_ORDERED means anything here; the core's queue flags pass through. */
	if (!ep || !r || (op != XRMA_RMA_READ && op != XRMA_RMA_WRITE) || (count && !iov))
		return -XRMA_EINVAL;
	for (size_t i = 0; i < count; i++) {
		if (iov[i].iov_len > SIZE_MAX - total)
			return -XRMA_ERANGE;
		total += iov[i].iov_len;
	}
	/* The core checked already; this provider still never copies outside the import. */
	if (offset > r->len || total > r->len - offset)
		return -XRMA_ERANGE;
	ret = xrma_prov_loopback_transfer_enter(ep, r, may_wait);
	if (ret)
		return ret;

	remote = (unsigned char *)r->mem->addr + offset;
	if (!(flags & XRMA_RMA_ORDERED)) {
		xrma_prov_loopback_copy(op, remote, iov, count, 0, total);
		return 0;
	}
	/*
	 * "The last byte lands last": everything before the remote range's final
	 * cache line first, a release fence, then that line, so whoever sees the
	 * last byte (a flag a peer polls) sees all the data before it.
	 */
	tail = (uintptr_t)(remote + total) % XRMA_PROV_LOOPBACK_CACHE_LINE;
	if (!tail)
		tail = XRMA_PROV_LOOPBACK_CACHE_LINE;
	if (tail > total)
		tail = total;
	xrma_prov_loopback_copy(op, remote, iov, count, 0, total - tail);
	atomic_thread_fence(memory_order_release);
	xrma_prov_loopback_copy(op, remote, iov, count, total - tail, total);
	return 0;
}

int xrma_prov_loopback_rma(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem,
			   size_t offset, const struct iovec *iov, size_t count, uint32_t flags)
{
	return xrma_prov_loopback_transfer(state, op, rmem, offset, iov, count, flags, true);
}

int xrma_prov_loopback_rma_try(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem,
			       size_t offset, const struct iovec *iov, size_t count, uint32_t flags)
{
	return xrma_prov_loopback_transfer(state, op, rmem, offset, iov, count, flags, false);
}

int xrma_prov_loopback_atomic(void *state, struct xrma_prov_rmem *rmem, size_t offset,
			      enum xrma_atomic_op op, uint64_t operand, uint64_t compare,
			      uint64_t *old)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_rmem *r = (struct xrma_prov_loopback_rmem *)rmem;
	uint64_t *p;
	int ret;

	if (!ep || !r)
		return -XRMA_EINVAL;
	ret = xrma_prov_atomic_check(r->len, offset, op, old);
	if (ret)
		return ret;
	p = (uint64_t *)((unsigned char *)r->mem->addr + offset);
	/* Registered memory need not be 8-byte aligned even where the offset is. */
	if ((uintptr_t)p % sizeof(uint64_t))
		return -XRMA_EALIGN_OFFSET;
	/* An atomic is a transfer: it passes the same gate and fault checks as RMA. */
	ret = xrma_prov_loopback_transfer_enter(ep, r, true);
	if (ret)
		return ret;

	*old = xrma_prov_atomic_apply(p, op, operand, compare);
	return 0;
}
