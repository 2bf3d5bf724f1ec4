/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/win.h: a registered address space: a sparse map from offsets to
 * ranges of local segments, each with its own protection. Offsets, lengths and
 * segment offsets are page multiples. A window removed while it is in use (held
 * by an RMA, a mapping or a fence signal) is deleted later: its range cannot be
 * used for new work at once, and cannot be reused until the last hold goes.
 * SCIF's registered address space is this object.
 */
#ifndef XRMA_WIN_H
#define XRMA_WIN_H

#include <stddef.h>
#include <stdint.h>
#include <xrma/api.h>
#include <xrma/dmaq.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;
struct xrma_seg;
struct xrma_win;
struct xrma_win_hold;

#define XRMA_WIN_PROT_READ  (1u << 0)  /* may be the source of an RMA */
#define XRMA_WIN_PROT_WRITE (1u << 1)  /* may be the destination of an RMA */

#define XRMA_WIN_FIXED (1u << 0)       /* place exactly at the offset given */

/* Largest offset + length a window may reach (offsets are below 2^62). */
#define XRMA_WIN_OFFSET_LIMIT (1ull << 62)

XRMA_API int xrma_win_open(struct xrma_ctx *ctx, uint32_t flags, struct xrma_win **win);

/*
 * Close: every window is removed (deferred where held). XRMA_EBUSY while holds
 * are outstanding.
 */
XRMA_API int xrma_win_close(struct xrma_win *win);

/*
 * Add a window over [seg_offset, seg_offset+len) of seg at offset (XRMA_WIN_FIXED)
 * or at a free offset chosen at or above the hint. The window keeps seg open.
 * Errors: XRMA_EINVAL (len 0, bad prot or flags), XRMA_EALIGN_OFFSET (offset or
 * seg_offset not a page multiple, or seg memory not page aligned),
 * XRMA_EALIGN_SIZE (len not a page multiple), XRMA_ERANGE (outside seg, or past
 * XRMA_WIN_OFFSET_LIMIT), XRMA_EACCES (prot beyond the segment's local rights),
 * XRMA_EADDRINUSE (FIXED and the range overlaps a window, live or deferred),
 * XRMA_ENOSPC (no free range).
 */
XRMA_API int xrma_win_add(struct xrma_win *win, struct xrma_seg *seg, size_t seg_offset, size_t len,
			  uint64_t offset, uint32_t prot, uint32_t flags, uint64_t *placed);

/*
 * Remove the windows wholly inside [offset, offset+len). The range must not cut
 * a window (XRMA_EINVAL) and must hold at least one (XRMA_ENXIO).
 */
XRMA_API int xrma_win_remove(struct xrma_win *win, uint64_t offset, size_t len);

/*
 * What xrma_win_remove(win, offset, len) would answer now, changing nothing:
 * for a caller that must do work of its own (tell a peer) before it removes.
 */
XRMA_API int xrma_win_can_remove(struct xrma_win *win, uint64_t offset, size_t len);

/*
 * Hold [offset, offset+len), which must lie in live, adjacent windows each
 * allowing prot (XRMA_ENXIO if not covered, XRMA_EACCES if a window forbids
 * prot), and describe it as a local vector (at most max entries, else
 * XRMA_ENOSPC). The windows stay alive until xrma_win_release.
 */
XRMA_API int xrma_win_hold(struct xrma_win *win, uint64_t offset, size_t len, uint32_t prot,
			   struct xrma_iov *iov, size_t max, size_t *count, struct xrma_win_hold **hold);

XRMA_API int xrma_win_release(struct xrma_win_hold *hold);

/* Number of windows, live and awaiting deletion. */
XRMA_API int xrma_win_count(struct xrma_win *win, size_t *live, size_t *deferred);

XRMA_END_DECLS

#endif
