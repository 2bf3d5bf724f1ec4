/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/control.c: request/reply matching over the control channel (see
 * control.h). Pending slots live on the caller's stack: a caller that times
 * out or is cancelled unlinks its slot before returning, so a late reply finds
 * nothing.
 */
#include "core/control.h"

#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/ctx.h"
#include "core/prov_call.h"
#include "core/service.h"
#include "common/wait.h"

struct xrma_pending {
	uint64_t req;
	struct xrma_prov_addr dst;
	bool done;
	struct xrma_reply *reply;
	struct xrma_pending *next;
};

void xrma_core_control_init(struct xrma_control *control)
{
	xrma_lock_init(&control->lock);
	xrma_cond_init(&control->cond);
	control->next_req = 1;
	control->pending = NULL;
}

void xrma_core_control_destroy(struct xrma_control *control)
{
	xrma_cond_destroy(&control->cond);
	xrma_lock_destroy(&control->lock);
}

static bool same_addr(const struct xrma_prov_addr *a, const struct xrma_prov_addr *b)
{
	return a->node == b->node && a->ep == b->ep;
}

int xrma_core_control_send(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
			   const struct xrma_wire_msg *msg)
{
	uint8_t small[256];
	size_t size = xrma_wire_size(msg);
	uint8_t *buf = small;
	int ret;

	if (size > ctx->caps.ctrl_msg_max)
		return -XRMA_EMSGSIZE;
	if (size > sizeof(small)) {
		buf = malloc(size);
		if (!buf)
			return -XRMA_ENOMEM;
	}
	ret = xrma_wire_encode(msg, buf, size);
	if (ret >= 0)
		ret = xrma_core_call_ctrl_send(ctx, dst, buf, size);
	if (buf != small)
		free(buf);
	return ret;
}

static void unlink_pending(struct xrma_control *control, struct xrma_pending *p)
{
	for (struct xrma_pending **pp = &control->pending; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			return;
		}
	}
}

int xrma_core_control_call(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
			   struct xrma_wire_msg *msg, struct xrma_reply *reply, int timeout_ms)
{
	return xrma_core_control_call_cancelable(ctx, dst, msg, reply, timeout_ms, NULL);
}

int xrma_core_control_call_cancelable(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
				      struct xrma_wire_msg *msg, struct xrma_reply *reply, int timeout_ms,
				      const atomic_bool *cancel)
{
	struct xrma_control *control = &ctx->control;
	struct xrma_pending p = { .dst = *dst, .reply = reply };
	struct xrma_deadline deadline;
	int ret;

	if (xrma_service_on_service_thread(ctx))
		return -XRMA_ESTATE;
	memset(reply, 0, sizeof(*reply));
	xrma_deadline_set(&deadline, timeout_ms);
	xrma_lock(&control->lock);
	p.req = control->next_req++;
	p.next = control->pending;
	control->pending = &p;
	xrma_unlock(&control->lock);

	msg->req = p.req;
	ret = xrma_core_control_send(ctx, dst, msg);

	xrma_lock(&control->lock);
	if (ret) {
		unlink_pending(control, &p);
		xrma_unlock(&control->lock);
		return ret;
	}
	while (!p.done) {
		/*
		 * The canceller sets the flag before xrma_core_control_wake takes this lock, so
		 * it is seen here or its broadcast finds us waiting: no lost wake-up.
		 */
		if (cancel && atomic_load_explicit(cancel, memory_order_acquire)) {
			unlink_pending(control, &p);
			xrma_unlock(&control->lock);
			return -XRMA_ECANCELED;
		}
		if (xrma_cond_wait(&control->cond, &control->lock, &deadline) && !p.done) {
			unlink_pending(control, &p);
			xrma_unlock(&control->lock);
			return -XRMA_ETIMEDOUT;
		}
	}
	xrma_unlock(&control->lock);
	return reply->status;
}

void xrma_core_control_wake(struct xrma_core_ctx *ctx)
{
	struct xrma_control *control = &ctx->control;

	xrma_lock(&control->lock);
	xrma_cond_broadcast(&control->cond);
	xrma_unlock(&control->lock);
}

int xrma_core_control_reply(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst, uint64_t req,
			    int status, const uint64_t arg[4], const void *payload, uint32_t payload_len)
{
	struct xrma_wire_msg msg = {
		.type = XRMA_WIRE_REPLY,
		.status = status,
		.req = req,
		.payload_len = payload_len,
		.payload = payload,
	};

	if (arg)
		memcpy(msg.arg, arg, sizeof(msg.arg));
	return xrma_core_control_send(ctx, dst, &msg);
}

bool xrma_core_control_on_reply(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
				const struct xrma_wire_msg *msg)
{
	struct xrma_control *control = &ctx->control;
	bool matched = false;

	xrma_lock(&control->lock);
	for (struct xrma_pending *p = control->pending; p; p = p->next) {
		if (p->req != msg->req || !same_addr(&p->dst, src) || p->done)
			continue;
		p->reply->status = msg->status;
		memcpy(p->reply->arg, msg->arg, sizeof(msg->arg));
		p->reply->payload_len = msg->payload_len < XRMA_REPLY_PAYLOAD_MAX ? msg->payload_len
										   : XRMA_REPLY_PAYLOAD_MAX;
		if (p->reply->payload_len)
			memcpy(p->reply->payload, msg->payload, p->reply->payload_len);
		p->done = true;
		unlink_pending(control, p);
		matched = true;
		break;
	}
	if (matched)
		xrma_cond_broadcast(&control->cond);
	xrma_unlock(&control->lock);
	return matched;
}

void xrma_core_control_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer, int status)
{
	struct xrma_control *control = &ctx->control;
	struct xrma_pending **pp;

	xrma_lock(&control->lock);
	pp = &control->pending;
	while (*pp) {
		struct xrma_pending *p = *pp;

		if (!same_addr(&p->dst, peer)) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		p->reply->status = status;
		p->done = true;
	}
	xrma_cond_broadcast(&control->cond);
	xrma_unlock(&control->lock);
}
