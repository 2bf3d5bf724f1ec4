/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_mem.c: memory on ofi. Allocated memory is anonymous pages;
 * registered memory is the caller's. Exporting registers the range with
 * libfabric for the remote rights granted (unexporting closes the registration,
 * so old keys stop working). Keys must not be guessable: where the provider
 * chooses keys itself (FI_MR_PROV_KEY: verbs, efa) we take its hardware key;
 * otherwise (tcp, shm, whose own key counters would be guessable) we request a
 * random 64-bit key. An import is only the owner's address and the key.
 */
#include "providers/ofi/ofi.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <xrma/errors.h>
#include <xrma/seg.h>

#define KEY_TRIES 8

static int mr_register(struct ofi_ep *ep, void *addr, size_t len, uint64_t access, uint64_t key,
		       struct fid_mr **mr)
{
	int ret = fi_mr_reg(ep->domain, addr, len, access, 0, key, 0, mr, NULL);

	if (ret)
		return ret;
	/* FI_MR_ENDPOINT: a registration works once bound to the endpoint and enabled. */
	if (ep->mr_mode & FI_MR_ENDPOINT) {
		ret = fi_mr_bind(*mr, &ep->ep->fid, 0);
		if (!ret)
			ret = fi_mr_enable(*mr);
		if (ret) {
			fi_close(&(*mr)->fid);
			*mr = NULL;
		}
	}
	return ret;
}

static uint64_t random_key(const struct ofi_ep *ep)
{
	size_t size = ep->info->domain_attr->mr_key_size;
	uint64_t key = 0;

	if (getrandom(&key, sizeof(key), 0) != sizeof(key))
		key = ofi_now_ns() * 0x9e3779b97f4a7c15ull;
	if (size && size < sizeof(key))
		key &= (1ull << (size * 8)) - 1;
	return key;
}

/* The key to request: ignored where the provider picks its own. */
static uint64_t wanted_key(const struct ofi_ep *ep)
{
	return (ep->mr_mode & FI_MR_PROV_KEY) ? 0 : random_key(ep);
}

static int mem_track(struct ofi_ep *ep, void *addr, size_t len, bool allocated, struct ofi_mem **out)
{
	struct ofi_mem *m = calloc(1, sizeof(*m));
	int ret;

	if (!m)
		return -XRMA_ENOMEM;
	m->addr = addr;
	m->len = len;
	m->allocated = allocated;
	if (ep->mr_mode & FI_MR_LOCAL) {
		ret = mr_register(ep, addr, len, FI_READ | FI_WRITE | FI_SEND | FI_RECV, wanted_key(ep),
				   &m->local_mr);
		if (ret) {
			free(m);
			ofi_detail("ofi: cannot register %zu bytes for local use: %s", len, fi_strerror(-ret));
			return ofi_error(ret);
		}
	}
	pthread_mutex_lock(&ep->mem_lock);
	m->next = ep->mems;
	m->prev = &ep->mems;
	if (ep->mems)
		ep->mems->prev = &m->next;
	ep->mems = m;
	pthread_mutex_unlock(&ep->mem_lock);
	*out = m;
	return 0;
}

int ofi_mem_alloc(void *state, size_t len, struct xrma_prov_mem **mem, void **addr)
{
	struct ofi_ep *ep = state;
	size_t map_len = (len + 4095) & ~(size_t)4095;
	struct ofi_mem *m;
	void *p;
	int ret;

	if (!len || !mem || !addr)
		return -XRMA_EINVAL;
	p = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -XRMA_ENOMEM;
	ret = mem_track(ep, p, map_len, true, &m);
	if (ret) {
		munmap(p, map_len);
		return ret;
	}
	*mem = (struct xrma_prov_mem *)m;
	*addr = p;
	return 0;
}

int ofi_mem_register(void *state, void *addr, size_t len, uint32_t flags, struct xrma_prov_mem **mem)
{
	struct ofi_ep *ep = state;

	/* Nothing to share: ofi has no load/store mapping of remote memory (no XRMA_CAP_MAP). */
	if (!addr || !len || !mem || (flags & ~XRMA_PROV_REGISTER_SHARE))
		return -XRMA_EINVAL;
	return mem_track(ep, addr, len, false, (struct ofi_mem **)mem);
}

void ofi_mem_free(void *state, struct xrma_prov_mem *mem)
{
	struct ofi_ep *ep = state;
	struct ofi_mem *m = (struct ofi_mem *)mem;

	if (!m)
		return;
	pthread_mutex_lock(&ep->mem_lock);
	*m->prev = m->next;
	if (m->next)
		m->next->prev = m->prev;
	pthread_mutex_unlock(&ep->mem_lock);
	if (m->export_mr)
		fi_close(&m->export_mr->fid);
	if (m->local_mr)
		fi_close(&m->local_mr->fid);
	if (m->allocated)
		munmap(m->addr, m->len);
	free(m);
}

int ofi_mem_export(void *state, struct xrma_prov_mem *mem, uint32_t access, struct xrma_prov_key *key)
{
	struct ofi_ep *ep = state;
	struct ofi_mem *m = (struct ofi_mem *)mem;
	struct ofi_key k = { .len = 0 };
	uint64_t fi_access = 0;
	struct fid_mr *mr = NULL;
	int ret = 0;

	if (!m || !key)
		return -XRMA_EINVAL;
	if (access & XRMA_ACCESS_REMOTE_READ)
		fi_access |= FI_REMOTE_READ;
	if (access & XRMA_ACCESS_REMOTE_WRITE)
		fi_access |= FI_REMOTE_WRITE;
	/* Without remote rights nothing is registered: no key opens anything. */
	for (int i = 0; fi_access && i < KEY_TRIES; i++) {
		ret = mr_register(ep, m->addr, m->len, fi_access, wanted_key(ep), &mr);
		if (ret != -FI_ENOKEY)
			break;
	}
	if (ret) {
		ofi_detail("ofi: cannot register %zu bytes for remote access: %s", m->len, fi_strerror(-ret));
		return ofi_error(ret);
	}
	if (mr) {
		k.mr_key = fi_mr_key(mr);
		k.base = (ep->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)m->addr : 0;
	}
	k.len = m->len;
	k.rma_port = ep->rma_port;
	/* A second export (new rights) replaces the registration and so the key. */
	if (m->export_mr)
		fi_close(&m->export_mr->fid);
	m->export_mr = mr;
	key->len = sizeof(k);
	memcpy(key->bytes, &k, sizeof(k));
	return 0;
}

void ofi_mem_unexport(void *state, struct xrma_prov_mem *mem)
{
	struct ofi_mem *m = (struct ofi_mem *)mem;

	(void)state;
	if (m && m->export_mr) {
		fi_close(&m->export_mr->fid);
		m->export_mr = NULL;
	}
}

int ofi_mem_import(void *state, const struct xrma_prov_addr *owner, const struct xrma_prov_key *key,
		   size_t len, uint32_t access, struct xrma_prov_rmem **rmem)
{
	struct ofi_rmem *r;

	(void)state;
	(void)access;
	if (!owner || !key || !rmem || key->len != sizeof(struct ofi_key))
		return -XRMA_EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -XRMA_ENOMEM;
	r->owner = *owner;
	memcpy(&r->key, key->bytes, sizeof(r->key));
	if (len > r->key.len) {
		free(r);
		return -XRMA_EPROTO;
	}
	r->len = len;
	*rmem = (struct xrma_prov_rmem *)r;
	return 0;
}

void ofi_mem_unimport(void *state, struct xrma_prov_rmem *rmem)
{
	(void)state;
	free(rmem);
}

int ofi_mem_local_desc(struct ofi_ep *ep, void *addr, size_t len, void **desc, struct fid_mr **tmp)
{
	uintptr_t a = (uintptr_t)addr;
	int ret;

	*desc = NULL;
	*tmp = NULL;
	if (!(ep->mr_mode & FI_MR_LOCAL))
		return 0;
	pthread_mutex_lock(&ep->mem_lock);
	for (struct ofi_mem *m = ep->mems; m; m = m->next) {
		uintptr_t base = (uintptr_t)m->addr;

		if (m->local_mr && a >= base && a - base <= m->len && len <= m->len - (a - base)) {
			*desc = fi_mr_desc(m->local_mr);
			break;
		}
	}
	pthread_mutex_unlock(&ep->mem_lock);
	if (*desc)
		return 0;
	/* Not memory of ours (a fence value, an atomic operand): register it for the call. */
	ret = mr_register(ep, addr, len, FI_READ | FI_WRITE | FI_SEND | FI_RECV, wanted_key(ep), tmp);
	if (ret)
		return ofi_error(ret);
	*desc = fi_mr_desc(*tmp);
	return 0;
}
