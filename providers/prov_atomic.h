/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/prov_atomic.h: one 64-bit atomic on memory the provider can
 * address, shared by every provider that performs atomics with the CPU.
 */
#ifndef XRMA_PROV_ATOMIC_H
#define XRMA_PROV_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xrma/errors.h>
#include <xrma/rseg.h>

/*
 * Fences between plain copies and the publishing store. ThreadSanitizer does
 * not model fences and GCC says so (-Wtsan); the accesses that matter to it are
 * atomics anyway, so under TSan the warning is silenced for the files that
 * include this header.
 */
#if defined(__SANITIZE_THREAD__)
#pragma GCC diagnostic ignored "-Wtsan"
#endif

static inline void xrma_prov_release_fence(void)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void xrma_prov_full_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* The checks every provider's atomic op makes on its arguments: 0 or a negative code. */
static inline int xrma_prov_atomic_check(size_t imported_len, size_t offset, enum xrma_atomic_op op,
					 const uint64_t *old)
{
	if (!old || op < XRMA_ATOMIC_FETCH_ADD || op > XRMA_ATOMIC_READ)
		return -XRMA_EINVAL;
	if (offset % sizeof(uint64_t))
		return -XRMA_EALIGN_OFFSET;
	if (offset > imported_len || imported_len - offset < sizeof(uint64_t))
		return -XRMA_ERANGE;
	return 0;
}

/* Apply op at p (8-byte aligned) and return the value found there. */
static inline uint64_t xrma_prov_atomic_apply(uint64_t *p, enum xrma_atomic_op op, uint64_t operand,
					      uint64_t compare)
{
	switch (op) {
	case XRMA_ATOMIC_FETCH_ADD:
		return __atomic_fetch_add(p, operand, __ATOMIC_SEQ_CST);
	case XRMA_ATOMIC_SWAP:
		return __atomic_exchange_n(p, operand, __ATOMIC_SEQ_CST);
	case XRMA_ATOMIC_CSWAP:
		/* On failure the builtin writes the value found into compare: old either way. */
		__atomic_compare_exchange_n(p, &compare, operand, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		return compare;
	case XRMA_ATOMIC_READ:
	default:
		return __atomic_load_n(p, __ATOMIC_SEQ_CST);
	}
}

#endif
