/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/rwin.c: registered address spaces shared over a connection (xrma/rwin.h).
 * Our side: the windows (placed here, kept by a core window space) and the
 * table publishing the live ones, rewritten under a sequence lock. The peer's
 * side: its table mapped, or where the provider cannot map, read by RMA into a
 * copy kept with the sequence number it was read at; lookups of the peer's
 * offsets; the imports of its segments; its fence marks (core/rwin_fence.c).
 * A reader by copy exports a one-word "seq box" and announces it in its own
 * table; before an owner's remove returns, the owner writes its new sequence
 * number there by a synchronous RMA. So a call compares the box, a local load,
 * with its copy's number and reads the table again only when they differ, and
 * never uses a copy older than a remove that returned. Additions are not
 * pushed: a lookup that misses in a copy read before this call reads again.
 */
#include "core/rwin.h"
#include "core/fork.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <xrma/xrma.h>
#include "core/dmaq.h"
#include "common/killpoint.h"
#include "common/peer_shared.h"

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer does not model fences (-Wtsan); what it checks here are the atomics. */
#pragma GCC diagnostic ignored "-Wtsan"
#endif

/* Reader retries while the owner rewrites the table, before giving up on it. */
#define RWIN_READ_SPINS (1u << 20)
/* The copy's scratch word, after the table, for single-word reads. */
#define RWIN_SCRATCH XRMA_RWIN_TABLE_SIZE
#define RWIN_HEADER offsetof(struct xrma_rwin_table, win)

/*
 * The sequence lock orders the entries with fences, which ThreadSanitizer does
 * not model (GCC warns, -Wtsan); every access to the table is an atomic, which
 * is what it checks, so the warning is off under TSan here.
 */
#if defined(__SANITIZE_THREAD__)
#pragma GCC diagnostic ignored "-Wtsan"
#endif

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/*
 * Segments of closed spaces a peer may still import (our table, our seq box):
 * closed once idle, looked at whenever a space opens or closes, and by sweeps
 * once their number doubled since the last look (each retirement costs O(1)).
 */
#define RETIRED_TRIM_MIN 8
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xrma_seg **retired;
static size_t nretired, retired_cap, retired_trim_at = RETIRED_TRIM_MIN;

pthread_mutex_t *xrma_core_rwin_fork_lock(void)
{
	return &retired_lock;
}

static void *rwin_grow(void *array, size_t *cap, size_t count, size_t size)
{
	size_t want;
	void *grown;

	if (count < *cap)
		return array;
	want = *cap ? *cap * 2 : 8;
	grown = realloc(array, want * size);
	if (grown)
		*cap = want;
	return grown;
}

static void retired_sweep_locked(void)
{
	for (size_t i = 0; i < nretired;) {
		if (xrma_seg_close(retired[i]) == -XRMA_EBUSY)
			i++;
		else
			retired[i] = retired[--nretired];
	}
	retired_trim_at = nretired * 2 > RETIRED_TRIM_MIN ? nretired * 2 : RETIRED_TRIM_MIN;
}

static void retired_sweep(void)
{
	pthread_mutex_lock(&retired_lock);
	retired_sweep_locked();
	pthread_mutex_unlock(&retired_lock);
}

/* The hot path's look: only once the list doubled. */
static void retired_trim(void)
{
	pthread_mutex_lock(&retired_lock);
	if (nretired >= retired_trim_at)
		retired_sweep_locked();
	pthread_mutex_unlock(&retired_lock);
}

static void retire(struct xrma_seg *seg)
{
	struct xrma_seg **grown;

	if (xrma_seg_close(seg) != -XRMA_EBUSY)
		return;
	pthread_mutex_lock(&retired_lock);
	/* Without room the segment is leaked, never closed while in use. */
	grown = rwin_grow(retired, &retired_cap, nretired, sizeof(*retired));
	if (grown) {
		retired = grown;
		retired[nretired++] = seg;
	}
	pthread_mutex_unlock(&retired_lock);
}

/* Control transfers of the space (table reads, seq pushes), never queued behind the owner's. */
static int rwin_queue(struct xrma_rwin *rwin)
{
	return rwin->ctl ? 0 : xrma_dmaq_open(rwin->ctx, 4, 0, &rwin->ctl);
}

int xrma_rwin_open(struct xrma_ctx *ctx, struct xrma_dmaq *dmaq, xrma_rwin_release_fn release,
		   uint64_t *table_id, struct xrma_rwin **out)
{
	struct xrma_seg_attr attr = {
		.len = XRMA_RWIN_TABLE_SIZE, .id = XRMA_ID_ANY,
		.access = XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE | XRMA_ACCESS_REMOTE_READ,
	};
	struct xrma_rwin *rwin;
	void *addr;
	int ret;

	if (!ctx || !dmaq || !table_id || !out)
		return -XRMA_EINVAL;
	retired_sweep();
	rwin = calloc(1, sizeof(*rwin));
	if (!rwin)
		return -XRMA_ENOMEM;
	rwin->magic = XRMA_RWIN_MAGIC_OPEN;
	rwin->ctx = ctx;
	rwin->dmaq = dmaq;
	rwin->release = release;
	ret = xrma_win_open(ctx, 0, &rwin->win);
	if (ret)
		goto err_free;
	ret = xrma_seg_open(ctx, &attr, &rwin->table_seg);
	if (ret)
		goto err_win;
	ret = xrma_seg_addr(rwin->table_seg, &addr);
	if (!ret)
		ret = xrma_seg_id(rwin->table_seg, table_id);
	if (ret)
		goto err_seg;
	rwin->table = addr;
	memset(rwin->table, 0, XRMA_RWIN_TABLE_SIZE);
	__atomic_store_n(&rwin->table->magic, XRMA_RWIN_TABLE_MAGIC, __ATOMIC_RELEASE);
	/* What the peer's fences mark and wait on, kept by the queue's core. */
	ret = xrma_fence_publish(dmaq, rwin->table_seg, offsetof(struct xrma_rwin_table, posted),
				 offsetof(struct xrma_rwin_table, done), 0);
	if (!ret)
		ret = xrma_seg_export(rwin->table_seg, 0);
	if (ret)
		goto err_publish;
	/* Nobody sleeps on our completions until a peer that maps our table attaches. */
	xrma_core_fence_publish_wake(dmaq, XRMA_RWIN_WORD32(&rwin->table->done_changes), NULL);
	*out = rwin;
	return 0;

err_publish:
	xrma_fence_publish(dmaq, NULL, 0, 0, 0);
err_seg:
	xrma_seg_close(rwin->table_seg);
err_win:
	xrma_win_close(rwin->win);
err_free:
	free(rwin);
	return ret;
}

/* RMA-read [offset, +len) of the peer's table into our copy at at. */
static int peer_read(struct xrma_rwin *rwin, size_t offset, size_t len, size_t at)
{
	struct xrma_iov iov = { .seg = rwin->copy_seg, .offset = at, .len = len };

	/* Counts the reads for tests (tests/faults/test_scif_table_reads.c). */
	XRMA_KILL_POINT("rwin.table_read");
	return xrma_dmaq_post(rwin->ctl, XRMA_RMA_READ, &iov, 1, rwin->peer_rseg, offset, len, 0,
			      XRMA_RMA_SYNC);
}

int xrma_core_rwin_word(struct xrma_rwin *rwin, size_t offset, uint64_t *value)
{
	int ret;

	if (rwin->peer) {
		*value = __atomic_load_n((uint64_t *)(void *)((char *)rwin->peer + offset), __ATOMIC_ACQUIRE);
		return 0;
	}
	ret = peer_read(rwin, offset, sizeof(*value), RWIN_SCRATCH);
	if (!ret)
		*value = LOAD((uint64_t *)(void *)((char *)rwin->copy + RWIN_SCRATCH));
	return ret;
}

/*
 * The copy was read at seq: raise the box to it unless the owner pushed a newer
 * number meanwhile (its pushes only grow, each lands before its table changes
 * again), so a copy read after an addition the owner did not push matches.
 */
static void seq_box_raise(struct xrma_rwin *rwin, uint64_t seq)
{
	uint64_t seen;

	XRMA_PEER_SHARED_BEGIN();
	seen = __atomic_load_n(rwin->box, __ATOMIC_ACQUIRE);
	while (seen < seq &&
	       !__atomic_compare_exchange_n(rwin->box, &seen, seq, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	XRMA_PEER_SHARED_END();
}

/* A consistent copy of the header and the live entries (the unmapped path). */
static int peer_snapshot(struct xrma_rwin *rwin)
{
	struct xrma_rwin_table *copy = rwin->copy;

	if (rwin->copy_current)
		return 0;
	for (unsigned spins = 0; spins < RWIN_READ_SPINS; spins++) {
		uint64_t before, after, n;
		int ret = peer_read(rwin, 0, RWIN_HEADER, 0);

		if (ret)
			return ret;
		before = LOAD(&copy->seq);
		if (before & 1) {
			sched_yield();
			continue;
		}
		n = LOAD(&copy->count);
		if (n > XRMA_RWIN_MAX)
			n = XRMA_RWIN_MAX;
		if (n)
			ret = peer_read(rwin, RWIN_HEADER, n * sizeof(copy->win[0]), RWIN_HEADER);
		if (!ret)
			ret = xrma_core_rwin_word(rwin, offsetof(struct xrma_rwin_table, seq), &after);
		if (ret)
			return ret;
		if (after == before) {
			rwin->copy_valid = rwin->copy_current = true;
			rwin->copy_seq = before;
			seq_box_raise(rwin, before);
			return 0;
		}
	}
	return -XRMA_ECONNRESET;   /* the owner died while writing its table */
}

/* Export our seq box and announce it in our table, before the first read of the peer's. */
static int seq_box_open(struct xrma_rwin *rwin)
{
	struct xrma_seg_attr attr = { .len = XRMA_RWIN_PAGE, .id = XRMA_ID_ANY,
				      .access = XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE |
						XRMA_ACCESS_REMOTE_WRITE };
	uint64_t id;
	void *addr;
	int ret;

	ret = xrma_seg_open(rwin->ctx, &attr, &rwin->box_seg);
	if (ret)
		return ret;
	ret = xrma_seg_addr(rwin->box_seg, &addr);
	if (!ret)
		ret = xrma_seg_id(rwin->box_seg, &id);
	if (!ret) {
		rwin->box = addr;
		/* Meaningless until our first read of the table raises it (copy_valid). */
		__atomic_store_n(rwin->box, 0, __ATOMIC_RELAXED);
		ret = xrma_seg_export(rwin->box_seg, 0);
	}
	if (!ret) {
		XRMA_PEER_SHARED_BEGIN();
		__atomic_store_n(&rwin->table->seq_box, id + 1, __ATOMIC_RELEASE);
		XRMA_PEER_SHARED_END();
	}
	return ret;
}

static int peer_attach_copy(struct xrma_rwin *rwin)
{
	struct xrma_seg_attr attr = { .len = XRMA_RWIN_TABLE_SIZE + XRMA_RWIN_PAGE, .id = XRMA_ID_ANY,
				      .access = XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE,
				      .flags = XRMA_SEG_PRIVATE };
	uint64_t magic = 0;
	void *addr;
	int ret;

	ret = xrma_seg_open(rwin->ctx, &attr, &rwin->copy_seg);
	if (!ret)
		ret = xrma_seg_addr(rwin->copy_seg, &addr);
	if (!ret) {
		rwin->copy = addr;
		ret = rwin_queue(rwin);
	}
	if (!ret)
		ret = xrma_core_rwin_word(rwin, offsetof(struct xrma_rwin_table, magic), &magic);
	if (!ret && magic != XRMA_RWIN_TABLE_MAGIC)
		ret = -XRMA_EPROTO;
	return ret ? ret : seq_box_open(rwin);
}

/*
 * Tests take the copy path on providers that can map, through the test-only
 * libraries (core/killpoint.h): the shipped library always maps where it can.
 */
static bool map_refused(void)
{
#ifdef XRMA_KILLPOINTS
	const char *how = getenv("XRMA_TEST_RWIN_COPY");

	return how && !strcmp(how, "1");
#else
	return false;
#endif
}

static void peer_detach(struct xrma_rwin *rwin)
{
	if (rwin->peer) {
		/* Our completions stop looking at the peer's sleepers before they are unmapped. */
		xrma_core_fence_publish_wake(rwin->dmaq, XRMA_RWIN_WORD32(&rwin->table->done_changes), NULL);
		xrma_rseg_unmap(rwin->peer_rseg, rwin->peer);
		rwin->peer = NULL;
	}
	if (rwin->copy_seg) {
		xrma_seg_close(rwin->copy_seg);
		rwin->copy_seg = NULL;
		rwin->copy = NULL;
		rwin->copy_valid = rwin->copy_current = false;
	}
	if (rwin->peer_rseg) {
		xrma_rseg_close(rwin->peer_rseg);
		rwin->peer_rseg = NULL;
	}
	if (rwin->peer_box_rseg) {
		xrma_rseg_close(rwin->peer_box_rseg);
		rwin->peer_box_rseg = NULL;
	}
	if (rwin->box_seg) {
		XRMA_PEER_SHARED_BEGIN();
		__atomic_store_n(&rwin->table->seq_box, 0, __ATOMIC_RELEASE);
		XRMA_PEER_SHARED_END();
		/* The peer may still hold an import of it: closed once nothing uses it. */
		retire(rwin->box_seg);
		rwin->box_seg = NULL;
		rwin->box = NULL;
	}
}

int xrma_rwin_attach(struct xrma_rwin *rwin, struct xrma_conn *conn, uint64_t peer_table_id, int timeout_ms)
{
	uint32_t port;
	void *addr;
	int ret;

	if (!XRMA_RWIN_OK(rwin) || !conn)
		return -XRMA_EINVAL;
	if (rwin->conn)
		return -XRMA_EISCONN;
	ret = xrma_conn_peer(conn, &rwin->peer_node, &port);
	if (!ret)
		ret = xrma_rseg_open(rwin->ctx, rwin->peer_node, peer_table_id, XRMA_ACCESS_REMOTE_READ, 0,
				     timeout_ms, &rwin->peer_rseg);
	if (ret)
		return ret;
	rwin->conn = conn;
	rwin->timeout_ms = timeout_ms;
	ret = map_refused() ? -XRMA_ENOTSUP
			    : xrma_rseg_map(rwin->peer_rseg, 0, XRMA_RWIN_TABLE_SIZE, XRMA_MAP_READ, &addr);
	if (!ret) {
		rwin->peer = addr;
		if (__atomic_load_n(&rwin->peer->magic, __ATOMIC_ACQUIRE) != XRMA_RWIN_TABLE_MAGIC)
			ret = -XRMA_EPROTO;
		/* The peer maps ours too (one provider): our completions wake its sleepers. */
		if (!ret)
			ret = xrma_core_fence_publish_wake(rwin->dmaq, XRMA_RWIN_WORD32(&rwin->table->done_changes),
							   XRMA_RWIN_WORD32(&rwin->peer->sleepers));
	} else if (ret == -XRMA_ENOTSUP) {
		ret = peer_attach_copy(rwin);
	}
	if (ret) {
		peer_detach(rwin);
		rwin->conn = NULL;
	}
	return ret;
}

/* Drop removed windows whose pages the owner let go (their range is free again). */
static void windows_sweep(struct xrma_rwin *rwin)
{
	size_t kept = 0;

	for (size_t i = 0; i < rwin->nwindows; i++) {
		struct xrma_rwin_window *w = &rwin->windows[i];

		if (!w->live && (!rwin->release || rwin->release(w->pages, false)))
			continue;
		rwin->windows[kept++] = *w;
	}
	rwin->nwindows = kept;
}

int xrma_rwin_close(struct xrma_rwin *rwin)
{
	if (!XRMA_RWIN_OK(rwin))
		return -XRMA_EINVAL;
	/* The owner's queue drained first, so no import is in a transfer: all close. */
	xrma_rwin_sweep(rwin, true);
	peer_detach(rwin);
	for (size_t i = 0; i < rwin->nwindows; i++) {
		struct xrma_rwin_window *w = &rwin->windows[i];

		if (w->live)
			xrma_win_remove(rwin->win, w->offset, w->len);
		if (rwin->release)
			rwin->release(w->pages, true);
	}
	free(rwin->windows);
	free(rwin->imports);
	xrma_win_close(rwin->win);
	if (rwin->ctl)
		xrma_dmaq_close(rwin->ctl);
	xrma_core_fence_publish_wake(rwin->dmaq, NULL, NULL);
	xrma_fence_publish(rwin->dmaq, NULL, 0, 0, 0);
	retire(rwin->table_seg);
	rwin->magic = 0;
	free(rwin);
	retired_sweep();
	return 0;
}

/* Rewrite the shared table from the live windows. */
static void table_publish(struct xrma_rwin *rwin)
{
	struct xrma_rwin_table *t = rwin->table;
	uint64_t seq, n = 0;

	XRMA_PEER_SHARED_BEGIN();
	seq = LOAD(&t->seq);
	STORE(&t->seq, seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (size_t i = 0; i < rwin->nwindows; i++) {
		const struct xrma_rwin_window *w = &rwin->windows[i];

		if (!w->live)
			continue;
		STORE(&t->win[n].offset, w->offset);
		STORE(&t->win[n].len, (uint64_t)w->len);
		STORE(&t->win[n].seg_id, w->seg_id);
		STORE(&t->win[n].seg_offset, (uint64_t)w->seg_offset);
		STORE(&t->win[n].prot, (uint64_t)w->prot);
		n++;
	}
	STORE(&t->count, n);
	__atomic_store_n(&t->seq, seq + 2, __ATOMIC_RELEASE);
	XRMA_PEER_SHARED_END();
}

/*
 * Where [*offset, +len) goes in the sorted list (removed windows whose pages
 * are busy still take their range): the insert index or a negative code.
 * Without FIXED the offset is a hint: the first free range at or above it,
 * else the first free range from 0.
 */
static long window_place(struct xrma_rwin *rwin, uint64_t *offset, size_t len, bool fixed)
{
	uint64_t hint = (*offset + XRMA_RWIN_PAGE - 1) & ~(uint64_t)(XRMA_RWIN_PAGE - 1);
	uint64_t at = fixed ? *offset : hint;
	size_t i;

	if (len > XRMA_WIN_OFFSET_LIMIT)
		return fixed ? -XRMA_EADDRINUSE : -XRMA_ENOMEM;
again:
	for (i = 0; i < rwin->nwindows; i++) {
		const struct xrma_rwin_window *w = &rwin->windows[i];

		if (w->offset + w->len <= at)
			continue;
		if (w->offset >= at + len)
			break;
		if (fixed)
			return -XRMA_EADDRINUSE;
		at = w->offset + w->len;
	}
	if (at > XRMA_WIN_OFFSET_LIMIT - len) {
		if (fixed)
			return -XRMA_EADDRINUSE;
		if (hint) {
			hint = at = 0;
			goto again;
		}
		return -XRMA_ENOMEM;
	}
	*offset = at;
	return (long)i;
}

static size_t windows_live(const struct xrma_rwin *rwin)
{
	size_t n = 0;

	for (size_t i = 0; i < rwin->nwindows; i++)
		n += rwin->windows[i].live;
	return n;
}

int xrma_rwin_place(struct xrma_rwin *rwin, uint64_t *offset, size_t len, uint32_t flags)
{
	uint64_t at;
	long placed;

	if (!XRMA_RWIN_OK(rwin) || !offset || !len || (flags & ~XRMA_RWIN_FIXED))
		return -XRMA_EINVAL;
	windows_sweep(rwin);
	if (windows_live(rwin) >= XRMA_RWIN_MAX)
		return -XRMA_ENOMEM;
	at = *offset;
	placed = window_place(rwin, &at, len, flags & XRMA_RWIN_FIXED);
	if (placed < 0)
		return (int)placed;
	*offset = at;
	return 0;
}

int xrma_rwin_add(struct xrma_rwin *rwin, struct xrma_seg *seg, size_t seg_offset, size_t len,
		  uint64_t *offset, uint32_t prot, uint32_t flags, void *pages)
{
	struct xrma_rwin_window w = { .len = len, .seg = seg, .seg_offset = seg_offset, .prot = prot,
				      .pages = pages, .live = true }, *grown;
	uint64_t placed;
	long at;
	int ret;

	if (!XRMA_RWIN_OK(rwin) || !seg || !offset || !len || (flags & ~XRMA_RWIN_FIXED) || !prot ||
	    (prot & ~(XRMA_RWIN_PROT_READ | XRMA_RWIN_PROT_WRITE)))
		return -XRMA_EINVAL;
	ret = xrma_seg_id(seg, &w.seg_id);
	if (ret)
		return ret;
	windows_sweep(rwin);
	if (windows_live(rwin) >= XRMA_RWIN_MAX)
		return -XRMA_ENOMEM;
	grown = rwin_grow(rwin->windows, &rwin->windows_cap, rwin->nwindows, sizeof(w));
	if (!grown)
		return -XRMA_ENOMEM;
	rwin->windows = grown;
	w.offset = *offset;
	at = window_place(rwin, &w.offset, len, flags & XRMA_RWIN_FIXED);
	if (at < 0)
		return (int)at;
	ret = xrma_win_add(rwin->win, seg, seg_offset, len, w.offset, prot, XRMA_WIN_FIXED, &placed);
	if (ret)
		return ret;
	memmove(&rwin->windows[at + 1], &rwin->windows[at], (rwin->nwindows - (size_t)at) * sizeof(w));
	rwin->windows[at] = w;
	rwin->nwindows++;
	table_publish(rwin);
	*offset = w.offset;
	return 0;
}

/* Codes of an RMA or import that failed because the peer, its node or its endpoint went away. */
static bool peer_gone(int ret)
{
	switch (-ret) {
	case XRMA_ECONNRESET: case XRMA_ENODEV: case XRMA_ENOTCONN: case XRMA_ECONNREFUSED:
	case XRMA_EHOSTUNREACH: case XRMA_ENETDOWN: case XRMA_ECONNABORTED: case XRMA_ENOENT:
	case XRMA_ETIMEDOUT: case XRMA_ECANCELED: case XRMA_ELOST:
		return true;
	default:
		return false;
	}
}

/* Post the write of our seq to the peer's box and wait for its delivery. */
static int peer_box_push(struct xrma_rwin *rwin)
{
	struct xrma_iov iov = { .seg = rwin->table_seg, .offset = offsetof(struct xrma_rwin_table, seq),
				.len = sizeof(uint64_t) };
	int ret;

	if (XRMA_FAIL_POINT("rwin.remove.notice"))
		return -XRMA_ETRANSFER;
	ret = rwin_queue(rwin);
	return ret ? ret : xrma_dmaq_post(rwin->ctl, XRMA_RMA_WRITE, &iov, 1, rwin->peer_box_rseg, 0,
					  iov.len, 0, XRMA_RMA_SYNC);
}

/* Our table changed: a peer reading it by copy learns so before we return. */
static int peer_notify(struct xrma_rwin *rwin)
{
	enum xrma_conn_state state;
	uint64_t box = 0;
	int ret = 0;

	if (!rwin->conn)
		return 0;
	if (!rwin->peer_box_rseg) {
		/*
		 * Our new seq is stored; the peer announces its box before its first read of
		 * our table. Either we see the box now, or that read sees the new seq.
		 */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		ret = xrma_core_rwin_word(rwin, offsetof(struct xrma_rwin_table, seq_box), &box);
		if (!ret && !box)
			return 0;   /* the peer maps our table */
		if (!ret)
			ret = xrma_rseg_open(rwin->ctx, rwin->peer_node, box - 1, XRMA_ACCESS_REMOTE_WRITE, 0,
					     rwin->timeout_ms, &rwin->peer_box_rseg);
	}
	if (!ret)
		ret = peer_box_push(rwin);
	/* A peer that is gone (or closing) reads nothing any more: the change stands untold. */
	if (ret && (peer_gone(ret) || xrma_conn_state(rwin->conn, &state) || state != XRMA_CONN_CONNECTED))
		ret = 0;
	return ret;
}

int xrma_rwin_remove(struct xrma_rwin *rwin, uint64_t offset, size_t len)
{
	uint64_t end;
	int ret;

	if (!XRMA_RWIN_OK(rwin) || !len || offset > UINT64_MAX - len)
		return -XRMA_EINVAL;
	end = offset + len;
	/* The core window space decides (whole windows only, at least one). */
	ret = xrma_win_can_remove(rwin->win, offset, len);
	if (ret)
		return ret;
	for (size_t i = 0; i < rwin->nwindows; i++) {
		struct xrma_rwin_window *w = &rwin->windows[i];

		if (w->live && w->offset >= offset && w->offset + w->len <= end) {
			w->live = false;
			w->leaving = true;
		}
	}
	table_publish(rwin);
	XRMA_KILL_POINT("rwin.remove.before_notice");
	ret = peer_notify(rwin);
	/* Told (or gone), they stay out; untold, the peer may still use them: back in. */
	for (size_t i = 0; i < rwin->nwindows; i++) {
		struct xrma_rwin_window *w = &rwin->windows[i];

		if (w->leaving) {
			w->leaving = false;
			w->live = ret != 0;
		}
	}
	if (!ret)
		ret = xrma_win_remove(rwin->win, offset, len);
	else
		table_publish(rwin);
	windows_sweep(rwin);
	return ret;
}

int xrma_rwin_local(struct xrma_rwin *rwin, uint64_t offset, size_t len, uint32_t prot,
		    struct xrma_iov *iov, size_t max, size_t *count)
{
	uint64_t end, at = offset;
	size_t lo = 0, hi, n = 0;

	if (!XRMA_RWIN_OK(rwin) || (max && !iov) || !count || (prot & ~(XRMA_RWIN_PROT_READ | XRMA_RWIN_PROT_WRITE)))
		return -XRMA_EINVAL;
	if (!len || offset > UINT64_MAX - len)
		return -XRMA_ENXIO;
	end = offset + len;
	hi = rwin->nwindows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rwin->windows[mid].offset + rwin->windows[mid].len <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; at < end; i++) {
		const struct xrma_rwin_window *w = &rwin->windows[i];
		size_t take;

		if (i >= rwin->nwindows || !w->live || w->offset > at)
			return -XRMA_ENXIO;
		if ((w->prot & prot) != prot)
			return -XRMA_EACCES;
		if (n == max)
			return -XRMA_ENOMEM;
		take = (size_t)((end < w->offset + w->len ? end : w->offset + w->len) - at);
		iov[n++] = (struct xrma_iov){ .seg = w->seg, .offset = w->seg_offset + (size_t)(at - w->offset),
					      .len = take };
		at += take;
	}
	*count = n;
	return 0;
}

/* Resolve [offset, end) in table t (a consistent view). */
static int peer_scan(const struct xrma_rwin_table *t, uint64_t offset, uint64_t end, uint32_t prot,
		     struct xrma_rwin_piece *out, size_t max, size_t *count)
{
	uint64_t n = LOAD(&t->count), lo = 0, hi, at = offset;
	size_t pieces = 0;

	if (n > XRMA_RWIN_MAX)
		n = XRMA_RWIN_MAX;
	hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (LOAD(&t->win[mid].offset) + LOAD(&t->win[mid].len) <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint64_t i = lo; at < end; i++) {
		uint64_t wo, wl, wp;

		if (i >= n)
			return -XRMA_ENXIO;
		wo = LOAD(&t->win[i].offset);
		wl = LOAD(&t->win[i].len);
		wp = LOAD(&t->win[i].prot);
		if (wo > at || wo + wl <= at)
			return -XRMA_ENXIO;
		if ((wp & prot) != prot)
			return -XRMA_EACCES;
		if (pieces == max)
			return -XRMA_ENOSPC;
		out[pieces].seg_id = LOAD(&t->win[i].seg_id);
		out[pieces].seg_offset = (size_t)(LOAD(&t->win[i].seg_offset) + (at - wo));
		out[pieces].len = (size_t)((end < wo + wl ? end : wo + wl) - at);
		out[pieces].prot = (uint32_t)wp;
		at += out[pieces].len;
		pieces++;
	}
	*count = pieces;
	return 0;
}

int xrma_rwin_lookup(struct xrma_rwin *rwin, uint64_t offset, size_t len, uint32_t prot,
		     struct xrma_rwin_piece *out, size_t max, size_t *count)
{
	const struct xrma_rwin_table *t;
	int ret;

	if (!XRMA_RWIN_OK(rwin) || (max && !out) || !count || (prot & ~(XRMA_RWIN_PROT_READ | XRMA_RWIN_PROT_WRITE)))
		return -XRMA_EINVAL;
	if (!rwin->conn)
		return -XRMA_ENOTCONN;
	if (!len || offset > UINT64_MAX - len)
		return -XRMA_ENXIO;
	t = rwin->peer;
	if (!t) {
		bool fresh = !rwin->copy_current;

		ret = peer_snapshot(rwin);
		if (!ret)
			ret = peer_scan(rwin->copy, offset, offset + len, prot, out, max, count);
		/* Additions are not pushed to us: a miss in an older copy reads the table again. */
		if (ret == -XRMA_ENXIO && !fresh) {
			rwin->copy_current = false;
			ret = peer_snapshot(rwin);
			if (!ret)
				ret = peer_scan(rwin->copy, offset, offset + len, prot, out, max, count);
		}
		return ret;
	}
	for (unsigned spins = 0; spins < RWIN_READ_SPINS; spins++) {
		uint64_t before = __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE);

		if (before & 1) {
			sched_yield();
			continue;
		}
		ret = peer_scan(t, offset, offset + len, prot, out, max, count);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (LOAD(&t->seq) == before)
			return ret;
	}
	return -XRMA_ECONNRESET;   /* the owner died while writing its table */
}

int xrma_rwin_import(struct xrma_rwin *rwin, const struct xrma_rwin_piece *piece, struct xrma_rseg **rseg)
{
	struct xrma_rwin_import *grown;
	int ret;

	if (!XRMA_RWIN_OK(rwin) || !piece || !rseg)
		return -XRMA_EINVAL;
	if (!rwin->conn)
		return -XRMA_ENOTCONN;
	for (size_t i = 0; i < rwin->nimports; i++) {
		if (rwin->imports[i].seg_id == piece->seg_id) {
			*rseg = rwin->imports[i].rseg;
			return 0;
		}
	}
	grown = rwin_grow(rwin->imports, &rwin->imports_cap, rwin->nimports, sizeof(*grown));
	if (!grown)
		return -XRMA_ENOMEM;
	rwin->imports = grown;
	/* Ask only for what the window's segment grants: remote write for a writable window. */
	ret = xrma_rseg_open(rwin->ctx, rwin->peer_node, piece->seg_id,
			     XRMA_ACCESS_REMOTE_READ |
				     ((piece->prot & XRMA_RWIN_PROT_WRITE) ? XRMA_ACCESS_REMOTE_WRITE : 0),
			     0, rwin->timeout_ms, rseg);
	/* The window went away between the table read and the import, or its pages cannot be
	 * reached from this node: they are imported by as many other nodes as the peer's
	 * provider allows (caps.max_importers). */
	if (ret == -XRMA_ENOENT || ret == -XRMA_ENOTAVAIL || ret == -XRMA_ECONNREFUSED)
		ret = -XRMA_ENXIO;
	if (ret)
		return ret;
	rwin->imports[rwin->nimports++] = (struct xrma_rwin_import){ .seg_id = piece->seg_id, .rseg = *rseg };
	return 0;
}

static bool peer_has_segment(const struct xrma_rwin_table *t, uint64_t seg_id)
{
	uint64_t n = LOAD(&t->count);

	for (uint64_t i = 0; i < n && i < XRMA_RWIN_MAX; i++)
		if (LOAD(&t->win[i].seg_id) == seg_id)
			return true;
	return false;
}

int xrma_rwin_sweep(struct xrma_rwin *rwin, bool all)
{
	const struct xrma_rwin_table *t;
	uint64_t seq = 0;
	size_t kept = 0;
	bool busy = false;

	if (!XRMA_RWIN_OK(rwin))
		return -XRMA_EINVAL;
	retired_trim();
	t = rwin->peer ? rwin->peer : rwin->copy;
	if (!t)
		return 0;
	if (!all && rwin->peer) {
		seq = __atomic_load_n(&rwin->peer->seq, __ATOMIC_ACQUIRE);
		if (seq == rwin->seq_seen || (seq & 1))
			return 0;
	} else if (!all) {
		/* The box holds the owner's number once its last change returned: no read if the copy has it. */
		XRMA_PEER_SHARED_BEGIN();
		seq = __atomic_load_n(rwin->box, __ATOMIC_ACQUIRE);
		XRMA_PEER_SHARED_END();
		rwin->copy_current = rwin->copy_valid && seq == rwin->copy_seq;
		if (peer_snapshot(rwin))
			return 0;
		seq = rwin->copy_seq;
		if (seq == rwin->seq_seen)
			return 0;
	}
	for (size_t i = 0; i < rwin->nimports; i++) {
		struct xrma_rwin_import *im = &rwin->imports[i];

		/* A torn read only keeps an import longer; the next change looks again. */
		if (all || !peer_has_segment(t, im->seg_id)) {
			if (xrma_rseg_close(im->rseg) != -XRMA_EBUSY)
				continue;
			busy = true;   /* in a transfer: look again next time */
		}
		rwin->imports[kept++] = *im;
	}
	rwin->nimports = kept;
	if (!all && !busy)
		rwin->seq_seen = seq;
	return 0;
}

int xrma_rwin_probe(struct xrma_rwin *rwin)
{
	uint64_t seq;

	if (!XRMA_RWIN_OK(rwin))
		return -XRMA_EINVAL;
	if (!rwin->conn)
		return -XRMA_ENOTCONN;
	return xrma_core_rwin_word(rwin, offsetof(struct xrma_rwin_table, seq), &seq);
}
