/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/rwin.h: registered address spaces shared over a connection. Each
 * end owns a window space (xrma/win.h) and publishes it in a table its peer
 * maps or, where the provider cannot map, reads by RMA; the core looks offsets
 * of the peer's space up as pieces of the peer's segments, imports those, and
 * keeps the two sides coherent. SCIF's registered address space rides on it.
 */
#ifndef XRMA_RWIN_H
#define XRMA_RWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xrma/api.h>
#include <xrma/dmaq.h>
#include <xrma/win.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;
struct xrma_conn;
struct xrma_seg;
struct xrma_rseg;
struct xrma_rwin;

/* Live windows one end may publish. */
#define XRMA_RWIN_MAX 1024

/* A window's rights, as the peer sees them (the same bits as XRMA_WIN_PROT_*). */
#define XRMA_RWIN_PROT_READ  XRMA_WIN_PROT_READ
#define XRMA_RWIN_PROT_WRITE XRMA_WIN_PROT_WRITE

/* xrma_rwin_add: place exactly at the offset given. */
#define XRMA_RWIN_FIXED XRMA_WIN_FIXED

/* A range of the peer's space, resolved to one window's segment. */
struct xrma_rwin_piece {
	uint64_t seg_id;    /* the peer's exported segment behind the window ... */
	size_t seg_offset;  /* ... where the range starts in it */
	size_t len;
	uint32_t prot;      /* the window's XRMA_RWIN_PROT_* */
};

/*
 * The owner's pages behind a window are let go (the window was removed, or the
 * space closes): return true once the window's range may be reused, false while
 * its pages are still busy (asked again later). With retire set the answer must
 * be true: the owner takes the pages over until they are idle.
 */
typedef bool (*xrma_rwin_release_fn)(void *pages, bool retire);

/*
 * Open our side: an empty window space and the table that publishes it, plus
 * the posted and completed marks of dmaq (xrma_fence_publish) for the peer's
 * fences. *table_id is what the peer passes to xrma_rwin_attach. release may be
 * NULL (windows carry no pages of the caller's).
 */
XRMA_API int xrma_rwin_open(struct xrma_ctx *ctx, struct xrma_dmaq *dmaq, xrma_rwin_release_fn release,
			    uint64_t *table_id, struct xrma_rwin **rwin);

/*
 * Attach the peer's table (its table_id) over conn, the connection both spaces
 * belong to: mapped where the provider maps, else read by RMA into a copy.
 * timeout_ms bounds each import of the peer's segments. Once only.
 */
XRMA_API int xrma_rwin_attach(struct xrma_rwin *rwin, struct xrma_conn *conn, uint64_t peer_table_id,
			      int timeout_ms);

/* Close: imports, our windows (released with retire) and both tables. */
XRMA_API int xrma_rwin_close(struct xrma_rwin *rwin);

/*
 * Where xrma_rwin_add(rwin, .., len, offset, .., flags) would place a window
 * now, in *offset, changing nothing: for a caller that prepares the window's
 * pages only once it knows they have a place. Errors as xrma_rwin_add's.
 */
XRMA_API int xrma_rwin_place(struct xrma_rwin *rwin, uint64_t *offset, size_t len, uint32_t flags);

/*
 * Add a window over [seg_offset, +len) of seg (exported, so the peer can import
 * it) at *offset (XRMA_RWIN_FIXED) or at the first free range at or above the
 * hint, else from 0; *offset says where. pages is handed to release when the
 * window goes. Errors: XRMA_EINVAL, XRMA_EADDRINUSE (FIXED, range taken),
 * XRMA_ENOMEM (XRMA_RWIN_MAX live windows, or no free range), and those of
 * xrma_win_add.
 */
XRMA_API int xrma_rwin_add(struct xrma_rwin *rwin, struct xrma_seg *seg, size_t seg_offset, size_t len,
			   uint64_t *offset, uint32_t prot, uint32_t flags, void *pages);

/*
 * Remove our windows wholly inside [offset, +len) (XRMA_EINVAL if the range cuts
 * one, XRMA_ENXIO if it holds none). A peer that reads our table by copy has
 * dropped its copy when this returns; if it could not be told (and is still
 * there), the windows stay and the error is returned.
 */
XRMA_API int xrma_rwin_remove(struct xrma_rwin *rwin, uint64_t offset, size_t len);

/*
 * [offset, +len) of our live, adjacent windows as a local vector (at most max
 * entries, else XRMA_ENOMEM), each window allowing prot: XRMA_ENXIO if not
 * covered, XRMA_EACCES if a window forbids prot.
 */
XRMA_API int xrma_rwin_local(struct xrma_rwin *rwin, uint64_t offset, size_t len, uint32_t prot,
			     struct xrma_iov *iov, size_t max, size_t *count);

/*
 * Resolve [offset, +len) of the peer's space into at most max pieces, one per
 * window, each allowing prot. XRMA_ENXIO: not covered; XRMA_EACCES: a window
 * forbids prot; XRMA_ENOSPC: more than max windows; XRMA_ECONNRESET: the peer
 * died while rewriting its table.
 */
XRMA_API int xrma_rwin_lookup(struct xrma_rwin *rwin, uint64_t offset, size_t len, uint32_t prot,
			      struct xrma_rwin_piece *out, size_t max, size_t *count);

/*
 * The import of a piece's segment, kept by the space until the peer removes
 * the window (asking only for the rights the window grants). XRMA_ENXIO where
 * the window went away meanwhile or cannot be reached from this node.
 */
XRMA_API int xrma_rwin_import(struct xrma_rwin *rwin, const struct xrma_rwin_piece *piece,
			      struct xrma_rseg **rseg);

/*
 * Close imports of windows the peer removed since the last look (all: every
 * import, for a peer that is gone). Where the table is read by copy, this is
 * also where a call learns whether its copy is still the peer's table.
 */
XRMA_API int xrma_rwin_sweep(struct xrma_rwin *rwin, bool all);

/* 0 if the peer's table can still be read (by copy: one round trip), else why not. */
XRMA_API int xrma_rwin_probe(struct xrma_rwin *rwin);

/* The peer queue's posted mark now (the peer's xrma_fence_mark, seen from here). */
XRMA_API int xrma_rwin_peer_mark(struct xrma_rwin *rwin, uint64_t *mark);

/*
 * Wait until the peer's transfers up to mark completed, at most timeout_ms
 * (XRMA_TIMEOUT_INFINITE: no bound). Spins briefly, then sleeps until the
 * peer's core wakes it. XRMA_ECONNRESET once the connection is down.
 */
XRMA_API int xrma_rwin_peer_wait(struct xrma_rwin *rwin, uint64_t mark, int timeout_ms);

XRMA_END_DECLS

#endif
