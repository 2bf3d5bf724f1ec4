/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/intr_page.h: the trigger page of an interrupt, its fast path on
 * providers that map remote memory. The owner exports one page per interrupt;
 * a connector maps it and a plain trigger is an atomic increment of the count
 * and of the ring word, plus a futex wake only when the owner sleeps. The
 * owner spins on the ring, then sleeps on it (futex), so a trigger reaches a
 * waiting owner without a message, a service thread or a system call.
 *
 * A trigger with data goes into the page's slots, a bounded many-producer,
 * one-consumer queue (each slot's sequence says whose turn it is: free for
 * position p when it reads p, filled when it reads p + 1), then bumps the ring
 * like a plain one. A full queue, and every trigger while a callback is set,
 * travel as messages (core/intr.c). A connector that stops between taking a
 * slot and filling it (killed, stopped) would hold up the slots behind it, so
 * the owner may skip such a slot once later ones are filled: whichever of the
 * two changes the slot's sequence first wins, and a connector that lost
 * frees the slot and sends its trigger again.
 *
 * Order: a connector sends a data trigger by message only when the slots are
 * full, and the owner moves the filled slots onto its list before it queues
 * that message, then takes its list first: one connector's data triggers
 * arrive in the order it made them (unless another connector holds up a
 * slot). Slots and list together hold at most XRMA_INTR_QUEUE_DEPTH.
 */
#ifndef XRMA_CORE_INTR_PAGE_H
#define XRMA_CORE_INTR_PAGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "core/ctx.h"
#include "common/wait.h"
#include <xrma/intr.h>

#define XRMA_INTR_PAGE_CLOSED   (1u << 0)   /* the interrupt is gone: triggers fail */
#define XRMA_INTR_PAGE_CALLBACK (1u << 1)   /* deliver by message: a callback is set */

/* Data triggers the page holds before connectors fall back to messages. */
#define XRMA_INTR_PAGE_SLOTS 8
/* A slot the owner skipped at position p reads p | XRMA_INTR_SLOT_SKIPPED. */
#define XRMA_INTR_SLOT_SKIPPED (1ull << 63)

struct xrma_intr_slot {
	_Atomic uint64_t seq;        /* p: free for position p; p + 1: filled at p */
	_Atomic uint32_t len;        /* bytes of data; the owner never trusts it beyond XRMA_INTR_DATA_MAX */
	uint32_t reserved;
	uint8_t data[XRMA_INTR_DATA_MAX];
};

/* The shared layout, from the start of the pages. */
struct xrma_intr_page {
	_Atomic uint64_t count;      /* plain triggers made through the page */
	_Atomic uint32_t ring;       /* futex word: bumped by every trigger and owner-side change */
	_Atomic uint32_t sleepers;   /* owner threads asleep on ring */
	_Atomic uint32_t flags;      /* XRMA_INTR_PAGE_* */
	uint32_t reserved;
	_Atomic uint64_t data_tail;  /* the next position a connector takes */
	/* The owner's view, for connectors to stop at XRMA_INTR_QUEUE_DEPTH pending: */
	_Atomic uint64_t data_head;  /* the next position the owner takes */
	_Atomic uint64_t queued;     /* data triggers on the owner's list */
	struct xrma_intr_slot slots[XRMA_INTR_PAGE_SLOTS];
};

/* Bytes the owner exports: whole pages of page_size. */
static inline size_t xrma_intr_page_len(size_t page_size)
{
	return (sizeof(struct xrma_intr_page) + page_size - 1) / page_size * page_size;
}

/* The owner's page. */
struct xrma_intr_page_local {
	struct xrma_prov_mem *mem;
	struct xrma_intr_page *page;   /* NULL: no fast path (messages only) */
	struct xrma_prov_key key;
	size_t len;
};

/* A connector's mapping of the owner's page. */
struct xrma_intr_page_remote {
	struct xrma_prov_rmem *rmem;
	void *map;
	struct xrma_intr_page *page;   /* NULL: no fast path */
};

/* Make and export the page; on any failure (no XRMA_CAP_MAP, no room) there is none. */
void xrma_intr_page_create(struct xrma_core_ctx *ctx, struct xrma_intr_page_local *local);
void xrma_intr_page_destroy(struct xrma_core_ctx *ctx, struct xrma_intr_page_local *local);
void xrma_intr_page_set_flag(struct xrma_intr_page *page, uint32_t flag, bool on);

/* Wake sleepers after a change they must see (the owner's side of the ring). */
void xrma_intr_page_kick(struct xrma_intr_page *page);
/* Sleep while ring still reads seen, until the deadline: 0 or -XRMA_ETIMEDOUT. */
int xrma_intr_page_sleep(struct xrma_intr_page *page, uint32_t seen, const struct xrma_deadline *d);

/* Map the owner's page (key and len from its INTR_CONNECT reply); failure leaves none. */
void xrma_intr_page_attach(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *owner,
			   const void *key, size_t key_len, size_t len,
			   struct xrma_intr_page_remote *remote);
void xrma_intr_page_detach(struct xrma_core_ctx *ctx, struct xrma_intr_page_remote *remote);

enum xrma_intr_page_result {
	XRMA_INTR_PAGE_DONE = 0,     /* counted; the owner will see it */
	XRMA_INTR_PAGE_USE_MESSAGE,  /* not counted: a callback is set, send the trigger */
	XRMA_INTR_PAGE_COUNTED_KICK, /* counted, but a callback appeared: tell the owner */
	XRMA_INTR_PAGE_GONE,         /* not counted: the interrupt was removed */
};

/* One plain trigger through the page. */
enum xrma_intr_page_result xrma_intr_page_trigger(struct xrma_intr_page *page);

/* One data trigger (len <= XRMA_INTR_DATA_MAX) through the page's slots. */
enum xrma_intr_page_result xrma_intr_page_trigger_data(struct xrma_intr_page *page, const void *data,
						      size_t len);

#endif
