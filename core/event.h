/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/event.h: the event queue every segment, remote segment and connection
 * embeds. An event goes either to the object's callback (deferred to the
 * callback thread, holding a reference on the object) or into a bounded queue
 * for *_wait_event; overflow drops the oldest and counts it.
 */
#ifndef XRMA_CORE_EVENT_H
#define XRMA_CORE_EVENT_H

#include <stddef.h>
#include <xrma/event.h>
#include "core/lock.h"

struct xrma_core_ctx;
struct xrma_obj;

struct xrma_evq {
	struct xrma_lock lock;      /* guards everything below */
	struct xrma_cond cond;
	struct xrma_event ring[XRMA_EVENT_QUEUE_DEPTH];
	unsigned head, count;
	size_t dropped;
	xrma_event_cb cb;
	void *cb_arg;
	bool closed;                /* object closing: waiters return ECANCELED */
};

void xrma_evq_init(struct xrma_evq *q);
void xrma_evq_destroy(struct xrma_evq *q);

/* Deliver ev for owner (whose evq is q). Safe from any thread, no lock held. */
void xrma_evq_post(struct xrma_core_ctx *ctx, struct xrma_evq *q, struct xrma_obj *owner,
		   const struct xrma_event *ev);

int xrma_evq_set_callback(struct xrma_evq *q, xrma_event_cb cb, void *arg);

/* 0 with *ev, -XRMA_ETIMEDOUT, -XRMA_ESTATE (callback set), -XRMA_ECANCELED. */
int xrma_evq_wait(struct xrma_evq *q, int timeout_ms, struct xrma_event *ev);

/* Wake waiters for good (the owner is closing). */
void xrma_evq_close(struct xrma_evq *q);

#endif
