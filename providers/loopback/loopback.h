/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/loopback/loopback.h: private types of the loopback provider, which
 * runs every node of a fabric inside one process (the core's unit tests use it).
 * Declares the fabric, node, endpoint, memory and inbox types, the one fabric
 * lock and what it guards, and the functions the ops table in loopback_init.c
 * points at. The contract implemented is providers/provider.h.
 */
#ifndef XRMA_PROV_LOOPBACK_H
#define XRMA_PROV_LOOPBACK_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "providers/provider.h"

extern const struct xrma_provider xrma_prov_loopback;
extern const struct xrma_caps xrma_prov_loopback_caps;

/*
 * Locking. Two mutexes, never held together:
 *  - the registry lock (static in loopback_init.c) guards the list of fabrics
 *    and each fabric's refs;
 *  - fabric->lock guards every mutable field of the fabric and of its nodes,
 *    endpoints, memory and imports (marked "under lock" below).
 * No loopback lock is held across an upcall. RMA waits for a closed gate on
 * fabric->gate_open, which releases the lock while it sleeps. Data copies,
 * atomics and mapped accesses run without the lock: they touch only fields
 * fixed at creation, and the references they use cannot drop meanwhile (the
 * core never unimports memory while it transfers through it).
 *
 * A severed endpoint is cut off: it has left the fabric (no longer in
 * fabric->eps, its names released) but its state lives until ops->close.
 * Everything it would ask of the fabric (send, bind, look up, import, transfer)
 * fails with XRMA_ELOST; purely local calls (alloc, export, free) still work.
 */

/* ---- a lock that knows its holder, so helpers can assert it ---- */

struct xrma_prov_loopback_lock {
	pthread_mutex_t mutex;
	_Atomic(pthread_t) owner;   /* valid while held; read only by assertions */
	atomic_bool held;
};

static inline void xrma_prov_loopback_lock_take(struct xrma_prov_loopback_lock *lock)
{
	pthread_mutex_lock(&lock->mutex);
	atomic_store_explicit(&lock->owner, pthread_self(), memory_order_relaxed);
	atomic_store_explicit(&lock->held, true, memory_order_relaxed);
}

static inline void xrma_prov_loopback_lock_drop(struct xrma_prov_loopback_lock *lock)
{
	atomic_store_explicit(&lock->held, false, memory_order_relaxed);
	pthread_mutex_unlock(&lock->mutex);
}

/* pthread_cond_wait on the lock, keeping the holder record true while asleep. */
static inline void xrma_prov_loopback_lock_wait(struct xrma_prov_loopback_lock *lock,
						pthread_cond_t *cond)
{
	atomic_store_explicit(&lock->held, false, memory_order_relaxed);
	pthread_cond_wait(cond, &lock->mutex);
	atomic_store_explicit(&lock->owner, pthread_self(), memory_order_relaxed);
	atomic_store_explicit(&lock->held, true, memory_order_relaxed);
}

static inline bool xrma_prov_loopback_lock_mine(struct xrma_prov_loopback_lock *lock)
{
	return atomic_load_explicit(&lock->held, memory_order_relaxed) &&
	       pthread_equal(atomic_load_explicit(&lock->owner, memory_order_relaxed), pthread_self());
}

#define xrma_prov_loopback_assert_locked(fabric) \
	assert(xrma_prov_loopback_lock_mine(&(fabric)->lock))

/* ---- sorted id map: node table, name tables, memory table ---- */

/*
 * A sorted array of unique 64-bit ids: O(log n) lookup, and "first free id in
 * [min, max]" in O(log n) by bisecting the run of consecutive ids (10,000 bound
 * ids per node must stay fast). Inserts are memmoves, cheap at these sizes and
 * nearly always appends (ids are handed out in rising order).
 */
struct xrma_prov_loopback_idmap_entry {
	uint64_t id;
	union {
		void *ptr;       /* node table, memory table */
		uint32_t ep;     /* name tables: the owning endpoint number */
	};
};

struct xrma_prov_loopback_idmap {
	struct xrma_prov_loopback_idmap_entry *v;
	size_t n;
	size_t cap;
};

/* Index of the first entry with id >= id (n if none). */
static inline size_t xrma_prov_loopback_idmap_lower(const struct xrma_prov_loopback_idmap *m,
						    uint64_t id)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static inline struct xrma_prov_loopback_idmap_entry *
xrma_prov_loopback_idmap_find(const struct xrma_prov_loopback_idmap *m, uint64_t id)
{
	size_t i = xrma_prov_loopback_idmap_lower(m, id);

	return i < m->n && m->v[i].id == id ? &m->v[i] : NULL;
}

/* Insert an id known to be absent. -XRMA_ENOMEM leaves the map unchanged. */
static inline int xrma_prov_loopback_idmap_insert(struct xrma_prov_loopback_idmap *m,
						  struct xrma_prov_loopback_idmap_entry e)
{
	size_t i = xrma_prov_loopback_idmap_lower(m, e.id);

	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct xrma_prov_loopback_idmap_entry *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -XRMA_ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(*m->v));
	m->v[i] = e;
	m->n++;
	return 0;
}

static inline void xrma_prov_loopback_idmap_remove(struct xrma_prov_loopback_idmap *m, uint64_t id)
{
	size_t i = xrma_prov_loopback_idmap_lower(m, id);

	if (i < m->n && m->v[i].id == id) {
		memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof(*m->v));
		m->n--;
	}
}

/*
 * First id in [min, max] not in the map, or -XRMA_ENOSPC. Ids are unique and
 * sorted, so v[j].id - v[i].id == j - i holds exactly on the run of consecutive
 * ids starting at v[i]: bisect for its end.
 */
static inline int xrma_prov_loopback_idmap_first_free(const struct xrma_prov_loopback_idmap *m,
						       uint64_t min, uint64_t max, uint64_t *id)
{
	size_t i = xrma_prov_loopback_idmap_lower(m, min), lo, hi;

	if (min > max)
		return -XRMA_ENOSPC;
	if (i == m->n || m->v[i].id != min) {
		*id = min;
		return 0;
	}
	lo = i;         /* v[lo] is in the run */
	hi = m->n;      /* v[hi] is not (or the end) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].id - m->v[i].id == mid - i)
			lo = mid;
		else
			hi = mid;
	}
	if (m->v[lo].id >= max)
		return -XRMA_ENOSPC;
	*id = m->v[lo].id + 1;
	return 0;
}

static inline void xrma_prov_loopback_idmap_fini(struct xrma_prov_loopback_idmap *m)
{
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}

/* ---- fabric objects ---- */

struct xrma_prov_loopback_ep;

/* One fabric instance: every endpoint opened with the same fabric string. */
struct xrma_prov_loopback_fabric {
	struct xrma_prov_loopback_fabric *next;  /* registry list; under the registry lock */
	size_t refs;                /* endpoints not yet closed + hook calls running;
				     * under the registry lock */
	char *name;                 /* fixed */
	struct xrma_prov_loopback_lock lock;
	pthread_cond_t gate_open;   /* broadcast under lock when a node's gate opens */
	struct xrma_prov_loopback_idmap nodes;  /* node id -> node; only grows; under lock */
	struct xrma_prov_loopback_ep *eps;      /* live endpoints; under lock */
	struct xrma_prov_loopback_idmap mems;   /* mem id -> mem, until freed; under lock */
	uint64_t next_mem_id;       /* last id handed out; never reused; under lock */
};

/*
 * A node id seen on the fabric (an endpoint opened on it, or a hook named it).
 * Kept until the fabric dies, so endpoint numbers are never reused and gate and
 * link settings hold across endpoints.
 */
struct xrma_prov_loopback_node {
	uint32_t id;                /* fixed */
	uint32_t last_ep;           /* last endpoint number given out; under lock */
	uint32_t live_eps;          /* endpoints in fabric->eps; under lock */
	bool gate_closed;           /* transfers by this node's endpoints wait; under lock */
	bool link_down;             /* transfers touching this node fail; under lock */
	struct xrma_prov_loopback_idmap names[XRMA_NS_COUNT];  /* id -> owning ep; under lock */
};

enum xrma_prov_loopback_item_kind {
	XRMA_PROV_LOOPBACK_ITEM_MSG = 1,
	XRMA_PROV_LOOPBACK_ITEM_PEER_DOWN,
	XRMA_PROV_LOOPBACK_ITEM_LINK,
};

/*
 * One inbox entry. Messages, peer_down notices and link events share one FIFO
 * so a peer's messages are delivered before the notice of its death.
 */
struct xrma_prov_loopback_item {
	struct xrma_prov_loopback_item *next;
	enum xrma_prov_loopback_item_kind kind;
	struct xrma_prov_addr addr;   /* MSG: the source; PEER_DOWN: the peer */
	int status;                   /* PEER_DOWN */
	uint32_t node;                /* LINK */
	bool up;                      /* LINK */
	size_t len;                   /* MSG */
	unsigned char msg[];          /* MSG: len bytes */
};

struct xrma_prov_loopback_mem;
struct xrma_prov_loopback_rmem;

/* The state behind ops->open: one endpoint. */
struct xrma_prov_loopback_ep {
	struct xrma_prov_loopback_fabric *fabric;  /* fixed; holds a fabric ref */
	struct xrma_prov_loopback_node *node;      /* fixed */
	struct xrma_prov_addr self;                /* fixed */
	struct xrma_prov_upcalls upcalls;          /* fixed (a copy) */
	void *core;                                /* fixed */
	int efd;                                   /* fixed; eventfd, readable while inbox has items */
	bool live;                                 /* in fabric->eps; under lock */
	bool severed;                              /* cut off by the sever hook; under lock */
	struct xrma_prov_loopback_ep *prev, *next; /* fabric->eps; under lock */
	struct xrma_prov_loopback_item *inbox_head, *inbox_tail;  /* under lock */
	struct xrma_prov_loopback_mem *mems;       /* memory it owns, not yet freed; under lock */
	struct xrma_prov_loopback_rmem *rmems;     /* imports it holds; under lock */
};

/*
 * Exportable memory (struct xrma_prov_mem to the core). It outlives its owner
 * while importers hold references, so importers never touch freed memory.
 */
struct hostfab_share;

struct xrma_prov_loopback_mem {
	uint64_t id;                 /* fixed; fabric-unique, never reused */
	uint64_t cookie;             /* fixed; random, second half of the key */
	void *addr;                  /* fixed */
	size_t len;                  /* fixed; bytes asked for */
	size_t map_len;              /* fixed; bytes mmapped (0: registered caller memory) */
	struct hostfab_share *share; /* fixed; registered memory: the file behind addr, or NULL */
	struct xrma_prov_addr owner_addr;           /* fixed */
	struct xrma_prov_loopback_node *owner_node; /* fixed */
	struct xrma_prov_loopback_ep *owner;  /* NULL once freed by or closed with its owner; under lock */
	struct xrma_prov_loopback_mem *prev, *next; /* owner->mems; under lock */
	size_t refs;                 /* owner (while owner != NULL) + imports; under lock */
	uint32_t access;             /* exported rights; under lock */
	bool exported;               /* imports allowed; under lock */
	bool lost;                   /* owner severed; under lock */
	struct xrma_prov_loopback_mem *doomed_next; /* lists to destroy after unlock */
};

/* An import (struct xrma_prov_rmem to the core); holds a reference on mem. */
struct xrma_prov_loopback_rmem {
	struct xrma_prov_loopback_mem *mem;         /* fixed */
	struct xrma_prov_loopback_ep *importer;     /* fixed */
	size_t len;                  /* fixed; bytes imported */
	uint32_t access;             /* fixed; rights asked for */
	size_t maps;                 /* live mappings (bookkeeping only); under lock */
	struct xrma_prov_loopback_rmem *prev, *next; /* importer->rmems; under lock */
};

/* ---- loopback_init.c: fabric membership ---- */

/* The node record of id, created if create; NULL if absent or out of memory. */
struct xrma_prov_loopback_node *xrma_prov_loopback_node_get_locked(
	struct xrma_prov_loopback_fabric *fabric, uint32_t id, bool create);
/* The live endpoint at addr, or NULL. */
struct xrma_prov_loopback_ep *xrma_prov_loopback_ep_find_locked(
	struct xrma_prov_loopback_fabric *fabric, const struct xrma_prov_addr *addr);

int xrma_prov_loopback_open(const struct xrma_prov_open_args *args, void **state,
			    struct xrma_prov_addr *self);
void xrma_prov_loopback_close(void *state);

/* ---- loopback_control.c: inbox, names, discovery ---- */

/* A zeroed item with room for len message bytes, or NULL. */
struct xrma_prov_loopback_item *xrma_prov_loopback_item_new(enum xrma_prov_loopback_item_kind kind,
							    size_t len);
/* Append to ep's inbox and make its eventfd readable. */
void xrma_prov_loopback_inbox_push_locked(struct xrma_prov_loopback_ep *ep,
					  struct xrma_prov_loopback_item *item);
/* Detach the whole inbox (for close); the caller frees the list. */
struct xrma_prov_loopback_item *xrma_prov_loopback_inbox_take_locked(struct xrma_prov_loopback_ep *ep);
void xrma_prov_loopback_names_release_locked(struct xrma_prov_loopback_ep *ep);

int xrma_prov_loopback_progress_fd(void *state);
int xrma_prov_loopback_progress(void *state);
int xrma_prov_loopback_node_list(void *state, uint32_t *ids, size_t max, size_t *count);
int xrma_prov_loopback_node_probe(void *state, uint32_t node, int timeout_ms);
int xrma_prov_loopback_name_bind(void *state, enum xrma_ns ns, uint64_t *id, uint64_t min,
				 uint64_t max);
int xrma_prov_loopback_name_unbind(void *state, enum xrma_ns ns, uint64_t id);
int xrma_prov_loopback_name_lookup(void *state, uint32_t node, enum xrma_ns ns, uint64_t id,
				   struct xrma_prov_addr *owner);
int xrma_prov_loopback_ctrl_send(void *state, const struct xrma_prov_addr *dst, const void *msg,
				 size_t len);

/* ---- loopback_mem.c ---- */

/* Mark everything ep owns as lost (sever). */
void xrma_prov_loopback_mem_lose_locked(struct xrma_prov_loopback_ep *ep);
/*
 * Drop every reference ep holds (owned memory and imports, for close); memory
 * nobody references any more is chained on *doomed for mem_destroy after unlock.
 */
void xrma_prov_loopback_mem_release_all_locked(struct xrma_prov_loopback_ep *ep,
					       struct xrma_prov_loopback_mem **doomed);
/* Unmap and free a chain of unreferenced memory (without the lock). */
void xrma_prov_loopback_mem_destroy(struct xrma_prov_loopback_mem *doomed);

int xrma_prov_loopback_mem_alloc(void *state, size_t len, struct xrma_prov_mem **mem, void **addr);
int xrma_prov_loopback_mem_register(void *state, void *addr, size_t len, uint32_t flags,
				    struct xrma_prov_mem **mem);
void xrma_prov_loopback_mem_free(void *state, struct xrma_prov_mem *mem);
int xrma_prov_loopback_mem_export(void *state, struct xrma_prov_mem *mem, uint32_t access,
				  struct xrma_prov_key *key);
void xrma_prov_loopback_mem_unexport(void *state, struct xrma_prov_mem *mem);
int xrma_prov_loopback_mem_import(void *state, const struct xrma_prov_addr *owner,
				  const struct xrma_prov_key *key, size_t len, uint32_t access,
				  struct xrma_prov_rmem **rmem);
void xrma_prov_loopback_mem_unimport(void *state, struct xrma_prov_rmem *rmem);

/* ---- loopback_map.c ---- */

int xrma_prov_loopback_map(void *state, struct xrma_prov_rmem *rmem, size_t offset, size_t len,
			   uint32_t prot, void **addr);
void xrma_prov_loopback_unmap(void *state, struct xrma_prov_rmem *rmem, void *addr, size_t len);

/* ---- loopback_rma.c ---- */

int xrma_prov_loopback_rma(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem,
			   size_t offset, const struct iovec *iov, size_t count, uint32_t flags);
/* The same, or -XRMA_EAGAIN while the caller's node gate is closed (the rma_try op). */
int xrma_prov_loopback_rma_try(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem,
			       size_t offset, const struct iovec *iov, size_t count, uint32_t flags);
int xrma_prov_loopback_atomic(void *state, struct xrma_prov_rmem *rmem, size_t offset,
			      enum xrma_atomic_op op, uint64_t operand, uint64_t compare,
			      uint64_t *old);

#endif
