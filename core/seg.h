/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/seg.h: the segment object as the rest of the core sees it (transfers,
 * windows and fences take "busy" uses on it), and the inbound handlers of the
 * import protocol.
 */
#ifndef XRMA_CORE_SEG_H
#define XRMA_CORE_SEG_H

#include <stdbool.h>
#include <xrma/seg.h>
#include "core/busy.h"
#include "core/event.h"
#include "core/handle.h"
#include "common/lock.h"
#include "common/ref.h"
#include "core/wire.h"
#include "providers/provider.h"

struct xrma_core_ctx;

struct xrma_seg_importer {
	struct xrma_prov_addr addr;
	uint64_t import_id;
};

struct xrma_core_seg {
	struct xrma_obj obj;
	struct xrma_core_ctx *ctx;          /* fixed */
	struct xrma_prov_mem *pmem;         /* fixed */
	void *addr;                         /* fixed */
	size_t len;                         /* fixed */
	uint64_t id;                        /* fixed; meaningless when private */
	uint32_t access;                    /* fixed */
	uint32_t flags;                     /* fixed */
	struct xrma_ref busy;               /* transfers, windows and signals using it */

	struct xrma_lock lock;              /* guards the fields below */
	bool exported;
	bool key_valid;                     /* the provider export is in force */
	struct xrma_prov_key key;
	struct xrma_seg_importer *importers;
	size_t importer_count, importer_cap;

	struct xrma_evq events;
};

static inline int xrma_core_seg_acquire(const void *handle, struct xrma_core_seg **seg)
{
	return XRMA_HANDLE_GET(handle, XRMA_OBJ_SEG, struct xrma_core_seg, *seg);
}

/*
 * A use that keeps the segment from closing (a transfer, a window entry, a
 * fence signal or publication): a reference through handle and a busy count.
 */
static inline int xrma_core_seg_busy_get(const void *handle, struct xrma_core_seg **seg)
{
	int ret = xrma_core_seg_acquire(handle, seg);

	if (!ret)
		xrma_ref_get(&(*seg)->busy);
	return ret;
}

/* The end of a use taken with xrma_core_seg_busy_get. */
static inline void xrma_core_seg_busy_put(struct xrma_core_seg *seg)
{
	xrma_busy_end(&seg->obj, &seg->busy);
}

void xrma_core_seg_on_import(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			     const struct xrma_wire_msg *msg);
/* An import by bus address (XRMA_WIRE_SEG_IMPORT_BUS): find the segment, check, answer. */
void xrma_core_seg_on_import_bus(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
				 const struct xrma_wire_msg *msg);
void xrma_core_seg_on_release(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			      const struct xrma_wire_msg *msg);
void xrma_core_seg_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer, int status);
void xrma_core_seg_on_link(struct xrma_core_ctx *ctx, uint32_t node, bool up);

#endif
