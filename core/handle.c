/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/handle.c: the process-wide handle table (see handle.h for the contract).
 * Slots live in fixed chunks that are never freed, so a lookup through any
 * handle value only ever reads table memory. Each slot's state is one atomic
 * word: generation (32 bits) | live (1) | references (31), changed by CAS, so
 * acquire, put and kill need no lock; only allocation takes the table mutex.
 */
#include "core/handle.h"
#include "core/fork.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>

#define SLOT_CHUNK_SHIFT 10
#define SLOT_CHUNK (1u << SLOT_CHUNK_SHIFT)
#define SLOT_CHUNKS 1024u
#define SLOT_MAX (SLOT_CHUNK * SLOT_CHUNKS) /* index fits the handle's 24 bits */

#define WORD_LIVE (1ull << 31)
#define WORD_REFS 0x7fffffffull
#define WORD_GEN(w) ((uint32_t)((w) >> 32))

struct slot {
	_Alignas(64) _Atomic uint64_t word;
	_Atomic(struct xrma_obj *) obj;
	uint32_t next_free;        /* under table.lock, while on the free list */
};

static struct {
	pthread_mutex_t lock;                       /* guards free list and growth */
	_Atomic(struct slot *) chunks[SLOT_CHUNKS]; /* published once, never freed */
	atomic_uint_fast32_t used;                  /* slots ever handed out */
	uint32_t free_head;                         /* UINT32_MAX: empty */
	atomic_size_t live[XRMA_OBJ_TYPE_COUNT];
} table = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.free_head = UINT32_MAX,
};

pthread_mutex_t *xrma_core_handle_fork_lock(void)
{
	return &table.lock;
}

static struct slot *slot_at(uint32_t index)
{
	struct slot *chunk = atomic_load_explicit(&table.chunks[index >> SLOT_CHUNK_SHIFT],
						  memory_order_acquire);
	return chunk ? &chunk[index & (SLOT_CHUNK - 1)] : NULL;
}

static void *encode(uint32_t gen, uint32_t index, enum xrma_obj_type type)
{
	return (void *)(uintptr_t)(((uint64_t)gen << 32) | ((uint64_t)index << 8) | (uint64_t)type);
}

static int take_slot(uint32_t *index)
{
	uint32_t i;

	if (table.free_head != UINT32_MAX) {
		i = table.free_head;
		table.free_head = slot_at(i)->next_free;
		*index = i;
		return 0;
	}
	i = (uint32_t)atomic_load_explicit(&table.used, memory_order_relaxed);
	if (i >= SLOT_MAX)
		return -XRMA_ENOSPC;
	if (!atomic_load_explicit(&table.chunks[i >> SLOT_CHUNK_SHIFT], memory_order_relaxed)) {
		struct slot *chunk = aligned_alloc(_Alignof(struct slot), SLOT_CHUNK * sizeof(*chunk));

		if (!chunk)
			return -XRMA_ENOMEM;
		memset(chunk, 0, SLOT_CHUNK * sizeof(*chunk));
		for (uint32_t k = 0; k < SLOT_CHUNK; k++)
			atomic_init(&chunk[k].word, 1ull << 32); /* generation 1: never a NULL handle */
		atomic_store_explicit(&table.chunks[i >> SLOT_CHUNK_SHIFT], chunk, memory_order_release);
	}
	atomic_store_explicit(&table.used, i + 1, memory_order_release);
	*index = i;
	return 0;
}

int xrma_handle_alloc(struct xrma_obj *obj, enum xrma_obj_type type,
		      void (*destroy)(struct xrma_obj *obj))
{
	uint32_t index;
	struct slot *slot;
	uint64_t word;
	int ret;

	if (!obj || type <= 0 || type >= XRMA_OBJ_TYPE_COUNT || !destroy)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&table.lock);
	ret = take_slot(&index);
	pthread_mutex_unlock(&table.lock);
	if (ret)
		return ret;
	slot = slot_at(index);
	obj->slot = index;
	obj->type = type;
	obj->destroy = destroy;
	word = atomic_load_explicit(&slot->word, memory_order_relaxed);
	obj->handle = encode(WORD_GEN(word), index, type);
	atomic_store_explicit(&slot->obj, obj, memory_order_relaxed);
	/* Publishing live with the table's reference makes obj visible to acquirers. */
	atomic_store_explicit(&slot->word, (word & ~(WORD_LIVE | WORD_REFS)) | WORD_LIVE | 1,
			      memory_order_release);
	atomic_fetch_add_explicit(&table.live[type], 1, memory_order_relaxed);
	return 0;
}

int xrma_handle_acquire(const void *handle, enum xrma_obj_type type, struct xrma_obj **out)
{
	uint64_t value = (uint64_t)(uintptr_t)handle;
	uint32_t index = (uint32_t)((value >> 8) & 0xffffffu);
	uint32_t gen = (uint32_t)(value >> 32);
	struct slot *slot;
	uint64_t word;
	struct xrma_obj *obj;

	if (out)
		*out = NULL;
	if (!out || !value || (value & 0xffu) != (uint64_t)type || type <= 0 ||
	    type >= XRMA_OBJ_TYPE_COUNT)
		return -XRMA_EHANDLE;
	if (index >= atomic_load_explicit(&table.used, memory_order_acquire))
		return -XRMA_EHANDLE;
	slot = slot_at(index);
	if (!slot)
		return -XRMA_EHANDLE;
	word = atomic_load_explicit(&slot->word, memory_order_acquire);
	do {
		if (WORD_GEN(word) != gen || !(word & WORD_LIVE) || (word & WORD_REFS) == WORD_REFS)
			return -XRMA_EHANDLE;
	} while (!atomic_compare_exchange_weak_explicit(&slot->word, &word, word + 1,
							 memory_order_acq_rel, memory_order_acquire));
	obj = atomic_load_explicit(&slot->obj, memory_order_acquire);
	if (obj->type != type) {
		xrma_handle_put(obj);
		return -XRMA_EHANDLE;
	}
	*out = obj;
	return 0;
}

void xrma_handle_ref(struct xrma_obj *obj)
{
	atomic_fetch_add_explicit(&slot_at(obj->slot)->word, 1, memory_order_acq_rel);
}

void xrma_handle_put(struct xrma_obj *obj)
{
	struct slot *slot = slot_at(obj->slot);
	uint64_t before = atomic_fetch_sub_explicit(&slot->word, 1, memory_order_acq_rel);
	void (*destroy)(struct xrma_obj *);
	uint32_t gen;

	if ((before & WORD_REFS) != 1 || (before & WORD_LIVE))
		return;
	/* Last reference of a killed object: recycle the slot, then destroy. */
	destroy = obj->destroy;
	gen = WORD_GEN(before) + 1;
	if (!gen)
		gen = 1;
	atomic_store_explicit(&slot->obj, NULL, memory_order_relaxed);
	atomic_store_explicit(&slot->word, (uint64_t)gen << 32, memory_order_release);
	pthread_mutex_lock(&table.lock);
	slot->next_free = table.free_head;
	table.free_head = obj->slot;
	pthread_mutex_unlock(&table.lock);
	destroy(obj);
}

int xrma_handle_kill(struct xrma_obj *obj)
{
	struct slot *slot = slot_at(obj->slot);
	uint64_t word = atomic_load_explicit(&slot->word, memory_order_acquire);

	do {
		if (!(word & WORD_LIVE))
			return -XRMA_EHANDLE;
	} while (!atomic_compare_exchange_weak_explicit(&slot->word, &word, word & ~WORD_LIVE,
							 memory_order_acq_rel, memory_order_acquire));
	atomic_fetch_sub_explicit(&table.live[obj->type], 1, memory_order_relaxed);
	xrma_handle_put(obj); /* the table's reference */
	return 0;
}

size_t xrma_handle_live(enum xrma_obj_type type)
{
	size_t total = 0;

	if (type > 0 && type < XRMA_OBJ_TYPE_COUNT)
		return atomic_load_explicit(&table.live[type], memory_order_relaxed);
	for (int t = 1; t < XRMA_OBJ_TYPE_COUNT; t++)
		total += atomic_load_explicit(&table.live[t], memory_order_relaxed);
	return total;
}
