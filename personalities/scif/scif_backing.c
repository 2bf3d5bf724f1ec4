/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_backing.c: the pages behind windows (§3.5, Figures
 * 4-6). A window represents the pages that backed its range when it was
 * registered, even if the program maps something else there later, and two
 * windows over the same pages (in one endpoint or two) share them.
 * Private anonymous mappings are moved, at registration, onto exportable memory:
 * memory the provider allocates (the program's range is remapped onto the same
 * pages with mremap, so the peer can map it and RMA is a plain copy), or where
 * the provider's memory is not shareable, a memfd of ours that the provider
 * registers. A backing is one segment, shared by every window over its pages
 * with the same write right, found again through /proc/self/maps (the inode
 * behind the range). The segment grants remote write only to writable windows,
 * so the core itself refuses a writable import of a read-only window; a window
 * whose pages already back windows of the other kind gets a segment of its own,
 * registered in place. Other
 * mappings (files, shared memory) already have stable pages, and the brk heap
 * must stay private: registered as they are.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "personalities/scif/scif_internal.h"

struct xrma_scif_backing {
	struct xrma_seg *seg;      /* exported; a window uses [seg_offset, +len) of it */
	uint64_t seg_id;
	uint64_t ino;              /* the file behind the program's range; 0: not shareable */
	size_t len;
	bool writable;             /* remote write granted: windows with SCIF_PROT_WRITE */
	void *view;                /* our memfd fallback: our own view, else NULL */
	int memfd;                 /* our memfd fallback, else -1 */
	size_t refs;               /* windows using it; under backings_lock */
	struct xrma_scif_backing *next;
};

static pthread_mutex_t backings_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xrma_scif_backing *backings;   /* shareable backings with refs > 0 */
/*
 * Files we once moved programs' ranges onto, whose windows are all gone: the
 * program's range still maps them, and a new registration moves it again.
 */
static uint64_t *former;
static size_t nformer, former_cap;

static bool former_take(uint64_t ino)
{
	for (size_t i = 0; i < nformer; i++) {
		if (former[i] == ino) {
			former[i] = former[--nformer];
			return true;
		}
	}
	return false;
}

static void former_add(uint64_t ino)
{
	uint64_t *grown = xrma_scif_grow(former, &former_cap, nformer, sizeof(*former));

	/* Without room it only costs a window that cannot be shared or mapped. */
	if (!grown)
		return;
	former = grown;
	former[nformer++] = ino;
}

enum range_kind { RANGE_OTHER, RANGE_ANON, RANGE_SHARED };

/* One line of /proc/self/maps; *name points into line (the path, or ""). */
static bool maps_line(const char *line, uintptr_t *lo, uintptr_t *hi, char *perms, uint64_t *off,
		      uint64_t *ino, const char **name)
{
	unsigned long long o, i;
	char dev[16];
	int end = 0;

	if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %15s %llu%n", lo, hi, perms, &o, dev, &i,
		   &end) < 6)
		return false;
	*off = o;
	*ino = i;
	*name = line + end + strspn(line + end, " ");
	return true;
}

/*
 * What backs [start, end): all private anonymous memory, one shared file at
 * consecutive offsets (*ino, *file_off at start), or anything else.
 */
static enum range_kind range_classify(uintptr_t start, uintptr_t end, uint64_t *ino, uint64_t *file_off)
{
	FILE *maps = fopen("/proc/self/maps", "re");
	enum range_kind kind = RANGE_OTHER;
	uintptr_t at = start;
	bool first = true;
	char *line = NULL;
	size_t cap = 0;

	if (!maps)
		return RANGE_OTHER;
	while (at < end && getline(&line, &cap, maps) > 0) {
		uintptr_t lo, hi;
		uint64_t off, inode;
		char perms[8];
		enum range_kind this = RANGE_OTHER;
		const char *name;

		line[strcspn(line, "\n")] = 0;
		if (!maps_line(line, &lo, &hi, perms, &off, &inode, &name) || hi <= at)
			continue;
		if (lo > at)
			break;   /* a hole */
		/*
		 * Writable private anonymous mappings only: moving them changes nothing the
		 * program sees. Not the brk heap: the allocator reuses its pages after
		 * free, and moved pages would be shared with every child forked later.
		 */
		if (!inode && perms[1] == 'w' && perms[3] == 'p' && !*name)
			this = RANGE_ANON;
		else if (inode && perms[3] == 's')
			this = RANGE_SHARED;
		if (first) {
			kind = this;
			*ino = inode;
			*file_off = off + (at - lo);
			first = false;
		} else if (this != kind ||
			   (kind == RANGE_SHARED && (inode != *ino || off + (at - lo) != *file_off + (at - start)))) {
			kind = RANGE_OTHER;
		}
		at = hi;
	}
	free(line);
	fclose(maps);
	return at >= end ? kind : RANGE_OTHER;
}

/* Local access always; remote write only for a writable window (remote read always). */
static uint32_t backing_access(bool writable)
{
	return XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE | XRMA_ACCESS_REMOTE_READ |
	       (writable ? XRMA_ACCESS_REMOTE_WRITE : 0);
}

static int backing_export(struct xrma_scif_backing *b)
{
	int ret = xrma_seg_id(b->seg, &b->seg_id);

	return ret ? ret : xrma_seg_export(b->seg, 0);
}

/* Move the program's range onto memory the provider allocated (shared pages). */
static int backing_provider(struct xrma_ctx *ctx, void *addr, size_t len, struct xrma_scif_backing *b)
{
	struct xrma_seg_attr attr = { .len = len, .id = XRMA_ID_ANY, .access = backing_access(b->writable) };
	uint64_t file_off;
	void *p;
	int ret;

	ret = xrma_seg_open(ctx, &attr, &b->seg);
	if (!ret)
		ret = xrma_seg_addr(b->seg, &p);
	if (ret)
		return ret;
	memcpy(p, addr, len);
	/* old_size 0 maps the same shared pages a second time, here over the program's range. */
	if (mremap(p, 0, len, MREMAP_MAYMOVE | MREMAP_FIXED, addr) == MAP_FAILED ||
	    range_classify((uintptr_t)addr, (uintptr_t)addr + len, &b->ino, &file_off) != RANGE_SHARED ||
	    file_off != 0) {
		/* Private provider memory (loopback) cannot be shared so: the caller falls back. */
		xrma_seg_close(b->seg);
		b->seg = NULL;
		return -XRMA_ENOTSUP;
	}
	return 0;
}

/* Move the program's range onto a memfd of ours and register our view of it. */
static int backing_memfd(struct xrma_ctx *ctx, void *addr, size_t len, struct xrma_scif_backing *b)
{
	struct xrma_seg_attr attr = { .len = len, .id = XRMA_ID_ANY, .access = backing_access(b->writable) };
	struct stat st;
	int ret = -XRMA_ENOMEM;

	b->memfd = memfd_create("xrma-scif", MFD_CLOEXEC);
	if (b->memfd < 0)
		return -XRMA_ENOMEM;
	if (ftruncate(b->memfd, (off_t)len) || fstat(b->memfd, &st))
		goto err_close;
	b->view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, b->memfd, 0);
	if (b->view == MAP_FAILED)
		goto err_close;
	memcpy(b->view, addr, len);
	attr.addr = b->view;
	ret = xrma_seg_open(ctx, &attr, &b->seg);
	if (ret)
		goto err_unmap;
	if (mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, b->memfd, 0) == MAP_FAILED) {
		ret = -XRMA_ENOMEM;
		goto err_seg;
	}
	b->ino = st.st_ino;
	return 0;

err_seg:
	xrma_seg_close(b->seg);
	b->seg = NULL;
err_unmap:
	munmap(b->view, len);
	b->view = NULL;
err_close:
	close(b->memfd);
	b->memfd = -1;
	return ret;
}

/* The program's own pages, registered where they are (never shared with another window). */
static int backing_direct(struct xrma_ctx *ctx, void *addr, size_t len, struct xrma_scif_backing *b)
{
	struct xrma_seg_attr attr = { .len = len, .addr = addr, .id = XRMA_ID_ANY,
				      .access = backing_access(b->writable) };

	return xrma_seg_open(ctx, &attr, &b->seg);
}

static void backing_free_locked(struct xrma_scif_backing *b)
{
	if (b->ino)
		former_add(b->ino);
	if (b->view)
		munmap(b->view, b->len);
	if (b->memfd >= 0)
		close(b->memfd);
	free(b);
}

int xrma_scif_backing_get(void *addr, size_t len, bool writable, struct xrma_scif_backing **out,
			  size_t *seg_offset)
{
	uint64_t ino = 0, file_off = 0;
	struct xrma_scif_backing *b;
	struct xrma_ctx *ctx;
	enum range_kind kind;
	int ret;

	ret = xrma_scif_ctx(&ctx);
	if (ret)
		return ret;
	pthread_mutex_lock(&backings_lock);
	kind = range_classify((uintptr_t)addr, (uintptr_t)addr + len, &ino, &file_off);
	if (kind == RANGE_SHARED) {
		for (b = backings; b; b = b->next) {
			if (b->ino == ino && b->writable == writable && file_off <= b->len &&
			    len <= b->len - file_off) {
				b->refs++;
				*out = b;
				*seg_offset = (size_t)file_off;
				pthread_mutex_unlock(&backings_lock);
				return 0;
			}
		}
	}
	if (kind == RANGE_SHARED && former_take(ino))
		kind = RANGE_ANON;
	b = calloc(1, sizeof(*b));
	if (!b) {
		pthread_mutex_unlock(&backings_lock);
		return -XRMA_ENOMEM;
	}
	b->len = len;
	b->writable = writable;
	b->memfd = -1;
	if (kind == RANGE_ANON) {
		ret = backing_provider(ctx, addr, len, b);
		if (ret == -XRMA_ENOTSUP)
			ret = backing_memfd(ctx, addr, len, b);
	} else {
		ret = backing_direct(ctx, addr, len, b);
	}
	if (!ret)
		ret = backing_export(b);
	if (ret) {
		if (b->seg)
			xrma_seg_close(b->seg);
		backing_free_locked(b);
		pthread_mutex_unlock(&backings_lock);
		return ret;
	}
	b->refs = 1;
	if (b->ino) {
		b->next = backings;
		backings = b;
	}
	pthread_mutex_unlock(&backings_lock);
	*out = b;
	*seg_offset = 0;
	return 0;
}

struct xrma_seg *xrma_scif_backing_seg(const struct xrma_scif_backing *b)
{
	return b->seg;
}

uint64_t xrma_scif_backing_id(const struct xrma_scif_backing *b)
{
	return b->seg_id;
}

void xrma_scif_backing_free(struct xrma_scif_backing *b)
{
	pthread_mutex_lock(&backings_lock);
	backing_free_locked(b);
	pthread_mutex_unlock(&backings_lock);
}

static void backing_unlist(struct xrma_scif_backing *b)
{
	for (struct xrma_scif_backing **pp = &backings; *pp; pp = &(*pp)->next) {
		if (*pp == b) {
			*pp = b->next;
			return;
		}
	}
}

bool xrma_scif_backing_put(struct xrma_scif_backing *b, bool retire)
{
	bool done = true, to_retire = false;

	pthread_mutex_lock(&backings_lock);
	/*
	 * Other windows still use the pages: this one lets go now, even if a
	 * transfer into its range is still running (the pages stay alive anyway).
	 */
	if (b->refs > 1) {
		b->refs--;
	} else if (xrma_seg_close(b->seg) != -XRMA_EBUSY) {
		backing_unlist(b);
		backing_free_locked(b);
	} else if (retire) {
		backing_unlist(b);
		b->refs = 0;
		to_retire = true;
	} else {
		done = false;
	}
	pthread_mutex_unlock(&backings_lock);
	/* Lock order: the retired list's lock is taken before backings_lock, never after. */
	if (to_retire)
		xrma_scif_retire(b->seg, b);
	return done;
}
