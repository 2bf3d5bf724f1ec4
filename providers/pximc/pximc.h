/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/pximc/pximc.h: the pximc provider, PXImc (include/pximc.h) as a transport. It
 * loads the Dispatcher (libpximc) and calls only the 17 PXIMC_* functions, so any vendor
 * library the Dispatcher finds carries SISCI and SCIF programs. Private types and the
 * functions the files share:
 *  - pximc_init.c     caps, open/close, the Dispatcher, the ops table
 *  - pximc_control.c  one control session per remote system: a message ring in the two
 *                     session windows with assertEvent as the doorbell, discovery of
 *                     interfaces, liveness, progress
 *  - pximc_names.c    the node's name tables and remote lookups
 *  - pximc_mem.c      memory: a segment becomes a window session per importer
 * docs/porting.md says what PXImc can and cannot carry.
 *
 * Locking: prov->lock guards the peer list's mutable fields, the name, memory, import and
 * request tables and the inbound queue; it is never held across a PXIMC_* call that waits.
 * peer->send_lock serialises the producer side of one ring.
 */
#ifndef XRMA_PROV_PXIMC_H
#define XRMA_PROV_PXIMC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pximc.h>
#include "providers/provider.h"

extern const struct xrma_provider xrma_prov_pximc;

/* The [pximc] keys (pximc_config.c); the last two are read by xrma's own PXImc
 * vendor library (personalities/pximc), by name. */
enum pximc_config_key {
	PXIMC_CONFIG_DISPATCHER,      /* [pximc] dispatcher      / XRMA_PXIMC_DISPATCHER */
	PXIMC_CONFIG_VENDOR_PROVIDER, /* [pximc] vendor_provider / XRMA_PXIMC_VENDOR_PROVIDER */
	PXIMC_CONFIG_TREE_HOST,       /* [pximc] tree_host       / XRMA_PXIMC_TREE_HOST */
	PXIMC_CONFIG_KEY_COUNT
};
struct xrma_config_table;
extern const struct xrma_config_table xrma_prov_pximc_config;

/* Protocol numbers of our windows (the proprietary range, spec decision 19). */
#define PXP_PROTO_CONTROL 0xF0A5C001u
#define PXP_PROTO_MEMORY  0xF0A5C002u
/* Control session windows: ring header plus data. */
#define PXP_RING_WINDOW   (512u * 1024u)
#define PXP_RING_HEADER   256u
#define PXP_CTRL_MSG_MAX  65536u
/* Bounds on waits for a remote system (pairing, a reply). */
#define PXP_PEER_WAIT_MS  10000
#define PXP_REPLY_MS      5000
/* How often the watcher looks for new interfaces (lookups ask for a scan at once); rarely,
 * since on two CPUs any wake-up delays a spinning PIO ping-pong. */
#define PXP_SCAN_MS       1000

/* The Dispatcher's entry points, resolved once at open. */
struct pxp_api {
	tPXIMC_Status (*findInterfaces)(uint32_t, uint32_t *, uint32_t *);
	tPXIMC_Status (*queryInterfaceInformation)(uint32_t, uint32_t, uint32_t, void *, uint32_t *);
	tPXIMC_Status (*requestWindowLogicalAsServer)(uint32_t, uint32_t, uint64_t, uint64_t,
						      uint64_t, uint64_t, uint32_t, const uint8_t *,
						      uint32_t, uint32_t *);
	tPXIMC_Status (*requestWindowLogicalAsClient)(uint32_t, uint32_t, uint64_t, uint64_t,
						      uint64_t, uint64_t, uint32_t, uint32_t *);
	tPXIMC_Status (*requestWindowLogicalAsPeer)(uint32_t, uint32_t, uint64_t, uint64_t,
						    uint64_t, uint64_t, uint32_t, const uint8_t *,
						    uint32_t, uint32_t *);
	tPXIMC_Status (*waitForConnection)(uint32_t, uint32_t, void **, uint64_t *, void **,
					   uint64_t *);
	tPXIMC_Status (*assertEvent)(uint32_t);
	tPXIMC_Status (*waitForSessionEvent)(uint32_t, uint32_t, uint32_t *);
	tPXIMC_Status (*closeWindow)(uint32_t);
};

/* Written by the partner into our local window; we read it. */
struct pxp_ring_hdr {
	_Atomic uint64_t prod;          /* bytes the partner produced into our ring */
	uint64_t pad0[7];
	_Atomic uint64_t ack;           /* bytes of our outbound ring the partner consumed */
	uint64_t pad1[7];
	_Atomic uint32_t want;          /* the partner waits for room in its ring to us */
	uint32_t pad2[15];
};

/* Provider message kinds, the first word of every ring record. */
enum pxp_kind {
	PXP_MSG_PAD = 1,       /* skip to the start of the ring */
	PXP_MSG_HELLO,         /* node, endpoint, fabric */
	PXP_MSG_BYE,           /* orderly close */
	PXP_MSG_CORE,          /* a core control message */
	PXP_MSG_LOOKUP,        /* name lookup request */
	PXP_MSG_LOOKUP_REPLY,
	PXP_MSG_IMPORT,        /* please post a window for memory id */
	PXP_MSG_IMPORT_POSTED, /* posted with uid (or refused) */
	PXP_MSG_IMPORT_READY,  /* paired and in place (or failed) */
	PXP_MSG_UNIMPORT,      /* the importer closed its window of memory id */
	PXP_MSG_UNIMPORT_DONE, /* the owner closed its side: the memory is free for others */
};

/* Small provider messages: one layout, fields used by kind. */
struct pxp_msg {
	uint64_t req;          /* request id (replies echo it) */
	uint64_t id;           /* name or memory id */
	uint64_t len;          /* memory length */
	int32_t status;        /* 0 or a negative XRMA_E* */
	uint32_t ns;           /* enum xrma_ns */
	uint32_t value;        /* uid, endpoint */
	uint32_t node;
	char fabric[32];
};

enum pxp_peer_state { PXP_PEER_IDLE = 0, PXP_PEER_READY, PXP_PEER_DOWN };

/* A queued outbound record that did not fit the ring yet. */
struct pxp_qrec {
	struct pxp_qrec *next;
	uint32_t kind, len;
	unsigned char data[];
};

/* A remote system: one interface, one control session, one thread. */
struct pxp_peer {
	struct pxp_peer *next;             /* prov->peers; list grows only */
	struct pxp_prov *prov;             /* fixed */
	uint32_t iface;                    /* fixed: the Dispatcher's interface id */
	pthread_t thread;                  /* fixed */
	/* Under prov->lock. */
	enum pxp_peer_state state;
	bool gone;                         /* the last scan did not list the interface */
	bool link_down;
	bool incompatible;                 /* never paired (pxp_peer_compatible) */
	struct xrma_prov_addr addr;        /* from HELLO */
	uint32_t session;                  /* the control session, 0 while none */
	/* The session being paired or in use, 0 once closed: written under send_lock. */
	_Atomic uint32_t session_ring;
	bool ended;                        /* under prov->lock: the thread is about to return */
	bool bye_sent;                     /* close() only */
	/* Lock-free: 0 while no partner is paired and ready, else a generation. */
	_Atomic uint64_t alive;
	bool bye;                          /* peer thread only */
	/* The ring, fixed while a session lasts (peer thread sets it before READY). */
	unsigned char *local, *remote;
	size_t data_len;
	pthread_mutex_t send_lock;         /* guards prod and the queue */
	uint64_t prod;
	struct pxp_qrec *q_head, *q_tail;
	uint64_t cons;                     /* peer thread only */
};

/* Inbound work for the service thread (progress). */
struct pxp_inbound {
	struct pxp_inbound *next;
	enum { PXP_IN_CTRL, PXP_IN_DOWN, PXP_IN_LINK } kind;
	struct xrma_prov_addr src;
	int status;
	bool up;
	size_t len;
	unsigned char data[];
};

/* A request waiting for replies (lookups, imports). */
struct pxp_req {
	struct pxp_req *next;
	uint64_t id;
	struct pxp_peer *peer;
	uint64_t alive;                    /* the peer generation asked */
	int replies;                       /* replies received */
	struct pxp_msg reply[2];
};

struct pxp_name {
	uint32_t ns;
	uint64_t id;
};

/* An owner-side import on a thread of its own (pximc_mem.c). */
struct pxp_import_job {
	struct pxp_import_job *next;       /* prov->imports, under prov->lock */
	pthread_t thread;
	struct pxp_peer *peer;
	struct pxp_msg msg;
	bool done;                         /* under prov->lock */
};

/* Exported memory (struct xrma_prov_mem). */
struct pxp_mem {
	struct pxp_mem *next;              /* under prov->lock */
	uint64_t id;                       /* fixed */
	unsigned char *addr;               /* fixed */
	size_t len, map_len;               /* fixed */
	/* Under prov->lock. */
	bool exported;
	bool homing;                       /* a window is being paired for it */
	uint32_t home_session;             /* the window whose memory backs addr (0: none) */
	struct pxp_peer *home_peer;
};

/* An import (struct xrma_prov_rmem). */
struct pxp_rmem {
	struct pxp_rmem *next;             /* under prov->lock */
	struct xrma_prov_addr owner;       /* fixed */
	uint64_t mem_id;                   /* fixed */
	size_t len;                        /* fixed */
	unsigned refs;                     /* under prov->lock */
	struct pxp_peer *peer;             /* fixed; NULL for our own memory */
	uint64_t alive;                    /* fixed: the peer generation it was made in */
	uint32_t session;                  /* fixed */
	unsigned char *base;               /* fixed */
};

struct pxp_prov {
	struct pxp_api api;                /* fixed */
	struct xrma_prov_addr self;        /* fixed */
	char fabric[32];                   /* fixed */
	struct xrma_prov_upcalls upcalls;  /* fixed */
	void *core;                        /* fixed */
	int event_fd;                      /* fixed: the progress fd */
	pthread_t watcher;                 /* fixed */
	pthread_mutex_t lock;
	pthread_cond_t cond;               /* CLOCK_MONOTONIC; broadcast on any change */
	bool stopping;
	bool scan_now;
	uint64_t scan_gen;                 /* scans completed (the watcher counts them) */
	_Atomic bool closing;              /* set by close() before it closes sessions */
	struct pxp_peer *peers;
	struct pxp_inbound *in_head, *in_tail;
	struct pxp_req *reqs;
	uint64_t next_req;
	uint64_t next_gen;
	struct pxp_name *names;
	size_t name_count, name_cap;
	uint64_t name_hint[XRMA_NS_COUNT];
	struct pxp_mem *mems;
	uint64_t next_mem;
	struct pxp_rmem *rmems;
	uint32_t next_uid;
	struct pxp_import_job *imports;    /* owner-side imports, running or to join */
	enum { PXP_RUNNING, PXP_QUIESCING, PXP_QUIESCED } quiesce;  /* pxp_control_quiesce */
};

void pxp_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A PXImc status as a core code. */
int pxp_error(tPXIMC_Status status);
/* Absolute CLOCK_MONOTONIC deadline ms from now, and a wait on prov->cond until it. */
void pxp_deadline(struct timespec *ts, int ms);
int pxp_wait(struct pxp_prov *p, const struct timespec *deadline);

/* pximc_control.c */
int pxp_control_start(struct pxp_prov *p);
/* Stop every thread and close every control session (idempotent); stop also frees peers. */
void pxp_control_quiesce(struct pxp_prov *p);
void pxp_control_stop(struct pxp_prov *p);
/* Send one record to the peer (queued if the ring is full). Any thread. */
int pxp_send(struct pxp_peer *peer, uint32_t kind, const void *data, size_t len);
/* The ready peer of node and its endpoint (ep may be NULL), waiting up to wait_ms for it
 * (patient: even when every interface's system is known); NULL with *err otherwise. */
struct pxp_peer *pxp_peer_get(struct pxp_prov *p, uint32_t node, int wait_ms, bool patient,
			      uint32_t *ep, int *err);
/* A request to peer: open gives its id (msg.req), wait takes reply number n (1, 2) within
 * PXP_REPLY_MS, XRMA_ELOST if the peer went away; close forgets it. */
struct pxp_req *pxp_req_open(struct pxp_peer *peer);
int pxp_req_wait(struct pxp_req *req, int n, struct pxp_msg *out);
void pxp_req_close(struct pxp_req *req);
/* A reply arrived (peer thread). */
void pxp_request_reply(struct pxp_prov *p, const struct pxp_msg *msg);
int pxp_progress_fd(void *state);
int pxp_progress(void *state);
int pxp_node_list(void *state, uint32_t *ids, size_t max, size_t *count);
int pxp_node_probe(void *state, uint32_t node, int timeout_ms);
int pxp_ctrl_send(void *state, const struct xrma_prov_addr *dst, const void *msg, size_t len);

/* pximc_names.c */
int pxp_name_bind(void *state, enum xrma_ns ns, uint64_t *id, uint64_t min, uint64_t max);
int pxp_name_unbind(void *state, enum xrma_ns ns, uint64_t id);
int pxp_name_lookup(void *state, uint32_t node, enum xrma_ns ns, uint64_t id,
		    struct xrma_prov_addr *owner);
void pxp_names_on_lookup(struct pxp_peer *peer, const struct pxp_msg *msg);

/* pximc_mem.c */
int pxp_mem_alloc(void *state, size_t len, struct xrma_prov_mem **mem, void **addr);
void pxp_mem_free(void *state, struct xrma_prov_mem *mem);
int pxp_mem_export(void *state, struct xrma_prov_mem *mem, uint32_t access,
		   struct xrma_prov_key *key);
void pxp_mem_unexport(void *state, struct xrma_prov_mem *mem);
int pxp_mem_import(void *state, const struct xrma_prov_addr *owner,
		   const struct xrma_prov_key *key, size_t len, uint32_t access,
		   struct xrma_prov_rmem **rmem);
void pxp_mem_unimport(void *state, struct xrma_prov_rmem *rmem);
int pxp_rma(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
	    const struct iovec *iov, size_t count, uint32_t flags);
int pxp_map(void *state, struct xrma_prov_rmem *rmem, size_t offset, size_t len, uint32_t prot,
	    void **addr);
void pxp_unmap(void *state, struct xrma_prov_rmem *rmem, void *addr, size_t len);
/* Owner side of an import, and its end (peer thread of the importer's peer). */
void pxp_mem_on_import(struct pxp_peer *peer, const struct pxp_msg *msg);
void pxp_mem_import_reap(struct pxp_prov *p, bool wait_all);
void pxp_mem_on_unimport(struct pxp_peer *peer, const struct pxp_msg *msg);
/* The peer went away: windows it held close. */
void pxp_mem_on_peer_down(struct pxp_peer *peer);

#endif
