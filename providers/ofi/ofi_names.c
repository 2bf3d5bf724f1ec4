/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_names.c: this node's name tables (segment ids, ports,
 * interrupt numbers). On ofi a node is one endpoint, so the tables live in its
 * process; other nodes ask for a name with a LOOKUP message (ofi_control.c).
 * Each table is an open-addressing hash set of 64-bit ids with tombstones.
 */
#include "providers/ofi/ofi.h"

#include <stdlib.h>
#include <xrma/api.h>
#include <xrma/errors.h>

#define NAME_EMPTY UINT64_MAX          /* XRMA_ID_ANY is never bound */
#define NAME_DELETED (UINT64_MAX - 1)
#define NAMES_MAX (1u << 20)

static size_t slot_of(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

static bool table_has(const struct ofi_names *t, uint64_t id)
{
	if (!t->cap)
		return false;
	for (size_t i = slot_of(id, t->cap), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
		if (t->ids[i] == NAME_EMPTY)
			return false;
		if (t->ids[i] == id)
			return true;
	}
	return false;
}

static int table_grow(struct ofi_names *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	uint64_t *ids, *old = t->ids;
	size_t old_cap = t->cap;

	/* Rebuild at the same size when tombstones, not live ids, filled the table. */
	if (t->live * 2 < t->cap)
		cap = t->cap;
	if (cap > NAMES_MAX)
		return -XRMA_ENOSPC;
	ids = malloc(cap * sizeof(*ids));
	if (!ids)
		return -XRMA_ENOMEM;
	for (size_t i = 0; i < cap; i++)
		ids[i] = NAME_EMPTY;
	t->ids = ids;
	t->cap = cap;
	t->used = t->live;
	for (size_t i = 0; i < old_cap; i++) {
		uint64_t id = old[i];

		if (id == NAME_EMPTY || id == NAME_DELETED)
			continue;
		for (size_t j = slot_of(id, cap);; j = (j + 1) & (cap - 1)) {
			if (ids[j] == NAME_EMPTY) {
				ids[j] = id;
				break;
			}
		}
	}
	free(old);
	return 0;
}

static int table_add(struct ofi_names *t, uint64_t id)
{
	int ret;

	if ((t->used + 1) * 4 > t->cap * 3 && (ret = table_grow(t)))
		return ret;
	for (size_t i = slot_of(id, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (t->ids[i] == NAME_EMPTY || t->ids[i] == NAME_DELETED) {
			if (t->ids[i] == NAME_EMPTY)
				t->used++;
			t->ids[i] = id;
			t->live++;
			return 0;
		}
	}
}

static bool table_del(struct ofi_names *t, uint64_t id)
{
	if (!t->cap)
		return false;
	for (size_t i = slot_of(id, t->cap), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
		if (t->ids[i] == NAME_EMPTY)
			return false;
		if (t->ids[i] == id) {
			t->ids[i] = NAME_DELETED;
			t->live--;
			return true;
		}
	}
	return false;
}

void ofi_names_init(struct ofi_ep *ep)
{
	for (int ns = 0; ns < XRMA_NS_COUNT; ns++)
		ep->names[ns] = (struct ofi_names){ .ids = NULL };
}

void ofi_names_fini(struct ofi_ep *ep)
{
	for (int ns = 0; ns < XRMA_NS_COUNT; ns++)
		free(ep->names[ns].ids);
}

bool ofi_names_has(struct ofi_ep *ep, enum xrma_ns ns, uint64_t id)
{
	bool has;

	if ((unsigned)ns >= XRMA_NS_COUNT)
		return false;
	pthread_mutex_lock(&ep->names_lock);
	has = table_has(&ep->names[ns], id);
	pthread_mutex_unlock(&ep->names_lock);
	return has;
}

int ofi_name_bind(void *state, enum xrma_ns ns, uint64_t *id, uint64_t min, uint64_t max)
{
	struct ofi_ep *ep = state;
	struct ofi_names *t;
	int ret = 0;

	if ((unsigned)ns >= XRMA_NS_COUNT || !id || min > max || max >= NAME_DELETED)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&ep->names_lock);
	t = &ep->names[ns];
	if (*id != XRMA_ID_ANY) {
		if (*id >= NAME_DELETED)
			ret = -XRMA_EINVAL;
		else if (table_has(t, *id))
			ret = -XRMA_EADDRINUSE;
		else
			ret = table_add(t, *id);
	} else {
		/* First free id at or after the hint, wrapping once through [min, max]. */
		uint64_t span = max - min, start = t->hint < min || t->hint > max ? min : t->hint;
		uint64_t cand = start, tried = 0;

		ret = -XRMA_ENOSPC;
		while (tried <= span && tried < (uint64_t)t->live + 1) {
			if (!table_has(t, cand)) {
				ret = 0;
				break;
			}
			cand = cand == max ? min : cand + 1;
			tried++;
		}
		if (!ret && !(ret = table_add(t, cand))) {
			*id = cand;
			t->hint = cand == max ? min : cand + 1;
		}
	}
	pthread_mutex_unlock(&ep->names_lock);
	return ret;
}

int ofi_name_unbind(void *state, enum xrma_ns ns, uint64_t id)
{
	struct ofi_ep *ep = state;
	bool found;

	if ((unsigned)ns >= XRMA_NS_COUNT)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&ep->names_lock);
	found = table_del(&ep->names[ns], id);
	pthread_mutex_unlock(&ep->names_lock);
	return found ? 0 : -XRMA_ENOENT;
}
