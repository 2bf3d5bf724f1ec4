/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/fence_peer.c: fences on the peer's transfers (xrma_rwin_peer_mark and
 * _wait). The peer's queue publishes its posted and completed marks in its
 * table (xrma_fence_publish); a waiter reads them there. Where the table is
 * mapped, a waiter spins briefly, then sleeps on the table's change count (a
 * futex in pages both ends share), counted in its own table's sleeper word
 * which the peer's completions look at before they wake anyone. Where the
 * table is read by copy, reads are spaced instead (copy_pause).
 */
#include <sched.h>
#include <stddef.h>
#include <xrma/xrma.h>
#include "common/futex.h"
#include "core/rwin.h"
#include "common/spin.h"
#include "common/wait.h"

/* A sleep's longest slice: how soon a peer's death is seen by a sleeper. */
#define PEER_SLICE_MS 20
/* Where the table is read by copy nothing wakes us: reads are spaced, up to this. */
#define PEER_COPY_PAUSE_MAX_US 1000

int xrma_rwin_peer_mark(struct xrma_rwin *rwin, uint64_t *mark)
{
	if (!XRMA_RWIN_OK(rwin) || !mark)
		return -XRMA_EINVAL;
	if (!rwin->conn)
		return -XRMA_ENOTCONN;
	return xrma_core_rwin_word(rwin, offsetof(struct xrma_rwin_table, posted), mark);
}

static bool peer_down(struct xrma_rwin *rwin)
{
	enum xrma_conn_state state;

	return xrma_conn_state(rwin->conn, &state) || state != XRMA_CONN_CONNECTED;
}

/* One sleep of at most a slice (and the caller's deadline) while *changes reads seen. */
static void peer_sleep(struct xrma_rwin *rwin, uint32_t seen, const struct xrma_deadline *d)
{
	struct xrma_deadline slice;
	int left = xrma_deadline_remaining_ms(d);

	xrma_deadline_set(&slice, left >= 0 && left < PEER_SLICE_MS ? left : PEER_SLICE_MS);
	xrma_futex_sleep(XRMA_RWIN_WORD32(&rwin->peer->done_changes), seen, XRMA_RWIN_WORD32(&rwin->table->sleepers),
			 &slice);
}

/*
 * The copy path's pause between two reads of the peer's done word: its peer
 * cannot reach a word of ours to wake on, so the reads are spaced, the space
 * doubling up to PEER_COPY_PAUSE_MAX_US (a bounded pause, not a wake-up).
 */
static void copy_pause(unsigned *us)
{
	_Atomic uint32_t idle = 0;
	struct timespec rel = { .tv_nsec = (long)*us * 1000 };

	xrma_futex_wait(&idle, 0, &rel);
	*us = *us * 2 > PEER_COPY_PAUSE_MAX_US ? PEER_COPY_PAUSE_MAX_US : *us * 2;
}

int xrma_rwin_peer_wait(struct xrma_rwin *rwin, uint64_t mark, int timeout_ms)
{
	size_t slot = offsetof(struct xrma_rwin_table, done);
	struct xrma_deadline d;
	struct xrma_spin spin;
	bool spinning = true;
	unsigned pause_us = 20;

	if (!XRMA_RWIN_OK(rwin))
		return -XRMA_EINVAL;
	if (!rwin->conn)
		return -XRMA_ENOTCONN;
	xrma_deadline_set(&d, timeout_ms);
	xrma_spin_start(&spin, XRMA_SPIN_PEER);
	for (unsigned rounds = 0; mark; rounds++) {
		uint32_t seen = 0;
		uint64_t done;
		int ret;

		/* The change count before the look: a completion after it changes it, and wakes. */
		if (rwin->peer)
			seen = __atomic_load_n(&rwin->peer->done_changes, __ATOMIC_ACQUIRE);
		ret = xrma_core_rwin_word(rwin, slot, &done);
		if (ret)
			return ret;
		if (done >= mark)
			return 0;
		/* Without the peer's table mapped, its count is read by request: yield between a few. */
		spinning = spinning && (rwin->peer ? xrma_spin_again(&spin) : rounds < 64);
		if (!spinning || rounds % 256 == 0) {
			if (peer_down(rwin))
				return -XRMA_ECONNRESET;
			if (xrma_deadline_passed(&d))
				return -XRMA_ETIMEDOUT;
		}
		if (spinning)
			rwin->peer ? (void)0 : (void)sched_yield();
		else if (rwin->peer)
			peer_sleep(rwin, seen, &d);
		else
			copy_pause(&pause_us);
	}
	return 0;
}
