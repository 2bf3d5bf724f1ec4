/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/bcast.h: a broadcast group: one import that stands for the
 * segments of one id that nodes opened with XRMA_SEG_BROADCAST. Stores
 * through a group map and RMA writes posted to the group land in the segment
 * of every member. The model (membership, visibility points, limits) is
 * docs/core.md, "Broadcast groups".
 */
#ifndef XRMA_BCAST_H
#define XRMA_BCAST_H

#include <stddef.h>
#include <stdint.h>
#include <xrma/api.h>
#include <xrma/dmaq.h>
#include <xrma/event.h>
#include <xrma/rseg.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;
struct xrma_bcast;

/* Leave the local node out of the group, even when it holds a member segment. */
#define XRMA_BCAST_NO_SELF (1u << 0)

/*
 * Import every live node's broadcast segment id (the local node's included
 * unless XRMA_BCAST_NO_SELF); the nodes that have one exported are the
 * members, fixed from then on. access: the XRMA_ACCESS_REMOTE_* rights
 * wanted of each. Needs XRMA_CAP_BROADCAST. Errors: XRMA_EINVAL (NULL,
 * access, flags, XRMA_ID_ANY), XRMA_ENOTSUP, XRMA_ENOENT (no node has the
 * segment exported), XRMA_ENOMEM.
 */
XRMA_API int xrma_bcast_open(struct xrma_ctx *ctx, uint64_t id, uint32_t access, uint32_t flags,
			     int timeout_ms, struct xrma_bcast **bcast);

/* Release every member's import. XRMA_EBUSY while mapped or in use by a transfer. */
XRMA_API int xrma_bcast_close(struct xrma_bcast *bcast);

/* The smallest member's size: the range a map or a transfer may cover. */
XRMA_API int xrma_bcast_size(struct xrma_bcast *bcast, size_t *len);

/* Up to max member node ids (ascending); *count is the number of members. */
XRMA_API int xrma_bcast_members(struct xrma_bcast *bcast, uint32_t *nodes, size_t max, size_t *count);

/*
 * The group's state as one import's: XRMA_RSEG_LOST once any member is lost,
 * else NOT_OPERATIONAL while any member's link is down, else
 * DISCONNECT_REQUESTED if any owner asked, else CONNECTED.
 */
XRMA_API int xrma_bcast_state(struct xrma_bcast *bcast, enum xrma_rseg_state *state);

/*
 * Map [offset, offset+len) of the group. The address is local memory (a
 * shadow); stores to it reach the members at xrma_bcast_flush and at
 * xrma_bcast_unmap, loads see this node's own stores. flags: XRMA_MAP_WRITE,
 * optionally with XRMA_MAP_READ. Errors: XRMA_EINVAL, XRMA_ENOTSUP (no
 * XRMA_CAP_MAP), XRMA_ERANGE, XRMA_EACCES, XRMA_ELOST (a member is lost),
 * XRMA_ENOMEM, XRMA_ENOSPC.
 */
XRMA_API int xrma_bcast_map(struct xrma_bcast *bcast, size_t offset, size_t len, uint32_t flags,
			    void **addr);

/*
 * Push the stores made to the map at addr (NULL: every map of the group)
 * since its last push to every member still usable. On return they are in
 * those members' segments. XRMA_ELOST if some member is lost (the others got
 * the stores); XRMA_EINVAL for an addr that is no map of the group.
 */
XRMA_API int xrma_bcast_flush(struct xrma_bcast *bcast, void *addr);

/* Push as xrma_bcast_flush, then remove the map (addr exactly as returned). */
XRMA_API int xrma_bcast_unmap(struct xrma_bcast *bcast, void *addr);

/*
 * Post one RMA write of the local vector to [remote_offset, remote_offset+len)
 * of every member on dmaq, cookie and flags as xrma_dmaq_post; *posted is the
 * number of operations posted (one per member; completions come one per
 * operation). Everything is checked before anything is posted. Errors: those
 * of xrma_dmaq_post, XRMA_ELOST (a member is lost); XRMA_EAGAIN when the
 * queue lacks room for every member.
 */
XRMA_API int xrma_bcast_post(struct xrma_bcast *bcast, struct xrma_dmaq *dmaq,
			     const struct xrma_iov *local, size_t count, size_t remote_offset,
			     size_t len, uint64_t cookie, uint32_t flags, size_t *posted);

/*
 * Route every member's events (disconnect request, lost, link) to cb, the
 * event's node naming the member; cb runs on the callback thread.
 */
XRMA_API int xrma_bcast_set_callback(struct xrma_bcast *bcast, xrma_event_cb cb, void *arg);

XRMA_END_DECLS

#endif
