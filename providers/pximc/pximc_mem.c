/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/pximc/pximc_mem.c: memory over PXImc windows. A segment is page-aligned shared
 * memory of the owner. An import asks the owner (IMPORT) to post a logical server window of
 * the segment's size, then pairs with it as a logical client and uses its mapped remote
 * address for loads, stores and RMA (memcpy). PXImc windows are the vendor's memory,
 * allocated at pairing, so the owner moves the segment into its new local window and maps
 * that window in place of the segment's pages (mremap of a shared mapping, same address),
 * carrying over what the owner stored meanwhile: owner and importer then share the pages.
 * A window pairs with one partner, so a segment is reachable by one other node at a time
 * (caps.max_importers 1): the owner refuses a second node's import (XRMA_ECONNREFUSED) until
 * the first lets go. docs/porting.md lists the consequences.
 */
#include "providers/pximc/pximc.h"
#include "common/peer_shared.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xrma/errors.h>

#define PXP_PAGE 4096u

struct pxp_key {
	uint64_t mem_id;
	uint64_t len;
};

static size_t pxp_pages(size_t len)
{
	return (len + PXP_PAGE - 1) & ~(size_t)(PXP_PAGE - 1);
}

/* Under p->lock. */
static struct pxp_mem *pxp_mem_find_locked(struct pxp_prov *p, uint64_t id)
{
	for (struct pxp_mem *m = p->mems; m; m = m->next)
		if (m->id == id)
			return m;
	return NULL;
}

int pxp_mem_alloc(void *state, size_t len, struct xrma_prov_mem **out, void **addr)
{
	struct pxp_prov *p = state;
	struct pxp_mem *m;

	if (!p || !len || !out || !addr)
		return -XRMA_EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -XRMA_ENOMEM;
	m->len = len;
	m->map_len = pxp_pages(len);
	/* Shared, so a window's pages can later take its place at the same address. */
	m->addr = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m->addr == MAP_FAILED) {
		free(m);
		return -XRMA_ENOMEM;
	}
	pthread_mutex_lock(&p->lock);
	m->id = p->next_mem++;
	m->next = p->mems;
	p->mems = m;
	pthread_mutex_unlock(&p->lock);
	*out = (struct xrma_prov_mem *)m;
	*addr = m->addr;
	return 0;
}

/* Close the window behind m, if any; under p->lock, waiting out a pairing in progress. */
static uint32_t pxp_mem_unhome_locked(struct pxp_prov *p, struct pxp_mem *m)
{
	uint32_t s;

	while (m->homing)
		pthread_cond_wait(&p->cond, &p->lock);
	s = m->home_session;
	m->home_session = 0;
	m->home_peer = NULL;
	return s;
}

void pxp_mem_free(void *state, struct xrma_prov_mem *mem)
{
	struct pxp_prov *p = state;
	struct pxp_mem *m = (struct pxp_mem *)mem, **pp;
	uint32_t s;

	pthread_mutex_lock(&p->lock);
	s = pxp_mem_unhome_locked(p, m);
	for (pp = &p->mems; *pp; pp = &(*pp)->next) {
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (s)
		(void)p->api.closeWindow(s);
	munmap(m->addr, m->map_len);
	free(m);
}

int pxp_mem_export(void *state, struct xrma_prov_mem *mem, uint32_t access,
		   struct xrma_prov_key *key)
{
	struct pxp_prov *p = state;
	struct pxp_mem *m = (struct pxp_mem *)mem;
	struct pxp_key k;

	(void)access;   /* the core checks rights before any transfer */
	if (!p || !m || !key)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&p->lock);
	m->exported = true;
	pthread_mutex_unlock(&p->lock);
	k.mem_id = m->id;
	k.len = m->len;
	key->len = sizeof(k);
	memcpy(key->bytes, &k, sizeof(k));
	return 0;
}

void pxp_mem_unexport(void *state, struct xrma_prov_mem *mem)
{
	struct pxp_prov *p = state;
	struct pxp_mem *m = (struct pxp_mem *)mem;
	uint32_t s;

	pthread_mutex_lock(&p->lock);
	m->exported = false;
	s = pxp_mem_unhome_locked(p, m);
	pthread_mutex_unlock(&p->lock);
	if (s)
		(void)p->api.closeWindow(s);
}

/* ------------------------------------------------------------------ the owner's side */

/* Post a server window for m to peer; its uid in *uid. */
static int pxp_mem_post(struct pxp_peer *peer, struct pxp_mem *m, uint32_t *session, uint32_t *uid)
{
	struct pxp_prov *p = peer->prov;
	tPXIMC_Status st = PXIMC_UID_CONFLICT;

	for (int tries = 0; tries < 16 && st == PXIMC_UID_CONFLICT; tries++) {
		pthread_mutex_lock(&p->lock);
		*uid = p->next_uid++;
		if (!*uid)
			*uid = p->next_uid++;
		pthread_mutex_unlock(&p->lock);
		st = p->api.requestWindowLogicalAsServer(peer->iface, PXP_PROTO_MEMORY, m->map_len,
							 m->map_len, 0, 0, *uid, NULL, 0, session);
	}
	if (st != PXIMC_SUCCESS) {
		pxp_detail("pximc: posting a %zu-byte window failed (0x%08x)", m->map_len,
			   (unsigned)st);
		return pxp_error(st);
	}
	return 0;
}

/* One line of /proc/self/maps: the range, its file offset and the file's identity. */
struct pxp_vma {
	uintptr_t lo, hi;
	uint64_t offset, dev_major, dev_minor, inode;
};

static bool pxp_vma_parse(const char *line, struct pxp_vma *v)
{
	unsigned long lo, hi, offset, major, minor, inode;

	if (sscanf(line, "%lx-%lx %*4s %lx %lx:%lx %lu", &lo, &hi, &offset, &major, &minor,
		   &inode) != 6)
		return false;
	*v = (struct pxp_vma){ lo, hi, offset, major, minor, inode };
	return true;
}

/*
 * Map the window's pages over every other mapping of m's pages in this process. Programs
 * and personalities may map provider memory a second time (SCIF registers a program's range
 * by mapping a segment's pages over it): after the move those views must show the window
 * too, or their stores would never reach the importer.
 */
static int pxp_mem_move_aliases(struct pxp_mem *m, unsigned char *window)
{
	struct pxp_vma own = { 0 }, v;
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	int ret = 0;
	FILE *maps = fopen("/proc/self/maps", "re");

	if (!maps)
		return -XRMA_EIO;
	while (getline(&line, &cap, maps) > 0)
		if (pxp_vma_parse(line, &v) && v.lo <= (uintptr_t)m->addr && (uintptr_t)m->addr < v.hi) {
			own = v;
			found = v.inode != 0;
			break;
		}
	rewind(maps);
	while (found && !ret && getline(&line, &cap, maps) > 0) {
		size_t len;

		if (!pxp_vma_parse(line, &v) || v.inode != own.inode || v.dev_major != own.dev_major ||
		    v.dev_minor != own.dev_minor || v.lo == own.lo || v.offset >= m->map_len)
			continue;
		len = v.hi - v.lo;
		if (len > m->map_len - v.offset)
			len = m->map_len - v.offset;
		if (mremap(window + v.offset, 0, len, MREMAP_MAYMOVE | MREMAP_FIXED,
			   (void *)v.lo) == MAP_FAILED)
			ret = -XRMA_EIO;
	}
	free(line);
	fclose(maps);
	return ret;
}

/*
 * Stores the owner made to the old pages while they were being replaced: every word that
 * differs from the copy taken goes into the window, unless the window's word changed since
 * (a later store through the new mapping, which wins).
 */
static void pxp_mem_catch_up(uint64_t *window, const uint64_t *old, const uint64_t *snap,
			     size_t len)
{
	for (size_t i = 0; i < len / sizeof(uint64_t); i++) {
		uint64_t then = snap[i], now = __atomic_load_n(&old[i], __ATOMIC_RELAXED);

		if (now != then)
			__atomic_compare_exchange_n(&window[i], &then, now, false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
	}
}

/*
 * Move m's contents into the window and map the window's pages at m's address (and over its
 * other views). A PXImc window exists only once paired, so segment memory cannot be window
 * pages before an importer asks, and the owner may be storing meanwhile (SCIF publishes its
 * registration table while its peer imports it): the old pages stay reachable through a
 * view of our own until every mapping shows the window, then what changed in them since the
 * copy is carried over.
 */
static int pxp_mem_move(struct pxp_mem *m, void *window, uint64_t window_len)
{
	uint64_t *snap;
	void *old, *at;
	int ret;

	if (!window || window_len < m->map_len)
		return -XRMA_ENOSPC;
	snap = malloc(m->map_len);
	if (!snap)
		return -XRMA_ENOMEM;
	/*
	 * Word by word, atomically: the owner's threads may be storing (as atomics, SCIF),
	 * and plain stores are ordered by the owner's protocol with its importer, not by us.
	 */
	XRMA_PEER_SHARED_BEGIN();
	for (size_t i = 0; i < m->map_len / sizeof(uint64_t); i++)
		snap[i] = __atomic_load_n((uint64_t *)(void *)m->addr + i, __ATOMIC_RELAXED);
	XRMA_PEER_SHARED_END();
	memcpy(window, snap, m->map_len);
	ret = pxp_mem_move_aliases(m, window);
	/* old_size 0: a second view of the same shared pages. */
	old = ret ? MAP_FAILED : mremap(m->addr, 0, m->map_len, MREMAP_MAYMOVE);
	if (!ret && old == MAP_FAILED)
		ret = -XRMA_EIO;
	at = ret ? MAP_FAILED
		 : mremap(window, 0, m->map_len, MREMAP_MAYMOVE | MREMAP_FIXED, m->addr);
	if (!ret && at == MAP_FAILED) {
		pxp_detail("pximc: the vendor's window is not a shared mapping; it cannot back a "
			   "segment");
		ret = -XRMA_ENOTSUP;
	}
	if (!ret) {
		XRMA_PEER_SHARED_BEGIN();
		pxp_mem_catch_up(window, old, snap, m->map_len);
		XRMA_PEER_SHARED_END();
	}
	if (old != MAP_FAILED)
		munmap(old, m->map_len);
	free(snap);
	return ret;
}

/* Post, wait for the importer's pairing, move: on a thread of its own (pxp_mem_on_import). */
static void pxp_mem_serve_import(struct pxp_peer *peer, const struct pxp_msg *msg)
{
	struct pxp_prov *p = peer->prov;
	struct pxp_msg reply = { .req = msg->req, .id = msg->id };
	void *remote, *local = NULL;
	uint64_t rsize, lsize = 0;
	struct pxp_mem *m;
	uint32_t s = 0;
	tPXIMC_Status st;
	bool mine = false;

	pthread_mutex_lock(&p->lock);
	m = pxp_mem_find_locked(p, msg->id);
	if (!m || !m->exported) {
		reply.status = -XRMA_ENOENT;
	} else if (m->homing || m->home_session) {
		reply.status = -XRMA_ECONNREFUSED;   /* caps.max_importers */
	} else {
		m->homing = true;   /* mem_free and unexport wait for the end of this */
		mine = true;
	}
	pthread_mutex_unlock(&p->lock);
	if (mine)
		reply.status = pxp_mem_post(peer, m, &s, &reply.value);
	(void)pxp_send(peer, PXP_MSG_IMPORT_POSTED, &reply, sizeof(reply));
	if (!mine)
		return;
	if (!reply.status) {
		/* The importer pairs with the window now; bounded, in case it died meanwhile. */
		st = p->api.waitForConnection(s, PXP_REPLY_MS, &remote, &rsize, &local, &lsize);
		reply.status = st == PXIMC_SUCCESS ? pxp_mem_move(m, local, lsize) : pxp_error(st);
		if (reply.status) {
			(void)p->api.closeWindow(s);
			s = 0;
		}
	}
	pthread_mutex_lock(&p->lock);
	m->homing = false;
	m->home_session = s;
	m->home_peer = s ? peer : NULL;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	(void)pxp_send(peer, PXP_MSG_IMPORT_READY, &reply, sizeof(reply));
}

static void *pxp_import_main(void *arg)
{
	struct pxp_import_job *job = arg;
	struct pxp_prov *p = job->peer->prov;

	pxp_mem_serve_import(job->peer, &job->msg);
	pthread_mutex_lock(&p->lock);
	job->done = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Join finished jobs (all of them with wait_all, as close does). */
void pxp_mem_import_reap(struct pxp_prov *p, bool wait_all)
{
	for (;;) {
		struct pxp_import_job *job = NULL, **pp;

		pthread_mutex_lock(&p->lock);
		for (;;) {
			for (pp = &p->imports; *pp && !(*pp)->done; pp = &(*pp)->next)
				;
			if (*pp || !wait_all || !p->imports)
				break;
			pthread_cond_wait(&p->cond, &p->lock);
		}
		if (*pp) {
			job = *pp;
			*pp = job->next;
		}
		pthread_mutex_unlock(&p->lock);
		if (!job)
			return;
		pthread_join(job->thread, NULL);
		free(job);
	}
}

/*
 * Not on the peer thread: the wait for the importer's pairing would stop this ring's
 * consumer, and two nodes importing from each other at once (SCIF's handshake) would each
 * wait for a reply the other cannot read. Jobs are joined by later imports and by close.
 */
void pxp_mem_on_import(struct pxp_peer *peer, const struct pxp_msg *msg)
{
	struct pxp_prov *p = peer->prov;
	struct pxp_import_job *job;

	pxp_mem_import_reap(p, false);
	job = calloc(1, sizeof(*job));
	if (job) {
		job->peer = peer;
		job->msg = *msg;
		pthread_mutex_lock(&p->lock);
		/* Once closing, close() has joined the jobs it knows of: no new one. */
		if (p->stopping || pthread_create(&job->thread, NULL, pxp_import_main, job)) {
			free(job);
			job = NULL;
		} else {
			job->next = p->imports;
			p->imports = job;
		}
		pthread_mutex_unlock(&p->lock);
	}
	if (!job)
		(void)pxp_send(peer, PXP_MSG_IMPORT_POSTED, &(struct pxp_msg){ .req = msg->req,
			       .id = msg->id, .status = -XRMA_ENOMEM }, sizeof(struct pxp_msg));
}

void pxp_mem_on_unimport(struct pxp_peer *peer, const struct pxp_msg *msg)
{
	struct pxp_prov *p = peer->prov;
	struct pxp_mem *m;
	uint32_t s = 0;

	pthread_mutex_lock(&p->lock);
	m = pxp_mem_find_locked(p, msg->id);
	if (m && m->home_peer == peer) {
		s = m->home_session;
		m->home_session = 0;
		m->home_peer = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	if (s)
		(void)p->api.closeWindow(s);
	(void)pxp_send(peer, PXP_MSG_UNIMPORT_DONE, &(struct pxp_msg){ .req = msg->req },
		       sizeof(struct pxp_msg));
}

void pxp_mem_on_peer_down(struct pxp_peer *peer)
{
	struct pxp_prov *p = peer->prov;

	for (;;) {
		uint32_t s = 0;

		pthread_mutex_lock(&p->lock);
		for (struct pxp_mem *m = p->mems; m && !s; m = m->next) {
			if (m->home_peer == peer) {
				s = m->home_session;
				m->home_session = 0;
				m->home_peer = NULL;
			}
		}
		pthread_mutex_unlock(&p->lock);
		if (!s)
			return;
		(void)p->api.closeWindow(s);
	}
}

/* ------------------------------------------------------------------ the importer's side */

/* Our own memory (an import from this node): its pages directly. */
static int pxp_import_local(struct pxp_prov *p, const struct xrma_prov_addr *owner,
			    const struct pxp_key *k, struct pxp_rmem *r)
{
	struct pxp_mem *m;

	if (owner->ep != p->self.ep)
		return -XRMA_ENOENT;
	pthread_mutex_lock(&p->lock);
	m = pxp_mem_find_locked(p, k->mem_id);
	if (m && m->exported)
		r->base = m->addr;
	pthread_mutex_unlock(&p->lock);
	return m && r->base ? 0 : -XRMA_ENOENT;
}

/* Ask the owner for a window, pair with it, wait until the owner's pages are in it. */
static int pxp_import_remote(struct pxp_prov *p, const struct pxp_key *k, struct pxp_rmem *r)
{
	struct pxp_msg msg = { .id = k->mem_id, .len = k->len }, posted, ready;
	void *remote = NULL, *local;
	uint64_t rsize = 0, lsize;
	size_t map_len = pxp_pages(k->len);
	struct pxp_req *req;
	tPXIMC_Status st;
	int ret;

	req = pxp_req_open(r->peer);
	if (!req)
		return -XRMA_ENOMEM;
	r->alive = req->alive;
	msg.req = req->id;
	ret = pxp_send(r->peer, PXP_MSG_IMPORT, &msg, sizeof(msg));
	if (!ret)
		ret = pxp_req_wait(req, 1, &posted);
	if (!ret)
		ret = posted.status;
	if (ret) {
		if (ret == -XRMA_ECONNREFUSED)
			pxp_detail("pximc: node %u refused the import: the segment's memory is in a "
				   "window paired with another node (a PXImc window has one partner, "
				   "caps.max_importers 1)", r->owner.node);
		pxp_req_close(req);
		return ret;
	}
	st = p->api.requestWindowLogicalAsClient(r->peer->iface, PXP_PROTO_MEMORY, 0, 0, map_len,
						 map_len, posted.value, &r->session);
	if (st == PXIMC_SUCCESS)
		st = p->api.waitForConnection(r->session, PXP_REPLY_MS, &remote, &rsize, &local,
					      &lsize);
	ret = pxp_req_wait(req, 2, &ready);
	pxp_req_close(req);
	if (!ret)
		ret = ready.status;
	if (!ret && st != PXIMC_SUCCESS)
		ret = pxp_error(st);
	if (!ret && (!remote || rsize < map_len))
		ret = -XRMA_EPROTO;
	if (ret) {
		if (r->session)
			(void)p->api.closeWindow(r->session);
		return ret;
	}
	r->base = remote;
	return 0;
}

int pxp_mem_import(void *state, const struct xrma_prov_addr *owner,
		   const struct xrma_prov_key *key, size_t len, uint32_t access,
		   struct xrma_prov_rmem **out)
{
	struct pxp_prov *p = state;
	struct pxp_rmem *r;
	struct pxp_key k;
	int ret = 0;

	(void)access;
	if (!p || !owner || !key || !out || key->len != sizeof(k))
		return -XRMA_EINVAL;
	memcpy(&k, key->bytes, sizeof(k));
	if (len > k.len)
		return -XRMA_ERANGE;
	/* One window per (owner, memory): a second import of it shares the first. */
	pthread_mutex_lock(&p->lock);
	for (r = p->rmems; r; r = r->next) {
		if (r->owner.node == owner->node && r->owner.ep == owner->ep && r->mem_id == k.mem_id &&
		    (!r->peer || atomic_load(&r->peer->alive) == r->alive)) {
			r->refs++;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (r) {
		*out = (struct xrma_prov_rmem *)r;
		return 0;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -XRMA_ENOMEM;
	r->owner = *owner;
	r->mem_id = k.mem_id;
	r->len = k.len;
	r->refs = 1;
	if (owner->node == p->self.node) {
		ret = pxp_import_local(p, owner, &k, r);
	} else {
		uint32_t ep = 0;

		r->peer = pxp_peer_get(p, owner->node, PXP_PEER_WAIT_MS, false, &ep, &ret);
		if (r->peer && ep != owner->ep)
			ret = -XRMA_ELOST;
		else if (r->peer)
			ret = pxp_import_remote(p, &k, r);
	}
	if (ret) {
		free(r);
		return ret;
	}
	pthread_mutex_lock(&p->lock);
	r->next = p->rmems;
	p->rmems = r;
	pthread_mutex_unlock(&p->lock);
	*out = (struct xrma_prov_rmem *)r;
	return 0;
}

void pxp_mem_unimport(void *state, struct xrma_prov_rmem *rmem)
{
	struct pxp_prov *p = state;
	struct pxp_rmem *r = (struct pxp_rmem *)rmem, **pp;
	struct pxp_req *req;
	struct pxp_msg msg;

	pthread_mutex_lock(&p->lock);
	if (--r->refs) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	for (pp = &p->rmems; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (r->peer) {
		(void)p->api.closeWindow(r->session);
		/* Answered once the owner let go, so another node may import next. */
		req = atomic_load(&r->peer->alive) == r->alive ? pxp_req_open(r->peer) : NULL;
		if (req) {
			msg = (struct pxp_msg){ .id = r->mem_id, .req = req->id };
			if (!pxp_send(r->peer, PXP_MSG_UNIMPORT, &msg, sizeof(msg)))
				(void)pxp_req_wait(req, 1, &msg);
			pxp_req_close(req);
		}
	}
	free(r);
}

/* ------------------------------------------------------------------ data */

static bool pxp_rmem_lost(const struct pxp_rmem *r)
{
	return r->peer && atomic_load_explicit(&r->peer->alive, memory_order_acquire) != r->alive;
}

int pxp_rma(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem, size_t offset,
	    const struct iovec *iov, size_t count, uint32_t flags)
{
	struct pxp_rmem *r = (struct pxp_rmem *)rmem;
	unsigned char *at;
	size_t total = 0;

	(void)state;
	if (!r)
		return -XRMA_EINVAL;
	if (pxp_rmem_lost(r))
		return -XRMA_ELOST;
	for (size_t i = 0; i < count; i++)
		total += iov[i].iov_len;
	at = r->base + offset;
	if (op == XRMA_RMA_READ) {
		for (size_t i = 0; i < count; i++) {
			memcpy(iov[i].iov_base, at, iov[i].iov_len);
			at += iov[i].iov_len;
		}
	} else {
		/* Ordered: the last 8 bytes land after the rest (a flag at the end of a buffer). */
		size_t hold = (flags & XRMA_RMA_ORDERED) && total >= 8 ? 8 : 0, done = 0;

		for (size_t i = 0; i < count; i++) {
			size_t n = iov[i].iov_len;

			if (done + n > total - hold)
				n = total - hold - done;
			memcpy(at + done, iov[i].iov_base, n);
			done += n;
			if (done == total - hold)
				break;
		}
		if (hold) {
			unsigned char last[8];
			size_t got = 0, skip = total - hold;

			for (size_t i = 0; i < count && got < hold; i++) {
				size_t n = iov[i].iov_len;

				if (skip >= n) {
					skip -= n;
					continue;
				}
				n -= skip;
				if (n > hold - got)
					n = hold - got;
				memcpy(last + got, (unsigned char *)iov[i].iov_base + skip, n);
				got += n;
				skip = 0;
			}
			atomic_thread_fence(memory_order_release);
			memcpy(at + total - hold, last, hold);
		}
	}
	/* A partner that went away during the copy: the data may not have arrived. */
	return pxp_rmem_lost(r) ? -XRMA_ELOST : 0;
}

int pxp_map(void *state, struct xrma_prov_rmem *rmem, size_t offset, size_t len, uint32_t prot,
	    void **addr)
{
	struct pxp_rmem *r = (struct pxp_rmem *)rmem;

	(void)state;
	(void)prot;   /* the vendor maps windows read-write; the core enforces import rights */
	if (!r || !addr || offset + len > pxp_pages(r->len))
		return -XRMA_EINVAL;
	if (pxp_rmem_lost(r))
		return -XRMA_ELOST;
	*addr = r->base + offset;
	return 0;
}

void pxp_unmap(void *state, struct xrma_prov_rmem *rmem, void *addr, size_t len)
{
	/* The window's mapping belongs to its session; it goes with mem_unimport. */
	(void)state;
	(void)rmem;
	(void)addr;
	(void)len;
}
