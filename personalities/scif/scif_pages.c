/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_pages.c: the pages behind a window (§3.5, Figure 4).
 * A window represents the pages that backed its virtual range when it was
 * registered, even if the program later maps something else there. Private
 * anonymous memory is re-backed by a memfd at registration (contents copied,
 * the program's range remapped onto it) and the window uses its own view of
 * that memfd. A range already re-backed shares its memfd, so two windows over
 * the same pages stay the same pages (cases 1 and 3). Any other mapping (file,
 * shared) already has stable pages and is used as it is. /proc/self/maps says
 * which case a range is.
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

#define MEMFD_NAME "xrma-scif"

/* Our memfds by inode; refs count the views that use one. */
struct memfd_entry {
	uint64_t ino;
	int fd;
	size_t refs;
};

static pthread_mutex_t memfds_lock = PTHREAD_MUTEX_INITIALIZER;
static struct memfd_entry *memfds;   /* under memfds_lock */
static size_t nmemfds, memfds_cap;

enum range_kind { RANGE_OTHER, RANGE_ANON, RANGE_MEMFD };

/* What backs [start, end): all private anonymous, one of our memfds, or anything else. */
static enum range_kind range_classify(uintptr_t start, uintptr_t end, uint64_t *ino, uint64_t *file_off)
{
	FILE *maps = fopen("/proc/self/maps", "re");
	char line[512];
	uintptr_t at = start;
	enum range_kind kind = RANGE_OTHER;
	bool first = true;

	if (!maps)
		return RANGE_OTHER;
	while (at < end && fgets(line, sizeof(line), maps)) {
		uintptr_t lo, hi;
		unsigned long long off, inode;
		char perms[8], dev[16], path[256] = "";
		enum range_kind this;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %15s %llu %255[^\n]", &lo, &hi, perms,
			   &off, dev, &inode, path) < 6)
			continue;
		if (hi <= at)
			continue;
		if (lo > at)
			break;   /* a hole in the range */
		{
			const char *name = path + strspn(path, " ");

			if (!inode && perms[3] == 'p' && (!*name || !strcmp(name, "[heap]")))
				this = RANGE_ANON;
			else if (!strncmp(name, "/memfd:" MEMFD_NAME, sizeof("/memfd:" MEMFD_NAME) - 1) &&
				 perms[3] == 's')
				this = RANGE_MEMFD;
			else
				this = RANGE_OTHER;
		}
		if (first) {
			kind = this;
			*ino = inode;
			*file_off = off + (at - lo);
			first = false;
		} else if (this != kind || (kind == RANGE_MEMFD &&
					    (inode != *ino || off + (at - lo) != *file_off + (at - start)))) {
			kind = RANGE_OTHER;
		}
		at = hi;
	}
	fclose(maps);
	return at >= end ? kind : RANGE_OTHER;
}

static struct memfd_entry *memfd_find(uint64_t ino)
{
	for (size_t i = 0; i < nmemfds; i++)
		if (memfds[i].ino == ino)
			return &memfds[i];
	return NULL;
}

static int memfd_add(int fd, struct memfd_entry **out)
{
	struct stat st;

	if (fstat(fd, &st))
		return -XRMA_ENOMEM;
	if (nmemfds == memfds_cap) {
		size_t cap = memfds_cap ? memfds_cap * 2 : 16;
		struct memfd_entry *grown = realloc(memfds, cap * sizeof(*grown));

		if (!grown)
			return -XRMA_ENOMEM;
		memfds = grown;
		memfds_cap = cap;
	}
	memfds[nmemfds] = (struct memfd_entry){ .ino = st.st_ino, .fd = fd };
	*out = &memfds[nmemfds++];
	return 0;
}

/* Copy the range into a new memfd and put the memfd under the program's range. */
static int pages_reback(void *addr, size_t len, struct xrma_scif_pages *p)
{
	struct memfd_entry *e;
	void *view;
	int fd, ret;

	fd = memfd_create(MEMFD_NAME, MFD_CLOEXEC);
	if (fd < 0)
		return -XRMA_ENOMEM;
	if (ftruncate(fd, (off_t)len)) {
		close(fd);
		return -XRMA_ENOMEM;
	}
	view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (view == MAP_FAILED) {
		close(fd);
		return -XRMA_ENOMEM;
	}
	memcpy(view, addr, len);
	if (mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		munmap(view, len);
		close(fd);
		return -XRMA_ENOMEM;
	}
	ret = memfd_add(fd, &e);
	if (ret) {
		/* The program's range is on the memfd already; only our bookkeeping failed. */
		munmap(view, len);
		close(fd);
		return ret;
	}
	e->refs++;
	p->view = view;
	p->ino = e->ino;
	return 0;
}

int xrma_scif_pages_pin(void *addr, size_t len, struct xrma_scif_pages *p)
{
	uintptr_t start = (uintptr_t)addr;
	uint64_t ino = 0, file_off = 0;
	struct memfd_entry *e;
	int ret = 0;

	*p = (struct xrma_scif_pages){ .view = addr, .len = len };
	pthread_mutex_lock(&memfds_lock);
	switch (range_classify(start, start + len, &ino, &file_off)) {
	case RANGE_ANON:
		ret = pages_reback(addr, len, p);
		break;
	case RANGE_MEMFD:
		e = memfd_find(ino);
		if (!e) {
			/* Ours once, no window uses it any more: its pages are the program's. */
			ret = pages_reback(addr, len, p);
			break;
		}
		p->view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, (off_t)file_off);
		if (p->view == MAP_FAILED) {
			p->view = addr;
			ret = -XRMA_ENOMEM;
			break;
		}
		e->refs++;
		p->ino = ino;
		break;
	case RANGE_OTHER:
		break;
	}
	pthread_mutex_unlock(&memfds_lock);
	return ret;
}

void xrma_scif_pages_unpin(struct xrma_scif_pages *p)
{
	struct memfd_entry *e;

	if (!p->ino)
		return;
	munmap(p->view, p->len);
	pthread_mutex_lock(&memfds_lock);
	e = memfd_find(p->ino);
	/* The program's own mapping keeps the pages; we only stop being able to share them. */
	if (e && --e->refs == 0) {
		close(e->fd);
		*e = memfds[--nmemfds];
	}
	pthread_mutex_unlock(&memfds_lock);
	p->ino = 0;
}
