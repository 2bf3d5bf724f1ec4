/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/dmaq_hold.c: a queue's holds on segments (see dmaq_hold.h). Every call
 * but xrma_dmaq_hold_end runs under the queue's lock; none of those takes
 * another lock or drops a reference.
 */
#include "core/dmaq_hold.h"
#include "core/busy.h"

bool xrma_dmaq_hold_adopt(struct xrma_dmaq_holds *holds, struct xrma_obj *obj, struct xrma_ref *busy)
{
	struct xrma_dmaq_hold *free_slot = NULL;

	for (size_t i = 0; i < XRMA_DMAQ_HOLDS; i++) {
		struct xrma_dmaq_hold *hold = &holds->slot[i];

		if (!hold->handle)
			free_slot = free_slot ? free_slot : hold;
		else if (hold->obj == obj)
			return false;   /* a second use of the object in one job stays the job's own */
	}
	if (!free_slot)
		return false;
	*free_slot = (struct xrma_dmaq_hold){ .handle = obj->handle, .obj = obj, .busy = busy, .jobs = 1 };
	return true;
}

bool xrma_dmaq_hold_leave(struct xrma_dmaq_hold *hold, struct xrma_dmaq_hold *ended)
{
	if (--hold->jobs)
		return false;
	*ended = *hold;
	*hold = (struct xrma_dmaq_hold){ 0 };
	return true;
}

void xrma_dmaq_hold_end(struct xrma_dmaq_hold *ended)
{
	xrma_busy_end(ended->obj, ended->busy);
}
