/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/rseg.h: a remote segment imported by (node, id): its size and
 * rights, an optional load/store mapping (XRMA_CAP_MAP), 64-bit atomics
 * (XRMA_CAP_ATOMIC), and the events of its owner (disconnect request, lost,
 * link state). RMA to it goes through a DMA queue (xrma/dmaq.h).
 */
#ifndef XRMA_RSEG_H
#define XRMA_RSEG_H

#include <stddef.h>
#include <stdint.h>
#include <xrma/api.h>
#include <xrma/event.h>
#include <xrma/node.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;
struct xrma_rseg;

enum xrma_rseg_state {
	XRMA_RSEG_CONNECTED = 1,
	XRMA_RSEG_DISCONNECT_REQUESTED,  /* owner asked us to leave; still usable */
	XRMA_RSEG_NOT_OPERATIONAL,       /* link down; may come back */
	XRMA_RSEG_LOST,                  /* owner gone or forced us off; dead for good */
};

/*
 * Import segment id of node. access: the XRMA_ACCESS_REMOTE_* rights wanted.
 * flags: XRMA_OPEN_CLUSTER, XRMA_OPEN_WAIT (xrma/node.h: a node of the cluster
 * not up yet is one without the segment; wait up to timeout_ms for the
 * segment to be exported). Errors: XRMA_EINVAL, XRMA_ENODEV (no such node),
 * XRMA_ENOENT (no such segment), XRMA_ENOTAVAIL (not exported), XRMA_EACCES (rights not granted or
 * the owner refuses our credentials), XRMA_ECONNREFUSED (caps.max_importers
 * other nodes import the segment already), XRMA_ETIMEDOUT, XRMA_EHOSTUNREACH.
 */
XRMA_API int xrma_rseg_open(struct xrma_ctx *ctx, uint32_t node, uint64_t id, uint32_t access,
			    uint32_t flags, int timeout_ms, struct xrma_rseg **rseg);

/*
 * Import the window [bus, bus+len) of node's bus address space, as
 * xrma_seg_bus_addr reports addresses on node, without naming a segment (the
 * raw window of SISCI's SCIConnectSCISpace). Needs XRMA_CAP_BUS_IMPORT. The
 * window must lie inside one exported segment; the import then behaves like
 * one of that segment cut to the window (offset 0 is bus, the size is len,
 * xrma_rseg_id names the segment) except that the owner neither counts it as
 * an importer nor sees events for it, and it may outlive the segment's
 * export: a raw window has no handshake. The owner's provider decides who may
 * import by address. Errors: XRMA_EINVAL (NULL, len 0, access, flags),
 * XRMA_ENOTSUP, XRMA_EALIGN_OFFSET / XRMA_EALIGN_SIZE (bus or len not a
 * multiple of caps.xlat_align, or of caps.page_size without one), XRMA_ENODEV
 * (no such node), XRMA_ENOENT (no export covers bus), XRMA_ERANGE (the window
 * runs past the segment's end), XRMA_EPERM (the owner refuses raw access),
 * XRMA_EACCES (rights not granted), XRMA_ETIMEDOUT, XRMA_EHOSTUNREACH.
 */
XRMA_API int xrma_rseg_open_bus(struct xrma_ctx *ctx, uint32_t node, uint64_t bus, size_t len,
				uint32_t access, uint32_t flags, int timeout_ms, struct xrma_rseg **rseg);

/* Release the import (the owner sees a disconnect). XRMA_EBUSY while mapped or in use. */
XRMA_API int xrma_rseg_close(struct xrma_rseg *rseg);

XRMA_API int xrma_rseg_size(struct xrma_rseg *rseg, size_t *len);
XRMA_API int xrma_rseg_node(struct xrma_rseg *rseg, uint32_t *node);
XRMA_API int xrma_rseg_id(struct xrma_rseg *rseg, uint64_t *id);
XRMA_API int xrma_rseg_access(struct xrma_rseg *rseg, uint32_t *access);
XRMA_API int xrma_rseg_state(struct xrma_rseg *rseg, enum xrma_rseg_state *state);

/*
 * The bus address of the import's byte 0 on its owner's node, as the owner's
 * xrma_seg_bus_addr says (for a window, the address it was opened at), on
 * providers with XRMA_CAP_BUS_ADDR. XRMA_EINVAL (NULL), XRMA_ENOTSUP without
 * the capability, XRMA_ENOTAVAIL when the owner did not tell (a core older
 * than this call).
 */
XRMA_API int xrma_rseg_bus_addr(struct xrma_rseg *rseg, uint64_t *bus);

#define XRMA_MAP_READ  (1u << 0)
#define XRMA_MAP_WRITE (1u << 1)

/*
 * Map [offset, offset+len) for loads (XRMA_MAP_READ) and stores (XRMA_MAP_WRITE).
 * Any offset is allowed; the core maps whole pages and returns the address of
 * offset. Errors: XRMA_ENOTSUP (no XRMA_CAP_MAP), XRMA_EINVAL (len 0, flags),
 * XRMA_ERANGE (outside the segment), XRMA_EACCES (rights), XRMA_ELOST,
 * XRMA_ENOSPC (provider mapping limit).
 */
XRMA_API int xrma_rseg_map(struct xrma_rseg *rseg, size_t offset, size_t len, uint32_t flags,
			   void **addr);

/* Remove a mapping made by xrma_rseg_map (addr exactly as returned). */
XRMA_API int xrma_rseg_unmap(struct xrma_rseg *rseg, void *addr);

enum xrma_atomic_op {
	XRMA_ATOMIC_FETCH_ADD = 1,
	XRMA_ATOMIC_SWAP,
	XRMA_ATOMIC_CSWAP,     /* store operand if the value equals compare */
	XRMA_ATOMIC_READ,
};

/*
 * One 64-bit atomic at offset (8-byte aligned, else XRMA_EALIGN_OFFSET); the old
 * value goes to *old. XRMA_ENOTSUP without XRMA_CAP_ATOMIC.
 */
XRMA_API int xrma_rseg_atomic(struct xrma_rseg *rseg, size_t offset, enum xrma_atomic_op op,
			      uint64_t operand, uint64_t compare, uint64_t *old);

/*
 * Transaction errors on the way to an import, counted since it was opened, on
 * providers that detect them (XRMA_CAP_RSEG_ERRORS; XRMA_ENOTSUP elsewhere).
 * A retriable error lost one transaction and repeating the access may succeed
 * (an SCI CRC or busy-retry error); a fatal one needs the path restored before
 * anything is retried. Transfers that failed also returned XRMA_ETRANSFER; the
 * counts are how errors of mapped loads and stores, which return nothing,
 * reach the program. With XRMA_RSEG_ERRORS_MAPPED the caller declares a check
 * point of its mapped accesses: the mapped accesses since the previous check
 * point are counted as one transaction (a provider that injects faults may
 * fail it). Counts never go down, so several observers can each keep their
 * own baseline.
 */
struct xrma_rseg_errors {
	uint64_t retriable;
	uint64_t fatal;
};

#define XRMA_RSEG_ERRORS_MAPPED (1u << 0)

XRMA_API int xrma_rseg_errors(struct xrma_rseg *rseg, uint32_t flags, struct xrma_rseg_errors *errors);

/*
 * Route events to cb (NULL: back to the queue). Events already queued (say a
 * forced disconnect that raced the import) go to cb first, in order; cb runs
 * on the callback thread, never inside this call.
 */
XRMA_API int xrma_rseg_set_callback(struct xrma_rseg *rseg, xrma_event_cb cb, void *arg);
XRMA_API int xrma_rseg_wait_event(struct xrma_rseg *rseg, int timeout_ms, struct xrma_event *event);

XRMA_END_DECLS

#endif
