/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_remote.c: remote segments and their state machine
 * (spec §2.3, digest §5.2). A synchronous connect returns a connected segment
 * or no handle; SCI_FLAG_ASYNCHRONOUS_CONNECT returns a valid handle at once
 * and a thread connects, then reports SCI_CB_CONNECT (or SCI_CB_LOST with the
 * failure as status: the spec has no "connect failed" reason). The core's
 * events (disconnect request, lost, link down/up) follow. A node of the cluster
 * that has not started yet is a node without the segment; with a timeout the
 * connect waits that long for the segment to appear (the core's
 * XRMA_OPEN_WAIT), as Dolphin's does for programs started one after the
 * other. SCIDisconnectSegment
 * leaves from every state. SCIConnectSCISpace imports a window of a node's
 * SCI space by its 64-bit address (xrma_rseg_open_bus): no handshake, no
 * events at the owner, the same remote segment otherwise. SCI_FLAG_BROADCAST
 * with DIS_BROADCAST_NODEID_GROUP_ALL imports the core's broadcast group of
 * the id (xrma/bcast.h); each member's events come as the segment's, naming
 * the member's node.
 */
#include "personalities/sisci/sisci.h"

#include <stdlib.h>
#include "common/errno_keep.h"

#define RSEG_ACCESS (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)

static void rseg_destroy(struct xrma_sisci_obj *obj)
{
	struct xrma_sisci_rseg *r = (struct xrma_sisci_rseg *)obj;

	xrma_sisci_evq_destroy(&r->events);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* Hand ev to the callback or the queue; handle is r's public handle. */
static void rseg_deliver(struct xrma_sisci_rseg *r, const struct xrma_sisci_event *ev)
{
	if (ev->reason == SCI_CB_LOST || ev->reason == SCI_CB_NOT_OPERATIONAL) {
		pthread_mutex_lock(&r->lock);
		r->faults++;
		pthread_mutex_unlock(&r->lock);
	}
	if (xrma_sisci_evq_push(&r->events, ev) &&
	    r->cb(r->cb_arg, r->obj.handle, ev->reason, ev->status) == SCI_CALLBACK_CANCEL)
		xrma_sisci_evq_cancel_callback(&r->events);
}

static void rseg_on_event(void *arg, const struct xrma_event *event)
{
	struct xrma_sisci_rseg *r = XRMA_SISCI_GET(arg, XRMA_SISCI_RSEG, struct xrma_sisci_rseg);
	struct xrma_sisci_event ev;

	if (!r)
		return;
	ev.reason = xrma_sisci_reason(event->type);
	ev.node = event->node;
	ev.status = xrma_sisci_error(event->status, XRMA_SISCI_DOMAIN_SEGMENT);
	rseg_deliver(r, &ev);
	xrma_sisci_obj_put(&r->obj);
}

/* The group import of a broadcast connect; on success r is connected and routes events. */
static int rseg_import_group(struct xrma_sisci_rseg *r)
{
	struct xrma_bcast *bcast = NULL;
	size_t size = 0;
	int ret;

	ret = xrma_bcast_open(r->node->ctx, r->id, RSEG_ACCESS, 0, xrma_sisci_connect_timeout(r->timeout),
			      &bcast);
	if (!ret)
		ret = xrma_bcast_set_callback(bcast, rseg_on_event, r->obj.handle);
	if (!ret)
		ret = xrma_bcast_size(bcast, &size);
	if (ret && bcast) {
		(void)xrma_bcast_close(bcast);
		bcast = NULL;
	}
	pthread_mutex_lock(&r->lock);
	r->state = ret ? XRMA_SISCI_CONNECT_FAILED : XRMA_SISCI_CONNECTED;
	r->bcast = ret ? NULL : bcast;
	r->size = size;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

/* The import itself; on success r is connected and routes core events. */
static int rseg_import(struct xrma_sisci_rseg *r)
{
	struct xrma_rseg *rseg;
	size_t size = 0;
	int ret;

	uint64_t id = r->id;

	if (r->broadcast)
		return rseg_import_group(r);
	if (r->space)
		ret = xrma_rseg_open_bus(r->node->ctx, r->node_id, r->bus, r->size, RSEG_ACCESS, 0,
					 xrma_sisci_connect_timeout(r->timeout), &rseg);
	else
		/* An asynchronous connect does not wait for the segment to appear:
		 * SCIDisconnectSegment waits for its attempt, which must stay short. */
		ret = xrma_rseg_open(r->node->ctx, r->node_id, r->id, RSEG_ACCESS,
				     r->timeout && !r->has_connector ? XRMA_OPEN_WAIT : XRMA_OPEN_CLUSTER,
				     xrma_sisci_connect_timeout(r->timeout), &rseg);
	/* r is published already, so the owner's first events find it. Link
	 * events reach a raw window too: its sequences need them. */
	if (!ret)
		ret = xrma_rseg_set_callback(rseg, rseg_on_event, r->obj.handle);
	if (!ret)
		ret = xrma_rseg_size(rseg, &size);
	if (!ret)
		ret = xrma_rseg_id(rseg, &id);
	if (ret && rseg) {
		(void)xrma_rseg_close(rseg);
		rseg = NULL;
	}
	pthread_mutex_lock(&r->lock);
	r->state = ret ? XRMA_SISCI_CONNECT_FAILED : XRMA_SISCI_CONNECTED;
	r->rseg = ret ? NULL : rseg;
	r->size = size;
	r->id = (unsigned int)id;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

static void *connect_main(void *arg)
{
	struct xrma_sisci_rseg *r = arg;
	int ret = rseg_import(r);
	struct xrma_sisci_event ev = {
		.reason = ret ? SCI_CB_LOST : SCI_CB_CONNECT,
		.node = r->node_id,
		.status = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT),
	};

	rseg_deliver(r, &ev);
	xrma_sisci_obj_put(&r->obj);
	return NULL;
}

/*
 * A remote segment object for the arguments of a connect, published (so the
 * owner's first events find it) and counted as a child of its descriptor.
 * NULL with *err on failure.
 */
static struct xrma_sisci_rseg *rseg_new(sci_desc_t sd, const struct xrma_sisci_open_args *args,
					struct xrma_sisci_desc **d, sci_error_t *err)
{
	struct xrma_sisci_node *node;
	struct xrma_sisci_rseg *r;

	r = xrma_sisci_open_begin(sd, sizeof(*r), args, d, &node, err);
	if (!r)
		return NULL;
	r->desc = *d;
	r->node = node;
	r->state = XRMA_SISCI_CONNECTING;
	pthread_mutex_init(&r->lock, NULL);
	xrma_sisci_cond_init(&r->cond);
	return r;
}

/* Publish r; its events go to cb when set. SCI_ERR_OK or the error (r is freed). */
static sci_error_t rseg_publish(struct xrma_sisci_rseg *r)
{
	sci_error_t err;

	xrma_sisci_evq_init(&r->events, r->cb != NULL);
	err = xrma_sisci_obj_publish(&r->obj, XRMA_SISCI_RSEG, rseg_destroy);
	if (err != SCI_ERR_OK) {
		rseg_destroy(&r->obj);
		return err;
	}
	xrma_sisci_desc_child_add(r->desc);
	return SCI_ERR_OK;
}

/* Connect r now; on failure its handle goes stale (it was never handed out). */
static sci_error_t rseg_connect_now(struct xrma_sisci_rseg *r)
{
	struct xrma_sisci_desc *d = r->desc;
	int ret = rseg_import(r);

	if (!ret)
		return SCI_ERR_OK;
	xrma_sisci_obj_ref(&r->obj);
	xrma_sisci_obj_kill(&r->obj);
	xrma_sisci_obj_put(&r->obj);   /* frees r */
	xrma_sisci_desc_child_del(d);
	return xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
}

void SCIConnectSegment(sci_desc_t sd, sci_remote_segment_t *segment, unsigned int nodeId,
		       unsigned int segmentId, unsigned int localAdapterNo,
		       sci_cb_remote_segment_t callback, void *callbackArg, unsigned int timeout,
		       unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	const struct xrma_sisci_open_args args = {
		.flags = flags,
		.accepted = SCI_FLAG_USE_CALLBACK | SCI_FLAG_ASYNCHRONOUS_CONNECT | SCI_FLAG_BROADCAST,
		.args_ok = segment && (!(flags & SCI_FLAG_USE_CALLBACK) || callback),
		.adapter = localAdapterNo,
	};
	bool async = flags & SCI_FLAG_ASYNCHRONOUS_CONNECT;
	struct xrma_sisci_desc *d;
	struct xrma_sisci_rseg *r;
	sci_error_t err;

	r = rseg_new(sd, &args, &d, &err);
	if (!r) {
		xrma_sisci_set(error, err);
		return;
	}
	r->node_id = nodeId;
	r->id = segmentId;
	r->broadcast = flags & SCI_FLAG_BROADCAST;
	r->timeout = timeout;
	/* A broadcast connect names a group, never one node. */
	if (r->broadcast && nodeId != DIS_BROADCAST_NODEID_GROUP_ALL) {
		xrma_sisci_evq_init(&r->events, false);
		rseg_destroy(&r->obj);   /* never published */
		xrma_sisci_obj_put(&d->obj);
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_NODEID);
		return;
	}
	r->cb = (flags & SCI_FLAG_USE_CALLBACK) ? callback : NULL;
	r->cb_arg = callbackArg;
	err = rseg_publish(r);
	if (err != SCI_ERR_OK)
		goto put_desc;
	if (!async) {
		err = rseg_connect_now(r);
		if (err != SCI_ERR_OK)
			goto put_desc;
	} else {
		xrma_sisci_obj_ref(&r->obj); /* the connect thread's */
		r->has_connector = true;
		if (pthread_create(&r->connector, NULL, connect_main, r)) {
			r->has_connector = false;
			err = SCI_ERR_NOSPC;
			xrma_sisci_obj_kill(&r->obj);
			xrma_sisci_obj_put(&r->obj);
			xrma_sisci_desc_child_del(d);
			goto put_desc;
		}
	}
	*segment = r->obj.handle;
	if (!async)
		XRMA_KILL_POINT("sisci.connect.after_import");
put_desc:
	xrma_sisci_obj_put(&d->obj);
	xrma_sisci_set(error, err);
}

/*
 * The address is SCI's 64-bit one (digest §1.6): nodeId in bits 63..48 and
 * the offset (hi << 16 | lo) below, the layout of the sci provider's global
 * addresses. Who may connect is the owner's choice ([sci] raw_space):
 * SCI_ERR_ACCESS when refused. No timeout is given: the owner's endpoint is
 * known to live, and its death ends the wait.
 */
void SCIConnectSCISpace(sci_desc_t sd, sci_remote_segment_t *segment, sci_address_t address,
			size_t size, unsigned int localAdapterNo, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	const struct xrma_sisci_open_args args = {
		.flags = flags,
		.accepted = 0,
		.args_ok = segment != NULL,
		.adapter = localAdapterNo,
	};
	struct xrma_sisci_desc *d;
	struct xrma_sisci_rseg *r;
	sci_error_t err;

	r = rseg_new(sd, &args, &d, &err);
	if (!r) {
		xrma_sisci_set(error, err);
		return;
	}
	r->space = true;
	r->node_id = address.nodeId;
	r->bus = (uint64_t)address.nodeId << 48 | (uint64_t)address.hi << 16 | address.lo;
	r->size = size;
	r->timeout = 0;
	/* Checked here too, so that a provider without raw space still says it first. */
	if (!size || size % r->node->caps.page_size) {
		err = SCI_ERR_SIZE_ALIGNMENT;
		xrma_sisci_evq_init(&r->events, false);
		rseg_destroy(&r->obj);   /* never published */
		goto put_desc;
	}
	err = rseg_publish(r);
	if (err == SCI_ERR_OK)
		err = rseg_connect_now(r);
	if (err == SCI_ERR_OK)
		*segment = r->obj.handle;
put_desc:
	xrma_sisci_obj_put(&d->obj);
	xrma_sisci_set(error, err);
}

void SCIDisconnectSegment(sci_remote_segment_t segment, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_rseg *r = XRMA_SISCI_GET(segment, XRMA_SISCI_RSEG, struct xrma_sisci_rseg);
	bool join = false;
	sci_error_t err;
	pthread_t connector;
	int ret = 0;

	if (!r) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, 0, 0);
	pthread_mutex_lock(&r->lock);
	if (err == SCI_ERR_OK && (r->maps || r->dma_users))
		err = SCI_ERR_BUSY;
	if (err == SCI_ERR_OK && r->has_connector) {
		join = true;
		connector = r->connector;
		r->has_connector = false;
	}
	pthread_mutex_unlock(&r->lock);
	/* From the connect thread's own callback: it ends by itself. */
	if (join && pthread_equal(connector, pthread_self())) {
		pthread_detach(connector);
		join = false;
	}
	if (join)
		pthread_join(connector, NULL);
	if (err == SCI_ERR_OK)
		XRMA_KILL_POINT("sisci.disconnect.before_leave");
	if (err == SCI_ERR_OK) {
		pthread_mutex_lock(&r->lock);
		if (r->rseg)
			ret = xrma_rseg_close(r->rseg);
		else if (r->bcast)
			ret = xrma_bcast_close(r->bcast);
		if (!ret) {
			r->rseg = NULL;
			r->bcast = NULL;
		}
		pthread_mutex_unlock(&r->lock);
		err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
	}
	if (err == SCI_ERR_OK && xrma_sisci_obj_kill(&r->obj)) {
		xrma_sisci_evq_close(&r->events);
		xrma_sisci_desc_child_del(r->desc);
	}
	xrma_sisci_obj_put(&r->obj);
	xrma_sisci_set(error, err);
}

size_t SCIGetRemoteSegmentSize(sci_remote_segment_t segment)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_rseg *r = XRMA_SISCI_GET(segment, XRMA_SISCI_RSEG, struct xrma_sisci_rseg);
	size_t size;

	if (!r)
		return 0;
	pthread_mutex_lock(&r->lock);
	size = r->size;
	pthread_mutex_unlock(&r->lock);
	xrma_sisci_obj_put(&r->obj);
	return size;
}

unsigned int SCIGetRemoteSegmentId(sci_remote_segment_t segment)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_rseg *r = XRMA_SISCI_GET(segment, XRMA_SISCI_RSEG, struct xrma_sisci_rseg);
	unsigned int id;

	if (!r)
		return 0;
	id = r->id;
	xrma_sisci_obj_put(&r->obj);
	return id;
}

sci_segment_cb_reason_t SCIWaitForRemoteSegmentEvent(sci_remote_segment_t segment,
						     sci_error_t *status, unsigned int timeout,
						     unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_rseg *r = XRMA_SISCI_GET(segment, XRMA_SISCI_RSEG, struct xrma_sisci_rseg);
	struct xrma_sisci_event ev = { .reason = SCI_CB_LOST };
	sci_error_t err;

	if (!r) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return SCI_CB_LOST;
	}
	err = xrma_sisci_flags(flags, 0, 0);
	if (err == SCI_ERR_OK)
		err = xrma_sisci_evq_wait(&r->events, timeout, &ev);
	if (err == SCI_ERR_OK)
		xrma_sisci_set(status, ev.status);
	xrma_sisci_obj_put(&r->obj);
	xrma_sisci_set(error, err);
	return ev.reason;
}

void xrma_sisci_rseg_health(struct xrma_sisci_rseg *r, bool *usable, unsigned long *faults)
{
	enum xrma_rseg_state state = XRMA_RSEG_LOST;

	pthread_mutex_lock(&r->lock);
	if (r->rseg && xrma_rseg_state(r->rseg, &state))
		state = XRMA_RSEG_LOST;
	/* A group is usable while every member is: one lost member fails it as a lost owner would. */
	if (r->bcast && xrma_bcast_state(r->bcast, &state))
		state = XRMA_RSEG_LOST;
	*usable = (r->rseg || r->bcast) &&
		  (state == XRMA_RSEG_CONNECTED || state == XRMA_RSEG_DISCONNECT_REQUESTED);
	*faults = r->faults;
	pthread_mutex_unlock(&r->lock);
}

void xrma_sisci_rseg_errors(struct xrma_sisci_rseg *r, uint32_t flags, struct xrma_rseg_errors *errors)
{
	pthread_mutex_lock(&r->lock);
	if (!r->rseg || xrma_rseg_errors(r->rseg, flags, errors))
		*errors = (struct xrma_rseg_errors){ 0, 0 };
	pthread_mutex_unlock(&r->lock);
}

bool xrma_sisci_rseg_checkpoint(struct xrma_sisci_rseg *r)
{
	struct xrma_rseg_errors before, after;
	unsigned long faults;
	bool usable;

	xrma_sisci_rseg_errors(r, 0, &before);
	xrma_sisci_rseg_errors(r, XRMA_RSEG_ERRORS_MAPPED, &after);
	xrma_sisci_rseg_health(r, &usable, &faults);
	return usable && after.retriable == before.retriable && after.fatal == before.fatal;
}

void xrma_sisci_rseg_use(struct xrma_sisci_rseg *r, int delta)
{
	pthread_mutex_lock(&r->lock);
	r->dma_users += (unsigned)delta;
	pthread_mutex_unlock(&r->lock);
}
