/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_internal.h: private types of libscif. An endpoint
 * is an xrma connection whose eventfd is the SCIF descriptor; once connected
 * it owns a window space (its registered address space), a DMA queue, and a
 * shared RAS table that publishes its windows to the peer (scif_ras.c).
 * docs/scif.md explains the mapping from SCIF to the core.
 */
#ifndef XRMA_SCIF_INTERNAL_H
#define XRMA_SCIF_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <scif.h>
#include <xrma/xrma.h>
#include "common/killpoint.h"

#define XRMA_SCIF_PAGE ((size_t)4096)
/* Windows one endpoint can publish to its peer. */
#define XRMA_SCIF_RAS_MAX 1024
/* Remote windows one RMA may span. */
#define XRMA_SCIF_PIECES_MAX 64
#define XRMA_SCIF_RAS_MAGIC 0x5241535f53434946ull   /* "RAS_SCIF" */
/* Bound on the handshake after connect/accept (the peer sends at once). */
#define XRMA_SCIF_HANDSHAKE_MS 10000
#define XRMA_SCIF_DMAQ_DEPTH 1024
/* Registrations of callers' pages kept for SCIF_RMA_USECACHE, per endpoint. */
#define XRMA_SCIF_VCACHE 8

/*
 * The table an endpoint shares with its peer (a provider-allocated, exported
 * segment the peer imports and maps). Every field is accessed with atomic
 * builtins: the owner writes under a sequence lock, the peer reads without.
 */
struct xrma_scif_ras_entry {
	uint64_t offset;
	uint64_t len;
	uint64_t seg_id;   /* the exported segment behind the window ... */
	uint64_t seg_offset;   /* ... from this offset */
	uint64_t prot;     /* SCIF_PROT_* */
};

struct xrma_scif_ras_shared {
	uint64_t magic;
	uint64_t seq;      /* odd while the owner rewrites the entries */
	uint64_t count;    /* live entries, sorted by offset */
	/* The core keeps these two (xrma_fence_publish on the owner's DMA queue): */
	uint64_t posted;   /* the mark of the last transfer the owning endpoint posted */
	uint64_t done;     /* the highest mark whose transfers all completed */
	/* 1 + the id of our seq box, where the peer writes its seq (0: we map the peer's table). */
	uint64_t seq_box;
	struct xrma_scif_ras_entry win[XRMA_SCIF_RAS_MAX];
};

#define XRMA_SCIF_RAS_SIZE \
	((sizeof(struct xrma_scif_ras_shared) + XRMA_SCIF_PAGE - 1) & ~(XRMA_SCIF_PAGE - 1))
#define XRMA_SCIF_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)

/* One window of our registered address space (live, or unregistered and awaiting deletion). */
struct xrma_scif_window {
	uint64_t offset;
	size_t len;
	struct xrma_scif_backing *backing;   /* the pages, shared with other windows over them */
	struct xrma_seg *seg;                /* the backing's segment ... */
	size_t seg_offset;                   /* ... from here */
	uint64_t seg_id;
	uint32_t prot;
	bool live;         /* false: unregistered; the range stays taken until seg closes */
	bool leaving;      /* taken out of the table by an unregister still telling the peer */
};

/* One of the peer's segments we imported for RMA (a cache). */
struct xrma_scif_import {
	uint64_t seg_id;
	struct xrma_rseg *rseg;
};

/* A piece of the peer's registered address space, resolved. */
struct xrma_scif_piece {
	uint64_t seg_id;
	size_t seg_offset;
	size_t len;
	bool writable;     /* the window has SCIF_PROT_WRITE: its segment grants remote write */
};

struct xrma_scif_ep {
	int fd;                              /* fixed at open: the descriptor */
	bool local_virtual;                  /* fixed at open: XRMA_CAP_LOCAL_VIRTUAL */
	struct xrma_conn *conn;              /* fixed at open (accept: at creation) */
	int refs;                            /* atomic; taken only under the table's lock */

	pthread_mutex_t lock;                /* guards everything below */
	bool closed;
	bool connected;                      /* handshake done: RAS below is set up */
	uint32_t peer_node;
	uint32_t peer_port;
	struct xrma_win *win;
	struct xrma_dmaq *dmaq;
	struct xrma_seg *ras_seg;
	struct xrma_scif_ras_shared *ras;    /* ours, written by us */
	struct xrma_rseg *peer_ras_rseg;
	struct xrma_scif_ras_shared *peer_ras;  /* the peer's, mapped; read only */
	/* Where the peer's table cannot be mapped: read by RMA into a private copy. */
	struct xrma_scif_ras_shared *peer_copy;  /* RAS_SIZE, then a scratch word */
	struct xrma_seg *peer_copy_seg;
	struct xrma_dmaq *peer_dmaq;            /* those reads only, never behind user RMAs */
	bool peer_copy_valid;                /* the copy holds the peer's table at peer_copy_seq */
	uint64_t peer_copy_seq;
	bool peer_copy_current;              /* this call read the peer's seq and it matched */
	uint64_t peer_seq_seen;              /* imports were checked against this table */
	/* The peer's seq as it last pushed it to us (unmapped path; scif_peer.c). */
	struct xrma_seg *seq_box_seg;
	uint64_t *seq_box;
	/* The peer's seq box, where we push our seq (opened once the peer announced one). */
	struct xrma_rseg *peer_box_rseg;
	struct xrma_scif_window *windows;    /* sorted by offset */
	size_t nwindows, windows_cap;
	struct xrma_scif_import *imports;
	size_t nimports, imports_cap;
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
/* Close seg (then free backing, if given) now if nothing uses it, else later. */
void xrma_scif_retire(struct xrma_seg *seg, struct xrma_scif_backing *backing);
/* Close what retired segments are idle now: all of them, or (trim, for hot paths)
 * only once their number doubled since the last sweep. */
void xrma_scif_retired_sweep(void);
void xrma_scif_retired_trim(void);
struct xrma_scif_ep *xrma_scif_ep_new(struct xrma_conn *conn);

/* scif_backing.c: the pages behind windows, kept whatever the program maps later. */
struct xrma_scif_backing;
int xrma_scif_backing_get(void *addr, size_t len, bool writable, struct xrma_scif_backing **backing,
			  size_t *seg_offset);
struct xrma_seg *xrma_scif_backing_seg(const struct xrma_scif_backing *backing);
uint64_t xrma_scif_backing_id(const struct xrma_scif_backing *backing);
/*
 * One window lets go. true once its range may be reused; false while its last
 * user is busy (retire: hand it to the retired list instead and return true).
 */
bool xrma_scif_backing_put(struct xrma_scif_backing *backing, bool retire);
/* Free a backing whose segment is closed. */
void xrma_scif_backing_free(struct xrma_scif_backing *backing);

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

/* scif_ras.c: our windows and our table. ep->lock held unless noted. */
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
/*
 * The local vector of [offset, offset+len) of our live, adjacent windows, each
 * allowing prot (SCIF_PROT_*). ep->lock keeps the windows while the caller
 * posts; transfers then keep the segments themselves.
 */
int xrma_scif_local_cover(struct xrma_scif_ep *ep, uint64_t offset, size_t len, uint32_t prot,
			  struct xrma_iov *iov, size_t max, size_t *count);
const struct xrma_scif_window *xrma_scif_window_find(struct xrma_scif_ep *ep, uint64_t offset,
						     size_t len);

/* scif_peer.c: the peer's table seen from here, and the peer's segments we use. */
int xrma_scif_peer_attach(struct xrma_scif_ep *ep, uint64_t peer_ras_id);
void xrma_scif_peer_detach(struct xrma_scif_ep *ep);
/* Resolve [offset, +len) of the peer's space into at most max pieces, each allowing prot. */
int xrma_scif_peer_lookup(struct xrma_scif_ep *ep, uint64_t offset, size_t len, uint32_t prot,
			  struct xrma_scif_piece *out, size_t max, size_t *count);
int xrma_scif_import(struct xrma_scif_ep *ep, const struct xrma_scif_piece *piece, struct xrma_rseg **rseg);
/* Close imports of windows the peer removed (all: every import). */
void xrma_scif_imports_sweep(struct xrma_scif_ep *ep, bool all);
/*
 * Our table changed: where the peer reads it by copy, write our seq into the
 * peer's seq box and wait until it is there (ep->lock held). 0 also when the
 * peer maps our table or is gone.
 */
int xrma_scif_peer_notify(struct xrma_scif_ep *ep);
/* 0 if a read of the peer's table succeeds, else its error (where it is read by RMA: a round trip). */
int xrma_scif_peer_probe(struct xrma_scif_ep *ep);
/* The number of RMAs the peer initiated so far. */
int xrma_scif_peer_posted(struct xrma_scif_ep *ep, uint64_t *posted);
/* Wait until the peer's RMAs up to target completed (ep->lock held). */
int xrma_scif_peer_wait(struct xrma_scif_ep *ep, uint64_t target);

#endif
