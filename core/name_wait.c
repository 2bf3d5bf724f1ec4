/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/name_wait.c: the cluster's node ids and the wait for another node's
 * object to appear (core/name_wait.h). Programs start one node after the
 * other and connect as soon as they run (SISCI's connect loops): the wait
 * blocks on the provider's notice of changed names, never on a sleep, and a
 * provider without name_wait simply answers at once.
 */
#include "core/name_wait.h"

#include <xrma/errors.h>
#include <xrma/node.h>
#include "core/ctx.h"
#include "common/node_list.h"
#include "core/prov_call.h"

bool xrma_core_node_in_cluster(struct xrma_core_ctx *ctx, uint32_t node)
{
	if (ctx->cluster.count)
		return xrma_node_list_find(&ctx->cluster, node) != NULL;
	if (node > ctx->caps.max_node_id)
		return false;
	return xrma_core_call_node_legal(ctx, node);
}

void xrma_core_name_wait_begin(struct xrma_core_name_wait *w, struct xrma_core_ctx *ctx,
			       uint32_t node, uint32_t flags, int timeout_ms)
{
	w->ctx = ctx;
	w->node = node;
	w->flags = flags;
	w->seen = 0;
	xrma_deadline_set(&w->deadline, timeout_ms);
	/* The token is taken before the first look, so a name bound after it wakes us. */
	w->watching = (flags & XRMA_OPEN_WAIT) && XRMA_PROV_HAS(ctx, name_wait) &&
		      xrma_core_node_in_cluster(ctx, node) &&
		      xrma_core_call_name_wait(ctx, node, &w->seen, 0) == 0;
}

int xrma_core_name_wait_left(const struct xrma_core_name_wait *w)
{
	if (w->deadline.infinite)
		return XRMA_TIMEOUT_INFINITE;
	/* 0 would mean "poll" to the control channel; an attempt gets at least 1 ms. */
	return xrma_deadline_passed(&w->deadline) ? 1 : xrma_deadline_remaining_ms(&w->deadline);
}

bool xrma_core_name_wait_again(struct xrma_core_name_wait *w, int *ret)
{
	struct xrma_core_ctx *ctx = w->ctx;
	int waited;

	if (*ret == -XRMA_ENODEV && (w->flags & (XRMA_OPEN_CLUSTER | XRMA_OPEN_WAIT)) &&
	    xrma_core_node_in_cluster(ctx, w->node))
		*ret = -XRMA_ENOENT;
	if ((*ret != -XRMA_ENOENT && *ret != -XRMA_ENOTAVAIL) || !w->watching ||
	    xrma_deadline_passed(&w->deadline))
		return false;
	waited = xrma_core_call_name_wait(ctx, w->node, &w->seen,
					  xrma_deadline_remaining_ms(&w->deadline));
	return waited == 0;
}

void xrma_core_names_changed(struct xrma_core_ctx *ctx)
{
	xrma_core_call_name_changed(ctx);
}
