/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/provider.h: the contract between the core and a transport.
 * Each provider exports one const struct xrma_provider: its name, its
 * capabilities (data, in <p>_caps.c) and its ops table. Mandatory ops are never
 * NULL; an optional op is NULL exactly when its capability bit is clear, which
 * xrma_provider_ops_valid() (core/registry.c) checks once, at registration.
 * The core calls ops only through the wrappers of core/prov_call.h, each
 * built on XRMA_PROV_CALL, so the op tested is the op called. Providers never
 * call the core's public API; they report inbound traffic and peer state
 * through the upcalls they are given at open.
 * Ops return 0 (or a count where noted) or a negative XRMA_E* code. Ops that
 * return void cannot fail for valid arguments; the core never passes others.
 */
#ifndef XRMA_PROVIDER_H
#define XRMA_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <xrma/info.h>
#include <xrma/dmaq.h>
#include <xrma/node.h>
#include <xrma/rseg.h>

/* An endpoint: one context on one node. ep is unique within the node. */
struct xrma_prov_addr {
	uint32_t node;
	uint32_t ep;
};

/* Node-wide name spaces: an id is unique on its node across processes. */
enum xrma_ns {
	XRMA_NS_SEG = 0,   /* segment ids */
	XRMA_NS_PORT,      /* connection ports */
	XRMA_NS_INTR,      /* interrupt numbers */
	XRMA_NS_COUNT
};

/* What an importer needs to reach exported memory; opaque to the core. */
#define XRMA_PROV_KEY_MAX 48
struct xrma_prov_key {
	uint32_t len;
	uint8_t bytes[XRMA_PROV_KEY_MAX];
};

struct xrma_prov_mem;    /* provider's local memory handle */

/* mem_register flags. */
#define XRMA_PROV_REGISTER_SHARE (1u << 0)   /* make the pages mappable by importers */
struct xrma_prov_rmem;   /* provider's imported memory handle */

/*
 * Upcalls: how a provider reports to the core. They run on the thread that
 * calls progress (the context's service thread) unless noted, and must not
 * be called with provider locks held that the core's calls could need.
 */
struct xrma_prov_upcalls {
	/* A control message from src, delivered once, in order per source. */
	void (*ctrl_recv)(void *core, const struct xrma_prov_addr *src, const void *msg, size_t len);
	/* Endpoint peer is gone (closed or died); status -XRMA_ECONNRESET or -XRMA_ELOST. */
	void (*peer_down)(void *core, const struct xrma_prov_addr *peer, int status);
	/* The link to node went down (up == false) or came back. */
	void (*link_event)(void *core, uint32_t node, bool up);
};

struct xrma_config;

struct xrma_prov_open_args {
	const char *fabric;                    /* isolated namespace name */
	uint32_t node_id;
	const struct xrma_config *config;      /* the snapshot in force (core/config.h) */
	/* In: the provider's static caps. A provider whose limits are configurable
	 * narrows them here; the core uses these for the context's life. */
	struct xrma_caps *caps;
	const struct xrma_prov_upcalls *upcalls;
	void *core;                            /* first argument of every upcall */
};

struct xrma_provider_ops {
	/* --- mandatory --- */
	int (*open)(const struct xrma_prov_open_args *args, void **state, struct xrma_prov_addr *self);
	void (*close)(void *state);
	/*
	 * Progress, the whole contract: the service thread calls progress whenever
	 * progress_fd is readable, and that alone must deliver everything pending
	 * (upcalls, done callbacks), so a provider needs nothing else. The optional
	 * poll (all traffic) and rma_poll (RMA completions only) do the same from an
	 * application thread, never block and return how much they handled, and
	 * rma_polling(on)/(off) brackets a stretch of rma_poll calls so a provider
	 * with a thread of its own lets it rest meanwhile.
	 */
	int (*progress_fd)(void *state);
	int (*progress)(void *state);
	/* Optional (xrma_ctx_progress); without it the call does nothing. A provider
	 * with its own thread rests it while the calls keep coming (it has no
	 * bracket: the calls are the application's, not the core's). */
	int (*poll)(void *state);
	/* Optional, with rma_post. Returns 0 too when another thread is reading the
	 * completions now. The core polls from a caller waiting for its transfers,
	 * and once after a post while many are in flight. */
	int (*rma_poll)(void *state);
	/* Optional, with rma_poll: on/off come in pairs and nest across threads. */
	void (*rma_polling)(void *state, bool on);

	int (*node_list)(void *state, uint32_t *ids, size_t max, size_t *count);
	int (*node_probe)(void *state, uint32_t node, int timeout_ms);

	/* *id in: wanted id or XRMA_ID_ANY (then the first free in [min, max];
	 * the range applies to XRMA_ID_ANY only). */
	int (*name_bind)(void *state, enum xrma_ns ns, uint64_t *id, uint64_t min, uint64_t max);
	int (*name_unbind)(void *state, enum xrma_ns ns, uint64_t id);
	/* XRMA_ENODEV no such node, XRMA_ENOENT nobody holds the id. */
	int (*name_lookup)(void *state, uint32_t node, enum xrma_ns ns, uint64_t id,
			   struct xrma_prov_addr *owner);
	/*
	 * Optional, no capability bit: wait for node's names to change (a name
	 * bound or released, an endpoint of the node opened or gone, an export
	 * made), so that a look-up that failed may be repeated. *seen is the
	 * provider's token of what the caller has seen: 0 asks for the current
	 * one without waiting; otherwise return at once if the token differs,
	 * else block up to timeout_ms (< 0: no limit) for a change, and store
	 * the new token. 0 (maybe early: the caller looks again), XRMA_ETIMEDOUT.
	 * Without it the core never waits for a name to appear.
	 */
	int (*name_wait)(void *state, uint32_t node, uint64_t *seen, int timeout_ms);
	/* With name_wait: wake the waiters for this node's names, because an
	 * object under one of them became usable (a segment exported). */
	void (*name_changed)(void *state);
	/*
	 * Optional, no capability bit: whether node is an id of the provider's
	 * model (say SCI's multiples of 4), up or not. Without it every id up
	 * to caps->max_node_id is.
	 */
	bool (*node_legal)(void *state, uint32_t node);

	/* Reliable, ordered per destination; len <= caps->ctrl_msg_max. */
	int (*ctrl_send)(void *state, const struct xrma_prov_addr *dst, const void *msg, size_t len);

	/* Page-aligned, zeroed, shareable memory. */
	int (*mem_alloc)(void *state, size_t len, struct xrma_prov_mem **mem, void **addr);
	void (*mem_free)(void *state, struct xrma_prov_mem *mem);
	int (*mem_export)(void *state, struct xrma_prov_mem *mem, uint32_t access, struct xrma_prov_key *key);
	void (*mem_unexport)(void *state, struct xrma_prov_mem *mem);
	/* len is the exported segment's length, as the owner reported it. */
	int (*mem_import)(void *state, const struct xrma_prov_addr *owner, const struct xrma_prov_key *key,
			  size_t len, uint32_t access, struct xrma_prov_rmem **rmem);
	void (*mem_unimport)(void *state, struct xrma_prov_rmem *rmem);

	/*
	 * Synchronous RMA between [offset, offset+total) of rmem and the local
	 * vector (plain addresses, already bounds- and rights-checked by the core).
	 * flags: only XRMA_RMA_ORDERED is passed. Returns 0, -XRMA_ELOST or
	 * -XRMA_ETRANSFER.
	 */
	int (*rma)(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
		   const struct iovec *iov, size_t count, uint32_t flags);

	/*
	 * Optional, no capability bit: rma, when the transfer can finish now
	 * without waiting for anything but the copy (no gate, back pressure,
	 * device or other thread): the same result as rma. Else -XRMA_EAGAIN,
	 * and nothing was moved. With it the core runs a short asynchronous
	 * transfer on an idle queue in the posting thread (core/dmaq.c), where
	 * a CPU copy costs less than handing it to the engine thread and back.
	 * Not used with rma_post, whose transfers run in the background.
	 */
	int (*rma_try)(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
		       const struct iovec *iov, size_t count, uint32_t flags);

	/*
	 * Optional, no capability bit: the same transfer, asynchronous, so the
	 * core's DMA engine keeps several in flight (up to the queues' depths).
	 * Returns 0 once the transfer is posted and then calls done(arg, status)
	 * exactly once, status being what rma would have returned. done may run
	 * on any thread, the caller's included and before rma_post returns; the
	 * core's done only records the status and wakes its engine (it neither
	 * blocks nor calls the provider), so a provider may call it with its own
	 * locks held. A non-zero return is the transfer's result: nothing was
	 * posted and done is not called. Order between posted transfers is not
	 * required: the core reports completions in posting order and holds an
	 * XRMA_RMA_FENCE transfer back until every earlier one completed.
	 * Without rma_post the engine runs transfers one at a time through rma.
	 */
	int (*rma_post)(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
			const struct iovec *iov, size_t count, uint32_t flags,
			void (*done)(void *arg, int status), void *arg);

	/*
	 * Optional: the process is exiting with this context open. Tell the peers
	 * now that this endpoint is gone, waiting a bounded time for the news to
	 * leave; free nothing, as other threads may still be calling ops. A
	 * provider whose peers notice a dead process at once leaves it out.
	 */
	void (*depart)(void *state);

	/* --- optional, each tied to a capability bit --- */
	/*
	 * XRMA_CAP_REGISTER: back exportable memory with the caller's pages.
	 * flags: XRMA_PROV_REGISTER_SHARE asks that importers on other processes
	 * can map the pages (XRMA_CAP_MAP) whatever backs them, re-backing them in
	 * place where needed, with the owner's view unchanged; a provider whose
	 * importers reach the caller's memory as it is ignores it. Where no way
	 * exists, registration still succeeds and only map refuses (XRMA_ENOTSUP).
	 */
	int (*mem_register)(void *state, void *addr, size_t len, uint32_t flags, struct xrma_prov_mem **mem);
	/* XRMA_CAP_MAP (both or neither): offset and len are page multiples; the
	 * last page may run past the imported length (memory is whole pages). */
	int (*map)(void *state, struct xrma_prov_rmem *rmem, size_t offset, size_t len, uint32_t prot,
		   void **addr);
	void (*unmap)(void *state, struct xrma_prov_rmem *rmem, void *addr, size_t len);
	/* XRMA_CAP_ATOMIC: offset is 8-byte aligned and in range. */
	int (*atomic)(void *state, struct xrma_prov_rmem *rmem, size_t offset, enum xrma_atomic_op op,
		      uint64_t operand, uint64_t compare, uint64_t *old);
	/* XRMA_CAP_DOORBELL (all four or none): a doorbell register and scratchpads
	 * per node. bits/mask lie within caps->doorbell_count bits and index below
	 * caps->spad_count (the core checks). doorbell_wait consumes the bits it returns. */
	int (*doorbell_raise)(void *state, uint32_t node, uint64_t bits);
	int (*doorbell_wait)(void *state, uint64_t mask, int timeout_ms, uint64_t *fired);
	int (*scratchpad_read)(void *state, uint32_t node, uint32_t index, uint32_t *value);
	int (*scratchpad_write)(void *state, uint32_t node, uint32_t index, uint32_t value);
	/* Optional, no capability bit: report node's live objects, contexts first, with no
	 * provider lock held while report runs; report's non-zero return stops the walk
	 * and is returned. For xrma_info and diagnostics, never on a data path. */
	int (*node_objects)(void *state, uint32_t node,
			    int (*report)(void *arg, const struct xrma_node_object *obj), void *arg);
	/* Optional, no capability bit: set the modelled link state of node (fault injection). */
	int (*link_set)(void *state, uint32_t node, bool up);
	/* XRMA_CAP_BUS_ADDR: the modelled bus address of exported memory. */
	int (*mem_bus_addr)(void *state, struct xrma_prov_mem *mem, uint64_t *bus);
	/* XRMA_CAP_BUS_IMPORT (both or neither): import by bus address.
	 * bus_owner, on the importer's side: the endpoint of node whose exported
	 * memory contains bus (XRMA_ENODEV no such node, XRMA_ENOENT none; a
	 * provider whose addresses carry the node may refuse a mismatch with
	 * XRMA_ENOENT). bus_permit, on the owner's side: whether src may import
	 * by address at all (0 or XRMA_EPERM); the core then finds the segment. */
	int (*bus_owner)(void *state, uint32_t node, uint64_t bus, struct xrma_prov_addr *owner);
	int (*bus_permit)(void *state, const struct xrma_prov_addr *src);
	/* XRMA_CAP_CSR (both or neither): a 32-bit register of node's control and
	 * status space; offset is 4-byte aligned (the core checks). */
	int (*csr_read)(void *state, uint32_t node, uint32_t offset, uint32_t *value);
	int (*csr_write)(void *state, uint32_t node, uint32_t offset, uint32_t value);
	/* XRMA_CAP_RSEG_ERRORS: the import's cumulative transaction error counts;
	 * flags may hold XRMA_RSEG_ERRORS_MAPPED (xrma/rseg.h). */
	int (*rmem_errors)(void *state, struct xrma_prov_rmem *rmem, uint32_t flags,
			   struct xrma_rseg_errors *errors);
};

struct xrma_config_table;

struct xrma_provider {
	const char *name;
	const char *description;
	const struct xrma_caps *caps;
	const struct xrma_provider_ops *ops;
	/*
	 * Only in libxrma's entry for a provider built as a module (a heavy
	 * dependency, such as libfabric, stays out of programs that never choose
	 * it): ops is NULL, module names the file the registry loads when the
	 * provider is chosen (providers/provider_module.h) and keys is the
	 * provider's key table, which stays in libxrma with the parser.
	 */
	const char *module;
	const struct xrma_config_table *keys;
};

#endif
