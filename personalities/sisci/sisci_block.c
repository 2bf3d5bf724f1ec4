/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_block.c: block transfers between two maps (spec
 * §2.5, digest §5.5). Both maps are mapped memory, so the most efficient way is
 * a CPU copy; the asynchronous form copies on its own thread in chunks so that
 * SCIAbortBlockTransfer takes effect. A transfer's handle dies when it
 * completes (without callback) or when its callback returns; a stale block
 * handle is SCI_ERR_ILLEGAL_OPERATION, as the spec requires. A remote map whose
 * peer is lost, or whose copy had a transaction error, fails the transfer with
 * SCI_ERR_TRANSFER_FAILED; what a failed read put into a local map is then
 * overwritten with the untrusted pattern.
 */
#include "personalities/sisci/sisci.h"

#include <stdlib.h>
#include <string.h>
#include "common/errno_keep.h"

#define BLOCK_CHUNK (256u * 1024u)

struct xrma_sisci_block {
	struct xrma_sisci_obj obj;
	struct xrma_sisci_map *src, *dst;   /* entered: referenced and in use */
	char *from, *to;
	size_t size;
	sci_cb_block_transfer_t cb;         /* NULL: no callback */
	void *cb_arg;
	pthread_mutex_t lock;               /* guards done, status, abort */
	pthread_cond_t cond;
	bool done, abort;
	sci_error_t status;
};

static void block_destroy(struct xrma_sisci_obj *obj)
{
	struct xrma_sisci_block *b = (struct xrma_sisci_block *)obj;

	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

/* Validate both maps and the ranges; on success both maps are entered (in use). */
static sci_error_t block_check(sci_map_t sourceMap, size_t sourceOffset, sci_map_t destinationMap,
			       size_t destinationOffset, size_t size, struct xrma_sisci_map **src,
			       struct xrma_sisci_map **dst)
{
	sci_error_t err = SCI_ERR_OK;

	*src = xrma_sisci_map_enter(sourceMap);
	*dst = xrma_sisci_map_enter(destinationMap);
	if (!*src || !*dst)
		err = SCI_ERR_ILLEGAL_PARAMETER;
	else if (!size)
		err = SCI_ERR_SIZE_ALIGNMENT;
	else if (sourceOffset > (*src)->size || size > (*src)->size - sourceOffset ||
		 destinationOffset > (*dst)->size || size > (*dst)->size - destinationOffset)
		err = SCI_ERR_OUT_OF_RANGE;
	else if ((*dst)->readonly)
		err = SCI_ERR_ILLEGAL_OPERATION;
	if (err != SCI_ERR_OK) {
		if (*src)
			xrma_sisci_map_leave(*src);
		if (*dst)
			xrma_sisci_map_leave(*dst);
	}
	return err;
}

/* A remote map is healthy when its segment is usable and the copy, a check
 * point of mapped accesses, had no transaction error. */
static bool map_healthy(struct xrma_sisci_map *m)
{
	return !m->rseg || xrma_sisci_rseg_checkpoint(m->rseg);
}

/* The copy to `to` of size bytes ended: its result. Bytes read through a failed
 * remote source are not left in local memory looking good. */
static sci_error_t copy_result(struct xrma_sisci_map *src, struct xrma_sisci_map *dst, void *to,
			       size_t size)
{
	bool src_ok, dst_ok;

	xrma_sisci_barrier();
	/* Into a broadcast map: the block is in every member when the transfer ends. */
	(void)xrma_sisci_map_push(dst);
	src_ok = map_healthy(src);
	dst_ok = map_healthy(dst);
	if (!src_ok && dst->lseg)
		memset(to, XRMA_SISCI_UNTRUSTED_BYTE, size);
	return src_ok && dst_ok ? SCI_ERR_OK : SCI_ERR_TRANSFER_FAILED;
}

void SCITransferBlock(sci_map_t sourceMap, size_t sourceOffset, sci_map_t destinationMap,
		      size_t destinationOffset, size_t size, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_map *src, *dst;
	sci_error_t err = xrma_sisci_flags(flags, 0, 0);

	if (err == SCI_ERR_OK)
		err = block_check(sourceMap, sourceOffset, destinationMap, destinationOffset, size, &src,
				  &dst);
	if (err == SCI_ERR_OK) {
		memmove((char *)dst->addr + destinationOffset, (char *)src->addr + sourceOffset, size);
		err = copy_result(src, dst, (char *)dst->addr + destinationOffset, size);
		xrma_sisci_map_leave(src);
		xrma_sisci_map_leave(dst);
	}
	xrma_sisci_set(error, err);
}

/* The transfer no longer uses its maps. */
static void block_release_maps(struct xrma_sisci_block *b)
{
	xrma_sisci_map_leave(b->src);
	xrma_sisci_map_leave(b->dst);
}

static void *block_main(void *arg)
{
	struct xrma_sisci_block *b = arg;
	sci_error_t status = SCI_ERR_OK;

	for (size_t done = 0; done < b->size;) {
		size_t n = b->size - done < BLOCK_CHUNK ? b->size - done : BLOCK_CHUNK;
		bool abort;

		pthread_mutex_lock(&b->lock);
		abort = b->abort;
		pthread_mutex_unlock(&b->lock);
		if (abort) {
			status = SCI_ERR_CANCELLED;
			break;
		}
		memmove(b->to + done, b->from + done, n);
		done += n;
	}
	if (status == SCI_ERR_OK)
		status = copy_result(b->src, b->dst, b->to, b->size);
	/*
	 * The maps are free before anyone hears of the end: a waiter, or the callback, may
	 * unmap them at once. Without a callback the handle is dead by then too (a second
	 * wait or an abort is ILLEGAL_OPERATION); a waiter already inside holds its own
	 * reference.
	 */
	block_release_maps(b);
	if (!b->cb)
		xrma_sisci_obj_kill(&b->obj);
	pthread_mutex_lock(&b->lock);
	b->done = true;
	b->status = status;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
	/* With one, the handle stays valid until the callback has returned (spec §2.1.2). */
	if (b->cb) {
		(void)b->cb(b->cb_arg, b->obj.handle, status);
		xrma_sisci_obj_kill(&b->obj);
	}
	xrma_sisci_obj_put(&b->obj);
	return NULL;
}

void SCITransferBlockAsync(sci_map_t sourceMap, size_t sourceOffset, sci_map_t destinationMap,
			   size_t destinationOffset, size_t size, sci_block_transfer_t *block,
			   sci_cb_block_transfer_t callback, void *callbackArg, unsigned int flags,
			   sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_map *src, *dst;
	struct xrma_sisci_block *b = NULL;
	pthread_t thread;
	sci_error_t err = xrma_sisci_flags(flags, SCI_FLAG_USE_CALLBACK, 0);

	if (err == SCI_ERR_OK && (!block || ((flags & SCI_FLAG_USE_CALLBACK) && !callback)))
		err = SCI_ERR_ILLEGAL_PARAMETER;
	if (err == SCI_ERR_OK)
		err = block_check(sourceMap, sourceOffset, destinationMap, destinationOffset, size, &src,
				  &dst);
	if (err != SCI_ERR_OK) {
		xrma_sisci_set(error, err);
		return;
	}
	if (!(b = calloc(1, sizeof(*b)))) {
		err = SCI_ERR_NOSPC;
		goto err_put;
	}
	b->src = src;
	b->dst = dst;
	b->from = (char *)src->addr + sourceOffset;
	b->to = (char *)dst->addr + destinationOffset;
	b->size = size;
	b->cb = (flags & SCI_FLAG_USE_CALLBACK) ? callback : NULL;
	b->cb_arg = callbackArg;
	pthread_mutex_init(&b->lock, NULL);
	xrma_sisci_cond_init(&b->cond);
	err = xrma_sisci_obj_publish(&b->obj, XRMA_SISCI_BLOCK, block_destroy);
	if (err != SCI_ERR_OK) {
		block_destroy(&b->obj);
		goto err_put;
	}
	*block = b->obj.handle;
	xrma_sisci_obj_ref(&b->obj); /* the copy thread's */
	if (pthread_create(&thread, NULL, block_main, b)) {
		/* Run it here instead: the caller still gets a transfer that completes. */
		block_main(b);
	} else {
		pthread_detach(thread);
	}
	xrma_sisci_set(error, SCI_ERR_OK);
	return;

err_put:
	xrma_sisci_map_leave(src);
	xrma_sisci_map_leave(dst);
	xrma_sisci_set(error, err);
}

/* A stale block handle means the transfer has completed: ILLEGAL_OPERATION (§3). */
static struct xrma_sisci_block *block_get(sci_block_transfer_t block)
{
	return XRMA_SISCI_GET(block, XRMA_SISCI_BLOCK, struct xrma_sisci_block);
}

void SCIWaitForBlockTransfer(sci_block_transfer_t block, unsigned int timeout, unsigned int flags,
			     sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct timespec deadline = xrma_sisci_deadline(timeout);
	/* Flags first, as everywhere: a bad flag is reported whatever the handle. */
	sci_error_t err = xrma_sisci_flags(flags, 0, 0);
	struct xrma_sisci_block *b = err == SCI_ERR_OK ? block_get(block) : NULL;

	if (!b) {
		xrma_sisci_set(error, err == SCI_ERR_OK ? SCI_ERR_ILLEGAL_OPERATION : err);
		return;
	}
	if (b->cb)
		err = SCI_ERR_ILLEGAL_OPERATION;
	if (err == SCI_ERR_OK) {
		pthread_mutex_lock(&b->lock);
		while (!b->done && !xrma_sisci_cond_wait(&b->cond, &b->lock,
							  timeout == SCI_INFINITE_TIMEOUT ? NULL : &deadline))
			;
		err = b->done ? b->status : SCI_ERR_TIMEOUT;
		pthread_mutex_unlock(&b->lock);
	}
	xrma_sisci_obj_put(&b->obj);
	xrma_sisci_set(error, err);
}

void SCIAbortBlockTransfer(sci_block_transfer_t block, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	sci_error_t err = xrma_sisci_flags(flags, 0, 0);
	struct xrma_sisci_block *b = err == SCI_ERR_OK ? block_get(block) : NULL;

	if (!b) {
		xrma_sisci_set(error, err == SCI_ERR_OK ? SCI_ERR_ILLEGAL_OPERATION : err);
		return;
	}
	pthread_mutex_lock(&b->lock);
	if (b->done)
		err = SCI_ERR_ILLEGAL_OPERATION;
	else
		b->abort = true;
	pthread_mutex_unlock(&b->lock);
	xrma_sisci_obj_put(&b->obj);
	xrma_sisci_set(error, err);
}
