/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/event.c: per-object event queues and callback delivery (event.h).
 */
#include "core/event.h"

#include <stdlib.h>
#include <xrma/errors.h>
#include "core/ctx.h"
#include "core/handle.h"
#include "core/wait.h"

struct event_call {
	struct xrma_obj *owner;     /* referenced until the callback returned */
	struct xrma_evq *q;
	struct xrma_event ev;
};

void xrma_evq_init(struct xrma_evq *q)
{
	xrma_lock_init(&q->lock);
	xrma_cond_init(&q->cond);
	q->head = q->count = 0;
	q->dropped = 0;
	q->cb = NULL;
	q->cb_arg = NULL;
	q->closed = false;
}

void xrma_evq_destroy(struct xrma_evq *q)
{
	xrma_cond_destroy(&q->cond);
	xrma_lock_destroy(&q->lock);
}

static void run_event_call(void *arg)
{
	struct event_call *call = arg;
	xrma_event_cb cb;
	void *cb_arg;

	/* Re-read the callback: it may have been cleared since the event was queued. */
	xrma_lock(&call->q->lock);
	cb = call->q->closed ? NULL : call->q->cb;
	cb_arg = call->q->cb_arg;
	xrma_unlock(&call->q->lock);
	if (cb)
		cb(cb_arg, &call->ev);
	xrma_handle_put(call->owner);
	free(call);
}

static void push_locked(struct xrma_evq *q, const struct xrma_event *ev)
{
	if (q->count == XRMA_EVENT_QUEUE_DEPTH) {
		q->head = (q->head + 1) % XRMA_EVENT_QUEUE_DEPTH;
		q->count--;
		q->dropped++;
	}
	q->ring[(q->head + q->count) % XRMA_EVENT_QUEUE_DEPTH] = *ev;
	q->count++;
	xrma_cond_broadcast(&q->cond);
}

void xrma_evq_post(struct xrma_core_ctx *ctx, struct xrma_evq *q, struct xrma_obj *owner,
		   const struct xrma_event *ev)
{
	struct event_call *call;

	xrma_lock(&q->lock);
	if (!q->cb) {
		push_locked(q, ev);
		xrma_unlock(&q->lock);
		return;
	}
	xrma_unlock(&q->lock);
	call = malloc(sizeof(*call));
	if (call) {
		call->owner = owner;
		call->q = q;
		call->ev = *ev;
		xrma_handle_ref(owner);
		if (!xrma_service_defer(ctx, run_event_call, call))
			return;
		xrma_handle_put(owner);
		free(call);
	}
	/* Could not defer: queue it rather than lose it. */
	xrma_lock(&q->lock);
	push_locked(q, ev);
	xrma_unlock(&q->lock);
}

int xrma_evq_set_callback(struct xrma_evq *q, xrma_event_cb cb, void *arg)
{
	xrma_lock(&q->lock);
	q->cb = cb;
	q->cb_arg = arg;
	xrma_cond_broadcast(&q->cond);
	xrma_unlock(&q->lock);
	return 0;
}

int xrma_evq_wait(struct xrma_evq *q, int timeout_ms, struct xrma_event *ev)
{
	struct xrma_deadline deadline;
	int ret = 0;

	xrma_deadline_set(&deadline, timeout_ms);
	xrma_lock(&q->lock);
	for (;;) {
		if (q->cb) {
			ret = -XRMA_ESTATE;
			break;
		}
		if (q->count) {
			*ev = q->ring[q->head];
			q->head = (q->head + 1) % XRMA_EVENT_QUEUE_DEPTH;
			q->count--;
			break;
		}
		if (q->closed) {
			ret = -XRMA_ECANCELED;
			break;
		}
		if (xrma_cond_wait(&q->cond, &q->lock, &deadline) && !q->count) {
			ret = -XRMA_ETIMEDOUT;
			break;
		}
	}
	xrma_unlock(&q->lock);
	return ret;
}

void xrma_evq_close(struct xrma_evq *q)
{
	xrma_lock(&q->lock);
	q->closed = true;
	xrma_cond_broadcast(&q->cond);
	xrma_unlock(&q->lock);
}
