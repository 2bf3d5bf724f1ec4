/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_ctx.c: process-wide state of libscif: the one core
 * context (opened on first use, on the provider, fabric and node id the
 * environment or config name), the table from descriptors to endpoints, the
 * segments left behind by closed windows while something still uses them, fork
 * handling, and scif_get_nodeIDs (§3.12). SCIF node ids are xrma node ids.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "personalities/scif/scif_internal.h"

/* Guards every static below; never held across a blocking core call. */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xrma_ctx *scif_ctx;
static struct xrma_scif_ep **table;   /* indexed by descriptor */
static size_t table_len;
/* Nodes scif_get_nodeIDs reports at most (MPSS's hosts carry up to 8 cards). */
#define XRMA_SCIF_NODES_MAX 256
/* Retired segments a v-call leaves before it sweeps them (see xrma_scif_retired_trim). */
#define RETIRED_TRIM_MIN 16

struct retired_seg {
	struct xrma_seg *seg;
};

static struct retired_seg *retired;
static size_t nretired, retired_cap;
static size_t trim_at;   /* xrma_scif_retired_trim sweeps once nretired reaches this */
/* The context's provider has XRMA_CAP_LOCAL_VIRTUAL; set with scif_ctx. */
static bool local_virtual;
static bool atfork_done;

/*
 * The child of a fork has no service threads, so the parent's context and
 * endpoints cannot work there: the child forgets them (inherited descriptors
 * are no endpoints for it) and opens its own context on first use.
 */
static void scif_atfork_prepare(void)
{
	pthread_mutex_lock(&table_lock);
}

static void scif_atfork_parent(void)
{
	pthread_mutex_unlock(&table_lock);
}

static void scif_atfork_child(void)
{
	scif_ctx = NULL;
	local_virtual = false;
	table = NULL;
	table_len = 0;
	retired = NULL;
	nretired = retired_cap = trim_at = 0;
	pthread_mutex_unlock(&table_lock);
}

void *xrma_scif_grow(void *array, size_t *cap, size_t count, size_t size)
{
	size_t grown_cap = *cap ? *cap * 2 : 16;
	void *grown;

	if (count < *cap)
		return array;
	grown = realloc(array, grown_cap * size);
	if (grown)
		*cap = grown_cap;
	return grown;
}

int xrma_scif_ctx(struct xrma_ctx **ctx)
{
	int ret = 0;

	pthread_mutex_lock(&table_lock);
	if (!atfork_done) {
		if (pthread_atfork(scif_atfork_prepare, scif_atfork_parent, scif_atfork_child)) {
			pthread_mutex_unlock(&table_lock);
			return -XRMA_ENOMEM;
		}
		atfork_done = true;
	}
	if (!scif_ctx) {
		struct xrma_ctx_attr attr = { .node_id = XRMA_NODE_ANY };
		struct xrma_ctx_info info;

		ret = xrma_ctx_open(&attr, &scif_ctx);
		if (!ret && !xrma_ctx_query(scif_ctx, &info))
			local_virtual = info.caps.flags & XRMA_CAP_LOCAL_VIRTUAL;
	}
	*ctx = scif_ctx;
	pthread_mutex_unlock(&table_lock);
	return ret;
}

struct xrma_scif_ep *xrma_scif_ep_new(struct xrma_conn *conn)
{
	struct xrma_scif_ep *ep = calloc(1, sizeof(*ep));
	int fl;

	if (!ep)
		return NULL;
	ep->conn = conn;
	ep->fd = xrma_conn_fd(conn);
	/*
	 * O_NONBLOCK on the descriptor is the program's request for a non-blocking
	 * connect (MPSS), so it starts clear. The core never blocks on this eventfd
	 * either way: it reads only a non-zero counter and writes only a zero one.
	 */
	fl = fcntl(ep->fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(ep->fd, F_SETFL, fl & ~O_NONBLOCK);
	ep->refs = 1;
	/* Endpoints exist only once the context does: local_virtual is settled. */
	pthread_mutex_lock(&table_lock);
	ep->local_virtual = local_virtual;
	pthread_mutex_unlock(&table_lock);
	pthread_mutex_init(&ep->lock, NULL);
	return ep;
}

int xrma_scif_ep_insert(struct xrma_scif_ep *ep)
{
	int ret = 0;

	if (ep->fd < 0)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&table_lock);
	if ((size_t)ep->fd >= table_len) {
		size_t len = table_len ? table_len : 64;
		struct xrma_scif_ep **grown;

		while (len <= (size_t)ep->fd)
			len *= 2;
		grown = realloc(table, len * sizeof(*table));
		if (!grown) {
			ret = -XRMA_ENOMEM;
		} else {
			memset(grown + table_len, 0, (len - table_len) * sizeof(*table));
			table = grown;
			table_len = len;
		}
	}
	if (!ret)
		table[ep->fd] = ep;
	pthread_mutex_unlock(&table_lock);
	return ret;
}

int xrma_scif_ep_get(scif_epd_t epd, struct xrma_scif_ep **out)
{
	struct xrma_scif_ep *ep = NULL;

	pthread_mutex_lock(&table_lock);
	if (epd >= 0 && (size_t)epd < table_len)
		ep = table[epd];
	if (ep)
		__atomic_add_fetch(&ep->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&table_lock);
	*out = ep;
	return ep ? 0 : -XRMA_EHANDLE;
}

void xrma_scif_ep_put(struct xrma_scif_ep *ep)
{
	/* Gets happen under table_lock, and never once the table let go: no lock needed here. */
	if (__atomic_sub_fetch(&ep->refs, 1, __ATOMIC_ACQ_REL))
		return;
	/* Everything the endpoint held was closed by scif_close. */
	pthread_mutex_destroy(&ep->lock);
	free(ep);
}

int xrma_scif_ep_remove(struct xrma_scif_ep *ep)
{
	int ret = -XRMA_EHANDLE;

	pthread_mutex_lock(&table_lock);
	if ((size_t)ep->fd < table_len && table[ep->fd] == ep) {
		table[ep->fd] = NULL;
		/* The table's reference; the caller still holds one, so this never frees. */
		__atomic_sub_fetch(&ep->refs, 1, __ATOMIC_RELEASE);
		ret = 0;
	}
	pthread_mutex_unlock(&table_lock);
	return ret;
}

void xrma_scif_retire(struct xrma_seg *seg)
{
	struct retired_seg r = { .seg = seg }, *grown;

	if (xrma_seg_close(seg) != -XRMA_EBUSY)
		return;
	pthread_mutex_lock(&table_lock);
	/* Without room the segment is leaked, never closed while in use. */
	grown = xrma_scif_grow(retired, &retired_cap, nretired, sizeof(*retired));
	if (grown) {
		retired = grown;
		retired[nretired++] = r;
	}
	pthread_mutex_unlock(&table_lock);
}

static void sweep_locked(void)
{
	for (size_t i = 0; i < nretired;) {
		/* A segment closes only once no window, import, transfer or signal uses it. */
		if (xrma_seg_close(retired[i].seg) == -XRMA_EBUSY) {
			i++;
		} else {
			retired[i] = retired[--nretired];
		}
	}
	/* What is still busy waits until the list has doubled: each retirement costs O(1). */
	trim_at = nretired * 2 > RETIRED_TRIM_MIN ? nretired * 2 : RETIRED_TRIM_MIN;
}

void xrma_scif_retired_sweep(void)
{
	pthread_mutex_lock(&table_lock);
	sweep_locked();
	pthread_mutex_unlock(&table_lock);
}

void xrma_scif_retired_trim(void)
{
	pthread_mutex_lock(&table_lock);
	if (nretired >= trim_at)
		sweep_locked();
	pthread_mutex_unlock(&table_lock);
}

/*
 * The nodes of the configured set, up or not (MPSS lists the host and every
 * card the driver knows, running or not): the node file's ids when one is
 * configured; else the provider allows any id, so the set is the live nodes
 * plus the host, node 0, which SCIF always has. self is this node.
 */
int scif_get_nodeIDs(uint16_t *nodes, int len, uint16_t *self)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_ctx *ctx;
	uint32_t ids[XRMA_SCIF_NODES_MAX + 1], me;
	size_t count = 0, max = XRMA_SCIF_NODES_MAX;
	int ret;

	if (len < 0 || (len > 0 && !nodes) || !self)
		return xrma_scif_fail_errno(EFAULT);
	ret = xrma_scif_ctx(&ctx);
	if (!ret)
		ret = xrma_node_self(ctx, &me);
	if (!ret) {
		ret = xrma_node_cluster(ctx, ids, max, &count);
		if (ret == -XRMA_ENOENT) {
			ret = xrma_node_list(ctx, ids + 1, max, &count);
			if (count > max)
				count = max;
			/* The live list is ascending: the host goes first unless it is in it. */
			if (!ret && (!count || ids[1] != 0) && !xrma_node_in_cluster(ctx, 0)) {
				ids[0] = 0;
				count++;
			} else {
				memmove(ids, ids + 1, count * sizeof(ids[0]));
			}
		}
	}
	if (ret)
		return xrma_scif_fail(ret);
	if (count > max)
		count = max;
	for (size_t i = 0; i < count && i < (size_t)len; i++)
		nodes[i] = (uint16_t)ids[i];
	*self = (uint16_t)me;
	return (int)count;
}
