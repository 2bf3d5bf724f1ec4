/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/node.c: the local node id, the live nodes, the cluster's nodes, probing
 * one node, and host names through the node file (xrma/node.h). Liveness itself is the
 * provider's; this file only asks.
 */
#include <stdlib.h>
#include <xrma/errors.h>
#include <xrma/node.h>
#include "core/config.h"
#include "core/ctx.h"
#include "core/name_wait.h"
#include "core/prov_call.h"
#include "common/node_list.h"

int xrma_node_by_name(const char *name, uint32_t *node_id)
{
	const struct xrma_node_entry *entry;
	struct xrma_node_list list;
	struct xrma_config *cfg;
	const char *path;
	int ret;

	if (!name || !*name || !node_id)
		return -XRMA_EINVAL;
	/* The snapshot is large: not on the caller's stack. */
	cfg = malloc(sizeof(*cfg));
	if (!cfg)
		return -XRMA_ENOMEM;
	ret = xrma_config_load(cfg);
	path = ret ? NULL : xrma_config_value(cfg, XRMA_CONFIG_NODES);
	if (!ret && (!path || !*path))
		ret = -XRMA_ENOENT;
	if (!ret)
		ret = xrma_node_list_load(path, "xrma.nodes", &list);
	free(cfg);
	if (ret)
		return ret;
	entry = xrma_node_list_find_host(&list, name);
	if (entry)
		*node_id = entry->node;
	xrma_node_list_free(&list);
	return entry ? 0 : -XRMA_ENOENT;
}

int xrma_node_self(struct xrma_ctx *handle, uint32_t *node_id)
{
	struct xrma_core_ctx *ctx;
	int ret;

	if (!node_id)
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	*node_id = ctx->self.node;
	xrma_handle_put(&ctx->obj);
	return 0;
}

int xrma_node_list(struct xrma_ctx *handle, uint32_t *ids, size_t max, size_t *count)
{
	struct xrma_core_ctx *ctx;
	int ret;

	if (!count || (max && !ids))
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	ret = xrma_core_call_node_list(ctx, ids, max, count);
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_node_in_cluster(struct xrma_ctx *handle, uint32_t node_id)
{
	struct xrma_core_ctx *ctx;
	int ret = xrma_core_ctx_acquire(handle, &ctx);

	if (ret)
		return ret;
	ret = xrma_core_node_in_cluster(ctx, node_id) ? 0 : -XRMA_ENODEV;
	xrma_handle_put(&ctx->obj);
	return ret;
}

static int node_id_compare(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int xrma_node_cluster(struct xrma_ctx *handle, uint32_t *ids, size_t max, size_t *count)
{
	struct xrma_core_ctx *ctx;
	uint32_t *all;
	size_t n;
	int ret;

	if (!count || (max && !ids))
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	/* The node file is fixed once the context is open: read without a lock. */
	n = ctx->cluster.count;
	if (!n) {
		xrma_handle_put(&ctx->obj);
		return -XRMA_ENOENT;
	}
	all = malloc(n * sizeof(*all));
	if (!all) {
		xrma_handle_put(&ctx->obj);
		return -XRMA_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		all[i] = ctx->cluster.entries[i].node;
	xrma_handle_put(&ctx->obj);
	qsort(all, n, sizeof(*all), node_id_compare);
	for (size_t i = 0; i < n && i < max; i++)
		ids[i] = all[i];
	*count = n;
	free(all);
	return 0;
}

/* The context, held, if node_id is a valid id for its provider. */
static int node_ctx(struct xrma_ctx *handle, uint32_t node_id, struct xrma_core_ctx **ctx)
{
	int ret = xrma_core_ctx_acquire(handle, ctx);

	if (ret)
		return ret;
	if (node_id > (*ctx)->caps.max_node_id) {
		xrma_handle_put(&(*ctx)->obj);
		return -XRMA_EINVAL;
	}
	return 0;
}

int xrma_node_objects(struct xrma_ctx *handle, uint32_t node_id, uint32_t flags,
		      int (*report)(void *arg, const struct xrma_node_object *obj), void *arg)
{
	struct xrma_core_ctx *ctx;
	int ret;

	if (!report || flags)
		return -XRMA_EINVAL;
	ret = node_ctx(handle, node_id, &ctx);
	if (ret)
		return ret;
	ret = xrma_core_call_node_objects(ctx, node_id, report, arg);
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_node_set_link(struct xrma_ctx *handle, uint32_t node_id, bool up)
{
	struct xrma_core_ctx *ctx;
	int ret = node_ctx(handle, node_id, &ctx);

	if (ret)
		return ret;
	ret = xrma_core_call_link_set(ctx, node_id, up);
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_node_probe(struct xrma_ctx *handle, uint32_t node_id, int timeout_ms)
{
	struct xrma_core_ctx *ctx;
	int ret = node_ctx(handle, node_id, &ctx);

	if (ret)
		return ret;
	ret = xrma_core_call_node_probe(ctx, node_id, timeout_ms);
	xrma_handle_put(&ctx->obj);
	return ret;
}

/* The context, held, if it models CSR space and offset names a register. */
static int csr_ctx(struct xrma_ctx *handle, uint32_t node_id, uint32_t offset,
		   struct xrma_core_ctx **ctx)
{
	int ret = node_ctx(handle, node_id, ctx);

	if (ret)
		return ret;
	if (!((*ctx)->caps.flags & XRMA_CAP_CSR))
		ret = -XRMA_ENOTSUP;
	else if (offset % sizeof(uint32_t))
		ret = -XRMA_EALIGN_OFFSET;
	if (ret)
		xrma_handle_put(&(*ctx)->obj);
	return ret;
}

int xrma_node_csr_read(struct xrma_ctx *handle, uint32_t node_id, uint32_t offset, uint32_t *value)
{
	struct xrma_core_ctx *ctx;
	int ret;

	if (!value)
		return -XRMA_EINVAL;
	ret = csr_ctx(handle, node_id, offset, &ctx);
	if (ret)
		return ret;
	ret = xrma_core_call_csr_read(ctx, node_id, offset, value);
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_node_csr_write(struct xrma_ctx *handle, uint32_t node_id, uint32_t offset, uint32_t value)
{
	struct xrma_core_ctx *ctx;
	int ret = csr_ctx(handle, node_id, offset, &ctx);

	if (ret)
		return ret;
	ret = xrma_core_call_csr_write(ctx, node_id, offset, value);
	xrma_handle_put(&ctx->obj);
	return ret;
}
