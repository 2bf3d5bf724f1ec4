/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/rseg.h: the imported segment as the rest of the core sees it, and the
 * inbound handlers that move it through its states.
 */
#ifndef XRMA_CORE_RSEG_H
#define XRMA_CORE_RSEG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <xrma/rseg.h>
#include "core/busy.h"
#include "core/event.h"
#include "core/handle.h"
#include "common/lock.h"
#include "common/ref.h"
#include "core/wire.h"
#include "providers/provider.h"

struct xrma_core_ctx;
struct xrma_rseg_map;

struct xrma_core_rseg {
	struct xrma_obj obj;
	struct xrma_core_ctx *ctx;          /* fixed */
	struct xrma_prov_addr owner;        /* fixed */
	uint64_t id;                        /* fixed */
	uint64_t import_id;                 /* fixed */
	size_t len;                         /* fixed once imported */
	/* A window imported by bus address: where byte 0 lies in the segment the
	 * provider imported (base; 0 otherwise), and no handshake (raw). */
	size_t base;                        /* fixed once imported */
	bool raw;                           /* fixed */
	/* Where byte 0 lies in the owner's bus address space, if the owner said. */
	uint64_t bus;                       /* fixed once imported */
	bool has_bus;                       /* fixed once imported */
	uint32_t access;                    /* fixed once imported */
	struct xrma_prov_rmem *remote_mem;       /* fixed once imported */
	struct xrma_ref busy;               /* transfers and signals using it */
	bool published;                     /* under ctx->lock: has a handle */
	uint64_t early_notice;              /* under ctx->lock: notice that beat publication */

	struct xrma_lock lock;              /* guards state and maps */
	/* Written under lock; every transfer reads it without (xrma_core_rseg_usable). */
	_Atomic(enum xrma_rseg_state) state;
	struct xrma_rseg_map *maps;

	struct xrma_evq events;
};

static inline int xrma_core_rseg_acquire(const void *handle, struct xrma_core_rseg **rseg)
{
	return XRMA_HANDLE_GET(handle, XRMA_OBJ_RSEG, struct xrma_core_rseg, *rseg);
}

/* A use that keeps the import from closing (a transfer, a fence signal): reference and busy count. */
static inline int xrma_core_rseg_busy_get(const void *handle, struct xrma_core_rseg **rseg)
{
	int ret = xrma_core_rseg_acquire(handle, rseg);

	if (!ret)
		xrma_ref_get(&(*rseg)->busy);
	return ret;
}

/* The end of a use taken with xrma_core_rseg_busy_get. */
static inline void xrma_core_rseg_busy_put(struct xrma_core_rseg *rseg)
{
	xrma_busy_end(&rseg->obj, &rseg->busy);
}

/*
 * Import segment id of node only if its owner opened it with
 * XRMA_SEG_BROADCAST (XRMA_ENOENT otherwise), for core/bcast.c; arguments
 * checked by the caller, errors as xrma_rseg_open.
 */
int xrma_core_rseg_open_broadcast(struct xrma_core_ctx *ctx, uint32_t node, uint64_t id,
				  uint32_t access, int timeout_ms, struct xrma_rseg **out);

/* 0 if usable for new work, -XRMA_ELOST if lost. */
int xrma_core_rseg_usable(struct xrma_core_rseg *rseg);

void xrma_core_rseg_on_notice(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			      const struct xrma_wire_msg *msg);
void xrma_core_rseg_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer, int status);
void xrma_core_rseg_on_link(struct xrma_core_ctx *ctx, uint32_t node, bool up);

#endif
