/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/rintr.c: remote interrupts (xrma_rintr_* of xrma/intr.h), the side that
 * connects to an interrupt another context owns (INTR_CONNECT), triggers it
 * (INTR_TRIGGER, or a count in the owner's trigger page where the provider
 * maps memory) and learns of its removal (INTR_GONE) or its owner's death
 * (peer_down). The owner's side, and the protocol's rules, are core/intr.c's.
 */
#include "core/intr.h"

#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/control.h"
#include "core/ctx.h"
#include "core/intr_page.h"
#include "core/name_wait.h"
#include "core/prov_call.h"
#include "common/wait.h"

/* A data trigger is answered at once; a silent owner is reported well before a user gives up. */
#define INTR_TRIGGER_TIMEOUT_MS 1000

struct xrma_core_rintr {
	struct xrma_obj obj;
	struct xrma_core_ctx *ctx;          /* fixed at open */
	struct xrma_prov_addr owner;        /* fixed at open */
	uint64_t number;                    /* fixed at open */
	uint64_t id;                        /* fixed at open: key in ctx->rintrs */
	atomic_int gone;                    /* 0, or what triggers return from now on */
	/*
	 * The owner's instance (0 until the INTR_CONNECT reply is in), and the
	 * instance of the last INTR_GONE seen for number: a GONE may be handled
	 * between the reply and the opener storing the instance.
	 */
	_Atomic uint64_t instance;
	_Atomic uint64_t gone_instance;
	struct xrma_intr_page_remote page;  /* fixed after open */
};

static int rintr_acquire(struct xrma_rintr *handle, struct xrma_core_rintr **rintr)
{
	return XRMA_HANDLE_GET(handle, XRMA_OBJ_RINTR, struct xrma_core_rintr, *rintr);
}

static void rintr_destroy(struct xrma_obj *obj)
{
	struct xrma_core_rintr *rintr = (struct xrma_core_rintr *)obj;
	struct xrma_core_ctx *ctx = rintr->ctx;

	xrma_intr_page_detach(ctx, &rintr->page);
	free(rintr);
	xrma_core_ctx_child_destroyed(ctx);
}

/* Mark rintr gone with code unless it already was (the first reason holds). */
static void rintr_set_gone(struct xrma_core_rintr *rintr, int code)
{
	int expected = 0;

	atomic_compare_exchange_strong(&rintr->gone, &expected, code);
}

/*
 * What a failed exchange with the owner means to the user. The owner's answer
 * XRMA_ENOENT and a death (XRMA_ELOST) stick. A send that found the owner's
 * endpoint gone (XRMA_ECONNRESET) cannot tell a closed context from a dead
 * one; either way the owner's node has left us, so it reads as XRMA_ELOST this
 * once, and INTR_GONE or peer_down, which follow in the inbox, decide what sticks.
 */
static int rintr_owner_error(struct xrma_core_rintr *rintr, int err)
{
	int gone;

	if (err == -XRMA_ECONNRESET) {
		/*
		 * The owner's endpoint is gone, but whether it closed (the interrupt was
		 * removed: ENOENT) or died (ELOST) is told by the notice our service
		 * thread is about to handle. Give it a bounded moment to arrive.
		 */
		struct xrma_deadline soon;

		xrma_deadline_set(&soon, 200);
		while (!(gone = atomic_load(&rintr->gone)) && !xrma_deadline_passed(&soon))
			sched_yield();
		return gone ? gone : -XRMA_ELOST;
	}
	if (err != -XRMA_ENOENT && err != -XRMA_ELOST)
		return err;
	rintr_set_gone(rintr, err);
	return atomic_load(&rintr->gone);
}

/* One attempt of xrma_rintr_open_flags; ctx is held by the caller. */
static int rintr_open(struct xrma_core_ctx *ctx, uint32_t node, uint64_t number, int timeout_ms,
		      struct xrma_rintr **out)
{
	struct xrma_core_rintr *rintr;
	struct xrma_prov_addr owner;
	struct xrma_wire_msg msg = { .type = XRMA_WIRE_INTR_CONNECT, .arg = { number } };
	struct xrma_reply reply;
	int ret;

	ret = xrma_core_call_name_lookup(ctx, node, XRMA_NS_INTR, number, &owner);
	if (ret)
		return ret;
	rintr = calloc(1, sizeof(*rintr));
	if (!rintr)
		return -XRMA_ENOMEM;
	rintr->ctx = ctx;
	rintr->owner = owner;
	rintr->number = number;
	atomic_init(&rintr->gone, 0);
	atomic_init(&rintr->instance, 0);
	atomic_init(&rintr->gone_instance, 0);
	ret = xrma_core_ctx_child_open(ctx);
	if (ret)
		goto err_free_rintr;
	ret = xrma_handle_alloc(&rintr->obj, XRMA_OBJ_RINTR, rintr_destroy);
	if (ret)
		goto err_child;
	/* Registered before asking: INTR_GONE may follow the owner's reply at once. */
	xrma_lock(&ctx->lock);
	rintr->id = xrma_core_ctx_next_id(ctx);
	ret = xrma_idmap_insert(&ctx->rintrs, rintr->id, rintr);
	xrma_unlock(&ctx->lock);
	if (ret)
		goto err_kill;
	ret = xrma_core_control_call(ctx, &owner, &msg, &reply, timeout_ms);
	if (!ret && !reply.arg[0])
		ret = -XRMA_EPROTO;
	if (ret)
		goto err_unmap;
	if (reply.arg[1])
		xrma_intr_page_attach(ctx, &owner, reply.payload, reply.payload_len, reply.arg[1],
				      &rintr->page);
	/* Pairs with xrma_core_rintr_on_gone: one of the two sees the other's store. */
	atomic_store(&rintr->instance, reply.arg[0]);
	if (atomic_load(&rintr->gone_instance) == reply.arg[0])
		rintr_set_gone(rintr, -XRMA_ENOENT);
	*out = rintr->obj.handle;
	return 0;

err_unmap:
	/* A connect that arrives after all is undone by this, which follows it on the wire. */
	if (ret == -XRMA_ETIMEDOUT) {
		/* Instance 0: whichever interrupt counted us. */
		msg = (struct xrma_wire_msg){ .type = XRMA_WIRE_INTR_DISCONNECT, .arg = { number } };
		xrma_core_control_send(ctx, &owner, &msg);
	}
	/* The owner's endpoint closed under us (and the interrupt with it), or died. */
	if (ret == -XRMA_ECONNRESET)
		ret = -XRMA_ENOENT;
	else if (ret == -XRMA_ELOST)
		ret = -XRMA_ENODEV;
	xrma_lock(&ctx->lock);
	xrma_idmap_remove(&ctx->rintrs, rintr->id);
	xrma_unlock(&ctx->lock);
err_kill:
	xrma_core_ctx_child_killed(ctx);
	xrma_handle_kill(&rintr->obj);   /* destroys, now or when a handler lets go */
	return ret;
err_child:
	xrma_core_ctx_child_killed(ctx);
	xrma_core_ctx_child_destroyed(ctx);
err_free_rintr:
	free(rintr);
	return ret;
}

int xrma_rintr_open_flags(struct xrma_ctx *handle, uint32_t node, uint64_t number, uint32_t flags,
			  int timeout_ms, struct xrma_rintr **out)
{
	struct xrma_core_name_wait wait;
	struct xrma_core_ctx *ctx;
	int ret;

	if (!out || number == XRMA_ID_ANY || (flags & ~(XRMA_OPEN_CLUSTER | XRMA_OPEN_WAIT)))
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	/* One deadline for the whole open, however often the node's names change. */
	xrma_core_name_wait_begin(&wait, ctx, node, flags, timeout_ms);
	do
		ret = rintr_open(ctx, node, number, xrma_core_name_wait_left(&wait), out);
	while (ret && xrma_core_name_wait_again(&wait, &ret));
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_rintr_open(struct xrma_ctx *handle, uint32_t node, uint64_t number, int timeout_ms,
		    struct xrma_rintr **out)
{
	return xrma_rintr_open_flags(handle, node, number, 0, timeout_ms, out);
}

int xrma_rintr_close(struct xrma_rintr *handle)
{
	struct xrma_core_rintr *rintr;
	struct xrma_core_ctx *ctx;
	int ret;

	ret = rintr_acquire(handle, &rintr);
	if (ret)
		return ret;
	ctx = rintr->ctx;
	ret = xrma_handle_kill(&rintr->obj);
	if (ret)
		goto out_put;
	xrma_core_ctx_child_killed(ctx);
	xrma_lock(&ctx->lock);
	xrma_idmap_remove(&ctx->rintrs, rintr->id);
	xrma_unlock(&ctx->lock);
	if (!atomic_load(&rintr->gone)) {
		struct xrma_wire_msg msg = {
			.type = XRMA_WIRE_INTR_DISCONNECT,
			.arg = { rintr->number, atomic_load(&rintr->instance) },
		};

		xrma_core_control_send(ctx, &rintr->owner, &msg);
	}
out_put:
	xrma_handle_put(&rintr->obj);
	return ret;
}

int xrma_rintr_trigger(struct xrma_rintr *handle, const void *data, size_t len)
{
	struct xrma_core_rintr *rintr;
	struct xrma_wire_msg msg = { .type = XRMA_WIRE_INTR_TRIGGER };
	struct xrma_reply reply;
	bool kick = false;
	int ret;

	if (!data && len)
		return -XRMA_EINVAL;
	if (len > XRMA_INTR_DATA_MAX)
		return -XRMA_EMSGSIZE;
	ret = rintr_acquire(handle, &rintr);
	if (ret)
		return ret;
	ret = atomic_load(&rintr->gone);
	if (ret)
		goto out_put;
	msg.arg[0] = rintr->number;
	msg.arg[1] = atomic_load(&rintr->instance);
	if (rintr->page.page) {
		switch (len ? xrma_intr_page_trigger_data(rintr->page.page, data, len)
			    : xrma_intr_page_trigger(rintr->page.page)) {
		case XRMA_INTR_PAGE_DONE:
			goto out_put;
		case XRMA_INTR_PAGE_GONE:
			ret = -XRMA_ENOENT;
			goto out_put;
		case XRMA_INTR_PAGE_COUNTED_KICK:
			msg.arg[2] = 1;   /* in the page already: only deliver */
			kick = true;
			break;
		case XRMA_INTR_PAGE_USE_MESSAGE:
			break;
		}
	}
	if (!len || kick) {
		/* Fire and forget: the owner counts it if the interrupt still exists. */
		ret = xrma_core_control_send(rintr->ctx, &rintr->owner, &msg);
	} else {
		msg.payload = data;
		msg.payload_len = (uint32_t)len;
		ret = xrma_core_control_call(rintr->ctx, &rintr->owner, &msg, &reply,
					     INTR_TRIGGER_TIMEOUT_MS);
	}
	if (ret)
		ret = rintr_owner_error(rintr, ret);
out_put:
	xrma_handle_put(&rintr->obj);
	return ret;
}
struct rintr_visit {
	const struct xrma_prov_addr *owner;
	bool match_number;
	uint64_t number;
	uint64_t instance;
	int code;
};

/* idmap_each visitor over ctx->rintrs (ctx->lock held). */
static void rintr_mark(void *arg, uint64_t id, void *value)
{
	struct rintr_visit *visit = arg;
	struct xrma_core_rintr *rintr = value;

	(void)id;
	if (!xrma_core_addr_eq(&rintr->owner, visit->owner))
		return;
	if (!visit->match_number) {
		rintr_set_gone(rintr, visit->code);
		return;
	}
	if (rintr->number != visit->number)
		return;
	/* Pairs with xrma_rintr_open: one of the two sees the other's store. */
	atomic_store(&rintr->gone_instance, visit->instance);
	if (atomic_load(&rintr->instance) == visit->instance)
		rintr_set_gone(rintr, visit->code);
}

void xrma_core_rintr_on_gone(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			     const struct xrma_wire_msg *msg)
{
	struct rintr_visit visit = {
		.owner = src,
		.match_number = true,
		.number = msg->arg[0],
		.instance = msg->arg[1],
		.code = -XRMA_ENOENT,
	};

	if (!visit.instance)
		return;   /* malformed: every interrupt has one */
	xrma_lock(&ctx->lock);
	xrma_idmap_each(&ctx->rintrs, rintr_mark, &visit);
	xrma_unlock(&ctx->lock);
}

void xrma_core_rintr_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer,
				  int status)
{
	/* An owner that closed took its interrupts with it; one that died is lost. */
	struct rintr_visit visit = {
		.owner = peer,
		.code = status == -XRMA_ELOST ? -XRMA_ELOST : -XRMA_ENOENT,
	};

	xrma_lock(&ctx->lock);
	xrma_idmap_each(&ctx->rintrs, rintr_mark, &visit);
	xrma_unlock(&ctx->lock);
}
