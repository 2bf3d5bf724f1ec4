/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/event.h: object events (connect, disconnect, lost, link state)
 * as delivered to segments, remote segments and connections. An object either
 * has a callback, run on the context's callback thread with no core lock held
 * (so it may call the API), or queues its events for *_wait_event(). Events
 * queued before a callback is set are handed to it, in order, each once.
 */
#ifndef XRMA_EVENT_H
#define XRMA_EVENT_H

#include <stdint.h>
#include <xrma/api.h>

XRMA_BEGIN_DECLS

enum xrma_event_type {
	XRMA_EVENT_CONNECT = 1,          /* an importer connected (segment owner) */
	XRMA_EVENT_DISCONNECT,           /* an importer left, or the owner asks importers to leave */
	XRMA_EVENT_LOST,                 /* the peer died or forced us off */
	XRMA_EVENT_NOT_OPERATIONAL,      /* the link to the peer is down */
	XRMA_EVENT_OPERATIONAL,          /* the link is back */
};

struct xrma_event {
	enum xrma_event_type type;
	uint32_t node;       /* the peer node the event is about */
	int status;          /* 0, or the XRMA_E* code that caused it */
};

/*
 * Event callback. Its return value is ignored by the core (personalities give
 * it their API's meaning). Called on the callback thread, never concurrently for
 * one object, in the order the events happened.
 */
typedef void (*xrma_event_cb)(void *arg, const struct xrma_event *event);

/* Events queued per object without a callback before the oldest are dropped (and counted). */
#define XRMA_EVENT_QUEUE_DEPTH 64

XRMA_END_DECLS

#endif
