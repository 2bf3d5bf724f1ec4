/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/engine.c: the DMA engine thread of a context (see engine.h). One loop:
 * retire the finished jobs at the front of the active list (completion order
 * is posting order), then start the next waiting job if the rules allow it.
 */
#include "core/engine.h"

#include <xrma/errors.h>
#include "core/ctx.h"
#include "core/dmaq.h"
#include "core/killpoint.h"
#include "core/wait.h"

/* Transfers in flight across all queues of a context; each queue's depth bounds its own. */
#define ENGINE_ACTIVE_MAX 1024

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

static struct xrma_rma_job *pop_locked(struct xrma_engine *engine)
{
	struct xrma_rma_job *job = engine->head;

	engine->head = job->next;
	if (!engine->head)
		engine->tail = NULL;
	job->next = NULL;
	atomic_fetch_sub_explicit(&engine->queued, 1, memory_order_relaxed);
	xrma_core_dmaq_job_started(job);
	if (engine->async) {
		/* On the active list before it is posted: the provider may finish it at once. */
		job->finished = false;
		if (engine->active_tail)
			engine->active_tail->next = job;
		else
			engine->active_head = job;
		engine->active_tail = job;
		engine->active++;
	}
	return job;
}

/* Unlink the finished jobs at the front of the active list, in order. */
static struct xrma_rma_job *take_finished_locked(struct xrma_engine *engine)
{
	struct xrma_rma_job *first = engine->active_head, *last = NULL;

	for (struct xrma_rma_job *job = first; job && job->finished; job = job->next) {
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

/* Whether there is work now, read without the lock (for the spin before blocking). */
static bool work_visible(struct xrma_engine *engine, size_t finished_seen)
{
	return atomic_load_explicit(&engine->queued, memory_order_acquire) ||
	       atomic_load_explicit(&engine->finished, memory_order_acquire) != finished_seen;
}

static void *engine_main(void *arg)
{
	struct xrma_engine *engine = arg;
	struct xrma_deadline forever;
	size_t finished_seen = 0;

	xrma_deadline_set(&forever, -1);
	for (;;) {
		struct xrma_rma_job *retired, *start = NULL;

		/* A short spin catches back-to-back posts and completions without a wake-up. */
		for (int spin = 0; spin < XRMA_SPIN_LIMIT && !work_visible(engine, finished_seen); spin++)
			xrma_cpu_relax();
		xrma_lock(&engine->lock);
		for (;;) {
			finished_seen = atomic_load_explicit(&engine->finished, memory_order_relaxed);
			retired = take_finished_locked(engine);
			if (can_start_locked(engine))
				start = pop_locked(engine);
			if (retired || start || (engine->stop && !engine->active && !engine->head))
				break;
			xrma_cond_wait(&engine->cond, &engine->lock, &forever);
		}
		xrma_unlock(&engine->lock);
		if (!retired && !start)
			return NULL;
		while (retired) {
			struct xrma_rma_job *job = retired;

			retired = job->next;
			xrma_core_dmaq_job_retire(job, job->result);
		}
		if (start && engine->async)
			xrma_core_dmaq_job_post(start);
		else if (start)
			xrma_core_dmaq_job_run(start);
		if (start)
			XRMA_KILL_POINT("core.engine.after_job");
	}
}

int xrma_engine_submit(struct xrma_core_ctx *ctx, struct xrma_rma_job *job)
{
	struct xrma_engine *engine = &ctx->engine;
	int ret = 0;

	job->next = NULL;
	xrma_lock(&engine->lock);
	if (!engine->started) {
		engine->async = ctx->prov->ops->rma_post != NULL;
		if (pthread_create(&engine->thread, NULL, engine_main, engine)) {
			ret = -XRMA_ENOMEM;
			goto out_unlock;
		}
		xrma_core_placement_start_thread(&ctx->placement, engine->thread, "xrma-dma");
		engine->started = true;
	}
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

void xrma_engine_job_done(struct xrma_engine *engine, struct xrma_rma_job *job, int status)
{
	xrma_lock(&engine->lock);
	job->result = status;
	job->finished = true;
	atomic_fetch_add_explicit(&engine->finished, 1, memory_order_release);
	/* Only the front job's end lets the engine retire, or start a fence. */
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
