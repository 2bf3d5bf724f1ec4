/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/ref.h: plain atomic use counters for "in use" accounting inside the core
 * (transfers in flight, mappings, holds). Lifetime of objects themselves is the
 * handle table's job (core/handle.h); these counters only answer "busy?".
 */
#ifndef XRMA_COMMON_REF_H
#define XRMA_COMMON_REF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct xrma_ref {
	atomic_size_t count;
};

static inline void xrma_ref_init(struct xrma_ref *ref)
{
	atomic_init(&ref->count, 0);
}

static inline void xrma_ref_get(struct xrma_ref *ref)
{
	atomic_fetch_add_explicit(&ref->count, 1, memory_order_acq_rel);
}

/* Returns true when this was the last use. */
static inline bool xrma_ref_put(struct xrma_ref *ref)
{
	return atomic_fetch_sub_explicit(&ref->count, 1, memory_order_acq_rel) == 1;
}

static inline size_t xrma_ref_count(struct xrma_ref *ref)
{
	return atomic_load_explicit(&ref->count, memory_order_acquire);
}

#endif
