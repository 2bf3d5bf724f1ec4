/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/fence.h: ordering marks over the outstanding operations of a DMA
 * queue. A mark names the set of operations posted before it; waiting on it
 * returns once all of them completed (later ones may finish first). A signal
 * writes 64-bit values, locally and/or remotely, once its set completed and the
 * data is visible: SCIF's fence_mark/wait/signal and SISCI's store barrier
 * stand on this. A mark is a sequence number, not a flush.
 */
#ifndef XRMA_FENCE_H
#define XRMA_FENCE_H

#include <stddef.h>
#include <stdint.h>
#include <xrma/api.h>

XRMA_BEGIN_DECLS

struct xrma_dmaq;
struct xrma_seg;
struct xrma_rseg;

/* Mark the operations posted so far. */
XRMA_API int xrma_fence_mark(struct xrma_dmaq *dmaq, uint64_t *mark);

/*
 * Wait until every operation of mark completed, the values of signals that
 * came before it included. XRMA_EINVAL for a mark never handed out by this
 * queue; XRMA_ETIMEDOUT.
 */
XRMA_API int xrma_fence_wait(struct xrma_dmaq *dmaq, uint64_t mark, int timeout_ms);

/* Has mark completed? 1 yes, 0 not yet, negative on error. */
XRMA_API int xrma_fence_test(struct xrma_dmaq *dmaq, uint64_t mark);

/*
 * When everything posted so far has completed, store local_value at
 * local_offset of local (if local is not NULL) and remote_value at
 * remote_offset of remote (if remote is not NULL); returns at once. Offsets must
 * be 4-byte aligned (XRMA_EALIGN_OFFSET) and the 8 bytes inside the segment
 * (XRMA_ERANGE); at least one target is needed (XRMA_EINVAL). The segments are
 * held until the values are written. Rights: LOCAL_WRITE / REMOTE_WRITE.
 */
XRMA_API int xrma_fence_signal(struct xrma_dmaq *dmaq, struct xrma_seg *local, size_t local_offset,
			       uint64_t local_value, struct xrma_rseg *remote, size_t remote_offset,
			       uint64_t remote_value, uint32_t flags);

/*
 * Keep two 64-bit words of local current, for readers that cannot call in (a
 * peer polling the segment): at posted_offset the mark of the last operation
 * posted (what xrma_fence_mark would return), stored before the post
 * returns; at done_offset the highest mark that has completed, stored once
 * its data is visible, as a signal's value is. Both only grow, and both are
 * written at once with the queue's current values. One segment per queue: a
 * new call replaces the last, and local NULL stops. The queue holds local
 * until it stops publishing or closes. Offsets must be 8-byte aligned
 * (XRMA_EALIGN_OFFSET), the words inside local (XRMA_ERANGE) and apart
 * (XRMA_EINVAL); local needs LOCAL_WRITE (XRMA_EACCES); flags must be 0.
 * Unlike a signal per mark, it costs a store per post and per completion.
 */
XRMA_API int xrma_fence_publish(struct xrma_dmaq *dmaq, struct xrma_seg *local, size_t posted_offset,
				size_t done_offset, uint32_t flags);

XRMA_END_DECLS

#endif
