/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/dmaq.h: DMA queue internals shared with the engine (which runs jobs)
 * and the fence calls (which read a queue's progress).
 */
#ifndef XRMA_CORE_DMAQ_H
#define XRMA_CORE_DMAQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/uio.h>
#include <xrma/dmaq.h>
#include "core/handle.h"
#include "core/dmaq_hold.h"
#include "common/lock.h"

struct xrma_core_ctx;
struct xrma_core_seg;
struct xrma_core_rseg;
struct xrma_fence_signal;

/* One posted transfer; it holds its segments (references and busy uses). */
struct xrma_rma_job {
	struct xrma_rma_job *next;          /* engine's waiting or active list, under engine lock */
	struct xrma_rma_job *qnext, *qprev; /* queue's in-flight list, under dmaq lock */
	struct xrma_core_dmaq *dmaq;
	enum xrma_rma_op op;
	struct xrma_core_rseg *rseg;
	size_t remote_offset;
	size_t len;
	uint64_t cookie;
	uint32_t flags;
	uint64_t seq;                       /* posting order within the queue, from 1 */
	bool sync;                          /* a caller waits on done/status itself */
	bool done;                          /* under dmaq lock */
	int status;                         /* under dmaq lock once done */
	atomic_bool finished;               /* rma_post's done came (read under engine lock) */
	int result;                         /* what done reported: written before finished */
	size_t seg_count;
	struct xrma_core_seg **segs;        /* room for iov_room entries, after iov[] */
	uint64_t held;                      /* bit i: segs[i]'s use is the queue's hold (dmaq_hold.h) */
	bool rseg_held;                     /* and rseg's */
	size_t iov_count;
	size_t iov_room;                    /* entries iov[] and segs[] have room for */
	struct iovec iov[];
};

struct xrma_core_dmaq {
	struct xrma_obj obj;
	struct xrma_core_ctx *ctx;          /* fixed */
	uint32_t depth;                     /* fixed */
	uint32_t flags;                     /* fixed */

	struct xrma_lock lock;              /* guards everything below */
	struct xrma_cond cond;              /* completions, progress, sync jobs */
	size_t outstanding;
	struct xrma_rma_job *inflight_head, *inflight_tail;
	uint64_t last_seq;                  /* seq of the last posted job */
	struct xrma_completion *cq;         /* ring of depth entries */
	size_t cq_head, cq_count;
	struct xrma_fence_signal *signals;  /* armed, in mark order */
	/* The last signal's next; stale once signals empties, until the next append resets it. */
	struct xrma_fence_signal **signals_tail;
	atomic_size_t progress;             /* bumped per completion, for spinning waiters */
	size_t firing;                      /* signals taken ready, not yet written and released */
	/* xrma_fence_publish: the segment (referenced, busy) and its two words, or NULL. */
	struct xrma_core_seg *publish_seg;
	uint64_t *publish_posted, *publish_done;
	/* xrma_core_fence_publish_wake: the futex word raised with done, its sleepers' count; or NULL. */
	_Atomic uint32_t *publish_changes, *publish_sleepers;
	/*
	 * Finished jobs and fired signals kept for the next posts: a stream of
	 * asynchronous posts then allocates nothing, and memory freed by the
	 * completing thread does not pile up in another thread's malloc cache.
	 */
	struct xrma_rma_job *spare_jobs;
	size_t spare_job_count;
	struct xrma_fence_signal *spare_signals;
	size_t spare_signal_count;
	/* The busy uses of the segments in-flight jobs name, shared by them. */
	struct xrma_dmaq_holds seg_holds, rseg_holds;
};

static inline int xrma_core_dmaq_acquire(const void *handle, struct xrma_core_dmaq **dmaq)
{
	return XRMA_HANDLE_GET(handle, XRMA_OBJ_DMAQ, struct xrma_core_dmaq, *dmaq);
}

/*
 * Engine hooks: a job runs to its end (the provider's synchronous rma); a job
 * is posted (rma_post, whose done reaches xrma_engine_job_done); posted jobs'
 * results (job->result) are reported, a list linked by next in posting order.
 */
void xrma_core_dmaq_job_run(struct xrma_rma_job *job);
void xrma_core_dmaq_job_post(struct xrma_rma_job *job);
void xrma_core_dmaq_jobs_retire(struct xrma_rma_job *list);

/*
 * Before a waiter blocks (dmaq lock held, released meanwhile): drive the
 * provider's completions from this thread while that makes progress, when
 * the provider lets us. *driving turns false once a drive ran dry.
 */
void xrma_core_dmaq_drive_locked(struct xrma_core_dmaq *dmaq, bool *driving);

/* Everything posted up to mark has completed (dmaq lock held). */
bool xrma_core_dmaq_mark_done_locked(struct xrma_core_dmaq *dmaq, uint64_t mark);

/* The words of xrma_fence_publish, after a post or a completion (dmaq lock held). */
void xrma_core_fence_publish_locked(struct xrma_core_dmaq *dmaq);
/*
 * With every new done value, raise *changes and wake its futex sleepers when
 * *sleepers (a count a peer keeps, maybe in a mapping of its memory) is not 0.
 * NULL stops either (core/fence_peer.c).
 */
int xrma_core_fence_publish_wake(struct xrma_dmaq *handle, _Atomic uint32_t *changes,
				 const _Atomic uint32_t *sleepers);
/* Let go of the published segment (at destruction). */
void xrma_core_fence_publish_drop(struct xrma_core_dmaq *dmaq);

/*
 * Fence signals whose mark completed, unlinked from the queue (lock held);
 * the caller fires them with xrma_core_fence_fire after unlocking, which
 * writes their values and lets go of their segments, then hands the list
 * back with xrma_core_fence_recycle_locked.
 */
struct xrma_fence_signal *xrma_core_fence_take_ready_locked(struct xrma_core_dmaq *dmaq);
void xrma_core_fence_fire(struct xrma_fence_signal *list);
void xrma_core_fence_recycle_locked(struct xrma_core_dmaq *dmaq, struct xrma_fence_signal *list);
/* Free the queue's spare signals (at destruction). */
void xrma_core_fence_spares_free(struct xrma_core_dmaq *dmaq);

#endif
