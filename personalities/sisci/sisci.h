/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci.h: libsisci's private types. Each SISCI descriptor
 * is a personality object behind a validated handle (sisci_handle.c) that
 * wraps one core object: sci_desc -> a shared xrma_ctx per node (sisci_open.c),
 * local segment -> xrma_seg, remote segment -> xrma_rseg, DMA queue ->
 * xrma_dmaq, interrupt -> xrma_intr / xrma_rintr. Maps, sequences and block
 * transfers are personality objects over the core's mappings. Lock order:
 * object lock before event-queue lock; no lock is held across a user callback.
 */
#ifndef XRMA_SISCI_H
#define XRMA_SISCI_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* The library itself sees the API 2.0 callback prototypes. */
#define SISCI_STRICT_CALLBACKS 1
#include <sisci_api.h>
#include <xrma/xrma.h>
#include "common/killpoint.h"

/* ------------------------------------------------------------ handles */

enum xrma_sisci_type {
	XRMA_SISCI_DESC = 1,
	XRMA_SISCI_LSEG,
	XRMA_SISCI_RSEG,
	XRMA_SISCI_MAP,
	XRMA_SISCI_SEQ,
	XRMA_SISCI_DMAQ,
	XRMA_SISCI_LINTR,
	XRMA_SISCI_RINTR,
	XRMA_SISCI_BLOCK,
	XRMA_SISCI_TYPE_COUNT
};

/* Embedded first in every personality object. */
struct xrma_sisci_obj {
	void *handle;                                  /* fixed at publish */
	uint32_t slot;                                 /* fixed at publish */
	enum xrma_sisci_type type;                     /* fixed at publish */
	unsigned refs;                                 /* under the table lock */
	bool live;                                     /* under the table lock */
	void (*destroy)(struct xrma_sisci_obj *obj);   /* after the last put of a killed object */
};

/* Give obj a handle (one table reference). SCI_ERR_API_NOSPC when full. */
sci_error_t xrma_sisci_obj_publish(struct xrma_sisci_obj *obj, enum xrma_sisci_type type,
				   void (*destroy)(struct xrma_sisci_obj *obj));
/* A referenced object for a live handle of type, or NULL. */
struct xrma_sisci_obj *xrma_sisci_obj_get(const void *handle, enum xrma_sisci_type type);
void xrma_sisci_obj_ref(struct xrma_sisci_obj *obj);
void xrma_sisci_obj_put(struct xrma_sisci_obj *obj);
/* Make the handle stale; false if another thread did it first. Caller holds a reference. */
bool xrma_sisci_obj_kill(struct xrma_sisci_obj *obj);
/* Live handles of a type (0: all); for tests. */
size_t xrma_sisci_obj_live(enum xrma_sisci_type type);

#define XRMA_SISCI_GET(h, type, ctype) ((ctype *)xrma_sisci_obj_get((h), (type)))

/* ------------------------------------------------------------ errors */

enum xrma_sisci_domain {
	XRMA_SISCI_DOMAIN_SEGMENT,   /* ids name segments */
	XRMA_SISCI_DOMAIN_INTERRUPT, /* ids name interrupt numbers */
};

/* The SISCI code for a core result (0 or negative XRMA_E*). */
sci_error_t xrma_sisci_error(int core, enum xrma_sisci_domain domain);
/* Whether the table names core explicitly (for the totality test). */
bool xrma_sisci_error_known(int core);

/* Set *error if error is not NULL; returns code. */
static inline sci_error_t xrma_sisci_set(sci_error_t *error, sci_error_t code)
{
	if (error)
		*error = code;
	return code;
}

/*
 * A full memory barrier: earlier stores to mappings are visible before later
 * ones (SCIStoreBarrier, SCICheckSequence). TSan cannot model a bare fence, so
 * there a sequentially consistent read-modify-write stands in (also a full
 * barrier on every CPU we run on).
 */
static inline void xrma_sisci_barrier(void)
{
#if defined(__SANITIZE_THREAD__)
	static int word;

	(void)__atomic_fetch_add(&word, 0, __ATOMIC_SEQ_CST);
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/*
 * Bytes read through a remote map whose check point failed cannot be trusted:
 * a checked copy into local memory overwrites them with this pattern, so that
 * they never pass for good data (the sci provider spoils failed RMA reads with
 * the same byte).
 */
#define XRMA_SISCI_UNTRUSTED_BYTE 0xee

/* Flags: ILLEGAL_FLAG outside accepted, FLAG_NOT_IMPLEMENTED inside unimplemented. */
sci_error_t xrma_sisci_flags(unsigned int flags, unsigned int accepted, unsigned int unimplemented);

/* SISCI timeout (ms, SCI_INFINITE_TIMEOUT) as a core timeout. */
int xrma_sisci_timeout(unsigned int timeout);
/* The same for connects, where 0 cannot mean "poll" (an answer takes time): no limit. */
int xrma_sisci_connect_timeout(unsigned int timeout);

/* ------------------------------------------------------------ descriptors */

/* One core context per node this process acts as; shared by descriptors. */
struct xrma_sisci_node {
	struct xrma_sisci_node *next;   /* under the node list lock */
	char key[XRMA_NAME_MAX + XRMA_FABRIC_MAX + 32];  /* provider/fabric/node environment when opened */
	struct xrma_ctx *ctx;
	uint32_t node_id;
	struct xrma_caps caps;
	unsigned users;                 /* descriptors; under the node list lock */
};

#define XRMA_SISCI_ADAPTER_MAX 8

struct xrma_sisci_desc {
	struct xrma_sisci_obj obj;
	struct xrma_sisci_node *node;   /* adapter 0; fixed at open */
	pthread_mutex_t lock;           /* guards adapters */
	struct xrma_sisci_node *adapters[XRMA_SISCI_ADAPTER_MAX];  /* opened on first use */
	unsigned children;              /* objects opened through sd; atomic */
	unsigned int flags;
};

/*
 * The node of adapter localAdapterNo of desc: 0 is the environment's node,
 * 1..7 come from XRMA_SISCI_ADAPTER<n> (sisci_general.c). Local segments live
 * on adapter 0.
 */
sci_error_t xrma_sisci_adapter(struct xrma_sisci_desc *desc, unsigned int adapter,
			       struct xrma_sisci_node **node);
void xrma_sisci_desc_child_add(struct xrma_sisci_desc *desc);

struct xrma_sisci_open_args {
	unsigned int flags, accepted, unimplemented;
	bool args_ok;                   /* the caller's verdict on its other arguments */
	unsigned int adapter;
};

/*
 * The common start of a call that opens an object through sd: the descriptor,
 * the flags (SCI_FLAG_BROADCAST is unimplemented without the capability), the
 * caller's arguments and the adapter are checked, then size zeroed bytes
 * allocated. On success *desc is referenced (the caller puts it) and *node
 * set; on failure NULL, *err says why and nothing is held.
 */
void *xrma_sisci_open_begin(sci_desc_t sd, size_t size, const struct xrma_sisci_open_args *a,
			    struct xrma_sisci_desc **desc, struct xrma_sisci_node **node, sci_error_t *err);
void xrma_sisci_desc_child_del(struct xrma_sisci_desc *desc);

/* ------------------------------------------------------------ events */

struct xrma_sisci_event {
	sci_segment_cb_reason_t reason;
	unsigned int node;
	sci_error_t status;
};

#define XRMA_SISCI_EVQ_DEPTH 64

/* A SISCI object's events: queued for SCIWaitFor*Event, or handed to its callback. */
struct xrma_sisci_evq {
	pthread_mutex_t lock;           /* guards all below */
	pthread_cond_t cond;            /* CLOCK_MONOTONIC */
	struct xrma_sisci_event ring[XRMA_SISCI_EVQ_DEPTH];
	unsigned head, count;
	bool callback;                  /* a user callback takes the events */
	bool closed;                    /* the object is going: waiters get CANCELLED */
};

void xrma_sisci_evq_init(struct xrma_sisci_evq *q, bool callback);
void xrma_sisci_evq_destroy(struct xrma_sisci_evq *q);
/* Queue ev unless a callback takes events: then return true (the caller calls it). */
bool xrma_sisci_evq_push(struct xrma_sisci_evq *q, const struct xrma_sisci_event *ev);
/* SCI_ERR_OK with *ev, SCI_ERR_TIMEOUT, SCI_ERR_CANCELLED, SCI_ERR_ILLEGAL_OPERATION (callback). */
sci_error_t xrma_sisci_evq_wait(struct xrma_sisci_evq *q, unsigned int timeout,
				struct xrma_sisci_event *ev);
void xrma_sisci_evq_close(struct xrma_sisci_evq *q);
/* A callback answered SCI_CALLBACK_CANCEL: later events queue instead. */
void xrma_sisci_evq_cancel_callback(struct xrma_sisci_evq *q);

/* The SISCI reason for a core event type. */
sci_segment_cb_reason_t xrma_sisci_reason(enum xrma_event_type type);

/* Wait on cond until pred or deadline; for the personality's own waits. */
struct timespec xrma_sisci_deadline(unsigned int timeout);
/* 0, or ETIMEDOUT once deadline (NULL: infinite) passed. */
int xrma_sisci_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock, const struct timespec *deadline);
void xrma_sisci_cond_init(pthread_cond_t *cond);

/* ------------------------------------------------------------ segments */

struct xrma_sisci_lseg {
	struct xrma_sisci_obj obj;
	struct xrma_sisci_desc *desc;
	struct xrma_sisci_node *node;
	pthread_mutex_t lock;           /* guards the mutable fields below */
	struct xrma_seg *seg;           /* NULL while EMPTY and unregistered */
	struct xrma_seg *reserve;       /* holds the id of an EMPTY segment until registration */
	unsigned int id;
	size_t max_size;                /* the size given at create */
	size_t size;                    /* memory present: max_size, or the registered size */
	void *addr;                     /* memory of the segment (NULL while EMPTY) */
	unsigned int flags;
	bool prepared, available;       /* under lock */
	unsigned maps, dma_users;       /* under lock */
	sci_cb_local_segment_t cb;
	void *cb_arg;
	struct xrma_sisci_evq events;
	/* SCIAttachPhysicalMemory by bus address: the import that reaches it; under lock. */
	struct xrma_rseg *attach_rseg;
	void *attach_addr;              /* its mapping, the segment's memory */
	uint64_t attach_bus;
};

enum xrma_sisci_connect_state {
	XRMA_SISCI_CONNECTING = 1,
	XRMA_SISCI_CONNECTED,
	XRMA_SISCI_CONNECT_FAILED,
};

struct xrma_sisci_rseg {
	struct xrma_sisci_obj obj;
	struct xrma_sisci_desc *desc;
	struct xrma_sisci_node *node;
	pthread_mutex_t lock;           /* guards the mutable fields below */
	pthread_cond_t cond;            /* connect finished */
	struct xrma_rseg *rseg;         /* set once connected (unicast) */
	struct xrma_bcast *bcast;       /* set once connected (SCI_FLAG_BROADCAST) */
	bool broadcast;                 /* fixed: connected to a broadcast group */
	enum xrma_sisci_connect_state state;
	pthread_t connector;            /* asynchronous connect thread */
	bool has_connector;
	unsigned int node_id, id;
	unsigned int timeout;
	size_t size;
	bool space;                     /* a raw window of SCI space: at global address bus */
	uint64_t bus;
	unsigned maps, dma_users;       /* under lock */
	unsigned long faults;           /* LOST / NOT_OPERATIONAL seen; under lock */
	sci_cb_remote_segment_t cb;
	void *cb_arg;
	struct xrma_sisci_evq events;
};

/* Get the remote segment's core state as a sequence would see it. */
void xrma_sisci_rseg_health(struct xrma_sisci_rseg *r, bool *usable, unsigned long *faults);
/*
 * The transaction error counts of the remote segment (zero where the provider
 * detects none); flags as xrma_rseg_errors (XRMA_RSEG_ERRORS_MAPPED at a
 * check point of mapped accesses).
 */
void xrma_sisci_rseg_errors(struct xrma_sisci_rseg *r, uint32_t flags, struct xrma_rseg_errors *errors);
/* A copy through a map of r just ended: true if r is usable and the copy, as a
 * check point of mapped accesses, had no transaction error. */
bool xrma_sisci_rseg_checkpoint(struct xrma_sisci_rseg *r);

/* Hold / release a segment for a DMA queue entry (SCIRemoveSegment / Disconnect say BUSY). */
void xrma_sisci_lseg_use(struct xrma_sisci_lseg *l, int delta);
void xrma_sisci_rseg_use(struct xrma_sisci_rseg *r, int delta);

/* SCIQuery's segment and map commands (sisci_query.c). */
sci_error_t xrma_sisci_query_local_segment(sci_query_local_segment_t *q);
sci_error_t xrma_sisci_query_remote_segment(sci_query_remote_segment_t *q);
sci_error_t xrma_sisci_query_map(sci_query_map_t *q);

/* ------------------------------------------------------------ maps */

struct xrma_sisci_map {
	struct xrma_sisci_obj obj;
	struct xrma_sisci_lseg *lseg;   /* exactly one of lseg, rseg; referenced */
	struct xrma_sisci_rseg *rseg;
	void *addr;
	size_t offset, size;
	bool readonly;
	unsigned users;                 /* uses, and XRMA_SISCI_MAP_UNMAPPING; atomic */
};

/*
 * Whatever touches a map's memory, or lives on the map (a sequence), holds a use:
 * SCIUnmapSegment is BUSY while any is held, and once it has begun no use starts.
 * xrma_sisci_map_enter: the live map of a handle, referenced and in use, or NULL
 * (stale handle, or being unmapped). xrma_sisci_map_leave undoes both.
 */
#define XRMA_SISCI_MAP_UNMAPPING (1u << 31)
struct xrma_sisci_map *xrma_sisci_map_enter(sci_map_t map);
void xrma_sisci_map_leave(struct xrma_sisci_map *m);

/*
 * Make the stores to a broadcast map reach every member of the group (a no-op
 * for other maps): the release point of SCIStoreBarrier, SCICheckSequence,
 * SCIFlush, SCIMemCpy and SCIUnmapSegment. SCI_ERR_OK, or
 * SCI_ERR_NOT_CONNECTED when a member is lost (the others got the stores).
 */
sci_error_t xrma_sisci_map_push(struct xrma_sisci_map *m);

#endif
