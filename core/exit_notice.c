/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/exit_notice.c: a process may exit with contexts open (a SCIF program
 * has no call that closes its context, and any program may simply return from
 * main). Where peers learn of a dead process only by its silence, they would
 * wait out the liveness timeout, and every call of theirs that needs an answer
 * from it would wait too. So the library's destructor asks the provider of
 * each context still open to tell its peers now (the depart op). Nothing is
 * freed: other threads of the process may still be running. A forked child
 * that exits does not speak for the contexts it inherited: only the process
 * that opened one does.
 */
#include "core/exit_notice.h"
#include "core/fork.h"

#include <pthread.h>
#include <unistd.h>
#include "core/ctx.h"
#include "core/prov_call.h"

static struct {
	pthread_mutex_t lock;       /* held across a notice, so a close waits for it */
	struct xrma_list_link *head;
} open_contexts = { .lock = PTHREAD_MUTEX_INITIALIZER };

pthread_mutex_t *xrma_core_exit_notice_fork_lock(void)
{
	return &open_contexts.lock;
}

void xrma_exit_notice_add(struct xrma_core_ctx *ctx)
{
	if (!XRMA_PROV_HAS(ctx, depart))
		return;
	ctx->exit_notice.opener = getpid();
	pthread_mutex_lock(&open_contexts.lock);
	xrma_list_push(&open_contexts.head, &ctx->exit_notice.link);
	pthread_mutex_unlock(&open_contexts.lock);
}

void xrma_exit_notice_remove(struct xrma_core_ctx *ctx)
{
	pthread_mutex_lock(&open_contexts.lock);
	if (xrma_list_linked(&ctx->exit_notice.link))
		xrma_list_unlink(&ctx->exit_notice.link);
	pthread_mutex_unlock(&open_contexts.lock);
}

static void __attribute__((destructor)) notify_peers_at_exit(void)
{
	pid_t self = getpid();

	pthread_mutex_lock(&open_contexts.lock);
	for (struct xrma_list_link *l = open_contexts.head; l; l = l->next) {
		struct xrma_core_ctx *ctx = XRMA_LIST_ENTRY(l, struct xrma_core_ctx, exit_notice.link);

		if (ctx->exit_notice.opener == self)
			xrma_core_call_depart(ctx);
	}
	pthread_mutex_unlock(&open_contexts.lock);
}
