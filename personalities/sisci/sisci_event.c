/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_event.c: the event queue of a SISCI segment
 * (local or remote). Core events and the personality's own (an asynchronous
 * connect finishing) arrive here; a segment created with SCI_FLAG_USE_CALLBACK
 * hands them to its callback, otherwise they queue for SCIWaitFor*Event
 * (spec §2.5.2; queued, not coalesced: the spec is silent, §8.3).
 * Also the personality's deadline helpers (CLOCK_MONOTONIC).
 */
#include "personalities/sisci/sisci.h"

#include <errno.h>
#include <time.h>

void xrma_sisci_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
}

struct timespec xrma_sisci_deadline(unsigned int timeout)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += timeout / 1000;
	t.tv_nsec += (long)(timeout % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

int xrma_sisci_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock, const struct timespec *deadline)
{
	if (!deadline)
		return pthread_cond_wait(cond, lock);
	return pthread_cond_timedwait(cond, lock, deadline) == ETIMEDOUT ? ETIMEDOUT : 0;
}

void xrma_sisci_evq_init(struct xrma_sisci_evq *q, bool callback)
{
	pthread_mutex_init(&q->lock, NULL);
	xrma_sisci_cond_init(&q->cond);
	q->head = q->count = 0;
	q->callback = callback;
	q->closed = false;
}

void xrma_sisci_evq_destroy(struct xrma_sisci_evq *q)
{
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
}

bool xrma_sisci_evq_push(struct xrma_sisci_evq *q, const struct xrma_sisci_event *ev)
{
	bool to_callback;

	pthread_mutex_lock(&q->lock);
	to_callback = q->callback && !q->closed;
	if (!to_callback && !q->closed) {
		/* Full: the oldest goes, so the newest state is never lost. */
		if (q->count == XRMA_SISCI_EVQ_DEPTH) {
			q->head = (q->head + 1) % XRMA_SISCI_EVQ_DEPTH;
			q->count--;
		}
		q->ring[(q->head + q->count) % XRMA_SISCI_EVQ_DEPTH] = *ev;
		q->count++;
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	return to_callback;
}

sci_error_t xrma_sisci_evq_wait(struct xrma_sisci_evq *q, unsigned int timeout,
				struct xrma_sisci_event *ev)
{
	struct timespec deadline = xrma_sisci_deadline(timeout);
	sci_error_t err = SCI_ERR_OK;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (q->callback) {
			err = SCI_ERR_ILLEGAL_OPERATION;
			break;
		}
		if (q->count) {
			*ev = q->ring[q->head];
			q->head = (q->head + 1) % XRMA_SISCI_EVQ_DEPTH;
			q->count--;
			break;
		}
		if (q->closed) {
			err = SCI_ERR_CANCELLED;
			break;
		}
		if (xrma_sisci_cond_wait(&q->cond, &q->lock,
					 timeout == SCI_INFINITE_TIMEOUT ? NULL : &deadline)) {
			err = SCI_ERR_TIMEOUT;
			break;
		}
	}
	pthread_mutex_unlock(&q->lock);
	return err;
}

void xrma_sisci_evq_close(struct xrma_sisci_evq *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void xrma_sisci_evq_cancel_callback(struct xrma_sisci_evq *q)
{
	pthread_mutex_lock(&q->lock);
	q->callback = false;
	pthread_mutex_unlock(&q->lock);
}

sci_segment_cb_reason_t xrma_sisci_reason(enum xrma_event_type type)
{
	switch (type) {
	case XRMA_EVENT_CONNECT:
		return SCI_CB_CONNECT;
	case XRMA_EVENT_DISCONNECT:
		return SCI_CB_DISCONNECT;
	case XRMA_EVENT_NOT_OPERATIONAL:
		return SCI_CB_NOT_OPERATIONAL;
	case XRMA_EVENT_OPERATIONAL:
		return SCI_CB_OPERATIONAL;
	case XRMA_EVENT_LOST:
	default:
		return SCI_CB_LOST;
	}
}
