/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi.h: private types of the ofi provider, which carries xrma
 * over libfabric RDM endpoints (tcp;ofi_rxm across hosts, verbs or efa where
 * there is RDMA hardware, shm on one host). One endpoint per node: a node is a
 * process listening at the host:port its line in the node file names.
 *
 * Transfers go through an endpoint of their own per node, in the same
 * domain, whose CQ has no wait object: with tcp;ofi_rxm a CQ that can be
 * slept on slows every transfer it carries, at both ends, even while it is
 * polled. Ours leave it (rma_ep) and peers' arrive at it (serve_ep is the
 * same endpoint), at the port an export's key names. [ofi] rma_endpoint =
 * separate makes two, an initiator and a target endpoint, so that each
 * connection carries data one way: faster below 512 B, slower from 512 B to
 * 4 KiB, where one connection both ways keeps pace with raw libfabric
 * (docs/providers-ofi.md). The target's CQ cannot wake a sleeping process, so an initiator
 * first sends the owner a SERVE message (to the control endpoint, whose CQ
 * has a wait fd), and the owner's progress thread polls its target endpoint
 * for [ofi] serve_ms after each one; initiators repeat it every serve_ms/2
 * while they have transfers to the node in flight. [ofi] rma_endpoint =
 * shared, or a provider where these endpoints cannot be made (FI_MR_ENDPOINT,
 * no socket address, no CQ wait fd), carries transfers on the control
 * endpoint instead (the key names no port). Where the libfabric provider
 * keeps write-after-write order only without atomics (ofi_rxm), transfer
 * endpoints are opened without them and atomics go between control endpoints.
 *
 * Pieces, one file each; all but ofi_entry.c, ofi_caps.c and ofi_config.c are
 * the module libxrma-ofi.so, loaded when a program chooses ofi:
 *  - ofi_entry.c    libxrma's entry for the provider (listed without loading it);
 *  - ofi_module.c   the module's exported symbol and the core's calls;
 *  - ofi_init.c     open/close (fi_getinfo, fabric, domain, AV, CQ, endpoint),
 *                   the ops table;
 *  - ofi_caps.c     capability bits and limits (in libxrma and in the module);
 *  - ofi_config.c   the [ofi] keys (in libxrma, with the parser);
 *  - ofi_nodes.c    the node file and peer address resolution;
 *  - ofi_names.c    this node's name tables (segment ids, ports, interrupts);
 *  - ofi_control.c  messages: the send queue, receive buffers, the progress
 *                   thread, liveness (heartbeats, goodbyes), name look-ups,
 *                   probes and node listing across the network;
 *  - ofi_mem.c      memory: allocation, registration, export keys, import;
 *  - ofi_rma.c      fi_write/fi_read/fi_atomic and the completion waits.
 *
 * Locking: ep->lock guards the peer table, the send queues, the pending
 * requests and the event queue for the core. It is never held across an upcall
 * or a wait; libfabric calls made under it never call back into us (the domain
 * is FI_THREAD_SAFE, and completions are dispatched by our own code after
 * fi_cq_read returns). ep->names_lock guards the name tables, ep->mem_lock the
 * list of registered memory. ep->av_lock keeps transfer posts apart from the
 * removal of a lost peer's addresses (ofi_av_purge); it is never taken under
 * the others.
 */
#ifndef XRMA_PROV_OFI_H
#define XRMA_PROV_OFI_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include "providers/provider.h"
#include "providers/provider_module.h"
#include "providers/ofi/ofi_config.h"

/* libxrma's entry for the provider (ofi_entry.c) and the module's provider (ofi_init.c):
 * the same name, description and caps (ofi_caps.c, built into both). */
#define OFI_DESCRIPTION "libfabric RDM endpoints: nodes across hosts (node file)"
#define OFI_MODULE_FILE "libxrma-ofi.so"
extern const struct xrma_provider ofi_provider;
extern const struct xrma_caps xrma_prov_ofi_caps;

/* The core that loaded the module (ofi_module.c): every call the provider makes into
 * the core goes through it, as the module links no part of libxrma. */
extern const struct xrma_prov_core_calls *ofi_core;

/* A fail point of the test-only core (common/killpoint.h); never hit otherwise. */
static inline bool ofi_fail_point(const char *name)
{
	return ofi_core->failpoint_hit && ofi_core->failpoint_hit(name);
}

#define OFI_DEFAULT_PORT "7471"
/*
 * Every message, header included, stays within OFI_WIRE_MAX: libfabric providers
 * send small messages eagerly and larger ones by rendezvous, and a rendezvous
 * message can complete after an eager one sent later. Within the eager size
 * (tcp;ofi_rxm 16 KiB, shm 4 KiB) completions come in the order sent.
 */
#define OFI_WIRE_MAX 4096
#define OFI_MSG_MAX (OFI_WIRE_MAX - 56)   /* largest core message: 56 is the header */
#define OFI_RX_COUNT 64             /* receive buffers posted at all times */
#define OFI_SPIN 2000               /* completion polls before a waiter blocks */

/* A socket address of either family, as fi_getname and fi_av_lookup give it. */
union ofi_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

/* The address's port (host order), or 0 if it is not an IPv4 or IPv6 address. */
static inline uint32_t ofi_sockaddr_port(const union ofi_sockaddr *a)
{
	if (a->sa.sa_family == AF_INET)
		return ntohs(a->in.sin_port);
	if (a->sa.sa_family == AF_INET6)
		return ntohs(a->in6.sin6_port);
	return 0;
}

/* Set the port of an IPv4 or IPv6 address; false for any other family. */
static inline bool ofi_sockaddr_set_port(union ofi_sockaddr *a, uint16_t port)
{
	if (a->sa.sa_family == AF_INET)
		a->in.sin_port = htons(port);
	else if (a->sa.sa_family == AF_INET6)
		a->in6.sin6_port = htons(port);
	else
		return false;
	return true;
}

/* Provider-level message kinds; every message starts with struct ofi_hdr. */
enum ofi_msg {
	OFI_MSG_CTRL = 1,      /* a core control message follows */
	OFI_MSG_HEARTBEAT,     /* liveness only */
	OFI_MSG_BYE,           /* orderly close of the sender's endpoint */
	OFI_MSG_LOOKUP,        /* arg0 name space, arg1 id; answered by LOOKUP_REPLY */
	OFI_MSG_LOOKUP_REPLY,  /* arg0 status (0 or a negative code) */
	OFI_MSG_PING,          /* answered by PONG */
	OFI_MSG_PONG,
	OFI_MSG_SERVE,         /* transfers are coming: poll the target endpoint a while */
};

#define OFI_MAGIC 0x78720fe1u

struct ofi_hdr {
	uint32_t magic;
	uint32_t kind;         /* enum ofi_msg */
	uint32_t fabric;       /* hash of the fabric name: other fabrics are ignored */
	uint32_t src_node, src_ep;
	uint32_t dst_node, dst_ep;  /* dst_ep 0: whichever endpoint the node has now */
	uint32_t pad;
	uint64_t req;
	int64_t arg[2];
};
_Static_assert(sizeof(struct ofi_hdr) == 56, "OFI_MSG_MAX assumes a 56-byte header");

/* Every libfabric operation's context starts with one of these. */
enum ofi_op_kind { OFI_OP_RX = 1, OFI_OP_TX, OFI_OP_RMA };

struct ofi_op {
	struct fi_context2 fi;  /* libfabric's scratch space */
	enum ofi_op_kind kind;
};

/* A received-message buffer, always posted except while being handled. */
struct ofi_rx {
	struct ofi_op op;
	bool posted;           /* under poll_lock (or before the progress thread starts) */
	unsigned char buf[sizeof(struct ofi_hdr) + OFI_MSG_MAX];
};

/* A message being sent (or waiting in its peer's queue). */
struct ofi_tx {
	struct ofi_op op;
	struct ofi_tx *next;             /* the peer's queue; under lock */
	struct ofi_tx *live_prev, *live_next;   /* ep->tx_live; under lock */
	struct fid_mr *mr;               /* FI_MR_LOCAL: the buffer's registration */
	uint64_t queued_ns;
	size_t len;
	unsigned char buf[];
};

/*
 * A transfer: chunks in flight and the first error. A synchronous one has a
 * waiter; an asynchronous one (rma_post) has done/arg, sits on ep->rma_live
 * until its last chunk completed, and reports once (at its end, or earlier
 * with XRMA_ELOST when its owner is declared gone).
 */
struct ofi_rma_wait {
	struct ofi_op op;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	atomic_int pending;    /* chunks posted and not completed (+1 while posting, async) */
	atomic_int status;     /* 0 or the first error (negative XRMA_E*); under lock when synchronous */
	bool abandoned;        /* under lock: the waiter left; the last completion frees */
	void (*done)(void *arg, int status);   /* fixed: asynchronous only */
	void *arg;                             /* fixed */
	bool reported;                         /* under ep->lock: done was called */
	uint64_t lost_ns;                      /* under ep->lock: when its owner was lost, or 0 */
	bool on_control;                       /* fixed: posted on ep, not on a separate rma_ep */
	bool single;                           /* fixed: async, one chunk: its completion is the last */
	struct ofi_peer *served;               /* fixed: whose target endpoint it goes to, or NULL */
	struct xrma_prov_addr owner;           /* fixed: whose memory (async) */
	struct ofi_rma_wait *live_prev, *live_next;   /* ep->rma_live; under ep->lock */
	struct ofi_rma_wait *finished_next;   /* a completion read's finished records (the reader's) */
};

/* A node of the node file, and what we know about its endpoint. */
struct ofi_peer {
	uint32_t node;              /* fixed */
	char host[256];             /* fixed */
	char port[16];              /* fixed */
	fi_addr_t addr;             /* under lock: FI_ADDR_NOTAVAIL until resolved */
	uint32_t ep;                /* under lock: the live incarnation we know, 0 none */
	bool contact;               /* under lock: heartbeats flow both ways */
	uint64_t last_heard_ns;     /* under lock */
	uint64_t last_beat_ns;      /* under lock: our last heartbeat to it */
	uint64_t silent_ns;         /* under lock: when a listing's ping went unanswered (0: never) */
	bool rma_reconnect;         /* under lock: an incarnation went since a transfer to the node
				     * last completed, so the initiator endpoint may still hold its
				     * connection (ofi_rma.c, rma_run) */
	struct ofi_tx *q_head, *q_tail;   /* under lock: sends waiting for room */
	uint32_t rma_port;          /* under lock: the target endpoint rma_addr is, 0 none */
	fi_addr_t rma_addr;         /* under lock */
	uint64_t serve_asked_ns;    /* under lock: our last SERVE to it (0: never) */
	atomic_int rma_inflight;    /* transfers to its target endpoint not completed (a poll
				     * subtracts its completions once, after the read) */
};

/* Incarnations known to be gone, so a late send fails fast. */
#define OFI_GONE_MAX 256
struct ofi_gone {
	struct xrma_prov_addr addr;
	int status;
};

/* An event for the core, delivered by ops->progress on the service thread. */
struct ofi_event {
	struct ofi_event *next;
	struct xrma_prov_addr addr;
	int status;            /* peer_down status; 0 for a control message */
	size_t len;
	unsigned char data[];
};

/* A look-up or probe waiting for its answer. */
struct ofi_req {
	struct ofi_req *next;
	uint64_t id;
	uint32_t node;
	bool done;
	int status;
	uint32_t ep;           /* the answering endpoint */
};

/* A name table of one name space: open addressing over ids. */
struct ofi_names {
	uint64_t *ids;         /* OFI_NAME_EMPTY / OFI_NAME_DELETED / an id */
	size_t cap, used;      /* used counts ids and tombstones */
	size_t live;
	uint64_t hint;         /* where the next automatic search starts */
};

/* Memory we own (struct xrma_prov_mem to the core). */
struct ofi_mem {
	struct ofi_mem *next, **prev;   /* ep->mems (unlinked in O(1)); under mem_lock */
	void *addr;                 /* fixed */
	size_t len;                 /* fixed */
	bool allocated;             /* fixed: ours to munmap */
	struct fid_mr *local_mr;    /* fixed: FI_MR_LOCAL providers only */
	struct fid_mr *export_mr;   /* while exported */
};

/* The key an export hands out (struct xrma_prov_key bytes). */
struct ofi_key {
	uint64_t mr_key;
	uint64_t base;         /* remote address of byte 0 (0 unless FI_MR_VIRT_ADDR) */
	uint64_t len;
	uint32_t rma_port;     /* the owner's target endpoint (host order); 0: its control one */
	uint32_t pad;
};

/* An import (struct xrma_prov_rmem to the core). */
struct ofi_rmem {
	struct xrma_prov_addr owner;   /* fixed */
	struct ofi_key key;            /* fixed */
	size_t len;                    /* fixed */
};

struct ofi_ep {
	struct xrma_prov_addr self;          /* fixed */
	struct xrma_prov_upcalls upcalls;    /* fixed */
	void *core;                          /* fixed */
	uint32_t fabric_hash;                /* fixed */
	char prov_name[64];                  /* fixed */
	int liveness_ms;                     /* fixed */
	uint64_t progress_spin_ns;           /* fixed: the progress thread polls this long after traffic */

	struct fi_info *info;                /* fixed */
	struct fid_fabric *fabric;           /* fixed */
	struct fid_domain *domain;           /* fixed */
	struct fid_av *av;                   /* fixed */
	struct fid_cq *cq;                   /* fixed */
	struct fid_ep *ep;                   /* fixed */
	struct fi_info *rma_info;            /* fixed: the initiator endpoint's, or NULL */
	struct fid_ep *rma_ep;               /* fixed: where transfers are posted: the
						initiator endpoint, or ep */
	struct fid_cq *rma_cq;               /* fixed: rma_ep's CQ (cq when shared) */
	struct fid_ep *serve_ep;             /* fixed: where peers' transfers arrive, or NULL */
	struct fid_cq *serve_cq;             /* fixed: serve_ep's CQ, polled while serving */
	bool atomics_on_control;             /* fixed: atomics are posted on ep: rma_ep
						was opened without them, to keep
						write-after-write order */
	bool rma_separate;                   /* fixed: rma_ep is not ep */
	bool progress_busy;                  /* fixed: [ofi] progress_wait = busy: never sleeps */
	uint32_t rma_port;                   /* fixed: serve_ep's port, which keys name; or 0 */
	uint64_t serve_ns;                   /* fixed: [ofi] serve_ms */
	uint64_t coarse_slack_ns;            /* fixed: how far ofi_coarse_ns may lag */
	_Atomic uint64_t serve_until_ns;     /* a peer's SERVE has serve_cq polled until then */
	uint64_t mr_mode;                    /* fixed */
	size_t iov_limit;                    /* fixed */
	size_t max_chunk;                    /* fixed: bytes per RMA operation */
	bool atomics;                        /* fixed: 64-bit fetch and compare atomics */
	bool waw_ordered;                    /* fixed: provider keeps write-after-write order */

	struct ofi_peer *peers;              /* fixed array; fields under lock */
	size_t peer_count;                   /* fixed */

	pthread_mutex_t lock;
	pthread_cond_t req_cond;             /* broadcast when a request completes */
	struct ofi_req *reqs;                /* under lock */
	uint64_t next_req;                   /* under lock */
	struct ofi_event *ev_head, *ev_tail; /* under lock */
	struct ofi_gone gone[OFI_GONE_MAX];  /* under lock: a ring */
	size_t gone_count, gone_next;        /* under lock */
	bool closing;                        /* under lock */
	struct ofi_tx *tx_live;              /* under lock: every send not yet completed */
	struct ofi_rma_wait *rma_live;       /* under lock: asynchronous transfers in flight */
	size_t rma_lost_unreported;          /* under lock: of those, lost ones not reported yet */
	/* Under lock: finished asynchronous records kept for the next posts (live_next links them). */
	struct ofi_rma_wait *rma_spare;
	size_t rma_spare_count;

	int event_fd;                        /* fixed: the progress fd (events for the core) */
	int wake_fd;                         /* fixed: wakes the progress thread */
	int cq_fd;                           /* fixed: the CQ's wait fd, or -1 (polled) */
	int epfd;                            /* fixed: the progress thread's epoll */
	pthread_mutex_t poll_lock;           /* one reader of the CQ at a time: keeps order */
	atomic_int driving;                  /* threads other than ours reading rma_cq now */
	_Atomic uint64_t driven_ns;          /* when such a thread last read rma_cq */
	_Atomic uint64_t app_driven_ns;      /* when the application last drove progress */
	unsigned int app_turn;               /* under poll_lock: its calls, for the control CQ's turn */
	pthread_mutex_t rma_poll_lock;       /* one reader of a separate rma_cq at a time */
	/*
	 * Transfer chunks and atomics on rma_ep: posted, and ended (completed or
	 * refused), ever; the difference is what is in flight (ofi_rma_inflight).
	 * One counter each instead of one that goes up and down: a completion
	 * read adds its count once. rma_posted also tells the progress thread of
	 * posts (the poster's time, its sleep; progress_main).
	 */
	atomic_uint rma_posted;
	atomic_uint rma_ended;
	_Atomic uint64_t rma_moved_ns;       /* the last completion on rma_ep, or a post seen */
	atomic_bool progress_asleep;         /* the progress thread is (about to be) in epoll_wait */
	_Atomic uint64_t rma_departed_ns;    /* when a peer last went (peer_down_locked), or 0 */
	struct fid_mr *rx_mr;                /* fixed: FI_MR_LOCAL: the receive buffers */
	pthread_t thread;                    /* fixed: the progress thread */
	atomic_bool stop;
	struct ofi_rx *rx;                   /* fixed: OFI_RX_COUNT buffers */
	atomic_bool rx_unposted;             /* some buffer waits to be reposted */

	/*
	 * The AV entries of incarnations lost for silence, still to be removed
	 * (ofi_av_purge). Under lock; av_epoch counts the peers whose entries
	 * were put here, so a poster that learnt an address before sees that it
	 * must check its owner again. av_lock: transfer and atomic posts hold it
	 * shared from that check to the post's return, ofi_av_purge exclusive,
	 * so nothing is posted to a removed address. Never taken under lock or
	 * poll_lock; writers are preferred, so posters cannot starve a purge.
	 */
	fi_addr_t *av_doomed;
	size_t av_doomed_count, av_doomed_cap;
	atomic_uint av_epoch;
	pthread_rwlock_t av_lock;

	pthread_mutex_t names_lock;
	struct ofi_names names[XRMA_NS_COUNT];   /* under names_lock */

	pthread_mutex_t mem_lock;
	struct ofi_mem *mems;                /* under mem_lock */
};

/* Set a readable detail for the failure being returned (see xrma_error_detail). */
void ofi_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A libfabric return code (negative FI_E*) as a negative XRMA_E* code. */
int ofi_error(int fi_ret);
uint64_t ofi_now_ns(void);
/*
 * The clock as of the last tick: never ahead of ofi_now_ns, and behind it by
 * at most ep->coarse_slack_ns; a fifth of its cost where the clock is a VM's.
 */
uint64_t ofi_coarse_ns(void);

/* ofi_nodes.c */
int ofi_nodes_load(struct ofi_ep *ep, const char *path, const char *key);
struct ofi_peer *ofi_peer_find(struct ofi_ep *ep, uint32_t node);
/* The peer's libfabric address, inserted into the AV on first use (under ep->lock). */
int ofi_peer_addr_locked(struct ofi_ep *ep, struct ofi_peer *peer, fi_addr_t *addr);
/* The address of the peer's target endpoint at port (ofi_key.rma_port), the same way. */
int ofi_peer_rma_addr_locked(struct ofi_ep *ep, struct ofi_peer *peer, uint32_t port,
			     fi_addr_t *addr);
/*
 * The peer's incarnation is lost but may still hold our operations (a
 * stopped process): its AV entries go on ep->av_doomed for ofi_av_purge, and
 * the next use of the node inserts its address again. Under ep->lock.
 */
void ofi_peer_forget_locked(struct ofi_ep *ep, struct ofi_peer *peer);
/*
 * Remove the doomed AV entries: ofi_rxm then closes their connections, and
 * every operation still posted on them comes back as an error completion, so
 * what those operations hold can be released. Holds no lock of ours on entry.
 */
void ofi_av_purge(struct ofi_ep *ep);
/* A poster's guard against ofi_av_purge (ep->av_lock, shared). */
void ofi_post_guard(struct ofi_ep *ep);
void ofi_post_unguard(struct ofi_ep *ep);

/* ofi_names.c */
void ofi_names_init(struct ofi_ep *ep);
void ofi_names_fini(struct ofi_ep *ep);
bool ofi_names_has(struct ofi_ep *ep, enum xrma_ns ns, uint64_t id);
int ofi_name_bind(void *state, enum xrma_ns ns, uint64_t *id, uint64_t min, uint64_t max);
int ofi_name_unbind(void *state, enum xrma_ns ns, uint64_t id);

/* ofi_control.c */
int ofi_control_start(struct ofi_ep *ep);
/* Say goodbye, drain sends (bounded) and stop the progress thread. */
void ofi_control_stop(struct ofi_ep *ep);
/* The depart op: goodbyes to the peers in contact, as at close, freeing nothing. */
void ofi_depart(void *state);
/* Free buffers and sends once the endpoint is closed (no completion can come). */
void ofi_control_release(struct ofi_ep *ep);
/* Read and dispatch the control CQ's completions; returns how many. Any thread. */
int ofi_cq_poll(struct ofi_ep *ep);
/* The same for the CQ transfers complete in (the control CQ when shared). */
int ofi_rma_cq_poll(struct ofi_ep *ep);
/*
 * A thread other than the progress thread starts (on) or stops reading
 * rma_cq itself for a while; calls nest. Meanwhile the progress thread leaves
 * that CQ to it (and stays awake, see progress_main). The rma_polling op.
 */
void ofi_drive(void *state, bool on);
/*
 * How long after a peer left the initiator endpoint is still polled for its
 * connection to notice closed (ofi_rxm handles connection events at
 * intervals of 10 ms by default), and asynchronous transfers run as
 * synchronous ones, which are posted again if cancelled (ofi_rma.c).
 */
#define OFI_DEPARTED_POLL_NS 50000000ull
/* How long after a caller last read rma_cq or posted the progress thread leaves rma_cq to it. */
#define OFI_DRIVER_GRACE_NS 20000ull
/*
 * Application-driven progress (ofi_app_progress): the progress thread rests
 * while the application's last call is at most OFI_APP_DRIVE_NS old, waking
 * every OFI_APP_REST_NS for the sends and liveness it alone keeps. The
 * application reads the control CQ on one call in OFI_APP_CONTROL_EVERY.
 */
#define OFI_APP_DRIVE_NS 1000000ull
#define OFI_APP_REST_NS 250000L
#define OFI_APP_CONTROL_EVERY 8u
/* [ofi] rma_endpoint: where transfers leave and arrive. */
enum ofi_transfer_eps {
	OFI_TRANSFER_SHARED,    /* the control endpoint */
	OFI_TRANSFER_SEPARATE,  /* an initiator endpoint and a target endpoint */
	OFI_TRANSFER_SINGLE,    /* one endpoint of their own, both ways */
};
/* Whether a peer left within OFI_DEPARTED_POLL_NS of now (a separate rma_ep only). */
bool ofi_departed_recently(struct ofi_ep *ep);
/* Wake the progress thread if it sleeps: a separate rma_cq has no fd to do it. */
void ofi_progress_kick(struct ofi_ep *ep);
/*
 * Transfers to the target endpoint of peer's incarnation owner_ep are about
 * to be posted, or are in flight: ask it to serve them (OFI_MSG_SERVE) unless
 * it was asked within serve_ns/2. now 0: not read yet (a poster's check then
 * reads the coarse clock, and the exact one only near the time to ask).
 * Under ep->lock.
 */
void ofi_serve_ask_locked(struct ofi_ep *ep, struct ofi_peer *peer, uint32_t owner_ep, uint64_t now);
/* Whether the incarnation is known to be gone; its status in *status. */
bool ofi_gone_locked(struct ofi_ep *ep, const struct xrma_prov_addr *addr, int *status);
int ofi_progress_fd(void *state);
int ofi_progress(void *state);
int ofi_app_progress(void *state);
int ofi_ctrl_send(void *state, const struct xrma_prov_addr *dst, const void *msg, size_t len);
int ofi_name_lookup(void *state, uint32_t node, enum xrma_ns ns, uint64_t id,
		    struct xrma_prov_addr *owner);
int ofi_node_list(void *state, uint32_t *ids, size_t max, size_t *count);
int ofi_node_probe(void *state, uint32_t node, int timeout_ms);

/* ofi_mem.c */
int ofi_mem_alloc(void *state, size_t len, struct xrma_prov_mem **mem, void **addr);
int ofi_mem_register(void *state, void *addr, size_t len, uint32_t flags, struct xrma_prov_mem **mem);
void ofi_mem_free(void *state, struct xrma_prov_mem *mem);
int ofi_mem_export(void *state, struct xrma_prov_mem *mem, uint32_t access,
		   struct xrma_prov_key *key);
void ofi_mem_unexport(void *state, struct xrma_prov_mem *mem);
int ofi_mem_import(void *state, const struct xrma_prov_addr *owner, const struct xrma_prov_key *key,
		   size_t len, uint32_t access, struct xrma_prov_rmem **rmem);
void ofi_mem_unimport(void *state, struct xrma_prov_rmem *rmem);
/* The local descriptor of [addr, addr+len) for FI_MR_LOCAL providers (NULL otherwise);
 * *tmp is a registration made for the call, to close after it. */
int ofi_mem_local_desc(struct ofi_ep *ep, void *addr, size_t len, void **desc, struct fid_mr **tmp);

/* ofi_rma.c */
int ofi_rma(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
	    const struct iovec *iov, size_t count, uint32_t flags);
int ofi_atomic(void *state, struct xrma_prov_rmem *rmem, size_t offset, enum xrma_atomic_op op,
	       uint64_t operand, uint64_t compare, uint64_t *old);
int ofi_rma_post(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
		 const struct iovec *iov, size_t count, uint32_t flags,
		 void (*done)(void *arg, int status), void *arg);
/* Read completions from the calling thread (the core's driving waiter). */
int ofi_rma_progress(void *state);
/* A transfer's completion (from ofi_cq_poll): status 0 or a negative XRMA_E*. */
/*
 * One chunk of w ended with status. An asynchronous record whose last chunk
 * this was is finished at once, or, with finished, put on that list for
 * ofi_rma_finish, so a completion read's records take the endpoint lock once.
 */
void ofi_rma_complete(struct ofi_ep *ep, struct ofi_rma_wait *w, int status,
		      struct ofi_rma_wait **finished);
void ofi_rma_finish(struct ofi_ep *ep, struct ofi_rma_wait *finished);
/*
 * One operation is about to be posted on a separate rma_ep (on), or its post
 * failed or it completed (off): the progress thread polls rma_cq while any is
 * in flight, and the owner's SERVE is repeated while any to served is.
 */
/* Count one transfer chunk or atomic on rma_ep to served (or NULL) as posted. */
void ofi_rma_posting(struct ofi_ep *ep, struct ofi_peer *served);
/* Count n of them to served as ended (completed or refused). */
void ofi_rma_ended(struct ofi_ep *ep, struct ofi_peer *served, unsigned int n);
/* Transfer chunks and atomics on rma_ep in flight now. */
int ofi_rma_inflight(const struct ofi_ep *ep);
/*
 * The owner's incarnation is gone: asynchronous transfers to it will report
 * XRMA_ELOST, once their chunks came back from libfabric (ofi_av_purge makes
 * them come back), since the core releases their buffers on the report.
 */
void ofi_rma_owner_lost_locked(struct ofi_ep *ep, const struct xrma_prov_addr *owner);
/* Report lost transfers whose chunks a provider still holds liveness_ms after the loss. */
void ofi_rma_lost_overdue_locked(struct ofi_ep *ep, uint64_t now);
/* At close, after the endpoint: free asynchronous records whose chunks never completed, and the spares. */
void ofi_rma_release(struct ofi_ep *ep);

#endif
