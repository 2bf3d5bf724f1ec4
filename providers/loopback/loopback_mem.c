/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/loopback/loopback_mem.c: exportable memory of the loopback provider:
 * allocate (anonymous mmap) or register caller memory, export it under a key
 * (mem id + random cookie), import it by key from the owner's address. Memory is
 * refcounted by its owner and its importers, so it outlives an owner that frees
 * it or closes while imported. Transfers into it are loopback_rma.c/_map.c's job.
 */
#include "providers/loopback/loopback.h"
#include "providers/util/hostfab_share.h"

#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <xrma/seg.h>

#define XRMA_PROV_LOOPBACK_KEY_LEN 16   /* 64-bit mem id + 64-bit cookie */

/* A cookie nobody guesses by accident, so stale or forged keys are refused. */
static uint64_t xrma_prov_loopback_cookie(uint64_t seed)
{
	uint64_t x;
	struct timespec ts;

	if (getrandom(&x, sizeof(x), GRND_NONBLOCK) == (ssize_t)sizeof(x))
		return x;
	/* No entropy yet: splitmix64 of the seed and the clock is unpredictable enough here. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = seed ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec;
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Take a new mem into the fabric for ep; -XRMA_ENOMEM leaves nothing behind. */
static int xrma_prov_loopback_mem_add(struct xrma_prov_loopback_ep *ep, void *addr, size_t len,
				      size_t map_len, struct xrma_prov_loopback_mem **out)
{
	struct xrma_prov_loopback_fabric *fabric = ep->fabric;
	struct xrma_prov_loopback_mem *mem = calloc(1, sizeof(*mem));
	int ret;

	if (!mem)
		return -XRMA_ENOMEM;
	mem->addr = addr;
	mem->len = len;
	mem->map_len = map_len;
	mem->owner_addr = ep->self;
	mem->owner_node = ep->node;
	mem->cookie = xrma_prov_loopback_cookie((uintptr_t)mem);

	xrma_prov_loopback_lock_take(&fabric->lock);
	mem->id = fabric->next_mem_id + 1;
	ret = xrma_prov_loopback_idmap_insert(&fabric->mems, (struct xrma_prov_loopback_idmap_entry){
						      .id = mem->id, .ptr = mem });
	if (!ret) {
		fabric->next_mem_id = mem->id;
		mem->owner = ep;
		mem->refs = 1;
		mem->lost = ep->severed;
		mem->next = ep->mems;
		if (ep->mems)
			ep->mems->prev = mem;
		ep->mems = mem;
	}
	xrma_prov_loopback_lock_drop(&fabric->lock);
	if (ret) {
		free(mem);
		return ret;
	}
	*out = mem;
	return 0;
}

void xrma_prov_loopback_mem_destroy(struct xrma_prov_loopback_mem *doomed)
{
	while (doomed) {
		struct xrma_prov_loopback_mem *next = doomed->doomed_next;

		if (doomed->map_len)
			munmap(doomed->addr, doomed->map_len);
		hostfab_share_put(doomed->share);
		free(doomed);
		doomed = next;
	}
}

/* Drop one reference; an unreferenced mem goes on *doomed. */
static void xrma_prov_loopback_mem_put_locked(struct xrma_prov_loopback_mem *mem,
					      struct xrma_prov_loopback_mem **doomed)
{
	assert(mem->refs > 0);
	if (--mem->refs == 0) {
		mem->doomed_next = *doomed;
		*doomed = mem;
	}
}

/* The owner lets go: no new imports, but importers keep their references. */
static void xrma_prov_loopback_mem_disown_locked(struct xrma_prov_loopback_ep *owner,
						 struct xrma_prov_loopback_mem *mem,
						 struct xrma_prov_loopback_mem **doomed)
{
	xrma_prov_loopback_assert_locked(owner->fabric);
	assert(mem->owner == owner);
	if (mem->prev)
		mem->prev->next = mem->next;
	else
		owner->mems = mem->next;
	if (mem->next)
		mem->next->prev = mem->prev;
	mem->prev = mem->next = NULL;
	xrma_prov_loopback_idmap_remove(&owner->fabric->mems, mem->id);
	mem->owner = NULL;
	mem->exported = false;
	xrma_prov_loopback_mem_put_locked(mem, doomed);
}

static void xrma_prov_loopback_rmem_drop_locked(struct xrma_prov_loopback_rmem *rmem,
						struct xrma_prov_loopback_mem **doomed)
{
	struct xrma_prov_loopback_ep *ep = rmem->importer;

	xrma_prov_loopback_assert_locked(ep->fabric);
	if (rmem->prev)
		rmem->prev->next = rmem->next;
	else
		ep->rmems = rmem->next;
	if (rmem->next)
		rmem->next->prev = rmem->prev;
	xrma_prov_loopback_mem_put_locked(rmem->mem, doomed);
	free(rmem);
}

void xrma_prov_loopback_mem_lose_locked(struct xrma_prov_loopback_ep *ep)
{
	xrma_prov_loopback_assert_locked(ep->fabric);
	for (struct xrma_prov_loopback_mem *mem = ep->mems; mem; mem = mem->next)
		mem->lost = true;
}

void xrma_prov_loopback_mem_release_all_locked(struct xrma_prov_loopback_ep *ep,
					       struct xrma_prov_loopback_mem **doomed)
{
	struct xrma_prov_loopback_rmem *rmem, *rnext;
	struct xrma_prov_loopback_mem *mem, *next;

	xrma_prov_loopback_assert_locked(ep->fabric);
	for (rmem = ep->rmems; rmem; rmem = rnext) {
		rnext = rmem->next;
		xrma_prov_loopback_rmem_drop_locked(rmem, doomed);
	}
	for (mem = ep->mems; mem; mem = next) {
		next = mem->next;
		xrma_prov_loopback_mem_disown_locked(ep, mem, doomed);
	}
	assert(!ep->rmems && !ep->mems);
}

int xrma_prov_loopback_mem_alloc(void *state, size_t len, struct xrma_prov_mem **mem, void **addr)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_mem *m;
	size_t page = xrma_prov_loopback_caps.page_size, map_len;
	void *p;
	int ret;

	if (!ep || !len || !mem || !addr)
		return -XRMA_EINVAL;
	if (len > xrma_prov_loopback_caps.max_seg_size)
		return -XRMA_ERANGE;
	map_len = (len + page - 1) & ~(page - 1);
	/* Anonymous mappings are page aligned and zeroed, as the contract asks. */
	p = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		return -XRMA_ENOMEM;
	ret = xrma_prov_loopback_mem_add(ep, p, len, map_len, &m);
	if (ret) {
		munmap(p, map_len);
		return ret;
	}
	*mem = (struct xrma_prov_mem *)m;
	*addr = p;
	return 0;
}

int xrma_prov_loopback_mem_register(void *state, void *addr, size_t len, uint32_t flags,
				    struct xrma_prov_mem **mem)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_mem *m;
	int ret;

	size_t page = xrma_prov_loopback_caps.page_size, map_len = 0;
	struct hostfab_share *share = NULL;
	uint64_t file_offset;
	void *view = addr;
	int fd;

	if (!ep || !addr || !len || !mem || (flags & ~XRMA_PROV_REGISTER_SHARE))
		return -XRMA_EINVAL;
	if (len > xrma_prov_loopback_caps.max_seg_size)
		return -XRMA_ERANGE;
	/*
	 * Importers are in this process, but a segment is the pages registered, not
	 * whatever the program maps there later, and mappings of it are shared pages:
	 * so we reach the pages through a view of our own on the file behind them.
	 * Where no file can hold them, the caller's range as it is.
	 */
	if ((flags & XRMA_PROV_REGISTER_SHARE) && !hostfab_share_get(addr, len, &fd, &file_offset, &share)) {
		map_len = (len + page - 1) & ~(page - 1);
		view = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)file_offset);
		if (view == MAP_FAILED) {
			hostfab_share_put(share);
			share = NULL;
			view = addr;
			map_len = 0;
		}
	}
	/* map_len 0: the caller's memory, never unmapped by us. */
	ret = xrma_prov_loopback_mem_add(ep, view, len, map_len, &m);
	if (ret) {
		if (map_len)
			munmap(view, map_len);
		hostfab_share_put(share);
		return ret;
	}
	m->share = share;
	*mem = (struct xrma_prov_mem *)m;
	return 0;
}

void xrma_prov_loopback_mem_free(void *state, struct xrma_prov_mem *mem)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_mem *m = (struct xrma_prov_loopback_mem *)mem, *doomed = NULL;

	if (!ep || !m)
		return;
	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	assert(m->owner == ep);
	if (m->owner == ep)
		xrma_prov_loopback_mem_disown_locked(ep, m, &doomed);
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	xrma_prov_loopback_mem_destroy(doomed);
}

int xrma_prov_loopback_mem_export(void *state, struct xrma_prov_mem *mem, uint32_t access,
				  struct xrma_prov_key *key)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_mem *m = (struct xrma_prov_loopback_mem *)mem;

	if (!ep || !m || !key || (access & ~XRMA_ACCESS_ALL))
		return -XRMA_EINVAL;
	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	m->access = access;
	m->exported = true;
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	/* The key is fixed for the mem's life: exporting again gives the same key. */
	memset(key, 0, sizeof(*key));
	key->len = XRMA_PROV_LOOPBACK_KEY_LEN;
	memcpy(key->bytes, &m->id, sizeof(m->id));
	memcpy(key->bytes + sizeof(m->id), &m->cookie, sizeof(m->cookie));
	return 0;
}

void xrma_prov_loopback_mem_unexport(void *state, struct xrma_prov_mem *mem)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_mem *m = (struct xrma_prov_loopback_mem *)mem;

	if (!ep || !m)
		return;
	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	m->exported = false;
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
}

int xrma_prov_loopback_mem_import(void *state, const struct xrma_prov_addr *owner,
				  const struct xrma_prov_key *key, size_t len, uint32_t access,
				  struct xrma_prov_rmem **rmem)
{
	const uint32_t remote = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_idmap_entry *e;
	struct xrma_prov_loopback_mem *m = NULL;
	struct xrma_prov_loopback_rmem *r;
	uint64_t id, cookie;
	int ret = 0;

	if (!ep || !owner || !key || !rmem || !len || key->len != XRMA_PROV_LOOPBACK_KEY_LEN)
		return -XRMA_EINVAL;
	memcpy(&id, key->bytes, sizeof(id));
	memcpy(&cookie, key->bytes + sizeof(id), sizeof(cookie));
	r = calloc(1, sizeof(*r));
	if (!r)
		return -XRMA_ENOMEM;

	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	e = xrma_prov_loopback_idmap_find(&ep->fabric->mems, id);
	if (e)
		m = e->ptr;
	if (ep->severed)
		ret = -XRMA_ELOST;
	else if (!m || !m->exported || m->cookie != cookie || m->owner_addr.node != owner->node ||
		 m->owner_addr.ep != owner->ep)
		ret = -XRMA_ENOENT;
	else if (m->lost)
		ret = -XRMA_ELOST;
	else if (len > m->len)
		ret = -XRMA_ERANGE;
	else if (access & remote & ~m->access)
		ret = -XRMA_EACCES;
	if (!ret) {
		m->refs++;
		r->mem = m;
		r->importer = ep;
		r->len = len;
		r->access = access;
		r->next = ep->rmems;
		if (ep->rmems)
			ep->rmems->prev = r;
		ep->rmems = r;
	}
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	if (ret) {
		free(r);
		return ret;
	}
	*rmem = (struct xrma_prov_rmem *)r;
	return 0;
}

void xrma_prov_loopback_mem_unimport(void *state, struct xrma_prov_rmem *rmem)
{
	struct xrma_prov_loopback_ep *ep = state;
	struct xrma_prov_loopback_rmem *r = (struct xrma_prov_loopback_rmem *)rmem;
	struct xrma_prov_loopback_mem *doomed = NULL;

	if (!ep || !r)
		return;
	xrma_prov_loopback_lock_take(&ep->fabric->lock);
	assert(r->importer == ep);
	xrma_prov_loopback_rmem_drop_locked(r, &doomed);
	xrma_prov_loopback_lock_drop(&ep->fabric->lock);
	xrma_prov_loopback_mem_destroy(doomed);
}
