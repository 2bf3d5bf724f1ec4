/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/intr.c: interrupts (xrma/intr.h), the owner's side. It binds a number
 * in the provider's node-wide XRMA_NS_INTR space, counts plain triggers, queues
 * data triggers and hands them to waiters or, through the callback thread, to
 * a callback. The remote side (core/rintr.c) connects (INTR_CONNECT), triggers
 * (INTR_TRIGGER: plain ones fire and forget, data ones are answered) and learns
 * of removal (INTR_GONE) or death (peer_down). Message formats: core/wire.h; in
 * addition every message about a connection carries the interrupt's instance
 * in a1 (the INTR_CONNECT reply gives it in arg[0]): numbers are reused, and a
 * stale INTR_GONE, INTR_DISCONNECT or trigger must not reach a newer interrupt.
 *
 * Where the provider maps remote memory, plain triggers take the fast path of
 * core/intr_page.h instead: the INTR_CONNECT reply carries the key of the
 * interrupt's trigger page (payload, length in arg[1]), the connector maps it
 * and counts into it, and the owner waits on the page's ring. A trigger that
 * was counted in the page while a callback appeared is followed by a "kick"
 * (INTR_TRIGGER with arg[2] = 1), which delivers without counting again.
 * Data triggers go into the page's slots where there is room and no callback
 * is set, and are taken before plain ones. Counts through the page and through
 * messages are both plain triggers; a plain trigger may thus overtake an earlier
 * data trigger of the same connector, and a data trigger that found the slots
 * full (and went by message) an earlier one in a slot.
 */
#include "core/intr.h"
#include "common/spin.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/control.h"
#include "core/ctx.h"
#include "core/intr_page.h"
#include "core/prov_call.h"
#include "core/name_wait.h"
#include "core/service.h"
#include "common/wait.h"

/* XRMA_ID_ANY with range (0, 0): positive 32-bit numbers, which every personality can hold. */
#define INTR_NUMBER_ANY_MIN 1ull
#define INTR_NUMBER_ANY_MAX 0x7fffffffull
/* Triggers one callback work item delivers before it yields the callback thread to others. */
#define INTR_CALLBACK_BATCH 64
/*
 * How long a data slot taken but not filled may hold up filled ones behind it
 * before the owner skips it (core/intr_page.h): longer than a connector is
 * usually preempted, short enough that a killed one costs little.
 */
#define INTR_SLOT_HOLD_MS 10

struct intr_entry {
	struct intr_entry *next;
	size_t len;
	uint8_t data[];
};

/* A remote context that connected, and how many times (one per rintr it opened). */
struct intr_connector {
	struct intr_connector *next;
	struct xrma_prov_addr addr;
	size_t count;
};

struct xrma_core_intr {
	struct xrma_obj obj;
	struct xrma_core_ctx *ctx;          /* fixed at open */
	uint64_t number;                    /* fixed at open */
	uint64_t instance;                  /* fixed at open: a ctx id, tells it from earlier holders of number */

	struct xrma_lock lock;              /* guards every field below */
	struct xrma_cond cond;              /* broadcast by intr_changed_locked */
	atomic_uint_fast64_t seq;           /* bumped under lock with each broadcast; spun on without */
	bool closed;
	uint64_t plain;                     /* plain triggers not yet taken: counted, never refused */
	struct intr_entry *head, **tail;    /* data triggers, oldest first */
	size_t queued;                      /* entries on the list, at most XRMA_INTR_QUEUE_DEPTH */
	xrma_intr_cb cb;
	void *cb_arg;
	bool cb_scheduled;                  /* a delivery work item is queued or running */
	struct intr_connector *connectors;
	struct xrma_intr_page_local page;   /* fixed at open (page.page NULL: none) */
	/*
	 * Page triggers taken so far: advanced by compare-and-swap, with the lock
	 * or (the fast path of xrma_intr_wait) without, so each count is taken once.
	 */
	_Atomic uint64_t page_taken;
	/* Set under lock by intr_changed_locked: nothing but page triggers can be taken
	 * (no data entry, no message trigger, no callback, open), so a waiter may take
	 * one without the lock. */
	atomic_bool page_only;
	/* The next position of the page's data slots to take: changed under the lock,
	 * read without it by the fast path. */
	_Atomic uint64_t data_head;
	uint64_t data_held_since_ns;        /* the slot at data_head first seen holding others up, or 0 */
};

static int intr_acquire(struct xrma_intr *handle, struct xrma_core_intr **intr)
{
	return XRMA_HANDLE_GET(handle, XRMA_OBJ_INTR, struct xrma_core_intr, *intr);
}

/* ------------------------------------------------------------------ the owner's queue */

static void intr_changed_locked(struct xrma_core_intr *intr)
{
	xrma_lock_assert_held(&intr->lock);
	atomic_store_explicit(&intr->page_only,
			      intr->page.page && !intr->head && !intr->plain && !intr->cb && !intr->closed,
			      memory_order_release);
	atomic_fetch_add_explicit(&intr->seq, 1, memory_order_release);
	if (intr->page.page)
		xrma_intr_page_kick(intr->page.page);   /* waiters sleep on the ring */
	else
		xrma_cond_broadcast(&intr->cond);
}

/* Triggers counted in the page and not yet taken. */
static uint64_t intr_page_pending_locked(const struct xrma_core_intr *intr)
{
	if (!intr->page.page)
		return 0;
	return atomic_load_explicit(&intr->page.page->count, memory_order_seq_cst) -
	       atomic_load_explicit(&intr->page_taken, memory_order_acquire);
}

/* Take one page trigger if one is pending; with or without the lock. */
static bool intr_page_take(struct xrma_core_intr *intr)
{
	uint64_t taken = atomic_load_explicit(&intr->page_taken, memory_order_acquire);

	while (atomic_load_explicit(&intr->page.page->count, memory_order_seq_cst) != taken) {
		if (atomic_compare_exchange_weak_explicit(&intr->page_taken, &taken, taken + 1,
							  memory_order_acq_rel, memory_order_acquire))
			return true;
	}
	return false;
}

/* A data trigger waits in the page's slots; with or without the lock. */
static bool intr_slot_ready(struct xrma_core_intr *intr)
{
	uint64_t head = atomic_load_explicit(&intr->data_head, memory_order_relaxed);
	struct xrma_intr_slot *slot = &intr->page.page->slots[head % XRMA_INTR_PAGE_SLOTS];

	return atomic_load_explicit(&slot->seq, memory_order_acquire) == head + 1;
}

/* The slot at the head is taken but not filled, while the next one is filled. */
static bool intr_slot_held_up(struct xrma_core_intr *intr)
{
	uint64_t head = atomic_load_explicit(&intr->data_head, memory_order_relaxed);
	struct xrma_intr_page *page = intr->page.page;

	return atomic_load_explicit(&page->slots[head % XRMA_INTR_PAGE_SLOTS].seq, memory_order_acquire) == head &&
	       atomic_load_explicit(&page->slots[(head + 1) % XRMA_INTR_PAGE_SLOTS].seq,
				    memory_order_acquire) == head + 2;
}

/* Advance the head, ours and the page's copy for connectors. */
static void intr_slot_head_set(struct xrma_core_intr *intr, uint64_t head)
{
	atomic_store_explicit(&intr->data_head, head, memory_order_relaxed);
	atomic_store_explicit(&intr->page.page->data_head, head, memory_order_relaxed);
}

/* The list's length, and the page's copy for connectors. */
static void intr_queued_set_locked(struct xrma_core_intr *intr, size_t queued)
{
	intr->queued = queued;
	if (intr->page.page)
		atomic_store_explicit(&intr->page.page->queued, queued, memory_order_relaxed);
}

/*
 * Take the next data trigger from the page's slots into a new entry. A slot
 * that holds up filled ones for INTR_SLOT_HOLD_MS is skipped: its connector,
 * if it still runs, sees that and sends its trigger again.
 */
static bool intr_slot_take_locked(struct xrma_core_intr *intr, struct intr_entry **entry)
{
	xrma_lock_assert_held(&intr->lock);
	for (;;) {
		uint64_t head = atomic_load_explicit(&intr->data_head, memory_order_relaxed);
		struct xrma_intr_slot *slot = &intr->page.page->slots[head % XRMA_INTR_PAGE_SLOTS];
		uint64_t now, expected = head;

		if (intr_slot_ready(intr)) {
			uint32_t len = atomic_load_explicit(&slot->len, memory_order_relaxed);
			struct intr_entry *e;

			if (len > XRMA_INTR_DATA_MAX)
				len = XRMA_INTR_DATA_MAX;   /* written by another process: never trusted */
			e = malloc(sizeof(*e) + len);
			if (!e)
				return false;   /* it stays in its slot for the next take */
			e->next = NULL;
			e->len = len;
			memcpy(e->data, slot->data, len);
			atomic_store_explicit(&slot->seq, head + XRMA_INTR_PAGE_SLOTS, memory_order_release);
			intr_slot_head_set(intr, head + 1);
			intr->data_held_since_ns = 0;
			*entry = e;
			return true;
		}
		if (!intr_slot_held_up(intr)) {
			intr->data_held_since_ns = 0;
			return false;
		}
		now = xrma_spin_clock_ns();
		if (!intr->data_held_since_ns)
			intr->data_held_since_ns = now;
		if (now - intr->data_held_since_ns < INTR_SLOT_HOLD_MS * 1000000ull)
			return false;
		/* Filled meanwhile if this fails: the next round takes it. */
		if (atomic_compare_exchange_strong_explicit(&slot->seq, &expected, head | XRMA_INTR_SLOT_SKIPPED,
							    memory_order_seq_cst, memory_order_relaxed)) {
			intr_slot_head_set(intr, head + 1);
			intr->data_held_since_ns = 0;
		}
	}
}

/*
 * The wait's fast path, for plain triggers through the page while nothing else
 * can be pending (page_only): take one without the lock, spinning a bounded
 * while on the ring for it. The taker still bumps the ring, as a take under the
 * lock does: that write keeps the page's cache line with the owner, where the
 * next trigger finds it in one transfer (measured: without it the round trip
 * is slower). false: fall back to the locked wait.
 */
static bool intr_wait_page_fast(struct xrma_core_intr *intr, bool may_spin)
{
	struct xrma_intr_page *page = intr->page.page;

	if (!atomic_load_explicit(&intr->page_only, memory_order_acquire))
		return false;
	struct xrma_spin spin;

	xrma_spin_start(&spin, XRMA_SPIN_PEER);
	for (;;) {
		/* Read before taking: a trigger counts before it bumps the ring, so one
		 * this take misses changes the ring after this read. */
		uint32_t ring = atomic_load_explicit(&page->ring, memory_order_seq_cst);

		/* Data triggers come first, and are taken under the lock. */
		if (intr_slot_ready(intr) || intr_slot_held_up(intr))
			return false;
		if (intr_page_take(intr))
			break;
		if (!may_spin)
			return false;
		while (atomic_load_explicit(&page->ring, memory_order_acquire) == ring) {
			if (!xrma_spin_again(&spin))
				return false;
		}
		if (!atomic_load_explicit(&intr->page_only, memory_order_acquire))
			return false;
	}
	xrma_intr_page_kick(page);
	return true;
}

/*
 * Wait for the next intr_changed_locked: spin a bounded while on seq with the
 * lock dropped (a trigger usually follows closely), then block. 0 or
 * -XRMA_ETIMEDOUT; callers re-check either way. seq only changes under the
 * lock, so a change after the spin is seen before blocking.
 */
static int intr_wait_locked(struct xrma_core_intr *intr, const struct xrma_deadline *deadline)
{
	uint_fast64_t seen;
	struct xrma_spin spin;

	xrma_lock_assert_held(&intr->lock);
	if (deadline->poll)
		return -XRMA_ETIMEDOUT;
	if (intr->page.page) {
		/* Every trigger and every change bumps the ring: spin on it, then sleep on it. */
		struct xrma_intr_page *page = intr->page.page;
		uint32_t ring = atomic_load_explicit(&page->ring, memory_order_seq_cst);

		struct xrma_deadline held;
		const struct xrma_deadline *until = deadline;

		/* A trigger counts before it bumps the ring: one that our caller's check
		 * missed but whose bump is already in ring must be taken, not slept on. */
		if (intr_page_pending_locked(intr) || intr_slot_ready(intr))
			return 0;
		/* A held-up slot is skipped after a while: come back to skip it. */
		if (intr->data_held_since_ns &&
		    (deadline->infinite || xrma_deadline_remaining_ms(deadline) > INTR_SLOT_HOLD_MS)) {
			xrma_deadline_set(&held, INTR_SLOT_HOLD_MS);
			until = &held;
		}
		xrma_unlock(&intr->lock);
		xrma_spin_start(&spin, XRMA_SPIN_PEER);
		while (atomic_load_explicit(&page->ring, memory_order_acquire) == ring &&
		       xrma_spin_again(&spin))
			;
		if (atomic_load_explicit(&page->ring, memory_order_acquire) == ring)
			xrma_intr_page_sleep(page, ring, until);
		xrma_lock(&intr->lock);
		if (atomic_load_explicit(&page->ring, memory_order_acquire) != ring)
			return 0;
		return xrma_deadline_passed(deadline) ? -XRMA_ETIMEDOUT : 0;
	}
	seen = atomic_load_explicit(&intr->seq, memory_order_relaxed);
	xrma_unlock(&intr->lock);
	/* seq changes when the service thread takes a trigger from the control channel. */
	xrma_spin_start(&spin, XRMA_SPIN_LOCAL);
	while (atomic_load_explicit(&intr->seq, memory_order_acquire) == seen && xrma_spin_again(&spin))
		;
	xrma_lock(&intr->lock);
	if (atomic_load_explicit(&intr->seq, memory_order_relaxed) != seen)
		return 0;
	return xrma_cond_wait(&intr->cond, &intr->lock, deadline);
}

/*
 * Take the next trigger: data entries first, then one plain trigger. *entry is
 * NULL for a plain one. false when nothing is pending.
 */
static bool intr_take_locked(struct xrma_core_intr *intr, struct intr_entry **entry)
{
	xrma_lock_assert_held(&intr->lock);
	*entry = intr->head;
	if (*entry) {
		intr->head = (*entry)->next;
		if (!intr->head)
			intr->tail = &intr->head;
		intr_queued_set_locked(intr, intr->queued - 1);
		return true;
	}
	if (intr->page.page && intr_slot_take_locked(intr, entry))
		return true;
	if (intr->plain) {
		intr->plain--;
		return true;
	}
	return intr->page.page && intr_page_take(intr);
}

static void intr_list_append_locked(struct xrma_core_intr *intr, struct intr_entry *entry)
{
	*intr->tail = entry;
	intr->tail = &entry->next;
	intr_queued_set_locked(intr, intr->queued + 1);
}

/* Move the filled slots onto the list, as far as its depth allows. */
static void intr_slots_to_list_locked(struct xrma_core_intr *intr)
{
	struct intr_entry *entry;

	while (intr->queued < XRMA_INTR_QUEUE_DEPTH && intr_slot_take_locked(intr, &entry))
		intr_list_append_locked(intr, entry);
}

static void intr_free_entries(struct intr_entry *entry)
{
	while (entry) {
		struct intr_entry *next = entry->next;

		free(entry);
		entry = next;
	}
}

static void intr_deliver(void *arg);

/*
 * With a callback set and triggers pending, make sure one delivery work item is
 * queued. Returns true when the caller must queue it (after unlocking) with
 * intr_schedule: one item at a time keeps callbacks of one interrupt in order and
 * never concurrent.
 */
static bool intr_need_delivery_locked(struct xrma_core_intr *intr)
{
	xrma_lock_assert_held(&intr->lock);
	if (intr->closed || !intr->cb || intr->cb_scheduled ||
	    (!intr->head && !intr->plain && !intr_page_pending_locked(intr) &&
	     !(intr->page.page && intr_slot_ready(intr))))
		return false;
	intr->cb_scheduled = true;
	return true;
}

/* Queue intr_deliver holding a reference; on failure the triggers stay queued for later. */
static void intr_schedule(struct xrma_core_intr *intr)
{
	xrma_handle_ref(&intr->obj);
	if (!xrma_service_defer(intr->ctx, intr_deliver, intr))
		return;
	xrma_lock(&intr->lock);
	intr->cb_scheduled = false;
	xrma_unlock(&intr->lock);
	xrma_handle_put(&intr->obj);
}

/* Callback thread: run the callback once per pending trigger, no lock held. */
static void intr_deliver(void *arg)
{
	struct xrma_core_intr *intr = arg;

	for (int n = 0; n < INTR_CALLBACK_BATCH; n++) {
		struct intr_entry *entry;
		xrma_intr_cb cb;
		void *cb_arg;

		xrma_lock(&intr->lock);
		if (intr->closed || !intr->cb || !intr_take_locked(intr, &entry)) {
			intr->cb_scheduled = false;
			xrma_unlock(&intr->lock);
			xrma_handle_put(&intr->obj);
			return;
		}
		cb = intr->cb;
		cb_arg = intr->cb_arg;
		intr_changed_locked(intr);
		xrma_unlock(&intr->lock);
		if (entry)
			cb(cb_arg, entry->data, entry->len);
		else
			cb(cb_arg, NULL, 0);
		free(entry);
	}
	/* More may be pending: go to the back of the line (cb_scheduled stays set). */
	intr_schedule(intr);
	xrma_handle_put(&intr->obj);
}

/* ------------------------------------------------------------------ owner: open, close, wait */

static void intr_destroy(struct xrma_obj *obj)
{
	struct xrma_core_intr *intr = (struct xrma_core_intr *)obj;
	struct xrma_core_ctx *ctx = intr->ctx;

	intr_free_entries(intr->head);
	while (intr->connectors) {
		struct intr_connector *next = intr->connectors->next;

		free(intr->connectors);
		intr->connectors = next;
	}
	xrma_intr_page_destroy(ctx, &intr->page);
	xrma_cond_destroy(&intr->cond);
	xrma_lock_destroy(&intr->lock);
	free(intr);
	xrma_core_ctx_child_destroyed(ctx);
}

int xrma_intr_open(struct xrma_ctx *handle, uint64_t *number, uint64_t min, uint64_t max,
		   uint32_t flags, struct xrma_intr **out)
{
	struct xrma_core_ctx *ctx;
	struct xrma_core_intr *intr;
	uint64_t id;
	int ret;

	if (!number || !out || flags || min > max)
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	if (!min && !max) {
		min = INTR_NUMBER_ANY_MIN;
		max = INTR_NUMBER_ANY_MAX;
	}
	intr = calloc(1, sizeof(*intr));
	if (!intr) {
		ret = -XRMA_ENOMEM;
		goto err_put_ctx;
	}
	intr->ctx = ctx;
	intr->tail = &intr->head;
	atomic_init(&intr->seq, 0);
	atomic_init(&intr->page_taken, 0);
	atomic_init(&intr->data_head, 0);
	xrma_lock_init(&intr->lock);
	xrma_cond_init(&intr->cond);
	ret = xrma_core_ctx_child_open(ctx);
	if (ret)
		goto err_free_intr;
	id = *number;
	ret = xrma_core_call_name_bind(ctx, XRMA_NS_INTR, &id, min, max);
	if (ret)
		goto err_child;
	intr->number = id;
	xrma_intr_page_create(ctx, &intr->page);
	atomic_init(&intr->page_only, intr->page.page != NULL);
	ret = xrma_handle_alloc(&intr->obj, XRMA_OBJ_INTR, intr_destroy);
	if (ret)
		goto err_unbind;
	/* After the handle: handlers reference what they find in the map. */
	xrma_lock(&ctx->lock);
	intr->instance = xrma_core_ctx_next_id(ctx);
	ret = xrma_idmap_insert(&ctx->intrs, id, intr);
	xrma_unlock(&ctx->lock);
	if (ret)
		goto err_kill;
	/* Only now does a connect find it: wake those waiting for it (XRMA_OPEN_WAIT). */
	xrma_core_names_changed(ctx);
	*number = id;
	*out = intr->obj.handle;
	xrma_handle_put(&ctx->obj);
	return 0;

err_kill:
	xrma_core_call_name_unbind(ctx, XRMA_NS_INTR, id);
	xrma_core_ctx_child_killed(ctx);
	xrma_handle_kill(&intr->obj);   /* the table's reference was the last: destroys */
	goto err_put_ctx;
err_unbind:
	xrma_intr_page_destroy(ctx, &intr->page);
	xrma_core_call_name_unbind(ctx, XRMA_NS_INTR, id);
err_child:
	xrma_core_ctx_child_killed(ctx);
	xrma_core_ctx_child_destroyed(ctx);
err_free_intr:
	xrma_cond_destroy(&intr->cond);
	xrma_lock_destroy(&intr->lock);
	free(intr);
err_put_ctx:
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_intr_close(struct xrma_intr *handle)
{
	struct xrma_core_intr *intr;
	struct xrma_core_ctx *ctx;
	struct intr_connector *connectors;
	struct intr_entry *entries;
	int ret;

	ret = intr_acquire(handle, &intr);
	if (ret)
		return ret;
	ctx = intr->ctx;
	ret = xrma_handle_kill(&intr->obj);
	if (ret)
		goto out_put;
	xrma_core_ctx_child_killed(ctx);

	/* Out of the map first: a connect or trigger that still found it sees closed. */
	xrma_lock(&ctx->lock);
	xrma_idmap_remove(&ctx->intrs, intr->number);
	xrma_unlock(&ctx->lock);

	xrma_lock(&intr->lock);
	intr->closed = true;
	if (intr->page.page)
		xrma_intr_page_set_flag(intr->page.page, XRMA_INTR_PAGE_CLOSED, true);
	connectors = intr->connectors;
	intr->connectors = NULL;
	entries = intr->head;
	intr->head = NULL;
	intr->tail = &intr->head;
	intr_queued_set_locked(intr, 0);
	intr->plain = 0;
	intr_changed_locked(intr);
	xrma_unlock(&intr->lock);

	intr_free_entries(entries);
	while (connectors) {
		struct intr_connector *next = connectors->next;
		struct xrma_wire_msg msg = {
			.type = XRMA_WIRE_INTR_GONE,
			.arg = { intr->number, intr->instance },
		};

		/* Best effort: a connector that is gone needs no notice. */
		xrma_core_control_send(ctx, &connectors->addr, &msg);
		free(connectors);
		connectors = next;
	}
	xrma_core_call_name_unbind(ctx, XRMA_NS_INTR, intr->number);
out_put:
	xrma_handle_put(&intr->obj);
	return ret;
}

int xrma_intr_wait(struct xrma_intr *handle, int timeout_ms, void *data, size_t *len)
{
	struct xrma_core_intr *intr;
	struct xrma_deadline deadline;
	struct intr_entry *entry = NULL;
	bool timed_out = false;
	int ret;

	/* A buffer needs its capacity; a capacity needs its buffer. */
	if ((data && !len) || (!data && len && *len))
		return -XRMA_EINVAL;
	ret = intr_acquire(handle, &intr);
	if (ret)
		return ret;
	if (intr->page.page && intr_wait_page_fast(intr, timeout_ms != 0)) {
		if (len)
			*len = 0;   /* a plain trigger carries no data */
		xrma_handle_put(&intr->obj);
		return 0;
	}
	xrma_deadline_set(&deadline, timeout_ms);

	xrma_lock(&intr->lock);
	for (;;) {
		if (intr->cb) {
			ret = -XRMA_ESTATE;
			break;
		}
		if (intr->closed) {
			ret = -XRMA_ECANCELED;
			break;
		}
		if (intr_take_locked(intr, &entry)) {
			intr_changed_locked(intr);
			break;
		}
		if (timed_out) {
			ret = -XRMA_ETIMEDOUT;
			break;
		}
		timed_out = intr_wait_locked(intr, &deadline) != 0;
	}
	xrma_unlock(&intr->lock);

	if (!ret && len) {
		size_t have = entry ? entry->len : 0;

		if (data && have) {
			memcpy(data, entry->data, have < *len ? have : *len);
			if (have > *len)
				ret = -XRMA_EMSGSIZE;   /* consumed and cut; *len says how much there was */
		}
		*len = have;
	}
	free(entry);
	xrma_handle_put(&intr->obj);
	return ret;
}

int xrma_intr_set_callback(struct xrma_intr *handle, xrma_intr_cb cb, void *arg)
{
	struct xrma_core_intr *intr;
	bool schedule;
	int ret;

	ret = intr_acquire(handle, &intr);
	if (ret)
		return ret;
	xrma_lock(&intr->lock);
	intr->cb = cb;
	intr->cb_arg = arg;
	/* With a callback, triggers come as messages: someone must run it. Counts that
	 * reached the page before the flag are delivered just below. */
	if (intr->page.page)
		xrma_intr_page_set_flag(intr->page.page, XRMA_INTR_PAGE_CALLBACK, cb != NULL);
	intr_changed_locked(intr);   /* waiters leave with XRMA_ESTATE */
	/* Triggers that queued up before the callback go to it. */
	schedule = intr_need_delivery_locked(intr);
	xrma_unlock(&intr->lock);
	if (schedule)
		intr_schedule(intr);
	xrma_handle_put(&intr->obj);
	return 0;
}

int xrma_intr_number(struct xrma_intr *handle, uint64_t *number)
{
	struct xrma_core_intr *intr;
	int ret;

	if (!number)
		return -XRMA_EINVAL;
	ret = intr_acquire(handle, &intr);
	if (ret)
		return ret;
	*number = intr->number;
	xrma_handle_put(&intr->obj);
	return 0;
}

/* ------------------------------------------------------------------ inbound (service thread) */

/*
 * The interrupt numbered number, referenced, or NULL; with instance != 0 only
 * that holder of the number (0: an INTR_CONNECT, or a sender that knows none).
 */
static struct xrma_core_intr *intr_find(struct xrma_core_ctx *ctx, uint64_t number, uint64_t instance)
{
	struct xrma_core_intr *intr;

	xrma_lock(&ctx->lock);
	intr = xrma_idmap_find(&ctx->intrs, number);
	if (intr && instance && intr->instance != instance)
		intr = NULL;
	/* In the map means close has not passed its removal: a reference is still held. */
	if (intr)
		xrma_handle_ref(&intr->obj);
	xrma_unlock(&ctx->lock);
	return intr;
}

void xrma_core_intr_on_connect(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			       const struct xrma_wire_msg *msg)
{
	struct xrma_core_intr *intr;
	struct intr_connector *c, *fresh;
	uint64_t arg[4] = { 0 };
	int status = 0;

	if (!msg->req)
		return;   /* cannot be answered */
	intr = intr_find(ctx, msg->arg[0], 0);
	if (!intr) {
		xrma_core_control_reply(ctx, src, msg->req, -XRMA_ENOENT, NULL, NULL, 0);
		return;
	}
	fresh = malloc(sizeof(*fresh));
	xrma_lock(&intr->lock);
	for (c = intr->connectors; c; c = c->next)
		if (xrma_core_addr_eq(&c->addr, src))
			break;
	if (intr->closed) {
		status = -XRMA_ENOENT;
	} else if (c) {
		c->count++;
	} else if (!fresh) {
		status = -XRMA_ENOMEM;
	} else {
		fresh->addr = *src;
		fresh->count = 1;
		fresh->next = intr->connectors;
		intr->connectors = fresh;
		fresh = NULL;
	}
	xrma_unlock(&intr->lock);
	free(fresh);
	arg[0] = status ? 0 : intr->instance;
	if (!status && intr->page.page) {
		/* The trigger page, for plain triggers without messages. */
		arg[1] = intr->page.len;
		xrma_core_control_reply(ctx, src, msg->req, status, arg, intr->page.key.bytes,
					intr->page.key.len);
	} else {
		xrma_core_control_reply(ctx, src, msg->req, status, arg, NULL, 0);
	}
	xrma_handle_put(&intr->obj);
}

/* Forget one connection (all of them with all) of addr; intr->lock held. */
static void intr_drop_connector_locked(struct xrma_core_intr *intr, const struct xrma_prov_addr *addr,
				       bool all)
{
	for (struct intr_connector **pp = &intr->connectors; *pp; pp = &(*pp)->next) {
		struct intr_connector *c = *pp;

		if (!xrma_core_addr_eq(&c->addr, addr))
			continue;
		if (!all && --c->count)
			return;
		*pp = c->next;
		free(c);
		return;
	}
}

void xrma_core_intr_on_disconnect(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
				  const struct xrma_wire_msg *msg)
{
	struct xrma_core_intr *intr = intr_find(ctx, msg->arg[0], msg->arg[1]);

	if (!intr)
		return;
	xrma_lock(&intr->lock);
	intr_drop_connector_locked(intr, src, false);
	xrma_unlock(&intr->lock);
	xrma_handle_put(&intr->obj);
}

void xrma_core_intr_on_trigger(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src,
			       const struct xrma_wire_msg *msg)
{
	struct xrma_core_intr *intr;
	struct intr_entry *entry = NULL;
	bool schedule = false;
	int status = 0;

	if (msg->payload_len > XRMA_INTR_DATA_MAX) {
		status = -XRMA_EMSGSIZE;
		goto out_reply;
	}
	intr = intr_find(ctx, msg->arg[0], msg->arg[1]);
	if (!intr) {
		status = -XRMA_ENOENT;
		goto out_reply;
	}
	if (msg->payload_len) {
		entry = malloc(sizeof(*entry) + msg->payload_len);
		if (entry) {
			entry->next = NULL;
			entry->len = msg->payload_len;
			memcpy(entry->data, msg->payload, msg->payload_len);
		}
	}
	xrma_lock(&intr->lock);
	/* Filled slots were triggered before this message was sent: they queue first. */
	if (!intr->closed && msg->payload_len && intr->page.page)
		intr_slots_to_list_locked(intr);
	if (intr->closed) {
		status = -XRMA_ENOENT;
	} else if (!msg->payload_len && msg->arg[2] == 1) {
		/* A kick: the trigger is in the page already. */
	} else if (!msg->payload_len) {
		intr->plain++;
	} else if (intr->queued >= XRMA_INTR_QUEUE_DEPTH) {
		status = -XRMA_EAGAIN;
	} else if (!entry) {
		status = -XRMA_ENOMEM;
	} else {
		intr_list_append_locked(intr, entry);
		entry = NULL;
	}
	if (!status) {
		intr_changed_locked(intr);
		schedule = intr_need_delivery_locked(intr);
	}
	xrma_unlock(&intr->lock);
	free(entry);
	if (schedule)
		intr_schedule(intr);
	xrma_handle_put(&intr->obj);
out_reply:
	if (msg->req)
		xrma_core_control_reply(ctx, src, msg->req, status, NULL, NULL, 0);
}

/* idmap_each visitor over ctx->intrs (ctx->lock held): forget a departed connector. */
static void intr_forget(void *arg, uint64_t id, void *value)
{
	const struct xrma_prov_addr *peer = arg;
	struct xrma_core_intr *intr = value;

	(void)id;
	xrma_lock(&intr->lock);
	intr_drop_connector_locked(intr, peer, true);
	xrma_unlock(&intr->lock);
}
void xrma_core_intr_on_peer_down(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *peer, int status)
{
	(void)status;
	xrma_lock(&ctx->lock);
	xrma_idmap_each(&ctx->intrs, intr_forget, (void *)peer);
	xrma_unlock(&ctx->lock);
}
