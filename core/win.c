/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/win.c: registered address spaces (xrma/win.h): placement of windows,
 * removal that waits for holders (deferred deletion), and holds that turn an
 * offset range spanning adjacent windows into a local I/O vector. A window
 * keeps its segment busy, so the memory behind it cannot go away.
 */
#include "core/win.h"

#include <stdlib.h>
#include <xrma/errors.h>
#include "core/ctx.h"
#include "core/seg.h"

struct xrma_win_entry {
	uint64_t offset;
	size_t len;
	struct xrma_core_seg *seg;          /* referenced and busy */
	size_t seg_offset;
	uint32_t prot;
	bool removed;                       /* deferred: unusable, range still taken */
	size_t hold_count;
	struct xrma_win_entry *next;
};

static void entry_free(struct xrma_win_entry *e)
{
	xrma_core_seg_busy_put(e->seg);
	free(e);
}

/* Unlink e (lock held) and free it. */
static void entry_drop_locked(struct xrma_core_win *win, struct xrma_win_entry *e)
{
	for (struct xrma_win_entry **pp = &win->entries; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	}
	entry_free(e);
}

static void win_destroy(struct xrma_obj *obj)
{
	struct xrma_core_win *win = (struct xrma_core_win *)obj;
	struct xrma_core_ctx *ctx = win->ctx;

	while (win->entries) {
		struct xrma_win_entry *e = win->entries;

		win->entries = e->next;
		entry_free(e);
	}
	xrma_lock_destroy(&win->lock);
	free(win);
	xrma_core_ctx_child_destroyed(ctx);
}

static inline int win_acquire(const void *handle, struct xrma_core_win **win)
{
	return XRMA_HANDLE_GET(handle, XRMA_OBJ_WIN, struct xrma_core_win, *win);
}

int xrma_win_open(struct xrma_ctx *handle, uint32_t flags, struct xrma_win **out)
{
	struct xrma_core_ctx *ctx;
	struct xrma_core_win *win;
	int ret;

	if (!out)
		return -XRMA_EINVAL;
	*out = NULL;
	if (flags)
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	win = calloc(1, sizeof(*win));
	if (!win) {
		ret = -XRMA_ENOMEM;
		goto err_put_ctx;
	}
	win->ctx = ctx;
	xrma_lock_init(&win->lock);
	ret = xrma_core_ctx_child_open(ctx);
	if (ret)
		goto err_free;
	ret = xrma_handle_alloc(&win->obj, XRMA_OBJ_WIN, win_destroy);
	if (ret)
		goto err_child;
	*out = win->obj.handle;
	xrma_handle_put(&ctx->obj);
	return 0;

err_child:
	xrma_core_ctx_child_killed(ctx);
	xrma_core_ctx_child_destroyed(ctx);
err_free:
	xrma_lock_destroy(&win->lock);
	free(win);
err_put_ctx:
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_win_close(struct xrma_win *handle)
{
	struct xrma_core_win *win;
	int ret;

	ret = win_acquire(handle, &win);
	if (ret)
		return ret;
	xrma_lock(&win->lock);
	ret = win->holds ? -XRMA_EBUSY : 0;
	xrma_unlock(&win->lock);
	if (!ret) {
		ret = xrma_handle_kill(&win->obj);
		if (!ret)
			xrma_core_ctx_child_killed(win->ctx);
	}
	xrma_handle_put(&win->obj);
	return ret;
}

static int check_add(const struct xrma_core_win *win, const struct xrma_core_seg *seg, size_t seg_offset,
		     size_t len, uint64_t offset, uint32_t prot, uint32_t flags)
{
	size_t page = win->ctx->caps.page_size;

	if (!len || !prot || (prot & ~(XRMA_WIN_PROT_READ | XRMA_WIN_PROT_WRITE)) ||
	    (flags & ~XRMA_WIN_FIXED))
		return -XRMA_EINVAL;
	if (((flags & XRMA_WIN_FIXED) && offset % page) || seg_offset % page ||
	    (uintptr_t)seg->addr % page)
		return -XRMA_EALIGN_OFFSET;
	if (len % page)
		return -XRMA_EALIGN_SIZE;
	if (seg_offset > seg->len || len > seg->len - seg_offset || len > XRMA_WIN_OFFSET_LIMIT ||
	    ((flags & XRMA_WIN_FIXED) && offset > XRMA_WIN_OFFSET_LIMIT - len))
		return -XRMA_ERANGE;
	if (((prot & XRMA_WIN_PROT_READ) && !(seg->access & XRMA_ACCESS_LOCAL_READ)) ||
	    ((prot & XRMA_WIN_PROT_WRITE) && !(seg->access & XRMA_ACCESS_LOCAL_WRITE)))
		return -XRMA_EACCES;
	return 0;
}

/* Where [offset, offset+len) can go: *link is the list position to insert at. */
static int place_locked(struct xrma_core_win *win, uint64_t *offset, size_t len, bool fixed,
			struct xrma_win_entry ***link)
{
	size_t page = win->ctx->caps.page_size;
	uint64_t at = fixed ? *offset : (*offset + page - 1) & ~(uint64_t)(page - 1);
	struct xrma_win_entry **pp = &win->entries;

	if (at < *offset) /* the hint rounded past the end */
		return -XRMA_ENOSPC;
	while (*pp && (*pp)->offset + (*pp)->len <= at)
		pp = &(*pp)->next;
	if (fixed) {
		if (*pp && (*pp)->offset < at + len)
			return -XRMA_EADDRINUSE;
	} else {
		/* First gap at or above the hint that holds len bytes. */
		while (*pp && (*pp)->offset < at + len) {
			at = (*pp)->offset + (*pp)->len;
			pp = &(*pp)->next;
		}
		if (at > XRMA_WIN_OFFSET_LIMIT - len)
			return -XRMA_ENOSPC;
	}
	*offset = at;
	*link = pp;
	return 0;
}

int xrma_win_add(struct xrma_win *handle, struct xrma_seg *seg_handle, size_t seg_offset, size_t len,
		 uint64_t offset, uint32_t prot, uint32_t flags, uint64_t *placed)
{
	struct xrma_core_win *win;
	struct xrma_core_seg *seg;
	struct xrma_win_entry *e, **link;
	int ret;

	if (!placed)
		return -XRMA_EINVAL;
	ret = win_acquire(handle, &win);
	if (ret)
		return ret;
	ret = xrma_core_seg_acquire(seg_handle, &seg);
	if (ret)
		goto out_put_win;
	ret = check_add(win, seg, seg_offset, len, offset, prot, flags);
	if (ret)
		goto err_put_seg;
	e = calloc(1, sizeof(*e));
	if (!e) {
		ret = -XRMA_ENOMEM;
		goto err_put_seg;
	}
	xrma_lock(&win->lock);
	ret = place_locked(win, &offset, len, flags & XRMA_WIN_FIXED, &link);
	if (!ret) {
		*e = (struct xrma_win_entry){ .offset = offset, .len = len, .seg = seg,
					      .seg_offset = seg_offset, .prot = prot, .next = *link };
		*link = e;
		win->live++;
		xrma_ref_get(&seg->busy);
		*placed = offset;
	}
	xrma_unlock(&win->lock);
	if (ret) {
		free(e);
		goto err_put_seg;
	}
	xrma_handle_put(&win->obj);
	return 0; /* the segment reference now belongs to the window */

err_put_seg:
	xrma_handle_put(&seg->obj);
out_put_win:
	xrma_handle_put(&win->obj);
	return ret;
}

/* Whether removing [offset, end) may go ahead: it cuts no window and holds at least one. */
static int remove_check_locked(const struct xrma_core_win *win, uint64_t offset, uint64_t end)
{
	size_t found = 0;

	for (const struct xrma_win_entry *e = win->entries; e; e = e->next) {
		if (e->removed || e->offset + e->len <= offset || e->offset >= end)
			continue;
		if (e->offset < offset || e->offset + e->len > end)
			return -XRMA_EINVAL;
		found++;
	}
	return found ? 0 : -XRMA_ENXIO;
}

int xrma_win_can_remove(struct xrma_win *handle, uint64_t offset, size_t len)
{
	struct xrma_core_win *win;
	int ret;

	if (!len || offset > UINT64_MAX - len)
		return -XRMA_EINVAL;
	ret = win_acquire(handle, &win);
	if (ret)
		return ret;
	xrma_lock(&win->lock);
	ret = remove_check_locked(win, offset, offset + len);
	xrma_unlock(&win->lock);
	xrma_handle_put(&win->obj);
	return ret;
}

int xrma_win_remove(struct xrma_win *handle, uint64_t offset, size_t len)
{
	struct xrma_core_win *win;
	uint64_t end;
	int ret;

	if (!len || offset > UINT64_MAX - len)
		return -XRMA_EINVAL;
	end = offset + len;
	ret = win_acquire(handle, &win);
	if (ret)
		return ret;
	xrma_lock(&win->lock);
	/* Decide first; nothing changes unless the whole call succeeds. */
	ret = remove_check_locked(win, offset, end);
	for (struct xrma_win_entry *e = win->entries, *next; !ret && e; e = next) {
		next = e->next;
		if (e->removed || e->offset < offset || e->offset + e->len > end)
			continue;
		win->live--;
		if (e->hold_count) {
			e->removed = true;
			win->deferred++;
		} else {
			entry_drop_locked(win, e);
		}
	}
	xrma_unlock(&win->lock);
	xrma_handle_put(&win->obj);
	return ret;
}

static void hold_destroy(struct xrma_obj *obj)
{
	struct xrma_core_win_hold *hold = (struct xrma_core_win_hold *)obj;
	struct xrma_core_win *win = hold->win;
	struct xrma_core_ctx *ctx = win->ctx;

	xrma_lock(&win->lock);
	for (size_t i = 0; i < hold->count; i++) {
		struct xrma_win_entry *e = hold->entries[i];

		if (--e->hold_count == 0 && e->removed) {
			win->deferred--;
			entry_drop_locked(win, e);
		}
	}
	win->holds--;
	xrma_unlock(&win->lock);
	xrma_handle_put(&win->obj);
	free(hold);
	xrma_core_ctx_child_destroyed(ctx);
}

/* Collect the live windows covering [offset, end) in order (lock held). */
static int cover_locked(struct xrma_core_win *win, uint64_t offset, uint64_t end, uint32_t prot,
			struct xrma_win_entry **out, size_t max, size_t *count)
{
	uint64_t at = offset;
	size_t n = 0;

	for (struct xrma_win_entry *e = win->entries; e && at < end; e = e->next) {
		if (e->offset + e->len <= at)
			continue;
		if (e->offset > at || e->removed)
			return -XRMA_ENXIO;
		if ((e->prot & prot) != prot)
			return -XRMA_EACCES;
		if (n == max)
			return -XRMA_ENOSPC;
		out[n++] = e;
		at = e->offset + e->len;
	}
	if (at < end)
		return -XRMA_ENXIO;
	*count = n;
	return 0;
}

int xrma_win_hold(struct xrma_win *handle, uint64_t offset, size_t len, uint32_t prot,
		  struct xrma_iov *iov, size_t max, size_t *count, struct xrma_win_hold **out)
{
	struct xrma_core_win *win;
	struct xrma_core_win_hold *hold;
	uint64_t end;
	size_t n;
	int ret;

	if (!out || !count || !iov || !max || !len || !prot ||
	    (prot & ~(XRMA_WIN_PROT_READ | XRMA_WIN_PROT_WRITE)) || offset > UINT64_MAX - len)
		return -XRMA_EINVAL;
	*out = NULL;
	end = offset + len;
	ret = win_acquire(handle, &win);
	if (ret)
		return ret;
	hold = calloc(1, sizeof(*hold) + max * sizeof(hold->entries[0]));
	if (!hold) {
		xrma_handle_put(&win->obj);
		return -XRMA_ENOMEM;
	}
	hold->win = win;
	ret = xrma_core_ctx_child_open(win->ctx);
	if (ret)
		goto err_free;
	xrma_lock(&win->lock);
	ret = cover_locked(win, offset, end, prot, hold->entries, max, &n);
	if (!ret) {
		hold->count = n;
		for (size_t i = 0; i < n; i++) {
			struct xrma_win_entry *e = hold->entries[i];
			uint64_t from = offset > e->offset ? offset : e->offset;
			uint64_t to = end < e->offset + e->len ? end : e->offset + e->len;

			e->hold_count++;
			iov[i] = (struct xrma_iov){ .seg = e->seg->obj.handle,
						    .offset = e->seg_offset + (size_t)(from - e->offset),
						    .len = (size_t)(to - from) };
		}
		win->holds++;
	}
	xrma_unlock(&win->lock);
	if (ret)
		goto err_child;
	/* The hold keeps the space alive; its destructor drops this reference. */
	ret = xrma_handle_alloc(&hold->obj, XRMA_OBJ_WIN_HOLD, hold_destroy);
	if (ret) {
		xrma_core_ctx_child_killed(win->ctx);
		hold_destroy(&hold->obj);
		return ret;
	}
	*count = n;
	*out = hold->obj.handle;
	return 0;

err_child:
	xrma_core_ctx_child_killed(win->ctx);
	xrma_core_ctx_child_destroyed(win->ctx);
err_free:
	free(hold);
	xrma_handle_put(&win->obj);
	return ret;
}

int xrma_win_release(struct xrma_win_hold *handle)
{
	struct xrma_core_win_hold *hold;
	int ret;

	ret = XRMA_HANDLE_GET(handle, XRMA_OBJ_WIN_HOLD, struct xrma_core_win_hold, hold);
	if (ret)
		return ret;
	ret = xrma_handle_kill(&hold->obj);
	if (!ret)
		xrma_core_ctx_child_killed(hold->win->ctx);
	xrma_handle_put(&hold->obj);
	return ret;
}

int xrma_win_count(struct xrma_win *handle, size_t *live, size_t *deferred)
{
	struct xrma_core_win *win;
	int ret;

	if (!live || !deferred)
		return -XRMA_EINVAL;
	ret = win_acquire(handle, &win);
	if (ret)
		return ret;
	xrma_lock(&win->lock);
	*live = win->live;
	*deferred = win->deferred;
	xrma_unlock(&win->lock);
	xrma_handle_put(&win->obj);
	return 0;
}
