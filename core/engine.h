/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/engine.h: a context's DMA engine: one thread that runs posted transfers
 * in posting order through the provider's synchronous RMA op, so posting never
 * waits for a copy. Started on the first post; spins briefly for more work
 * after each transfer before it blocks. The queues and their completions are
 * core/dmaq.c's business.
 */
#ifndef XRMA_CORE_ENGINE_H
#define XRMA_CORE_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "core/lock.h"

struct xrma_core_ctx;
struct xrma_core_dmaq;
struct xrma_rma_job;

struct xrma_engine {
	struct xrma_lock lock;            /* guards the job list and thread state */
	struct xrma_cond cond;
	struct xrma_rma_job *head, *tail; /* jobs not yet started */
	atomic_size_t queued;             /* length of the list, read without the lock */
	pthread_t thread;
	bool started;
	bool stop;
};

void xrma_engine_init(struct xrma_engine *engine);

/* Stop the thread (no job may be queued any more). */
void xrma_engine_fini(struct xrma_engine *engine);

/* Queue a job; starts the thread on first use. -XRMA_ENOMEM if it cannot. */
int xrma_engine_submit(struct xrma_core_ctx *ctx, struct xrma_rma_job *job);

/*
 * Remove every queued job of dmaq (not started yet) and hand each to cancel();
 * returns how many.
 */
int xrma_engine_cancel(struct xrma_engine *engine, struct xrma_core_dmaq *dmaq,
		       void (*cancel)(struct xrma_rma_job *job));

#endif
