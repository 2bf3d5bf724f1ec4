/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/close_pending.c: the list of contexts whose close is finishing on a
 * closer thread (core/close_pending.h). A SISCI program that closes its last
 * descriptor from a callback and opens the node again from its main thread
 * must find the node free: on ofi the old context still holds the node's port
 * until its goodbyes have left, and on other providers its lock.
 */
#include "core/close_pending.h"

#include <pthread.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/ctx.h"
#include "common/list.h"
#include "common/lock.h"
#include "core/service.h"
#include "common/wait.h"

static struct {
	pthread_once_t once;
	struct xrma_lock lock;
	struct xrma_cond removed;   /* broadcast when a context leaves the list */
	struct xrma_list_link *head;
} pending = { .once = PTHREAD_ONCE_INIT };

static void pending_init(void)
{
	xrma_lock_init(&pending.lock);
	xrma_cond_init(&pending.removed);
}

void xrma_close_pending_add(struct xrma_core_ctx *ctx)
{
	pthread_once(&pending.once, pending_init);
	xrma_lock(&pending.lock);
	xrma_list_push(&pending.head, &ctx->close_pending);
	xrma_unlock(&pending.lock);
}

void xrma_close_pending_remove(struct xrma_core_ctx *ctx)
{
	pthread_once(&pending.once, pending_init);
	xrma_lock(&pending.lock);
	if (xrma_list_linked(&ctx->close_pending)) {
		xrma_list_unlink(&ctx->close_pending);
		xrma_cond_broadcast(&pending.removed);
	}
	xrma_unlock(&pending.lock);
}

static bool holds_node_locked(const struct xrma_provider *prov, const char *fabric, uint32_t node)
{
	for (struct xrma_list_link *l = pending.head; l; l = l->next) {
		const struct xrma_core_ctx *ctx = XRMA_LIST_ENTRY(l, struct xrma_core_ctx, close_pending);

		if (ctx->prov == prov && ctx->self.node == node && !strcmp(ctx->fabric, fabric))
			return true;
	}
	return false;
}

void xrma_close_pending_wait(const struct xrma_provider *prov, const char *fabric, uint32_t node,
			     int timeout_ms)
{
	struct xrma_deadline deadline;

	if (xrma_service_in_callback())
		return;
	pthread_once(&pending.once, pending_init);
	xrma_deadline_set(&deadline, timeout_ms);
	xrma_lock(&pending.lock);
	while (holds_node_locked(prov, fabric, node) &&
	       xrma_cond_wait(&pending.removed, &pending.lock, &deadline) != -XRMA_ETIMEDOUT)
		;
	xrma_unlock(&pending.lock);
}
