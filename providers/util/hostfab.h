/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab.h: the host fabric, the building block of every
 * provider whose nodes are processes on one machine (ntb, sci). A device model
 * fills a struct hostfab_model (its limits and its hooks) and points its ops
 * table at the hostfab_* functions.
 *
 * Pieces, one file each:
 *  - hostfab_dir.c   the per-node directory: a shared-memory file per node with a
 *                    robust mutex, endpoint slots (liveness by an OFD lock each
 *                    endpoint holds), the name tables, exported memory, window
 *                    space, doorbells and scratchpads. Readers never lock: a
 *                    sequence counter lets them retry a torn read.
 *  - hostfab_chan.c  the control channel: one abstract SOCK_SEQPACKET listener per
 *                    endpoint, one outgoing connection per destination (so order
 *                    per source holds), SO_PEERCRED checked on both ends, send
 *                    queues so the service thread never blocks on a full peer,
 *                    and death seen as a hang-up without a goodbye.
 *  - hostfab_mem.c   memfd memory, registered memory, export/import; a memfd goes
 *                    to an importer over its own connection with SCM_RIGHTS.
 *  - hostfab_rma.c   transfers: a direct copy through a shared mapping, cross-
 *                    memory attach (process_vm_readv/writev) into registered
 *                    memory, or the owner's copy through a staging buffer when
 *                    cross-memory attach is denied or disabled; atomics; map.
 *  - hostfab_db.c    doorbells (spin, then futex) and scratchpads.
 *  - hostfab_objects.c  a node's live objects with their owners, for xrma_info.
 *  - hostfab_init.c  open/close, node discovery.
 *
 * Locking: ep->lock guards the endpoint's mutable state (connections, peers,
 * memory lists, the directory cache). It is never held across an upcall, a
 * blocking socket call or a directory lock. The directory's robust mutex is
 * taken alone (never with ep->lock held by the same thread, except where noted).
 */
#ifndef XRMA_PROV_HOSTFAB_H
#define XRMA_PROV_HOSTFAB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <xrma/errors.h>
#include "providers/provider.h"
#include "common/killpoint.h"
#include "providers/util/hostfab_share.h"

/* ---------------------------------------------------------------- limits */

#define HOSTFAB_EP_MAX      64      /* live endpoints (processes/contexts) per node */
#define HOSTFAB_NAME_MAX    32768   /* bound names per node, all name spaces */
#define HOSTFAB_EXPORT_MAX  16384   /* exported memory regions per node */
#define HOSTFAB_SPAD_MAX    64      /* scratchpad registers a model may expose */
#define HOSTFAB_ALLOW_MAX   16      /* extra uids allowed to connect */
#define HOSTFAB_STAGE_SIZE  (1u << 20)  /* staging buffer of the copy fallback */

/* The [host] keys (hostfab_config.c), read by every provider built on the host fabric. */
enum hostfab_config_key {
	HOSTFAB_CONFIG_RUNTIME_DIR,  /* [host] runtime_dir / XRMA_HOST_RUNTIME_DIR */
	HOSTFAB_CONFIG_FABRIC_UID,   /* [host] fabric_uid  / XRMA_HOST_FABRIC_UID */
	HOSTFAB_CONFIG_ALLOW_UIDS,   /* [host] allow_uids  / XRMA_HOST_ALLOW_UIDS */
	HOSTFAB_CONFIG_CMA,          /* [host] cma         / XRMA_HOST_CMA */
	HOSTFAB_CONFIG_KEY_COUNT
};
struct xrma_config_table;
extern const struct xrma_config_table xrma_util_host_config;

/* ---------------------------------------------------------------- the model */

struct hostfab_model {
	const char *name;           /* provider name, for messages */
	/* Inbound window space per node: exported memory is carved from mw_count
	 * windows of mw_size each, in xlat_align units (0: unlimited). */
	uint32_t mw_count;
	uint64_t mw_size;
	uint64_t xlat_align;
	uint32_t db_count;          /* doorbell bits (0: none) */
	uint32_t spad_count;        /* scratchpad registers */
	uint32_t max_peers;         /* other nodes reachable (0: unlimited) */
	uint64_t bus_base;          /* bus address of window 0 (XRMA_CAP_BUS_ADDR) */
	/* Bus addresses carry the node id from this bit up (0: every node's
	 * windows start at bus_base, as behind each NTB). */
	uint32_t bus_node_shift;
};

/* ---------------------------------------------------------------- directory */

#define HOSTFAB_DIR_MAGIC   0x78726d6164697233ull   /* "xrmadir3" */

enum hostfab_slot_state { HOSTFAB_SLOT_FREE = 0, HOSTFAB_SLOT_LIVE = 1 };

struct hostfab_dir_slot {
	uint32_t state;             /* hostfab_slot_state */
	uint32_t ep;                /* endpoint number */
	int32_t pid;
	uint32_t uid;
};

struct hostfab_dir_name {
	uint64_t id;
	uint16_t used;              /* 0 empty, 1 bound, 2 deleted (probe chains go on) */
	uint16_t ns;
	uint16_t slot;              /* owning endpoint slot */
	uint16_t pad;
};

enum hostfab_export_state {
	HOSTFAB_EXPORT_FREE = 0,
	HOSTFAB_EXPORT_LIVE = 1,     /* importable */
	HOSTFAB_EXPORT_REVOKED = 2,  /* being withdrawn: no new transfer may start */
};

/* An exported memory region. Importers of registered memory count themselves
 * in active while a cross-memory transfer runs, so the owner can withdraw it
 * safely (it waits for active to drain). */
struct hostfab_dir_export {
	uint32_t state;             /* hostfab_export_state */
	uint16_t slot;              /* owning endpoint slot */
	uint16_t window;            /* inbound window it occupies */
	uint64_t gen;               /* never repeats for this index */
	uint64_t win_offset;        /* offset inside the window */
	uint64_t win_len;           /* window space taken (xlat_align multiple) */
	uint64_t len;
	_Atomic uint32_t active;    /* cross-memory transfers in flight (futex word) */
	uint32_t access;
};

struct hostfab_dir {
	_Atomic uint64_t magic;     /* set last by the creator */
	uint32_t node;
	uint32_t link_down;         /* modelled link state (1: down) */
	pthread_mutex_t lock;       /* robust, process-shared */
	_Atomic uint32_t seq;       /* odd while a writer changes names/exports */
	uint32_t last_ep;
	uint64_t next_gen;
	uint64_t name_hint[XRMA_NS_COUNT];   /* where the next automatic id search starts */
	uint32_t names_used;        /* bound + deleted entries */
	uint32_t pad0;
	/* doorbells: pending bits, a futex word bumped on every ring, sleepers */
	_Atomic uint64_t db_pending;
	_Atomic uint32_t db_futex;
	_Atomic uint32_t db_sleepers;
	/* bumped after every change of names, slots or exports and before the file is
	 * unlinked, so a waiter for a name (hostfab_name_wait) sleeps on it */
	_Atomic uint32_t names_futex;
	_Atomic uint32_t names_sleepers;
	_Atomic uint32_t spad[HOSTFAB_SPAD_MAX];
	struct hostfab_dir_slot slots[HOSTFAB_EP_MAX];
	struct hostfab_dir_export exports[HOSTFAB_EXPORT_MAX];
	struct hostfab_dir_name names[HOSTFAB_NAME_MAX];
};

/* A directory mapped by this endpoint: its own node's (read-write) or a peer's. */
struct hostfab_dirmap {
	struct hostfab_dirmap *next;    /* in ep->dirs unless retired */
	uint32_t node;                  /* fixed at open */
	int fd;
	bool writable;
	struct hostfab_dir *dir;
	unsigned users;                 /* holders from hostfab_dir_peer; under ep->lock */
	bool retired;                   /* its node's file was replaced; under ep->lock */
};

/* ---------------------------------------------------------------- wire */

/* Provider-level message kinds; every packet starts with one. */
enum hostfab_msg {
	HOSTFAB_MSG_HELLO = 1,   /* first packet of an outgoing control connection */
	HOSTFAB_MSG_CTRL,        /* a core control message follows */
	HOSTFAB_MSG_BYE,         /* orderly close: the sender's endpoint is going away */
	HOSTFAB_MSG_FETCH,       /* import request on a one-shot connection */
	HOSTFAB_MSG_FETCH_REPLY, /* status, with the memory's fd when 0 */
	HOSTFAB_MSG_STAGE,       /* open a staging channel for one import */
	HOSTFAB_MSG_STAGE_REPLY, /* status, with the staging buffer's fd when 0 */
	HOSTFAB_MSG_STAGE_OP,    /* one copy/atomic request on a staging channel */
	HOSTFAB_MSG_STAGE_DONE,  /* its status (and an atomic's old value) */
	HOSTFAB_MSG_LINK,        /* a node's modelled link changed */
};

struct hostfab_hdr {
	uint32_t kind;
	uint32_t node;           /* sender */
	uint32_t ep;             /* sender */
	uint32_t pad;
};

/* The key an export hands out (struct xrma_prov_key bytes). */
struct hostfab_key {
	uint32_t index;          /* export slot in the owner's directory */
	uint32_t kind;           /* HOSTFAB_MEM_* */
	uint64_t gen;
	uint64_t cookie;
	uint64_t addr;           /* registered memory: the owner's address */
	uint32_t pid;            /* registered memory: the owner's pid */
	uint32_t pad;
};

/* ---------------------------------------------------------------- endpoint */

#define HOSTFAB_PKT_MAX (sizeof(struct hostfab_hdr) + 65536)
#define HOSTFAB_GONE_MAX 1024

/* Endpoints known to be gone, so a late send fails fast and death is told once. */
struct hostfab_gone {
	struct xrma_prov_addr addr[HOSTFAB_GONE_MAX];
	size_t n, next;
};

enum hostfab_conn_kind {
	HOSTFAB_CONN_OUT = 1,    /* ours, to one destination: we send on it */
	HOSTFAB_CONN_IN,         /* a peer's, accepted: we receive on it */
	HOSTFAB_CONN_STAGE,      /* the owner's end of an importer's staging channel */
};

/* A packet waiting for room on an outgoing connection. */
struct hostfab_qpkt {
	struct hostfab_qpkt *next;
	size_t len;
	unsigned char data[];
};

struct hostfab_conn {
	struct hostfab_conn *next;   /* ep->conns; under ep->lock */
	int fd;                      /* fixed */
	enum hostfab_conn_kind kind; /* IN becomes STAGE on its first packet */
	bool peer_known;             /* IN: after HELLO */
	struct xrma_prov_addr peer;  /* OUT: fixed; IN: from HELLO */
	bool want_out;               /* EPOLLOUT armed; under ep->lock */
	struct hostfab_qpkt *q_head, *q_tail;   /* OUT; under ep->lock */
	/* STAGE: the export served and the staging buffer (service thread only). */
	uint32_t stage_index;
	uint64_t stage_gen;
	void *stage_buf;
};

enum hostfab_mem_kind {
	HOSTFAB_MEM_MEMFD = 1,   /* ours, shareable: importers map it */
	HOSTFAB_MEM_USER = 2,    /* the caller's registered pages */
	HOSTFAB_MEM_SHARED = 3,  /* the caller's registered pages, on a file importers map */
};

/* Memory an endpoint owns (struct xrma_prov_mem to the core). */
struct hostfab_mem {
	struct hostfab_mem *next, *prev;   /* ep->mems; under ep->lock */
	enum hostfab_mem_kind kind;        /* fixed */
	int fd;                            /* fixed: the memfd or shared file, or -1 */
	uint64_t file_offset;              /* fixed: SHARED: where addr is in fd */
	struct hostfab_share *share;       /* fixed: SHARED: the table entry behind fd */
	void *addr;                        /* fixed */
	size_t len;                        /* fixed */
	size_t map_len;                    /* fixed: bytes mapped (MEMFD) */
	uint64_t cookie;                   /* fixed: random */
	bool exported;                     /* under ep->lock */
	uint32_t index;                    /* export slot while exported */
	uint64_t gen;
	uint32_t access;
	uint64_t bus;                      /* modelled bus address while exported */
};

/* An import (struct xrma_prov_rmem to the core). */
struct hostfab_rmem {
	struct xrma_prov_addr owner;       /* fixed */
	struct hostfab_key key;            /* fixed */
	size_t len;                        /* fixed */
	uint32_t access;                   /* fixed */
	unsigned char *base;               /* fixed: MEMFD: the whole mapping */
	size_t map_len;                    /* fixed */
	int mem_fd;                        /* fixed: MEMFD, SHARED: kept for map */
	uint64_t file_offset;              /* fixed: where the memory starts in mem_fd */
	struct hostfab_dirmap *odir;       /* fixed: the owner's directory (USER) */
	pthread_mutex_t stage_lock;        /* one staged request at a time */
	int stage_fd;                      /* under stage_lock; -1 until opened */
	unsigned char *stage;              /* under stage_lock */
	atomic_bool cma_denied;            /* cross-memory attach refused once: stage */
};

struct hostfab_ep {
	const struct hostfab_model *model;       /* fixed */
	struct xrma_prov_addr self;              /* fixed */
	struct xrma_prov_upcalls upcalls;        /* fixed */
	void *core;                              /* fixed */
	char ns[160];                            /* fixed: "<uid>.<escaped fabric>" */
	char dirpath[256];                       /* fixed: the runtime directory */
	uid_t uid;                               /* fixed: our uid */
	uint32_t allow[HOSTFAB_ALLOW_MAX];       /* fixed: other uids allowed in */
	uint32_t allow_count;                    /* fixed */
	bool allow_any;                          /* fixed */
	bool cma;                                /* fixed: cross-memory attach allowed */
	pid_t pid;                               /* fixed */
	int slot;                                /* fixed: our slot in the node directory */
	int slot_fd;                             /* fixed: holds the slot's OFD lock */
	int listen_fd;                           /* fixed */
	int reserve_fd;                          /* progress only: a slot kept for accept */
	int epfd;                                /* fixed: the progress fd */
	struct hostfab_dirmap *own;              /* fixed: our node's directory */

	pthread_mutex_t lock;
	struct hostfab_conn *conns;              /* every open connection; under lock */
	struct hostfab_dirmap *dirs;             /* peer directories mapped; under lock */
	struct hostfab_mem *mems;                /* memory we own; under lock */
	uint64_t next_mem_id;                    /* under lock */
	bool closing;                            /* under lock */
	struct hostfab_gone gone;                /* under lock */
	/* One progress at a time, the service thread's or an application thread's poll. */
	pthread_mutex_t progress_lock;
	unsigned char *rxbuf;                    /* fixed: HOSTFAB_PKT_MAX; under progress_lock */
};

/* ---------------------------------------------------------------- helpers */

/* Set a readable detail for the failure being returned (see xrma_error_detail). */
void hostfab_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* hostfab_dir.c */
int hostfab_dir_open(struct hostfab_ep *ep, uint32_t node, bool create, struct hostfab_dirmap **out);
void hostfab_dir_close(struct hostfab_dirmap *map);
/*
 * The directory of node, mapped once and kept; XRMA_ENODEV if absent. Every successful
 * call must be paired with hostfab_dir_put: a directory whose node went away (its file
 * unlinked) is retired and unmapped when its last holder (an import, a lookup in
 * progress) lets go.
 */
int hostfab_dir_peer(struct hostfab_ep *ep, uint32_t node, struct hostfab_dirmap **out);
void hostfab_dir_put(struct hostfab_ep *ep, struct hostfab_dirmap *map);
/* hostfab_dir_peer for a reader of node: XRMA_EACCES (another user), else XRMA_ENODEV. */
int hostfab_dir_reader(struct hostfab_ep *ep, uint32_t node, struct hostfab_dirmap **out);
int hostfab_dir_lock(struct hostfab_ep *ep, struct hostfab_dir *dir);
void hostfab_dir_unlock(struct hostfab_dir *dir);
void hostfab_dir_write_begin(struct hostfab_dir *dir);
void hostfab_dir_write_end(struct hostfab_dir *dir);
/* Lock-free readers: begin waits for an even count and returns it; retry says whether a
 * writer ran since (the loads in between must then be taken again). */
uint32_t hostfab_dir_read_begin(const struct hostfab_dirmap *map);
bool hostfab_dir_read_retry(const struct hostfab_dir *dir, uint32_t seq);
/* Join the node: take a slot (reclaiming dead ones) and an endpoint number. */
int hostfab_dir_join(struct hostfab_ep *ep);
/*
 * Whether our node's file is still the one at its path: a tmp cleaner or
 * systemd-logind's RemoveIPC may delete it under a running node, which then
 * becomes invisible. 0, or XRMA_EIO with a detail saying so.
 */
int hostfab_dir_check_own(struct hostfab_ep *ep);
/* Leave: free our slot, names and exports; unlink the file if the node empties. */
void hostfab_dir_leave(struct hostfab_ep *ep);
/* Reclaim the slots of dead endpoints of a node (under its lock). Returns how many. */
int hostfab_dir_reclaim_locked(struct hostfab_ep *ep, struct hostfab_dirmap *map);
/* Reclaim the dead endpoints of a node, and unlink its file if none is left (the dead
 * never say goodbye). _sweep does it by node id. */
void hostfab_dir_remove_if_dead(struct hostfab_ep *ep, struct hostfab_dirmap *map);
void hostfab_dir_sweep(struct hostfab_ep *ep, uint32_t node);
/* Remove the files of this user's nodes, on any fabric, whose processes all died. */
void hostfab_dir_sweep_runtime(struct hostfab_ep *ep);
/* Whether node has a live endpoint; with ep_out, whether that endpoint is live. */
bool hostfab_dir_node_live(struct hostfab_ep *ep, struct hostfab_dirmap *map);
bool hostfab_dir_ep_live(struct hostfab_ep *ep, struct hostfab_dirmap *map, uint32_t epno);
/* Export table. */
int hostfab_dir_export_add(struct hostfab_ep *ep, uint64_t len, uint32_t access, uint32_t *index,
			   uint64_t *gen, uint64_t *bus);
void hostfab_dir_export_set_access(struct hostfab_ep *ep, uint32_t index, uint32_t access);
void hostfab_dir_export_remove(struct hostfab_ep *ep, uint32_t index, uint64_t gen);
/* The live endpoint whose export holds offset of window in map's node:
 * 0, XRMA_ENOENT (none), XRMA_ENODEV (the node is gone). */
int hostfab_dir_export_owner(struct hostfab_ep *ep, struct hostfab_dirmap *map, uint16_t window,
			     uint64_t offset, uint32_t *epno);
/* The uid of live endpoint epno of map's node; false if there is none. */
bool hostfab_dir_ep_uid(struct hostfab_dirmap *map, uint32_t epno, uint32_t *uid);

int hostfab_name_bind(void *state, enum xrma_ns ns, uint64_t *id, uint64_t min, uint64_t max);
int hostfab_name_unbind(void *state, enum xrma_ns ns, uint64_t id);
/* Wait for node's directory to change (provider.h, name_wait). */
int hostfab_name_wait(void *state, uint32_t node, uint64_t *seen, int timeout_ms);
/* Wake the waiters for this node's names: an object became usable (provider.h). */
void hostfab_name_changed(void *state);
int hostfab_name_lookup(void *state, uint32_t node, enum xrma_ns ns, uint64_t id,
			struct xrma_prov_addr *owner);

/* hostfab_objects.c: the node_objects op (a node's contexts, names and exports). */
int hostfab_node_objects(void *state, uint32_t node,
			 int (*report)(void *arg, const struct xrma_node_object *obj), void *arg);

/* hostfab_chan.c */
void hostfab_sockname(const struct hostfab_ep *ep, uint32_t node, uint32_t epno, char *buf,
		      size_t len, socklen_t *addrlen);
int hostfab_chan_listen(struct hostfab_ep *ep);
/* Connect to (node, ep) and check who answers; returns the fd or a negative code. */
int hostfab_chan_dial(struct hostfab_ep *ep, const struct xrma_prov_addr *dst);
bool hostfab_cred_ok(const struct hostfab_ep *ep, int fd);
/* Packets with an optional descriptor. Blocking, bounded by timeout_ms (-1: none). */
int hostfab_pkt_send(int fd, const void *buf, size_t len, int pass_fd);
int hostfab_pkt_recv(int fd, void *buf, size_t len, int *got_fd, int timeout_ms);
void hostfab_chan_goodbye(struct hostfab_ep *ep);
/* Stop listening: at close, before the node's file is left (hostfab_dir_open says why). */
void hostfab_chan_unlisten(struct hostfab_ep *ep);
void hostfab_chan_destroy(struct hostfab_ep *ep);
int hostfab_progress_fd(void *state);
int hostfab_progress(void *state);
/*
 * Progress from an application thread (the ops' poll): packets already in our
 * sockets are delivered before it returns, so what a peer's send put there is
 * seen at once. Returns how many sockets had something.
 */
int hostfab_poll(void *state);
int hostfab_ctrl_send(void *state, const struct xrma_prov_addr *dst, const void *msg, size_t len);
/* Tell every live endpoint of the fabric that node's link changed; _send_link
 * tells those of node `to` only that their link to `about` did. */
void hostfab_chan_broadcast_link(struct hostfab_ep *ep, uint32_t node, bool up);
void hostfab_chan_send_link(struct hostfab_ep *ep, uint32_t to, uint32_t about, bool up);

/* hostfab_mem.c */
int hostfab_mem_alloc(void *state, size_t len, struct xrma_prov_mem **mem, void **addr);
int hostfab_mem_register(void *state, void *addr, size_t len, uint32_t flags, struct xrma_prov_mem **mem);
void hostfab_mem_free(void *state, struct xrma_prov_mem *mem);
int hostfab_mem_export(void *state, struct xrma_prov_mem *mem, uint32_t access,
		       struct xrma_prov_key *key);
void hostfab_mem_unexport(void *state, struct xrma_prov_mem *mem);
int hostfab_mem_import(void *state, const struct xrma_prov_addr *owner,
		       const struct xrma_prov_key *key, size_t len, uint32_t access,
		       struct xrma_prov_rmem **rmem);
void hostfab_mem_unimport(void *state, struct xrma_prov_rmem *rmem);
/* Serve a FETCH or STAGE request that arrived on a fresh connection (service thread). */
void hostfab_mem_serve(struct hostfab_ep *ep, struct hostfab_conn *conn, const void *pkt,
		       size_t len);
void hostfab_mem_release_all(struct hostfab_ep *ep);
int hostfab_mem_bus_addr(void *state, struct xrma_prov_mem *mem, uint64_t *bus);
/* XRMA_CAP_BUS_IMPORT: the endpoint whose export holds bus on node; the permit of
 * the host fabric lets in the owner's own user only. */
int hostfab_bus_owner(void *state, uint32_t node, uint64_t bus, struct xrma_prov_addr *owner);
int hostfab_bus_permit(void *state, const struct xrma_prov_addr *src);
/* Whether src's endpoint runs as our user (false if it is gone). */
bool hostfab_peer_same_user(struct hostfab_ep *ep, const struct xrma_prov_addr *src);
/* Ask owner for a descriptor (kind FETCH or STAGE); keeps the connection in *conn_fd if asked,
 * and for FETCH tells where the memory starts in it (*file_offset, if asked). */
int hostfab_mem_request(struct hostfab_ep *ep, const struct xrma_prov_addr *owner,
			const struct hostfab_key *k, uint32_t kind, uint32_t access, int *conn_fd,
			int *mem_fd, uint64_t *file_offset);
/* Our exported memory at (index, gen), cookie checked unless 0 (under ep->lock). */
struct hostfab_mem *hostfab_mem_find_locked(struct hostfab_ep *ep, uint32_t index, uint64_t gen,
					    uint64_t cookie);

/* hostfab_rma.c */
int hostfab_rma(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
		const struct iovec *iov, size_t count, uint32_t flags);
/* The rma_try op: hostfab_rma, or -XRMA_EAGAIN where only the owner's staged copy would do. */
int hostfab_rma_try(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
		    const struct iovec *iov, size_t count, uint32_t flags);
int hostfab_atomic(void *state, struct xrma_prov_rmem *rmem, size_t offset, enum xrma_atomic_op op,
		   uint64_t operand, uint64_t compare, uint64_t *old);
int hostfab_map(void *state, struct xrma_prov_rmem *rmem, size_t offset, size_t len, uint32_t prot,
		void **addr);
void hostfab_unmap(void *state, struct xrma_prov_rmem *rmem, void *addr, size_t len);
/* The owner's side of a staging channel: one request (service thread). */
void hostfab_stage_serve(struct hostfab_ep *ep, struct hostfab_conn *conn, const void *pkt,
			 size_t len);
/* Free a staging connection's buffer. */
void hostfab_stage_release(struct hostfab_conn *conn);

/* hostfab_db.c */
int hostfab_doorbell_raise(void *state, uint32_t node, uint64_t bits);
int hostfab_doorbell_wait(void *state, uint64_t mask, int timeout_ms, uint64_t *fired);
int hostfab_scratchpad_read(void *state, uint32_t node, uint32_t index, uint32_t *value);
int hostfab_scratchpad_write(void *state, uint32_t node, uint32_t index, uint32_t value);

/* hostfab_init.c */
int hostfab_open(const struct hostfab_model *model, const struct xrma_prov_open_args *args,
		 void **state, struct xrma_prov_addr *self);
void hostfab_close(void *state);
int hostfab_node_list(void *state, uint32_t *ids, size_t max, size_t *count);
int hostfab_node_probe(void *state, uint32_t node, int timeout_ms);
/* Test hook and tool entry: set node's modelled link state and announce it. */
int hostfab_link_set(void *state, uint32_t node, bool up);

#endif
