/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/dmaq.h: DMA queues and remote memory access.
 * A queue carries RMA reads and writes between I/O vectors of local segments and
 * one contiguous range of a remote segment, with uDAPL dat_ep_post_rdma_read
 * semantics: the vector is filled strictly in order (leading entries complete,
 * at most one partial, the rest untouched), a user cookie (opaque, not unique)
 * comes back in the completion, and completion flags suppress successes or
 * notification, or fence an operation behind every earlier one.
 * Everything checkable locally is checked at post time, with no side effect.
 */
#ifndef XRMA_DMAQ_H
#define XRMA_DMAQ_H

#include <stddef.h>
#include <stdint.h>
#include <xrma/api.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;
struct xrma_seg;
struct xrma_rseg;
struct xrma_dmaq;

/* One piece of local memory: [offset, offset+len) of seg. */
struct xrma_iov {
	struct xrma_seg *seg;
	size_t offset;
	size_t len;
};

#define XRMA_IOV_MAX 64  /* entries per operation */

enum xrma_rma_op {
	XRMA_RMA_READ = 1,   /* remote -> local vector */
	XRMA_RMA_WRITE,      /* local vector -> remote */
};

/* Queue flags (xrma_dmaq_open). */
#define XRMA_DMAQ_UNSIGNALLED (1u << 0)  /* allows XRMA_RMA_UNSIGNALLED posts */

/* Operation flags; the low bits are DAT's completion flag values. */
#define XRMA_RMA_SUPPRESS    0x01u   /* no completion entry on success */
#define XRMA_RMA_UNSIGNALLED 0x04u   /* entry without wake-up (queue must allow it) */
#define XRMA_RMA_FENCE       0x08u   /* start only after every earlier op completed */
#define XRMA_RMA_SYNC        0x100u  /* return only when done; the result is the return
				       * value and no completion entry is made */
#define XRMA_RMA_ORDERED     0x200u  /* the last byte of the transfer lands last */

struct xrma_completion {
	uint64_t cookie;
	int status;          /* 0 or XRMA_E*: ECANCELED (aborted), ELOST, ECONNRESET,
			      * ETRANSFER, EACCES (remote rights) */
	enum xrma_rma_op op;
	size_t len;          /* bytes moved; meaningful when status is 0 */
};

/*
 * Open a queue holding up to depth outstanding operations (1..65536).
 * Errors: XRMA_EINVAL.
 */
XRMA_API int xrma_dmaq_open(struct xrma_ctx *ctx, uint32_t depth, uint32_t flags,
			    struct xrma_dmaq **dmaq);

/* Close. XRMA_EBUSY while operations are outstanding (abort or drain first). */
XRMA_API int xrma_dmaq_close(struct xrma_dmaq *dmaq);

/*
 * Post one RMA of len bytes between the local vector and [remote_offset,
 * remote_offset+len) of remote. Errors, none of which changes anything:
 * XRMA_EHANDLE (queue, segment or remote segment), XRMA_EINVAL (NULL vector,
 * count 0 or above XRMA_IOV_MAX, len 0, bad flags, UNSIGNALLED on a queue not
 * opened for it, SYNC with SUPPRESS/UNSIGNALLED), XRMA_ERANGE (a local entry
 * outside its segment, or the remote range outside remote), XRMA_ELENGTH (the
 * vector holds fewer than len bytes), XRMA_EACCES (local segment lacks
 * LOCAL_WRITE for a read or LOCAL_READ for a write; remote lacks REMOTE_READ /
 * REMOTE_WRITE), XRMA_EALIGN_OFFSET / XRMA_EALIGN_SIZE (provider alignment),
 * XRMA_EAGAIN (queue full), XRMA_ELOST (the remote segment is lost).
 * With XRMA_RMA_SYNC the transfer's own result is returned.
 */
XRMA_API int xrma_dmaq_post(struct xrma_dmaq *dmaq, enum xrma_rma_op op, const struct xrma_iov *local,
			    size_t count, struct xrma_rseg *remote, size_t remote_offset, size_t len,
			    uint64_t cookie, uint32_t flags);

/* Take up to max completions without waiting; returns how many (>= 0). */
XRMA_API int xrma_dmaq_poll(struct xrma_dmaq *dmaq, struct xrma_completion *out, size_t max);

/* Wait for one completion. XRMA_ETIMEDOUT when none came in time. */
XRMA_API int xrma_dmaq_wait(struct xrma_dmaq *dmaq, struct xrma_completion *out, int timeout_ms);

/* Wait until no operation is outstanding (completions stay queued). */
XRMA_API int xrma_dmaq_drain(struct xrma_dmaq *dmaq, int timeout_ms);

/*
 * Cancel every operation not yet started; each completes with XRMA_ECANCELED
 * (cancelled completions are never suppressed). Returns the number cancelled.
 */
XRMA_API int xrma_dmaq_abort(struct xrma_dmaq *dmaq);

/* Operations posted and not yet completed. */
XRMA_API int xrma_dmaq_outstanding(struct xrma_dmaq *dmaq, size_t *count);

XRMA_END_DECLS

#endif
