/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/name_wait.h: opening an object of another node (a segment, an
 * interrupt) when that node may not be up yet. A node of the cluster (the
 * configuration's node file, else the provider's legal ids) that is not up is
 * a node without the object; with XRMA_OPEN_WAIT the open is repeated each
 * time the node's names change, until it works or the deadline passes.
 */
#ifndef XRMA_CORE_NAME_WAIT_H
#define XRMA_CORE_NAME_WAIT_H

#include <stdbool.h>
#include <stdint.h>
#include "common/wait.h"

struct xrma_core_ctx;

struct xrma_core_name_wait {
	struct xrma_core_ctx *ctx;
	uint32_t node;
	uint32_t flags;              /* XRMA_OPEN_* */
	struct xrma_deadline deadline;
	uint64_t seen;               /* the provider's token (name_wait) */
	bool watching;               /* the provider can wait for names */
};

/* Whether node is an id of ctx's cluster, up or not. */
bool xrma_core_node_in_cluster(struct xrma_core_ctx *ctx, uint32_t node);

/* Before the first attempt: flags are the open's XRMA_OPEN_* bits. */
void xrma_core_name_wait_begin(struct xrma_core_name_wait *w, struct xrma_core_ctx *ctx,
			       uint32_t node, uint32_t flags, int timeout_ms);

/* The time an attempt may take: what is left of the deadline (-1: none). */
int xrma_core_name_wait_left(const struct xrma_core_name_wait *w);

/*
 * After an attempt that returned *ret: true to try again (the node's names
 * changed in time); false, with *ret the open's result (a node of the cluster
 * that is not up becomes XRMA_ENOENT).
 */
bool xrma_core_name_wait_again(struct xrma_core_name_wait *w, int *ret);

/* Tell this node's waiters that an object of it became usable. */
void xrma_core_names_changed(struct xrma_core_ctx *ctx);

#endif
