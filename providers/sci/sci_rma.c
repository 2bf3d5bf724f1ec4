/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/sci/sci_rma.c: transfers, atomics and mappings of imports, with
 * the transaction errors of the fault model (sci_fault.c) applied. A transfer
 * whose transaction k fails moved the k transactions before it (posted writes
 * that went out before the error came back), never the failed one or any
 * later one, and returns XRMA_ETRANSFER; a read that failed also spoils the
 * failed transaction's bytes in the caller's buffer, so data that cannot be
 * trusted never passes for good data. Every error is counted in the import's
 * counts (retriable or fatal), which is how mapped loads and stores learn of
 * them (xrma_rseg_errors), and in the node's ERROR_COUNT register.
 */
#include "providers/sci/sci.h"

#include <stdlib.h>
#include <string.h>

#define SCI_SPOILED_BYTE 0xee

static size_t vec_total(const struct iovec *iov, size_t count)
{
	size_t total = 0;

	for (size_t i = 0; i < count; i++)
		total += iov[i].iov_len;
	return total;
}

/* Copy of the first len bytes of iov into out (at most count entries); returns the count. */
static size_t vec_prefix(const struct iovec *iov, size_t count, size_t len, struct iovec *out)
{
	size_t n = 0;

	for (size_t i = 0; i < count && len; i++) {
		out[n] = iov[i];
		if (out[n].iov_len > len)
			out[n].iov_len = len;
		len -= out[n].iov_len;
		n++;
	}
	return n;
}

/* Fill bytes [from, to) of the vector with the spoiled pattern. */
static void vec_spoil(const struct iovec *iov, size_t count, size_t from, size_t to)
{
	size_t pos = 0;

	for (size_t i = 0; i < count && pos < to; i++) {
		size_t start = pos, end = pos + iov[i].iov_len, a, b;

		pos = end;
		a = start > from ? start : from;
		b = end < to ? end : to;
		if (a < b)
			memset((unsigned char *)iov[i].iov_base + (a - start), SCI_SPOILED_BYTE, b - a);
	}
}

/* Our node's link, the owner's, or the one between the two is down. */
static bool link_is_down(struct hostfab_ep *ep, struct sci_rmem *r)
{
	return __atomic_load_n(&ep->own->dir->link_down, __ATOMIC_ACQUIRE) ||
	       (r->h->odir && __atomic_load_n(&r->h->odir->dir->link_down, __ATOMIC_ACQUIRE)) ||
	       xrma_prov_sci_link_pair_down(ep, r->node);
}

/* Count one error against r and the node; fatal ones need the path restored. */
static void count_error(struct hostfab_ep *ep, struct sci_rmem *r, bool fatal)
{
	atomic_fetch_add_explicit(fatal ? &r->fatal : &r->retriable, 1, memory_order_acq_rel);
	xrma_prov_sci_csr_log_error(ep);
}

/* The transaction errors of n transactions to r; 0 when all passed. */
static int draw(struct hostfab_ep *ep, struct sci_rmem *r, uint64_t n, uint64_t *at)
{
	switch (xrma_prov_sci_fault_draw(ep, r->node, n, at)) {
	case SCI_PASS:
		return 0;
	case SCI_NODE_LOST:
		count_error(ep, r, true);
		hostfab_detail("sci: node %u was lost (sci.fault_lost)", r->node);
		return -XRMA_ELOST;
	case SCI_FATAL:
		count_error(ep, r, true);
		break;
	case SCI_RETRIABLE:
		count_error(ep, r, false);
		break;
	}
	hostfab_detail("sci: transaction %llu of %llu to node %u failed (sci.fault_rate)",
		       (unsigned long long)*at + 1, (unsigned long long)n, r->node);
	return -XRMA_ETRANSFER;
}

int xrma_prov_sci_rma(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
		      const struct iovec *iov, size_t count, uint32_t flags)
{
	struct hostfab_ep *ep = state;
	struct sci_rmem *r = (struct sci_rmem *)rmem;
	struct xrma_prov_rmem *h;
	size_t total, moved;
	uint64_t n, at = 0;
	int ret = 0;

	if (!ep || !r || (!iov && count))
		return -XRMA_EINVAL;
	h = (struct xrma_prov_rmem *)r->h;
	total = vec_total(iov, count);
	n = (total + SCI_TRANSACTION_SIZE - 1) / SCI_TRANSACTION_SIZE;
	/* A link that is down, or that the draw's events took down: the first
	 * transaction times out, and nothing follows it. */
	if (total && (link_is_down(ep, r) || (!(ret = draw(ep, r, n, &at)) && link_is_down(ep, r)))) {
		count_error(ep, r, true);
		hostfab_detail("sci: the link between node %u and node %u is down", ep->self.node,
			       r->node);
		if (op == XRMA_RMA_READ)
			vec_spoil(iov, count, 0, total < SCI_TRANSACTION_SIZE ? total : SCI_TRANSACTION_SIZE);
		return -XRMA_ETRANSFER;
	}
	if (!total || !ret) {
		ret = hostfab_rma(state, op, h, offset, iov, count, flags);
		if (ret == -XRMA_ETRANSFER && link_is_down(ep, r))
			count_error(ep, r, true);
		return ret;
	}
	moved = at * SCI_TRANSACTION_SIZE;
	if (moved && ret == -XRMA_ETRANSFER) {
		struct iovec *prefix = malloc(count * sizeof(*prefix));

		if (prefix)
			(void)hostfab_rma(state, op, h, offset, prefix,
					  vec_prefix(iov, count, moved, prefix), flags);
		free(prefix);
	}
	if (op == XRMA_RMA_READ)
		vec_spoil(iov, count, moved, ret == -XRMA_ETRANSFER && moved + SCI_TRANSACTION_SIZE < total
						     ? moved + SCI_TRANSACTION_SIZE : total);
	return ret;
}

int xrma_prov_sci_atomic(void *state, struct xrma_prov_rmem *rmem, size_t offset,
			 enum xrma_atomic_op op, uint64_t operand, uint64_t compare, uint64_t *old)
{
	struct hostfab_ep *ep = state;
	struct sci_rmem *r = (struct sci_rmem *)rmem;
	uint64_t at;
	int ret;

	if (!ep || !r)
		return -XRMA_EINVAL;
	/* One lock transaction: it happens whole or not at all. */
	if (link_is_down(ep, r)) {
		count_error(ep, r, true);
		return -XRMA_ETRANSFER;
	}
	ret = draw(ep, r, 1, &at);
	if (!ret)
		ret = hostfab_atomic(state, (struct xrma_prov_rmem *)r->h, offset, op, operand, compare,
				     old);
	return ret;
}

int xrma_prov_sci_map(void *state, struct xrma_prov_rmem *rmem, size_t offset, size_t len,
		      uint32_t prot, void **addr)
{
	struct sci_rmem *r = (struct sci_rmem *)rmem;

	return r ? hostfab_map(state, (struct xrma_prov_rmem *)r->h, offset, len, prot, addr)
		 : -XRMA_EINVAL;
}

void xrma_prov_sci_unmap(void *state, struct xrma_prov_rmem *rmem, void *addr, size_t len)
{
	struct sci_rmem *r = (struct sci_rmem *)rmem;

	if (r)
		hostfab_unmap(state, (struct xrma_prov_rmem *)r->h, addr, len);
}

/*
 * Loads and stores through a mapping pass no provider code, so a check point
 * stands for them: the accesses since the last one are one transaction, which
 * the fault model may fail, and a link that is down now failed them for sure.
 */
int xrma_prov_sci_rmem_errors(void *state, struct xrma_prov_rmem *rmem, uint32_t flags,
			      struct xrma_rseg_errors *errors)
{
	struct hostfab_ep *ep = state;
	struct sci_rmem *r = (struct sci_rmem *)rmem;
	uint64_t at;

	if (!ep || !r || !errors)
		return -XRMA_EINVAL;
	if (flags & XRMA_RSEG_ERRORS_MAPPED) {
		if (link_is_down(ep, r) || xrma_prov_sci_fault_lost(ep, r->node))
			count_error(ep, r, true);
		else
			(void)draw(ep, r, 1, &at);
	}
	errors->retriable = atomic_load_explicit(&r->retriable, memory_order_acquire);
	errors->fatal = atomic_load_explicit(&r->fatal, memory_order_acquire);
	return 0;
}
