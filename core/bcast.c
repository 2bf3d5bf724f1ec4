/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/bcast.c: broadcast groups (xrma/bcast.h), per DESIGN.md "Where the
 * design goes next": a group is the imports of one segment id from every live
 * node that exported it with XRMA_SEG_BROADCAST. Transfers fan out, one per
 * member. A map is a local shadow with a twin (its content at the last push):
 * a push writes the bytes where the two differ to every member, in ascending
 * address order, aligned 8-byte words whole. Faces push at their API's
 * release points; a pusher thread, started with the first map, pushes what
 * they leave within XRMA_BCAST_PUSH_MAX_US (programs that store and never
 * call a barrier still reach every member).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <xrma/bcast.h>
#include <xrma/errors.h>
#include <xrma/node.h>
#include <xrma/seg.h>
#include "core/ctx.h"
#include "core/dmaq.h"
#include "core/handle.h"
#include "common/lock.h"
#include "common/peer_shared.h"
#include "core/rseg.h"

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer does not model fences (-Wtsan); what it checks here are the atomics. */
#pragma GCC diagnostic ignored "-Wtsan"
#endif

/*
 * The pusher's period: short while stores keep coming, doubling while they do
 * not, up to the bound docs/core.md promises for stores left unpushed.
 */
#define XRMA_BCAST_PUSH_MIN_US 100
#define XRMA_BCAST_PUSH_MAX_US 2000

struct bcast_map {
	unsigned char *shadow;      /* what the caller stores to; page aligned */
	unsigned char *twin;        /* the shadow as last pushed (under the group's lock) */
	size_t len, mapped_len;     /* bytes covered; bytes of each anonymous mapping */
	void **member_addr;         /* each member's own mapping of the range */
	struct bcast_map *next;
};

struct xrma_core_bcast {
	struct xrma_obj obj;
	struct xrma_core_ctx *ctx;  /* fixed */
	uint64_t id;                /* fixed */
	uint32_t access;            /* fixed: the rights of every member's import */
	size_t len;                 /* fixed: the smallest member */
	size_t count;               /* fixed: members */
	uint32_t *nodes;            /* fixed: ascending */
	struct xrma_rseg **members; /* fixed: one import per node */
	bool *usable;               /* scratch of a push (under lock) */
	struct xrma_lock lock;      /* guards maps and every twin; serialises pushes */
	struct bcast_map *maps;
	_Atomic uint64_t pushed_ns; /* when the last push ended (monotonic): the pusher stays off */

	pthread_mutex_t pusher_lock; /* guards the three below; taken after lock, never before */
	pthread_cond_t pusher_cond;  /* CLOCK_MONOTONIC: a map came, or stop */
	bool pusher_running, pusher_stop;
	pthread_t pusher;
};

static void stop_pusher(struct xrma_core_bcast *b);
static int push_map_locked(struct xrma_core_bcast *b, struct bcast_map *m, bool *changed);

static inline int bcast_acquire(const void *handle, struct xrma_core_bcast **bcast)
{
	return XRMA_HANDLE_GET(handle, XRMA_OBJ_BCAST, struct xrma_core_bcast, *bcast);
}

static void close_members(struct xrma_core_bcast *b)
{
	for (size_t i = 0; i < b->count; i++)
		(void)xrma_rseg_close(b->members[i]);
	b->count = 0;
}

static void bcast_destroy(struct xrma_obj *obj)
{
	struct xrma_core_bcast *b = (struct xrma_core_bcast *)obj;
	struct xrma_core_ctx *ctx = b->ctx;

	xrma_lock_destroy(&b->lock);
	pthread_cond_destroy(&b->pusher_cond);
	pthread_mutex_destroy(&b->pusher_lock);
	free(b->usable);
	free(b->members);
	free(b->nodes);
	free(b);
	xrma_core_ctx_child_destroyed(ctx);
}

/* Import id from node as a member; 1 if it is one, 0 if not, <0 on local failure. */
static int join_member(struct xrma_core_bcast *b, uint32_t node, uint32_t access, int timeout_ms)
{
	struct xrma_rseg *rseg;
	size_t len;
	int ret;

	ret = xrma_core_rseg_open_broadcast(b->ctx, node, b->id, access, timeout_ms, &rseg);
	/* A node without the segment, or one that died meanwhile, is simply no member. */
	if (ret == -XRMA_ENOMEM)
		return ret;
	if (ret)
		return 0;
	ret = xrma_rseg_size(rseg, &len);
	if (ret) {
		(void)xrma_rseg_close(rseg);
		return 0;
	}
	b->nodes[b->count] = node;
	b->members[b->count++] = rseg;
	if (b->count == 1 || len < b->len)
		b->len = len;
	return 1;
}

int xrma_bcast_open(struct xrma_ctx *handle, uint64_t id, uint32_t access, uint32_t flags,
		    int timeout_ms, struct xrma_bcast **out)
{
	const uint32_t remote_bits = XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE;
	struct xrma_core_bcast *b = NULL;
	struct xrma_core_ctx *ctx;
	uint32_t *live = NULL, self;
	size_t nlive = 0;
	int ret;

	if (!out)
		return -XRMA_EINVAL;
	*out = NULL;
	if (!access || (access & ~remote_bits) || (flags & ~XRMA_BCAST_NO_SELF) || id == XRMA_ID_ANY)
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	if (!(ctx->caps.flags & XRMA_CAP_BROADCAST)) {
		ret = -XRMA_ENOTSUP;
		goto out_put;
	}
	ret = xrma_node_self(handle, &self);
	if (!ret)
		ret = xrma_node_list(handle, NULL, 0, &nlive);
	/* The list may grow between the two calls: ask again with room for what it said. */
	while (!ret) {
		size_t want = nlive + 4;
		uint32_t *grown = realloc(live, want * sizeof(*live));

		if (!grown) {
			ret = -XRMA_ENOMEM;
			break;
		}
		live = grown;
		ret = xrma_node_list(handle, live, want, &nlive);
		if (!ret && nlive <= want)
			break;
	}
	if (ret)
		goto out_free;
	b = calloc(1, sizeof(*b));
	if (!b || !(b->nodes = calloc(nlive ? nlive : 1, sizeof(*b->nodes))) ||
	    !(b->members = calloc(nlive ? nlive : 1, sizeof(*b->members))) ||
	    !(b->usable = calloc(nlive ? nlive : 1, sizeof(*b->usable)))) {
		ret = -XRMA_ENOMEM;
		goto err_free_group;
	}
	b->ctx = ctx;
	b->id = id;
	b->access = access;
	xrma_lock_init(&b->lock);
	pthread_mutex_init(&b->pusher_lock, NULL);
	{
		pthread_condattr_t attr;

		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&b->pusher_cond, &attr);
		pthread_condattr_destroy(&attr);
	}
	ret = xrma_core_ctx_child_open(ctx);
	if (ret)
		goto err_destroy_lock;
	for (size_t i = 0; i < nlive && ret >= 0; i++)
		if (!(live[i] == self && (flags & XRMA_BCAST_NO_SELF)))
			ret = join_member(b, live[i], access, timeout_ms);
	if (ret >= 0)
		ret = b->count ? 0 : -XRMA_ENOENT;
	if (ret)
		goto err_close_members;
	ret = xrma_handle_alloc(&b->obj, XRMA_OBJ_BCAST, bcast_destroy);
	if (ret)
		goto err_close_members;
	*out = b->obj.handle;
	goto out_free;

err_close_members:
	close_members(b);
	xrma_core_ctx_child_killed(ctx);
	xrma_core_ctx_child_destroyed(ctx);
err_destroy_lock:
	xrma_lock_destroy(&b->lock);
	pthread_cond_destroy(&b->pusher_cond);
	pthread_mutex_destroy(&b->pusher_lock);
err_free_group:
	if (b) {
		free(b->usable);
		free(b->members);
		free(b->nodes);
	}
	free(b);
out_free:
	free(live);
out_put:
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_bcast_close(struct xrma_bcast *handle)
{
	struct xrma_core_bcast *b;
	int ret = bcast_acquire(handle, &b);

	if (ret)
		return ret;
	xrma_lock(&b->lock);
	if (b->maps)
		ret = -XRMA_EBUSY;
	xrma_unlock(&b->lock);
	/* Transfers in flight hold the members they write to. */
	for (size_t i = 0; !ret && i < b->count; i++) {
		struct xrma_core_rseg *member;

		if (!xrma_core_rseg_acquire(b->members[i], &member)) {
			if (xrma_ref_count(&member->busy))
				ret = -XRMA_EBUSY;
			xrma_handle_put(&member->obj);
		}
	}
	if (!ret)
		ret = xrma_handle_kill(&b->obj);
	if (!ret) {
		stop_pusher(b);
		close_members(b);
		xrma_core_ctx_child_killed(b->ctx);
	}
	xrma_handle_put(&b->obj);
	return ret;
}

int xrma_bcast_size(struct xrma_bcast *handle, size_t *len)
{
	struct xrma_core_bcast *b;
	int ret;

	if (!len)
		return -XRMA_EINVAL;
	ret = bcast_acquire(handle, &b);
	if (ret)
		return ret;
	*len = b->len;
	xrma_handle_put(&b->obj);
	return 0;
}

int xrma_bcast_members(struct xrma_bcast *handle, uint32_t *nodes, size_t max, size_t *count)
{
	struct xrma_core_bcast *b;
	int ret;

	if (!count || (max && !nodes))
		return -XRMA_EINVAL;
	ret = bcast_acquire(handle, &b);
	if (ret)
		return ret;
	for (size_t i = 0; i < b->count && i < max; i++)
		nodes[i] = b->nodes[i];
	*count = b->count;
	xrma_handle_put(&b->obj);
	return 0;
}

/* The worst member state: LOST, then NOT_OPERATIONAL, then DISCONNECT_REQUESTED. */
static enum xrma_rseg_state group_state(struct xrma_core_bcast *b)
{
	static const int rank[] = {
		[XRMA_RSEG_CONNECTED] = 0, [XRMA_RSEG_DISCONNECT_REQUESTED] = 1,
		[XRMA_RSEG_NOT_OPERATIONAL] = 2, [XRMA_RSEG_LOST] = 3,
	};
	enum xrma_rseg_state worst = XRMA_RSEG_CONNECTED, s;

	for (size_t i = 0; i < b->count; i++) {
		if (xrma_rseg_state(b->members[i], &s))
			s = XRMA_RSEG_LOST;
		if (rank[s] > rank[worst])
			worst = s;
	}
	return worst;
}

int xrma_bcast_state(struct xrma_bcast *handle, enum xrma_rseg_state *state)
{
	struct xrma_core_bcast *b;
	int ret;

	if (!state)
		return -XRMA_EINVAL;
	ret = bcast_acquire(handle, &b);
	if (ret)
		return ret;
	*state = group_state(b);
	xrma_handle_put(&b->obj);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Push every map; true if some bytes moved. */
static bool push_all(struct xrma_core_bcast *b, int *ret)
{
	bool changed = false;

	xrma_lock(&b->lock);
	for (struct bcast_map *m = b->maps; m; m = m->next) {
		int one = push_map_locked(b, m, &changed);

		*ret = *ret ? *ret : one;
	}
	xrma_unlock(&b->lock);
	return changed;
}

static unsigned push_backoff(unsigned interval)
{
	return interval * 2 > XRMA_BCAST_PUSH_MAX_US ? XRMA_BCAST_PUSH_MAX_US : interval * 2;
}

static void *pusher_main(void *arg)
{
	struct xrma_core_bcast *b = arg;
	unsigned interval = XRMA_BCAST_PUSH_MIN_US;
	struct timespec at;

	pthread_mutex_lock(&b->pusher_lock);
	while (!b->pusher_stop) {
		int ret = 0;

		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_nsec += (long)interval * 1000;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&b->pusher_cond, &b->pusher_lock, &at) != ETIMEDOUT)
			continue;   /* woken for a new map or to stop: look again */
		/* A program that pushes often enough never pays for a scan (or a wake-up) here. */
		if (now_ns() - atomic_load_explicit(&b->pushed_ns, memory_order_relaxed) <
		    (uint64_t)interval * 1000) {
			interval = push_backoff(interval);
			continue;
		}
		pthread_mutex_unlock(&b->pusher_lock);
		if (push_all(b, &ret))
			interval = XRMA_BCAST_PUSH_MIN_US;
		else
			interval = push_backoff(interval);
		pthread_mutex_lock(&b->pusher_lock);
	}
	pthread_mutex_unlock(&b->pusher_lock);
	return NULL;
}

/* Start the pusher with the first map; it lives until the group closes. */
static int start_pusher(struct xrma_core_bcast *b)
{
	int ret = 0;

	pthread_mutex_lock(&b->pusher_lock);
	if (!b->pusher_running) {
		if (pthread_create(&b->pusher, NULL, pusher_main, b))
			ret = -XRMA_ENOMEM;
		else
			b->pusher_running = true;
	}
	pthread_mutex_unlock(&b->pusher_lock);
	return ret;
}

static void stop_pusher(struct xrma_core_bcast *b)
{
	bool running;

	pthread_mutex_lock(&b->pusher_lock);
	running = b->pusher_running;
	b->pusher_stop = true;
	pthread_cond_broadcast(&b->pusher_cond);
	pthread_mutex_unlock(&b->pusher_lock);
	if (running)
		pthread_join(b->pusher, NULL);
}

/* Copy ascending, aligned 8-byte words as single stores, so a reader never sees one torn. */
static void copy_ascending(unsigned char *dst, const unsigned char *src, size_t len)
{
	while (len && ((uintptr_t)dst & 7)) {
		*(volatile unsigned char *)dst++ = *src++;
		len--;
	}
	for (; len >= 8; len -= 8, dst += 8, src += 8) {
		uint64_t word;

		memcpy(&word, src, 8);
		__atomic_store_n((uint64_t *)(void *)dst, word, __ATOMIC_RELAXED);
	}
	while (len--)
		*(volatile unsigned char *)dst++ = *src++;
}

static bool member_usable(struct xrma_core_bcast *b, size_t i)
{
	enum xrma_rseg_state s;

	return !xrma_rseg_state(b->members[i], &s) && s != XRMA_RSEG_LOST;
}

/*
 * Push one map: each run of bytes that differs from the twin is first copied
 * into the twin (so every member gets the same bytes even while the caller
 * stores on), then from the twin to every usable member. Runs go in ascending
 * order and each reaches every member before the next starts. Lock held.
 */
static int push_map_locked(struct xrma_core_bcast *b, struct bcast_map *m,
					    bool *changed)
{
	enum { BLOCK = 64, PAGE = 4096 };
	bool *usable = b->usable;
	int ret = 0;

	for (size_t i = 0; i < b->count; i++) {
		usable[i] = member_usable(b, i);
		if (!usable[i])
			ret = -XRMA_ELOST;
	}
	/* The shadow is read while the program may store to it (that race is the model), and
	 * members' memory is written that other processes read, ordered by their own protocol. */
	XRMA_PEER_SHARED_BEGIN();
	for (size_t at = 0; at < m->len;) {
		size_t block = m->len - at < BLOCK ? m->len - at : BLOCK, end;

		/* Whole unchanged pages go at memcmp's speed; changed ones by 64-byte blocks. */
		if (!(at % PAGE) && m->len - at >= PAGE && !memcmp(m->shadow + at, m->twin + at, PAGE)) {
			at += PAGE;
			continue;
		}
		if (!memcmp(m->shadow + at, m->twin + at, block)) {
			at += block;
			continue;
		}
		while (at < m->len && m->shadow[at] == m->twin[at])
			at++;
		end = at;
		while (end < m->len && m->shadow[end] != m->twin[end])
			end++;
		memcpy(m->twin + at, m->shadow + at, end - at);
		*changed = true;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		for (size_t i = 0; i < b->count; i++)
			if (usable[i])
				copy_ascending((unsigned char *)m->member_addr[i] + at, m->twin + at, end - at);
		at = end;
	}
	XRMA_PEER_SHARED_END();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	atomic_store_explicit(&b->pushed_ns, now_ns(), memory_order_relaxed);
	return ret;
}

static struct bcast_map **find_map_locked(struct xrma_core_bcast *b, void *addr)
{
	for (struct bcast_map **pp = &b->maps; *pp; pp = &(*pp)->next)
		if ((*pp)->shadow == addr)
			return pp;
	return NULL;
}

static void free_map(struct xrma_core_bcast *b, struct bcast_map *m)
{
	for (size_t i = 0; i < b->count; i++)
		if (m->member_addr[i])
			(void)xrma_rseg_unmap(b->members[i], m->member_addr[i]);
	if (m->shadow)
		munmap(m->shadow, m->mapped_len);
	if (m->twin)
		munmap(m->twin, m->mapped_len);
	free(m->member_addr);
	free(m);
}

int xrma_bcast_map(struct xrma_bcast *handle, size_t offset, size_t len, uint32_t flags, void **addr)
{
	struct xrma_core_bcast *b;
	struct bcast_map *m;
	size_t page;
	int ret;

	if (!addr)
		return -XRMA_EINVAL;
	*addr = NULL;
	if (!len || !(flags & XRMA_MAP_WRITE) || (flags & ~(XRMA_MAP_READ | XRMA_MAP_WRITE)))
		return -XRMA_EINVAL;
	ret = bcast_acquire(handle, &b);
	if (ret)
		return ret;
	page = b->ctx->caps.page_size;
	if (!(b->ctx->caps.flags & XRMA_CAP_MAP))
		ret = -XRMA_ENOTSUP;
	else if (offset >= b->len || len > b->len - offset)
		ret = -XRMA_ERANGE;
	else if (group_state(b) == XRMA_RSEG_LOST)
		ret = -XRMA_ELOST;
	if (ret)
		goto out_put;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->member_addr = calloc(b->count, sizeof(*m->member_addr)))) {
		free(m);
		ret = -XRMA_ENOMEM;
		goto out_put;
	}
	m->len = len;
	m->mapped_len = (len + page - 1) / page * page;
	m->shadow = mmap(NULL, m->mapped_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m->twin = mmap(NULL, m->mapped_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->shadow == MAP_FAILED || m->twin == MAP_FAILED) {
		m->shadow = m->shadow == MAP_FAILED ? NULL : m->shadow;
		m->twin = m->twin == MAP_FAILED ? NULL : m->twin;
		ret = -XRMA_ENOMEM;
	}
	/* With read rights the shadow starts as the first member's bytes, else as zeros. */
	for (size_t i = 0; !ret && i < b->count; i++)
		ret = xrma_rseg_map(b->members[i], offset, len,
				    XRMA_MAP_WRITE | (b->access & XRMA_ACCESS_REMOTE_READ ? XRMA_MAP_READ : 0),
				    &m->member_addr[i]);
	if (ret) {
		free_map(b, m);
		goto out_put;
	}
	ret = start_pusher(b);
	if (ret) {
		free_map(b, m);
		goto out_put;
	}
	if (b->access & XRMA_ACCESS_REMOTE_READ) {
		XRMA_PEER_SHARED_BEGIN();
		memcpy(m->shadow, m->member_addr[0], len);
		XRMA_PEER_SHARED_END();
	}
	memcpy(m->twin, m->shadow, len);
	xrma_lock(&b->lock);
	m->next = b->maps;
	b->maps = m;
	xrma_unlock(&b->lock);
	*addr = m->shadow;
out_put:
	xrma_handle_put(&b->obj);
	return ret;
}

int xrma_bcast_flush(struct xrma_bcast *handle, void *addr)
{
	struct xrma_core_bcast *b;
	struct bcast_map **pp;
	int ret = bcast_acquire(handle, &b);

	if (ret)
		return ret;
	if (addr) {
		bool changed = false;

		xrma_lock(&b->lock);
		pp = find_map_locked(b, addr);
		ret = pp ? push_map_locked(b, *pp, &changed) : -XRMA_EINVAL;
		xrma_unlock(&b->lock);
	} else {
		(void)push_all(b, &ret);
	}
	xrma_handle_put(&b->obj);
	return ret;
}

int xrma_bcast_unmap(struct xrma_bcast *handle, void *addr)
{
	struct xrma_core_bcast *b;
	struct bcast_map **pp, *m = NULL;
	int ret;

	if (!addr)
		return -XRMA_EINVAL;
	ret = bcast_acquire(handle, &b);
	if (ret)
		return ret;
	xrma_lock(&b->lock);
	pp = find_map_locked(b, addr);
	if (pp) {
		bool changed = false;

		m = *pp;
		(void)push_map_locked(b, m, &changed);   /* a lost member has nothing left to receive */
		*pp = m->next;
	}
	xrma_unlock(&b->lock);
	if (m)
		free_map(b, m);
	else
		ret = -XRMA_EINVAL;
	xrma_handle_put(&b->obj);
	return ret;
}

int xrma_bcast_post(struct xrma_bcast *handle, struct xrma_dmaq *dmaq, const struct xrma_iov *local,
		    size_t count, size_t remote_offset, size_t len, uint64_t cookie, uint32_t flags,
		    size_t *posted)
{
	struct xrma_core_bcast *b;
	struct xrma_core_dmaq *q;
	size_t outstanding = 0;
	int ret;

	if (!posted)
		return -XRMA_EINVAL;
	*posted = 0;
	ret = bcast_acquire(handle, &b);
	if (ret)
		return ret;
	if (remote_offset > b->len || len > b->len - remote_offset)
		ret = -XRMA_ERANGE;
	else if (group_state(b) == XRMA_RSEG_LOST)
		ret = -XRMA_ELOST;
	else if (!(ret = xrma_core_dmaq_acquire(dmaq, &q))) {
		if (!(flags & XRMA_RMA_SYNC) && !xrma_dmaq_outstanding(dmaq, &outstanding) &&
		    q->depth - outstanding < b->count)
			ret = -XRMA_EAGAIN;
		xrma_handle_put(&q->obj);
	}
	/* The first member's post checks the vector, flags and rights for all of them. */
	for (size_t i = 0; !ret && i < b->count; i++) {
		ret = xrma_dmaq_post(dmaq, XRMA_RMA_WRITE, local, count, b->members[i], remote_offset,
				     len, cookie, flags);
		if (!ret)
			(*posted)++;
	}
	xrma_handle_put(&b->obj);
	return ret;
}

int xrma_bcast_set_callback(struct xrma_bcast *handle, xrma_event_cb cb, void *arg)
{
	struct xrma_core_bcast *b;
	int ret = bcast_acquire(handle, &b);

	if (ret)
		return ret;
	for (size_t i = 0; !ret && i < b->count; i++)
		ret = xrma_rseg_set_callback(b->members[i], cb, arg);
	xrma_handle_put(&b->obj);
	return ret;
}
