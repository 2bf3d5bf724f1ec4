/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/ctx.c: opening and closing a context (provider instance, service
 * threads, DMA engine): its lifetime only. What the provider reports goes to
 * core/inbound.c. A close asked for from the context's own callback thread is
 * finished by a thread of its own once the callback has returned
 * (ctx_close_deferred).
 */
#include "core/ctx.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/config.h"
#include "core/inbound.h"
#include "core/prov_call.h"
#include "core/conn.h"
#include "common/detail.h"
#include "core/intr.h"
#include "core/registry.h"
#include "common/spin.h"
#include "common/wait.h"

/*
 * How long an open waits for a close of the same node that finishes on its own
 * thread: that close waits for the callback that asked for it to return.
 */
#define CLOSE_PENDING_WAIT_MS 10000

static void ctx_destroy(struct xrma_obj *obj)
{
	struct xrma_core_ctx *ctx = (struct xrma_core_ctx *)obj;

	xrma_exit_notice_remove(ctx);
	xrma_service_stop(ctx);
	xrma_engine_fini(&ctx->engine);
	xrma_core_call_close(ctx);
	xrma_core_control_destroy(&ctx->control);
	xrma_idmap_destroy(&ctx->segs);
	xrma_idmap_destroy(&ctx->rsegs);
	xrma_idmap_destroy(&ctx->conns);
	xrma_idmap_destroy(&ctx->listeners);
	xrma_idmap_destroy(&ctx->intrs);
	xrma_idmap_destroy(&ctx->rintrs);
	xrma_cond_destroy(&ctx->children_cond);
	xrma_lock_destroy(&ctx->lock);
	/* The provider has let go of the node: an open waiting for it may go on. */
	xrma_close_pending_remove(ctx);
	xrma_node_list_free(&ctx->cluster);
	free(ctx);
}

/* [core] spin_us: the process's spin budget before a wait sleeps (common/spin.h). */
static int apply_spin_budget(const struct xrma_config *cfg)
{
	uint64_t us;

	if (xrma_config_size(cfg, XRMA_CONFIG_CORE_SPIN_US, XRMA_SPIN_US_MAX, &us)) {
		xrma_detail_set("core.spin_us (XRMA_SPIN_US) '%s' is not a number of microseconds 0..%d",
				xrma_config_value(cfg, XRMA_CONFIG_CORE_SPIN_US), XRMA_SPIN_US_MAX);
		return -XRMA_ECONFIG;
	}
	xrma_spin_set_budget_ns(us * 1000);
	return 0;
}

/* Resolve provider, node id and fabric from attr, then the configuration. */
static int resolve_attr(const struct xrma_ctx_attr *attr, struct xrma_config *cfg,
			const struct xrma_provider **prov, uint32_t *node_id, char *fabric)
{
	const char *fab;
	int ret;

	if (attr && (attr->flags || (attr->provider && strlen(attr->provider) >= XRMA_NAME_MAX) ||
		     (attr->fabric && !*attr->fabric)))
		return -XRMA_EINVAL;
	if (attr && attr->fabric && strlen(attr->fabric) > XRMA_FABRIC_MAX) {
		xrma_detail_set("the fabric name is %zu characters long; the limit is %d",
				strlen(attr->fabric), XRMA_FABRIC_MAX);
		return -XRMA_EINVAL;
	}
	ret = xrma_config_load(cfg);
	if (ret)
		return ret;
	ret = apply_spin_budget(cfg);
	if (ret)
		return ret;
	ret = xrma_registry_choose(attr ? attr->provider : NULL, cfg, prov);
	if (ret)
		return ret;
	if (attr && attr->node_id != XRMA_NODE_ANY) {
		*node_id = attr->node_id;
	} else {
		ret = xrma_config_node_id(cfg, node_id);
		if (ret)
			return ret;
	}
	if (*node_id > (*prov)->caps->max_node_id)
		return attr && attr->node_id != XRMA_NODE_ANY ? -XRMA_EINVAL : -XRMA_ECONFIG;
	fab = attr && attr->fabric ? attr->fabric : xrma_config_value(cfg, XRMA_CONFIG_FABRIC);
	if (!fab || !*fab) {
		xrma_detail_set("xrma.fabric (XRMA_FABRIC) is empty");
		return -XRMA_ECONFIG;
	}
	if (strlen(fab) > XRMA_FABRIC_MAX) {
		xrma_detail_set("xrma.fabric (XRMA_FABRIC) is %zu characters long; the limit is %d",
				strlen(fab), XRMA_FABRIC_MAX);
		return -XRMA_ECONFIG;
	}
	snprintf(fabric, XRMA_FABRIC_MAX + 1, "%s", fab);
	return 0;
}

/*
 * The cluster's node file ([xrma] nodes), if one is named: every node of the
 * cluster, this one included (as the ofi provider requires of its file).
 */
static int load_cluster(const struct xrma_config *cfg, uint32_t node_id, struct xrma_node_list *cluster)
{
	const char *path = xrma_config_value(cfg, XRMA_CONFIG_NODES);
	int ret;

	cluster->entries = NULL;
	cluster->count = 0;
	if (!path || !*path)
		return 0;
	ret = xrma_node_list_load(path, "xrma.nodes", cluster);
	if (ret)
		return ret;
	if (!xrma_node_list_find(cluster, node_id)) {
		xrma_detail_set("xrma.nodes: node %u has no line in the node file %s", node_id, path);
		xrma_node_list_free(cluster);
		return -XRMA_ECONFIG;
	}
	return 0;
}

int xrma_ctx_open(const struct xrma_ctx_attr *attr, struct xrma_ctx **out)
{
	struct xrma_core_ctx *ctx;
	struct xrma_prov_open_args args;
	const struct xrma_provider *prov;
	struct xrma_config *cfg;
	struct xrma_core_placement placement;
	char fabric[XRMA_FABRIC_MAX + 1];
	struct xrma_node_list cluster;
	uint32_t node_id;
	int ret;

	if (!out)
		return -XRMA_EINVAL;
	*out = NULL;
	/* The snapshot is large; it lives only until the provider has read it. */
	cfg = malloc(sizeof(*cfg));
	if (!cfg)
		return -XRMA_ENOMEM;
	ret = resolve_attr(attr, cfg, &prov, &node_id, fabric);
	if (!ret)
		ret = xrma_core_placement_resolve(cfg, &placement);
	if (!ret)
		ret = load_cluster(cfg, node_id, &cluster);
	if (ret) {
		free(cfg);
		return ret;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		xrma_node_list_free(&cluster);
		free(cfg);
		return -XRMA_ENOMEM;
	}
	ctx->cluster = cluster;
	/* A close of this node finishing on its own thread lets go of the node first. */
	xrma_close_pending_wait(prov, fabric, node_id, CLOSE_PENDING_WAIT_MS);
	ctx->prov = prov;
	ctx->caps = *prov->caps;
	ctx->placement = placement;
	memcpy(ctx->fabric, fabric, sizeof(ctx->fabric));
	ctx->next_id = 1;
	xrma_lock_init(&ctx->lock);
	xrma_cond_init(&ctx->children_cond);
	xrma_idmap_init(&ctx->segs);
	xrma_idmap_init(&ctx->rsegs);
	xrma_idmap_init(&ctx->conns);
	xrma_idmap_init(&ctx->listeners);
	xrma_idmap_init(&ctx->intrs);
	xrma_idmap_init(&ctx->rintrs);
	xrma_core_control_init(&ctx->control);
	xrma_engine_init(&ctx->engine);

	args = (struct xrma_prov_open_args){
		.fabric = ctx->fabric,
		.node_id = node_id,
		.config = cfg,
		.caps = &ctx->caps,
		.upcalls = &xrma_core_inbound_upcalls,
		.core = ctx,
	};
	ret = xrma_core_call_open(ctx, &args);
	free(cfg);
	if (ret)
		goto err_free_ctx;
	ret = xrma_service_start(ctx);
	if (ret)
		goto err_close_provider;
	ret = xrma_handle_alloc(&ctx->obj, XRMA_OBJ_CTX, ctx_destroy);
	if (ret)
		goto err_stop_service;
	xrma_exit_notice_add(ctx);
	*out = ctx->obj.handle;
	return 0;

err_stop_service:
	xrma_service_stop(ctx);
err_close_provider:
	xrma_core_call_close(ctx);
err_free_ctx:
	xrma_engine_fini(&ctx->engine);
	xrma_core_control_destroy(&ctx->control);
	xrma_cond_destroy(&ctx->children_cond);
	xrma_lock_destroy(&ctx->lock);
	xrma_node_list_free(&ctx->cluster);
	free(ctx);
	return ret;
}

/*
 * The end of a close asked for on the callback thread: once the handle is dead
 * and the children are gone (the callback's own work item held one until it
 * returned), drop the closing call's reference. The last put destroys the
 * context here, where both its threads can be joined.
 */
static void *ctx_closer_main(void *arg)
{
	struct xrma_core_ctx *ctx = arg;
	struct xrma_deadline forever;

	xrma_deadline_set(&forever, -1);
	xrma_lock(&ctx->lock);
	while (!ctx->close_killed || ctx->children)
		xrma_cond_wait(&ctx->children_cond, &ctx->lock, &forever);
	xrma_unlock(&ctx->lock);
	xrma_handle_put(&ctx->obj);
	return NULL;
}

/*
 * Close from a callback (ctx->closing is set, the caller's reference held):
 * the callback thread cannot join itself, and the callback it runs may still
 * hold children, so a detached closer thread takes the caller's reference and
 * finishes. The handle dies now, as after any close. On failure nothing changed.
 */
static int ctx_close_deferred(struct xrma_core_ctx *ctx)
{
	pthread_attr_t attr;
	pthread_t closer;
	int ret;

	xrma_close_pending_add(ctx);
	ret = pthread_attr_init(&attr);
	if (!ret) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		ret = pthread_create(&closer, &attr, ctx_closer_main, ctx);
		pthread_attr_destroy(&attr);
	}
	if (ret) {
		xrma_close_pending_remove(ctx);
		xrma_lock(&ctx->lock);
		ctx->closing = false;
		xrma_unlock(&ctx->lock);
		xrma_handle_put(&ctx->obj);
		return -XRMA_ENOMEM;
	}
	ret = xrma_handle_kill(&ctx->obj);
	xrma_lock(&ctx->lock);
	ctx->close_killed = true;
	xrma_cond_broadcast(&ctx->children_cond);
	xrma_unlock(&ctx->lock);
	return ret;
}

int xrma_ctx_close(struct xrma_ctx *handle)
{
	struct xrma_core_ctx *ctx;
	struct xrma_deadline forever;
	bool deferred;
	int ret;

	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	/* The service thread runs no user code: nothing there may close. */
	if (xrma_service_on_service_thread(ctx)) {
		xrma_handle_put(&ctx->obj);
		return -XRMA_ESTATE;
	}
	deferred = xrma_service_on_callback_thread(ctx);
	xrma_lock(&ctx->lock);
	if (ctx->live_children || ctx->closing) {
		ret = ctx->closing ? -XRMA_EHANDLE : -XRMA_EBUSY;
		xrma_unlock(&ctx->lock);
		xrma_handle_put(&ctx->obj);
		return ret;
	}
	ctx->closing = true;
	if (deferred) {
		xrma_unlock(&ctx->lock);
		return ctx_close_deferred(ctx);
	}
	/* Closed children may still be held briefly by another thread. */
	xrma_deadline_set(&forever, -1);
	while (ctx->children)
		xrma_cond_wait(&ctx->children_cond, &ctx->lock, &forever);
	xrma_unlock(&ctx->lock);
	ret = xrma_handle_kill(&ctx->obj);
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_ctx_query(struct xrma_ctx *handle, struct xrma_ctx_info *info)
{
	struct xrma_core_ctx *ctx;
	int ret;

	if (!info)
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	memset(info, 0, sizeof(*info));
	snprintf(info->provider, sizeof(info->provider), "%s", ctx->prov->name);
	snprintf(info->fabric, sizeof(info->fabric), "%s", ctx->fabric);
	info->node_id = ctx->self.node;
	info->caps = ctx->caps;
	xrma_handle_put(&ctx->obj);
	return 0;
}

int xrma_ctx_object_count(struct xrma_ctx *handle, size_t *count)
{
	struct xrma_core_ctx *ctx;
	int ret;

	if (!count)
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	xrma_lock(&ctx->lock);
	*count = ctx->live_children;
	xrma_unlock(&ctx->lock);
	xrma_handle_put(&ctx->obj);
	return 0;
}

int xrma_ctx_progress(struct xrma_ctx *handle)
{
	struct xrma_core_ctx *ctx;
	int ret;

	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	/* Providers without the op move data without anyone's polling. */
	ret = XRMA_PROV_HAS(ctx, poll) ? xrma_core_call_poll(ctx) : 0;
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_core_ctx_child_open(struct xrma_core_ctx *ctx)
{
	int ret = 0;

	xrma_lock(&ctx->lock);
	if (ctx->closing) {
		ret = -XRMA_ESTATE;
	} else {
		ctx->live_children++;
		ctx->children++;
	}
	xrma_unlock(&ctx->lock);
	return ret;
}

void xrma_core_ctx_child_killed(struct xrma_core_ctx *ctx)
{
	xrma_lock(&ctx->lock);
	ctx->live_children--;
	xrma_unlock(&ctx->lock);
}

void xrma_core_ctx_child_destroyed(struct xrma_core_ctx *ctx)
{
	xrma_lock(&ctx->lock);
	ctx->children--;
	xrma_cond_broadcast(&ctx->children_cond);
	xrma_unlock(&ctx->lock);
}

uint64_t xrma_core_ctx_next_id(struct xrma_core_ctx *ctx)
{
	xrma_lock_assert_held(&ctx->lock);
	return ctx->next_id++;
}
