/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/service.h: the two threads of a context. The service thread polls the
 * provider's progress fd and runs the control-message handlers; it never runs
 * user code and never waits for a reply. The callback thread runs deferred
 * work (user callbacks) with no core lock held, so callbacks may call the API,
 * including blocking calls that need the service thread.
 */
#ifndef XRMA_CORE_SERVICE_H
#define XRMA_CORE_SERVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include "common/lock.h"

struct xrma_core_ctx;
struct xrma_work;

struct xrma_service {
	pthread_t thread;           /* fixed while running */
	int epfd;
	int wakefd;                 /* eventfd: stop request */
	atomic_bool stop;

	struct xrma_lock lock;      /* guards the work list and cb_* */
	struct xrma_cond cond;
	struct xrma_work *head, *tail;
	pthread_t cb_thread;
	bool cb_started;
	bool cb_stop;
	size_t cb_running;          /* work items being run now */
};

int xrma_service_start(struct xrma_core_ctx *ctx);

/* Stop both threads; work still queued is run first, so callbacks are not lost. */
void xrma_service_stop(struct xrma_core_ctx *ctx);

/*
 * Run fn(arg) on the callback thread (started on first use), in order.
 * -XRMA_ENOMEM if the work item cannot be allocated.
 */
int xrma_service_defer(struct xrma_core_ctx *ctx, void (*fn)(void *arg), void *arg);

bool xrma_service_on_service_thread(struct xrma_core_ctx *ctx);
bool xrma_service_on_callback_thread(struct xrma_core_ctx *ctx);
/* Whether the calling thread is the callback thread of any context. */
bool xrma_service_in_callback(void);

#endif
