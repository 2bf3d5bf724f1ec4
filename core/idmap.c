/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/idmap.c: the id -> pointer hash map (see idmap.h). Grows at 1/2 load
 * (counting tombstones) so probes stay short; ids are mixed with a 64-bit
 * finaliser because many are small consecutive numbers.
 */
#include "core/idmap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <xrma/errors.h>

enum { SLOT_EMPTY = 0, SLOT_LIVE, SLOT_TOMB };

struct xrma_idmap_slot {
	uint64_t id;
	void *value;
	int state;
};

static size_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (size_t)x;
}

void xrma_idmap_init(struct xrma_idmap *map)
{
	map->slots = NULL;
	map->cap = map->count = map->used = 0;
}

void xrma_idmap_destroy(struct xrma_idmap *map)
{
	free(map->slots);
	xrma_idmap_init(map);
}

static struct xrma_idmap_slot *probe(const struct xrma_idmap *map, uint64_t id, bool for_insert)
{
	struct xrma_idmap_slot *tomb = NULL;
	size_t mask = map->cap - 1;

	for (size_t i = mix(id) & mask, n = 0; n < map->cap; i = (i + 1) & mask, n++) {
		struct xrma_idmap_slot *s = &map->slots[i];

		if (s->state == SLOT_EMPTY)
			return for_insert && tomb ? tomb : (for_insert ? s : NULL);
		if (s->state == SLOT_TOMB) {
			if (!tomb)
				tomb = s;
			continue;
		}
		if (s->id == id)
			return s;
	}
	return for_insert ? tomb : NULL;
}

static int grow(struct xrma_idmap *map)
{
	struct xrma_idmap old = *map;
	size_t cap = map->cap ? map->cap * 2 : 16;

	if (map->count * 4 < map->cap)
		cap = map->cap; /* mostly tombstones: rebuild at the same size */
	map->slots = calloc(cap, sizeof(*map->slots));
	if (!map->slots) {
		*map = old;
		return -XRMA_ENOMEM;
	}
	map->cap = cap;
	map->count = map->used = 0;
	for (size_t i = 0; i < old.cap; i++) {
		if (old.slots[i].state != SLOT_LIVE)
			continue;
		struct xrma_idmap_slot *s = probe(map, old.slots[i].id, true);

		*s = old.slots[i];
		map->count++;
		map->used++;
	}
	free(old.slots);
	return 0;
}

int xrma_idmap_insert(struct xrma_idmap *map, uint64_t id, void *value)
{
	struct xrma_idmap_slot *s;
	int ret;

	if (map->cap && probe(map, id, false))
		return -XRMA_EEXIST;
	if ((map->used + 1) * 2 > map->cap) {
		ret = grow(map);
		if (ret)
			return ret;
	}
	s = probe(map, id, true);
	if (s->state == SLOT_EMPTY)
		map->used++;
	s->id = id;
	s->value = value;
	s->state = SLOT_LIVE;
	map->count++;
	return 0;
}

void *xrma_idmap_find(const struct xrma_idmap *map, uint64_t id)
{
	struct xrma_idmap_slot *s;

	if (!map->cap)
		return NULL;
	s = probe(map, id, false);
	return s ? s->value : NULL;
}

void *xrma_idmap_remove(struct xrma_idmap *map, uint64_t id)
{
	struct xrma_idmap_slot *s;
	void *value;

	if (!map->cap)
		return NULL;
	s = probe(map, id, false);
	if (!s)
		return NULL;
	value = s->value;
	s->state = SLOT_TOMB;
	s->value = NULL;
	map->count--;
	return value;
}

void xrma_idmap_each(const struct xrma_idmap *map, void (*fn)(void *arg, uint64_t id, void *value),
		     void *arg)
{
	for (size_t i = 0; i < map->cap; i++)
		if (map->slots[i].state == SLOT_LIVE)
			fn(arg, map->slots[i].id, map->slots[i].value);
}
