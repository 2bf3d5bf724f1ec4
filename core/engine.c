/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/engine.c: the DMA engine thread of a context (see engine.h). One loop:
 * retire the finished jobs at the front of the active list (completion order
 * is posting order), then start the next waiting job if the rules allow it.
 */
#include "core/engine.h"
#include "common/spin.h"

#include <xrma/errors.h>
#include "core/ctx.h"
#include "core/dmaq.h"
#include "common/killpoint.h"
#include "core/prov_call.h"
#include "common/wait.h"

/* Transfers in flight across all queues of a context; each queue's depth bounds its own. */
#define ENGINE_ACTIVE_MAX 1024
/* Completion reads a driving waiter makes before it blocks (each may be a system call). */
#define ENGINE_DRIVE_ROUNDS 1000
/*
 * Transfers in flight past which a poster reads completions itself
 * (reap_after_post). Each read is a progress pass of libfabric (system calls
 * on tcp); with 64 in flight one pass takes about 64 completions where 16
 * took about 14, and a SCIF asynchronous stream over ofi ran 7 % faster.
 */
#define ENGINE_REAP_DEPTH 64

void xrma_engine_init(struct xrma_engine *engine)
{
	xrma_lock_init(&engine->lock);
	xrma_cond_init(&engine->cond);
	engine->head = engine->tail = NULL;
	engine->active_head = engine->active_tail = NULL;
	engine->active = 0;
	engine->async = false;
	atomic_init(&engine->queued, 0);
	atomic_init(&engine->finished, 0);
	atomic_init(&engine->drivers, 0);
	engine->retiring = false;
	engine->started = engine->stop = false;
}

void xrma_engine_fini(struct xrma_engine *engine)
{
	bool started;

	xrma_lock(&engine->lock);
	engine->stop = true;
	started = engine->started;
	xrma_cond_broadcast(&engine->cond);
	xrma_unlock(&engine->lock);
	if (started)
		pthread_join(engine->thread, NULL);
	xrma_cond_destroy(&engine->cond);
	xrma_lock_destroy(&engine->lock);
}

/* The next job may start: none in flight without rma_post; a fence waits for an empty pipe. */
static bool can_start_locked(const struct xrma_engine *engine)
{
	const struct xrma_rma_job *job = engine->head;

	if (!job)
		return false;
	if (!engine->async)
		return true;
	return engine->active < ENGINE_ACTIVE_MAX && !(engine->active && (job->flags & XRMA_RMA_FENCE));
}

/* On the active list before it is posted: the provider may finish it at once. */
static void activate_locked(struct xrma_engine *engine, struct xrma_rma_job *job)
{
	job->next = NULL;
	atomic_store_explicit(&job->finished, false, memory_order_relaxed);
	if (engine->active_tail)
		engine->active_tail->next = job;
	else
		engine->active_head = job;
	engine->active_tail = job;
	engine->active++;
}

static struct xrma_rma_job *pop_locked(struct xrma_engine *engine)
{
	struct xrma_rma_job *job = engine->head;

	engine->head = job->next;
	if (!engine->head)
		engine->tail = NULL;
	job->next = NULL;
	atomic_fetch_sub_explicit(&engine->queued, 1, memory_order_relaxed);
	if (engine->async)
		activate_locked(engine, job);
	return job;
}

/*
 * Unlink the finished jobs at the front of the active list, in order; the
 * caller sets retiring and hands them to xrma_core_dmaq_jobs_retire.
 */
static struct xrma_rma_job *take_finished_locked(struct xrma_engine *engine)
{
	struct xrma_rma_job *first = engine->active_head, *last = NULL;

	for (struct xrma_rma_job *job = first;
	     job && atomic_load_explicit(&job->finished, memory_order_acquire); job = job->next) {
		last = job;
		engine->active--;
	}
	if (!last)
		return NULL;
	engine->active_head = last->next;
	if (!engine->active_head)
		engine->active_tail = NULL;
	last->next = NULL;
	return first;
}

/*
 * Whether there is work now, read without the lock (for the spin before
 * blocking). Completions a driving waiter will report are not the engine's.
 */
static bool work_visible(struct xrma_engine *engine, size_t finished_seen)
{
	return atomic_load_explicit(&engine->queued, memory_order_acquire) ||
	       (atomic_load_explicit(&engine->finished, memory_order_acquire) != finished_seen &&
		!atomic_load(&engine->drivers));
}

static void *engine_main(void *arg)
{
	struct xrma_engine *engine = arg;
	struct xrma_deadline forever;
	size_t finished_seen = 0;

	xrma_deadline_set(&forever, -1);
	for (;;) {
		struct xrma_rma_job *retired, *start = NULL;
		struct xrma_spin spin;

		/* A short spin catches back-to-back posts and completions without a wake-up. */
		xrma_spin_start(&spin, XRMA_SPIN_LOCAL);
		while (!work_visible(engine, finished_seen) && xrma_spin_again(&spin))
			;
		xrma_lock(&engine->lock);
		for (;;) {
			finished_seen = atomic_load_explicit(&engine->finished, memory_order_relaxed);
			/* One reporter at a time keeps the queues' completions in posting order. */
			retired = engine->retiring ? NULL : take_finished_locked(engine);
			if (retired)
				engine->retiring = true;
			if (can_start_locked(engine))
				start = pop_locked(engine);
			if (retired || start || (engine->stop && !engine->active && !engine->head))
				break;
			xrma_cond_wait(&engine->cond, &engine->lock, &forever);
		}
		xrma_unlock(&engine->lock);
		if (!retired && !start)
			return NULL;
		if (retired) {
			xrma_core_dmaq_jobs_retire(retired);
			xrma_lock(&engine->lock);
			engine->retiring = false;
			xrma_unlock(&engine->lock);
		}
		if (start && engine->async)
			xrma_core_dmaq_job_post(start);
		else if (start)
			xrma_core_dmaq_job_run(start);
		if (start)
			XRMA_KILL_POINT("core.engine.after_job");
	}
}

/* Start the thread on first use. */
static int start_locked(struct xrma_core_ctx *ctx, struct xrma_engine *engine)
{
	if (engine->started)
		return 0;
	engine->async = XRMA_PROV_HAS(ctx, rma_post);
	if (pthread_create(&engine->thread, NULL, engine_main, engine))
		return -XRMA_ENOMEM;
	xrma_core_placement_start_thread(&ctx->placement, engine->thread, "xrma-dma");
	engine->started = true;
	return 0;
}

int xrma_engine_submit(struct xrma_core_ctx *ctx, struct xrma_rma_job *job)
{
	struct xrma_engine *engine = &ctx->engine;
	int ret;

	job->next = NULL;
	xrma_lock(&engine->lock);
	ret = start_locked(ctx, engine);
	if (ret)
		goto out_unlock;
	if (engine->tail)
		engine->tail->next = job;
	else
		engine->head = job;
	engine->tail = job;
	atomic_fetch_add_explicit(&engine->queued, 1, memory_order_release);
	xrma_cond_broadcast(&engine->cond);
out_unlock:
	xrma_unlock(&engine->lock);
	return ret;
}

bool xrma_engine_can_drive(const struct xrma_core_ctx *ctx)
{
	return XRMA_PROV_HAS(ctx, rma_post) && XRMA_PROV_HAS(ctx, rma_poll);
}

static bool drive_rounds(struct xrma_core_ctx *ctx, int rounds, const atomic_size_t *progress,
			 size_t seen);

/*
 * One read of the completions by a thread that just posted: a stream of
 * asynchronous posts then retires what finished in the poster's thread, as a
 * program driving libfabric itself would, instead of handing each completion
 * to the provider's thread and the engine's (two wake-ups, and locks the
 * poster's next post contends for).
 */
static void reap_after_post(struct xrma_core_ctx *ctx)
{
	drive_rounds(ctx, 1, NULL, 0);
}

int xrma_engine_post_direct(struct xrma_core_ctx *ctx, struct xrma_rma_job *job)
{
	struct xrma_engine *engine = &ctx->engine;
	bool reap;
	int ret;

	if (!xrma_engine_can_drive(ctx))
		return 0;
	xrma_lock(&engine->lock);
	/* The thread still reports what finishes while nobody drives. */
	ret = start_locked(ctx, engine);
	if (!ret && !engine->head && engine->active < ENGINE_ACTIVE_MAX &&
	    !(engine->active && (job->flags & XRMA_RMA_FENCE))) {
		activate_locked(engine, job);
		ret = 1;
	}
	reap = ret == 1 && engine->active >= ENGINE_REAP_DEPTH;
	xrma_unlock(&engine->lock);
	if (ret == 1) {
		xrma_core_dmaq_job_post(job);
		if (reap)
			reap_after_post(ctx);
	}
	return ret;
}

/* Report the finished jobs at the front unless someone else is doing it; true if any. */
static bool retire_ready(struct xrma_engine *engine)
{
	bool any = false;

	xrma_lock(&engine->lock);
	while (!engine->retiring) {
		struct xrma_rma_job *retired = take_finished_locked(engine);

		if (!retired)
			break;
		engine->retiring = true;
		xrma_unlock(&engine->lock);
		xrma_core_dmaq_jobs_retire(retired);
		any = true;
		xrma_lock(&engine->lock);
		engine->retiring = false;
	}
	/* A job held back (a fence) may start now: the engine thread posts it. */
	if (any && can_start_locked(engine))
		xrma_cond_broadcast(&engine->cond);
	xrma_unlock(&engine->lock);
	return any;
}

/*
 * Read the provider's completions from this thread for up to rounds reads, or
 * until *progress moves from seen (progress NULL: every round), reporting what
 * finished; true if progress moved.
 */
static bool drive_rounds(struct xrma_core_ctx *ctx, int rounds, const atomic_size_t *progress,
			 size_t seen)
{
	struct xrma_engine *engine = &ctx->engine;
	size_t finished_seen = atomic_load(&engine->finished);
	bool moved = false;

	atomic_fetch_add(&engine->drivers, 1);
	xrma_core_call_rma_polling(ctx, true);
	for (int round = 0; round < rounds && !moved; round++) {
		xrma_core_call_rma_poll(ctx);
		/* Completions read here or by the provider's own thread: no wake-up is sent now. */
		if (atomic_load(&engine->finished) != finished_seen) {
			finished_seen = atomic_load(&engine->finished);
			retire_ready(engine);
		}
		moved = progress && atomic_load_explicit(progress, memory_order_acquire) != seen;
	}
	xrma_core_call_rma_polling(ctx, false);
	atomic_fetch_sub(&engine->drivers, 1);
	/* What finished while we drove and nobody reported is ours to report. */
	retire_ready(engine);
	return moved || (progress && atomic_load_explicit(progress, memory_order_acquire) != seen);
}

bool xrma_engine_drive(struct xrma_core_ctx *ctx, const atomic_size_t *progress, size_t seen)
{
	return drive_rounds(ctx, ENGINE_DRIVE_ROUNDS, progress, seen);
}

void xrma_engine_job_done(struct xrma_engine *engine, struct xrma_rma_job *job, int status)
{
	job->result = status;
	atomic_store(&job->finished, true);
	atomic_fetch_add_explicit(&engine->finished, 1, memory_order_release);
	/*
	 * A driver reports what finished before it leaves (drive_rounds ends in
	 * retire_ready, after it stopped counting itself), so the common case
	 * takes no lock. Else only the front job's end lets the engine retire,
	 * or start a fence.
	 */
	if (atomic_load(&engine->drivers))
		return;
	xrma_lock(&engine->lock);
	if (engine->active_head == job)
		xrma_cond_broadcast(&engine->cond);
	xrma_unlock(&engine->lock);
}

int xrma_engine_cancel(struct xrma_engine *engine, struct xrma_core_dmaq *dmaq,
		       void (*cancel)(struct xrma_rma_job *job))
{
	struct xrma_rma_job *cancelled = NULL, **tailp = &cancelled;
	int n = 0;

	xrma_lock(&engine->lock);
	for (struct xrma_rma_job **pp = &engine->head; *pp;) {
		struct xrma_rma_job *job = *pp;

		if (job->dmaq != dmaq) {
			pp = &job->next;
			continue;
		}
		*pp = job->next;
		job->next = NULL;
		*tailp = job;
		tailp = &job->next;
		atomic_fetch_sub_explicit(&engine->queued, 1, memory_order_relaxed);
		n++;
	}
	engine->tail = NULL;
	for (struct xrma_rma_job *j = engine->head; j; j = j->next)
		engine->tail = j;
	xrma_unlock(&engine->lock);
	while (cancelled) {
		struct xrma_rma_job *job = cancelled;

		cancelled = job->next;
		cancel(job);
	}
	return n;
}
