/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/ctx.h: the context object as the rest of the core sees it and child
 * accounting. The core calls its provider through core/prov_call.h.
 */
#ifndef XRMA_CORE_CTX_H
#define XRMA_CORE_CTX_H

#include <stdatomic.h>
#include <xrma/ctx.h>
#include "core/close_pending.h"
#include "core/control.h"
#include "core/engine.h"
#include "core/exit_notice.h"
#include "core/handle.h"
#include "core/idmap.h"
#include "common/list.h"
#include "common/lock.h"
#include "common/node_list.h"
#include "core/service.h"
#include "core/topo.h"
#include "providers/provider.h"

struct xrma_core_ctx {
	struct xrma_obj obj;
	const struct xrma_provider *prov;   /* fixed at open */
	void *prov_state;                   /* fixed at open */
	struct xrma_prov_addr self;         /* fixed at open */
	char fabric[XRMA_FABRIC_MAX + 1];   /* fixed at open */
	struct xrma_caps caps;              /* fixed at open */
	struct xrma_core_placement placement;   /* fixed at open: adapter, binding */
	struct xrma_node_list cluster;      /* fixed at open: [xrma] nodes, empty if unset */
	size_t live_children;               /* under lock: open objects (handle live) */
	size_t children;                    /* under lock: objects not yet destroyed */
	struct xrma_cond children_cond;     /* broadcast when children drops */
	bool closing;                       /* under lock: close passed its checks */
	bool close_killed;                  /* under lock: a deferred close killed the handle */

	struct xrma_lock lock;              /* guards the maps and next_id */
	struct xrma_idmap segs;             /* exportable seg id -> seg */
	struct xrma_idmap rsegs;            /* import id -> rseg */
	struct xrma_idmap conns;            /* conn id -> conn */
	struct xrma_idmap listeners;        /* port -> listening conn */
	struct xrma_idmap intrs;            /* number -> intr */
	struct xrma_idmap rintrs;           /* rintr id -> rintr */
	uint64_t next_id;

	struct xrma_service service;
	struct xrma_control control;
	struct xrma_engine engine;
	struct xrma_exit_notice exit_notice;   /* core/exit_notice.c's list */
	struct xrma_list_link close_pending;   /* core/close_pending.c's list */
};

static inline int xrma_core_ctx_acquire(const void *handle, struct xrma_core_ctx **ctx)
{
	return XRMA_HANDLE_GET(handle, XRMA_OBJ_CTX, struct xrma_core_ctx, *ctx);
}

/*
 * Child accounting. child_open when a child object is created (-XRMA_ESTATE if
 * the context is closing); child_killed when its handle is closed (from then
 * xrma_ctx_close no longer answers XRMA_EBUSY for it); child_destroyed as the
 * last thing its destructor does (the context's memory and provider stay until
 * every child is destroyed).
 */
int xrma_core_ctx_child_open(struct xrma_core_ctx *ctx);
void xrma_core_ctx_child_killed(struct xrma_core_ctx *ctx);
void xrma_core_ctx_child_destroyed(struct xrma_core_ctx *ctx);

/* A fresh id for imports, connections and remote interrupts (under ctx->lock). */
uint64_t xrma_core_ctx_next_id(struct xrma_core_ctx *ctx);

static inline bool xrma_core_addr_eq(const struct xrma_prov_addr *a, const struct xrma_prov_addr *b)
{
	return a->node == b->node && a->ep == b->ep;
}

#endif
