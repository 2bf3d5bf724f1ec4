/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_rma.c: moving data on the host fabric.
 *
 * Three paths, chosen per import:
 *  - memfd memory is mapped whole at import, so a transfer is a memcpy into
 *    the shared pages (tens of nanoseconds for a cache line);
 *  - registered memory is reached by cross-memory attach: one
 *    process_vm_writev/readv call per transfer, bracketed by the export's
 *    in-flight count so the owner can withdraw it safely;
 *  - where cross-memory attach is denied (ptrace rules, containers) or turned
 *    off (host.cma = off), the owner copies: the importer stages up to 1 MiB in
 *    a shared buffer and asks the owner's service thread over a connection of
 *    its own to copy it in or out. Atomics on registered memory go this way too.
 * Stores into the shared pages are published with the last eight bytes written
 * after a release fence, so a peer polling a flag at the end sees whole data.
 */
#include "providers/util/hostfab.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include "common/futex.h"
#include "providers/prov_atomic.h"

#define HOSTFAB_STAGE_TIMEOUT_MS 10000

enum hostfab_stage_kind { STAGE_READ = 1, STAGE_WRITE, STAGE_ATOMIC };

struct hostfab_stage_op {
	struct hostfab_hdr hdr;
	uint32_t kind;             /* hostfab_stage_kind */
	uint32_t atomic_op;
	uint64_t offset;
	uint64_t len;
	uint64_t operand;
	uint64_t compare;
};

struct hostfab_stage_done {
	struct hostfab_hdr hdr;
	int32_t status;
	uint32_t pad;
	uint64_t old;
};

/*
 * Copy the transfer's bytes [from, to) between the vector and remote, where
 * remote holds the transfer's bytes from base on.
 */
static void vec_copy(enum xrma_rma_op op, unsigned char *remote, size_t base, const struct iovec *iov,
		     size_t count, size_t from, size_t to)
{
	size_t pos = 0;

	for (size_t i = 0; i < count && pos < to; i++) {
		size_t start = pos, end = pos + iov[i].iov_len, a, b;
		unsigned char *local;

		pos = end;
		if (end <= from)
			continue;
		a = start > from ? start : from;
		b = end < to ? end : to;
		local = (unsigned char *)iov[i].iov_base + (a - start);
		if (op == XRMA_RMA_WRITE)
			memcpy(remote + (a - base), local, b - a);
		else
			memcpy(local, remote + (a - base), b - a);
	}
}

static size_t vec_total(const struct iovec *iov, size_t count)
{
	size_t total = 0;

	for (size_t i = 0; i < count; i++)
		total += iov[i].iov_len;
	return total;
}

static int rma_mapped(enum xrma_rma_op op, struct hostfab_rmem *r, size_t offset,
		      const struct iovec *iov, size_t count, size_t total)
{
	unsigned char *remote = r->base + offset;
	size_t tail = total < 8 ? total : 8;

	vec_copy(op, remote, 0, iov, count, 0, total - tail);
	XRMA_KILL_POINT("hostfab.rma.mid_copy");
	xrma_prov_release_fence();
	vec_copy(op, remote, 0, iov, count, total - tail, total);
	xrma_prov_full_fence();
	return 0;
}

/* Cross-memory attach. 1: denied (use the staging path), 0, or a negative code. */
static int rma_cma(enum xrma_rma_op op, struct hostfab_rmem *r, size_t offset,
		   const struct iovec *iov, size_t count)
{
	struct hostfab_dir_export *e = &r->odir->dir->exports[r->key.index];
	size_t done_vec = 0, moved = 0;
	int ret = 0;

	if (!r->odir->writable)
		return 1;   /* we cannot count ourselves in: let the owner copy */
	atomic_fetch_add_explicit(&e->active, 1, memory_order_seq_cst);
	XRMA_KILL_POINT("hostfab.rma.cma_counted");
	if (__atomic_load_n(&e->state, __ATOMIC_SEQ_CST) != HOSTFAB_EXPORT_LIVE ||
	    __atomic_load_n(&e->gen, __ATOMIC_RELAXED) != r->key.gen) {
		ret = hostfab_dir_ep_live(NULL, r->odir, r->owner.ep) ? -XRMA_ETRANSFER : -XRMA_ELOST;
		goto out;
	}
	while (done_vec < count && !ret) {
		size_t n = count - done_vec < IOV_MAX ? count - done_vec : IOV_MAX;
		size_t len = vec_total(iov + done_vec, n);
		struct iovec remote = {
			.iov_base = (void *)(uintptr_t)(r->key.addr + offset + moved),
			.iov_len = len,
		};
		ssize_t got;

		got = op == XRMA_RMA_WRITE
			      ? process_vm_writev((pid_t)r->key.pid, iov + done_vec, n, &remote, 1, 0)
			      : process_vm_readv((pid_t)r->key.pid, iov + done_vec, n, &remote, 1, 0);
		if (got < 0) {
			if (errno == EPERM || errno == ENOSYS)
				ret = moved ? -XRMA_ETRANSFER : 1;
			else if (errno == ESRCH)
				ret = -XRMA_ELOST;
			else
				ret = -XRMA_ETRANSFER;
		} else if ((size_t)got != len) {
			ret = -XRMA_ETRANSFER;
		}
		moved += len;
		done_vec += n;
	}
out:
	if (atomic_fetch_sub_explicit(&e->active, 1, memory_order_seq_cst) == 1 &&
	    __atomic_load_n(&e->state, __ATOMIC_SEQ_CST) == HOSTFAB_EXPORT_REVOKED)
		xrma_futex_wake_all(&e->active);
	return ret;
}

/* Open the staging channel of r (under r->stage_lock). */
static int stage_open(struct hostfab_ep *ep, struct hostfab_rmem *r)
{
	int conn = -1, mfd = -1, ret;

	if (r->stage)
		return 0;
	ret = hostfab_mem_request(ep, &r->owner, &r->key, HOSTFAB_MSG_STAGE, r->access, &conn, &mfd, NULL);
	if (ret)
		return ret;
	r->stage = mmap(NULL, HOSTFAB_STAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	close(mfd);
	if (r->stage == MAP_FAILED) {
		r->stage = NULL;
		close(conn);
		return -XRMA_ENOMEM;
	}
	r->stage_fd = conn;
	return 0;
}

/* One staged request and its answer (under r->stage_lock). */
static int stage_call(struct hostfab_ep *ep, struct hostfab_rmem *r, struct hostfab_stage_op *op,
		      uint64_t *old)
{
	struct hostfab_stage_done done;
	int ret;

	op->hdr.kind = HOSTFAB_MSG_STAGE_OP;
	op->hdr.node = ep->self.node;
	op->hdr.ep = ep->self.ep;
	ret = hostfab_pkt_send(r->stage_fd, op, sizeof(*op), -1);
	if (!ret)
		ret = hostfab_pkt_recv(r->stage_fd, &done, sizeof(done), NULL, HOSTFAB_STAGE_TIMEOUT_MS);
	if (ret == -XRMA_ETIMEDOUT || ret == -XRMA_EIO)
		ret = -XRMA_ETRANSFER;
	if (ret < 0)
		return ret;
	if ((size_t)ret < sizeof(done))
		return -XRMA_ETRANSFER;
	if (old)
		*old = done.old;
	return done.status;
}

static int rma_staged(struct hostfab_ep *ep, enum xrma_rma_op op, struct hostfab_rmem *r,
		      size_t offset, const struct iovec *iov, size_t count, size_t total)
{
	int ret;

	pthread_mutex_lock(&r->stage_lock);
	ret = stage_open(ep, r);
	for (size_t pos = 0; !ret && pos < total;) {
		size_t chunk = total - pos < HOSTFAB_STAGE_SIZE ? total - pos : HOSTFAB_STAGE_SIZE;
		struct hostfab_stage_op req = {
			.kind = op == XRMA_RMA_WRITE ? STAGE_WRITE : STAGE_READ,
			.offset = offset + pos,
			.len = chunk,
		};

		/* The staging buffer stands for the remote bytes [pos, pos + chunk). */
		if (op == XRMA_RMA_WRITE)
			vec_copy(op, r->stage, pos, iov, count, pos, pos + chunk);
		ret = stage_call(ep, r, &req, NULL);
		if (!ret && op == XRMA_RMA_READ)
			vec_copy(op, r->stage, pos, iov, count, pos, pos + chunk);
		pos += chunk;
	}
	pthread_mutex_unlock(&r->stage_lock);
	return ret;
}

/* The modelled link of either end is down: transfers fail until it is back. */
static bool link_down(struct hostfab_ep *ep, struct hostfab_rmem *r)
{
	if (__atomic_load_n(&r->odir->dir->link_down, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&ep->own->dir->link_down, __ATOMIC_ACQUIRE)) {
		hostfab_detail("%s: the link between node %u and node %u is down", ep->model->name,
			       ep->self.node, r->owner.node);
		return true;
	}
	return false;
}

/* A transfer; may_wait false: -XRMA_EAGAIN, nothing moved, where only the owner's copy would do. */
static int rma_run(struct hostfab_ep *ep, enum xrma_rma_op op, struct hostfab_rmem *r, size_t offset,
		   const struct iovec *iov, size_t count, bool may_wait)
{
	size_t total;
	int ret;

	if (!ep || !r || (!iov && count) || (op != XRMA_RMA_READ && op != XRMA_RMA_WRITE))
		return -XRMA_EINVAL;
	total = vec_total(iov, count);
	if (offset > r->len || r->len - offset < total)
		return -XRMA_ERANGE;
	if (!total)
		return 0;
	if (link_down(ep, r))
		return -XRMA_ETRANSFER;
	if (r->base)
		return rma_mapped(op, r, offset, iov, count, total);
	if (ep->cma && !atomic_load_explicit(&r->cma_denied, memory_order_relaxed)) {
		ret = rma_cma(op, r, offset, iov, count);
		if (ret != 1)
			return ret;
		atomic_store_explicit(&r->cma_denied, true, memory_order_relaxed);
	}
	if (!may_wait)
		return -XRMA_EAGAIN;
	return rma_staged(ep, op, r, offset, iov, count, total);
}

int hostfab_rma(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
		const struct iovec *iov, size_t count, uint32_t flags)
{
	(void)flags;   /* one thread copies in order: ORDERED holds already */
	return rma_run(state, op, (struct hostfab_rmem *)rmem, offset, iov, count, true);
}

int hostfab_rma_try(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
		    const struct iovec *iov, size_t count, uint32_t flags)
{
	/* A shared mapping or one cross-memory attach call waits for nobody; staging waits for the owner. */
	(void)flags;
	return rma_run(state, op, (struct hostfab_rmem *)rmem, offset, iov, count, false);
}

int hostfab_atomic(void *state, struct xrma_prov_rmem *rmem, size_t offset, enum xrma_atomic_op op,
		   uint64_t operand, uint64_t compare, uint64_t *old)
{
	struct hostfab_ep *ep = state;
	struct hostfab_rmem *r = (struct hostfab_rmem *)rmem;
	struct hostfab_stage_op req;
	int ret;

	if (!ep || !r)
		return -XRMA_EINVAL;
	ret = xrma_prov_atomic_check(r->len, offset, op, old);
	if (ret)
		return ret;
	if (link_down(ep, r))
		return -XRMA_ETRANSFER;
	if (r->base) {
		*old = xrma_prov_atomic_apply((uint64_t *)(r->base + offset), op, operand, compare);
		return 0;
	}
	if ((r->key.addr + offset) % sizeof(uint64_t))
		return -XRMA_EALIGN_OFFSET;
	req = (struct hostfab_stage_op){
		.kind = STAGE_ATOMIC,
		.atomic_op = op,
		.offset = offset,
		.len = sizeof(uint64_t),
		.operand = operand,
		.compare = compare,
	};
	pthread_mutex_lock(&r->stage_lock);
	ret = stage_open(ep, r);
	if (!ret)
		ret = stage_call(ep, r, &req, old);
	pthread_mutex_unlock(&r->stage_lock);
	return ret;
}

int hostfab_map(void *state, struct xrma_prov_rmem *rmem, size_t offset, size_t len, uint32_t prot,
		void **addr)
{
	struct hostfab_ep *ep = state;
	struct hostfab_rmem *r = (struct hostfab_rmem *)rmem;
	int mprot = 0;
	void *p;

	if (!ep || !r || !len || !addr)
		return -XRMA_EINVAL;
	if (r->mem_fd < 0) {
		hostfab_detail("%s: this registered memory is on no file another process can map "
			       "(mixed, unreadable or unaligned pages)", ep->model->name);
		return -XRMA_ENOTSUP;
	}
	if (offset > r->map_len || r->map_len - offset < len)
		return -XRMA_ERANGE;
	if (prot & XRMA_MAP_READ)
		mprot |= PROT_READ;
	if (prot & XRMA_MAP_WRITE)
		mprot |= PROT_WRITE;
	p = mmap(NULL, len, mprot ? mprot : PROT_READ, MAP_SHARED, r->mem_fd, (off_t)(r->file_offset + offset));
	if (p == MAP_FAILED)
		return errno == EACCES ? -XRMA_EACCES : -XRMA_ENOMEM;
	*addr = p;
	return 0;
}

void hostfab_unmap(void *state, struct xrma_prov_rmem *rmem, void *addr, size_t len)
{
	(void)state;
	(void)rmem;
	if (addr)
		munmap(addr, len);
}

/* ---- the owner's side of a staging channel ---- */

void hostfab_stage_serve(struct hostfab_ep *ep, struct hostfab_conn *conn, const void *pkt,
			 size_t len)
{
	struct hostfab_stage_op req;
	struct hostfab_stage_done done = {
		.hdr = { .kind = HOSTFAB_MSG_STAGE_DONE, .node = ep->self.node, .ep = ep->self.ep },
	};
	struct hostfab_mem *m;

	if (len < sizeof(req))
		return;
	memcpy(&req, pkt, sizeof(req));
	/* Held across the copy: the caller's pages stay registered meanwhile. */
	pthread_mutex_lock(&ep->lock);
	m = hostfab_mem_find_locked(ep, conn->stage_index, conn->stage_gen, 0);
	if (!m || m->kind != HOSTFAB_MEM_USER)
		done.status = -XRMA_ETRANSFER;
	else if (req.offset > m->len || m->len - req.offset < req.len || req.len > HOSTFAB_STAGE_SIZE)
		done.status = -XRMA_ERANGE;
	else if (req.kind == STAGE_WRITE)
		memcpy((unsigned char *)m->addr + req.offset, conn->stage_buf, req.len);
	else if (req.kind == STAGE_READ)
		memcpy(conn->stage_buf, (unsigned char *)m->addr + req.offset, req.len);
	else if (req.kind == STAGE_ATOMIC && req.len == sizeof(uint64_t) &&
		 req.atomic_op >= XRMA_ATOMIC_FETCH_ADD && req.atomic_op <= XRMA_ATOMIC_READ)
		done.old = xrma_prov_atomic_apply((uint64_t *)((unsigned char *)m->addr + req.offset),
						  (enum xrma_atomic_op)req.atomic_op, req.operand,
						  req.compare);
	else
		done.status = -XRMA_EINVAL;
	pthread_mutex_unlock(&ep->lock);
	hostfab_pkt_send(conn->fd, &done, sizeof(done), -1);
}

void hostfab_stage_release(struct hostfab_conn *conn)
{
	if (conn->stage_buf)
		munmap(conn->stage_buf, HOSTFAB_STAGE_SIZE);
	conn->stage_buf = NULL;
}
