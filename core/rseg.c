/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/rseg.c: importing a remote segment (xrma/rseg.h): the importer's side of
 * the import protocol, its state machine (connected, disconnect requested, not
 * operational, lost), load/store mappings and remote atomics.
 */
#include "core/rseg.h"

#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include <xrma/seg.h>
#include "core/control.h"
#include "core/ctx.h"
#include "core/prov_call.h"
#include "core/name_wait.h"

/* Bound on waiting for the owner to acknowledge a release. */
#define RSEG_RELEASE_TIMEOUT_MS 1000

struct xrma_rseg_map {
	void *user_addr;      /* what the caller got */
	void *base;           /* page-aligned mapping */
	size_t base_len;
	struct xrma_rseg_map *next;
};

static void rseg_destroy(struct xrma_obj *obj)
{
	struct xrma_core_rseg *rseg = (struct xrma_core_rseg *)obj;
	struct xrma_core_ctx *ctx = rseg->ctx;

	xrma_core_call_mem_unimport(ctx, rseg->remote_mem);
	xrma_evq_destroy(&rseg->events);
	xrma_lock_destroy(&rseg->lock);
	free(rseg);
	xrma_core_ctx_child_destroyed(ctx);
}

static void apply_notice(struct xrma_core_rseg *rseg, uint64_t type);

static void unregister_import(struct xrma_core_ctx *ctx, struct xrma_core_rseg *rseg)
{
	xrma_lock(&ctx->lock);
	if (xrma_idmap_find(&ctx->rsegs, rseg->import_id) == rseg)
		xrma_idmap_remove(&ctx->rsegs, rseg->import_id);
	xrma_unlock(&ctx->lock);
}

static void send_release(struct xrma_core_rseg *rseg)
{
	struct xrma_wire_msg msg = {
		.type = XRMA_WIRE_SEG_RELEASE,
		.arg = { rseg->id, rseg->import_id, 0, 0 },
	};

	/* An owner that is gone has nothing to uncount. */
	(void)xrma_core_control_send(rseg->ctx, &rseg->owner, &msg);
}

/*
 * Release and wait for the owner's answer, so that when xrma_rseg_close returns
 * the owner no longer counts this import (it may close its segment at once).
 * An owner that is gone or silent has nothing left to uncount.
 */
static void release_and_wait(struct xrma_core_rseg *rseg)
{
	struct xrma_wire_msg msg = {
		.type = XRMA_WIRE_SEG_RELEASE,
		.arg = { rseg->id, rseg->import_id, 0, 0 },
	};
	struct xrma_reply reply;

	(void)xrma_core_control_call(rseg->ctx, &rseg->owner, &msg, &reply, RSEG_RELEASE_TIMEOUT_MS);
}

/* What an import names: a segment id, or a window of bus addresses. */
struct rseg_target {
	uint32_t node;
	uint64_t id;                /* !raw */
	uint64_t bus, len;          /* raw */
	bool raw;
	bool broadcast;             /* !raw: a broadcast group's member only */
};

/*
 * Ask the owner; on success fill len, access and key, and for a window its
 * segment id and base; *seg_len is what the provider imports.
 */
static int request_import(struct xrma_core_rseg *rseg, const struct rseg_target *t, uint32_t access,
			  int timeout_ms, struct xrma_prov_key *key, size_t *seg_len)
{
	struct xrma_wire_msg msg = {
		.type = t->raw ? XRMA_WIRE_SEG_IMPORT_BUS : XRMA_WIRE_SEG_IMPORT,
		.arg = { t->raw ? t->bus : rseg->id, access, rseg->import_id,
			 t->raw ? t->len : t->broadcast ? XRMA_WIRE_IMPORT_BROADCAST : 0 },
	};
	struct xrma_reply reply;
	int ret;

	ret = xrma_core_control_call(rseg->ctx, &rseg->owner, &msg, &reply, timeout_ms);
	/* The owner may have counted us after all; a raw window is never counted. */
	if (ret == -XRMA_ETIMEDOUT && !t->raw)
		send_release(rseg);
	if (ret)
		return ret == -XRMA_ECONNRESET ? -XRMA_ENODEV : ret;
	if (!reply.arg[0] || reply.arg[0] > SIZE_MAX || reply.payload_len > XRMA_PROV_KEY_MAX ||
	    (t->raw && (reply.arg[3] > reply.arg[0] || t->len > reply.arg[0] - reply.arg[3]))) {
		if (!t->raw)
			send_release(rseg);
		return -XRMA_EPROTO;
	}
	*seg_len = (size_t)reply.arg[0];
	rseg->len = t->raw ? (size_t)t->len : *seg_len;
	rseg->access = (uint32_t)reply.arg[1];
	if (t->raw) {
		rseg->id = reply.arg[2];
		rseg->base = (size_t)reply.arg[3];
		rseg->bus = t->bus;
		rseg->has_bus = true;
	} else if (reply.arg[3] & XRMA_WIRE_IMPORT_REPLY_BUS) {
		rseg->bus = reply.arg[2];
		rseg->has_bus = true;
	}
	key->len = reply.payload_len;
	memcpy(key->bytes, reply.payload, reply.payload_len);
	return 0;
}

static int rseg_open(struct xrma_core_ctx *ctx, const struct rseg_target *t, uint32_t access,
		     int timeout_ms, struct xrma_rseg **out)
{
	struct xrma_core_rseg *rseg;
	struct xrma_prov_key key;
	size_t seg_len = 0;
	uint64_t early;
	int ret;

	rseg = calloc(1, sizeof(*rseg));
	if (!rseg)
		return -XRMA_ENOMEM;
	rseg->ctx = ctx;
	rseg->id = t->id;
	rseg->raw = t->raw;
	atomic_init(&rseg->state, XRMA_RSEG_CONNECTED);
	xrma_ref_init(&rseg->busy);
	xrma_lock_init(&rseg->lock);
	xrma_evq_init(&rseg->events, ctx, &rseg->obj);
	if (t->raw)
		ret = xrma_core_call_bus_owner(ctx, t->node, t->bus, &rseg->owner);
	else
		ret = xrma_core_call_name_lookup(ctx, t->node, XRMA_NS_SEG, t->id, &rseg->owner);
	if (ret)
		goto err_free_rseg;
	ret = xrma_core_ctx_child_open(ctx);
	if (ret)
		goto err_free_rseg;
	/* Registered before asking, so a notice right after the answer finds it. */
	xrma_lock(&ctx->lock);
	rseg->import_id = xrma_core_ctx_next_id(ctx);
	ret = xrma_idmap_insert(&ctx->rsegs, rseg->import_id, rseg);
	xrma_unlock(&ctx->lock);
	if (ret)
		goto err_child;
	ret = request_import(rseg, t, access, timeout_ms, &key, &seg_len);
	if (ret)
		goto err_unregister;
	ret = xrma_core_call_mem_import(ctx, &rseg->owner, &key, seg_len, access,
					&rseg->remote_mem);
	if (ret)
		goto err_release;
	ret = xrma_handle_alloc(&rseg->obj, XRMA_OBJ_RSEG, rseg_destroy);
	if (ret)
		goto err_unimport;
	xrma_lock(&ctx->lock);
	rseg->published = true;
	early = rseg->early_notice;
	xrma_unlock(&ctx->lock);
	if (early)
		apply_notice(rseg, early);
	*out = rseg->obj.handle;
	return 0;

err_unimport:
	xrma_core_call_mem_unimport(ctx, rseg->remote_mem);
err_release:
	if (!rseg->raw)
		send_release(rseg);
err_unregister:
	unregister_import(ctx, rseg);
err_child:
	xrma_core_ctx_child_killed(ctx);
	xrma_core_ctx_child_destroyed(ctx);
err_free_rseg:
	xrma_evq_destroy(&rseg->events);
	xrma_lock_destroy(&rseg->lock);
	free(rseg);
	return ret;
}

int xrma_rseg_open(struct xrma_ctx *handle, uint32_t node, uint64_t id, uint32_t access,
		   uint32_t flags, int timeout_ms, struct xrma_rseg **out)
{
	const uint32_t remote_bits = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	const struct rseg_target t = { .node = node, .id = id };
	struct xrma_core_name_wait wait;
	struct xrma_core_ctx *ctx;
	int ret;

	if (!out)
		return -XRMA_EINVAL;
	*out = NULL;
	if (!access || (access & ~remote_bits) || (flags & ~(XRMA_OPEN_CLUSTER | XRMA_OPEN_WAIT)) ||
	    id == XRMA_ID_ANY)
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	if (node > ctx->caps.max_node_id) {
		/* Outside every cluster: for an open that asks about the cluster, no such node. */
		ret = flags ? -XRMA_ENODEV : -XRMA_EINVAL;
	} else {
		/* One deadline for the whole open, however often the node's names change. */
		xrma_core_name_wait_begin(&wait, ctx, node, flags, timeout_ms);
		do
			ret = rseg_open(ctx, &t, access, xrma_core_name_wait_left(&wait), out);
		while (ret && xrma_core_name_wait_again(&wait, &ret));
	}
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_core_rseg_open_broadcast(struct xrma_core_ctx *ctx, uint32_t node, uint64_t id,
				  uint32_t access, int timeout_ms, struct xrma_rseg **out)
{
	const struct rseg_target t = { .node = node, .id = id, .broadcast = true };

	*out = NULL;
	return rseg_open(ctx, &t, access, timeout_ms, out);
}

int xrma_rseg_open_bus(struct xrma_ctx *handle, uint32_t node, uint64_t bus, size_t len,
		       uint32_t access, uint32_t flags, int timeout_ms, struct xrma_rseg **out)
{
	const uint32_t remote_bits = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	const struct rseg_target t = { .node = node, .bus = bus, .len = len, .raw = true };
	struct xrma_core_ctx *ctx;
	uint64_t align;
	int ret;

	if (!out)
		return -XRMA_EINVAL;
	*out = NULL;
	if (!len || !access || (access & ~remote_bits) || flags)
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	/* Windows are whole translation units, so they map like segments do. */
	align = ctx->caps.xlat_align > ctx->caps.page_size ? ctx->caps.xlat_align : ctx->caps.page_size;
	if (!(ctx->caps.flags & XRMA_CAP_BUS_IMPORT))
		ret = -XRMA_ENOTSUP;
	else if (node > ctx->caps.max_node_id)
		ret = -XRMA_EINVAL;
	else if (bus % align)
		ret = -XRMA_EALIGN_OFFSET;
	else if (len % align)
		ret = -XRMA_EALIGN_SIZE;
	else if (bus + len < bus)
		ret = -XRMA_ERANGE;
	else
		ret = rseg_open(ctx, &t, access, timeout_ms, out);
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_rseg_close(struct xrma_rseg *handle)
{
	struct xrma_core_rseg *rseg;
	bool lost;
	int ret;

	ret = xrma_core_rseg_acquire(handle, &rseg);
	if (ret)
		return ret;
	xrma_lock(&rseg->lock);
	if (rseg->maps || xrma_ref_count(&rseg->busy)) {
		xrma_unlock(&rseg->lock);
		xrma_handle_put(&rseg->obj);
		return -XRMA_EBUSY;
	}
	lost = rseg->state == XRMA_RSEG_LOST;
	xrma_unlock(&rseg->lock);
	ret = xrma_handle_kill(&rseg->obj);
	if (!ret) {
		unregister_import(rseg->ctx, rseg);
		if (!lost && !rseg->raw)
			release_and_wait(rseg);
		xrma_evq_close(&rseg->events);
		xrma_core_ctx_child_killed(rseg->ctx);
	}
	xrma_handle_put(&rseg->obj);
	return ret;
}

#define RSEG_GETTER(name, type, expr)                                                      \
	int xrma_rseg_##name(struct xrma_rseg *handle, type *out)                          \
	{                                                                                  \
		struct xrma_core_rseg *rseg;                                               \
		int ret;                                                                   \
		if (!out)                                                                  \
			return -XRMA_EINVAL;                                               \
		ret = xrma_core_rseg_acquire(handle, &rseg);                               \
		if (ret)                                                                   \
			return ret;                                                        \
		xrma_lock(&rseg->lock);                                                    \
		*out = (expr);                                                             \
		xrma_unlock(&rseg->lock);                                                  \
		xrma_handle_put(&rseg->obj);                                               \
		return 0;                                                                  \
	}

RSEG_GETTER(size, size_t, rseg->len)
RSEG_GETTER(node, uint32_t, rseg->owner.node)
RSEG_GETTER(id, uint64_t, rseg->id)
RSEG_GETTER(access, uint32_t, rseg->access)
RSEG_GETTER(state, enum xrma_rseg_state, rseg->state)

int xrma_rseg_bus_addr(struct xrma_rseg *handle, uint64_t *bus)
{
	struct xrma_core_rseg *rseg;
	int ret;

	if (!bus)
		return -XRMA_EINVAL;
	ret = xrma_core_rseg_acquire(handle, &rseg);
	if (ret)
		return ret;
	if (!(rseg->ctx->caps.flags & XRMA_CAP_BUS_ADDR))
		ret = -XRMA_ENOTSUP;
	else if (!rseg->has_bus)
		ret = -XRMA_ENOTAVAIL;
	else
		*bus = rseg->bus;
	xrma_handle_put(&rseg->obj);
	return ret;
}

int xrma_core_rseg_usable(struct xrma_core_rseg *rseg)
{
	/* Every transfer asks, without the lock: the answer may change right after either way. */
	if (atomic_load_explicit(&rseg->state, memory_order_acquire) == XRMA_RSEG_LOST)
		return -XRMA_ELOST;
	return 0;
}

static int check_map_args(struct xrma_core_rseg *rseg, size_t offset, size_t len, uint32_t flags)
{
	if (!len || !flags || (flags & ~(XRMA_MAP_READ | XRMA_MAP_WRITE)))
		return -XRMA_EINVAL;
	if (offset >= rseg->len || len > rseg->len - offset)
		return -XRMA_ERANGE;
	if (((flags & XRMA_MAP_READ) && !(rseg->access & XRMA_ACCESS_REMOTE_READ)) ||
	    ((flags & XRMA_MAP_WRITE) && !(rseg->access & XRMA_ACCESS_REMOTE_WRITE)))
		return -XRMA_EACCES;
	return 0;
}

int xrma_rseg_map(struct xrma_rseg *handle, size_t offset, size_t len, uint32_t flags, void **addr)
{
	struct xrma_core_rseg *rseg;
	struct xrma_core_ctx *ctx;
	struct xrma_rseg_map *map;
	size_t page, base_off, end;
	void *base;
	int ret;

	if (!addr)
		return -XRMA_EINVAL;
	*addr = NULL;
	ret = xrma_core_rseg_acquire(handle, &rseg);
	if (ret)
		return ret;
	ctx = rseg->ctx;
	if (!(ctx->caps.flags & XRMA_CAP_MAP)) {
		ret = -XRMA_ENOTSUP;
		goto out_put;
	}
	ret = check_map_args(rseg, offset, len, flags);
	if (!ret)
		ret = xrma_core_rseg_usable(rseg);
	if (ret)
		goto out_put;
	map = malloc(sizeof(*map));
	if (!map) {
		ret = -XRMA_ENOMEM;
		goto out_put;
	}
	/* Whole pages: the provider maps pages; the last may run past the end. */
	page = ctx->caps.page_size;
	base_off = offset & ~(page - 1);
	end = (offset + len + page - 1) & ~(page - 1);
	ret = xrma_core_call_map(ctx, rseg->remote_mem, rseg->base + base_off, end - base_off, flags,
				 &base);
	if (ret) {
		free(map);
		goto out_put;
	}
	map->base = base;
	map->base_len = end - base_off;
	map->user_addr = (char *)base + (offset - base_off);
	xrma_lock(&rseg->lock);
	map->next = rseg->maps;
	rseg->maps = map;
	xrma_unlock(&rseg->lock);
	*addr = map->user_addr;
out_put:
	xrma_handle_put(&rseg->obj);
	return ret;
}

int xrma_rseg_unmap(struct xrma_rseg *handle, void *addr)
{
	struct xrma_core_rseg *rseg;
	struct xrma_rseg_map *map = NULL;
	int ret;

	if (!addr)
		return -XRMA_EINVAL;
	ret = xrma_core_rseg_acquire(handle, &rseg);
	if (ret)
		return ret;
	xrma_lock(&rseg->lock);
	for (struct xrma_rseg_map **pp = &rseg->maps; *pp; pp = &(*pp)->next) {
		if ((*pp)->user_addr == addr) {
			map = *pp;
			*pp = map->next;
			break;
		}
	}
	xrma_unlock(&rseg->lock);
	if (map) {
		xrma_core_call_unmap(rseg->ctx, rseg->remote_mem, map->base, map->base_len);
		free(map);
	} else {
		ret = -XRMA_EINVAL;
	}
	xrma_handle_put(&rseg->obj);
	return ret;
}

int xrma_rseg_atomic(struct xrma_rseg *handle, size_t offset, enum xrma_atomic_op op,
		     uint64_t operand, uint64_t compare, uint64_t *old)
{
	struct xrma_core_rseg *rseg;
	uint32_t need;
	int ret;

	if (!old || op < XRMA_ATOMIC_FETCH_ADD || op > XRMA_ATOMIC_READ)
		return -XRMA_EINVAL;
	ret = xrma_core_rseg_acquire(handle, &rseg);
	if (ret)
		return ret;
	need = op == XRMA_ATOMIC_READ ? XRMA_ACCESS_REMOTE_READ
				      : XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	if (!(rseg->ctx->caps.flags & XRMA_CAP_ATOMIC))
		ret = -XRMA_ENOTSUP;
	else if (offset % 8)
		ret = -XRMA_EALIGN_OFFSET;
	else if (offset >= rseg->len || rseg->len - offset < 8)
		ret = -XRMA_ERANGE;
	else if ((rseg->access & need) != need)
		ret = -XRMA_EACCES;
	else
		ret = xrma_core_rseg_usable(rseg);
	if (!ret)
		ret = xrma_core_call_atomic(rseg->ctx, rseg->remote_mem, rseg->base + offset, op,
					    operand, compare, old);
	xrma_handle_put(&rseg->obj);
	return ret;
}

int xrma_rseg_errors(struct xrma_rseg *handle, uint32_t flags, struct xrma_rseg_errors *errors)
{
	struct xrma_core_rseg *rseg;
	int ret;

	if (!errors || (flags & ~XRMA_RSEG_ERRORS_MAPPED))
		return -XRMA_EINVAL;
	ret = xrma_core_rseg_acquire(handle, &rseg);
	if (ret)
		return ret;
	if (!(rseg->ctx->caps.flags & XRMA_CAP_RSEG_ERRORS))
		ret = -XRMA_ENOTSUP;
	else
		ret = xrma_core_call_rmem_errors(rseg->ctx, rseg->remote_mem, flags, errors);
	xrma_handle_put(&rseg->obj);
	return ret;
}

int xrma_rseg_set_callback(struct xrma_rseg *handle, xrma_event_cb cb, void *arg)
{
	struct xrma_core_rseg *rseg;
	int ret = xrma_core_rseg_acquire(handle, &rseg);

	if (ret)
		return ret;
	ret = xrma_evq_set_callback(&rseg->events, cb, arg);
	xrma_handle_put(&rseg->obj);
	return ret;
}

int xrma_rseg_wait_event(struct xrma_rseg *handle, int timeout_ms, struct xrma_event *event)
{
	struct xrma_core_rseg *rseg;
	int ret;

	if (!event)
		return -XRMA_EINVAL;
	ret = xrma_core_rseg_acquire(handle, &rseg);
	if (ret)
		return ret;
	ret = xrma_evq_wait(&rseg->events, timeout_ms, event);
	xrma_handle_put(&rseg->obj);
	return ret;
}

/* ---- inbound (service thread) ---- */

/* Move rseg to state (unless it is lost for good) and report it. */
static void transition(struct xrma_core_rseg *rseg, enum xrma_rseg_state state,
		       enum xrma_event_type type, int status)
{
	bool changed;

	xrma_lock(&rseg->lock);
	changed = rseg->state != XRMA_RSEG_LOST;
	if (changed)
		rseg->state = state;
	xrma_unlock(&rseg->lock);
	if (changed)
		xrma_evq_post(&rseg->events,
			      &(struct xrma_event){ .type = type, .node = rseg->owner.node,
						    .status = status });
}

static void apply_notice(struct xrma_core_rseg *rseg, uint64_t type)
{
	if (type == XRMA_EVENT_LOST)
		transition(rseg, XRMA_RSEG_LOST, XRMA_EVENT_LOST, -XRMA_ELOST);
	else if (type == XRMA_EVENT_DISCONNECT)
		transition(rseg, XRMA_RSEG_DISCONNECT_REQUESTED, XRMA_EVENT_DISCONNECT, 0);
}

void xrma_core_rseg_on_notice(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			      const struct xrma_wire_msg *msg)
{
	struct xrma_core_rseg *rseg;

	xrma_lock(&ctx->lock);
	rseg = xrma_idmap_find(&ctx->rsegs, msg->arg[1]);
	if (rseg && (!xrma_core_addr_eq(&rseg->owner, src) || rseg->id != msg->arg[0]))
		rseg = NULL;
	/* An import still in progress has no handle yet: keep the notice for it. */
	if (rseg && !rseg->published) {
		if (rseg->early_notice != XRMA_EVENT_LOST)
			rseg->early_notice = msg->arg[2];
		rseg = NULL;
	}
	if (rseg)
		xrma_handle_ref(&rseg->obj);
	xrma_unlock(&ctx->lock);
	if (!rseg)
		return;
	apply_notice(rseg, msg->arg[2]);
	xrma_handle_put(&rseg->obj);
}

struct rseg_match {
	const struct xrma_prov_addr *peer;   /* match by endpoint, or */
	uint32_t node;                       /* by node when peer is NULL */
	struct xrma_core_rseg **found;
	size_t count;
};

static void collect_rseg(void *arg, uint64_t id, void *value)
{
	struct rseg_match *m = arg;
	struct xrma_core_rseg *rseg = value;

	(void)id;
	if (!rseg->published)
		return;
	if (m->peer ? !xrma_core_addr_eq(&rseg->owner, m->peer) : rseg->owner.node != m->node)
		return;
	xrma_handle_ref(&rseg->obj);
	m->found[m->count++] = rseg;
}

static void for_matching(struct xrma_core_ctx *ctx, struct rseg_match *m,
			 void (*fn)(struct xrma_core_rseg *rseg, void *arg), void *arg)
{
	xrma_lock(&ctx->lock);
	m->found = ctx->rsegs.count ? malloc(ctx->rsegs.count * sizeof(*m->found)) : NULL;
	m->count = 0;
	if (m->found)
		xrma_idmap_each(&ctx->rsegs, collect_rseg, m);
	xrma_unlock(&ctx->lock);
	for (size_t i = 0; i < m->count; i++) {
		fn(m->found[i], arg);
		xrma_handle_put(&m->found[i]->obj);
	}
	free(m->found);
}

static void mark_lost(struct xrma_core_rseg *rseg, void *arg)
{
	transition(rseg, XRMA_RSEG_LOST, XRMA_EVENT_LOST, *(int *)arg);
}

void xrma_core_rseg_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer, int status)
{
	struct rseg_match m = { .peer = peer };
	int lost = status == -XRMA_ELOST ? status : -XRMA_ELOST;

	/* Whether the owner closed or died, the segment is gone for the importer. */
	for_matching(ctx, &m, mark_lost, &lost);
}

static void mark_link(struct xrma_core_rseg *rseg, void *arg)
{
	bool up = *(bool *)arg;
	bool changed;

	xrma_lock(&rseg->lock);
	changed = up ? rseg->state == XRMA_RSEG_NOT_OPERATIONAL
		     : rseg->state == XRMA_RSEG_CONNECTED || rseg->state == XRMA_RSEG_DISCONNECT_REQUESTED;
	if (changed)
		rseg->state = up ? XRMA_RSEG_CONNECTED : XRMA_RSEG_NOT_OPERATIONAL;
	xrma_unlock(&rseg->lock);
	if (changed)
		xrma_evq_post(&rseg->events,
			      &(struct xrma_event){ .type = up ? XRMA_EVENT_OPERATIONAL
								: XRMA_EVENT_NOT_OPERATIONAL,
						    .node = rseg->owner.node });
}

void xrma_core_rseg_on_link(struct xrma_core_ctx *ctx, uint32_t node, bool up)
{
	struct rseg_match m = { .peer = NULL, .node = node };

	for_matching(ctx, &m, mark_link, &up);
}
