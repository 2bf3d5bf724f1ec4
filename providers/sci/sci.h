/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/sci/sci.h: the SCI interconnect model on the host fabric
 * (providers/util). What SCI hardware imposed on SISCI programs, modelled so
 * that their error paths run without it:
 *  - node ids are 16 bits in steps of 4 (4, 8, ..., 0xfffc);
 *  - a global address is the node id in bits 63..48 and a 48-bit offset into
 *    the node's exported space, which an address translation table (ATT) of
 *    att_entries pages of att_page_size bytes maps; exports take runs of
 *    entries of the owner's table, imports take entries of the importer's;
 *  - raw access to a node's space by global address (SCIConnectSCISpace),
 *    which the owner's [sci] raw_space allows or refuses;
 *  - a register file (CSR space) per node, in the node directory;
 *  - transactions of 64 bytes that fail at a configured rate, per link,
 *    from a seeded generator, so a run is repeatable; a node's link, or the
 *    link between two nodes, that goes down and comes back; nodes that are
 *    lost;
 *  - 64 transaction ids per initiator: posted transfers hold them until
 *    they complete.
 * docs/providers.md lists the registers, limits and fault keys.
 */
#ifndef XRMA_PROV_SCI_H
#define XRMA_PROV_SCI_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "providers/provider.h"
#include "providers/util/hostfab.h"

extern const struct xrma_provider xrma_prov_sci;

/* The [sci] keys (sci_config.c). */
enum sci_config_key {
	SCI_CONFIG_ATT_ENTRIES,     /* [sci] att_entries   / XRMA_SCI_ATT_ENTRIES */
	SCI_CONFIG_ATT_PAGE_SIZE,   /* [sci] att_page_size / XRMA_SCI_ATT_PAGE_SIZE */
	SCI_CONFIG_FAULT_SEED,      /* [sci] fault_seed    / XRMA_SCI_FAULT_SEED */
	SCI_CONFIG_FAULT_RATE,      /* [sci] fault_rate    / XRMA_SCI_FAULT_RATE */
	SCI_CONFIG_FAULT_FATAL,     /* [sci] fault_fatal   / XRMA_SCI_FAULT_FATAL */
	SCI_CONFIG_FAULT_LINK,      /* [sci] fault_link    / XRMA_SCI_FAULT_LINK */
	SCI_CONFIG_FAULT_LOST,      /* [sci] fault_lost    / XRMA_SCI_FAULT_LOST */
	SCI_CONFIG_RAW_SPACE,       /* [sci] raw_space     / XRMA_SCI_RAW_SPACE */
	SCI_CONFIG_KEY_COUNT
};
struct xrma_config_table;
extern const struct xrma_config_table xrma_prov_sci_config;

/* ---------------------------------------------------------------- addresses */

#define SCI_NODE_STEP        4u
#define SCI_NODE_MAX         0xfffcu
#define SCI_OFFSET_BITS      48
#define SCI_OFFSET_MASK      ((1ull << SCI_OFFSET_BITS) - 1)
/* The largest SCI transaction a store or a DMA burst becomes (a 64-byte move). */
#define SCI_TRANSACTION_SIZE 64u
/* Transaction ids of an initiator: response-expected transactions in flight (0..63). */
#define SCI_TRANSACTION_IDS  64u

/* A node id the model can have: a non-zero multiple of 4 that fits 16 bits. */
static inline bool sci_node_valid(uint32_t node)
{
	return node && node <= SCI_NODE_MAX && !(node % SCI_NODE_STEP);
}

static inline uint64_t sci_global_addr(uint32_t node, uint64_t offset)
{
	return (uint64_t)node << SCI_OFFSET_BITS | (offset & SCI_OFFSET_MASK);
}

/* ---------------------------------------------------------------- faults */

#define SCI_FAULT_RULES_MAX 32
#define SCI_ANY_NODE UINT32_MAX

/* An error rate for the links that match (src or dst SCI_ANY_NODE: any). */
struct sci_fault_rule {
	uint32_t src, dst;
	double rate;              /* per transaction, 0..1 */
};

/* After `after` transactions towards node: its link goes down for down_ms
 * (SCI_FAULT_LINK), or the node is lost (SCI_FAULT_LOST). With src set, only
 * the link between src and node goes down, counted on src's transactions. */
enum sci_event_kind { SCI_FAULT_LINK = 1, SCI_FAULT_LOST };

struct sci_fault_event {
	enum sci_event_kind kind;
	uint32_t src;              /* SCI_ANY_NODE: node's own link */
	uint32_t node;
	uint64_t after;
	uint64_t down_ms;
	bool fired;                /* under sci_model.lock */
};

/* One link seen from this endpoint: towards node dst. */
struct sci_link {
	struct sci_link *next;
	uint32_t dst;
	uint64_t prng;             /* splitmix64 state, seeded from (seed, src, dst) */
	uint64_t threshold;        /* a draw below it is an error; 0: no faults */
	uint64_t sent;             /* transactions attempted */
	bool lost;                 /* a SCI_FAULT_LOST fired for dst */
};

struct sci_fault_config {
	uint64_t seed;
	double fatal_share;        /* share of injected errors that are not retriable */
	struct sci_fault_rule rules[SCI_FAULT_RULES_MAX];
	size_t rule_count;
	struct sci_fault_event events[SCI_FAULT_RULES_MAX];
	size_t event_count;
};

/* ---------------------------------------------------------------- posted transfers */

struct sci_post;

/* The context's adapter engine (sci_post.c). */
struct sci_posted {
	pthread_mutex_t lock;       /* guards everything below */
	pthread_cond_t cond;        /* work queued, ids freed, stop */
	struct sci_post *head, *tail;
	atomic_size_t queued;       /* length of the list, read without the lock to spin */
	uint32_t tids_free;         /* transaction ids not held */
	unsigned id_waiters;        /* posters waiting for ids */
	bool sleeping;              /* the engine waits on cond */
	pthread_t thread;
	bool started, stop;
};

/* ---------------------------------------------------------------- the model */

/* Who may import this node's memory by global address ([sci] raw_space). */
enum sci_raw_space {
	SCI_RAW_USER = 0,          /* "user": endpoints running as our user */
	SCI_RAW_ALL,               /* "all": every endpoint the fabric admits */
	SCI_RAW_NONE,              /* "none": nobody */
};

struct sci_model {
	struct hostfab_model m;     /* first: the host fabric sees only this */
	uint32_t att_entries;       /* fixed */
	uint64_t att_page_size;     /* fixed */
	struct sci_fault_config faults;   /* fixed after open */
	enum sci_raw_space raw_space;     /* fixed */
	struct sci_posted posted;   /* its own lock */
	int timer_fd;               /* fixed: brings modelled links back up */
	int poll_fd;                /* fixed: the host fabric's fd and timer_fd */

	pthread_mutex_t lock;       /* guards everything below */
	struct sci_link *links;
	uint32_t import_entries;    /* ATT entries our imports take */
	/* Links to bring back: node's own (peer SCI_ANY_NODE) or node-peer. */
	struct { uint32_t node, peer; uint64_t up_at_ms; } pending_up[SCI_FAULT_RULES_MAX];
	size_t pending_up_count;
};

static inline struct sci_model *sci_model_of(struct hostfab_ep *ep)
{
	return (struct sci_model *)ep->model;
}

/* An import: the host fabric's, its ATT entries and its error counts. */
struct sci_rmem {
	struct hostfab_rmem *h;    /* fixed */
	uint32_t node;              /* fixed: the owner's node */
	uint32_t att_entries;       /* fixed */
	_Atomic uint64_t retriable;
	_Atomic uint64_t fatal;
};

/* ---------------------------------------------------------------- functions */

/* sci_caps.c */
extern const struct xrma_caps xrma_prov_sci_caps;

/* sci_fault.c: parse the [sci] fault keys (XRMA_ECONFIG with a detail). */
int xrma_prov_sci_fault_parse(const struct xrma_config *cfg, struct sci_fault_config *out);

enum sci_fault_verdict {
	SCI_PASS = 0,              /* every transaction went through */
	SCI_RETRIABLE,             /* transaction *at failed; retrying may work */
	SCI_FATAL,                 /* transaction *at failed; the path must be restored first */
	SCI_NODE_LOST,             /* the node is gone */
};

/*
 * Account n transactions from this endpoint to node and say whether one
 * fails (and which, in *at). Fires the link and loss events whose count is
 * reached. Callable from any thread.
 */
enum sci_fault_verdict xrma_prov_sci_fault_draw(struct hostfab_ep *ep, uint32_t node, uint64_t n,
						 uint64_t *at);
/* Whether a loss event fired for node. */
bool xrma_prov_sci_fault_lost(struct hostfab_ep *ep, uint32_t node);
/* Bring back the links whose down time ran out (service thread). */
void xrma_prov_sci_fault_progress(struct hostfab_ep *ep);
void xrma_prov_sci_fault_release(struct sci_model *model);

/* sci_post.c */
int xrma_prov_sci_rma_post(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem,
			   size_t offset, const struct iovec *iov, size_t count, uint32_t flags,
			   void (*done)(void *arg, int status), void *arg);
void xrma_prov_sci_post_init(struct sci_posted *q);
/* Stop the engine (nothing may be in flight any more); _fini also frees. */
void xrma_prov_sci_post_stop(struct sci_posted *q);
void xrma_prov_sci_post_fini(struct sci_posted *q);

/* sci_csr.c */
int xrma_prov_sci_csr_read(void *state, uint32_t node, uint32_t offset, uint32_t *value);
int xrma_prov_sci_csr_write(void *state, uint32_t node, uint32_t offset, uint32_t value);
/* Set the read-only registers of our node at open. */
void xrma_prov_sci_csr_init(struct hostfab_ep *ep);
/* Transaction ids taken (delta > 0) or given back by one of our node's initiators:
 * the OUTSTANDING and OUTSTANDING_PEAK registers. */
void xrma_prov_sci_csr_outstanding(struct hostfab_ep *ep, int32_t delta);
/* Count a transaction error in our node's ERROR_COUNT and STATE registers. */
void xrma_prov_sci_csr_log_error(struct hostfab_ep *ep);
/* The link between nodes a and b alone: down (listed in both nodes' LINK_DOWN
 * registers) or back up, told to the endpoints of both. XRMA_ENOSPC when a node
 * has too many links down. */
int xrma_prov_sci_link_pair_set(struct hostfab_ep *ep, uint32_t a, uint32_t b, bool up);
/* Whether the link between our node and peer alone is down. */
bool xrma_prov_sci_link_pair_down(struct hostfab_ep *ep, uint32_t peer);

/* sci_mem.c */
int xrma_prov_sci_mem_export(void *state, struct xrma_prov_mem *mem, uint32_t access,
			     struct xrma_prov_key *key);
int xrma_prov_sci_mem_import(void *state, const struct xrma_prov_addr *owner,
			     const struct xrma_prov_key *key, size_t len, uint32_t access,
			     struct xrma_prov_rmem **rmem);
void xrma_prov_sci_mem_unimport(void *state, struct xrma_prov_rmem *rmem);
int xrma_prov_sci_bus_owner(void *state, uint32_t node, uint64_t bus, struct xrma_prov_addr *owner);
int xrma_prov_sci_bus_permit(void *state, const struct xrma_prov_addr *src);

/* sci_rma.c */
int xrma_prov_sci_rma(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
		      const struct iovec *iov, size_t count, uint32_t flags);
int xrma_prov_sci_atomic(void *state, struct xrma_prov_rmem *rmem, size_t offset,
			 enum xrma_atomic_op op, uint64_t operand, uint64_t compare, uint64_t *old);
int xrma_prov_sci_map(void *state, struct xrma_prov_rmem *rmem, size_t offset, size_t len,
		      uint32_t prot, void **addr);
void xrma_prov_sci_unmap(void *state, struct xrma_prov_rmem *rmem, void *addr, size_t len);
int xrma_prov_sci_rmem_errors(void *state, struct xrma_prov_rmem *rmem, uint32_t flags,
			      struct xrma_rseg_errors *errors);

#endif
