/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/intr_page.c: the trigger page of an interrupt (core/intr_page.h). The
 * futex is the shared (not private) kind, so owner and connector may live in
 * different processes mapping the same page.
 */
#include "core/intr_page.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <xrma/errors.h>
#include <xrma/rseg.h>
#include <xrma/seg.h>

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

void xrma_intr_page_create(struct xrma_core_ctx *ctx, struct xrma_intr_page_local *local)
{
	const uint32_t remote = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	void *addr;

	memset(local, 0, sizeof(*local));
	if (!(ctx->caps.flags & XRMA_CAP_MAP) || !(ctx->caps.flags & XRMA_CAP_ATOMIC))
		return;
	local->len = ctx->caps.page_size;
	if (XRMA_PROV_CALL(ctx, mem_alloc, local->len, &local->mem, &addr))
		return;
	if (XRMA_PROV_CALL(ctx, mem_export, local->mem, remote, &local->key)) {
		ctx->prov->ops->mem_free(ctx->prov_state, local->mem);
		local->mem = NULL;
		return;
	}
	local->page = addr;   /* zeroed by the provider */
}

void xrma_intr_page_destroy(struct xrma_core_ctx *ctx, struct xrma_intr_page_local *local)
{
	if (!local->mem)
		return;
	ctx->prov->ops->mem_unexport(ctx->prov_state, local->mem);
	ctx->prov->ops->mem_free(ctx->prov_state, local->mem);
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
	atomic_fetch_add_explicit(&page->ring, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&page->sleepers, memory_order_seq_cst))
		futex(&page->ring, FUTEX_WAKE, INT_MAX, NULL);
}

int xrma_intr_page_sleep(struct xrma_intr_page *page, uint32_t seen, const struct xrma_deadline *d)
{
	struct timespec rel, *ts = NULL;
	int left = xrma_deadline_remaining_ms(d);

	if (left == 0)
		return -XRMA_ETIMEDOUT;
	if (left > 0) {
		rel.tv_sec = left / 1000;
		rel.tv_nsec = (long)(left % 1000) * 1000000L;
		ts = &rel;
	}
	atomic_fetch_add_explicit(&page->sleepers, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&page->ring, memory_order_seq_cst) == seen)
		futex(&page->ring, FUTEX_WAIT, seen, ts);
	atomic_fetch_sub_explicit(&page->sleepers, 1, memory_order_seq_cst);
	return 0;   /* the caller re-checks, and its deadline tells a timeout */
}

void xrma_intr_page_attach(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *owner,
			   const void *key, size_t key_len, size_t len,
			   struct xrma_intr_page_remote *remote)
{
	const uint32_t access = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	struct xrma_prov_key k;

	memset(remote, 0, sizeof(*remote));
	if (!(ctx->caps.flags & XRMA_CAP_MAP) || !key_len || key_len > XRMA_PROV_KEY_MAX ||
	    len != ctx->caps.page_size)
		return;
	memset(&k, 0, sizeof(k));
	k.len = (uint32_t)key_len;
	memcpy(k.bytes, key, key_len);
	if (XRMA_PROV_CALL(ctx, mem_import, owner, &k, len, access, &remote->rmem))
		return;
	if (XRMA_PROV_CALL(ctx, map, remote->rmem, 0, len, XRMA_MAP_READ | XRMA_MAP_WRITE, &remote->map)) {
		ctx->prov->ops->mem_unimport(ctx->prov_state, remote->rmem);
		remote->rmem = NULL;
		return;
	}
	remote->page = remote->map;
}

void xrma_intr_page_detach(struct xrma_core_ctx *ctx, struct xrma_intr_page_remote *remote)
{
	if (!remote->rmem)
		return;
	ctx->prov->ops->unmap(ctx->prov_state, remote->rmem, remote->map, ctx->caps.page_size);
	ctx->prov->ops->mem_unimport(ctx->prov_state, remote->rmem);
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
