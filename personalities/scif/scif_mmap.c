/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_mmap.c: mapped remote memory (§3.6). A mapping owns
 * its own import of the peer's window segment, so it outlives the endpoint
 * (closing the endpoint does not unmap) and keeps the window's range taken
 * until scif_munmap. Addresses not made by scif_mmap go to munmap(2).
 * The prot_flags are checked against the window but do not restrict access.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "personalities/scif/scif_internal.h"

struct scif_mapping {
	void *addr;
	size_t len;
	struct xrma_rseg *rseg;
	struct scif_mapping *next;
};

static pthread_mutex_t mappings_lock = PTHREAD_MUTEX_INITIALIZER;
static struct scif_mapping *mappings;   /* under mappings_lock */

static int mmap_resolve(struct xrma_scif_ep *ep, off_t offset, size_t len, int prot_flags,
			struct xrma_scif_piece *piece)
{
	size_t count;
	int ret;

	ret = xrma_scif_peer_lookup(ep, (uint64_t)offset, len, (uint32_t)prot_flags, piece, 1, &count);
	/* One core mapping is one segment: a range over several windows is not mapped. */
	return ret == -XRMA_ENOSPC ? -XRMA_ENOTSUP : ret;
}

void *scif_mmap(void *addr, size_t len, int prot_flags, int map_flags, scif_epd_t epd, off_t offset)
{
	struct scif_mapping *m;
	struct xrma_scif_piece piece;
	struct xrma_scif_ep *ep;
	struct xrma_ctx *ctx;
	uint32_t node = 0;
	void *mapped = NULL;
	int ret = 0;

	if ((map_flags & ~SCIF_MAP_FIXED) || (prot_flags & ~(SCIF_PROT_READ | SCIF_PROT_WRITE)) ||
	    !len || len % XRMA_SCIF_PAGE || offset % (off_t)XRMA_SCIF_PAGE ||
	    ((map_flags & SCIF_MAP_FIXED) && (uintptr_t)addr % XRMA_SCIF_PAGE))
		ret = -XRMA_EINVAL;
	else if (offset < 0)
		ret = -XRMA_ENXIO;
	/* The core chooses where a mapping goes. */
	else if (map_flags & SCIF_MAP_FIXED)
		ret = -XRMA_ENOTSUP;
	if (ret) {
		xrma_scif_fail(ret);
		return SCIF_MMAP_FAILED;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return SCIF_MMAP_FAILED;
	}
	ret = xrma_scif_ep_enter(epd, &ep);
	if (!ret) {
		ret = mmap_resolve(ep, offset, len, prot_flags, &piece);
		node = ep->peer_node;
		xrma_scif_ep_leave(ep);
	}
	if (!ret)
		ret = xrma_scif_ctx(&ctx);
	if (!ret)
		ret = xrma_rseg_open(ctx, node, piece.seg_id,
				     XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE, 0,
				     XRMA_SCIF_HANDSHAKE_MS, &m->rseg);
	if (ret == -XRMA_ENOENT || ret == -XRMA_ENOTAVAIL)
		ret = -XRMA_ENXIO;
	if (!ret) {
		/* The mapper may load and store whatever it asked for (§3.5). */
		ret = xrma_rseg_map(m->rseg, piece.seg_offset, len, XRMA_MAP_READ | XRMA_MAP_WRITE, &mapped);
		if (ret)
			xrma_rseg_close(m->rseg);
	}
	if (ret) {
		free(m);
		xrma_scif_fail(ret);
		return SCIF_MMAP_FAILED;
	}
	m->addr = mapped;
	m->len = len;
	pthread_mutex_lock(&mappings_lock);
	m->next = mappings;
	mappings = m;
	pthread_mutex_unlock(&mappings_lock);
	return mapped;
}

int scif_munmap(void *addr, size_t len)
{
	uintptr_t start = (uintptr_t)addr, end;
	struct scif_mapping *gone = NULL;

	if (!len || start % XRMA_SCIF_PAGE || start > UINTPTR_MAX - len) {
		errno = EINVAL;
		return -1;
	}
	end = start + ((len + XRMA_SCIF_PAGE - 1) & ~(XRMA_SCIF_PAGE - 1));
	pthread_mutex_lock(&mappings_lock);
	for (struct scif_mapping **pp = &mappings; *pp;) {
		struct scif_mapping *m = *pp;

		/* Whole mappings that the range touches go, as munmap acts on whole pages. */
		if ((uintptr_t)m->addr < end && (uintptr_t)m->addr + m->len > start) {
			*pp = m->next;
			m->next = gone;
			gone = m;
		} else {
			pp = &m->next;
		}
	}
	pthread_mutex_unlock(&mappings_lock);
	if (!gone)
		return munmap(addr, len);
	while (gone) {
		struct scif_mapping *m = gone;

		gone = m->next;
		xrma_rseg_unmap(m->rseg, m->addr);
		xrma_rseg_close(m->rseg);
		free(m);
	}
	xrma_scif_retired_sweep();
	return 0;
}
