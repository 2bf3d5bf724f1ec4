/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_handle.c: the handle table of libsisci. A SISCI
 * handle is (generation, slot, type) packed into the pointer-sized opaque type,
 * so stale, forged and wrong-type handles are recognised and never
 * dereferenced (spec §8.3 needs this for block transfers; DESIGN.md for all).
 * References counted per object keep it alive while a call or callback uses it.
 * One mutex guards the table: SISCI's data path (mapped loads and stores) never
 * comes here.
 */
#include "personalities/sisci/sisci.h"

#include <stdlib.h>

struct slot {
	uint32_t gen;                    /* bumped at kill; 0 never handed out */
	struct xrma_sisci_obj *obj;      /* NULL when free */
	uint32_t next_free;
};

static struct {
	pthread_mutex_t lock;            /* guards everything here and obj refs/live */
	struct slot *slots;
	uint32_t count, cap, free_head;  /* free_head UINT32_MAX: none */
	size_t live[XRMA_SISCI_TYPE_COUNT];
} table = { .lock = PTHREAD_MUTEX_INITIALIZER, .free_head = UINT32_MAX };

#define SLOT_LIMIT (1u << 24)

static void *encode(uint32_t gen, uint32_t slot, enum xrma_sisci_type type)
{
	return (void *)(uintptr_t)(((uint64_t)gen << 32) | ((uint64_t)slot << 8) | (uint64_t)type);
}

static sci_error_t take_slot(uint32_t *out)
{
	if (table.free_head != UINT32_MAX) {
		*out = table.free_head;
		table.free_head = table.slots[*out].next_free;
		return SCI_ERR_OK;
	}
	if (table.count == table.cap) {
		uint32_t cap = table.cap ? table.cap * 2 : 256;
		struct slot *n;

		if (cap > SLOT_LIMIT)
			return SCI_ERR_API_NOSPC;
		n = realloc(table.slots, cap * sizeof(*n));
		if (!n)
			return SCI_ERR_NOSPC;
		table.slots = n;
		table.cap = cap;
	}
	table.slots[table.count] = (struct slot){ .gen = 1 };
	*out = table.count++;
	return SCI_ERR_OK;
}

sci_error_t xrma_sisci_obj_publish(struct xrma_sisci_obj *obj, enum xrma_sisci_type type,
				   void (*destroy)(struct xrma_sisci_obj *obj))
{
	sci_error_t err;
	uint32_t slot;

	pthread_mutex_lock(&table.lock);
	err = take_slot(&slot);
	if (err == SCI_ERR_OK) {
		table.slots[slot].obj = obj;
		obj->slot = slot;
		obj->type = type;
		obj->handle = encode(table.slots[slot].gen, slot, type);
		obj->refs = 1;
		obj->live = true;
		obj->destroy = destroy;
		table.live[type]++;
	}
	pthread_mutex_unlock(&table.lock);
	return err;
}

struct xrma_sisci_obj *xrma_sisci_obj_get(const void *handle, enum xrma_sisci_type type)
{
	uint64_t v = (uint64_t)(uintptr_t)handle;
	uint32_t gen = (uint32_t)(v >> 32), slot = (uint32_t)(v >> 8) & 0xffffffu;
	struct xrma_sisci_obj *obj = NULL;

	if ((v & 0xff) != (uint64_t)type)
		return NULL;
	pthread_mutex_lock(&table.lock);
	if (slot < table.count && table.slots[slot].gen == gen && table.slots[slot].obj &&
	    table.slots[slot].obj->live) {
		obj = table.slots[slot].obj;
		obj->refs++;
	}
	pthread_mutex_unlock(&table.lock);
	return obj;
}

void xrma_sisci_obj_ref(struct xrma_sisci_obj *obj)
{
	pthread_mutex_lock(&table.lock);
	obj->refs++;
	pthread_mutex_unlock(&table.lock);
}

void xrma_sisci_obj_put(struct xrma_sisci_obj *obj)
{
	bool last;

	pthread_mutex_lock(&table.lock);
	last = --obj->refs == 0;
	pthread_mutex_unlock(&table.lock);
	if (last)
		obj->destroy(obj);
}

bool xrma_sisci_obj_kill(struct xrma_sisci_obj *obj)
{
	struct slot *s;

	pthread_mutex_lock(&table.lock);
	if (!obj->live) {
		pthread_mutex_unlock(&table.lock);
		return false;
	}
	obj->live = false;
	s = &table.slots[obj->slot];
	s->obj = NULL;
	s->gen = s->gen + 1 ? s->gen + 1 : 1;
	s->next_free = table.free_head;
	table.free_head = obj->slot;
	table.live[obj->type]--;
	obj->refs--; /* the table's reference; the caller still holds one */
	pthread_mutex_unlock(&table.lock);
	return true;
}

size_t xrma_sisci_obj_live(enum xrma_sisci_type type)
{
	size_t n = 0;

	pthread_mutex_lock(&table.lock);
	if (type)
		n = table.live[type];
	else
		for (int t = 0; t < XRMA_SISCI_TYPE_COUNT; t++)
			n += table.live[t];
	pthread_mutex_unlock(&table.lock);
	return n;
}
