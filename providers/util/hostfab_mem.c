/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_mem.c: memory of the host fabric.
 *
 * Allocated memory is a sealed memfd mapped shared, so an importer maps the
 * same pages: a store by one process is a load in the other. The memfd travels
 * only over a connection the owner accepted (SO_PEERCRED), in answer to a
 * FETCH that names a live export with the right cookie; an importer without
 * write rights gets a read-only descriptor, so it cannot map the pages
 * writable either. Registered memory asked to be shareable is put on a file
 * (hostfab_share.c) that travels the same way, at its offset; otherwise, or
 * where no file can hold it, it stays the caller's ordinary pages, which
 * importers reach by cross-memory attach or through the owner's staging
 * channel (hostfab_rma.c) and cannot map. Exports are entries in the node
 * directory, which is where window space is accounted.
 */
#include "providers/util/hostfab.h"
#include <xrma/seg.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOSTFAB_FETCH_TIMEOUT_MS 5000

struct hostfab_fetch_req {
	struct hostfab_hdr hdr;
	struct hostfab_key key;
	uint32_t access;
	uint32_t pad;
};

struct hostfab_fetch_reply {
	struct hostfab_hdr hdr;
	int32_t status;
	uint32_t pad;
	uint64_t file_offset;    /* FETCH: where the memory starts in the descriptor */
};

static uint64_t random_cookie(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
		v = (uint64_t)(uintptr_t)&v ^ ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL);
	return v ? v : 1;
}

static size_t page_round(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (len + page - 1) / page * page;
}

static int mem_add(struct hostfab_ep *ep, enum hostfab_mem_kind kind, int fd, void *addr, size_t len,
		   size_t map_len, struct hostfab_mem **out)
{
	struct hostfab_mem *m = calloc(1, sizeof(*m));

	if (!m)
		return -XRMA_ENOMEM;
	m->kind = kind;
	m->fd = fd;
	m->addr = addr;
	m->len = len;
	m->map_len = map_len;
	m->cookie = random_cookie();
	pthread_mutex_lock(&ep->lock);
	m->next = ep->mems;
	if (ep->mems)
		ep->mems->prev = m;
	ep->mems = m;
	pthread_mutex_unlock(&ep->lock);
	*out = m;
	return 0;
}

int hostfab_mem_alloc(void *state, size_t len, struct xrma_prov_mem **mem, void **addr)
{
	struct hostfab_ep *ep = state;
	struct hostfab_mem *m;
	size_t map_len;
	void *p;
	int fd, ret;

	if (!ep || !len || !mem || !addr)
		return -XRMA_EINVAL;
	map_len = page_round(len);
	if (map_len < len)
		return -XRMA_ERANGE;
	fd = memfd_create("xrma-seg", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -XRMA_ENOMEM;
	/* memfds start 0777; the pages are the user's alone (others get a descriptor, not a path). */
	/* Pages allocated now: short memory fails here, not as a SIGBUS at first touch. */
	if (fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)map_len) != 0 ||
	    posix_fallocate(fd, 0, (off_t)map_len) != 0) {
		hostfab_detail("%s: cannot allocate %zu bytes of segment memory", ep->model->name, map_len);
		close(fd);
		return -XRMA_ENOMEM;
	}
	/* Importers can neither shrink the pages under the owner nor grow them. */
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	p = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return -XRMA_ENOMEM;
	}
	ret = mem_add(ep, HOSTFAB_MEM_MEMFD, fd, p, len, map_len, &m);
	if (ret) {
		munmap(p, map_len);
		close(fd);
		return ret;
	}
	*mem = (struct xrma_prov_mem *)m;
	*addr = p;
	return 0;
}

int hostfab_mem_register(void *state, void *addr, size_t len, uint32_t flags, struct xrma_prov_mem **mem)
{
	struct hostfab_ep *ep = state;
	const struct hostfab_model *model;
	struct hostfab_share *share = NULL;
	uint64_t file_offset = 0;
	struct hostfab_mem *m;
	int fd = -1, ret;

	if (!ep || !addr || !len || !mem || (flags & ~XRMA_PROV_REGISTER_SHARE))
		return -XRMA_EINVAL;
	model = ep->model;
	if (model->xlat_align > 1 && (uintptr_t)addr % model->xlat_align) {
		hostfab_detail("%s: registered memory at %p is not aligned to xlat_align=%llu",
			       model->name, addr, (unsigned long long)model->xlat_align);
		return -XRMA_EALIGN_OFFSET;
	}
	/* Pages no one file can hold stay where they are: transfers still reach them, maps cannot. */
	if ((flags & XRMA_PROV_REGISTER_SHARE) && hostfab_share_get(addr, len, &fd, &file_offset, &share))
		share = NULL;
	ret = mem_add(ep, share ? HOSTFAB_MEM_SHARED : HOSTFAB_MEM_USER, share ? fd : -1, addr, len,
		      share ? page_round(len) : 0, &m);
	if (ret) {
		hostfab_share_put(share);
		return ret;
	}
	m->file_offset = file_offset;
	m->share = share;
	*mem = (struct xrma_prov_mem *)m;
	return 0;
}

void hostfab_mem_unexport(void *state, struct xrma_prov_mem *mem)
{
	struct hostfab_ep *ep = state;
	struct hostfab_mem *m = (struct hostfab_mem *)mem;
	uint32_t index;
	uint64_t gen;

	if (!ep || !m)
		return;
	pthread_mutex_lock(&ep->lock);
	if (!m->exported) {
		pthread_mutex_unlock(&ep->lock);
		return;
	}
	m->exported = false;
	index = m->index;
	gen = m->gen;
	pthread_mutex_unlock(&ep->lock);
	hostfab_dir_export_remove(ep, index, gen);
}

void hostfab_mem_free(void *state, struct xrma_prov_mem *mem)
{
	struct hostfab_ep *ep = state;
	struct hostfab_mem *m = (struct hostfab_mem *)mem;

	if (!ep || !m)
		return;
	hostfab_mem_unexport(ep, mem);
	pthread_mutex_lock(&ep->lock);
	if (m->prev)
		m->prev->next = m->next;
	else
		ep->mems = m->next;
	if (m->next)
		m->next->prev = m->prev;
	pthread_mutex_unlock(&ep->lock);
	if (m->kind == HOSTFAB_MEM_MEMFD) {
		munmap(m->addr, m->map_len);
		close(m->fd);
	}
	/* The caller's pages stay on the file; we only let go of it. */
	hostfab_share_put(m->share);
	free(m);
}

void hostfab_mem_release_all(struct hostfab_ep *ep)
{
	while (ep->mems)
		hostfab_mem_free(ep, (struct xrma_prov_mem *)ep->mems);
}

int hostfab_mem_export(void *state, struct xrma_prov_mem *mem, uint32_t access,
		       struct xrma_prov_key *key)
{
	struct hostfab_ep *ep = state;
	struct hostfab_mem *m = (struct hostfab_mem *)mem;
	struct hostfab_key k;
	uint32_t index;
	uint64_t gen, bus;
	bool was;
	int ret;

	if (!ep || !m || !key || (access & ~XRMA_ACCESS_ALL))
		return -XRMA_EINVAL;
	pthread_mutex_lock(&ep->lock);
	was = m->exported;
	index = m->index;
	pthread_mutex_unlock(&ep->lock);
	if (was) {
		hostfab_dir_export_set_access(ep, index, access);
		pthread_mutex_lock(&ep->lock);
		m->access = access;
		pthread_mutex_unlock(&ep->lock);
	} else {
		ret = hostfab_dir_export_add(ep, m->len, access, &index, &gen, &bus);
		if (ret)
			return ret;
		pthread_mutex_lock(&ep->lock);
		m->exported = true;
		m->index = index;
		m->gen = gen;
		m->bus = bus;
		m->access = access;
		pthread_mutex_unlock(&ep->lock);
	}
	memset(&k, 0, sizeof(k));
	pthread_mutex_lock(&ep->lock);
	k.index = m->index;
	k.kind = m->kind;
	k.gen = m->gen;
	k.cookie = m->cookie;
	k.addr = (uint64_t)(uintptr_t)m->addr;
	k.pid = (uint32_t)ep->pid;
	pthread_mutex_unlock(&ep->lock);
	memset(key, 0, sizeof(*key));
	key->len = sizeof(k);
	memcpy(key->bytes, &k, sizeof(k));
	return 0;
}

/* The live export behind key, owned by owner, with its length and rights. */
static int export_check(struct hostfab_dirmap *odir, const struct xrma_prov_addr *owner,
			const struct hostfab_key *k, uint64_t *len, uint32_t *access)
{
	const struct hostfab_dir_export *e;
	uint16_t slot;

	if (k->index >= HOSTFAB_EXPORT_MAX)
		return -XRMA_ENOENT;
	e = &odir->dir->exports[k->index];
	slot = __atomic_load_n(&e->slot, __ATOMIC_RELAXED);
	if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != HOSTFAB_EXPORT_LIVE ||
	    __atomic_load_n(&e->gen, __ATOMIC_RELAXED) != k->gen || slot >= HOSTFAB_EP_MAX ||
	    __atomic_load_n(&odir->dir->slots[slot].ep, __ATOMIC_RELAXED) != owner->ep)
		return -XRMA_ENOENT;
	*len = __atomic_load_n(&e->len, __ATOMIC_RELAXED);
	*access = __atomic_load_n(&e->access, __ATOMIC_RELAXED);
	return 0;
}

/* Ask the owner for a descriptor: FETCH (the memory) or STAGE (a staging buffer). */
int hostfab_mem_request(struct hostfab_ep *ep, const struct xrma_prov_addr *owner,
			const struct hostfab_key *k, uint32_t kind, uint32_t access, int *conn_fd,
			int *mem_fd, uint64_t *file_offset)
{
	struct hostfab_fetch_req req = {
		.hdr = { .kind = kind, .node = ep->self.node, .ep = ep->self.ep },
		.key = *k,
		.access = access,
	};
	struct hostfab_fetch_reply rep;
	int fd, ret;

	*mem_fd = -1;
	fd = hostfab_chan_dial(ep, owner);
	if (fd < 0)
		return fd == -XRMA_ECONNRESET ? -XRMA_ELOST : fd;
	ret = hostfab_pkt_send(fd, &req, sizeof(req), -1);
	if (!ret)
		ret = hostfab_pkt_recv(fd, &rep, sizeof(rep), mem_fd, HOSTFAB_FETCH_TIMEOUT_MS);
	if (ret >= 0) {
		if ((size_t)ret < sizeof(rep))
			ret = -XRMA_EIO;
		else if (rep.status)
			ret = rep.status;
		else if (*mem_fd < 0)
			ret = -XRMA_EIO;
		else
			ret = 0;
		if (!ret && file_offset)
			*file_offset = rep.file_offset;
	}
	if (ret) {
		if (*mem_fd >= 0)
			close(*mem_fd);
		*mem_fd = -1;
		close(fd);
		return ret;
	}
	if (conn_fd)
		*conn_fd = fd;
	else
		close(fd);
	return 0;
}

int hostfab_mem_import(void *state, const struct xrma_prov_addr *owner,
		       const struct xrma_prov_key *key, size_t len, uint32_t access,
		       struct xrma_prov_rmem **rmem)
{
	const uint32_t remote = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	struct hostfab_ep *ep = state;
	struct hostfab_dirmap *odir;
	struct hostfab_rmem *r;
	struct hostfab_key k;
	uint64_t elen;
	uint32_t eaccess;
	int ret;

	if (!ep || !owner || !key || !rmem || !len || key->len != sizeof(k))
		return -XRMA_EINVAL;
	memcpy(&k, key->bytes, sizeof(k));
	if (k.kind != HOSTFAB_MEM_MEMFD && k.kind != HOSTFAB_MEM_USER && k.kind != HOSTFAB_MEM_SHARED)
		return -XRMA_EINVAL;
	ret = hostfab_dir_peer(ep, owner->node, &odir);
	if (ret)
		return ret == -XRMA_ENODEV ? -XRMA_ELOST : ret;
	ret = export_check(odir, owner, &k, &elen, &eaccess);
	if (!ret && len > elen)
		ret = -XRMA_ERANGE;
	if (!ret && access & remote & ~eaccess)
		ret = -XRMA_EACCES;
	r = ret ? NULL : calloc(1, sizeof(*r));
	if (!r) {
		hostfab_dir_put(ep, odir);
		return ret ? ret : -XRMA_ENOMEM;
	}
	r->owner = *owner;
	r->key = k;
	r->len = len;
	r->access = access;
	r->mem_fd = -1;
	r->stage_fd = -1;
	r->odir = odir;
	pthread_mutex_init(&r->stage_lock, NULL);
	if (k.kind == HOSTFAB_MEM_MEMFD || k.kind == HOSTFAB_MEM_SHARED) {
		bool writable = (access & XRMA_ACCESS_REMOTE_WRITE) != 0;

		ret = hostfab_mem_request(ep, owner, &k, HOSTFAB_MSG_FETCH, access, NULL, &r->mem_fd,
					  &r->file_offset);
		if (!ret) {
			r->map_len = page_round(len);
			/* NORESERVE: a large window costs address space, not memory, until touched. */
			r->base = mmap(NULL, r->map_len, PROT_READ | (writable ? PROT_WRITE : 0),
				       MAP_SHARED | MAP_NORESERVE, r->mem_fd, (off_t)r->file_offset);
			if (r->base == MAP_FAILED) {
				r->base = NULL;
				ret = -XRMA_ENOMEM;
			}
		}
		if (ret) {
			if (r->mem_fd >= 0)
				close(r->mem_fd);
			pthread_mutex_destroy(&r->stage_lock);
			hostfab_dir_put(ep, odir);
			free(r);
			return ret;
		}
	}
	*rmem = (struct xrma_prov_rmem *)r;
	return 0;
}

void hostfab_mem_unimport(void *state, struct xrma_prov_rmem *rmem)
{
	struct hostfab_rmem *r = (struct hostfab_rmem *)rmem;

	if (!r)
		return;
	/* The owner's directory stays mapped while this import may read it. */
	hostfab_dir_put(state, r->odir);
	if (r->base)
		munmap(r->base, r->map_len);
	if (r->mem_fd >= 0)
		close(r->mem_fd);
	if (r->stage)
		munmap(r->stage, HOSTFAB_STAGE_SIZE);
	if (r->stage_fd >= 0)
		close(r->stage_fd);
	pthread_mutex_destroy(&r->stage_lock);
	free(r);
}

/* ---- the owner's side ---- */

/* Our memory behind k, if it is exported with those rights (under ep->lock). */
struct hostfab_mem *hostfab_mem_find_locked(struct hostfab_ep *ep, uint32_t index, uint64_t gen,
					    uint64_t cookie)
{
	for (struct hostfab_mem *m = ep->mems; m; m = m->next)
		if (m->exported && m->index == index && m->gen == gen &&
		    (cookie == 0 || m->cookie == cookie))
			return m;
	return NULL;
}

void hostfab_mem_serve(struct hostfab_ep *ep, struct hostfab_conn *conn, const void *pkt, size_t len)
{
	const uint32_t remote = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	struct hostfab_fetch_req req;
	struct hostfab_fetch_reply rep = { .hdr = { .node = ep->self.node, .ep = ep->self.ep } };
	struct hostfab_mem *m;
	int pass = -1, own = -1;
	void *buf = NULL;

	if (len < sizeof(req))
		return;
	memcpy(&req, pkt, sizeof(req));
	rep.hdr.kind = req.hdr.kind == HOSTFAB_MSG_FETCH ? HOSTFAB_MSG_FETCH_REPLY : HOSTFAB_MSG_STAGE_REPLY;
	pthread_mutex_lock(&ep->lock);
	m = hostfab_mem_find_locked(ep, req.key.index, req.key.gen, req.key.cookie);
	if (!m || m->kind != req.key.kind)
		rep.status = -XRMA_ENOENT;
	else if (req.access & remote & ~m->access)
		rep.status = -XRMA_EACCES;
	else if (req.hdr.kind == HOSTFAB_MSG_FETCH &&
		 (m->kind == HOSTFAB_MEM_MEMFD || m->kind == HOSTFAB_MEM_SHARED)) {
		pass = m->fd;
		rep.file_offset = m->file_offset;
	}
	else if (req.hdr.kind == HOSTFAB_MSG_STAGE && m->kind == HOSTFAB_MEM_USER)
		pass = -2;   /* a staging buffer, made below */
	else
		rep.status = -XRMA_EINVAL;
	pthread_mutex_unlock(&ep->lock);

	if (pass >= 0 && !(req.access & XRMA_ACCESS_REMOTE_WRITE)) {
		/* A read-only importer gets a read-only descriptor of the same pages. */
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", pass);
		own = open(path, O_RDONLY | O_CLOEXEC);
		pass = own;
		if (own < 0)
			rep.status = -XRMA_EIO;
	} else if (pass == -2) {
		own = memfd_create("xrma-stage", MFD_CLOEXEC);
		if (own < 0 || fchmod(own, 0600) != 0 || ftruncate(own, HOSTFAB_STAGE_SIZE) != 0 ||
		    (buf = mmap(NULL, HOSTFAB_STAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, own, 0)) ==
			    MAP_FAILED) {
			buf = NULL;
			rep.status = -XRMA_ENOMEM;
			pass = -1;
		} else {
			pass = own;
		}
	}
	XRMA_KILL_POINT("hostfab.mem.before_fetch_reply");
	if (hostfab_pkt_send(conn->fd, &rep, sizeof(rep), rep.status ? -1 : pass) == 0 && buf) {
		/* The connection now carries this import's staged requests. */
		pthread_mutex_lock(&ep->lock);
		conn->kind = HOSTFAB_CONN_STAGE;
		conn->stage_index = req.key.index;
		conn->stage_gen = req.key.gen;
		conn->stage_buf = buf;
		pthread_mutex_unlock(&ep->lock);
		buf = NULL;
	}
	if (buf)
		munmap(buf, HOSTFAB_STAGE_SIZE);
	if (own >= 0)
		close(own);
}

int hostfab_mem_bus_addr(void *state, struct xrma_prov_mem *mem, uint64_t *bus)
{
	struct hostfab_ep *ep = state;
	struct hostfab_mem *m = (struct hostfab_mem *)mem;
	int ret = 0;

	if (!ep || !m || !bus)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&ep->lock);
	if (m->exported)
		*bus = m->bus;
	else
		ret = -XRMA_ENOTAVAIL;
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

int hostfab_bus_owner(void *state, uint32_t node, uint64_t bus, struct xrma_prov_addr *owner)
{
	struct hostfab_ep *ep = state;
	const struct hostfab_model *m;
	struct hostfab_dirmap *map;
	uint64_t base, rel;
	uint32_t epno = 0;
	int ret;

	if (!ep || !owner)
		return -XRMA_EINVAL;
	m = ep->model;
	base = m->bus_node_shift ? (uint64_t)node << m->bus_node_shift : m->bus_base;
	if (hostfab_dir_peer(ep, node, &map))
		map = NULL;
	if (!map || !hostfab_dir_node_live(ep, map)) {
		hostfab_dir_put(ep, map);
		hostfab_detail("%s: node %u is not on this fabric", m->name, node);
		return -XRMA_ENODEV;
	}
	if (bus < base || (m->mw_count && bus - base >= (uint64_t)m->mw_count * m->mw_size)) {
		hostfab_dir_put(ep, map);
		hostfab_detail("%s: 0x%llx is outside node %u's inbound windows", m->name,
			       (unsigned long long)bus, node);
		return -XRMA_ENOENT;
	}
	rel = bus - base;
	ret = hostfab_dir_export_owner(ep, map, m->mw_count ? (uint16_t)(rel / m->mw_size) : 0,
				       m->mw_count ? rel % m->mw_size : rel, &epno);
	hostfab_dir_put(ep, map);
	if (ret == -XRMA_ENOENT)
		hostfab_detail("%s: no memory exported at 0x%llx on node %u", m->name,
			       (unsigned long long)bus, node);
	if (ret)
		return ret;
	owner->node = node;
	owner->ep = epno;
	return 0;
}

bool hostfab_peer_same_user(struct hostfab_ep *ep, const struct xrma_prov_addr *src)
{
	struct hostfab_dirmap *map;
	uint32_t uid;
	bool same;

	if (hostfab_dir_peer(ep, src->node, &map))
		return false;
	same = hostfab_dir_ep_uid(map, src->ep, &uid) && uid == (uint32_t)ep->uid;
	hostfab_dir_put(ep, map);
	return same;
}

int hostfab_bus_permit(void *state, const struct xrma_prov_addr *src)
{
	struct hostfab_ep *ep = state;

	if (!ep || !src)
		return -XRMA_EINVAL;
	/* Raw access bypasses the owner's segment rules: only its own user gets it. */
	return hostfab_peer_same_user(ep, src) ? 0 : -XRMA_EPERM;
}
