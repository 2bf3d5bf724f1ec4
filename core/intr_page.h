/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/intr_page.h: the trigger page of an interrupt, its fast path on
 * providers that map remote memory. The owner exports one page per interrupt;
 * a connector maps it and a plain trigger is an atomic increment of the count
 * and of the ring word, plus a futex wake only when the owner sleeps. The
 * owner spins on the ring, then sleeps on it (futex), so a trigger reaches a
 * waiting owner without a message, a service thread or a system call.
 * Triggers with data, and every trigger while a callback is set, still travel
 * as messages (core/intr.c).
 */
#ifndef XRMA_CORE_INTR_PAGE_H
#define XRMA_CORE_INTR_PAGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "core/ctx.h"
#include "common/wait.h"

#define XRMA_INTR_PAGE_CLOSED   (1u << 0)   /* the interrupt is gone: triggers fail */
#define XRMA_INTR_PAGE_CALLBACK (1u << 1)   /* deliver by message: a callback is set */

/* The shared layout, at the start of the page. */
struct xrma_intr_page {
	_Atomic uint64_t count;      /* plain triggers made through the page */
	_Atomic uint32_t ring;       /* futex word: bumped by every trigger and owner-side change */
	_Atomic uint32_t sleepers;   /* owner threads asleep on ring */
	_Atomic uint32_t flags;      /* XRMA_INTR_PAGE_* */
};

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

#endif
