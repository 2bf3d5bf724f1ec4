/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/node.h: the nodes of a context's fabric: who is there, and is a
 * given node reachable now. Node ids are the providers' (and the APIs') ids.
 */
#ifndef XRMA_NODE_H
#define XRMA_NODE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <xrma/api.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;

/*
 * Flags of the opens that name another node's object (xrma_rseg_open,
 * xrma_rintr_open_flags). The cluster is the node file's ids ([xrma] nodes)
 * when one is configured, else every id the provider's model allows.
 * XRMA_OPEN_CLUSTER: a node of the cluster that is not up is a node without
 * the object (XRMA_ENOENT); XRMA_ENODEV is left for ids outside the cluster.
 * XRMA_OPEN_WAIT: as XRMA_OPEN_CLUSTER, and wait up to the open's timeout for
 * the object to appear (be created and, for a segment, exported), woken by
 * the provider when the node's names change (never a sleep loop); where the
 * provider cannot wait for names, the open answers at once.
 */
#define XRMA_OPEN_CLUSTER (1u << 0)
#define XRMA_OPEN_WAIT    (1u << 1)

/*
 * Map a host name to its node id through the node file ([xrma] nodes,
 * XRMA_NODES; docs/config.md): the line whose host is name (ignoring case),
 * else the one line whose host starts with "name.". No context is needed.
 * Errors: XRMA_EINVAL (NULL or empty name), XRMA_ENOENT (no node file, or no
 * such host in it), XRMA_ECONFIG (the configuration or the file is bad;
 * xrma_error_detail() says where).
 */
XRMA_API int xrma_node_by_name(const char *name, uint32_t *node_id);

/* The local node id. */
XRMA_API int xrma_node_self(struct xrma_ctx *ctx, uint32_t *node_id);

/*
 * Fill ids with up to max live node ids (ascending, the local node included) and
 * set *count to the number of live nodes, which may exceed max.
 */
XRMA_API int xrma_node_list(struct xrma_ctx *ctx, uint32_t *ids, size_t max, size_t *count);

/*
 * Is node_id a node of the cluster (the node file's ids, else every id the
 * provider's model allows), whether or not it is up now? 0 yes, XRMA_ENODEV no.
 */
XRMA_API int xrma_node_in_cluster(struct xrma_ctx *ctx, uint32_t node_id);
/*
 * Fill ids with up to max ids of the node file ([xrma] nodes), ascending, up
 * or not, and set *count to their number, which may exceed max. XRMA_ENOENT
 * when no node file is configured (the cluster is then the provider's ids).
 */
XRMA_API int xrma_node_cluster(struct xrma_ctx *ctx, uint32_t *ids, size_t max, size_t *count);
/*
 * Is node reachable? 0 yes; XRMA_ENODEV no such node; XRMA_EINVAL an id the
 * provider can never have; XRMA_EHOSTUNREACH it did not answer in time.
 */
XRMA_API int xrma_node_probe(struct xrma_ctx *ctx, uint32_t node_id, int timeout_ms);

/*
 * Take the modelled link between this fabric and node down (up == false) or
 * bring it back, on providers that model links (fault injection; ntb does).
 * Every context of the fabric gets the link event; transfers touching the
 * node fail meanwhile. XRMA_ENOTSUP where links are not modelled.
 */
XRMA_API int xrma_node_set_link(struct xrma_ctx *ctx, uint32_t node_id, bool up);

/*
 * Read or write the 32-bit register at offset (a multiple of 4, else
 * XRMA_EALIGN_OFFSET) of node's control and status space, on providers that
 * model one (XRMA_CAP_CSR; XRMA_ENOTSUP elsewhere). The provider documents its
 * registers. Errors: XRMA_ENODEV (no such node), XRMA_ERANGE (outside the
 * space), XRMA_EACCES (read-only register), XRMA_ENETDOWN (this node's link is
 * down), XRMA_EHOSTUNREACH (node's link is down).
 */
XRMA_API int xrma_node_csr_read(struct xrma_ctx *ctx, uint32_t node_id, uint32_t offset,
				uint32_t *value);
XRMA_API int xrma_node_csr_write(struct xrma_ctx *ctx, uint32_t node_id, uint32_t offset,
				 uint32_t value);

/* What a node holds, as its provider's directory lists it (xrma_node_objects). */
enum xrma_node_object_kind {
	XRMA_OBJECT_CONTEXT = 0,   /* a context (endpoint) acting as the node */
	XRMA_OBJECT_SEGMENT,       /* a segment id in use */
	XRMA_OBJECT_PORT,          /* a connection port, listening or connected */
	XRMA_OBJECT_INTERRUPT,     /* an interrupt number in use */
	XRMA_OBJECT_MEMORY         /* exported memory (a segment's or a window's pages) */
};

struct xrma_node_object {
	uint32_t kind;      /* enum xrma_node_object_kind */
	uint32_t node;
	uint32_t ep;        /* the owning context's endpoint number on the node */
	int32_t pid;        /* the owning process */
	uint32_t uid;       /* and its user */
	uint32_t access;    /* XRMA_OBJECT_MEMORY: XRMA_ACCESS_* bits importers get */
	uint64_t id;        /* segment id, port, interrupt number; memory: its slot */
	uint64_t len;       /* XRMA_OBJECT_MEMORY: bytes */
};

/*
 * Report the live objects of node (the local one included) to report(arg, obj),
 * contexts first; a non-zero return from report stops the walk and is returned.
 * report runs on the caller's thread with no xrma lock held. flags must be 0.
 * Errors: XRMA_EINVAL (NULL report, flags, an id the provider can never have),
 * XRMA_ENODEV (no such node), XRMA_ENOTSUP (the provider keeps no directory
 * other processes can read: loopback, ofi), XRMA_ENOMEM.
 */
XRMA_API int xrma_node_objects(struct xrma_ctx *ctx, uint32_t node_id, uint32_t flags,
			       int (*report)(void *arg, const struct xrma_node_object *obj),
			       void *arg);

XRMA_END_DECLS

#endif
