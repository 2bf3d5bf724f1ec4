/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_interrupt.c: interrupts (spec §2.6, digest §5.4)
 * and Dolphin's data interrupts, both over the core's numbered interrupts
 * (xrma_intr / xrma_rintr): a plain interrupt is a trigger without data. Both
 * kinds share one number space per node. Triggers are queued, not coalesced
 * (the spec is silent, §8.3); a callback runs on the context's callback
 * thread, and SCI_CALLBACK_CANCEL from it turns callbacks off.
 */
#include "personalities/sisci/sisci.h"

#include <stdlib.h>
#include "common/errno_keep.h"

/* A local interrupt (intr set) or a connection to a remote one (rintr set). */
struct xrma_sisci_intr {
	struct xrma_sisci_obj obj;
	struct xrma_sisci_desc *desc;
	struct xrma_intr *intr;         /* fixed at create */
	struct xrma_rintr *rintr;       /* fixed at connect */
	bool data;                      /* a data interrupt; fixed */
	sci_cb_interrupt_t cb;
	sci_cb_data_interrupt_t data_cb;
	void *cb_arg;
};

static void intr_destroy(struct xrma_sisci_obj *obj)
{
	free(obj);
}

/* type is XRMA_SISCI_LINTR or XRMA_SISCI_RINTR; plain and data handles do not mix. */
static struct xrma_sisci_intr *intr_get(const void *h, enum xrma_sisci_type type, bool data)
{
	struct xrma_sisci_intr *i = XRMA_SISCI_GET(h, type, struct xrma_sisci_intr);

	if (i && i->data != data) {
		xrma_sisci_obj_put(&i->obj);
		return NULL;
	}
	return i;
}

/* The common end of create and connect: publish, or undo the core object. */
static sci_error_t intr_publish(struct xrma_sisci_intr *i, enum xrma_sisci_type type, sci_error_t err,
				void **out)
{
	if (err == SCI_ERR_OK)
		err = xrma_sisci_obj_publish(&i->obj, type, intr_destroy);
	if (err != SCI_ERR_OK) {
		if (i->intr)
			(void)xrma_intr_close(i->intr);
		if (i->rintr)
			(void)xrma_rintr_close(i->rintr);
		free(i);
		return err;
	}
	xrma_sisci_desc_child_add(i->desc);
	*out = i->obj.handle;
	return SCI_ERR_OK;
}

static void intr_on_trigger(void *arg, const void *data, size_t len)
{
	struct xrma_sisci_intr *i = XRMA_SISCI_GET(arg, XRMA_SISCI_LINTR, struct xrma_sisci_intr);
	sci_callback_action_t action;

	if (!i)
		return;
	XRMA_KILL_POINT("sisci.interrupt.callback");
	if (i->data)
		action = i->data_cb(i->cb_arg, arg, (void *)data, (unsigned int)len, SCI_ERR_OK);
	else
		action = i->cb(i->cb_arg, arg, SCI_ERR_OK);
	if (action == SCI_CALLBACK_CANCEL)
		(void)xrma_intr_set_callback(i->intr, NULL, NULL);
	xrma_sisci_obj_put(&i->obj);
}

static void create_intr(sci_desc_t sd, void **out, unsigned int adapter, unsigned int *number,
			bool data, void (*cb)(void), void *cb_arg, unsigned int flags, sci_error_t *error)
{
	const struct xrma_sisci_open_args args = {
		.flags = flags,
		.accepted = SCI_FLAG_USE_CALLBACK | SCI_FLAG_FIXED_INTNO |
			    (data ? SCI_FLAG_BROADCAST : SCI_FLAG_SHARED_INT),
		.unimplemented = SCI_FLAG_SHARED_INT,
		.args_ok = out && number && (!(flags & SCI_FLAG_USE_CALLBACK) || cb),
		.adapter = adapter,
	};
	struct xrma_sisci_desc *d;
	struct xrma_sisci_node *node;
	struct xrma_sisci_intr *i;
	uint64_t n;
	sci_error_t err;
	int ret;

	i = xrma_sisci_open_begin(sd, sizeof(*i), &args, &d, &node, &err);
	if (!i) {
		xrma_sisci_set(error, err);
		return;
	}
	i->desc = d;
	i->data = data;
	i->cb_arg = cb_arg;
	if (data)
		i->data_cb = (sci_cb_data_interrupt_t)cb;
	else
		i->cb = (sci_cb_interrupt_t)cb;
	n = (flags & SCI_FLAG_FIXED_INTNO) ? *number : XRMA_ID_ANY;
	ret = xrma_intr_open(node->ctx, &n, 0, 0, 0, &i->intr);
	if (!ret && n > 0xffffffffu)
		ret = -XRMA_ENOSPC;
	err = intr_publish(i, XRMA_SISCI_LINTR, xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_INTERRUPT), out);
	if (err == SCI_ERR_OK) {
		if (flags & SCI_FLAG_USE_CALLBACK)
			(void)xrma_intr_set_callback(i->intr, intr_on_trigger, i->obj.handle);
		*number = (unsigned int)n;
	}
	xrma_sisci_obj_put(&d->obj);
	xrma_sisci_set(error, err);
}

/* Remove a local interrupt or disconnect from a remote one. */
static void close_intr(void *h, enum xrma_sisci_type type, bool data, unsigned int flags,
		       sci_error_t *error)
{
	struct xrma_sisci_intr *i = intr_get(h, type, data);
	sci_error_t err;

	if (!i) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, 0, 0);
	if (err == SCI_ERR_OK && xrma_sisci_obj_kill(&i->obj)) {
		/* Waiters wake with SCI_ERR_CANCELLED; connected triggers then fail. */
		if (i->intr)
			(void)xrma_intr_close(i->intr);
		else
			(void)xrma_rintr_close(i->rintr);
		xrma_sisci_desc_child_del(i->desc);
	}
	xrma_sisci_obj_put(&i->obj);
	xrma_sisci_set(error, err);
}

static sci_error_t wait_intr(void *h, bool data, void *buf, size_t *len, unsigned int timeout,
			     unsigned int flags)
{
	struct xrma_sisci_intr *i = intr_get(h, XRMA_SISCI_LINTR, data);
	sci_error_t err;
	int ret;

	if (!i)
		return SCI_ERR_ILLEGAL_PARAMETER;
	err = xrma_sisci_flags(flags, 0, 0);
	if (err == SCI_ERR_OK) {
		ret = xrma_intr_wait(i->intr, xrma_sisci_timeout(timeout), buf, len);
		/* Removed while we waited: the core handle went stale under us. */
		err = ret == -XRMA_EHANDLE ? SCI_ERR_CANCELLED
					   : xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_INTERRUPT);
	}
	xrma_sisci_obj_put(&i->obj);
	return err;
}

static void connect_intr(sci_desc_t sd, void **out, unsigned int nodeId, unsigned int adapter,
			 unsigned int number, unsigned int timeout, bool data, unsigned int flags,
			 sci_error_t *error)
{
	const struct xrma_sisci_open_args args = {
		.flags = flags,
		.accepted = data ? SCI_FLAG_BROADCAST : 0,
		.args_ok = out != NULL,
		.adapter = adapter,
	};
	struct xrma_sisci_desc *d;
	struct xrma_sisci_node *node;
	struct xrma_sisci_intr *i;
	sci_error_t err;
	int ret;

	i = xrma_sisci_open_begin(sd, sizeof(*i), &args, &d, &node, &err);
	if (!i) {
		xrma_sisci_set(error, err);
		return;
	}
	i->desc = d;
	i->data = data;
	/* As for segments: a node not started yet has no such interrupt yet; wait for it. */
	ret = xrma_rintr_open_flags(node->ctx, nodeId, number, timeout ? XRMA_OPEN_WAIT : XRMA_OPEN_CLUSTER,
				    xrma_sisci_connect_timeout(timeout), &i->rintr);
	err = intr_publish(i, XRMA_SISCI_RINTR, xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_INTERRUPT), out);
	xrma_sisci_obj_put(&d->obj);
	xrma_sisci_set(error, err);
}

static sci_error_t trigger_intr(void *h, bool data, const void *buf, size_t len, unsigned int flags)
{
	struct xrma_sisci_intr *i = intr_get(h, XRMA_SISCI_RINTR, data);
	sci_error_t err;

	if (!i)
		return SCI_ERR_ILLEGAL_PARAMETER;
	err = xrma_sisci_flags(flags, data ? 0 : SCI_FLAG_CONDITIONAL_INTERRUPT,
			       SCI_FLAG_CONDITIONAL_INTERRUPT);
	if (err == SCI_ERR_OK && len > XRMA_INTR_DATA_MAX)
		err = SCI_ERR_OUT_OF_RANGE;
	if (err == SCI_ERR_OK && len && !buf)
		err = SCI_ERR_ILLEGAL_PARAMETER;
	if (err == SCI_ERR_OK)
		err = xrma_sisci_error(xrma_rintr_trigger(i->rintr, buf, len), XRMA_SISCI_DOMAIN_INTERRUPT);
	xrma_sisci_obj_put(&i->obj);
	return err;
}

/* ------------------------------------------------------------ plain interrupts */

void SCICreateInterrupt(sci_desc_t sd, sci_local_interrupt_t *interrupt, unsigned int localAdapterNo,
			unsigned int *interruptNo, sci_cb_interrupt_t callback, void *callbackArg,
			unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	create_intr(sd, (void **)interrupt, localAdapterNo, interruptNo, false, (void (*)(void))callback,
		    callbackArg, flags, error);
}

void SCIRemoveInterrupt(sci_local_interrupt_t interrupt, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	close_intr(interrupt, XRMA_SISCI_LINTR, false, flags, error);
}

void SCIWaitForInterrupt(sci_local_interrupt_t interrupt, unsigned int timeout, unsigned int flags,
			 sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	xrma_sisci_set(error, wait_intr(interrupt, false, NULL, NULL, timeout, flags));
}

void SCIConnectInterrupt(sci_desc_t sd, sci_remote_interrupt_t *interrupt, unsigned int nodeId,
			 unsigned int localAdapterNo, unsigned int interruptNo, unsigned int timeout,
			 unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	connect_intr(sd, (void **)interrupt, nodeId, localAdapterNo, interruptNo, timeout, false, flags,
		     error);
}

void SCIDisconnectInterrupt(sci_remote_interrupt_t interrupt, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	close_intr(interrupt, XRMA_SISCI_RINTR, false, flags, error);
}

void SCITriggerInterrupt(sci_remote_interrupt_t interrupt, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	sci_error_t err = trigger_intr(interrupt, false, NULL, 0, flags);

	if (err == SCI_ERR_OK)
		XRMA_KILL_POINT("sisci.interrupt.after_trigger");
	xrma_sisci_set(error, err);
}

/* ------------------------------------------------------------ data interrupts */

void SCICreateDataInterrupt(sci_desc_t sd, sci_local_data_interrupt_t *interrupt,
			    unsigned int localAdapterNo, unsigned int *interruptNo,
			    sci_cb_data_interrupt_t callback, void *callbackArg, unsigned int flags,
			    sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	create_intr(sd, (void **)interrupt, localAdapterNo, interruptNo, true, (void (*)(void))callback,
		    callbackArg, flags, error);
}

void SCIRemoveDataInterrupt(sci_local_data_interrupt_t interrupt, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	close_intr(interrupt, XRMA_SISCI_LINTR, true, flags, error);
}

void SCIWaitForDataInterrupt(sci_local_data_interrupt_t interrupt, void *data, unsigned int *length,
			     unsigned int timeout, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	size_t len;
	sci_error_t err;

	if (!length || (*length && !data)) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	len = *length;
	/* No buffer: the data of the trigger is dropped. */
	err = wait_intr(interrupt, true, data, data ? &len : NULL, timeout, flags);
	if (err == SCI_ERR_OK || err == SCI_ERR_OVERFLOW)
		*length = data ? (unsigned int)len : 0;
	xrma_sisci_set(error, err);
}

void SCIConnectDataInterrupt(sci_desc_t sd, sci_remote_data_interrupt_t *interrupt, unsigned int nodeId,
			     unsigned int localAdapterNo, unsigned int interruptNo, unsigned int timeout,
			     unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	connect_intr(sd, (void **)interrupt, nodeId, localAdapterNo, interruptNo, timeout, true, flags,
		     error);
}

void SCIDisconnectDataInterrupt(sci_remote_data_interrupt_t interrupt, unsigned int flags,
				sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	close_intr(interrupt, XRMA_SISCI_RINTR, true, flags, error);
}

void SCITriggerDataInterrupt(sci_remote_data_interrupt_t interrupt, void *data, unsigned int length,
			     unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	xrma_sisci_set(error, trigger_intr(interrupt, true, data, length, flags));
}
