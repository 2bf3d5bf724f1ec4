/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/engine.c: the DMA engine thread of a context (see engine.h).
 */
#include "core/engine.h"

#include <xrma/errors.h>
#include "core/ctx.h"
#include "core/dmaq.h"
#include "core/wait.h"

void xrma_engine_init(struct xrma_engine *engine)
{
	xrma_lock_init(&engine->lock);
	xrma_cond_init(&engine->cond);
	engine->head = engine->tail = NULL;
	atomic_init(&engine->queued, 0);
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

static struct xrma_rma_job *pop_locked(struct xrma_engine *engine)
{
	struct xrma_rma_job *job = engine->head;

	if (job) {
		engine->head = job->next;
		if (!engine->head)
			engine->tail = NULL;
		atomic_fetch_sub_explicit(&engine->queued, 1, memory_order_relaxed);
		xrma_core_dmaq_job_started(job);
	}
	return job;
}

static void *engine_main(void *arg)
{
	struct xrma_engine *engine = arg;
	struct xrma_deadline forever;

	xrma_deadline_set(&forever, -1);
	for (;;) {
		struct xrma_rma_job *job;

		/* A short spin catches back-to-back posts without a wake-up. */
		for (int spin = 0; spin < XRMA_SPIN_LIMIT; spin++) {
			if (atomic_load_explicit(&engine->queued, memory_order_acquire))
				break;
			xrma_cpu_relax();
		}
		xrma_lock(&engine->lock);
		while (!(job = pop_locked(engine)) && !engine->stop)
			xrma_cond_wait(&engine->cond, &engine->lock, &forever);
		xrma_unlock(&engine->lock);
		if (!job)
			return NULL;
		xrma_core_dmaq_job_run(job);
	}
}

int xrma_engine_submit(struct xrma_core_ctx *ctx, struct xrma_rma_job *job)
{
	struct xrma_engine *engine = &ctx->engine;
	int ret = 0;

	job->next = NULL;
	xrma_lock(&engine->lock);
	if (!engine->started) {
		if (pthread_create(&engine->thread, NULL, engine_main, engine)) {
			ret = -XRMA_ENOMEM;
			goto out_unlock;
		}
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
