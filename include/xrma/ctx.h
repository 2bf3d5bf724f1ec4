/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/ctx.h: the per-process context: one provider instance, one local
 * node id, one service thread. Every other object is opened from a context and
 * keeps it alive; closing a context that still has children is XRMA_EBUSY.
 * Several contexts may live in one process, on the same or different providers;
 * they share no hidden state.
 */
#ifndef XRMA_CTX_H
#define XRMA_CTX_H

#include <stdint.h>
#include <xrma/api.h>
#include <xrma/info.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;

#define XRMA_NODE_ANY UINT32_MAX   /* take the node id from XRMA_NODE_ID / config */

/* Longest fabric name, in bytes: names become part of the host fabric's file
 * names, hashed when long, so the limit is about configuration, not files. */
#define XRMA_FABRIC_MAX 255

struct xrma_ctx_attr {
	const char *provider;   /* NULL: XRMA_PROVIDER, then config, then default */
	const char *fabric;     /* NULL: XRMA_FABRIC, then config, then "default" */
	uint32_t node_id;       /* XRMA_NODE_ANY: XRMA_NODE_ID, then config, then 1 */
	uint32_t flags;         /* must be 0 */
};

struct xrma_ctx_info {
	char provider[XRMA_NAME_MAX];
	char fabric[XRMA_FABRIC_MAX + 1];
	uint32_t node_id;
	struct xrma_caps caps;
};

/*
 * Open a context. attr may be NULL for all defaults.
 * Errors: XRMA_EINVAL (bad attr or flags), XRMA_ENOPROV (unknown provider name),
 * XRMA_ECONFIG (bad XRMA_NODE_ID or config value), XRMA_EADDRINUSE (the
 * provider refuses a second context with that node id), XRMA_ENOMEM.
 */
XRMA_API int xrma_ctx_open(const struct xrma_ctx_attr *attr, struct xrma_ctx **ctx);

/*
 * Close a context. XRMA_EBUSY while any object opened from it is open. From one
 * of its own callbacks the handle dies at once and the context (its threads,
 * provider endpoint and descriptors) is released by the core once the callback
 * has returned; XRMA_ENOMEM if that cannot be arranged (nothing changed).
 */
XRMA_API int xrma_ctx_close(struct xrma_ctx *ctx);

XRMA_API int xrma_ctx_query(struct xrma_ctx *ctx, struct xrma_ctx_info *info);

/* Number of live objects (all types) opened from this context. */
XRMA_API int xrma_ctx_object_count(struct xrma_ctx *ctx, size_t *count);

/*
 * Drive the context's progress from the calling thread: read once what has
 * arrived (peers' transfers into this process's segments, messages,
 * completions) and hand it on, as the provider's own thread would. Never
 * blocks. Returns how many messages and completions it handled (0 when none),
 * or a negative error: XRMA_EHANDLE for a handle that is not an open context.
 *
 * A program that waits for a peer by polling memory calls this in its wait
 * loop. With the ofi provider, whose thread otherwise polls the network
 * and takes turns on the CPU with such a loop, the thread rests while calls
 * keep coming (at least one a millisecond) and takes over again within about
 * a millisecond of the last. Providers that need no one's polling (loopback,
 * ntb, sci, pximc) do nothing and return 0. Any thread may call it, several at
 * once.
 */
XRMA_API int xrma_ctx_progress(struct xrma_ctx *ctx);

XRMA_END_DECLS

#endif
