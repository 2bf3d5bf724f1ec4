/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/seg.h: local exportable memory (a segment). Memory comes from the
 * provider (shareable, page aligned) or from the caller (registration). A segment
 * carries access rights, an id unique per node (unless private), and an
 * availability switch; importers are counted and reported as events.
 * Protection follows the VIA/DAT model: rights are checked on every access.
 */
#ifndef XRMA_SEG_H
#define XRMA_SEG_H

#include <stddef.h>
#include <stdint.h>
#include <xrma/api.h>
#include <xrma/event.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;
struct xrma_seg;

/* Access rights; the values are DAT's memory privilege bits. */
#define XRMA_ACCESS_LOCAL_READ   0x01u
#define XRMA_ACCESS_REMOTE_READ  0x02u
#define XRMA_ACCESS_LOCAL_WRITE  0x10u
#define XRMA_ACCESS_REMOTE_WRITE 0x20u
#define XRMA_ACCESS_ALL          0x33u

/* Segment flags. */
#define XRMA_SEG_PRIVATE  (1u << 0)  /* never exported; no id is reserved */
#define XRMA_SEG_BROADCAST (1u << 1) /* a member of the broadcast group of its id (xrma/bcast.h) */

struct xrma_seg_attr {
	size_t len;          /* bytes, > 0 */
	void *addr;          /* NULL: the provider allocates; else register this memory (made
				* shareable by the provider where importers map it) */
	uint64_t id;         /* wanted id, or XRMA_ID_ANY (chosen in [id_min, id_max]) */
	uint64_t id_min;     /* range for XRMA_ID_ANY; 0 and 0 mean the core's default */
	uint64_t id_max;
	uint32_t access;     /* XRMA_ACCESS_*, at least one bit */
	uint32_t flags;      /* XRMA_SEG_* */
};

/*
 * Open a segment. Errors: XRMA_EINVAL (NULL, len 0, bad access or flags, id
 * outside [id_min,id_max]), XRMA_ENOTSUP (addr given, not XRMA_SEG_PRIVATE, and the
 * provider cannot register user memory; a private segment is only the local side of
 * transfers and needs no registration), XRMA_ERANGE (len above the provider's limit),
 * XRMA_EADDRINUSE (id taken on this node), XRMA_ENOSPC (segment table full).
 */
XRMA_API int xrma_seg_open(struct xrma_ctx *ctx, const struct xrma_seg_attr *attr,
			   struct xrma_seg **seg);

/* Close. XRMA_EBUSY while importers, mappings or transfers use it. */
XRMA_API int xrma_seg_close(struct xrma_seg *seg);

XRMA_API int xrma_seg_addr(struct xrma_seg *seg, void **addr);
XRMA_API int xrma_seg_size(struct xrma_seg *seg, size_t *len);
XRMA_API int xrma_seg_id(struct xrma_seg *seg, uint64_t *id);
XRMA_API int xrma_seg_access(struct xrma_seg *seg, uint32_t *access);

/*
 * Let importers connect. XRMA_EINVAL for a private segment; idempotent. With
 * XRMA_EXPORT_ADDRESS_ONLY the provider gives the memory its key and bus
 * address (xrma_seg_bus_addr answers from then on) but importers are not let
 * in yet: SISCI's prepared but not yet available segment.
 */
#define XRMA_EXPORT_ADDRESS_ONLY (1u << 0)
XRMA_API int xrma_seg_export(struct xrma_seg *seg, uint32_t flags);

#define XRMA_UNEXPORT_NOTIFY (1u << 0)  /* ask importers to disconnect */
#define XRMA_UNEXPORT_FORCE  (1u << 1)  /* cut importers off now (they see LOST) */

/* Refuse new importers; existing ones stay unless flags say otherwise. */
XRMA_API int xrma_seg_unexport(struct xrma_seg *seg, uint32_t flags);

/* Number of remote importers now connected. */
XRMA_API int xrma_seg_importers(struct xrma_seg *seg, size_t *count);

/*
 * The modelled bus address of an exported segment, on providers with
 * XRMA_CAP_BUS_ADDR (where it sits in the node's inbound memory windows).
 * XRMA_ENOTSUP without the capability, XRMA_ENOTAVAIL before the first export
 * (XRMA_EXPORT_ADDRESS_ONLY counts).
 */
XRMA_API int xrma_seg_bus_addr(struct xrma_seg *seg, uint64_t *bus);

/*
 * Route events to cb (NULL: back to the queue). Events already queued go to cb
 * first, in order; cb runs on the callback thread, never inside this call.
 */
XRMA_API int xrma_seg_set_callback(struct xrma_seg *seg, xrma_event_cb cb, void *arg);

/*
 * Take the oldest queued event. XRMA_ETIMEDOUT when none came in time;
 * XRMA_ESTATE while a callback is set.
 */
XRMA_API int xrma_seg_wait_event(struct xrma_seg *seg, int timeout_ms, struct xrma_event *event);

XRMA_END_DECLS

#endif
