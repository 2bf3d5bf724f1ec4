/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/busy.h: the end of a busy use. A use of an object that must not close
 * meanwhile (a transfer in flight, a fence signal, a window, a queue's hold)
 * is a handle reference plus one on the object's busy count; closing is
 * refused while the count is up.
 */
#ifndef XRMA_CORE_BUSY_H
#define XRMA_CORE_BUSY_H

#include "core/handle.h"
#include "common/ref.h"

/* The count first: the reference keeps the object, and so the count, alive until then. */
static inline void xrma_busy_end(struct xrma_obj *obj, struct xrma_ref *busy)
{
	xrma_ref_put(busy);
	xrma_handle_put(obj);
}

#endif
