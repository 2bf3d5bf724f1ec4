/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_mmap.c: mapped remote memory (§3.6). A mapping owns
 * its own imports of the peer's window segments, so it outlives the endpoint
 * (closing the endpoint does not unmap) and keeps the windows' ranges taken
 * until scif_munmap. Addresses not made by scif_mmap go to munmap(2).
 * One window at no fixed address is the core's mapping as it is. A range over
 * several adjacent windows, or SCIF_MAP_FIXED, needs the core's mappings
 * placed side by side: each is mapped a second time at its place with mremap,
 * which works where the provider's mappings are shared pages (registration
 * makes them so), not where no one file holds a window's pages (EOPNOTSUPP).
 * A non-NULL address without SCIF_MAP_FIXED is a hint, as for mmap(2).
 * The prot_flags are checked against the windows and restrict the mapping;
 * a read-only window's segment refuses writable imports anyway.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "personalities/scif/scif_internal.h"

struct scif_map_part {
	struct xrma_rseg *rseg;
	void *core_addr;         /* what xrma_rseg_map returned */
};

struct scif_mapping {
	void *addr;
	size_t len;
	bool placed;             /* addr is our own mapping, not the core's */
	size_t nparts;
	struct scif_mapping *next;
	struct scif_map_part part[];
};

static pthread_mutex_t mappings_lock = PTHREAD_MUTEX_INITIALIZER;
static struct scif_mapping *mappings;   /* under mappings_lock */

static void mapping_free(struct scif_mapping *m)
{
	if (m->placed)
		munmap(m->addr, m->len);
	for (size_t i = 0; i < m->nparts; i++) {
		xrma_rseg_unmap(m->part[i].rseg, m->part[i].core_addr);
		xrma_rseg_close(m->part[i].rseg);
	}
	free(m);
}

static int mmap_checks(void *addr, size_t len, int prot_flags, int map_flags, off_t offset)
{
	if ((map_flags & ~SCIF_MAP_FIXED) || (prot_flags & ~(SCIF_PROT_READ | SCIF_PROT_WRITE)) || !len ||
	    len % XRMA_SCIF_PAGE || offset % (off_t)XRMA_SCIF_PAGE ||
	    ((map_flags & SCIF_MAP_FIXED) && (!addr || (uintptr_t)addr % XRMA_SCIF_PAGE)))
		return -XRMA_EINVAL;
	return offset < 0 ? -XRMA_ENXIO : 0;
}

/*
 * Import and map each of count pieces; the mapper may load and store whatever
 * it asked for (§3.5). Without SCIF_PROT_WRITE the import and the mapping are
 * read-only, so a read-only window stays read-only (a store faults).
 * m->nparts counts the parts done, for mapping_free.
 */
static int mmap_parts(uint32_t node, const struct xrma_rwin_piece *pieces, size_t count,
		      int prot_flags, struct scif_mapping *m)
{
	bool write = prot_flags & SCIF_PROT_WRITE;
	uint32_t access = XRMA_ACCESS_REMOTE_READ | (write ? XRMA_ACCESS_REMOTE_WRITE : 0);
	uint32_t map = XRMA_MAP_READ | (write ? XRMA_MAP_WRITE : 0);
	struct xrma_ctx *ctx;
	int ret = xrma_scif_ctx(&ctx);

	for (size_t i = 0; !ret && i < count; i++) {
		struct scif_map_part *p = &m->part[i];

		ret = xrma_rseg_open(ctx, node, pieces[i].seg_id, access, 0, XRMA_SCIF_HANDSHAKE_MS,
				     &p->rseg);
		/* The window went away meanwhile, or other nodes hold its pages (max_importers). */
		if (ret == -XRMA_ENOENT || ret == -XRMA_ENOTAVAIL || ret == -XRMA_ECONNREFUSED)
			ret = -XRMA_ENXIO;
		if (ret)
			break;
		ret = xrma_rseg_map(p->rseg, pieces[i].seg_offset, pieces[i].len, map, &p->core_addr);
		if (ret)
			xrma_rseg_close(p->rseg);
		else
			m->nparts++;
	}
	return ret;
}

/* Put the parts side by side at addr (fixed) or in a range we reserve. */
static int mmap_place(void *addr, bool fixed, const struct xrma_rwin_piece *pieces, struct scif_mapping *m)
{
	char *base = fixed ? addr : mmap(addr, m->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t pos = 0;

	if (base == MAP_FAILED)
		return -XRMA_ENOMEM;
	for (size_t i = 0; i < m->nparts; i++) {
		/* old_size 0: a second mapping of the same shared pages, at its place. */
		if (mremap(m->part[i].core_addr, 0, pieces[i].len, MREMAP_MAYMOVE | MREMAP_FIXED, base + pos) ==
		    MAP_FAILED) {
			if (!fixed)
				munmap(base, m->len);
			return errno == EINVAL ? -XRMA_ENOTSUP : -XRMA_ENOMEM;
		}
		pos += pieces[i].len;
	}
	m->addr = base;
	m->placed = true;
	return 0;
}

/*
 * A non-NULL address without SCIF_MAP_FIXED is a hint, as for mmap(2): take
 * the range if it is free, before the imports map anything (which could land
 * there), and place the mapping in it. NULL when the range is not free.
 */
static void *mmap_hint_reserve(void *addr, size_t len)
{
	void *got = mmap(addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (got == addr)
		return got;
	if (got != MAP_FAILED)
		munmap(got, len);
	return NULL;
}

void *scif_mmap(void *addr, size_t len, int prot_flags, int map_flags, scif_epd_t epd, off_t offset)
{
	XRMA_SCIF_ERRNO_KEEP();
	struct xrma_rwin_piece pieces[XRMA_SCIF_PIECES_MAX];
	bool fixed = map_flags & SCIF_MAP_FIXED;
	struct scif_mapping *m = NULL;
	struct xrma_scif_ep *ep;
	uint32_t node = 0;
	size_t count = 0;
	void *hint = NULL;
	int ret;

	ret = mmap_checks(addr, len, prot_flags, map_flags, offset);
	if (!ret)
		ret = xrma_scif_ep_enter(epd, &ep);
	if (!ret) {
		ret = xrma_rwin_lookup(ep->rwin, (uint64_t)offset, len, xrma_scif_prot(prot_flags), pieces,
				       XRMA_SCIF_PIECES_MAX, &count);
		node = ep->peer_node;
		xrma_scif_ep_leave(ep);
	}
	if (!ret && addr && !fixed)
		hint = mmap_hint_reserve(addr, len);
	if (!ret) {
		m = calloc(1, sizeof(*m) + count * sizeof(m->part[0]));
		ret = m ? 0 : -XRMA_ENOMEM;
	}
	if (!ret) {
		m->len = len;
		ret = mmap_parts(node, pieces, count, prot_flags, m);
	}
	if (!ret) {
		if (hint)
			ret = mmap_place(hint, true, pieces, m);
		/* Where mappings cannot be placed (loopback), a hint is ignored as mmap(2) may. */
		if (!hint || (ret == -XRMA_ENOTSUP && count == 1 && !fixed)) {
			if (hint)
				munmap(hint, len);
			hint = NULL;
			ret = 0;
			if (count == 1 && !fixed)
				m->addr = m->part[0].core_addr;
			else
				ret = mmap_place(addr, fixed, pieces, m);
		}
	}
	if (ret) {
		/* A placed mapping owns the reservation: mapping_free unmaps it. */
		if (hint && !(m && m->placed))
			munmap(hint, len);
		if (m)
			mapping_free(m);
		xrma_scif_fail(ret);
		return SCIF_MMAP_FAILED;
	}
	pthread_mutex_lock(&mappings_lock);
	m->next = mappings;
	mappings = m;
	pthread_mutex_unlock(&mappings_lock);
	XRMA_KILL_POINT("scif.mmap.after_map");
	return m->addr;
}

int scif_munmap(void *addr, size_t len)
{
	XRMA_SCIF_ERRNO_KEEP();
	uintptr_t start = (uintptr_t)addr, end;
	struct scif_mapping *gone = NULL;

	if (!len || start % XRMA_SCIF_PAGE || start > UINTPTR_MAX - len) {
		return xrma_scif_fail_errno(EINVAL);
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
		return munmap(addr, len) ? xrma_scif_fail_errno(errno) : 0;
	while (gone) {
		struct scif_mapping *m = gone;

		gone = m->next;
		mapping_free(m);
	}
	xrma_scif_retired_sweep();
	return 0;
}
