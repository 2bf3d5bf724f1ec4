/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/fence.c: marks over a DMA queue's posted operations and the signals that
 * write values once a mark completed (xrma/fence.h). A mark is the sequence
 * number of the last operation posted; it completed when no operation at or
 * below it is still in flight. Signals hold their segments until they fire.
 */
#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include <xrma/fence.h>
#include "core/ctx.h"
#include "common/spin.h"
#include "core/dmaq.h"
#include "common/peer_shared.h"
#include "core/prov_call.h"
#include "core/rseg.h"
#include "common/futex.h"
#include "core/seg.h"
#include "common/wait.h"

struct xrma_fence_signal {
	uint64_t mark;
	struct xrma_core_seg *local;        /* referenced and busy, or NULL */
	size_t local_offset;
	uint64_t local_value;
	struct xrma_core_rseg *remote;      /* referenced and busy, or NULL */
	size_t remote_offset;
	uint64_t remote_value;
	struct xrma_fence_signal *next;
};

int xrma_fence_mark(struct xrma_dmaq *handle, uint64_t *mark)
{
	struct xrma_core_dmaq *dmaq;
	int ret;

	if (!mark)
		return -XRMA_EINVAL;
	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	xrma_lock(&dmaq->lock);
	*mark = dmaq->last_seq;
	xrma_unlock(&dmaq->lock);
	xrma_handle_put(&dmaq->obj);
	return 0;
}

/* Mark passed: its transfers completed and no signal taken at their end is still being written. */
static bool fence_passed_locked(struct xrma_core_dmaq *dmaq, uint64_t mark)
{
	return xrma_core_dmaq_mark_done_locked(dmaq, mark) && !dmaq->firing;
}

int xrma_fence_test(struct xrma_dmaq *handle, uint64_t mark)
{
	struct xrma_core_dmaq *dmaq;
	int ret;

	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	xrma_lock(&dmaq->lock);
	if (mark > dmaq->last_seq)
		ret = -XRMA_EINVAL;
	else
		ret = fence_passed_locked(dmaq, mark);
	xrma_unlock(&dmaq->lock);
	xrma_handle_put(&dmaq->obj);
	return ret;
}

int xrma_fence_wait(struct xrma_dmaq *handle, uint64_t mark, int timeout_ms)
{
	struct xrma_core_dmaq *dmaq;
	struct xrma_deadline deadline;
	bool driving = timeout_ms != 0, spun = false;
	int ret;

	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	xrma_deadline_set(&deadline, timeout_ms);
	xrma_lock(&dmaq->lock);
	if (mark > dmaq->last_seq)
		ret = -XRMA_EINVAL;
	/* Like a DMA waiter, drive the provider's completions before blocking. */
	while (!ret && !fence_passed_locked(dmaq, mark)) {
		if (driving) {
			xrma_core_dmaq_drive_locked(dmaq, &driving);
			continue;
		}
		if (!spun && timeout_ms) {
			/* Short waits are common (a few small transfers): spin for the mark before blocking. */
			struct xrma_spin spin;

			spun = true;
			xrma_spin_start(&spin, XRMA_SPIN_LOCAL);
			while (!fence_passed_locked(dmaq, mark)) {
				bool again;

				xrma_unlock(&dmaq->lock);
				again = xrma_spin_again(&spin);
				xrma_lock(&dmaq->lock);
				if (!again)
					break;
			}
			continue;
		}
		if (xrma_cond_wait(&dmaq->cond, &dmaq->lock, &deadline) &&
		    !fence_passed_locked(dmaq, mark))
			ret = -XRMA_ETIMEDOUT;
	}
	xrma_unlock(&dmaq->lock);
	xrma_handle_put(&dmaq->obj);
	return ret;
}

/* A queue keeps at most this many fired signals for reuse. */
#define SPARE_SIGNALS_MAX 64

/* Let go of the segments a signal holds (its memory is the caller's). */
static void signal_drop_targets(struct xrma_fence_signal *s)
{
	if (s->local)
		xrma_core_seg_busy_put(s->local);
	if (s->remote)
		xrma_core_rseg_busy_put(s->remote);
}

static int signal_check_local(struct xrma_fence_signal *s, struct xrma_seg *handle, size_t offset)
{
	int ret = xrma_core_seg_busy_get(handle, &s->local);

	if (ret)
		return ret;
	if (offset % 4)
		return -XRMA_EALIGN_OFFSET;
	if (offset > s->local->len || s->local->len - offset < 8)
		return -XRMA_ERANGE;
	if (!(s->local->access & XRMA_ACCESS_LOCAL_WRITE))
		return -XRMA_EACCES;
	return 0;
}

static int signal_check_remote(struct xrma_fence_signal *s, struct xrma_rseg *handle, size_t offset)
{
	int ret = xrma_core_rseg_busy_get(handle, &s->remote);

	if (ret)
		return ret;
	if (offset % 4)
		return -XRMA_EALIGN_OFFSET;
	if (offset > s->remote->len || s->remote->len - offset < 8)
		return -XRMA_ERANGE;
	if (!(s->remote->access & XRMA_ACCESS_REMOTE_WRITE))
		return -XRMA_EACCES;
	return xrma_core_rseg_usable(s->remote);
}

/* Room for an armed signal: a spare one, else a new one (lock held). */
static struct xrma_fence_signal *signal_take_locked(struct xrma_core_dmaq *dmaq)
{
	struct xrma_fence_signal *s = dmaq->spare_signals;

	if (!s)
		return malloc(sizeof(*s));
	dmaq->spare_signals = s->next;
	dmaq->spare_signal_count--;
	return s;
}

void xrma_core_fence_recycle_locked(struct xrma_core_dmaq *dmaq, struct xrma_fence_signal *list)
{
	xrma_lock_assert_held(&dmaq->lock);
	while (list) {
		struct xrma_fence_signal *s = list;

		list = s->next;
		if (dmaq->spare_signal_count >= SPARE_SIGNALS_MAX) {
			free(s);
			continue;
		}
		s->next = dmaq->spare_signals;
		dmaq->spare_signals = s;
		dmaq->spare_signal_count++;
	}
}

void xrma_core_fence_spares_free(struct xrma_core_dmaq *dmaq)
{
	while (dmaq->spare_signals) {
		struct xrma_fence_signal *s = dmaq->spare_signals;

		dmaq->spare_signals = s->next;
		free(s);
	}
	dmaq->spare_signal_count = 0;
}

int xrma_fence_signal(struct xrma_dmaq *handle, struct xrma_seg *local, size_t local_offset,
		      uint64_t local_value, struct xrma_rseg *remote, size_t remote_offset,
		      uint64_t remote_value, uint32_t flags)
{
	struct xrma_fence_signal v = { .local_offset = local_offset, .local_value = local_value,
				       .remote_offset = remote_offset, .remote_value = remote_value };
	struct xrma_fence_signal *s = NULL;
	struct xrma_core_dmaq *dmaq;
	bool now;
	int ret;

	if (flags || (!local && !remote))
		return -XRMA_EINVAL;
	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	if (local)
		ret = signal_check_local(&v, local, local_offset);
	if (!ret && remote)
		ret = signal_check_remote(&v, remote, remote_offset);
	if (ret)
		goto out_drop;
	xrma_lock(&dmaq->lock);
	v.mark = dmaq->last_seq;
	now = xrma_core_dmaq_mark_done_locked(dmaq, v.mark);
	if (!now) {
		s = signal_take_locked(dmaq);
		if (!s) {
			xrma_unlock(&dmaq->lock);
			ret = -XRMA_ENOMEM;
			goto out_drop;
		}
		*s = v;
		/* Marks only grow, so appending keeps the list in mark order. */
		if (!dmaq->signals)
			dmaq->signals_tail = &dmaq->signals;
		*dmaq->signals_tail = s;
		dmaq->signals_tail = &s->next;
	}
	xrma_unlock(&dmaq->lock);
	/* Everything before it completed: write now, from the caller's copy. */
	if (now)
		xrma_core_fence_fire(&v);
	xrma_handle_put(&dmaq->obj);
	return 0;

out_drop:
	signal_drop_targets(&v);
	xrma_handle_put(&dmaq->obj);
	return ret;
}

/* Store v at p for a peer polling it: release order, whole. */
static void publish_word(uint64_t *p, uint64_t v)
{
	XRMA_PEER_SHARED_BEGIN();
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
	XRMA_PEER_SHARED_END();
}

/* The queue's two words now; unless whole, only a done that changed is stored (and woken). */
static void publish_now_locked(struct xrma_core_dmaq *dmaq, bool whole)
{
	uint64_t done = dmaq->inflight_head ? dmaq->inflight_head->seq - 1 : dmaq->last_seq;

	xrma_lock_assert_held(&dmaq->lock);
	publish_word(dmaq->publish_posted, dmaq->last_seq);
	if (!whole && __atomic_load_n(dmaq->publish_done, __ATOMIC_RELAXED) == done)
		return;
	publish_word(dmaq->publish_done, done);
	/* Peers sleeping until done reaches their mark (core/rwin_fence.c). */
	if (dmaq->publish_changes && dmaq->publish_sleepers) {
		XRMA_PEER_SHARED_BEGIN();
		xrma_futex_bump(dmaq->publish_changes, dmaq->publish_sleepers);
		XRMA_PEER_SHARED_END();
	}
}

void xrma_core_fence_publish_locked(struct xrma_core_dmaq *dmaq)
{
	publish_now_locked(dmaq, false);
}

/* The end of a publication's use of its segment, if it had one. */
static void publish_release(struct xrma_core_seg *seg)
{
	if (seg)
		xrma_core_seg_busy_put(seg);
}

void xrma_core_fence_publish_drop(struct xrma_core_dmaq *dmaq)
{
	publish_release(dmaq->publish_seg);
	dmaq->publish_seg = NULL;
}

static int publish_check(struct xrma_seg *handle, size_t posted_offset, size_t done_offset,
			 struct xrma_core_seg **out)
{
	struct xrma_core_seg *seg;
	int ret;

	*out = NULL;
	if (!handle)
		return 0;
	ret = xrma_core_seg_busy_get(handle, &seg);
	if (ret)
		return ret;
	*out = seg;
	if (posted_offset % 8 || done_offset % 8)
		return -XRMA_EALIGN_OFFSET;
	if (posted_offset > seg->len || seg->len - posted_offset < 8 || done_offset > seg->len ||
	    seg->len - done_offset < 8)
		return -XRMA_ERANGE;
	if (posted_offset == done_offset)
		return -XRMA_EINVAL;

	if (!(seg->access & XRMA_ACCESS_LOCAL_WRITE))
		return -XRMA_EACCES;
	return 0;
}

int xrma_fence_publish(struct xrma_dmaq *handle, struct xrma_seg *local, size_t posted_offset,
		       size_t done_offset, uint32_t flags)
{
	struct xrma_core_seg *seg, *old;
	struct xrma_core_dmaq *dmaq;
	int ret;

	if (flags)
		return -XRMA_EINVAL;
	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	ret = publish_check(local, posted_offset, done_offset, &seg);
	if (ret) {
		publish_release(seg);
		xrma_handle_put(&dmaq->obj);
		return ret;
	}
	xrma_lock(&dmaq->lock);
	old = dmaq->publish_seg;
	dmaq->publish_seg = seg;
	if (seg) {
		dmaq->publish_posted = (uint64_t *)(void *)((char *)seg->addr + posted_offset);
		dmaq->publish_done = (uint64_t *)(void *)((char *)seg->addr + done_offset);
		publish_now_locked(dmaq, true);
	}
	xrma_unlock(&dmaq->lock);
	publish_release(old);
	xrma_handle_put(&dmaq->obj);
	return 0;
}

int xrma_core_fence_publish_wake(struct xrma_dmaq *handle, _Atomic uint32_t *changes,
				 const _Atomic uint32_t *sleepers)
{
	struct xrma_core_dmaq *dmaq;
	int ret;

	ret = xrma_core_dmaq_acquire(handle, &dmaq);
	if (ret)
		return ret;
	xrma_lock(&dmaq->lock);
	dmaq->publish_changes = changes;
	dmaq->publish_sleepers = (_Atomic uint32_t *)sleepers;
	xrma_unlock(&dmaq->lock);
	xrma_handle_put(&dmaq->obj);
	return 0;
}

/* The remote value: one atomic store where the provider has atomics, else a write. */
static void fire_remote(struct xrma_fence_signal *s)
{
	struct xrma_core_ctx *ctx = s->remote->ctx;
	struct iovec iov = { .iov_base = &s->remote_value, .iov_len = 8 };
	uint64_t old;

	/* A lost target has no one left to read the value: errors are dropped. */
	if ((ctx->caps.flags & XRMA_CAP_ATOMIC) && s->remote_offset % 8 == 0)
		(void)xrma_core_call_atomic(ctx, s->remote->remote_mem,
					    s->remote->base + s->remote_offset,
					    XRMA_ATOMIC_SWAP, s->remote_value, 0, &old);
	else
		(void)xrma_core_call_rma(ctx, XRMA_RMA_WRITE, s->remote->remote_mem,
					 s->remote->base + s->remote_offset, &iov, 1, XRMA_RMA_ORDERED);
}

struct xrma_fence_signal *xrma_core_fence_take_ready_locked(struct xrma_core_dmaq *dmaq)
{
	struct xrma_fence_signal *ready = NULL, **tail = &ready;

	xrma_lock_assert_held(&dmaq->lock);
	while (dmaq->signals && xrma_core_dmaq_mark_done_locked(dmaq, dmaq->signals->mark)) {
		struct xrma_fence_signal *s = dmaq->signals;

		dmaq->signals = s->next;
		s->next = NULL;
		*tail = s;
		tail = &s->next;
	}
	return ready;
}

void xrma_core_fence_fire(struct xrma_fence_signal *list)
{
	while (list) {
		struct xrma_fence_signal *s = list;

		list = s->next;
		if (s->local) {
			char *at = (char *)s->local->addr + s->local_offset;

			/* Release order: the transfers' data is visible before the value,
			 * and a poller sees the value whole where alignment allows. Peers
			 * poll the word too, through the provider (common/peer_shared.h). */
			XRMA_PEER_SHARED_BEGIN();
			if (s->local_offset % 8 == 0) {
				__atomic_store_n((uint64_t *)(void *)at, s->local_value, __ATOMIC_RELEASE);
			} else {
				atomic_thread_fence(memory_order_release);
				memcpy(at, &s->local_value, 8);
			}
			XRMA_PEER_SHARED_END();
		}
		if (s->remote)
			fire_remote(s);
		signal_drop_targets(s);
	}
}
