/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/idmap.h: a map from 64-bit ids to pointers (open addressing, linear
 * probing, tombstones), used to route control messages to segments,
 * connections and interrupts in O(1) at 10,000s of objects. Not locked: the
 * owner's lock guards it.
 */
#ifndef XRMA_CORE_IDMAP_H
#define XRMA_CORE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct xrma_idmap_slot;

struct xrma_idmap {
	struct xrma_idmap_slot *slots;
	size_t cap;      /* power of two, or 0 */
	size_t count;    /* live entries */
	size_t used;     /* live + tombstones */
};

void xrma_idmap_init(struct xrma_idmap *map);
void xrma_idmap_destroy(struct xrma_idmap *map);
/* -XRMA_EEXIST if present, -XRMA_ENOMEM. */
int xrma_idmap_insert(struct xrma_idmap *map, uint64_t id, void *value);
void *xrma_idmap_find(const struct xrma_idmap *map, uint64_t id);
/* Returns the removed value or NULL. */
void *xrma_idmap_remove(struct xrma_idmap *map, uint64_t id);
/* Visit every entry; fn must not change the map. */
void xrma_idmap_each(const struct xrma_idmap *map, void (*fn)(void *arg, uint64_t id, void *value),
		     void *arg);

#endif
