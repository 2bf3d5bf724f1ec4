/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_dma.c: DMA queues and their state machine exactly
 * as the spec's prose fixes it (spec §2.4, digest §5.3): IDLE -enqueue-> GATHER
 * -post-> POSTED -> DONE | ERROR, POSTED -abort-> ABORTED; reset from every
 * state but POSTED; remove from IDLE and the final states. Entries become core
 * RMA operations on one xrma_dmaq at post time; completions are collected by
 * whoever waits (one collector at a time, others sleep on the queue's cond),
 * and with SCI_FLAG_USE_CALLBACK by a thread that then runs the callback.
 * Dolphin's SCIStartDmaTransfer[Vec] are enqueue + post on a queue that is
 * reset implicitly when it is in a final state.
 */
#include "personalities/sisci/sisci.h"

#include <stdlib.h>
#include "common/errno_keep.h"

struct dma_entry {
	struct xrma_sisci_lseg *lseg;   /* referenced and counted as in use */
	struct xrma_sisci_rseg *rseg;
	size_t local_offset, remote_offset, size;
	bool read;
};

struct xrma_sisci_dmaq {
	struct xrma_sisci_obj obj;
	struct xrma_sisci_desc *desc;
	struct xrma_sisci_node *node;
	struct xrma_dmaq *q;            /* fixed at create */
	unsigned max_entries;           /* fixed at create (SCIEnqueueDMATransfer's limit) */
	unsigned capacity;              /* fixed: room for a DMA vector too */
	pthread_mutex_t lock;           /* guards all below */
	pthread_cond_t cond;            /* state or collector changed */
	sci_dma_queue_state_t state;
	struct dma_entry *entries;
	unsigned count;                 /* entries enqueued */
	unsigned posted, completed;     /* core operations of the current post */
	sci_error_t first_error;        /* of the current post */
	bool collecting;                /* a thread is inside xrma_dmaq_wait */
	unsigned callback_threads;      /* threads that will run or are running a callback */
	sci_cb_dma_t cb;
	void *cb_arg;
	bool use_callback;              /* of the current post */
};

/* Set on a callback thread: the queue whose callback runs here. */
static __thread struct xrma_sisci_dmaq *running_callback_of;

static void dmaq_destroy(struct xrma_sisci_obj *obj)
{
	struct xrma_sisci_dmaq *dq = (struct xrma_sisci_dmaq *)obj;

	free(dq->entries);
	pthread_cond_destroy(&dq->cond);
	pthread_mutex_destroy(&dq->lock);
	free(dq);
}

void SCICreateDMAQueue(sci_desc_t sd, sci_dma_queue_t *dq, unsigned int localAdapterNo,
		       unsigned int maxEntries, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	const struct xrma_sisci_open_args args = {
		.flags = flags,
		.args_ok = dq && maxEntries && maxEntries <= 65536,
		.adapter = localAdapterNo,
	};
	struct xrma_sisci_desc *d;
	struct xrma_sisci_node *node;
	struct xrma_sisci_dmaq *q;
	sci_error_t err;
	int ret;

	q = xrma_sisci_open_begin(sd, sizeof(*q), &args, &d, &node, &err);
	if (!q) {
		xrma_sisci_set(error, err);
		return;
	}
	q->desc = d;
	q->node = node;
	q->max_entries = maxEntries;
	q->capacity = maxEntries > DIS_DMA_MAX_VECLEN ? maxEntries : DIS_DMA_MAX_VECLEN;
	q->state = SCI_DMAQUEUE_IDLE;
	pthread_mutex_init(&q->lock, NULL);
	xrma_sisci_cond_init(&q->cond);
	q->entries = calloc(q->capacity, sizeof(*q->entries));
	ret = q->entries ? xrma_dmaq_open(node->ctx, q->capacity, 0, &q->q) : -XRMA_ENOMEM;
	err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
	if (err == SCI_ERR_OK)
		err = xrma_sisci_obj_publish(&q->obj, XRMA_SISCI_DMAQ, dmaq_destroy);
	if (err != SCI_ERR_OK) {
		if (q->q)
			(void)xrma_dmaq_close(q->q);
		dmaq_destroy(&q->obj);
	} else {
		xrma_sisci_desc_child_add(d);
		*dq = q->obj.handle;
	}
	xrma_sisci_obj_put(&d->obj);
	xrma_sisci_set(error, err);
}

/* ------------------------------------------------------------ completions */

static void account_locked(struct xrma_sisci_dmaq *dq, const struct xrma_completion *c)
{
	dq->completed++;
	if (c->status && dq->first_error == SCI_ERR_OK)
		dq->first_error = c->status == -XRMA_ECANCELED
					  ? SCI_ERR_CANCELLED
					  : xrma_sisci_error(c->status, XRMA_SISCI_DOMAIN_SEGMENT);
	if (dq->state == SCI_DMAQUEUE_POSTED && dq->completed == dq->posted)
		dq->state = dq->first_error == SCI_ERR_OK ? SCI_DMAQUEUE_DONE : SCI_DMAQUEUE_ERROR;
	pthread_cond_broadcast(&dq->cond);
}

/* Take what has completed, without blocking. Lock held. */
static void poll_locked(struct xrma_sisci_dmaq *dq)
{
	struct xrma_completion c[16];
	int n;

	if (dq->collecting)
		return;
	while (dq->completed < dq->posted && (n = xrma_dmaq_poll(dq->q, c, 16)) > 0)
		for (int i = 0; i < n; i++)
			account_locked(dq, &c[i]);
}

/*
 * Collect until every operation of the current post completed or the deadline
 * (NULL: none) passed. Lock held; released while inside the core.
 * 0 or ETIMEDOUT.
 */
static int drain_locked(struct xrma_sisci_dmaq *dq, const struct timespec *deadline)
{
	while (dq->completed < dq->posted) {
		struct xrma_completion c;
		struct timespec now;
		int ms = XRMA_TIMEOUT_INFINITE, ret;

		if (dq->collecting) {
			if (xrma_sisci_cond_wait(&dq->cond, &dq->lock, deadline))
				return dq->completed < dq->posted ? ETIMEDOUT : 0;
			continue;
		}
		if (deadline) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > deadline->tv_sec ||
			    (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec))
				return ETIMEDOUT;
			ms = (int)((deadline->tv_sec - now.tv_sec) * 1000 +
				   (deadline->tv_nsec - now.tv_nsec) / 1000000) + 1;
		}
		dq->collecting = true;
		pthread_mutex_unlock(&dq->lock);
		ret = xrma_dmaq_wait(dq->q, &c, ms);
		pthread_mutex_lock(&dq->lock);
		dq->collecting = false;
		if (!ret)
			account_locked(dq, &c);
		pthread_cond_broadcast(&dq->cond);
		if (ret && ret != -XRMA_ETIMEDOUT)
			return ETIMEDOUT; /* the queue itself failed: nothing more will come */
	}
	return 0;
}

/* Callback threads of other posts end before the queue is reset or removed. */
static void wait_callbacks_locked(struct xrma_sisci_dmaq *dq)
{
	unsigned mine = running_callback_of == dq ? 1 : 0;

	while (dq->callback_threads > mine)
		pthread_cond_wait(&dq->cond, &dq->lock);
}

static void release_entries_locked(struct xrma_sisci_dmaq *dq)
{
	for (unsigned i = 0; i < dq->count; i++) {
		xrma_sisci_lseg_use(dq->entries[i].lseg, -1);
		xrma_sisci_rseg_use(dq->entries[i].rseg, -1);
		xrma_sisci_obj_put(&dq->entries[i].lseg->obj);
		xrma_sisci_obj_put(&dq->entries[i].rseg->obj);
	}
	dq->count = 0;
}

/* Back to IDLE from any state but POSTED (the caller checked). */
static void reset_locked(struct xrma_sisci_dmaq *dq)
{
	(void)drain_locked(dq, NULL); /* an aborted post still has started operations */
	wait_callbacks_locked(dq);
	release_entries_locked(dq);
	dq->posted = dq->completed = 0;
	dq->first_error = SCI_ERR_OK;
	dq->state = SCI_DMAQUEUE_IDLE;
}

static sci_error_t status_of_locked(const struct xrma_sisci_dmaq *dq)
{
	switch (dq->state) {
	case SCI_DMAQUEUE_DONE:
		return SCI_ERR_OK;
	case SCI_DMAQUEUE_ABORTED:
		return SCI_ERR_CANCELLED;
	default:
		return dq->first_error == SCI_ERR_OK ? SCI_ERR_TRANSFER_FAILED : dq->first_error;
	}
}

static void *callback_main(void *arg)
{
	struct xrma_sisci_dmaq *dq = arg;
	sci_error_t status;

	running_callback_of = dq;
	pthread_mutex_lock(&dq->lock);
	(void)drain_locked(dq, NULL);
	status = status_of_locked(dq);
	pthread_mutex_unlock(&dq->lock);
	(void)dq->cb(dq->cb_arg, dq->obj.handle, status);
	pthread_mutex_lock(&dq->lock);
	dq->callback_threads--;
	pthread_cond_broadcast(&dq->cond);
	pthread_mutex_unlock(&dq->lock);
	running_callback_of = NULL;
	xrma_sisci_obj_put(&dq->obj);
	return NULL;
}

/* ------------------------------------------------------------ entries and posts */

static sci_error_t enqueue_locked(struct xrma_sisci_dmaq *dq, sci_local_segment_t local,
				  sci_remote_segment_t remote, size_t local_offset,
				  size_t remote_offset, size_t size, bool read, unsigned limit)
{
	struct xrma_sisci_lseg *l;
	struct xrma_sisci_rseg *r;
	size_t oa = dq->node->caps.rma_offset_align, sa = dq->node->caps.rma_size_align;
	sci_error_t err = SCI_ERR_OK;

	if (dq->state != SCI_DMAQUEUE_IDLE && dq->state != SCI_DMAQUEUE_GATHER)
		return SCI_ERR_ILLEGAL_OPERATION;
	if (dq->count >= limit)
		return SCI_ERR_MAX_ENTRIES;
	l = XRMA_SISCI_GET(local, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	r = XRMA_SISCI_GET(remote, XRMA_SISCI_RSEG, struct xrma_sisci_rseg);
	if (!l || !r || !size)
		err = SCI_ERR_ILLEGAL_PARAMETER;
	if (err == SCI_ERR_OK) {
		bool prepared, connected;
		size_t lsize, rsize;

		pthread_mutex_lock(&l->lock);
		prepared = l->prepared && l->seg && l->node == dq->node;
		lsize = l->size;
		pthread_mutex_unlock(&l->lock);
		pthread_mutex_lock(&r->lock);
		connected = (r->rseg || r->bcast) && r->node == dq->node;
		rsize = r->size;
		pthread_mutex_unlock(&r->lock);
		if (!prepared)
			err = SCI_ERR_SEGMENT_NOT_PREPARED;
		else if (!connected)
			err = SCI_ERR_SEGMENT_NOT_CONNECTED;
		else if (read && r->broadcast)
			err = SCI_ERR_ILLEGAL_OPERATION;   /* a group is written, never read */
		else if (local_offset > lsize || size > lsize - local_offset ||
			 remote_offset > rsize || size > rsize - remote_offset)
			err = SCI_ERR_OUT_OF_RANGE;
		else if ((oa > 1 && (local_offset % oa || remote_offset % oa)))
			err = SCI_ERR_OFFSET_ALIGNMENT;
		else if (sa > 1 && size % sa)
			err = SCI_ERR_SIZE_ALIGNMENT;
	}
	if (err != SCI_ERR_OK) {
		if (l)
			xrma_sisci_obj_put(&l->obj);
		if (r)
			xrma_sisci_obj_put(&r->obj);
		return err;
	}
	xrma_sisci_lseg_use(l, 1);
	xrma_sisci_rseg_use(r, 1);
	dq->entries[dq->count++] = (struct dma_entry){ l, r, local_offset, remote_offset, size, read };
	dq->state = SCI_DMAQUEUE_GATHER;
	return SCI_ERR_OK;
}

/*
 * Start the entries. sync (SCI_FLAG_DMA_WAIT without callback): each runs in
 * the calling thread (XRMA_RMA_SYNC) and the queue is final on return.
 */
static sci_error_t post_locked(struct xrma_sisci_dmaq *dq, sci_cb_dma_t callback, void *arg,
			       bool use_callback, bool sync)
{
	pthread_t thread;

	if (dq->state != SCI_DMAQUEUE_GATHER)
		return SCI_ERR_ILLEGAL_OPERATION;
	wait_callbacks_locked(dq);
	dq->posted = dq->completed = 0;
	dq->first_error = SCI_ERR_OK;
	dq->use_callback = use_callback;
	dq->cb = callback;
	dq->cb_arg = arg;
	dq->state = SCI_DMAQUEUE_POSTED;
	for (unsigned i = 0; i < dq->count; i++) {
		struct dma_entry *e = &dq->entries[i];
		struct xrma_seg *seg;
		struct xrma_rseg *rseg;
		struct xrma_bcast *bcast;
		size_t fanned = 0;
		int ret;

		pthread_mutex_lock(&e->lseg->lock);
		seg = e->lseg->seg;
		pthread_mutex_unlock(&e->lseg->lock);
		pthread_mutex_lock(&e->rseg->lock);
		rseg = e->rseg->rseg;
		bcast = e->rseg->bcast;
		pthread_mutex_unlock(&e->rseg->lock);
		if (bcast) {
			/* One core operation per member: each completes (and is counted) alone. */
			ret = xrma_bcast_post(bcast, dq->q, &(struct xrma_iov){ seg, e->local_offset, e->size },
					      1, e->remote_offset, e->size, i, sync ? XRMA_RMA_SYNC : 0, &fanned);
			dq->posted += (unsigned)fanned;
			if (sync)
				dq->completed += (unsigned)fanned;
			if (ret) {
				dq->first_error = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
				break;
			}
			continue;
		}
		ret = xrma_dmaq_post(dq->q, e->read ? XRMA_RMA_READ : XRMA_RMA_WRITE,
				     &(struct xrma_iov){ seg, e->local_offset, e->size }, 1, rseg,
				     e->remote_offset, e->size, i, sync ? XRMA_RMA_SYNC : 0);
		if (sync && !ret) {
			dq->posted++;
			dq->completed++;
			continue;
		}
		if (ret) {
			/* A peer lost since enqueue: the queue ends in ERROR, as a failed transfer would. */
			dq->first_error = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
			break;
		}
		dq->posted++;
	}
	if (dq->completed == dq->posted)
		dq->state = dq->first_error == SCI_ERR_OK ? SCI_DMAQUEUE_DONE : SCI_DMAQUEUE_ERROR;
	if (use_callback) {
		xrma_sisci_obj_ref(&dq->obj);
		dq->callback_threads++;
		if (pthread_create(&thread, NULL, callback_main, dq)) {
			dq->callback_threads--;
			xrma_sisci_obj_put(&dq->obj);
			dq->use_callback = false; /* the caller may still wait for it */
			return SCI_ERR_NOSPC;
		}
		pthread_detach(thread);
	}
	return SCI_ERR_OK;
}

void SCIEnqueueDMATransfer(sci_dma_queue_t dq, sci_local_segment_t localSegment,
			   sci_remote_segment_t remoteSegment, size_t localOffset, size_t remoteOffset,
			   size_t size, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_dmaq *q = XRMA_SISCI_GET(dq, XRMA_SISCI_DMAQ, struct xrma_sisci_dmaq);
	sci_error_t err;

	if (!q) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, SCI_FLAG_DMA_READ, 0);
	if (err == SCI_ERR_OK) {
		pthread_mutex_lock(&q->lock);
		err = enqueue_locked(q, localSegment, remoteSegment, localOffset, remoteOffset, size,
				     flags & SCI_FLAG_DMA_READ, q->max_entries);
		pthread_mutex_unlock(&q->lock);
	}
	xrma_sisci_obj_put(&q->obj);
	xrma_sisci_set(error, err);
}

void SCIPostDMAQueue(sci_dma_queue_t dq, sci_cb_dma_t callback, void *callbackArg,
		     unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_dmaq *q = XRMA_SISCI_GET(dq, XRMA_SISCI_DMAQ, struct xrma_sisci_dmaq);
	sci_error_t err;

	if (!q) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, SCI_FLAG_USE_CALLBACK, 0);
	if (err == SCI_ERR_OK && (flags & SCI_FLAG_USE_CALLBACK) && !callback)
		err = SCI_ERR_ILLEGAL_PARAMETER;
	if (err == SCI_ERR_OK) {
		pthread_mutex_lock(&q->lock);
		err = post_locked(q, callback, callbackArg, flags & SCI_FLAG_USE_CALLBACK, false);
		pthread_mutex_unlock(&q->lock);
	}
	if (err == SCI_ERR_OK)
		XRMA_KILL_POINT("sisci.dma.after_post");
	xrma_sisci_obj_put(&q->obj);
	xrma_sisci_set(error, err);
}

/* Waits accept the transfer flags Dolphin programs pass through to them. */
#define WAIT_FLAGS                                                                             \
	(SCI_FLAG_DMA_READ | SCI_FLAG_DMA_WAIT | SCI_FLAG_DMA_GLOBAL | SCI_FLAG_DMA_SYSDMA |     \
	 SCI_FLAG_DMA_SOURCE_ONLY | SCI_FLAG_BROADCAST | SCI_FLAG_USE_CALLBACK)

sci_dma_queue_state_t SCIWaitForDMAQueue(sci_dma_queue_t dq, unsigned int timeout,
					 unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_dmaq *q = XRMA_SISCI_GET(dq, XRMA_SISCI_DMAQ, struct xrma_sisci_dmaq);
	struct timespec deadline = xrma_sisci_deadline(timeout);
	sci_dma_queue_state_t state = SCI_DMAQUEUE_ERROR;
	sci_error_t err;

	if (!q) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return SCI_DMAQUEUE_ERROR;
	}
	err = xrma_sisci_flags(flags, WAIT_FLAGS, 0);
	XRMA_KILL_POINT("sisci.dma.before_wait");
	pthread_mutex_lock(&q->lock);
	if (err == SCI_ERR_OK &&
	    (q->state == SCI_DMAQUEUE_IDLE || q->state == SCI_DMAQUEUE_GATHER ||
	     (q->state == SCI_DMAQUEUE_POSTED && q->use_callback)))
		err = SCI_ERR_ILLEGAL_OPERATION;
	if (err == SCI_ERR_OK && q->state == SCI_DMAQUEUE_POSTED &&
	    drain_locked(q, timeout == SCI_INFINITE_TIMEOUT ? NULL : &deadline))
		err = SCI_ERR_TIMEOUT;
	state = q->state;
	pthread_mutex_unlock(&q->lock);
	xrma_sisci_obj_put(&q->obj);
	xrma_sisci_set(error, err);
	return state;
}

/*
 * The queue behind dq, locked, with flags checked and what has completed
 * taken, so the state is current; NULL for a bad handle. *err: the flag check.
 */
static struct xrma_sisci_dmaq *dmaq_enter(sci_dma_queue_t dq, unsigned int flags, sci_error_t *err)
{
	struct xrma_sisci_dmaq *q = XRMA_SISCI_GET(dq, XRMA_SISCI_DMAQ, struct xrma_sisci_dmaq);

	*err = SCI_ERR_ILLEGAL_PARAMETER;
	if (!q)
		return NULL;
	*err = xrma_sisci_flags(flags, 0, 0);
	pthread_mutex_lock(&q->lock);
	if (q->state == SCI_DMAQUEUE_POSTED)
		poll_locked(q);
	return q;
}

static void dmaq_leave(struct xrma_sisci_dmaq *q, sci_error_t err, sci_error_t *error)
{
	pthread_mutex_unlock(&q->lock);
	xrma_sisci_obj_put(&q->obj);
	xrma_sisci_set(error, err);
}

void SCIAbortDMAQueue(sci_dma_queue_t dq, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	sci_error_t err;
	struct xrma_sisci_dmaq *q = dmaq_enter(dq, flags, &err);

	if (!q) {
		xrma_sisci_set(error, err);
		return;
	}
	if (err == SCI_ERR_OK && (q->state == SCI_DMAQUEUE_IDLE || q->state == SCI_DMAQUEUE_GATHER))
		err = SCI_ERR_ILLEGAL_OPERATION;
	/* Still POSTED after the poll: abort; else the race was lost and the state stays. */
	if (err == SCI_ERR_OK && q->state == SCI_DMAQUEUE_POSTED) {
		(void)xrma_dmaq_abort(q->q);
		q->state = SCI_DMAQUEUE_ABORTED;
		pthread_cond_broadcast(&q->cond);
	}
	dmaq_leave(q, err, error);
}

void SCIResetDMAQueue(sci_dma_queue_t dq, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	sci_error_t err;
	struct xrma_sisci_dmaq *q = dmaq_enter(dq, flags, &err);

	if (!q) {
		xrma_sisci_set(error, err);
		return;
	}
	if (err == SCI_ERR_OK && q->state == SCI_DMAQUEUE_POSTED)
		err = SCI_ERR_ILLEGAL_OPERATION;
	if (err == SCI_ERR_OK)
		reset_locked(q);
	dmaq_leave(q, err, error);
}

void SCIRemoveDMAQueue(sci_dma_queue_t dq, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	sci_error_t err;
	struct xrma_sisci_dmaq *q = dmaq_enter(dq, flags, &err);

	if (!q) {
		xrma_sisci_set(error, err);
		return;
	}
	if (err == SCI_ERR_OK && (q->state == SCI_DMAQUEUE_GATHER || q->state == SCI_DMAQUEUE_POSTED))
		err = SCI_ERR_ILLEGAL_OPERATION;
	if (err == SCI_ERR_OK && xrma_sisci_obj_kill(&q->obj)) {
		reset_locked(q);
		(void)xrma_dmaq_close(q->q);
		xrma_sisci_desc_child_del(q->desc);
	}
	dmaq_leave(q, err, error);
}

sci_dma_queue_state_t SCIDMAQueueState(sci_dma_queue_t dq)
{
	XRMA_ERRNO_KEEP(NULL);
	sci_error_t err;
	struct xrma_sisci_dmaq *q = dmaq_enter(dq, 0, &err);
	sci_dma_queue_state_t state;

	if (!q)
		return SCI_DMAQUEUE_ERROR;
	state = q->state;
	dmaq_leave(q, SCI_ERR_OK, NULL);
	return state;
}

/* ------------------------------------------------------------ Dolphin additions */

#define START_FLAGS                                                                            \
	(SCI_FLAG_USE_CALLBACK | SCI_FLAG_DMA_READ | SCI_FLAG_DMA_WAIT | SCI_FLAG_DMA_GLOBAL |  \
	 SCI_FLAG_DMA_SYSDMA | SCI_FLAG_DMA_SOURCE_ONLY | SCI_FLAG_BROADCAST)

static void start_transfer(sci_dma_queue_t dq, sci_local_segment_t local, sci_remote_segment_t remote,
			   const dis_dma_vec_t *vec, size_t count, sci_cb_dma_t callback,
			   void *arg, unsigned int flags, sci_error_t *error)
{
	struct xrma_sisci_dmaq *q = XRMA_SISCI_GET(dq, XRMA_SISCI_DMAQ, struct xrma_sisci_dmaq);
	sci_error_t err;

	if (!q) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, START_FLAGS,
			       (q->node->caps.flags & XRMA_CAP_BROADCAST) ? 0 : SCI_FLAG_BROADCAST);
	/* SCI_FLAG_BROADCAST writes to a group: never a read, never a single node. */
	if (err == SCI_ERR_OK && (flags & SCI_FLAG_BROADCAST)) {
		struct xrma_sisci_rseg *r = XRMA_SISCI_GET(remote, XRMA_SISCI_RSEG, struct xrma_sisci_rseg);

		if (r && ((flags & SCI_FLAG_DMA_READ) || !r->broadcast))
			err = SCI_ERR_ILLEGAL_FLAG;
		if (r)
			xrma_sisci_obj_put(&r->obj);
	}
	if (err == SCI_ERR_OK && (!vec || !count || count > DIS_DMA_MAX_VECLEN ||
				  ((flags & SCI_FLAG_USE_CALLBACK) && !callback)))
		err = SCI_ERR_ILLEGAL_PARAMETER;
	pthread_mutex_lock(&q->lock);
	if (err == SCI_ERR_OK && q->state == SCI_DMAQUEUE_POSTED)
		poll_locked(q);
	if (err == SCI_ERR_OK && (q->state == SCI_DMAQUEUE_POSTED || q->state == SCI_DMAQUEUE_GATHER))
		err = SCI_ERR_ILLEGAL_OPERATION;
	if (err == SCI_ERR_OK && q->state != SCI_DMAQUEUE_IDLE)
		reset_locked(q);
	for (size_t i = 0; err == SCI_ERR_OK && i < count; i++)
		err = enqueue_locked(q, local, remote, vec[i].local_offset, vec[i].remote_offset,
				     vec[i].size, (flags | vec[i].flags) & SCI_FLAG_DMA_READ, q->capacity);
	if (err != SCI_ERR_OK && q->state == SCI_DMAQUEUE_GATHER)
		reset_locked(q); /* a refused vector leaves nothing behind */
	if (err == SCI_ERR_OK) {
		bool sync = (flags & SCI_FLAG_DMA_WAIT) && !(flags & SCI_FLAG_USE_CALLBACK);

		err = post_locked(q, callback, arg, flags & SCI_FLAG_USE_CALLBACK, sync);
		if (err == SCI_ERR_OK && sync)
			err = status_of_locked(q);
	}
	pthread_mutex_unlock(&q->lock);
	xrma_sisci_obj_put(&q->obj);
	xrma_sisci_set(error, err);
}

void SCIStartDmaTransfer(sci_dma_queue_t dq, sci_local_segment_t localSegment,
			 sci_remote_segment_t remoteSegment, size_t localOffset, size_t size,
			 size_t remoteOffset, sci_cb_dma_t callback, void *callbackArg,
			 unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	dis_dma_vec_t one = { size, localOffset, remoteOffset, 0 };

	start_transfer(dq, localSegment, remoteSegment, &one, 1, callback, callbackArg, flags, error);
}

void SCIStartDmaTransferVec(sci_dma_queue_t dq, sci_local_segment_t localSegment,
			    sci_remote_segment_t remoteSegment, size_t vecLength,
			    dis_dma_vec_t *disDmaVec, sci_cb_dma_t callback, void *callbackArg,
			    unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	start_transfer(dq, localSegment, remoteSegment, disDmaVec, vecLength, callback, callbackArg,
		       flags, error);
}
