/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/dmaq.c: DMA queues (xrma/dmaq.h): validation of every post before any
 * side effect, the DAT vector fill rule, completion entries with cookies and
 * flags, abort, and waits that spin briefly before they block. The engine
 * thread (core/engine.c) runs asynchronous jobs, several at a time where the
 * provider has rma_post; a synchronous post on an idle queue runs in the
 * caller, which is what makes small SYNC transfers cheap. So does a short
 * asynchronous one where the provider copies with the CPU (rma_try): the
 * poster finishes it and its completion waits in the queue (DESIGN.md, "a
 * transfer a CPU copy finishes is finished by the thread that posted it").
 * Where the provider has rma_poll, posts go out from the caller while the
 * engine is idle and waiters drive completions themselves before they block.
 */
#include "core/dmaq.h"
#include "common/spin.h"

#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/ctx.h"
#include "core/prov_call.h"
#include "core/rseg.h"
#include "core/seg.h"
#include "common/wait.h"

#define DMAQ_DEPTH_MAX 65536u
/*
 * A synchronous post's job lives on the poster's stack when its vector is this
 * short: the poster waits for it to be done and nothing touches it after that
 * (complete_run leaves a caller-owned job alone once done), and a small SYNC
 * write then costs no allocation.
 */
#define SYNC_STACK_IOV 4
/* Jobs with room for this many entries are kept for reuse, at most SPARE_JOBS_MAX per queue. */
#define SPARE_JOB_IOV SYNC_STACK_IOV
#define SPARE_JOBS_MAX 64
/* Bytes of a job with room for room vector entries (and as many segments). */
#define JOB_SIZE(room) \
	(sizeof(struct xrma_rma_job) + (room) * (sizeof(struct iovec) + sizeof(struct xrma_core_seg *)))
/*
 * Longest asynchronous transfer the poster runs itself (rma_try). Below it the
 * hand-off to the engine thread and back (two wake-ups, 10-300 us on a loaded
 * machine) costs more than the copy; above it the poster gets its overlap
 * with the copy, which the engine thread does meanwhile.
 */
#define DMAQ_TRY_MAX (64u * 1024)
#define RMA_FLAGS_ALL (XRMA_RMA_SUPPRESS | XRMA_RMA_UNSIGNALLED | XRMA_RMA_FENCE | XRMA_RMA_SYNC | \
		       XRMA_RMA_ORDERED)

static void dmaq_destroy(struct xrma_obj *obj)
{
	struct xrma_core_dmaq *dmaq = (struct xrma_core_dmaq *)obj;
	struct xrma_core_ctx *ctx = dmaq->ctx;

	while (dmaq->spare_jobs) {
		struct xrma_rma_job *job = dmaq->spare_jobs;

		dmaq->spare_jobs = job->next;
		free(job);
	}
	xrma_core_fence_spares_free(dmaq);
	xrma_core_fence_publish_drop(dmaq);
	free(dmaq->cq);
	xrma_cond_destroy(&dmaq->cond);
	xrma_lock_destroy(&dmaq->lock);
	free(dmaq);
	xrma_core_ctx_child_destroyed(ctx);
}

int xrma_dmaq_open(struct xrma_ctx *handle, uint32_t depth, uint32_t flags, struct xrma_dmaq **out)
{
	struct xrma_core_ctx *ctx;
	struct xrma_core_dmaq *dmaq;
	int ret;

	if (!out)
		return -XRMA_EINVAL;
	*out = NULL;
	if (!depth || depth > DMAQ_DEPTH_MAX || (flags & ~XRMA_DMAQ_UNSIGNALLED))
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	dmaq = calloc(1, sizeof(*dmaq));
	if (dmaq)
		dmaq->cq = calloc(depth, sizeof(*dmaq->cq));
	if (!dmaq || !dmaq->cq) {
		ret = -XRMA_ENOMEM;
		goto err_free;
	}
	dmaq->ctx = ctx;
	dmaq->depth = depth;
	dmaq->flags = flags;
	xrma_lock_init(&dmaq->lock);
	xrma_cond_init(&dmaq->cond);
	atomic_init(&dmaq->progress, 0);
	ret = xrma_core_ctx_child_open(ctx);
	if (ret)
		goto err_destroy_lock;
	ret = xrma_handle_alloc(&dmaq->obj, XRMA_OBJ_DMAQ, dmaq_destroy);
	if (ret)
		goto err_child;
	*out = dmaq->obj.handle;
	xrma_handle_put(&ctx->obj);
	return 0;

err_child:
	xrma_core_ctx_child_killed(ctx);
	xrma_core_ctx_child_destroyed(ctx);
err_destroy_lock:
	xrma_cond_destroy(&dmaq->cond);
	xrma_lock_destroy(&dmaq->lock);
err_free:
	if (dmaq)
		free(dmaq->cq);
	free(dmaq);
	xrma_handle_put(&ctx->obj);
	return ret;
}

/* Transfers in flight, signals armed, or signals still being written. */
static bool dmaq_busy_locked(const struct xrma_core_dmaq *dmaq)
{
	return dmaq->outstanding || dmaq->signals || dmaq->firing;
}

int xrma_dmaq_close(struct xrma_dmaq *handle)
{
	struct xrma_core_dmaq *dmaq;
	int ret;

	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	xrma_lock(&dmaq->lock);
	ret = dmaq_busy_locked(dmaq) ? -XRMA_EBUSY : 0;
	xrma_unlock(&dmaq->lock);
	if (!ret) {
		ret = xrma_handle_kill(&dmaq->obj);
		if (!ret)
			xrma_core_ctx_child_killed(dmaq->ctx);
	}
	xrma_handle_put(&dmaq->obj);
	return ret;
}

/* ---- posting ---- */

/* A spare job for an asynchronous post (lock held), or NULL if none is kept. */
static struct xrma_rma_job *job_spare_locked(struct xrma_core_dmaq *dmaq)
{
	struct xrma_rma_job *job = dmaq->spare_jobs;

	if (job) {
		dmaq->spare_jobs = job->next;
		dmaq->spare_job_count--;
	}
	return job;
}

/* A post's job, filled in where it will live (room: its vector's entries and segments). */
static void job_init(struct xrma_rma_job *job, struct xrma_core_dmaq *dmaq, enum xrma_rma_op op,
		     size_t remote_offset, size_t len, uint64_t cookie, uint32_t flags, size_t room)
{
	*job = (struct xrma_rma_job){ .dmaq = dmaq, .op = op, .remote_offset = remote_offset,
				      .len = len, .cookie = cookie, .flags = flags,
				      .sync = !!(flags & XRMA_RMA_SYNC), .iov_room = room };
	job->segs = (struct xrma_core_seg **)(void *)&job->iov[room];
}

/* Keep a finished job for a later post (lock held); false when the caller must free it. */
static bool job_keep_locked(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *job)
{
	if (job->iov_room != SPARE_JOB_IOV || dmaq->spare_job_count >= SPARE_JOBS_MAX)
		return false;
	job->next = dmaq->spare_jobs;
	dmaq->spare_jobs = job;
	dmaq->spare_job_count++;
	return true;
}

/* End the busy uses a job took for itself (not through the queue's holds). */
static void release_own_refs(struct xrma_rma_job *job)
{
	for (size_t i = 0; i < job->seg_count; i++)
		if (!(job->held & (1ull << i)))
			xrma_core_seg_busy_put(job->segs[i]);
	if (job->rseg && !job->rseg_held)
		xrma_core_rseg_busy_put(job->rseg);
}

/*
 * Count a checked job into the queue's holds (lock held): through the holds
 * its segments were found in, and, for an asynchronous job, by handing its
 * own uses to free holds. A synchronous job is alone in flight as a rule,
 * so a hold it started would end with it, at the cost of one more hold of
 * the lock at its completion.
 */
static void holds_enter_locked(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *job)
{
	for (size_t i = 0; i < job->seg_count; i++) {
		struct xrma_core_seg *seg = job->segs[i];

		if (job->held & (1ull << i))
			xrma_dmaq_hold_of(&dmaq->seg_holds, &seg->obj)->jobs++;
		else if (!job->sync && xrma_dmaq_hold_adopt(&dmaq->seg_holds, &seg->obj, &seg->busy))
			job->held |= 1ull << i;
	}
	if (job->rseg_held)
		xrma_dmaq_hold_of(&dmaq->rseg_holds, &job->rseg->obj)->jobs++;
	else if (!job->sync)
		job->rseg_held = xrma_dmaq_hold_adopt(&dmaq->rseg_holds, &job->rseg->obj, &job->rseg->busy);
}

/*
 * Count a retiring job out of the queue's holds (lock held). Holds it was
 * the last use of go to ended[] (room for every hold), for the caller to
 * end after unlocking; returns how many.
 */
static size_t holds_leave_locked(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *job,
				 struct xrma_dmaq_hold *ended)
{
	size_t n = 0;

	for (size_t i = 0; i < job->seg_count; i++)
		if (job->held & (1ull << i))
			n += xrma_dmaq_hold_leave(xrma_dmaq_hold_of(&dmaq->seg_holds, &job->segs[i]->obj),
						  &ended[n]);
	if (job->rseg_held)
		n += xrma_dmaq_hold_leave(xrma_dmaq_hold_of(&dmaq->rseg_holds, &job->rseg->obj), &ended[n]);
	return n;
}

/*
 * Check the local vector and build the plain iovec of the first len bytes:
 * leading entries whole, at most one partial, the rest untouched (uDAPL).
 */
static int build_local(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *job,
		       const struct xrma_iov *local, size_t count, size_t len)
{
	uint32_t need = job->op == XRMA_RMA_READ ? XRMA_ACCESS_LOCAL_WRITE : XRMA_ACCESS_LOCAL_READ;
	size_t left = len;
	int ret;

	for (size_t i = 0; i < count; i++) {
		struct xrma_dmaq_hold *hold = xrma_dmaq_hold_find(&dmaq->seg_holds, local[i].seg);
		struct xrma_core_seg *seg;

		/* A held segment is busy, so its handle is live: no acquire needed. */
		if (hold) {
			seg = (struct xrma_core_seg *)hold->obj;
			job->held |= 1ull << job->seg_count;
		} else {
			ret = xrma_core_seg_busy_get(local[i].seg, &seg);
			if (ret)
				return ret;
		}
		job->segs[job->seg_count++] = seg;
		if (local[i].offset > seg->len || local[i].len > seg->len - local[i].offset)
			return -XRMA_ERANGE;
		if (!(seg->access & need))
			return -XRMA_EACCES;
		if (left && local[i].len) {
			size_t take = local[i].len < left ? local[i].len : left;

			job->iov[job->iov_count++] = (struct iovec){
				.iov_base = (char *)seg->addr + local[i].offset,
				.iov_len = take,
			};
			left -= take;
		}
	}
	return left ? -XRMA_ELENGTH : 0;
}

/* The remote segment, through the queue's hold on it or a busy use of the job's own (lock held). */
static int find_remote(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *job, const struct xrma_rseg *remote)
{
	struct xrma_dmaq_hold *hold = xrma_dmaq_hold_find(&dmaq->rseg_holds, remote);

	if (!hold)
		return xrma_core_rseg_busy_get(remote, &job->rseg);
	job->rseg = (struct xrma_core_rseg *)hold->obj;
	job->rseg_held = true;
	return 0;
}

static int check_remote(struct xrma_rma_job *job, struct xrma_rma_job *unused, const struct xrma_caps *caps)
{
	struct xrma_core_rseg *rseg = job->rseg;
	uint32_t need = job->op == XRMA_RMA_READ ? XRMA_ACCESS_REMOTE_READ : XRMA_ACCESS_REMOTE_WRITE;

	(void)unused;
	if (job->remote_offset > rseg->len || job->len > rseg->len - job->remote_offset)
		return -XRMA_ERANGE;
	if (!(rseg->access & need))
		return -XRMA_EACCES;
	if (job->remote_offset % caps->rma_offset_align)
		return -XRMA_EALIGN_OFFSET;
	if (job->len % caps->rma_size_align)
		return -XRMA_EALIGN_SIZE;
	return xrma_core_rseg_usable(rseg);
}

static void link_inflight_locked(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *job)
{
	job->seq = ++dmaq->last_seq;
	job->qnext = NULL;
	job->qprev = dmaq->inflight_tail;
	if (dmaq->inflight_tail)
		dmaq->inflight_tail->qnext = job;
	else
		dmaq->inflight_head = job;
	dmaq->inflight_tail = job;
	dmaq->outstanding++;
}

static void unlink_inflight_locked(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *job)
{
	if (job->qprev)
		job->qprev->qnext = job->qnext;
	else
		dmaq->inflight_head = job->qnext;
	if (job->qnext)
		job->qnext->qprev = job->qprev;
	else
		dmaq->inflight_tail = job->qprev;
	dmaq->outstanding--;
}

/*
 * Retire a run of jobs of one queue, linked by next in posting order, each
 * with its result: one hold of the queue's lock for the run. A job is kept
 * or freed unless a synchronous poster owns it, which takes it back once
 * done; nothing here touches such a job after it is marked done and the
 * lock is let go.
 */
static void complete_run(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *run)
{
	struct xrma_dmaq_hold ended[2 * XRMA_DMAQ_HOLDS];
	struct xrma_rma_job *unkept = NULL;
	struct xrma_fence_signal *ready;
	size_t nended = 0;
	bool wake = false;

	for (struct xrma_rma_job *job = run; job; job = job->next)
		release_own_refs(job);
	xrma_lock(&dmaq->lock);
	for (struct xrma_rma_job *job = run; job; job = job->next)
		nended += holds_leave_locked(dmaq, job, &ended[nended]);
	if (nended) {
		/*
		 * Ended outside the lock (a last reference destroys) and before any
		 * of the run's completions can be read: a close after one finds the
		 * segment idle and ends it itself. Seldom: a stream keeps its holds.
		 */
		xrma_unlock(&dmaq->lock);
		while (nended)
			xrma_dmaq_hold_end(&ended[--nended]);
		xrma_lock(&dmaq->lock);
	}
	while (run) {
		struct xrma_rma_job *job = run;
		int status = job->result;

		run = job->next;
		unlink_inflight_locked(dmaq, job);
		if (job->sync) {
			job->done = true;
			job->status = status;
			wake = true;
			continue;
		}
		if (status || !(job->flags & XRMA_RMA_SUPPRESS)) {
			/* Room is guaranteed: posts keep outstanding + queued within depth. */
			dmaq->cq[(dmaq->cq_head + dmaq->cq_count) % dmaq->depth] = (struct xrma_completion){
				.cookie = job->cookie,
				.status = status,
				.op = job->op,
				.len = status ? 0 : job->len,
			};
			dmaq->cq_count++;
			wake = wake || status || !(job->flags & XRMA_RMA_UNSIGNALLED);
		} else {
			/* A fence or drain waiter may wait for this one. */
			wake = true;
		}
		if (!job_keep_locked(dmaq, job)) {
			job->next = unkept;
			unkept = job;
		}
	}
	if (dmaq->publish_seg)
		xrma_core_fence_publish_locked(dmaq);
	ready = xrma_core_fence_take_ready_locked(dmaq);
	/* Until they are written, fence waits, drains and close still wait for them. */
	if (ready)
		dmaq->firing++;
	atomic_fetch_add_explicit(&dmaq->progress, 1, memory_order_release);
	/* Unsignalled successes still free waiters on drain and fences. */
	if (wake || !dmaq->outstanding || ready)
		xrma_cond_broadcast(&dmaq->cond);
	xrma_unlock(&dmaq->lock);
	if (ready) {
		xrma_core_fence_fire(ready);
		xrma_lock(&dmaq->lock);
		dmaq->firing--;
		xrma_core_fence_recycle_locked(dmaq, ready);
		xrma_cond_broadcast(&dmaq->cond);
		xrma_unlock(&dmaq->lock);
	}
	while (unkept) {
		struct xrma_rma_job *job = unkept;

		unkept = job->next;
		free(job);
	}
}

/* Retire one job with status. */
static void complete_job(struct xrma_rma_job *job, int status)
{
	job->result = status;
	job->next = NULL;
	complete_run(job->dmaq, job);
}

void xrma_core_dmaq_job_run(struct xrma_rma_job *job)
{
	struct xrma_core_ctx *ctx = job->dmaq->ctx;
	int status;

	/* Lost while the job waited: the memory is nobody's now, nothing may land in it. */
	status = xrma_core_rseg_usable(job->rseg);
	if (!status)
		status = xrma_core_call_rma(ctx, job->op, job->rseg->remote_mem,
					    job->rseg->base + job->remote_offset, job->iov,
					    job->iov_count, job->flags & XRMA_RMA_ORDERED);
	complete_job(job, status);
}

static void job_done(void *arg, int status)
{
	struct xrma_rma_job *job = arg;

	xrma_engine_job_done(&job->dmaq->ctx->engine, job, status);
}

void xrma_core_dmaq_job_post(struct xrma_rma_job *job)
{
	struct xrma_core_ctx *ctx = job->dmaq->ctx;
	int ret;

	ret = xrma_core_rseg_usable(job->rseg);
	if (!ret)
		ret = xrma_core_call_rma_post(ctx, job->op, job->rseg->remote_mem,
					      job->rseg->base + job->remote_offset, job->iov,
					      job->iov_count, job->flags & XRMA_RMA_ORDERED, job_done,
					      job);
	if (ret)
		job_done(job, ret);
}

void xrma_core_dmaq_jobs_retire(struct xrma_rma_job *list)
{
	/* Each run of consecutive jobs of one queue retires under one hold of its lock. */
	while (list) {
		struct xrma_rma_job *run = list, *end = list;

		while (end->next && end->next->dmaq == run->dmaq)
			end = end->next;
		list = end->next;
		end->next = NULL;
		complete_run(run->dmaq, run);
	}
}

static void cancel_job(struct xrma_rma_job *job)
{
	complete_job(job, -XRMA_ECANCELED);
}

/* Whether the poster may run short asynchronous jobs itself: a CPU copy, nothing in the background. */
static bool dmaq_can_try(const struct xrma_core_ctx *ctx)
{
	return XRMA_PROV_HAS(ctx, rma_try) && !XRMA_PROV_HAS(ctx, rma_post);
}

/* Start an asynchronous job: from the caller when the engine is idle, else through it. */
static void start_async(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *job)
{
	int ret = xrma_engine_post_direct(dmaq->ctx, job);

	if (!ret)
		ret = xrma_engine_submit(dmaq->ctx, job);
	if (ret < 0)
		complete_job(job, ret);   /* reported through the queue, as a transfer that failed */
}

/*
 * Run an asynchronous job of an idle queue in the poster's thread if the
 * provider can finish it now; else (-XRMA_EAGAIN: nothing moved) the engine
 * runs it as it would have. Either way it completes through the queue, so
 * cookies, suppressed and unsignalled entries, fences and signals are as for
 * a job the engine ran.
 */
static void try_async(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *job)
{
	struct xrma_core_ctx *ctx = dmaq->ctx;
	int status = xrma_core_rseg_usable(job->rseg);

	if (!status)
		status = xrma_core_call_rma_try(ctx, job->op, job->rseg->remote_mem,
						job->rseg->base + job->remote_offset, job->iov,
						job->iov_count, job->flags & XRMA_RMA_ORDERED);
	if (status == -XRMA_EAGAIN)
		start_async(dmaq, job);
	else
		complete_job(job, status);
}

void xrma_core_dmaq_drive_locked(struct xrma_core_dmaq *dmaq, bool *driving)
{
	size_t seen;

	if (!*driving || !dmaq->outstanding || !xrma_engine_can_drive(dmaq->ctx)) {
		*driving = false;
		return;
	}
	seen = atomic_load_explicit(&dmaq->progress, memory_order_acquire);
	xrma_unlock(&dmaq->lock);
	*driving = xrma_engine_drive(dmaq->ctx, &dmaq->progress, seen);
	xrma_lock(&dmaq->lock);
}

/* Run a synchronous job to the end and return its status; the poster owns (and frees) the job. */
static int run_sync(struct xrma_core_dmaq *dmaq, struct xrma_rma_job *job, bool inline_run)
{
	struct xrma_deadline forever;
	bool driving = true;
	int status;

	if (inline_run)
		xrma_core_dmaq_job_run(job);
	else
		start_async(dmaq, job);
	xrma_deadline_set(&forever, -1);
	xrma_lock(&dmaq->lock);
	while (!job->done) {
		if (driving) {
			xrma_core_dmaq_drive_locked(dmaq, &driving);
			continue;
		}
		xrma_cond_wait(&dmaq->cond, &dmaq->lock, &forever);
	}
	status = job->status;
	xrma_unlock(&dmaq->lock);
	return status;
}

int xrma_dmaq_post(struct xrma_dmaq *handle, enum xrma_rma_op op, const struct xrma_iov *local,
		   size_t count, struct xrma_rseg *remote, size_t remote_offset, size_t len,
		   uint64_t cookie, uint32_t flags)
{
	_Alignas(struct xrma_rma_job) unsigned char stack_job[JOB_SIZE(SYNC_STACK_IOV)];
	struct xrma_core_dmaq *dmaq;
	struct xrma_rma_job *job = NULL;
	bool inline_run, try_run, on_heap, spare;
	int ret;

	if ((op != XRMA_RMA_READ && op != XRMA_RMA_WRITE) || !local || !count || count > XRMA_IOV_MAX ||
	    !len || (flags & ~RMA_FLAGS_ALL) ||
	    ((flags & XRMA_RMA_SYNC) && (flags & (XRMA_RMA_SUPPRESS | XRMA_RMA_UNSIGNALLED))))
		return -XRMA_EINVAL;
	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	if ((flags & XRMA_RMA_UNSIGNALLED) && !(dmaq->flags & XRMA_DMAQ_UNSIGNALLED)) {
		ret = -XRMA_EINVAL;
		goto out_put_dmaq;
	}
	/*
	 * A short asynchronous job lives in a kept one, filled in under the lock
	 * it is taken with; a short synchronous one on the stack; others on the heap.
	 */
	on_heap = count > SYNC_STACK_IOV;
	spare = !on_heap && !(flags & XRMA_RMA_SYNC);
	if (!spare) {
		size_t room = on_heap ? count : SYNC_STACK_IOV;

		job = on_heap ? malloc(JOB_SIZE(room)) : (void *)stack_job;
		if (!job) {
			ret = -XRMA_ENOMEM;
			goto out_put_dmaq;
		}
		job_init(job, dmaq, op, remote_offset, len, cookie, flags, room);
	}
	/* Checked under the lock: the queue's holds stand for the segments they find. */
	xrma_lock(&dmaq->lock);
	if (spare) {
		job = job_spare_locked(dmaq);
		if (!job) {
			xrma_unlock(&dmaq->lock);
			job = malloc(JOB_SIZE(SPARE_JOB_IOV));
			if (!job) {
				ret = -XRMA_ENOMEM;
				goto out_put_dmaq;
			}
			xrma_lock(&dmaq->lock);
		}
		job_init(job, dmaq, op, remote_offset, len, cookie, flags, SPARE_JOB_IOV);
	}
	ret = find_remote(dmaq, job, remote);
	if (!ret)
		ret = build_local(dmaq, job, local, count, len);
	if (!ret)
		ret = check_remote(job, NULL, &dmaq->ctx->caps);
	if (!ret && dmaq->outstanding + dmaq->cq_count >= dmaq->depth)
		ret = -XRMA_EAGAIN;
	if (ret) {
		xrma_unlock(&dmaq->lock);
		goto err_release;
	}
	holds_enter_locked(dmaq, job);
	/*
	 * On an idle queue the poster runs the job: nothing posted before it can
	 * still be running, so ordering and fences hold. A post racing it from
	 * another thread finds the queue busy and goes to the engine.
	 */
	inline_run = job->sync && !dmaq->outstanding;
	try_run = !job->sync && !dmaq->outstanding && len <= DMAQ_TRY_MAX && dmaq_can_try(dmaq->ctx);
	link_inflight_locked(dmaq, job);
	if (dmaq->publish_seg)
		xrma_core_fence_publish_locked(dmaq);
	xrma_unlock(&dmaq->lock);

	if (job->sync) {
		ret = run_sync(dmaq, job, inline_run);
		if (on_heap)
			free(job);
	} else if (try_run) {
		try_async(dmaq, job);
		ret = 0;
	} else {
		start_async(dmaq, job);
		ret = 0;
	}
	xrma_handle_put(&dmaq->obj);
	return ret;

err_release:
	/* Busy uses end outside the queue's lock (its place in the lock order). */
	release_own_refs(job);
	if (spare) {
		bool kept;

		xrma_lock(&dmaq->lock);
		kept = job_keep_locked(dmaq, job);
		xrma_unlock(&dmaq->lock);
		if (!kept)
			free(job);
	} else if (on_heap) {
		free(job);
	}
out_put_dmaq:
	xrma_handle_put(&dmaq->obj);
	return ret;
}

/* ---- completions ---- */

static size_t take_locked(struct xrma_core_dmaq *dmaq, struct xrma_completion *out, size_t max)
{
	size_t n = 0;

	while (n < max && dmaq->cq_count) {
		out[n++] = dmaq->cq[dmaq->cq_head];
		dmaq->cq_head = (dmaq->cq_head + 1) % dmaq->depth;
		dmaq->cq_count--;
	}
	return n;
}

int xrma_dmaq_poll(struct xrma_dmaq *handle, struct xrma_completion *out, size_t max)
{
	struct xrma_core_dmaq *dmaq;
	size_t n;
	int ret;

	if (!out && max)
		return -XRMA_EINVAL;
	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	if (max > (size_t)dmaq->depth)
		max = dmaq->depth;
	xrma_lock(&dmaq->lock);
	n = take_locked(dmaq, out, max);
	xrma_unlock(&dmaq->lock);
	xrma_handle_put(&dmaq->obj);
	return (int)n;
}

/* Spin a bounded while for progress before the caller blocks. */
static void spin_for_progress(struct xrma_core_dmaq *dmaq)
{
	size_t seen = atomic_load_explicit(&dmaq->progress, memory_order_acquire);
	struct xrma_spin spin;

	xrma_spin_start(&spin, XRMA_SPIN_LOCAL);
	while (atomic_load_explicit(&dmaq->progress, memory_order_acquire) == seen &&
	       xrma_spin_again(&spin))
		;
}

int xrma_dmaq_wait(struct xrma_dmaq *handle, struct xrma_completion *out, int timeout_ms)
{
	struct xrma_core_dmaq *dmaq;
	struct xrma_deadline deadline;
	bool spun = false, driving = timeout_ms != 0;
	int ret;

	if (!out)
		return -XRMA_EINVAL;
	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	xrma_deadline_set(&deadline, timeout_ms);
	xrma_lock(&dmaq->lock);
	while (!take_locked(dmaq, out, 1)) {
		if (driving) {
			xrma_core_dmaq_drive_locked(dmaq, &driving);
			continue;
		}
		if (!spun && dmaq->outstanding && timeout_ms) {
			xrma_unlock(&dmaq->lock);
			spin_for_progress(dmaq);
			spun = true;
			xrma_lock(&dmaq->lock);
			continue;
		}
		if (xrma_cond_wait(&dmaq->cond, &dmaq->lock, &deadline) && !dmaq->cq_count) {
			ret = -XRMA_ETIMEDOUT;
			break;
		}
	}
	xrma_unlock(&dmaq->lock);
	xrma_handle_put(&dmaq->obj);
	return ret;
}

int xrma_dmaq_drain(struct xrma_dmaq *handle, int timeout_ms)
{
	struct xrma_core_dmaq *dmaq;
	struct xrma_deadline deadline;
	bool driving = timeout_ms != 0;
	int ret;

	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	xrma_deadline_set(&deadline, timeout_ms);
	xrma_lock(&dmaq->lock);
	while (dmaq_busy_locked(dmaq)) {
		if (driving) {
			xrma_core_dmaq_drive_locked(dmaq, &driving);
			continue;
		}
		if (xrma_cond_wait(&dmaq->cond, &dmaq->lock, &deadline) &&
		    dmaq_busy_locked(dmaq)) {
			ret = -XRMA_ETIMEDOUT;
			break;
		}
	}
	xrma_unlock(&dmaq->lock);
	xrma_handle_put(&dmaq->obj);
	return ret;
}

int xrma_dmaq_abort(struct xrma_dmaq *handle)
{
	struct xrma_core_dmaq *dmaq;
	int ret;

	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	ret = xrma_engine_cancel(&dmaq->ctx->engine, dmaq, cancel_job);
	xrma_handle_put(&dmaq->obj);
	return ret;
}

int xrma_dmaq_outstanding(struct xrma_dmaq *handle, size_t *count)
{
	struct xrma_core_dmaq *dmaq;
	int ret;

	if (!count)
		return -XRMA_EINVAL;
	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	xrma_lock(&dmaq->lock);
	*count = dmaq->outstanding;
	xrma_unlock(&dmaq->lock);
	xrma_handle_put(&dmaq->obj);
	return 0;
}

bool xrma_core_dmaq_mark_done_locked(struct xrma_core_dmaq *dmaq, uint64_t mark)
{
	xrma_lock_assert_held(&dmaq->lock);
	return !dmaq->inflight_head || dmaq->inflight_head->seq > mark;
}
