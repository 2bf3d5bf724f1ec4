/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/event.h: the event queue every segment, remote segment and connection
 * embeds. Events always queue first; with a callback set, one delivery work item
 * at a time (holding a reference on the object) takes them off in order on the
 * callback thread, so events queued before the callback was set reach it too
 * (as interrupts do, core/intr.c). Without a callback they wait for
 * *_wait_event in a bounded queue whose overflow drops the oldest and counts it.
 */
#ifndef XRMA_CORE_EVENT_H
#define XRMA_CORE_EVENT_H

#include <stddef.h>
#include <xrma/event.h>
#include "common/lock.h"

struct xrma_core_ctx;
struct xrma_obj;
struct xrma_evq_spill;

struct xrma_evq {
	struct xrma_core_ctx *ctx;  /* fixed at init */
	struct xrma_obj *owner;     /* fixed at init: the object embedding the queue */
	struct xrma_lock lock;      /* guards everything below */
	struct xrma_cond cond;
	struct xrma_event ring[XRMA_EVENT_QUEUE_DEPTH];
	unsigned head, count;
	/* With a callback, events beyond a full ring, oldest first; only while the ring is full. */
	struct xrma_evq_spill *spill, **spill_tail;
	size_t dropped;
	xrma_event_cb cb;
	void *cb_arg;
	bool delivering;            /* a delivery work item is queued or running */
	bool closed;                /* object closing: waiters return ECANCELED, no more callbacks */
};

/* owner is the object that embeds q, in ctx; both outlive q. */
void xrma_evq_init(struct xrma_evq *q, struct xrma_core_ctx *ctx, struct xrma_obj *owner);
void xrma_evq_destroy(struct xrma_evq *q);

/* Queue ev and, with a callback set, make sure it is delivered. Safe from any
 * thread; the caller holds a reference on the owner. */
void xrma_evq_post(struct xrma_evq *q, const struct xrma_event *ev);

/*
 * Set (or clear, cb NULL) the callback. Events already queued go to a new
 * callback, in order, before any posted later, each once; the callback runs on
 * the callback thread, never from this call. The caller holds a reference on
 * the owner.
 */
int xrma_evq_set_callback(struct xrma_evq *q, xrma_event_cb cb, void *arg);

/* 0 with *ev, -XRMA_ETIMEDOUT, -XRMA_ESTATE (callback set), -XRMA_ECANCELED. */
int xrma_evq_wait(struct xrma_evq *q, int timeout_ms, struct xrma_event *ev);

/* Wake waiters for good (the owner is closing). */
void xrma_evq_close(struct xrma_evq *q);

#endif
