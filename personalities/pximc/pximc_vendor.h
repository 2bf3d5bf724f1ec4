/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_vendor.h: private types of xrma's PXImc vendor library.
 * An instance is one PXImc "system": a core context (one node), a listener on the PXImc
 * service port, a service thread, and the session table. Interfaces are the other live
 * nodes (interfaceID = node id + 1). docs/pximc.md describes the pairing protocol.
 */
#ifndef XRMA_PXIMC_VENDOR_H
#define XRMA_PXIMC_VENDOR_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <pximc.h>
#include <pximc_xrma.h>
#include <xrma/xrma.h>
#include "common/killpoint.h"

#define XRMA_PXIMC_EXPORT __attribute__((visibility("default")))

/* The port every instance listens on for PXImc control requests. */
#define XRMA_PXIMC_PORT 4791u
/* Largest window allocated when a request says "as large as possible" (the resource). */
#define XRMA_PXIMC_WINDOW_LIMIT (64ull << 20)
#define XRMA_PXIMC_DATA_MAX 1024u
/* Bound on one control round trip (connect, request, reply). */
#define XRMA_PXIMC_CALL_MS 2000
/* Posted windows listed per findWindows reply. */
#define XRMA_PXIMC_FIND_MAX 1024u

enum xrma_pximc_state {
	XRMA_PXIMC_POSTED = 1,   /* server / peer waiting for a partner */
	XRMA_PXIMC_CLAIMING,     /* posted peer asking the remote side to pair (docs/pximc.md) */
	XRMA_PXIMC_PAIRING,      /* owner accepted; the partner's window id is on its way */
	XRMA_PXIMC_PAIRED,
	XRMA_PXIMC_REMOTE_CLOSED,
};

struct xrma_pximc_session {
	uint32_t number;         /* fixed */
	uint32_t node;           /* remote node; fixed */
	uint32_t conn_type;      /* PXIMC_CONNECTION_*; fixed */
	uint32_t loc_type;       /* PXIMC_LOCATION_*; fixed */
	uint32_t protocol;
	uint64_t min_local, max_local, min_remote, max_remote;  /* as requested */
	uint32_t uid;            /* windowID (posted uid; a client's is its server's) */
	uint32_t partner_uid;    /* the partner's posted window id once paired (0: none) */
	bool posted;             /* listed by the remote findWindows */
	uint32_t data_len;
	uint8_t data[XRMA_PXIMC_DATA_MAX];
	/* Below: under the instance lock. */
	enum xrma_pximc_state state;
	bool answered_busy;      /* while CLAIMING, a partner's request heard BUSY from it */
	bool closed;             /* closeWindow ran; freed when waiters reaches 0 */
	unsigned waiters;
	uint64_t local_size, remote_size;
	struct xrma_seg *local_seg;
	void *local_addr;
	struct xrma_rseg *remote_rseg;
	void *remote_addr;
	uint64_t remote_bus;     /* bus address of the partner's window, or UINT64_MAX */
	struct xrma_intr *intr;           /* the partner's assertEvent lands here */
	struct xrma_rintr *partner_intr;  /* assertEvent triggers this */
	struct xrma_rintr *wake;          /* our own intr: wakes a waiter on CONNECTION_CLOSED */
	struct xrma_conn *link;  /* the session's control stream to its partner */
	uint8_t rx[48];          /* partial link message */
	size_t rx_len;
	atomic_uint event;       /* 0 or PXIMC_EVENT_*; CONNECTION_CLOSED is sticky */
	bool local_waiting;
	uint32_t device_access[8][2];  /* (bdf, mode) pairs from enableDeviceAccess */
	unsigned device_count;
	/* A physical server: the device memory segment and offset its physicalAddress names. */
	uint64_t phys_seg_id;
	uint64_t phys_offset;
	uint64_t phys_address;
};

/* Device memory of an instance (xrma_pximc_device_memory): what physical servers expose. */
struct xrma_pximc_devmem {
	struct xrma_seg *seg;
	uint64_t seg_id;
	uint64_t bus;
	size_t len;
	void *addr;
};

struct xrma_pximc_iface {
	uint32_t node;
	uint32_t latch;          /* PXIMC_EVENT_* bits not yet reported */
	uint32_t state;          /* last PXIMC_STATE_* seen */
	bool link_down;          /* the modelled link to node (or ours) is down */
	bool subscribed;         /* we told that node to send us window notices */
};

struct xrma_pximc {
	struct xrma_ctx *ctx;    /* fixed */
	uint32_t self;           /* fixed */
	uint64_t win_limit;      /* fixed */
	uint32_t tree_host;      /* fixed: the tree's host node (pximc.tree_host), or UINT32_MAX */
	bool can_map;            /* fixed: the provider maps remote memory (XRMA_CAP_MAP) */
	pthread_mutex_t lock;    /* guards everything below */
	pthread_cond_t cond;     /* CLOCK_MONOTONIC; broadcast on any session or latch change */
	struct xrma_conn *listener;
	pthread_t service;
	pthread_t notifier;       /* sends window notices (pximc_instance.c) */
	int epfd;                /* listener, links, wake */
	int wake_fd;             /* eventfd: stop, notices to send, zombies */
	bool stopping;
	struct xrma_pximc_session **sessions;
	size_t session_count, session_cap;
	uint32_t next_session;
	uint32_t next_uid;
	struct xrma_pximc_iface *ifaces;
	size_t iface_count, iface_cap;
	uint32_t *subscribers;   /* nodes to tell about window changes */
	size_t subscriber_count, subscriber_cap;
	struct xrma_pximc_notice { uint32_t node, bits; } *notices;  /* for the service thread */
	size_t notice_count, notice_cap;
	struct xrma_seg **zombies;  /* closed sessions' windows still imported by the partner */
	size_t zombie_count, zombie_cap;
	struct xrma_pximc_devmem *devmem;
	size_t devmem_count, devmem_cap;
};

/* pximc_errors.c: the one table from core codes to PXImc status. */
tPXIMC_Status xrma_pximc_status(int core_err, tPXIMC_Status fallback);

/* pximc_instance.c */
struct xrma_pximc *xrma_pximc_current(tPXIMC_Status *status);
int xrma_pximc_grow(void **array, size_t *cap, size_t want, size_t elem);
void xrma_pximc_kick(struct xrma_pximc *px);
uint64_t xrma_pximc_now_ms(void);
/* Wait on px->cond until deadline (UINT64_MAX: for ever); ETIMEDOUT once it passed. */
int xrma_pximc_cond_wait(struct xrma_pximc *px, uint64_t deadline_ms);
uint64_t xrma_pximc_deadline(uint32_t timeout_ms);
struct xrma_pximc_session *xrma_pximc_session_find(struct xrma_pximc *px, uint32_t number);
int xrma_pximc_session_add(struct xrma_pximc *px, struct xrma_pximc_session *s);
void xrma_pximc_session_release(struct xrma_pximc *px, struct xrma_pximc_session *s);
void xrma_pximc_session_drop(struct xrma_pximc *px, struct xrma_pximc_session *s);
int xrma_pximc_link_watch(struct xrma_pximc *px, struct xrma_pximc_session *s);
void xrma_pximc_reap_zombies(struct xrma_pximc *px);
void xrma_pximc_cleanup_sessions(struct xrma_pximc *px);

/* pximc_interface.c */
int xrma_pximc_iface_node(struct xrma_pximc *px, uint32_t interface_id, uint32_t *node);
struct xrma_pximc_iface *xrma_pximc_iface_get(struct xrma_pximc *px, uint32_t node);
void xrma_pximc_notice_windows(struct xrma_pximc *px, uint32_t node);
void xrma_pximc_subscriber_add(struct xrma_pximc *px, uint32_t node);
/* Is the link between us and node up (both ends; providers without a link model: yes)? */
bool xrma_pximc_link_up(struct xrma_pximc *px, uint32_t node);
/* The link to node went down or came back: interface latch and state, and INTERFACE_DOWN
 * for every session on node. Under lock. */
void xrma_pximc_iface_link(struct xrma_pximc *px, uint32_t node, bool up);
/* Core event callback of session windows (arg: the instance): link events of the partner. */
void xrma_pximc_window_event(void *arg, const struct xrma_event *event);

/* pximc_protocol.c: the control messages between instances. */
enum xrma_pximc_msg {
	XRMA_PXIMC_MSG_HELLO = 1,   /* subscribe; reply: remote facts */
	XRMA_PXIMC_MSG_FIND,        /* reply: posted window ids */
	XRMA_PXIMC_MSG_QUERY,       /* reply: one window's attributes */
	XRMA_PXIMC_MSG_PAIR,        /* reply: pairing result; the stream becomes the link */
	XRMA_PXIMC_MSG_NOTICE,      /* interface event bits for the receiver */
	XRMA_PXIMC_MSG_SEGID,       /* link: the requester's local window id */
	XRMA_PXIMC_MSG_ASSERT,      /* link: assertEvent */
};

struct xrma_pximc_hdr {
	uint32_t magic;
	uint32_t type;
	uint32_t len;     /* payload bytes after the header */
	uint32_t arg;     /* a small argument or result code */
};

#define XRMA_PXIMC_MAGIC 0x50584d43u  /* "PXMC" */

struct xrma_pximc_hello {
	uint32_t word_size;
	uint32_t endianness;
	char os[160];
};

struct xrma_pximc_window_info {
	uint32_t uid, conn_type, loc_type, protocol, pairing, event_status, data_len, pad;
	uint64_t min_local, max_local, min_remote, max_remote;
	uint8_t data[XRMA_PXIMC_DATA_MAX];
};

enum xrma_pximc_pair_result {
	XRMA_PXIMC_PAIR_OK = 0,
	XRMA_PXIMC_PAIR_NO_MATCH,
	XRMA_PXIMC_PAIR_BUSY,        /* a match is itself claiming; see docs/pximc.md */
};

struct xrma_pximc_pair_req {
	uint32_t conn_type, loc_type, protocol, target_uid;
	uint64_t min_local, max_local, min_remote, max_remote;
};

struct xrma_pximc_pair_reply {
	uint32_t uid, pad;
	uint64_t owner_local, owner_remote;
	uint64_t owner_seg_id;
	uint64_t owner_bus;      /* UINT64_MAX: no modelled bus address */
	uint64_t owner_intr;     /* the interrupt the requester's assertEvent triggers */
	uint64_t owner_offset;   /* where the window starts in owner_seg_id (physical servers) */
};

/* The link's first message, from the requester: its window, that window's bus address and
 * its posted uid (0 for a client), which the owner keeps as its partner's window id. */
struct xrma_pximc_segid {
	uint32_t uid, pad;
	uint64_t seg_id;
	uint64_t bus;
	uint64_t intr;
};

/* Open s's event interrupt and the local trigger that wakes its waiter; *number gets it. */
int xrma_pximc_events_open(struct xrma_pximc *px, struct xrma_pximc_session *s, uint64_t *number);

/* The bus address of an exported window, or UINT64_MAX where the provider has none. */
uint64_t xrma_pximc_window_bus(struct xrma_seg *seg);

/*
 * One request to node: connect, send, read the reply header and up to reply_max bytes.
 * With keep, the connected stream is handed back instead of closed. Core error or 0.
 */
int xrma_pximc_call(struct xrma_pximc *px, uint32_t node, uint32_t type, uint32_t arg,
		    const void *req, uint32_t req_len, struct xrma_pximc_hdr *reply_hdr,
		    void *reply, uint32_t reply_max, struct xrma_conn **keep);
/*
 * Messages are little-endian on the wire whatever the host: send_msg converts the header and,
 * by (type, reply), the payload; receivers call xrma_pximc_hdr_wire on the header and
 * xrma_pximc_wire on the payload. Both conversions are their own inverse.
 */
void xrma_pximc_hdr_wire(struct xrma_pximc_hdr *hdr);
void xrma_pximc_wire(uint32_t type, bool reply, void *payload, size_t len);
int xrma_pximc_send_msg(struct xrma_conn *conn, uint32_t type, uint32_t arg, bool reply,
			const void *payload, uint32_t len, int timeout_ms);
int xrma_pximc_recv_full(struct xrma_conn *conn, void *buf, size_t len, int timeout_ms);
void xrma_pximc_serve(struct xrma_pximc *px, struct xrma_conn *conn);

/* pximc_session.c: is s's event flag set (a trigger not yet taken becomes the flag)? Under lock. */
bool xrma_pximc_event_pending(struct xrma_pximc_session *s);

/* pximc_physical.c: the device memory holding [address, address + size) goes into s's
 * phys_* fields; PHY_RESOURCE_NOT_AVAILABLE when none does. Under lock. */
tPXIMC_Status xrma_pximc_physical_range(struct xrma_pximc *px, uint64_t address, uint64_t size,
					struct xrma_pximc_session *s);
void xrma_pximc_device_memory_free(struct xrma_pximc *px);

/* pximc_pairing.c */
void xrma_pximc_pair_sizes(const struct xrma_pximc_pair_req *req, const struct xrma_pximc_session *w,
			   uint64_t limit, bool *ok, uint64_t *owner_local, uint64_t *owner_remote);
void xrma_pximc_handle_pair(struct xrma_pximc *px, struct xrma_conn *conn, uint32_t node,
			    const struct xrma_pximc_pair_req *req);
void xrma_pximc_window_info(struct xrma_pximc_session *s, struct xrma_pximc_window_info *info);
void xrma_pximc_link_input(struct xrma_pximc *px, struct xrma_pximc_session *s);
void xrma_pximc_session_free_resources(struct xrma_pximc *px, struct xrma_pximc_session *s);

/* The operations behind the 17 entry points (pximc_api.c resolves the instance). */
tPXIMC_Status xrma_pximc_find_interfaces(struct xrma_pximc *px, uint32_t max, uint32_t *ids,
					 uint32_t *actual);
tPXIMC_Status xrma_pximc_query_interface(struct xrma_pximc *px, uint32_t interface_id,
					 uint32_t attribute, uint32_t max, void *out,
					 uint32_t *actual);
tPXIMC_Status xrma_pximc_wait_interface_event(struct xrma_pximc *px, uint32_t interface_id,
					      uint32_t timeout_ms, uint32_t *reason);
tPXIMC_Status xrma_pximc_find_windows(struct xrma_pximc *px, uint32_t interface_id, uint32_t max,
				      uint32_t *ids, uint32_t *actual);
tPXIMC_Status xrma_pximc_query_window(struct xrma_pximc *px, uint32_t interface_id,
				      uint32_t window_id, uint32_t attribute, uint32_t max,
				      void *out, uint32_t *actual);
tPXIMC_Status xrma_pximc_request_server(struct xrma_pximc *px, uint32_t interface_id,
					uint32_t protocol, uint64_t max_local, uint64_t min_local,
					uint64_t max_remote, uint64_t min_remote, uint32_t uid,
					const uint8_t *data, uint32_t data_len, uint32_t *session);
tPXIMC_Status xrma_pximc_request_client(struct xrma_pximc *px, uint32_t interface_id,
					uint32_t protocol, uint64_t max_local, uint64_t min_local,
					uint64_t max_remote, uint64_t min_remote, uint32_t uid,
					uint32_t *session);
tPXIMC_Status xrma_pximc_request_peer(struct xrma_pximc *px, uint32_t interface_id,
				      uint32_t protocol, uint64_t max_local, uint64_t min_local,
				      uint64_t max_remote, uint64_t min_remote, uint32_t uid,
				      const uint8_t *data, uint32_t data_len, uint32_t *session);
tPXIMC_Status xrma_pximc_request_physical_server(struct xrma_pximc *px, uint32_t interface_id,
						 uint32_t protocol, uint64_t local_size, uint32_t uid,
						 uint64_t physical_address, const uint8_t *data,
						 uint32_t data_len, uint32_t *session);
tPXIMC_Status xrma_pximc_request_physical_client(struct xrma_pximc *px, uint32_t interface_id,
						 uint32_t protocol, uint64_t max_remote,
						 uint64_t min_remote, uint32_t uid,
						 uint32_t *session);
tPXIMC_Status xrma_pximc_wait_connection(struct xrma_pximc *px, uint32_t number,
					 uint32_t timeout_ms, void **remote_addr,
					 uint64_t *remote_size, void **local_addr,
					 uint64_t *local_size);
tPXIMC_Status xrma_pximc_physical_address(struct xrma_pximc *px, uint32_t number,
					  uint64_t *address);
tPXIMC_Status xrma_pximc_device_access(struct xrma_pximc *px, uint32_t number, uint32_t mode,
				       uint32_t bus, uint32_t dev, uint32_t func);
tPXIMC_Status xrma_pximc_assert_event(struct xrma_pximc *px, uint32_t number);
tPXIMC_Status xrma_pximc_wait_session_event(struct xrma_pximc *px, uint32_t number,
					    uint32_t timeout_ms, uint32_t *reason);
tPXIMC_Status xrma_pximc_close_window(struct xrma_pximc *px, uint32_t number);
tPXIMC_Status xrma_pximc_cleanup(struct xrma_pximc *px);

#endif
