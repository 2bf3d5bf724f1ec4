/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_internal.h: private types of libscif. An endpoint
 * is an xrma connection whose eventfd is the SCIF descriptor; once connected
 * it owns a DMA queue and a shared registered address space (the core's
 * xrma_rwin: our windows, published to the peer, and the peer's, seen here).
 * docs/scif.md explains the mapping from SCIF to the core.
 */
#ifndef XRMA_SCIF_INTERNAL_H
#define XRMA_SCIF_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <scif.h>
#include <xrma/xrma.h>
#include "common/errno_keep.h"
#include "common/killpoint.h"

#define XRMA_SCIF_PAGE ((size_t)4096)
/* Remote windows one RMA may span. */
#define XRMA_SCIF_PIECES_MAX 64
/* Bound on the handshake after connect/accept (the peer sends at once). */
#define XRMA_SCIF_HANDSHAKE_MS 10000
#define XRMA_SCIF_DMAQ_DEPTH 1024
/*
 * Bytes a send may queue ahead of the reader: MPSS's per-endpoint queue is a
 * 4 KiB ring that keeps one byte free, so 4095 (docs/scif.md).
 */
#define XRMA_SCIF_MSG_QUEUE ((size_t)4096 - 1)
/* Registrations of callers' pages kept for SCIF_RMA_USECACHE, per endpoint. */
#define XRMA_SCIF_VCACHE 8


struct xrma_scif_ep {
	int fd;                              /* fixed at open: the descriptor */
	bool local_virtual;                  /* fixed at open: XRMA_CAP_LOCAL_VIRTUAL */
	struct xrma_conn *conn;              /* fixed at open (accept: at creation) */
	int refs;                            /* atomic; taken only under the table's lock */

	pthread_mutex_t lock;                /* guards everything below */
	bool closed;
	bool connected;                      /* handshake done: rwin below is attached */
	uint32_t peer_node;
	uint32_t peer_port;
	struct xrma_dmaq *dmaq;
	struct xrma_rwin *rwin;              /* both registered address spaces (core/rwin.c) */
	/* v-call registrations kept: SCIF_RMA_USECACHE, or any where they pin nothing */
	struct {                             /* [base, +len) as a segment */
		uintptr_t base;
		size_t len;
		struct xrma_seg *seg;
		uint64_t used;               /* last use, for eviction */
	} vcache[XRMA_SCIF_VCACHE];
	uint64_t vcache_clock;

	/* Non-blocking connect (O_NONBLOCK on the descriptor); atomic, no lock. */
	int connect_state;                   /* XRMA_SCIF_CONNECT_* */
	int connect_result;                  /* 0 or a core code, once DONE */
	/*
	 * Its thread, joined by whoever clears connect_joinable (atomic): the next
	 * scif_connect or scif_close. connect_thread is written before it is set.
	 */
	pthread_t connect_thread;
	bool connect_joinable;
	/*
	 * Atomic, no lock; set once. The handshake took its bytes: the stream is the
	 * program's (scif_send, scif_recv and scif_poll look at it, the core's state
	 * says CONNECTED earlier).
	 */
	bool stream_ready;
};

enum {
	XRMA_SCIF_CONNECT_IDLE = 0,
	XRMA_SCIF_CONNECT_RUNNING,
	XRMA_SCIF_CONNECT_DONE,
	XRMA_SCIF_CONNECT_COLLECTING,        /* a scif_connect takes DONE's result */
};

/*
 * Make room for one more element in a growable array (array holding count of
 * *cap elements of size bytes). Returns the array, maybe moved, or NULL when
 * memory ran out (the old array is then unchanged).
 */
void *xrma_scif_grow(void *array, size_t *cap, size_t count, size_t size);

/* scif_ctx.c: the process context, the descriptor table, leftover segments. */
int xrma_scif_ctx(struct xrma_ctx **ctx);
int xrma_scif_ep_insert(struct xrma_scif_ep *ep);
/* Take a reference on the endpoint of epd: 0, or -XRMA_EHANDLE. */
int xrma_scif_ep_get(scif_epd_t epd, struct xrma_scif_ep **ep);
void xrma_scif_ep_put(struct xrma_scif_ep *ep);
/* Remove epd from the table (the caller's reference stays): 0 or -XRMA_EHANDLE. */
int xrma_scif_ep_remove(struct xrma_scif_ep *ep);
/* Close seg now if nothing uses it, else later. */
void xrma_scif_retire(struct xrma_seg *seg);
/* Close what retired segments are idle now: all of them, or (trim, for hot paths)
 * only once their number doubled since the last sweep. */
void xrma_scif_retired_sweep(void);
void xrma_scif_retired_trim(void);
struct xrma_scif_ep *xrma_scif_ep_new(struct xrma_conn *conn);

/* scif_rma.c: let go of the SCIF_RMA_USECACHE registrations (ep->lock held). */
void xrma_scif_vcache_drop(struct xrma_scif_ep *ep);
/*
 * xrma_dmaq_post on the endpoint's queue; a queue full of our asynchronous
 * RMAs is drained (and its completions reaped) and the post tried again, since
 * SCIF cannot refuse an RMA for want of room.
 */
int xrma_scif_dmaq_post(struct xrma_scif_ep *ep, enum xrma_rma_op op, const struct xrma_iov *iov,
			size_t count, struct xrma_rseg *rseg, size_t offset, size_t len, uint64_t cookie,
			uint32_t flags);

/* scif_errors.c: the one table from core codes to errno. Sets errno, returns -1. */
int xrma_scif_errno(int core);
int xrma_scif_fail(int core);
/* Report err in errno and return -1: every failure of a public call goes through here. */
int xrma_scif_fail_errno(int err);
/* Failures this thread reported in errno: XRMA_SCIF_ERRNO_KEEP leaves those alone. */
extern _Thread_local unsigned xrma_scif_failures;
/* First statement of every public call: errno is unchanged when the call succeeds. */
#define XRMA_SCIF_ERRNO_KEEP() XRMA_ERRNO_KEEP(&xrma_scif_failures)

/* scif_ras.c: the endpoint's registered address space. ep->lock held unless noted. */
int xrma_scif_ras_setup(struct xrma_scif_ep *ep, uint64_t *ras_id);
void xrma_scif_ras_teardown(struct xrma_scif_ep *ep);
/* The connected state check shared by every RAS, RMA and fence call (ep->lock held). */
int xrma_scif_ep_usable(struct xrma_scif_ep *ep);
/*
 * Take the endpoint of epd and its lock, if it is connected, and let go of the
 * peer's windows it unregistered. On error nothing is held.
 */
int xrma_scif_ep_enter(scif_epd_t epd, struct xrma_scif_ep **ep);
/* Undo xrma_scif_ep_enter. */
void xrma_scif_ep_leave(struct xrma_scif_ep *ep);
/* SCIF_PROT_* as the core's XRMA_RWIN_PROT_*. */
uint32_t xrma_scif_prot(int prot);

#endif
