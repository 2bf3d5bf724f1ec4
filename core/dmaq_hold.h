/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/dmaq_hold.h: a queue's holds on the segments its in-flight jobs use.
 *
 * A job keeps each segment it names busy (and referenced) until it retires,
 * so that closing the segment meanwhile is refused. A stream of posts over
 * the same few segments would take and drop those uses once per post, four
 * atomic operations per segment. A hold takes the use once for all the
 * queue's jobs that name the object: under the queue's lock a job only
 * counts itself in, and the use ends when the last of them retires, before
 * its completion is visible, so a close after it is neither refused nor
 * leaves the object's end to this queue.
 */
#ifndef XRMA_CORE_DMAQ_HOLD_H
#define XRMA_CORE_DMAQ_HOLD_H

#include <stddef.h>
#include "core/handle.h"
#include "common/ref.h"

#define XRMA_DMAQ_HOLDS 4   /* objects of each kind a queue holds at once */

struct xrma_dmaq_hold {
	const void *handle;     /* what posts name the object by; NULL while free */
	struct xrma_obj *obj;   /* referenced, and busy through *busy */
	struct xrma_ref *busy;
	size_t jobs;            /* in-flight uses counted in */
};

struct xrma_dmaq_holds {
	struct xrma_dmaq_hold slot[XRMA_DMAQ_HOLDS];
};

/* The hold on the object handle names, or NULL (queue lock held). A NULL handle names none: free slots hold NULL. */
static inline struct xrma_dmaq_hold *xrma_dmaq_hold_find(struct xrma_dmaq_holds *holds, const void *handle)
{
	if (!handle)
		return NULL;
	for (size_t i = 0; i < XRMA_DMAQ_HOLDS; i++)
		if (holds->slot[i].handle == handle)
			return &holds->slot[i];
	return NULL;
}

/* The hold on obj, or NULL (queue lock held). */
static inline struct xrma_dmaq_hold *xrma_dmaq_hold_of(struct xrma_dmaq_holds *holds, const struct xrma_obj *obj)
{
	for (size_t i = 0; i < XRMA_DMAQ_HOLDS; i++)
		if (holds->slot[i].handle && holds->slot[i].obj == obj)
			return &holds->slot[i];
	return NULL;
}

/*
 * Let a hold take over a job's own busy use of obj (reference and busy
 * count), counting the job in: true when it did (queue lock held). A free
 * slot is needed, and no other hold on the object.
 */
bool xrma_dmaq_hold_adopt(struct xrma_dmaq_holds *holds, struct xrma_obj *obj, struct xrma_ref *busy);

/*
 * Count one use out of hold (queue lock held). When it was the last, the
 * hold moves to *ended and its slot is free: the caller ends it with
 * xrma_dmaq_hold_end once the lock is let go, and before the completion
 * that retired the job can be read. Returns whether it did.
 */
bool xrma_dmaq_hold_leave(struct xrma_dmaq_hold *hold, struct xrma_dmaq_hold *ended);

/* End the busy use and drop the reference of a hold that left (no lock held: the drop may destroy). */
void xrma_dmaq_hold_end(struct xrma_dmaq_hold *ended);

#endif
