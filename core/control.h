/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/control.h: requests and replies over the provider's control channel.
 * Every request that wants an answer holds a pending slot with its own id and
 * deadline; a reply is matched by (source, id), so late or duplicate replies
 * are dropped, and a peer's death fails its pending requests at once.
 */
#ifndef XRMA_CORE_CONTROL_H
#define XRMA_CORE_CONTROL_H

#include <stdbool.h>
#include <stdint.h>
#include "common/lock.h"
#include "core/wire.h"
#include "providers/provider.h"

struct xrma_core_ctx;
struct xrma_pending;

#define XRMA_REPLY_PAYLOAD_MAX 128

struct xrma_reply {
	int status;
	uint64_t arg[4];
	uint32_t payload_len;
	uint8_t payload[XRMA_REPLY_PAYLOAD_MAX];
};

struct xrma_control {
	struct xrma_lock lock;         /* guards next_req and the pending list */
	struct xrma_cond cond;         /* broadcast when a pending slot completes */
	uint64_t next_req;
	struct xrma_pending *pending;
};

void xrma_core_control_init(struct xrma_control *control);
void xrma_core_control_destroy(struct xrma_control *control);

/* Encode and send one message (no answer expected). */
int xrma_core_control_send(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
			   const struct xrma_wire_msg *msg);

/*
 * Send msg as a request and wait for its reply. Returns the reply's status
 * (reply filled), a send error, -XRMA_ETIMEDOUT, or the status the peer's
 * death gave. Must not run on the service thread.
 */
int xrma_core_control_call(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
			   struct xrma_wire_msg *msg, struct xrma_reply *reply, int timeout_ms);

/*
 * xrma_core_control_call that also gives up, with -XRMA_ECANCELED, once *cancel is
 * true: whoever sets it calls xrma_core_control_wake afterwards. A reply arriving
 * after that finds no slot (xrma_core_control_on_reply returns false).
 */
int xrma_core_control_call_cancelable(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
				      struct xrma_wire_msg *msg, struct xrma_reply *reply, int timeout_ms,
				      const atomic_bool *cancel);

/* Have every waiting call look at its cancel flag again. */
void xrma_core_control_wake(struct xrma_core_ctx *ctx);

/* Answer request req of dst. */
int xrma_core_control_reply(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst, uint64_t req,
			    int status, const uint64_t arg[4], const void *payload, uint32_t payload_len);

/* A REPLY arrived: complete its pending slot. false if nobody waits for it. */
bool xrma_core_control_on_reply(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
				const struct xrma_wire_msg *msg);

/* Fail every request pending on peer with status. */
void xrma_core_control_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer, int status);

#endif
