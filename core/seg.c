/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/seg.c: local exportable memory (xrma/seg.h) and the owner's side of
 * the import protocol: an importer asks over the control channel, the owner
 * checks availability and rights, counts the importer and answers with the
 * provider's key. Importers that leave or die are uncounted and reported.
 */
#include "core/seg.h"

#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/control.h"
#include "core/ctx.h"
#include "core/prov_call.h"
#include "core/name_wait.h"

/* Default range for XRMA_ID_ANY: high ids, clear of the small ones programs pick. */
#define SEG_ID_ANY_MIN 0x40000000ull
#define SEG_ID_ANY_MAX 0x7fffffffull

static void seg_destroy(struct xrma_obj *obj)
{
	struct xrma_core_seg *seg = (struct xrma_core_seg *)obj;
	struct xrma_core_ctx *ctx = seg->ctx;

	if (seg->key_valid)
		xrma_core_call_mem_unexport(ctx, seg->pmem);
	if (seg->pmem)
		xrma_core_call_mem_free(ctx, seg->pmem);
	free(seg->importers);
	xrma_evq_destroy(&seg->events);
	xrma_lock_destroy(&seg->lock);
	free(seg);
	xrma_core_ctx_child_destroyed(ctx);
}

static int check_attr(const struct xrma_core_ctx *ctx, const struct xrma_seg_attr *attr)
{
	if (!attr->len || !attr->access || (attr->access & ~XRMA_ACCESS_ALL) ||
	    (attr->flags & ~(XRMA_SEG_PRIVATE | XRMA_SEG_BROADCAST)) ||
	    (attr->flags & XRMA_SEG_PRIVATE && attr->flags & XRMA_SEG_BROADCAST))
		return -XRMA_EINVAL;
	if (attr->len > ctx->caps.max_seg_size)
		return -XRMA_ERANGE;
	/* A private segment is only ever the local side of a transfer: the user's pages as
	 * they are, whatever the provider can register (see xrma_seg_open). */
	if (attr->addr && !(ctx->caps.flags & XRMA_CAP_REGISTER) &&
	    !(attr->flags & XRMA_SEG_PRIVATE))
		return -XRMA_ENOTSUP;
	if (attr->flags & XRMA_SEG_PRIVATE)
		return 0;
	if (attr->id_min > attr->id_max)
		return -XRMA_EINVAL;
	if (attr->id != XRMA_ID_ANY && (attr->id_min || attr->id_max) &&
	    (attr->id < attr->id_min || attr->id > attr->id_max))
		return -XRMA_EINVAL;
	return 0;
}

int xrma_seg_open(struct xrma_ctx *handle, const struct xrma_seg_attr *attr, struct xrma_seg **out)
{
	struct xrma_core_ctx *ctx;
	struct xrma_core_seg *seg;
	bool named = false;
	int ret;

	if (!attr || !out)
		return -XRMA_EINVAL;
	*out = NULL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	ret = check_attr(ctx, attr);
	if (ret)
		goto err_put_ctx;
	seg = calloc(1, sizeof(*seg));
	if (!seg) {
		ret = -XRMA_ENOMEM;
		goto err_put_ctx;
	}
	seg->ctx = ctx;
	seg->len = attr->len;
	seg->access = attr->access;
	seg->flags = attr->flags;
	xrma_ref_init(&seg->busy);
	xrma_lock_init(&seg->lock);
	xrma_evq_init(&seg->events, ctx, &seg->obj);
	ret = xrma_core_ctx_child_open(ctx);
	if (ret)
		goto err_free_seg;
	if (!(attr->flags & XRMA_SEG_PRIVATE)) {
		uint64_t min = attr->id_min, max = attr->id_max;

		if (!min && !max) {
			min = SEG_ID_ANY_MIN;
			max = SEG_ID_ANY_MAX;
		}
		seg->id = attr->id;
		ret = xrma_core_call_name_bind(ctx, XRMA_NS_SEG, &seg->id, min, max);
		if (ret)
			goto err_child;
		named = true;
	}
	if (attr->addr && !(ctx->caps.flags & XRMA_CAP_REGISTER)) {
		/* Private over user memory (check_attr): transfers copy from and to seg->addr,
		 * and nothing exports it, so the provider holds nothing for it. */
		seg->addr = attr->addr;
	} else if (attr->addr) {
		seg->addr = attr->addr;
		/* Importers may map what is exported, whatever memory the caller gave. */
		ret = xrma_core_call_mem_register(ctx, attr->addr, attr->len, XRMA_PROV_REGISTER_SHARE,
						  &seg->pmem);
	} else {
		ret = xrma_core_call_mem_alloc(ctx, attr->len, &seg->pmem, &seg->addr);
		/* Fresh pages are untouched: bound now, they are born on the chosen node. */
		if (!ret)
			xrma_core_placement_membind(&ctx->placement, seg->addr, attr->len);
	}
	if (ret)
		goto err_unbind;
	ret = xrma_handle_alloc(&seg->obj, XRMA_OBJ_SEG, seg_destroy);
	if (ret)
		goto err_free_mem;
	/* Published for import requests only once it has a handle to reference. */
	if (named) {
		xrma_lock(&ctx->lock);
		ret = xrma_idmap_insert(&ctx->segs, seg->id, seg);
		xrma_unlock(&ctx->lock);
		if (ret) {
			/* The destructor frees memory and accounting; the name is ours to drop. */
			xrma_core_call_name_unbind(ctx, XRMA_NS_SEG, seg->id);
			xrma_core_ctx_child_killed(ctx);
			xrma_handle_ref(&seg->obj);
			xrma_handle_kill(&seg->obj);
			xrma_handle_put(&seg->obj);
			xrma_handle_put(&ctx->obj);
			return ret;
		}
	}
	*out = seg->obj.handle;
	xrma_handle_put(&ctx->obj);
	return 0;

err_free_mem:
	if (seg->pmem)
		xrma_core_call_mem_free(ctx, seg->pmem);
err_unbind:
	if (named)
		xrma_core_call_name_unbind(ctx, XRMA_NS_SEG, seg->id);
err_child:
	xrma_core_ctx_child_killed(ctx);
	xrma_core_ctx_child_destroyed(ctx);
err_free_seg:
	xrma_evq_destroy(&seg->events);
	xrma_lock_destroy(&seg->lock);
	free(seg);
err_put_ctx:
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_seg_close(struct xrma_seg *handle)
{
	struct xrma_core_seg *seg;
	struct xrma_core_ctx *ctx;
	int ret;

	ret = xrma_core_seg_acquire(handle, &seg);
	if (ret)
		return ret;
	ctx = seg->ctx;
	/* Under ctx->lock so no import request can find it between check and removal. */
	xrma_lock(&ctx->lock);
	xrma_lock(&seg->lock);
	if (seg->importer_count || xrma_ref_count(&seg->busy)) {
		xrma_unlock(&seg->lock);
		xrma_unlock(&ctx->lock);
		xrma_handle_put(&seg->obj);
		return -XRMA_EBUSY;
	}
	seg->exported = false;
	xrma_unlock(&seg->lock);
	if (!(seg->flags & XRMA_SEG_PRIVATE) && xrma_idmap_find(&ctx->segs, seg->id) == seg)
		xrma_idmap_remove(&ctx->segs, seg->id);
	xrma_unlock(&ctx->lock);

	ret = xrma_handle_kill(&seg->obj);
	if (!ret) {
		if (!(seg->flags & XRMA_SEG_PRIVATE))
			xrma_core_call_name_unbind(ctx, XRMA_NS_SEG, seg->id);
		xrma_evq_close(&seg->events);
		xrma_core_ctx_child_killed(ctx);
	}
	xrma_handle_put(&seg->obj);
	return ret;
}

#define SEG_GETTER(name, type, expr)                                                       \
	int xrma_seg_##name(struct xrma_seg *handle, type *out)                            \
	{                                                                                  \
		struct xrma_core_seg *seg;                                                 \
		int ret;                                                                   \
		if (!out)                                                                  \
			return -XRMA_EINVAL;                                               \
		ret = xrma_core_seg_acquire(handle, &seg);                                 \
		if (ret)                                                                   \
			return ret;                                                        \
		*out = (expr);                                                             \
		xrma_handle_put(&seg->obj);                                                \
		return 0;                                                                  \
	}

SEG_GETTER(addr, void *, seg->addr)
SEG_GETTER(size, size_t, seg->len)
SEG_GETTER(access, uint32_t, seg->access)

int xrma_seg_id(struct xrma_seg *handle, uint64_t *id)
{
	struct xrma_core_seg *seg;
	int ret;

	if (!id)
		return -XRMA_EINVAL;
	ret = xrma_core_seg_acquire(handle, &seg);
	if (ret)
		return ret;
	ret = (seg->flags & XRMA_SEG_PRIVATE) ? -XRMA_EINVAL : 0;
	if (!ret)
		*id = seg->id;
	xrma_handle_put(&seg->obj);
	return ret;
}

int xrma_seg_export(struct xrma_seg *handle, uint32_t flags)
{
	struct xrma_core_seg *seg;
	struct xrma_core_ctx *ctx;
	int ret;

	ret = xrma_core_seg_acquire(handle, &seg);
	if (ret)
		return ret;
	ctx = seg->ctx;
	if ((flags & ~XRMA_EXPORT_ADDRESS_ONLY) || (seg->flags & XRMA_SEG_PRIVATE)) {
		ret = -XRMA_EINVAL;
		goto out_put;
	}
	xrma_lock(&seg->lock);
	if (!seg->key_valid) {
		/* Remote rights only: local rights mean nothing to an importer. */
		ret = xrma_core_call_mem_export(ctx, seg->pmem,
						seg->access & (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE),
						&seg->key);
		seg->key_valid = !ret;
	}
	if (flags & XRMA_EXPORT_ADDRESS_ONLY) {
		xrma_unlock(&seg->lock);
		goto out_put;
	}
	if (!ret)
		seg->exported = true;
	xrma_unlock(&seg->lock);
	/* Importers waiting for the segment to appear (XRMA_OPEN_WAIT) look again. */
	if (!ret)
		xrma_core_names_changed(ctx);
out_put:
	xrma_handle_put(&seg->obj);
	return ret;
}

int xrma_seg_bus_addr(struct xrma_seg *handle, uint64_t *bus)
{
	struct xrma_core_seg *seg;
	int ret;

	if (!bus)
		return -XRMA_EINVAL;
	ret = xrma_core_seg_acquire(handle, &seg);
	if (ret)
		return ret;
	xrma_lock(&seg->lock);
	if (!(seg->ctx->caps.flags & XRMA_CAP_BUS_ADDR))
		ret = -XRMA_ENOTSUP;
	else if (!seg->key_valid)
		ret = -XRMA_ENOTAVAIL;
	else
		ret = xrma_core_call_mem_bus_addr(seg->ctx, seg->pmem, bus);
	xrma_unlock(&seg->lock);
	xrma_handle_put(&seg->obj);
	return ret;
}

static void send_notice(struct xrma_core_seg *seg, const struct xrma_seg_importer *imp,
			enum xrma_event_type type)
{
	struct xrma_wire_msg msg = {
		.type = XRMA_WIRE_SEG_NOTICE,
		.arg = { seg->id, imp->import_id, (uint64_t)type, 0 },
	};

	/* An importer that is already gone needs no notice. */
	(void)xrma_core_control_send(seg->ctx, &imp->addr, &msg);
}

int xrma_seg_unexport(struct xrma_seg *handle, uint32_t flags)
{
	struct xrma_core_seg *seg;
	struct xrma_seg_importer *notify = NULL;
	size_t count = 0;
	int ret;

	ret = xrma_core_seg_acquire(handle, &seg);
	if (ret)
		return ret;
	if ((flags & ~(XRMA_UNEXPORT_NOTIFY | XRMA_UNEXPORT_FORCE)) || (seg->flags & XRMA_SEG_PRIVATE)) {
		xrma_handle_put(&seg->obj);
		return -XRMA_EINVAL;
	}
	xrma_lock(&seg->lock);
	seg->exported = false;
	if (flags && seg->importer_count) {
		notify = malloc(seg->importer_count * sizeof(*notify));
		if (notify) {
			count = seg->importer_count;
			memcpy(notify, seg->importers, count * sizeof(*notify));
		} else {
			ret = -XRMA_ENOMEM;
		}
		if (notify && (flags & XRMA_UNEXPORT_FORCE))
			seg->importer_count = 0;
	}
	xrma_unlock(&seg->lock);
	for (size_t i = 0; i < count; i++)
		send_notice(seg, &notify[i],
			    (flags & XRMA_UNEXPORT_FORCE) ? XRMA_EVENT_LOST : XRMA_EVENT_DISCONNECT);
	free(notify);
	xrma_handle_put(&seg->obj);
	return ret;
}

int xrma_seg_importers(struct xrma_seg *handle, size_t *count)
{
	struct xrma_core_seg *seg;
	int ret;

	if (!count)
		return -XRMA_EINVAL;
	ret = xrma_core_seg_acquire(handle, &seg);
	if (ret)
		return ret;
	xrma_lock(&seg->lock);
	*count = seg->importer_count;
	xrma_unlock(&seg->lock);
	xrma_handle_put(&seg->obj);
	return 0;
}

int xrma_seg_set_callback(struct xrma_seg *handle, xrma_event_cb cb, void *arg)
{
	struct xrma_core_seg *seg;
	int ret = xrma_core_seg_acquire(handle, &seg);

	if (ret)
		return ret;
	ret = xrma_evq_set_callback(&seg->events, cb, arg);
	xrma_handle_put(&seg->obj);
	return ret;
}

int xrma_seg_wait_event(struct xrma_seg *handle, int timeout_ms, struct xrma_event *event)
{
	struct xrma_core_seg *seg;
	int ret;

	if (!event)
		return -XRMA_EINVAL;
	ret = xrma_core_seg_acquire(handle, &seg);
	if (ret)
		return ret;
	ret = xrma_evq_wait(&seg->events, timeout_ms, event);
	xrma_handle_put(&seg->obj);
	return ret;
}

/* ---- owner side of the import protocol (service thread) ---- */

/* The exported segment with id, referenced, or NULL. */
static struct xrma_core_seg *find_seg(struct xrma_core_ctx *ctx, uint64_t id)
{
	struct xrma_core_seg *seg;

	xrma_lock(&ctx->lock);
	seg = xrma_idmap_find(&ctx->segs, id);
	if (seg)
		xrma_handle_ref(&seg->obj);
	xrma_unlock(&ctx->lock);
	return seg;
}

static int add_importer_locked(struct xrma_core_seg *seg, const struct xrma_prov_addr *addr,
			       uint64_t import_id)
{
	if (seg->importer_count == seg->importer_cap) {
		size_t cap = seg->importer_cap ? seg->importer_cap * 2 : 4;
		struct xrma_seg_importer *n = realloc(seg->importers, cap * sizeof(*n));

		if (!n)
			return -XRMA_ENOMEM;
		seg->importers = n;
		seg->importer_cap = cap;
	}
	seg->importers[seg->importer_count++] = (struct xrma_seg_importer){ *addr, import_id };
	return 0;
}

void xrma_core_seg_on_import(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			     const struct xrma_wire_msg *msg)
{
	const uint32_t remote_bits = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	struct xrma_core_seg *seg = find_seg(ctx, msg->arg[0]);
	uint32_t wanted = (uint32_t)msg->arg[1];
	uint64_t args[4] = { 0 };
	struct xrma_prov_key key;
	int status = 0;

	if (!seg) {
		xrma_core_control_reply(ctx, src, msg->req, -XRMA_ENOENT, NULL, NULL, 0);
		return;
	}
	xrma_lock(&seg->lock);
	/* A group names only the segments opened for it. */
	if ((msg->arg[3] & XRMA_WIRE_IMPORT_BROADCAST) && !(seg->flags & XRMA_SEG_BROADCAST))
		status = -XRMA_ENOENT;
	else if (!seg->exported)
		status = -XRMA_ENOTAVAIL;
	else if (!wanted || msg->arg[1] > UINT32_MAX || (wanted & ~remote_bits) ||
		 (wanted & ~seg->access))
		status = -XRMA_EACCES;
	else
		status = add_importer_locked(seg, src, msg->arg[2]);
	key = seg->key;
	/* The importer may ask where the segment sits (SISCI's SCI_Q_REMOTE_SEGMENT_IOADDR). */
	if (!status && (ctx->caps.flags & XRMA_CAP_BUS_ADDR) &&
	    !xrma_core_call_mem_bus_addr(ctx, seg->pmem, &args[2]))
		args[3] = XRMA_WIRE_IMPORT_REPLY_BUS;
	xrma_unlock(&seg->lock);
	if (!status) {
		args[0] = seg->len;
		args[1] = wanted;
		if (xrma_core_control_reply(ctx, src, msg->req, 0, args, key.bytes, key.len)) {
			/* The importer is gone already; its peer_down will uncount it. */
		}
		xrma_evq_post(&seg->events,
			      &(struct xrma_event){ .type = XRMA_EVENT_CONNECT, .node = src->node });
	} else {
		xrma_core_control_reply(ctx, src, msg->req, status, NULL, NULL, 0);
	}
	xrma_handle_put(&seg->obj);
}

struct seg_list {
	struct xrma_core_seg **segs;
	size_t count;
};

static struct seg_list snapshot_segs(struct xrma_core_ctx *ctx);

/*
 * The exported segment whose bus range holds [bus, bus+len), referenced in
 * *found with the window's offset in it; XRMA_ENOENT when none holds bus,
 * XRMA_ERANGE when the one that does ends too soon.
 */
static int find_seg_by_bus(struct xrma_core_ctx *ctx, uint64_t bus, uint64_t len,
			   struct xrma_core_seg **found, uint64_t *offset)
{
	struct seg_list list = snapshot_segs(ctx);
	int ret = -XRMA_ENOENT;

	*found = NULL;
	for (size_t i = 0; i < list.count; i++) {
		struct xrma_core_seg *seg = list.segs[i];
		uint64_t base = 0;
		bool has = false;

		xrma_lock(&seg->lock);
		if (seg->key_valid && !*found)
			has = !xrma_core_call_mem_bus_addr(ctx, seg->pmem, &base);
		xrma_unlock(&seg->lock);
		if (has && bus >= base && bus - base < seg->len) {
			*offset = bus - base;
			ret = len > seg->len - *offset ? -XRMA_ERANGE : 0;
			*found = seg;
			continue;   /* keeps the reference */
		}
		xrma_handle_put(&seg->obj);
	}
	free(list.segs);
	return ret;
}

void xrma_core_seg_on_import_bus(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
				 const struct xrma_wire_msg *msg)
{
	const uint32_t remote_bits = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	uint32_t wanted = (uint32_t)msg->arg[1];
	struct xrma_core_seg *seg = NULL;
	uint64_t args[4] = { 0 }, offset = 0;
	struct xrma_prov_key key;
	int status;

	/* The provider's policy first: a refused peer learns nothing of the layout. */
	status = xrma_core_call_bus_permit(ctx, src);
	if (!status && (!msg->arg[3] || !wanted || msg->arg[1] > UINT32_MAX || (wanted & ~remote_bits)))
		status = -XRMA_EINVAL;
	if (!status)
		status = find_seg_by_bus(ctx, msg->arg[0], msg->arg[3], &seg, &offset);
	if (!status) {
		xrma_lock(&seg->lock);
		if (wanted & ~seg->access)
			status = -XRMA_EACCES;
		key = seg->key;
		xrma_unlock(&seg->lock);
	}
	/* A raw window has no handshake: the owner neither counts it nor hears of it. */
	if (!status) {
		args[0] = seg->len;
		args[1] = wanted;
		args[2] = seg->id;
		args[3] = offset;
		(void)xrma_core_control_reply(ctx, src, msg->req, 0, args, key.bytes, key.len);
	} else {
		xrma_core_control_reply(ctx, src, msg->req, status, NULL, NULL, 0);
	}
	if (seg)
		xrma_handle_put(&seg->obj);
}

/* Remove importers matching addr (and import_id unless any_id); returns how many. */
static size_t remove_importers(struct xrma_core_seg *seg, const struct xrma_prov_addr *addr,
			       uint64_t import_id, bool any_id)
{
	size_t removed = 0;

	xrma_lock(&seg->lock);
	for (size_t i = 0; i < seg->importer_count;) {
		struct xrma_seg_importer *imp = &seg->importers[i];

		if (xrma_core_addr_eq(&imp->addr, addr) && (any_id || imp->import_id == import_id)) {
			*imp = seg->importers[--seg->importer_count];
			removed++;
			continue;
		}
		i++;
	}
	xrma_unlock(&seg->lock);
	return removed;
}

void xrma_core_seg_on_release(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			      const struct xrma_wire_msg *msg)
{
	struct xrma_core_seg *seg = find_seg(ctx, msg->arg[0]);
	size_t removed = seg ? remove_importers(seg, src, msg->arg[1], false) : 0;

	/* Answered after uncounting, so the importer's close means "uncounted". */
	if (msg->req)
		xrma_core_control_reply(ctx, src, msg->req, 0, NULL, NULL, 0);
	if (!seg)
		return;
	if (removed)
		xrma_evq_post(&seg->events,
			      &(struct xrma_event){ .type = XRMA_EVENT_DISCONNECT, .node = src->node });
	xrma_handle_put(&seg->obj);
}

static void collect_seg(void *arg, uint64_t id, void *value)
{
	struct seg_list *list = arg;
	struct xrma_core_seg *seg = value;

	(void)id;
	xrma_handle_ref(&seg->obj);
	list->segs[list->count++] = seg;
}

/* Every exportable segment, referenced; the caller puts them and frees the array. */
static struct seg_list snapshot_segs(struct xrma_core_ctx *ctx)
{
	struct seg_list list = { NULL, 0 };

	xrma_lock(&ctx->lock);
	if (ctx->segs.count) {
		list.segs = malloc(ctx->segs.count * sizeof(*list.segs));
		if (list.segs)
			xrma_idmap_each(&ctx->segs, collect_seg, &list);
	}
	xrma_unlock(&ctx->lock);
	return list;
}

void xrma_core_seg_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer, int status)
{
	struct seg_list list = snapshot_segs(ctx);

	for (size_t i = 0; i < list.count; i++) {
		struct xrma_core_seg *seg = list.segs[i];
		size_t n = remove_importers(seg, peer, 0, true);

		while (n--)
			xrma_evq_post(&seg->events,
				      &(struct xrma_event){ .type = status == -XRMA_ELOST ? XRMA_EVENT_LOST
											  : XRMA_EVENT_DISCONNECT,
							    .node = peer->node,
							    .status = status });
		xrma_handle_put(&seg->obj);
	}
	free(list.segs);
}

void xrma_core_seg_on_link(struct xrma_core_ctx *ctx, uint32_t node, bool up)
{
	struct seg_list list = snapshot_segs(ctx);

	for (size_t i = 0; i < list.count; i++) {
		struct xrma_core_seg *seg = list.segs[i];
		bool affected = false;

		xrma_lock(&seg->lock);
		for (size_t k = 0; k < seg->importer_count && !affected; k++)
			affected = seg->importers[k].addr.node == node;
		xrma_unlock(&seg->lock);
		if (affected)
			xrma_evq_post(&seg->events,
				      &(struct xrma_event){ .type = up ? XRMA_EVENT_OPERATIONAL
									: XRMA_EVENT_NOT_OPERATIONAL,
							    .node = node });
		xrma_handle_put(&seg->obj);
	}
	free(list.segs);
}
