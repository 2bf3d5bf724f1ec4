/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/sci/sci_post.c: posted transfers (the rma_post op) and the limit
 * SCI puts on them: an initiator has 64 transaction ids (0..63), and a
 * response-expected transaction holds its id until the response comes back
 * (seeds/002, digest "SCI peculiarities"). Each context is one adapter with
 * its own pool: a transfer of n transactions takes min(n, 64) ids when it is
 * posted (the poster waits while too few are free) and gives them back when
 * it completes; a longer transfer moves in bursts of 64. One engine thread per
 * context runs the posted transfers in order through the synchronous path
 * (sci_rma.c), so their faults are those of any transfer. The node's
 * OUTSTANDING and OUTSTANDING_PEAK registers show the ids in use (sci_csr.c).
 */
#include "providers/sci/sci.h"
#include "common/spin.h"

#include <stdlib.h>
#include <string.h>
#include "common/wait.h"

struct sci_post {
	struct sci_post *next;
	enum xrma_rma_op op;
	struct xrma_prov_rmem *rmem;
	size_t offset;
	uint32_t flags;
	uint32_t tids;              /* transaction ids it holds */
	void (*done)(void *arg, int status);
	void *arg;
	size_t count;
	struct iovec iov[];
};

static void *post_main(void *arg)
{
	struct hostfab_ep *ep = arg;
	struct sci_posted *q = &sci_model_of(ep)->posted;

	for (;;) {
		struct sci_post *p;
		struct xrma_spin spin;
		int status;

		/* A short spin catches back-to-back posts without a wake-up. */
		xrma_spin_start(&spin, XRMA_SPIN_LOCAL);
		while (!atomic_load_explicit(&q->queued, memory_order_acquire) && xrma_spin_again(&spin))
			;
		pthread_mutex_lock(&q->lock);
		while (!q->head && !q->stop) {
			q->sleeping = true;
			pthread_cond_wait(&q->cond, &q->lock);
			q->sleeping = false;
		}
		p = q->head;
		if (!p) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		q->head = p->next;
		if (!q->head)
			q->tail = NULL;
		atomic_fetch_sub_explicit(&q->queued, 1, memory_order_relaxed);
		pthread_mutex_unlock(&q->lock);

		status = xrma_prov_sci_rma(ep, p->op, p->rmem, p->offset, p->iov, p->count, p->flags);

		/* The response is in: the ids are free again before the poster hears of it. */
		pthread_mutex_lock(&q->lock);
		xrma_prov_sci_csr_outstanding(ep, -(int32_t)p->tids);
		q->tids_free += p->tids;
		if (q->id_waiters)
			pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
		p->done(p->arg, status);
		free(p);
	}
}

int xrma_prov_sci_rma_post(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem,
			   size_t offset, const struct iovec *iov, size_t count, uint32_t flags,
			   void (*done)(void *arg, int status), void *arg)
{
	struct hostfab_ep *ep = state;
	struct sci_posted *q;
	struct sci_post *p;
	size_t total = 0;
	uint64_t n;

	if (!ep || !rmem || !done || (!iov && count))
		return -XRMA_EINVAL;
	q = &sci_model_of(ep)->posted;
	p = malloc(sizeof(*p) + count * sizeof(*iov));
	if (!p)
		return -XRMA_ENOMEM;
	for (size_t i = 0; i < count; i++)
		total += iov[i].iov_len;
	n = (total + SCI_TRANSACTION_SIZE - 1) / SCI_TRANSACTION_SIZE;
	*p = (struct sci_post){
		.op = op, .rmem = rmem, .offset = offset, .flags = flags,
		.tids = n < SCI_TRANSACTION_IDS ? (uint32_t)n : SCI_TRANSACTION_IDS,
		.done = done, .arg = arg, .count = count,
	};
	if (count)
		memcpy(p->iov, iov, count * sizeof(*iov));

	pthread_mutex_lock(&q->lock);
	if (q->stop) {
		pthread_mutex_unlock(&q->lock);
		free(p);
		return -XRMA_ECANCELED;
	}
	if (!q->started) {
		if (pthread_create(&q->thread, NULL, post_main, ep)) {
			pthread_mutex_unlock(&q->lock);
			free(p);
			return -XRMA_ENOMEM;
		}
		q->started = true;
	}
	/* The poster (the core's DMA engine) waits for ids: SCI's back pressure. */
	while (q->tids_free < p->tids) {
		q->id_waiters++;
		pthread_cond_wait(&q->cond, &q->lock);
		q->id_waiters--;
	}
	q->tids_free -= p->tids;
	xrma_prov_sci_csr_outstanding(ep, (int32_t)p->tids);
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	atomic_fetch_add_explicit(&q->queued, 1, memory_order_release);
	if (q->sleeping)
		pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

void xrma_prov_sci_post_init(struct sci_posted *q)
{
	memset(q, 0, sizeof(*q));
	atomic_init(&q->queued, 0);
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	q->tids_free = SCI_TRANSACTION_IDS;
}

void xrma_prov_sci_post_stop(struct sci_posted *q)
{
	bool started;

	pthread_mutex_lock(&q->lock);
	q->stop = true;
	started = q->started;
	q->started = false;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	/* The core closes a context only once nothing is in flight; the queue is empty. */
	if (started)
		pthread_join(q->thread, NULL);
}

void xrma_prov_sci_post_fini(struct sci_posted *q)
{
	xrma_prov_sci_post_stop(q);
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
}
