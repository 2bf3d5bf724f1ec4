/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_rma.c: transfers and atomics with fi_writemsg, fi_readmsg,
 * fi_fetch_atomic and fi_compare_atomic. The vector is cut into chunks (the
 * provider's iov limit, 1 GiB at most), all posted; the synchronous rma op
 * returns when every chunk completed, rma_post reports through the core's done
 * when the last one did (whoever polls the CQ calls it), so the core's engine
 * keeps many transfers in flight. Writes ask for
 * FI_DELIVERY_COMPLETE, so a write that returned is in the target's memory and
 * a control message sent afterwards cannot overtake it. XRMA_RMA_ORDERED on a
 * provider without write-after-write order writes the last 64 bytes after the
 * rest completed. The waiter polls the CQ a bounded number of times, then
 * sleeps until the progress thread completes its chunks. What a chunk names
 * stays libfabric's until its completion is read, also when the owner is
 * declared lost: the lost owner's address is removed (ofi_av_purge), which
 * makes libfabric hand its operations back as errors (docs/providers-ofi.md,
 * "Buffer ownership").
 */
#include "providers/ofi/ofi.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <xrma/errors.h>

#define ORDERED_TAIL 64
/* A sleeping waiter re-checks its peer's liveness this often. */
#define WAIT_SLICE_MS 50
/* A post refused this many times in a row checks its owner's liveness and its time. */
#define POST_CHECK_EVERY 256u
/* Polls of the initiator endpoint after a peer left (poll_after_departure). */
#define REFRESH_POLLS 8

/*
 * Where a transfer goes (owner_status): the owner's target endpoint or its
 * control one; the peer asked to serve it (NULL: the control endpoint, which
 * is always served); and ofi_peer.rma_reconnect as the transfer started.
 */
struct transfer_dest {
	fi_addr_t addr;
	struct ofi_peer *served;
	bool reconnect;
	unsigned int av_epoch;   /* ep->av_epoch when addr was read (post_guard) */
};

struct rma_wait_ext {
	struct ofi_rma_wait w;
	struct fid_mr **tmp;     /* FI_MR_LOCAL registrations made for this call */
	size_t tmp_count;
	uint64_t operand, compare, result;   /* atomics: libfabric reads and writes these */
};

static struct rma_wait_ext *wait_new(size_t tmp_max)
{
	struct rma_wait_ext *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	if (tmp_max && !(x->tmp = calloc(tmp_max, sizeof(*x->tmp)))) {
		free(x);
		return NULL;
	}
	x->w.op.kind = OFI_OP_RMA;
	pthread_mutex_init(&x->w.lock, NULL);
	pthread_cond_init(&x->w.cond, NULL);
	atomic_init(&x->w.pending, 0);
	return x;
}

static void wait_free(struct rma_wait_ext *x)
{
	for (size_t i = 0; i < x->tmp_count; i++)
		fi_close(&x->tmp[i]->fid);
	free(x->tmp);
	pthread_cond_destroy(&x->w.cond);
	pthread_mutex_destroy(&x->w.lock);
	free(x);
}

static int transfer_status(int ret)
{
	if (ret == -XRMA_ELOST || ret == -XRMA_ENOMEM || !ret)
		return ret;
	return -XRMA_ETRANSFER;
}

/* Asynchronous records an endpoint keeps for reuse. */
#define RMA_SPARE_MAX 64

/*
 * Asynchronous transfers whose last chunk completed, linked by finished_next:
 * off the live list, reported once (under the lock, as
 * ofi_rma_owner_lost_locked does), kept or freed, under one hold of the lock.
 */
void ofi_rma_finish(struct ofi_ep *ep, struct ofi_rma_wait *finished)
{
	struct rma_wait_ext *unkept = NULL;

	if (!finished)
		return;
	pthread_mutex_lock(&ep->lock);
	while (finished) {
		struct ofi_rma_wait *w = finished;

		finished = w->finished_next;
		if (w->live_prev)
			w->live_prev->live_next = w->live_next;
		else
			ep->rma_live = w->live_next;
		if (w->live_next)
			w->live_next->live_prev = w->live_prev;
		if (!w->reported) {
			w->reported = true;
			if (w->lost_ns)
				ep->rma_lost_unreported--;
			w->done(w->arg, w->lost_ns ? -XRMA_ELOST : transfer_status(w->status));
		}
		if (!((struct rma_wait_ext *)w)->tmp && ep->rma_spare_count < RMA_SPARE_MAX) {
			w->live_next = ep->rma_spare;
			ep->rma_spare = w;
			ep->rma_spare_count++;
		} else {
			w->finished_next = (struct ofi_rma_wait *)unkept;
			unkept = (struct rma_wait_ext *)w;
		}
	}
	pthread_mutex_unlock(&ep->lock);
	while (unkept) {
		struct rma_wait_ext *x = unkept;

		unkept = (struct rma_wait_ext *)x->w.finished_next;
		wait_free(x);
	}
}

void ofi_rma_complete(struct ofi_ep *ep, struct ofi_rma_wait *w, int status,
		      struct ofi_rma_wait **finished)
{
	/* Read before our share is given up: a synchronous waiter frees w once pending is 0. */
	bool async = w->done != NULL, last, abandoned;

	if (async) {
		/* Nobody waits on an asynchronous record: the first error and the count are all it keeps. */
		int none = 0;

		if (status)
			atomic_compare_exchange_strong(&w->status, &none, status);
		/* One chunk has one completion (or its refused post): no count to keep. */
		if (!w->single && atomic_fetch_sub(&w->pending, 1) != 1)
			return;
		w->finished_next = finished ? *finished : NULL;
		if (finished)
			*finished = w;
		else
			ofi_rma_finish(ep, w);
		return;
	}
	pthread_mutex_lock(&w->lock);
	/* XRMA_ECANCELED stays as it is: rma_run retries such a transfer (poll_after_departure). */
	if (status && !w->status)
		w->status = status;
	last = atomic_fetch_sub(&w->pending, 1) == 1;
	abandoned = w->abandoned;
	if (last)
		pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	if (last && abandoned)
		wait_free((struct rma_wait_ext *)w);
}

void ofi_rma_owner_lost_locked(struct ofi_ep *ep, const struct xrma_prov_addr *owner)
{
	uint64_t now = ofi_now_ns();

	for (struct ofi_rma_wait *w = ep->rma_live; w; w = w->live_next)
		if (w->owner.node == owner->node && w->owner.ep == owner->ep && !w->reported &&
		    !w->lost_ns) {
			w->lost_ns = now;
			ep->rma_lost_unreported++;
		}
}

void ofi_rma_lost_overdue_locked(struct ofi_ep *ep, uint64_t now)
{
	uint64_t limit = (uint64_t)ep->liveness_ms * 1000000ull;

	if (!ep->rma_lost_unreported)
		return;
	/* The record itself stays until its chunks complete (or the endpoint closes). */
	for (struct ofi_rma_wait *w = ep->rma_live; w; w = w->live_next)
		if (w->lost_ns && !w->reported && now > w->lost_ns && now - w->lost_ns > limit) {
			w->reported = true;
			ep->rma_lost_unreported--;
			w->done(w->arg, -XRMA_ELOST);
		}
}

void ofi_rma_release(struct ofi_ep *ep)
{
	while (ep->rma_live) {
		struct ofi_rma_wait *w = ep->rma_live;

		ep->rma_live = w->live_next;
		if (!w->reported) {
			w->reported = true;
			w->done(w->arg, -XRMA_ECANCELED);
		}
		wait_free((struct rma_wait_ext *)w);
	}
	while (ep->rma_spare) {
		struct ofi_rma_wait *w = ep->rma_spare;

		ep->rma_spare = w->live_next;
		wait_free((struct rma_wait_ext *)w);
	}
	ep->rma_spare_count = 0;
}

/*
 * Whether owner is still the live incarnation of its node; XRMA_ELOST if not.
 * With dest, where to send to it too: the target endpoint at port (a key's
 * rma_port), whose owner is then asked to serve it, or the control endpoint
 * (port 0); and whether a gone incarnation of the node may have left its
 * connection on the initiator endpoint (rma_run).
 */
static int owner_status_locked(struct ofi_ep *ep, const struct xrma_prov_addr *owner, uint32_t port,
			       struct transfer_dest *dest)
{
	struct ofi_peer *peer;
	int status = 0;

	if (dest)
		*dest = (struct transfer_dest){ .addr = FI_ADDR_NOTAVAIL,
						 .av_epoch = atomic_load(&ep->av_epoch) };
	peer = ofi_peer_find(ep, owner->node);
	if (!peer || ofi_gone_locked(ep, owner, NULL) || (peer->ep && peer->ep != owner->ep))
		status = -XRMA_ELOST;
	else if (dest && port)
		status = ofi_peer_rma_addr_locked(ep, peer, port, &dest->addr);
	else if (dest)
		status = ofi_peer_addr_locked(ep, peer, &dest->addr);
	if (!status && dest) {
		if (port) {
			ofi_serve_ask_locked(ep, peer, owner->ep, 0);
			dest->served = peer;
		}
		dest->reconnect = peer->rma_reconnect;
	}
	return status;
}

static int owner_status(struct ofi_ep *ep, const struct xrma_prov_addr *owner, uint32_t port,
			struct transfer_dest *dest)
{
	int status;

	pthread_mutex_lock(&ep->lock);
	status = owner_status_locked(ep, owner, port, dest);
	pthread_mutex_unlock(&ep->lock);
	return status;
}

/*
 * An asynchronous post to r: its owner checked (owner_status) and, unless the
 * post must run synchronously (dest->reconnect: *out stays NULL), its record
 * on the live list with the poster's share of pending, under one hold of the
 * endpoint's lock. The record is a spare one when there is one (its lock and
 * condition stay initialised; spares hold no registrations, so only posts
 * that make none, tmp 0, take them), else a new one.
 */
static int async_start(struct ofi_ep *ep, struct ofi_rmem *r, size_t tmp, void (*done)(void *, int),
		       void *arg, struct transfer_dest *dest, struct rma_wait_ext **out)
{
	struct rma_wait_ext *x = NULL;
	int ret;

	*out = NULL;
	pthread_mutex_lock(&ep->lock);
	ret = owner_status_locked(ep, &r->owner, r->key.rma_port, dest);
	if (ret || dest->reconnect) {
		pthread_mutex_unlock(&ep->lock);
		return ret == -XRMA_ELOST || !ret ? ret : -XRMA_ETRANSFER;
	}
	if (!tmp && ep->rma_spare) {
		x = (struct rma_wait_ext *)ep->rma_spare;
		ep->rma_spare = x->w.live_next;
		ep->rma_spare_count--;
		atomic_store_explicit(&x->w.status, 0, memory_order_relaxed);
		x->w.abandoned = false;
		x->w.on_control = false;
		x->w.single = false;
		x->w.served = NULL;
		x->operand = x->compare = x->result = 0;
	}
	if (!x) {
		pthread_mutex_unlock(&ep->lock);
		x = wait_new(tmp);
		if (!x)
			return -XRMA_ENOMEM;
		pthread_mutex_lock(&ep->lock);
	}
	x->w.done = done;
	x->w.arg = arg;
	x->w.owner = r->owner;
	x->w.reported = false;
	x->w.lost_ns = 0;
	/*
	 * Our own share of pending: no completion can finish the record while we
	 * post (of a one-chunk transfer, the chunk's: rma_start). Nothing else
	 * sees the record before a post, whose libfabric locks publish this.
	 */
	atomic_store_explicit(&x->w.pending, 1, memory_order_relaxed);
	x->w.live_prev = NULL;
	x->w.live_next = ep->rma_live;
	if (ep->rma_live)
		ep->rma_live->live_prev = &x->w;
	ep->rma_live = &x->w;
	pthread_mutex_unlock(&ep->lock);
	*out = x;
	return 0;
}

/* A transfer to owner completed: what the node's address leads to is owner's own connection. */
static void owner_proven(struct ofi_ep *ep, const struct xrma_prov_addr *owner)
{
	struct ofi_peer *peer;

	pthread_mutex_lock(&ep->lock);
	peer = ofi_peer_find(ep, owner->node);
	if (peer && peer->ep == owner->ep)
		peer->rma_reconnect = false;
	pthread_mutex_unlock(&ep->lock);
}

/*
 * Wait for every posted chunk (an atomic's result into *result, if asked),
 * also when the owner is lost: what the chunks name is libfabric's until they
 * complete. Frees x unless it must outlive us (a provider that never gives
 * back a lost owner's operations).
 */
static int wait_all(struct ofi_ep *ep, struct rma_wait_ext *x, const struct xrma_prov_addr *owner,
		    uint64_t *result)
{
	struct ofi_rma_wait *w = &x->w;
	uint64_t lost_ns = 0;   /* when the owner was seen gone */
	int status;

	ofi_drive(ep, true);
	for (int spin = 0; spin < OFI_SPIN && atomic_load(&w->pending); spin++)
		w->on_control ? ofi_cq_poll(ep) : ofi_rma_cq_poll(ep);
	ofi_drive(ep, false);
	pthread_mutex_lock(&w->lock);
	while (atomic_load(&w->pending)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += WAIT_SLICE_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->cond, &w->lock, &ts);
		if (!atomic_load(&w->pending))
			break;
		if (!lost_ns && owner_status(ep, owner, 0, NULL)) {
			/*
			 * The owner is gone, but a stopped process still holds our
			 * requests and may answer them: libfabric owns the buffers and
			 * this record until it gives them back. Removing the owner's
			 * address has it do so now, as error completions.
			 */
			lost_ns = ofi_now_ns();
			pthread_mutex_unlock(&w->lock);
			ofi_av_purge(ep);
			w->on_control ? ofi_cq_poll(ep) : ofi_rma_cq_poll(ep);
			pthread_mutex_lock(&w->lock);
			continue;
		}
		if (lost_ns && ofi_now_ns() - lost_ns > (uint64_t)ep->liveness_ms * 1000000ull) {
			/* A provider that keeps them for ever: the last completion, if any, frees. */
			w->abandoned = true;
			pthread_mutex_unlock(&w->lock);
			return -XRMA_ELOST;
		}
		if (lost_ns) {
			pthread_mutex_unlock(&w->lock);
			w->on_control ? ofi_cq_poll(ep) : ofi_rma_cq_poll(ep);
			pthread_mutex_lock(&w->lock);
		}
	}
	status = lost_ns ? -XRMA_ELOST : w->status;
	if (result)
		*result = x->result;
	pthread_mutex_unlock(&w->lock);
	wait_free(x);
	/* Failed because the owner's address was removed (ofi_av_purge): the owner is what was lost. */
	if (status && status != -XRMA_ELOST && owner_status(ep, owner, 0, NULL))
		status = -XRMA_ELOST;
	return status;
}

/* A local descriptor for one piece, recording a registration made for the call. */
static int piece_desc(struct ofi_ep *ep, struct rma_wait_ext *x, void *addr, size_t len, void **desc)
{
	struct fid_mr *tmp = NULL;
	int ret = ofi_mem_local_desc(ep, addr, len, desc, &tmp);

	if (!ret && tmp)
		x->tmp[x->tmp_count++] = tmp;
	return ret;
}

/*
 * After a post refused with -FI_EAGAIN: progress, and give up once the owner
 * is known gone or the refusals outlast the liveness timeout (a dead peer's
 * connection is retried by libfabric for ever).
 */
static int post_retry(struct ofi_ep *ep, const struct xrma_prov_addr *owner, bool on_control,
		      unsigned int tries, uint64_t *since)
{
	on_control ? ofi_cq_poll(ep) : ofi_rma_cq_poll(ep);
	if (tries % POST_CHECK_EVERY)
		return 0;
	if (!*since)
		*since = ofi_now_ns();
	if (owner_status(ep, owner, 0, NULL))
		return -XRMA_ELOST;
	if (ofi_now_ns() - *since > (uint64_t)ep->liveness_ms * 1000000ull)
		return -XRMA_ETRANSFER;
	return 0;
}

/*
 * A post counts itself before it looks whether the progress thread sleeps,
 * and the thread announces its sleep before it looks at the count one last
 * time (progress_main), so one of the two sees the other. The poster reads
 * no clock: the thread times the post when it sees the count move.
 */
void ofi_rma_posting(struct ofi_ep *ep, struct ofi_peer *served)
{
	if (served)
		atomic_fetch_add_explicit(&served->rma_inflight, 1, memory_order_relaxed);
	atomic_fetch_add(&ep->rma_posted, 1);
	if (ep->rma_separate && atomic_load(&ep->progress_asleep))
		ofi_progress_kick(ep);
}

void ofi_rma_ended(struct ofi_ep *ep, struct ofi_peer *served, unsigned int n)
{
	if (served)
		atomic_fetch_sub_explicit(&served->rma_inflight, (int)n, memory_order_relaxed);
	atomic_fetch_add_explicit(&ep->rma_ended, n, memory_order_relaxed);
}

int ofi_rma_inflight(const struct ofi_ep *ep)
{
	unsigned int ended = atomic_load_explicit(&ep->rma_ended, memory_order_relaxed);
	int diff = (int)(atomic_load_explicit(&ep->rma_posted, memory_order_relaxed) - ended);

	/* Read apart, the two may cross for a moment: a completion seen before its post. */
	return diff > 0 ? diff : 0;
}

/*
 * A peer that went away may have left the initiator endpoint a connection to
 * its address, which libfabric notices closed only while polling that
 * endpoint; a transfer to the node's next incarnation posted on it would be
 * cancelled, or find it not connected. So for OFI_DEPARTED_POLL_NS after a
 * departure the progress thread polls the endpoint (progress_main), and until
 * a transfer to the node has completed (ofi_peer.rma_reconnect) the endpoint
 * is polled before each post to it, asynchronous transfers to it run
 * synchronously (ofi_rma_post), and a synchronous one that fails all the same
 * is posted again (rma_run).
 */
static void poll_after_departure(struct ofi_ep *ep)
{
	for (int i = 0; i < REFRESH_POLLS; i++)
		ofi_rma_cq_poll(ep);
}

/*
 * Hold off ofi_av_purge while posting to dest->addr, and make sure the
 * address is still in the AV: if some peer's entries were doomed since it was
 * read, the owner must still be live (a lost owner's are the doomed ones).
 * 0 with the guard held, or XRMA_ELOST without it.
 */
static int post_guard(struct ofi_ep *ep, const struct xrma_prov_addr *owner,
		      const struct transfer_dest *dest)
{
	ofi_post_guard(ep);
	if (atomic_load(&ep->av_epoch) != dest->av_epoch && owner_status(ep, owner, 0, NULL)) {
		ofi_post_unguard(ep);
		return -XRMA_ELOST;
	}
	return 0;
}

/* Post one chunk, retrying (bounded) while the provider asks for progress. */
static int post_chunk(struct ofi_ep *ep, const struct xrma_prov_addr *owner,
		      const struct transfer_dest *dest, enum xrma_rma_op op, struct fi_msg_rma *msg)
{
	struct ofi_peer *served = dest->served;
	uint64_t since = 0;

	ofi_rma_posting(ep, served);
	for (unsigned int tries = 1;; tries++) {
		ssize_t ret;
		int gave_up = post_guard(ep, owner, dest);

		if (gave_up) {
			ofi_rma_ended(ep, served, 1);
			return gave_up;
		}
		ret = op == XRMA_RMA_WRITE
			      ? fi_writemsg(ep->rma_ep, msg, FI_COMPLETION | FI_DELIVERY_COMPLETE)
			      : fi_readmsg(ep->rma_ep, msg, FI_COMPLETION);
		ofi_post_unguard(ep);
		if (!ret)
			return 0;
		gave_up = ret == -FI_EAGAIN ? post_retry(ep, owner, false, tries, &since)
					    : ofi_error((int)ret);
		if (gave_up) {
			ofi_rma_ended(ep, served, 1);
			return gave_up;
		}
	}
}

/* The most local pieces one chunk gathers. */
static size_t chunk_pieces(const struct ofi_ep *ep)
{
	if (ep->mr_mode & FI_MR_LOCAL)
		return 1;
	return ep->iov_limit < 8 ? ep->iov_limit : 8;
}

/* Whether rma_start posts [count pieces, total bytes] as one chunk. */
static bool one_chunk(const struct ofi_ep *ep, size_t count, size_t total)
{
	return count <= chunk_pieces(ep) && total <= ep->max_chunk;
}

/*
 * Post [offset, offset+total) of the remote range against the local vector on
 * x, in chunks; each chunk adds one to pending, except a first that the
 * caller's share stands for (first_counted: a one-chunk transfer, whose share
 * then stays the caller's to give up if its post fails). The first failed
 * post stops.
 */
static int rma_start(struct ofi_ep *ep, enum xrma_rma_op op, struct ofi_rmem *r,
		     const struct transfer_dest *dest, size_t offset, const struct iovec *iov,
		     size_t count, size_t total, struct rma_wait_ext *x, bool first_counted)
{
	bool local = (ep->mr_mode & FI_MR_LOCAL) != 0;
	size_t piece = 0, piece_off = 0, done = 0;
	int ret = 0;

	x->w.served = dest->served;
	while (done < total && !ret) {
		struct iovec chunk[8];
		void *desc[8] = { NULL };
		size_t n = 0, bytes = 0, limit = chunk_pieces(ep);
		bool counted = first_counted && !done;
		struct fi_rma_iov rma;
		struct fi_msg_rma msg;

		/* Gather up to limit pieces and max_chunk bytes. */
		while (n < limit && bytes < ep->max_chunk && done + bytes < total) {
			size_t take = iov[piece].iov_len - piece_off;

			if (take > ep->max_chunk - bytes)
				take = ep->max_chunk - bytes;
			if (take > total - done - bytes)
				take = total - done - bytes;
			chunk[n].iov_base = (char *)iov[piece].iov_base + piece_off;
			chunk[n].iov_len = take;
			if (local && (ret = piece_desc(ep, x, chunk[n].iov_base, take, &desc[n])))
				break;
			n++;
			bytes += take;
			piece_off += take;
			if (piece_off == iov[piece].iov_len) {
				piece++;
				piece_off = 0;
				if (piece == count)
					break;
			}
		}
		if (ret || !n)
			break;
		rma = (struct fi_rma_iov){ .addr = r->key.base + offset + done, .len = bytes,
					   .key = r->key.mr_key };
		msg = (struct fi_msg_rma){ .msg_iov = chunk, .desc = desc, .iov_count = n,
					   .addr = dest->addr, .rma_iov = &rma, .rma_iov_count = 1,
					   .context = &x->w.op };
		if (!counted)
			atomic_fetch_add(&x->w.pending, 1);
		ret = post_chunk(ep, &r->owner, dest, op, &msg);
		if (ret && !counted)
			atomic_fetch_sub(&x->w.pending, 1);
		done += bytes;
	}
	return ret;
}

static size_t tmp_max(const struct ofi_ep *ep, size_t count)
{
	return (ep->mr_mode & FI_MR_LOCAL) ? count + 1 : 0;
}

/*
 * Whether a synchronous transfer that failed with ret is posted again: its
 * owner lives, and the failure is what a connection closed under it gives
 * (poll_after_departure). Cancelled, always; not connected (XRMA_ELOST from
 * libfabric), only while a gone incarnation's connection may be the one met:
 * once a transfer to the node has completed, that means the owner's own broke.
 */
static bool repost_wanted(struct ofi_ep *ep, const struct xrma_prov_addr *owner, int ret,
			  bool reconnect)
{
	if (!ep->rma_separate || (ret != -XRMA_ECANCELED && !(ret == -XRMA_ELOST && reconnect)))
		return false;
	return owner_status(ep, owner, 0, NULL) == 0;
}

/*
 * The synchronous transfer: post, then wait for every chunk. One that met a
 * closed connection goes again (repost_wanted): libfabric may take a while to
 * notice the close (ofi_rxm handles connection events at intervals), for at
 * most the liveness timeout.
 */
static int rma_run(struct ofi_ep *ep, enum xrma_rma_op op, struct ofi_rmem *r,
		   const struct transfer_dest *dest, size_t offset, const struct iovec *iov,
		   size_t count, size_t total)
{
	bool reconnect = dest->reconnect;
	uint64_t give_up = 0;

	for (;;) {
		struct rma_wait_ext *x = wait_new(tmp_max(ep, count));
		uint64_t now;
		int ret;

		if (!x)
			return -XRMA_ENOMEM;
		if (reconnect)
			poll_after_departure(ep);
		ret = rma_start(ep, op, r, dest, offset, iov, count, total, x, false);
		if (ret) {
			/* What was posted must still complete before the record can go. */
			int waited = wait_all(ep, x, &r->owner, NULL);

			if (waited == -XRMA_ELOST)
				ret = waited;
		} else {
			ret = wait_all(ep, x, &r->owner, NULL);
		}
		/* The test-only libraries' stand-in for meeting the old connection (test_faults_ofi). */
		if (!ret && reconnect && !give_up && ofi_fail_point("ofi.rma.old_connection"))
			ret = -XRMA_ELOST;
		if (!ret && reconnect)
			owner_proven(ep, &r->owner);
		if (!ret || !repost_wanted(ep, &r->owner, ret, reconnect))
			return ret;
		now = ofi_now_ns();
		if (!give_up)
			give_up = now + (uint64_t)ep->liveness_ms * 1000000ull;
		else if (now > give_up)
			return ret;
		poll_after_departure(ep);
	}
}

/* Cut a vector at byte at: what lies before into head, the rest into tail. */
static void split_iov(const struct iovec *iov, size_t count, size_t at, struct iovec *head,
		      size_t *nh, struct iovec *tail, size_t *nt)
{
	*nh = *nt = 0;
	for (size_t i = 0; i < count; i++) {
		size_t len = iov[i].iov_len, cut = at < len ? at : len;

		if (cut)
			head[(*nh)++] = (struct iovec){ iov[i].iov_base, cut };
		if (len > cut)
			tail[(*nt)++] = (struct iovec){ (char *)iov[i].iov_base + cut, len - cut };
		at -= cut;
	}
}

/*
 * The synchronous transfer once the owner was checked (owner_status): an
 * ordered write the provider cannot order goes in two runs.
 */
static int rma_sync(struct ofi_ep *ep, enum xrma_rma_op op, struct ofi_rmem *r,
		    const struct transfer_dest *dest, size_t offset, const struct iovec *iov,
		    size_t count, size_t total, uint32_t flags)
{
	if (op == XRMA_RMA_WRITE && (flags & XRMA_RMA_ORDERED) && !ep->waw_ordered &&
	    total > ORDERED_TAIL) {
		/* The body first; once it is delivered, the last bytes. */
		struct iovec *head = malloc(2 * count * sizeof(*head)), *tail = head + count;
		struct transfer_dest proven = *dest;   /* the tail follows a delivered body */
		size_t n = 0, t = 0;
		int ret;

		if (!head)
			return -XRMA_ENOMEM;
		split_iov(iov, count, total - ORDERED_TAIL, head, &n, tail, &t);
		ret = rma_run(ep, op, r, dest, offset, head, n, total - ORDERED_TAIL);
		proven.reconnect = false;
		if (!ret)
			ret = rma_run(ep, op, r, &proven, offset + total - ORDERED_TAIL, tail, t,
				      ORDERED_TAIL);
		free(head);
		return transfer_status(ret);
	}
	return transfer_status(rma_run(ep, op, r, dest, offset, iov, count, total));
}

int ofi_rma(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
	    const struct iovec *iov, size_t count, uint32_t flags)
{
	struct ofi_ep *ep = state;
	struct ofi_rmem *r = (struct ofi_rmem *)rmem;
	struct transfer_dest dest;
	size_t total = 0;
	int ret;

	if (!r || (!iov && count) || (op != XRMA_RMA_WRITE && op != XRMA_RMA_READ))
		return -XRMA_EINVAL;
	for (size_t i = 0; i < count; i++)
		total += iov[i].iov_len;
	if (!total)
		return 0;
	if (offset > r->len || total > r->len - offset)
		return -XRMA_ERANGE;
	ret = owner_status(ep, &r->owner, r->key.rma_port, &dest);
	if (ret)
		return ret == -XRMA_ELOST ? ret : -XRMA_ETRANSFER;
	return rma_sync(ep, op, r, &dest, offset, iov, count, total, flags);
}

int ofi_rma_post(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
		 const struct iovec *iov, size_t count, uint32_t flags,
		 void (*done)(void *arg, int status), void *arg)
{
	struct ofi_ep *ep = state;
	struct ofi_rmem *r = (struct ofi_rmem *)rmem;
	struct rma_wait_ext *x;
	struct transfer_dest dest;
	size_t total = 0;
	bool one;
	int ret;

	if (!r || !done || (!iov && count) || (op != XRMA_RMA_WRITE && op != XRMA_RMA_READ))
		return -XRMA_EINVAL;
	for (size_t i = 0; i < count; i++)
		total += iov[i].iov_len;
	if (offset > r->len || total > r->len - offset)
		return -XRMA_ERANGE;
	/* Run here, to its end: an ordered write's tail must wait for its body's delivery. */
	if (!total || (op == XRMA_RMA_WRITE && (flags & XRMA_RMA_ORDERED) && !ep->waw_ordered &&
		       total > ORDERED_TAIL)) {
		done(arg, ofi_rma(state, op, rmem, offset, iov, count, flags));
		return 0;
	}
	ret = async_start(ep, r, tmp_max(ep, count), done, arg, &dest, &x);
	if (ret)
		return ret;
	/* So too when it may meet a gone incarnation's connection: only rma_run posts past that. */
	if (!x) {
		done(arg, rma_sync(ep, op, r, &dest, offset, iov, count, total, flags));
		return 0;
	}
	one = one_chunk(ep, count, total);
	x->w.single = one;
	ret = rma_start(ep, op, r, &dest, offset, iov, count, total, x, one);
	/* Posted, a one-chunk transfer is its completion's: x may be gone already. */
	if (!one || ret)
		ofi_rma_complete(ep, &x->w, ret, NULL);
	return 0;
}

int ofi_rma_progress(void *state)
{
	return ofi_rma_cq_poll(state);
}

int ofi_atomic(void *state, struct xrma_prov_rmem *rmem, size_t offset, enum xrma_atomic_op op,
	       uint64_t operand, uint64_t compare, uint64_t *old)
{
	struct ofi_ep *ep = state;
	struct ofi_rmem *r = (struct ofi_rmem *)rmem;
	struct rma_wait_ext *x;
	void *desc[3] = { NULL };
	uint64_t raddr, since = 0;
	struct fid_ep *aep;
	struct transfer_dest dest;
	enum fi_op fop;
	ssize_t sret;
	int ret, gave_up = 0;

	if (!ep->atomics)
		return -XRMA_ENOTSUP;
	if (!r || !old || offset % 8 || offset > r->len || r->len - offset < 8)
		return -XRMA_EINVAL;
	switch (op) {
	case XRMA_ATOMIC_FETCH_ADD: fop = FI_SUM; break;
	case XRMA_ATOMIC_SWAP: fop = FI_ATOMIC_WRITE; break;
	case XRMA_ATOMIC_READ: fop = FI_ATOMIC_READ; break;
	case XRMA_ATOMIC_CSWAP: fop = FI_CSWAP; break;
	default: return -XRMA_EINVAL;
	}
	/* Atomics go to the control endpoint: the target endpoint may lack them (ofi.h). */
	ret = owner_status(ep, &r->owner, 0, &dest);
	if (ret)
		return ret == -XRMA_ELOST ? ret : -XRMA_ETRANSFER;
	x = wait_new(3);
	if (!x)
		return -XRMA_ENOMEM;
	/* The operands live in the wait record: it outlives us if the owner is lost. */
	x->operand = operand;
	x->compare = compare;
	if ((ret = piece_desc(ep, x, &x->operand, 24, &desc[0]))) {
		wait_free(x);
		return ret;
	}
	desc[1] = desc[2] = desc[0];
	raddr = r->key.base + offset;
	x->w.on_control = ep->atomics_on_control;
	aep = x->w.on_control ? ep->ep : ep->rma_ep;
	if (!x->w.on_control) {
		/* Never posted again (it may have taken effect): give libfabric its chance first. */
		if (dest.reconnect)
			poll_after_departure(ep);
		ofi_rma_posting(ep, NULL);
	}
	atomic_store(&x->w.pending, 1);
	for (unsigned int tries = 1;; tries++) {
		if ((gave_up = post_guard(ep, &r->owner, &dest))) {
			sret = -FI_ENOTCONN;
			break;
		}
		if (fop == FI_CSWAP)
			sret = fi_compare_atomic(aep, &x->operand, 1, desc[0], &x->compare, desc[1],
						 &x->result, desc[2], dest.addr, raddr, r->key.mr_key,
						 FI_UINT64, fop, &x->w.op);
		else
			sret = fi_fetch_atomic(aep, &x->operand, 1, desc[0], &x->result, desc[2],
					       dest.addr, raddr, r->key.mr_key, FI_UINT64, fop, &x->w.op);
		ofi_post_unguard(ep);
		if (sret != -FI_EAGAIN)
			break;
		gave_up = post_retry(ep, &r->owner, x->w.on_control, tries, &since);
		if (gave_up)
			break;
	}
	if (sret) {
		if (!x->w.on_control)
			ofi_rma_ended(ep, NULL, 1);
		wait_free(x);
		return gave_up ? gave_up : transfer_status(ofi_error((int)sret));
	}
	ret = wait_all(ep, x, &r->owner, old);
	if (!ret && dest.reconnect && aep == ep->rma_ep)
		owner_proven(ep, &r->owner);
	return transfer_status(ret);
}
