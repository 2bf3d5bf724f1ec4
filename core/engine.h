/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/engine.h: a context's DMA engine: one thread that starts posted
 * transfers in posting order, so posting never waits for a copy. With a
 * provider that has rma_post it keeps several in flight (each queue's depth
 * bounds its own share), retires them in starting order whatever order they
 * finish in, and starts an XRMA_RMA_FENCE transfer only when nothing is in
 * flight; without it, it runs them one at a time through the synchronous rma
 * op. Started on the first post; spins briefly for work before it blocks.
 * With a provider that also has rma_poll, the caller's thread does the
 * work while the engine is idle: a post with nothing waiting ahead of it goes
 * straight to the provider, and a waiter reads completions itself and retires
 * them (still in posting order), so a transfer needs no thread hand-off.
 * The queues and their completion entries are core/dmaq.c's business.
 */
#ifndef XRMA_CORE_ENGINE_H
#define XRMA_CORE_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "common/lock.h"

struct xrma_core_ctx;
struct xrma_core_dmaq;
struct xrma_rma_job;

struct xrma_engine {
	struct xrma_lock lock;              /* guards the lists, counts and thread state */
	struct xrma_cond cond;
	struct xrma_rma_job *head, *tail;   /* jobs not yet started */
	struct xrma_rma_job *active_head, *active_tail;   /* posted, not retired, in start order */
	size_t active;                      /* length of the active list */
	bool async;                         /* fixed once started: the provider has rma_post */
	atomic_size_t queued;               /* length of the waiting list, read without the lock */
	atomic_size_t finished;             /* bumped by each provider completion, for spinning */
	atomic_int drivers;                 /* waiters reading completions themselves */
	bool retiring;                      /* someone is reporting finished jobs (one at a time) */
	pthread_t thread;
	bool started;
	bool stop;
};

void xrma_engine_init(struct xrma_engine *engine);

/* Stop the thread (no job may be queued or in flight any more). */
void xrma_engine_fini(struct xrma_engine *engine);

/* Queue a job; starts the thread on first use. -XRMA_ENOMEM if it cannot. */
int xrma_engine_submit(struct xrma_core_ctx *ctx, struct xrma_rma_job *job);

/*
 * Post job from the calling thread if nothing waits to start ahead of it and
 * the rules let it start now (the provider has rma_post and rma_poll):
 * 1 posted, 0 not (queue it with xrma_engine_submit), or -XRMA_ENOMEM.
 */
int xrma_engine_post_direct(struct xrma_core_ctx *ctx, struct xrma_rma_job *job);

/*
 * Whether waiters of ctx may drive completions themselves (the provider has
 * rma_poll).
 */
bool xrma_engine_can_drive(const struct xrma_core_ctx *ctx);

/*
 * Drive completions from the calling thread until *progress moves away from
 * seen or a bounded number of rounds passed: read the provider's completions
 * and report finished jobs in posting order. Returns true if progress moved.
 * The caller then blocks as usual; the engine thread takes over.
 */
bool xrma_engine_drive(struct xrma_core_ctx *ctx, const atomic_size_t *progress, size_t seen);

/*
 * The provider finished a job posted through rma_post (status: its result).
 * Records it and wakes the engine; never blocks on anything but the engine's
 * own short lock, and never calls the provider.
 */
void xrma_engine_job_done(struct xrma_engine *engine, struct xrma_rma_job *job, int status);

/*
 * Remove every queued job of dmaq (not started yet) and hand each to cancel();
 * returns how many.
 */
int xrma_engine_cancel(struct xrma_engine *engine, struct xrma_core_dmaq *dmaq,
		       void (*cancel)(struct xrma_rma_job *job));

#endif
