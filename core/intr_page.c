/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/intr_page.c: the trigger page of an interrupt (core/intr_page.h). The
 * ring is a shared futex word (common/futex.h), so owner and connector may live
 * in different processes mapping the same page.
 */
#include "core/intr_page.h"

#include "common/futex.h"
#include "common/killpoint.h"
#include "core/prov_call.h"

#include <string.h>
#include <xrma/errors.h>
#include <xrma/rseg.h>
#include <xrma/seg.h>

void xrma_intr_page_create(struct xrma_core_ctx *ctx, struct xrma_intr_page_local *local)
{
	const uint32_t remote = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	void *addr;

	memset(local, 0, sizeof(*local));
	if (!(ctx->caps.flags & XRMA_CAP_MAP) || !(ctx->caps.flags & XRMA_CAP_ATOMIC))
		return;
	local->len = xrma_intr_page_len(ctx->caps.page_size);
	if (xrma_core_call_mem_alloc(ctx, local->len, &local->mem, &addr))
		return;
	/* Zeroed by the provider; slot i is free for position i. */
	for (uint64_t i = 0; i < XRMA_INTR_PAGE_SLOTS; i++)
		atomic_init(&((struct xrma_intr_page *)addr)->slots[i].seq, i);
	if (xrma_core_call_mem_export(ctx, local->mem, remote, &local->key)) {
		xrma_core_call_mem_free(ctx, local->mem);
		local->mem = NULL;
		return;
	}
	local->page = addr;
}

void xrma_intr_page_destroy(struct xrma_core_ctx *ctx, struct xrma_intr_page_local *local)
{
	if (!local->mem)
		return;
	xrma_core_call_mem_unexport(ctx, local->mem);
	xrma_core_call_mem_free(ctx, local->mem);
	local->mem = NULL;
	local->page = NULL;
}

void xrma_intr_page_set_flag(struct xrma_intr_page *page, uint32_t flag, bool on)
{
	if (on)
		atomic_fetch_or_explicit(&page->flags, flag, memory_order_seq_cst);
	else
		atomic_fetch_and_explicit(&page->flags, ~flag, memory_order_seq_cst);
}

void xrma_intr_page_kick(struct xrma_intr_page *page)
{
	xrma_futex_bump(&page->ring, &page->sleepers);
}

int xrma_intr_page_sleep(struct xrma_intr_page *page, uint32_t seen, const struct xrma_deadline *d)
{
	return xrma_futex_sleep(&page->ring, seen, &page->sleepers, d);
}

void xrma_intr_page_attach(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *owner,
			   const void *key, size_t key_len, size_t len,
			   struct xrma_intr_page_remote *remote)
{
	const uint32_t access = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	struct xrma_prov_key k;

	memset(remote, 0, sizeof(*remote));
	if (!(ctx->caps.flags & XRMA_CAP_MAP) || !key_len || key_len > XRMA_PROV_KEY_MAX ||
	    len != xrma_intr_page_len(ctx->caps.page_size))
		return;
	memset(&k, 0, sizeof(k));
	k.len = (uint32_t)key_len;
	memcpy(k.bytes, key, key_len);
	if (xrma_core_call_mem_import(ctx, owner, &k, len, access, &remote->rmem))
		return;
	if (xrma_core_call_map(ctx, remote->rmem, 0, len, XRMA_MAP_READ | XRMA_MAP_WRITE, &remote->map)) {
		xrma_core_call_mem_unimport(ctx, remote->rmem);
		remote->rmem = NULL;
		return;
	}
	remote->page = remote->map;
}

void xrma_intr_page_detach(struct xrma_core_ctx *ctx, struct xrma_intr_page_remote *remote)
{
	if (!remote->rmem)
		return;
	xrma_core_call_unmap(ctx, remote->rmem, remote->map, xrma_intr_page_len(ctx->caps.page_size));
	xrma_core_call_mem_unimport(ctx, remote->rmem);
	remote->rmem = NULL;
	remote->page = NULL;
}

enum xrma_intr_page_result xrma_intr_page_trigger(struct xrma_intr_page *page)
{
	uint32_t flags = atomic_load_explicit(&page->flags, memory_order_seq_cst);

	if (flags & XRMA_INTR_PAGE_CLOSED)
		return XRMA_INTR_PAGE_GONE;
	if (flags & XRMA_INTR_PAGE_CALLBACK)
		return XRMA_INTR_PAGE_USE_MESSAGE;
	atomic_fetch_add_explicit(&page->count, 1, memory_order_seq_cst);
	xrma_intr_page_kick(page);
	/*
	 * A callback set between our two loads would never hear of this count:
	 * the owner checks the count after setting the flag, and we check the flag
	 * after counting, so one of us sees the other (both seq_cst).
	 */
	if (atomic_load_explicit(&page->flags, memory_order_seq_cst) & XRMA_INTR_PAGE_CALLBACK)
		return XRMA_INTR_PAGE_COUNTED_KICK;
	return XRMA_INTR_PAGE_DONE;
}

/*
 * Take the position the queue's tail is at, or false when the slots are full
 * or the owner's queue (its list and the filled slots) is at its depth.
 */
static bool slot_claim(struct xrma_intr_page *page, uint64_t *pos_out)
{
	uint64_t pos = atomic_load_explicit(&page->data_tail, memory_order_relaxed);

	/* Bounded: the page is writable by every connector, and one may write nonsense. */
	for (int tries = 0; tries < 64; tries++) {
		struct xrma_intr_slot *slot = &page->slots[pos % XRMA_INTR_PAGE_SLOTS];
		uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
		uint64_t head = atomic_load_explicit(&page->data_head, memory_order_relaxed);

		if (atomic_load_explicit(&page->queued, memory_order_relaxed) + (pos - head) >=
		    XRMA_INTR_QUEUE_DEPTH)
			return false;
		if (seq == pos) {
			if (atomic_compare_exchange_weak_explicit(&page->data_tail, &pos, pos + 1,
								  memory_order_relaxed, memory_order_relaxed)) {
				*pos_out = pos;
				return true;
			}
			continue;   /* pos now holds the tail another connector moved */
		}
		/* Not yet consumed a round ago, or skipped and still being written: full. */
		if ((seq & XRMA_INTR_SLOT_SKIPPED) || seq < pos)
			return false;
		pos = atomic_load_explicit(&page->data_tail, memory_order_relaxed);
	}
	return false;
}

enum xrma_intr_page_result xrma_intr_page_trigger_data(struct xrma_intr_page *page, const void *data,
						      size_t len)
{
	/* A connector whose slot the owner skipped tries again, a few times. */
	for (int attempt = 0; attempt < 4; attempt++) {
		uint32_t flags = atomic_load_explicit(&page->flags, memory_order_seq_cst);
		struct xrma_intr_slot *slot;
		uint64_t pos, filling;

		if (flags & XRMA_INTR_PAGE_CLOSED)
			return XRMA_INTR_PAGE_GONE;
		if ((flags & XRMA_INTR_PAGE_CALLBACK) || !slot_claim(page, &pos))
			return XRMA_INTR_PAGE_USE_MESSAGE;
		slot = &page->slots[pos % XRMA_INTR_PAGE_SLOTS];
		XRMA_KILL_POINT("core.intr.slot_taken");
		memcpy(slot->data, data, len);
		atomic_store_explicit(&slot->len, (uint32_t)len, memory_order_relaxed);
		filling = pos;
		if (!atomic_compare_exchange_strong_explicit(&slot->seq, &filling, pos + 1,
							     memory_order_seq_cst, memory_order_relaxed)) {
			/* Skipped while we wrote: nobody else uses the slot until we free it. */
			atomic_store_explicit(&slot->seq, pos + XRMA_INTR_PAGE_SLOTS, memory_order_release);
			continue;
		}
		xrma_intr_page_kick(page);
		/* As for a plain trigger: a callback set meanwhile must hear of this one. */
		if (atomic_load_explicit(&page->flags, memory_order_seq_cst) & XRMA_INTR_PAGE_CALLBACK)
			return XRMA_INTR_PAGE_COUNTED_KICK;
		return XRMA_INTR_PAGE_DONE;
	}
	return XRMA_INTR_PAGE_USE_MESSAGE;
}
