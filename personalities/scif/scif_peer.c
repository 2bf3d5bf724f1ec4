/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_peer.c: the peer's registered address space seen
 * from our endpoint (§3.6, §3.7): its shared table (scif_ras.c writes it), the
 * lookup of a remote range into per-window pieces, the cache of the peer's
 * segments we imported, and the peer's RMA count for INIT_PEER fences.
 * The table is mapped where the provider can map; elsewhere it is read by RMA
 * into a private copy (the environment variable XRMA_SCIF_PEER_TABLE=rma forces
 * that path, for tests). Reads follow the owner's sequence lock. The copy is
 * kept with the sequence number it was read at. A reader by copy exports a
 * one-word "seq box" and announces it in its own table; the owner, before a
 * register or unregister returns, writes its new sequence number into the box
 * by a synchronous RMA (delivered: in our memory once the owner's call goes
 * on). So a call compares the box, a local load, with the copy's number and
 * reads the table again only when they differ: no round trip while the table
 * stays the same, and never a stale copy after the owner's unregister returned.
 * Registrations are not pushed (they cost the owner nothing): a lookup that
 * misses in a copy it did not read during this call reads the table again
 * before it answers ENXIO.
 */
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/peer_shared.h"
#include "personalities/scif/scif_internal.h"

/* Reader retries while the owner rewrites the table, before giving up on it. */
#define PEER_READ_SPINS (1u << 20)
/* Peer fence waits: spin this many rounds, then sleep between looks. */
#define PEER_WAIT_SPINS 4096
#define PEER_WAIT_SLEEP_NS 20000
/* The copy's scratch word, after the table, for single-word reads. */
#define PEER_SCRATCH XRMA_SCIF_RAS_SIZE
#define PEER_HEADER offsetof(struct xrma_scif_ras_shared, win)

/* See scif_ras.c: the sequence lock's fences are not modelled by TSan. */
#if defined(__SANITIZE_THREAD__)
#pragma GCC diagnostic ignored "-Wtsan"
#endif

#define LOAD XRMA_SCIF_LOAD

static bool peer_map_refused(void)
{
	const char *how = getenv("XRMA_SCIF_PEER_TABLE");

	return how && !strcmp(how, "rma");
}

/* RMA-read [offset, +len) of the peer's table into our copy at at. */
static int peer_read(struct xrma_scif_ep *ep, size_t offset, size_t len, size_t at)
{
	struct xrma_iov iov = { .seg = ep->peer_copy_seg, .offset = at, .len = len };

	/* Counts the reads for tests (tests/faults/test_scif_table_reads.c). */
	XRMA_KILL_POINT("scif.peer.table_read");
	return xrma_dmaq_post(ep->peer_dmaq, XRMA_RMA_READ, &iov, 1, ep->peer_ras_rseg, offset, len, 0,
			      XRMA_RMA_SYNC);
}

/* One 64-bit word of the peer's table. */
static int peer_word(struct xrma_scif_ep *ep, size_t offset, uint64_t *value)
{
	int ret;

	if (ep->peer_ras) {
		*value = __atomic_load_n((uint64_t *)((char *)ep->peer_ras + offset), __ATOMIC_ACQUIRE);
		return 0;
	}
	ret = peer_read(ep, offset, sizeof(*value), PEER_SCRATCH);
	if (!ret)
		*value = LOAD((uint64_t *)((char *)ep->peer_copy + PEER_SCRATCH));
	return ret;
}

/*
 * The copy was read at seq: raise the box to it unless the owner pushed a
 * newer number meanwhile (the owner's pushes only grow, and each lands before
 * its table changes again), so a copy read after a registration the owner did
 * not push matches the box.
 */
static void seq_box_raise(struct xrma_scif_ep *ep, uint64_t seq)
{
	uint64_t seen;

	if (!ep->seq_box)
		return;
	XRMA_PEER_SHARED_BEGIN();
	seen = __atomic_load_n(ep->seq_box, __ATOMIC_ACQUIRE);
	while (seen < seq &&
	       !__atomic_compare_exchange_n(ep->seq_box, &seen, seq, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	XRMA_PEER_SHARED_END();
}

/* A consistent copy of the header and the live entries (the unmapped path). */
static int peer_snapshot(struct xrma_scif_ep *ep)
{
	struct xrma_scif_ras_shared *copy = ep->peer_copy;

	if (ep->peer_copy_current)
		return 0;
	for (unsigned spins = 0; spins < PEER_READ_SPINS; spins++) {
		uint64_t before, after, n;
		int ret = peer_read(ep, 0, PEER_HEADER, 0);

		if (ret)
			return ret;
		before = LOAD(&copy->seq);
		if (before & 1) {
			sched_yield();
			continue;
		}
		n = LOAD(&copy->count);
		if (n > XRMA_SCIF_RAS_MAX)
			n = XRMA_SCIF_RAS_MAX;
		if (n)
			ret = peer_read(ep, PEER_HEADER, n * sizeof(copy->win[0]), PEER_HEADER);
		if (!ret)
			ret = peer_word(ep, offsetof(struct xrma_scif_ras_shared, seq), &after);
		if (ret)
			return ret;
		if (after == before) {
			ep->peer_copy_valid = ep->peer_copy_current = true;
			ep->peer_copy_seq = before;
			seq_box_raise(ep, before);
			return 0;
		}
	}
	return -XRMA_ECONNRESET;   /* the owner died while writing its table */
}

/* Export our seq box and announce it in our table, before the first read of the peer's. */
static int seq_box_open(struct xrma_scif_ep *ep, struct xrma_ctx *ctx)
{
	struct xrma_seg_attr attr = { .len = XRMA_SCIF_PAGE, .id = XRMA_ID_ANY,
				      .access = XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE |
						XRMA_ACCESS_REMOTE_WRITE };
	uint64_t id;
	void *addr;
	int ret;

	ret = xrma_seg_open(ctx, &attr, &ep->seq_box_seg);
	if (ret)
		return ret;
	ret = xrma_seg_addr(ep->seq_box_seg, &addr);
	if (!ret)
		ret = xrma_seg_id(ep->seq_box_seg, &id);
	if (!ret) {
		ep->seq_box = addr;
		/* Meaningless until our first read of the table raises it (peer_copy_valid). */
		__atomic_store_n(ep->seq_box, 0, __ATOMIC_RELAXED);
		ret = xrma_seg_export(ep->seq_box_seg, 0);
	}
	if (!ret) {
		XRMA_PEER_SHARED_BEGIN();
		__atomic_store_n(&ep->ras->seq_box, id + 1, __ATOMIC_RELEASE);
		XRMA_PEER_SHARED_END();
	}
	return ret;
}

static int peer_attach_copy(struct xrma_scif_ep *ep, struct xrma_ctx *ctx)
{
	struct xrma_seg_attr attr = { .len = XRMA_SCIF_RAS_SIZE + XRMA_SCIF_PAGE, .id = XRMA_ID_ANY,
				      .access = XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE,
				      .flags = XRMA_SEG_PRIVATE };
	uint64_t magic = 0;
	void *addr;
	int ret;

	ret = xrma_seg_open(ctx, &attr, &ep->peer_copy_seg);
	if (!ret)
		ret = xrma_seg_addr(ep->peer_copy_seg, &addr);
	if (!ret) {
		ep->peer_copy = addr;
		ret = xrma_dmaq_open(ctx, 4, 0, &ep->peer_dmaq);
	}
	if (!ret)
		ret = peer_word(ep, offsetof(struct xrma_scif_ras_shared, magic), &magic);
	if (!ret && magic != XRMA_SCIF_RAS_MAGIC)
		ret = -XRMA_EPROTO;
	return ret ? ret : seq_box_open(ep, ctx);
}

int xrma_scif_peer_attach(struct xrma_scif_ep *ep, uint64_t peer_ras_id)
{
	struct xrma_ctx *ctx;
	void *addr;
	int ret;

	ret = xrma_scif_ctx(&ctx);
	if (!ret)
		ret = xrma_rseg_open(ctx, ep->peer_node, peer_ras_id, XRMA_ACCESS_REMOTE_READ, 0,
				     XRMA_SCIF_HANDSHAKE_MS, &ep->peer_ras_rseg);
	if (ret)
		return ret;
	ret = peer_map_refused() ? -XRMA_ENOTSUP
				 : xrma_rseg_map(ep->peer_ras_rseg, 0, XRMA_SCIF_RAS_SIZE, XRMA_MAP_READ, &addr);
	if (!ret) {
		ep->peer_ras = addr;
		if (__atomic_load_n(&ep->peer_ras->magic, __ATOMIC_ACQUIRE) != XRMA_SCIF_RAS_MAGIC)
			ret = -XRMA_EPROTO;
	} else if (ret == -XRMA_ENOTSUP) {
		ret = peer_attach_copy(ep, ctx);
	}
	if (ret)
		xrma_scif_peer_detach(ep);
	return ret;
}

void xrma_scif_peer_detach(struct xrma_scif_ep *ep)
{
	if (ep->peer_ras) {
		xrma_rseg_unmap(ep->peer_ras_rseg, ep->peer_ras);
		ep->peer_ras = NULL;
	}
	if (ep->peer_dmaq) {
		xrma_dmaq_close(ep->peer_dmaq);
		ep->peer_dmaq = NULL;
	}
	if (ep->peer_copy_seg) {
		xrma_seg_close(ep->peer_copy_seg);
		ep->peer_copy_seg = NULL;
		ep->peer_copy = NULL;
		ep->peer_copy_valid = ep->peer_copy_current = false;
	}
	if (ep->peer_ras_rseg) {
		xrma_rseg_close(ep->peer_ras_rseg);
		ep->peer_ras_rseg = NULL;
	}
	if (ep->peer_box_rseg) {
		xrma_rseg_close(ep->peer_box_rseg);
		ep->peer_box_rseg = NULL;
	}
	if (ep->seq_box_seg) {
		if (ep->ras) {
			XRMA_PEER_SHARED_BEGIN();
			__atomic_store_n(&ep->ras->seq_box, 0, __ATOMIC_RELEASE);
			XRMA_PEER_SHARED_END();
		}
		/* The peer may still hold an import of it: close once nothing uses it. */
		xrma_scif_retire(ep->seq_box_seg, NULL);
		ep->seq_box_seg = NULL;
		ep->seq_box = NULL;
	}
}

/* Resolve [offset, end) in table r (a consistent view). */
static int peer_scan(const struct xrma_scif_ras_shared *r, uint64_t offset, uint64_t end, uint32_t prot,
		     struct xrma_scif_piece *out, size_t max, size_t *count)
{
	uint64_t n = LOAD(&r->count), lo = 0, hi, at = offset;
	size_t pieces = 0;

	if (n > XRMA_SCIF_RAS_MAX)
		n = XRMA_SCIF_RAS_MAX;
	hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (LOAD(&r->win[mid].offset) + LOAD(&r->win[mid].len) <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint64_t i = lo; at < end; i++) {
		uint64_t wo, wl;

		if (i >= n)
			return -XRMA_ENXIO;
		wo = LOAD(&r->win[i].offset);
		wl = LOAD(&r->win[i].len);
		if (wo > at || wo + wl <= at)
			return -XRMA_ENXIO;
		if ((LOAD(&r->win[i].prot) & prot) != prot)
			return -XRMA_EACCES;
		if (pieces == max)
			return -XRMA_ENOSPC;
		out[pieces].seg_id = LOAD(&r->win[i].seg_id);
		out[pieces].seg_offset = (size_t)(LOAD(&r->win[i].seg_offset) + (at - wo));
		out[pieces].len = (size_t)((end < wo + wl ? end : wo + wl) - at);
		out[pieces].writable = LOAD(&r->win[i].prot) & SCIF_PROT_WRITE;
		at += out[pieces].len;
		pieces++;
	}
	*count = pieces;
	return 0;
}

int xrma_scif_peer_lookup(struct xrma_scif_ep *ep, uint64_t offset, size_t len, uint32_t prot,
			  struct xrma_scif_piece *out, size_t max, size_t *count)
{
	const struct xrma_scif_ras_shared *r = ep->peer_ras;
	int ret;

	if (!len || offset > UINT64_MAX - len)
		return -XRMA_ENXIO;
	if (!r) {
		bool fresh = !ep->peer_copy_current;

		ret = peer_snapshot(ep);
		if (!ret)
			ret = peer_scan(ep->peer_copy, offset, offset + len, prot, out, max, count);
		/* Registrations are not pushed to us: a miss in an older copy reads the table again. */
		if (ret == -XRMA_ENXIO && !fresh) {
			ep->peer_copy_current = false;
			ret = peer_snapshot(ep);
			if (!ret)
				ret = peer_scan(ep->peer_copy, offset, offset + len, prot, out, max, count);
		}
		return ret;
	}
	for (unsigned spins = 0; spins < PEER_READ_SPINS; spins++) {
		uint64_t before = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);

		if (before & 1) {
			sched_yield();
			continue;
		}
		ret = peer_scan(r, offset, offset + len, prot, out, max, count);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (LOAD(&r->seq) == before)
			return ret;
	}
	return -XRMA_ECONNRESET;   /* the owner died while writing its table */
}

/* Ask only for what the window's segment grants: remote write for a writable window. */
int xrma_scif_import(struct xrma_scif_ep *ep, const struct xrma_scif_piece *piece, struct xrma_rseg **rseg)
{
	uint64_t seg_id = piece->seg_id;
	struct xrma_scif_import *grown;
	struct xrma_ctx *ctx;
	int ret;

	for (size_t i = 0; i < ep->nimports; i++) {
		if (ep->imports[i].seg_id == seg_id) {
			*rseg = ep->imports[i].rseg;
			return 0;
		}
	}
	grown = xrma_scif_grow(ep->imports, &ep->imports_cap, ep->nimports, sizeof(*grown));
	if (!grown)
		return -XRMA_ENOMEM;
	ep->imports = grown;
	ret = xrma_scif_ctx(&ctx);
	if (!ret)
		ret = xrma_rseg_open(ctx, ep->peer_node, seg_id,
				     XRMA_ACCESS_REMOTE_READ | (piece->writable ? XRMA_ACCESS_REMOTE_WRITE : 0), 0,
				     XRMA_SCIF_HANDSHAKE_MS, rseg);
	/* The window went away between the table read and the import, or its pages cannot be
	 * reached from this node: they are imported by as many other nodes as the peer's
	 * provider allows (caps.max_importers, the peer shares them between endpoints). */
	if (ret == -XRMA_ENOENT || ret == -XRMA_ENOTAVAIL || ret == -XRMA_ECONNREFUSED)
		ret = -XRMA_ENXIO;
	if (ret)
		return ret;
	ep->imports[ep->nimports++] = (struct xrma_scif_import){ .seg_id = seg_id, .rseg = *rseg };
	return 0;
}

static bool peer_has_segment(const struct xrma_scif_ras_shared *r, uint64_t seg_id)
{
	uint64_t n = LOAD(&r->count);

	for (uint64_t i = 0; i < n && i < XRMA_SCIF_RAS_MAX; i++)
		if (LOAD(&r->win[i].seg_id) == seg_id)
			return true;
	return false;
}

void xrma_scif_imports_sweep(struct xrma_scif_ep *ep, bool all)
{
	const struct xrma_scif_ras_shared *table = ep->peer_ras ? ep->peer_ras : ep->peer_copy;
	uint64_t seq = 0;
	size_t kept = 0;
	bool busy = false;

	if (!table)
		return;
	if (!all && ep->peer_ras) {
		seq = __atomic_load_n(&ep->peer_ras->seq, __ATOMIC_ACQUIRE);
		if (seq == ep->peer_seq_seen || (seq & 1))
			return;
	} else if (!all) {
		/* The box holds the owner's number once its last change returned: no read if the copy has it. */
		XRMA_PEER_SHARED_BEGIN();
		seq = __atomic_load_n(ep->seq_box, __ATOMIC_ACQUIRE);
		XRMA_PEER_SHARED_END();
		ep->peer_copy_current = ep->peer_copy_valid && seq == ep->peer_copy_seq;
		if (peer_snapshot(ep))
			return;
		seq = ep->peer_copy_seq;
		if (seq == ep->peer_seq_seen)
			return;
	}
	for (size_t i = 0; i < ep->nimports; i++) {
		struct xrma_scif_import *im = &ep->imports[i];

		/* A torn read only keeps an import longer; the next change looks again. */
		if (all || !peer_has_segment(table, im->seg_id)) {
			if (xrma_rseg_close(im->rseg) != -XRMA_EBUSY)
				continue;
			busy = true;   /* in a transfer: look again next time */
		}
		ep->imports[kept++] = *im;
	}
	ep->nimports = kept;
	if (!all && !busy)
		ep->peer_seq_seen = seq;
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
static int peer_box_push(struct xrma_scif_ep *ep)
{
	struct xrma_iov iov = { .seg = ep->ras_seg, .offset = offsetof(struct xrma_scif_ras_shared, seq),
				.len = sizeof(uint64_t) };

	if (XRMA_FAIL_POINT("scif.unregister.notice"))
		return -XRMA_ETRANSFER;
	return xrma_scif_dmaq_post(ep, XRMA_RMA_WRITE, &iov, 1, ep->peer_box_rseg, 0, iov.len, 0,
				   XRMA_RMA_SYNC);
}

int xrma_scif_peer_notify(struct xrma_scif_ep *ep)
{
	enum xrma_conn_state state;
	struct xrma_ctx *ctx;
	uint64_t box = 0;
	int ret = 0;

	if (!ep->peer_box_rseg) {
		/*
		 * Our new seq is stored; the peer announces its box before its first read of
		 * our table. Either we see the box now, or that read sees the new seq.
		 */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		ret = peer_word(ep, offsetof(struct xrma_scif_ras_shared, seq_box), &box);
		if (!ret && !box)
			return 0;   /* the peer maps our table */
		if (!ret)
			ret = xrma_scif_ctx(&ctx);
		if (!ret)
			ret = xrma_rseg_open(ctx, ep->peer_node, box - 1, XRMA_ACCESS_REMOTE_WRITE, 0,
					     XRMA_SCIF_HANDSHAKE_MS, &ep->peer_box_rseg);
	}
	if (!ret)
		ret = peer_box_push(ep);
	/* A peer that is gone (or closing) reads nothing any more: the change stands without the notice. */
	if (ret && (peer_gone(ret) || xrma_conn_state(ep->conn, &state) || state != XRMA_CONN_CONNECTED))
		ret = 0;
	return ret;
}

int xrma_scif_peer_probe(struct xrma_scif_ep *ep)
{
	uint64_t seq;

	return peer_word(ep, offsetof(struct xrma_scif_ras_shared, seq), &seq);
}

int xrma_scif_peer_posted(struct xrma_scif_ep *ep, uint64_t *posted)
{
	return peer_word(ep, offsetof(struct xrma_scif_ras_shared, posted), posted);
}

int xrma_scif_peer_wait(struct xrma_scif_ep *ep, uint64_t target)
{
	size_t slot = offsetof(struct xrma_scif_ras_shared, done);
	struct timespec nap = { .tv_nsec = PEER_WAIT_SLEEP_NS };

	for (unsigned spins = 0; target; spins++) {
		enum xrma_conn_state state;
		uint64_t done;
		int ret = peer_word(ep, slot, &done);

		if (ret)
			return ret;
		if (done >= target)
			return 0;
		if (spins % 256 == 0 &&
		    (xrma_conn_state(ep->conn, &state) || state != XRMA_CONN_CONNECTED))
			return -XRMA_ECONNRESET;
		/* No wake-up reaches us from the peer's engine: after a bounded spin, nap. */
		if (spins < PEER_WAIT_SPINS)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
	return 0;
}
