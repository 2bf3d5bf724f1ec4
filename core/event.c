/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/event.c: per-object event queues and their callback delivery (event.h).
 * One path for every event: queue, then, with a callback, a single delivery work
 * item drains the queue in order on the callback thread. Setting a callback
 * starts that item for what queued up before, so no event is lost to the window
 * between an object's birth and its callback (interrupts do the same in intr.c).
 */
#include "core/event.h"

#include <stdlib.h>
#include <xrma/errors.h>
#include "core/ctx.h"
#include "core/handle.h"
#include "common/wait.h"

/* Callbacks per work item before it goes to the back of the line (fairness). */
#define EVQ_CALLBACK_BATCH 64

struct xrma_evq_spill {
	struct xrma_event ev;
	struct xrma_evq_spill *next;
};

void xrma_evq_init(struct xrma_evq *q, struct xrma_core_ctx *ctx, struct xrma_obj *owner)
{
	q->ctx = ctx;
	q->owner = owner;
	xrma_lock_init(&q->lock);
	xrma_cond_init(&q->cond);
	q->head = q->count = 0;
	q->spill = NULL;
	q->spill_tail = &q->spill;
	q->dropped = 0;
	q->cb = NULL;
	q->cb_arg = NULL;
	q->delivering = false;
	q->closed = false;
}

void xrma_evq_destroy(struct xrma_evq *q)
{
	while (q->spill) {
		struct xrma_evq_spill *next = q->spill->next;

		free(q->spill);
		q->spill = next;
	}
	xrma_cond_destroy(&q->cond);
	xrma_lock_destroy(&q->lock);
}

static void ring_push_locked(struct xrma_evq *q, const struct xrma_event *ev)
{
	q->ring[(q->head + q->count) % XRMA_EVENT_QUEUE_DEPTH] = *ev;
	q->count++;
}

/* Unlink the oldest spilled event; the ring must have room for it. */
static struct xrma_evq_spill *spill_shift_locked(struct xrma_evq *q)
{
	struct xrma_evq_spill *s = q->spill;

	if (s) {
		q->spill = s->next;
		if (!q->spill)
			q->spill_tail = &q->spill;
		ring_push_locked(q, &s->ev);
	}
	return s;
}

static void spill_append_locked(struct xrma_evq *q, struct xrma_evq_spill *s)
{
	s->next = NULL;
	*q->spill_tail = s;
	q->spill_tail = &s->next;
}

/* Take the oldest event; the ring refills from the spill so that order holds. */
static bool pop_locked(struct xrma_evq *q, struct xrma_event *ev)
{
	xrma_lock_assert_held(&q->lock);
	if (!q->count)
		return false;
	*ev = q->ring[q->head];
	q->head = (q->head + 1) % XRMA_EVENT_QUEUE_DEPTH;
	q->count--;
	free(spill_shift_locked(q));
	return true;
}

/*
 * Queue ev. A callback's events are all kept (the spill grows); a waiter's
 * queue, or a callback's when memory is short, drops the oldest and counts it,
 * so the newest state is never lost.
 */
static void push_locked(struct xrma_evq *q, const struct xrma_event *ev)
{
	struct xrma_evq_spill *s;

	xrma_lock_assert_held(&q->lock);
	if (q->count < XRMA_EVENT_QUEUE_DEPTH) {
		ring_push_locked(q, ev);   /* the spill is empty while the ring has room */
	} else if (q->cb && (s = malloc(sizeof(*s)))) {
		s->ev = *ev;
		spill_append_locked(q, s);
	} else {
		q->head = (q->head + 1) % XRMA_EVENT_QUEUE_DEPTH;
		q->count--;
		q->dropped++;
		s = spill_shift_locked(q);
		if (s) {
			s->ev = *ev;   /* the freed node carries the newest to the spill's end */
			spill_append_locked(q, s);
		} else {
			ring_push_locked(q, ev);
		}
	}
	xrma_cond_broadcast(&q->cond);
}

static void evq_deliver(void *arg);

/*
 * With a callback set and events queued, make sure one delivery work item is
 * queued. true when the caller must queue it (after unlocking) with
 * evq_schedule: one item at a time keeps one object's callbacks in order and
 * never concurrent.
 */
static bool need_delivery_locked(struct xrma_evq *q)
{
	xrma_lock_assert_held(&q->lock);
	if (q->closed || !q->cb || q->delivering || !q->count)
		return false;
	q->delivering = true;
	return true;
}

/* Queue evq_deliver holding a reference on the owner; on failure the events stay queued. */
static void evq_schedule(struct xrma_evq *q)
{
	xrma_handle_ref(q->owner);
	if (!xrma_service_defer(q->ctx, evq_deliver, q))
		return;
	xrma_lock(&q->lock);
	q->delivering = false;
	xrma_unlock(&q->lock);
	xrma_handle_put(q->owner);
}

/* Callback thread: run the callback once per queued event, oldest first, no lock held. */
static void evq_deliver(void *arg)
{
	struct xrma_evq *q = arg;
	struct xrma_obj *owner = q->owner;

	for (int n = 0; n < EVQ_CALLBACK_BATCH; n++) {
		struct xrma_event ev;
		xrma_event_cb cb;
		void *cb_arg;

		xrma_lock(&q->lock);
		if (q->closed || !q->cb || !pop_locked(q, &ev)) {
			q->delivering = false;
			xrma_unlock(&q->lock);
			xrma_handle_put(owner);
			return;
		}
		cb = q->cb;
		cb_arg = q->cb_arg;
		xrma_unlock(&q->lock);
		cb(cb_arg, &ev);
	}
	/* More may be queued: go to the back of the line (delivering stays set). */
	evq_schedule(q);
	xrma_handle_put(owner);
}

void xrma_evq_post(struct xrma_evq *q, const struct xrma_event *ev)
{
	bool schedule;

	xrma_lock(&q->lock);
	push_locked(q, ev);
	schedule = need_delivery_locked(q);
	xrma_unlock(&q->lock);
	if (schedule)
		evq_schedule(q);
}

int xrma_evq_set_callback(struct xrma_evq *q, xrma_event_cb cb, void *arg)
{
	bool schedule;

	xrma_lock(&q->lock);
	q->cb = cb;
	q->cb_arg = arg;
	xrma_cond_broadcast(&q->cond);   /* waiters leave with XRMA_ESTATE */
	/* What queued up before the callback goes to it. */
	schedule = need_delivery_locked(q);
	xrma_unlock(&q->lock);
	if (schedule)
		evq_schedule(q);
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
		if (pop_locked(q, ev))
			break;
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
