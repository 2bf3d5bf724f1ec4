/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_share.c: making the caller's pages mappable by other
 * processes, for memory registration (DESIGN.md: page re-backing lives in the
 * provider's registration, so every face gets it). A range becomes a file and
 * an offset that an importer maps: the file already behind a shared mapping
 * (found by identity, device and inode, never by name alone), or for private
 * memory (heap, data, stack, anonymous, private huge pages) a memfd of ours
 * mapped in place over the same addresses after its contents were copied.
 * The table is per process, as the address space is: every context of the
 * process finds the same memfd again for pages it already re-backed. A
 * re-backed range stays in the table after its last registration (the pages
 * are still on the memfd: a fork must still copy them) until the program no
 * longer maps it there, but its descriptor is closed then: a program that
 * registers many buffers in turn must not run out of descriptors. A new
 * registration of such pages re-backs them again.
 */
#include "providers/util/hostfab_share.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xrma/errors.h>
#include "providers/util/hostfab_maps.h"
#include "providers/util/hostfab_share_stack.h"

/* The name of our memfds as /proc/self/maps shows them once their table entry is gone. */
#define SHARE_MEMFD_NAME "xrma-reg"
#define SHARE_PIECES_MAX 64
/* Re-backed ranges looked for on the forking thread's stack; the most recent first. */
#define SHARE_STACK_FILES_MAX 64

/* One file behind registered pages, with the registrations that use it. */
struct hostfab_share {
	struct hostfab_share *next;   /* shares; under share_lock */
	dev_t dev;                    /* fixed: the file's identity */
	ino_t ino;
	int fd;                       /* -1 once no registration uses a re-backed range */
	size_t refs;                  /* under share_lock; 0: a re-backed range kept for fork */
	/* Re-backed private pages only: where they are, for a forked child (share_child). */
	bool rebacked;                /* fixed */
	bool huge;                    /* fixed: hugetlb memfd */
	uintptr_t addr;               /* fixed: the program's range */
	size_t len;
};

/* One mapping of /proc/self/smaps that the range overlaps. */
struct share_piece {
	uintptr_t lo, hi;
	int prot;
	bool shared;
	uint64_t offset;              /* file offset at lo */
	dev_t dev;
	ino_t ino;
	char path[256];
	bool dontfork, dontdump;
	size_t page;                  /* KernelPageSize */
};

static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hostfab_share *shares;

static bool smaps_header(const char *line, struct share_piece *p)
{
	unsigned long long offset, ino;
	unsigned int major, minor;
	char perms[8];
	int end = 0;

	if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %x:%x %llu%n", &p->lo, &p->hi, perms, &offset,
		   &major, &minor, &ino, &end) < 7)
		return false;
	p->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	p->shared = perms[3] == 's';
	p->offset = offset;
	p->dev = makedev(major, minor);
	p->ino = (ino_t)ino;
	line += end;
	line += strspn(line, " ");
	snprintf(p->path, sizeof(p->path), "%.*s", (int)strcspn(line, "\n"), line);
	p->dontfork = p->dontdump = false;
	p->page = 4096;
	return true;
}

/*
 * The mappings covering [start, end), in order, with their flags. -XRMA_EFAULT
 * for a hole, -XRMA_ENOTSUP for more pieces than we handle. Allocation-free:
 * a forked child runs it (share_child).
 */
static int smaps_read(uintptr_t start, uintptr_t end, struct share_piece *pieces, size_t *count)
{
	struct hostfab_maps maps;
	struct share_piece cur;
	const char *line;
	bool in = false;
	uintptr_t at = start;
	size_t n = 0;
	int ret = 0;

	if (hostfab_maps_open(&maps, "/proc/self/smaps"))
		return -XRMA_ENOTSUP;
	while ((line = hostfab_maps_line(&maps))) {
		unsigned long kib;

		if (smaps_header(line, &cur)) {
			if (in)
				n++;
			in = false;
			if (cur.hi <= at)
				continue;
			if (cur.lo > at || at >= end) {
				if (at < end)
					ret = -XRMA_EFAULT;
				break;
			}
			if (n == SHARE_PIECES_MAX) {
				ret = -XRMA_ENOTSUP;
				break;
			}
			pieces[n] = cur;
			in = true;
			at = cur.hi;
		} else if (in && sscanf(line, "KernelPageSize: %lu kB", &kib) == 1) {
			pieces[n].page = (size_t)kib * 1024;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			pieces[n].dontfork = strstr(line, " dc") != NULL;
			pieces[n].dontdump = strstr(line, " dd") != NULL;
		}
	}
	if (in)
		n++;
	hostfab_maps_close(&maps);
	if (!ret && at < end)
		ret = -XRMA_EFAULT;
	*count = n;
	return ret;
}

static struct hostfab_share *share_find_locked(dev_t dev, ino_t ino)
{
	for (struct hostfab_share *s = shares; s; s = s->next)
		if (s->dev == dev && s->ino == ino)
			return s;
	return NULL;
}

/* Open path if it is the file (dev, ino); read-write where allowed. */
static int open_checked(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != dev || st.st_ino != ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The file behind a shared mapping: by its path when that still names it,
 * else through /proc/self/map_files (which needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE on most kernels: shared anonymous memory and
 * unnamed memfds depend on it).
 */
static int open_mapped_file(const struct share_piece *p)
{
	char path[64];
	int fd = -1;

	if (p->path[0] == '/' && !strstr(p->path, " (deleted)"))
		fd = open_checked(p->path, p->dev, p->ino);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/self/map_files/%" PRIxPTR "-%" PRIxPTR, p->lo, p->hi);
		fd = open_checked(path, p->dev, p->ino);
	}
	return fd;
}

static struct hostfab_share *share_new(int fd, bool rebacked, bool huge, uintptr_t addr, size_t len)
{
	struct hostfab_share *s = calloc(1, sizeof(*s));
	struct stat st;

	if (!s || fstat(fd, &st)) {
		free(s);
		return NULL;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->fd = fd;
	s->refs = 1;
	s->rebacked = rebacked;
	s->huge = huge;
	s->addr = addr;
	s->len = len;
	s->next = shares;
	shares = s;
	return s;
}

/*
 * Whole pages move, not the program's objects: the bytes around a registered
 * buffer (other heap blocks, freed ones, other stack frames) are copied too,
 * which AddressSanitizer would take for the program's own overflows. Under it
 * the copy is a plain loop outside its checks; elsewhere memcpy.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* ThreadSanitizer's copy is kept out too: it runs in a forked child of a threaded process. */
__attribute__((no_sanitize("address", "thread"))) static void copy_pages(void *dst, const void *src,
									 size_t len)
{
	volatile uint64_t *d = dst;
	const volatile uint64_t *s = src;

	for (size_t i = 0; i < len / sizeof(uint64_t); i++)
		d[i] = s[i];
}
#else
static void copy_pages(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
}
#endif

/*
 * Copy what [src, +len) holds into dst: only pages that exist (present or
 * swapped, per /proc/self/pagemap), so a large untouched range costs nothing
 * and stays unallocated in the memfd. Without pagemap, everything.
 */
static void copy_populated(unsigned char *dst, const unsigned char *src, size_t len, size_t page)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t entries[512];
	size_t pages = len / page;

	if (fd < 0 || page != (size_t)sysconf(_SC_PAGESIZE)) {
		if (fd >= 0)
			close(fd);
		copy_pages(dst, src, len);
		return;
	}
	for (size_t i = 0; i < pages;) {
		size_t want = pages - i < 512 ? pages - i : 512;
		off_t at = (off_t)(((uintptr_t)src / page + i) * sizeof(uint64_t));
		ssize_t got = pread(fd, entries, want * sizeof(uint64_t), at);

		if (got <= 0) {
			copy_pages(dst + i * page, src + i * page, len - i * page);
			break;
		}
		for (size_t j = 0; j < (size_t)got / sizeof(uint64_t); j++, i++)
			if (entries[j] & (3ull << 62))   /* bit 63 present, bit 62 swapped */
				copy_pages(dst + i * page, src + i * page, page);
	}
	close(fd);
}

/* Map pieces of the program's range over fd (file offset = address - start), keeping its advice. */
static int map_over(const struct share_piece *pieces, size_t count, uintptr_t start, uintptr_t end, int fd,
		    bool huge)
{
	for (size_t i = 0; i < count; i++) {
		uintptr_t lo = pieces[i].lo > start ? pieces[i].lo : start;
		uintptr_t hi = pieces[i].hi < end ? pieces[i].hi : end;

		if (mmap((void *)lo, hi - lo, pieces[i].prot, MAP_SHARED | MAP_FIXED | (huge ? MAP_HUGETLB : 0),
			 fd, (off_t)(lo - start)) == MAP_FAILED)
			return -XRMA_ENOMEM;
		/* A new mapping forgets the old one's advice: registration must not change it. */
		if (pieces[i].dontfork)
			madvise((void *)lo, hi - lo, MADV_DONTFORK);
		if (pieces[i].dontdump)
			madvise((void *)lo, hi - lo, MADV_DONTDUMP);
	}
	return 0;
}

/*
 * Move private pages onto a fresh memfd at the same addresses. A store by
 * another thread into the range while this runs may be lost: registration and
 * stores into the same pages must not race (SCIF and SISCI programs register
 * before they share the memory).
 */
static int reback(const struct share_piece *pieces, size_t count, uintptr_t start, uintptr_t end,
		  struct hostfab_share **out)
{
	size_t len = end - start, page = pieces[0].page;
	bool huge = page != (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *view;
	int fd, ret;

	for (size_t i = 0; i < count; i++) {
		/* Unreadable pages cannot be copied; mixed page sizes cannot share one memfd. */
		if (!(pieces[i].prot & PROT_READ) || pieces[i].page != page)
			return -XRMA_ENOTSUP;
	}
	if (huge && (start % page || len % page))
		return -XRMA_ENOTSUP;
	fd = memfd_create(SHARE_MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING | (huge ? MFD_HUGETLB : 0));
	if (fd < 0)
		return -XRMA_ENOMEM;
	if (fchmod(fd, 0600) || ftruncate(fd, (off_t)len)) {
		close(fd);
		return -XRMA_ENOMEM;
	}
	/* Importers get this descriptor: none may shrink the pages under the program. */
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | (huge ? MAP_HUGETLB : 0), fd, 0);
	if (view == MAP_FAILED) {
		close(fd);
		return -XRMA_ENOMEM;
	}
	copy_populated(view, (const unsigned char *)start, len, page);
	munmap(view, len);
	ret = map_over(pieces, count, start, end, fd, huge);
	if (ret) {
		/* Some pieces may be on the memfd already: it holds their contents, so they stay. */
		close(fd);
		return ret;
	}
	*out = share_new(fd, true, huge, start, len);
	if (!*out) {
		close(fd);
		return -XRMA_ENOMEM;
	}
	return 0;
}

/*
 * A forked child gets private copies of the pages we re-backed, as it would
 * have had without registration: MAP_SHARED would let parent and child see
 * each other's stores. Ranges marked MADV_DONTFORK never reach the child. The
 * copy is taken when the child starts, so a store the parent makes during the
 * fork may show in it.
 */
static void share_child(void)
{
	struct share_piece pieces[SHARE_PIECES_MAX];

	for (struct hostfab_share *s = shares; s; s = s->next) {
		size_t count = 0;

		if (!s->rebacked)
			continue;
		/* Holes (the program unmapped pages since) are fine: smaps_read stops there. */
		smaps_read(s->addr, s->addr + s->len, pieces, &count);
		for (size_t i = 0; i < count; i++) {
			uintptr_t lo = pieces[i].lo > s->addr ? pieces[i].lo : s->addr;
			uintptr_t hi = pieces[i].hi < s->addr + s->len ? pieces[i].hi : s->addr + s->len;
			off_t base = (off_t)(pieces[i].offset + (lo - pieces[i].lo));
			unsigned char *copy;

			if (!pieces[i].shared || pieces[i].dev != s->dev || pieces[i].ino != s->ino)
				continue;
			copy = mmap(NULL, hi - lo, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (s->huge ? MAP_HUGETLB : 0), -1, 0);
			if (copy == MAP_FAILED)
				continue;
			/* No descriptor left (see hostfab_share_put): the pages as mapped. */
			if (s->fd < 0) {
				/* Replaced below anyway: readable for the copy, whatever it was. */
				if (!(pieces[i].prot & PROT_READ))
					mprotect((void *)lo, hi - lo, PROT_READ);
				copy_pages(copy, (void *)lo, hi - lo);
			}
			/* Only the memfd's data extents: holes read as zeros in the copy too. */
			for (off_t at = base; s->fd >= 0 && at < base + (off_t)(hi - lo);) {
				off_t data = lseek(s->fd, at, SEEK_DATA), hole;

				if (data < 0 || data >= base + (off_t)(hi - lo))
					break;
				hole = lseek(s->fd, data, SEEK_HOLE);
				if (hole < 0 || hole > base + (off_t)(hi - lo))
					hole = base + (off_t)(hi - lo);
				for (off_t pos = data; pos < hole;) {
					ssize_t got = pread(s->fd, copy + (pos - base), (size_t)(hole - pos), pos);

					if (got <= 0)
						break;
					pos += got;
				}
				at = hole;
			}
			mprotect(copy, hi - lo, pieces[i].prot);
			if (mremap(copy, hi - lo, hi - lo, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) == MAP_FAILED)
				munmap(copy, hi - lo);
			if (pieces[i].dontdump)
				madvise((void *)lo, hi - lo, MADV_DONTDUMP);
		}
	}
}

/*
 * The table is consistent at the fork: no other thread is changing it
 * meanwhile. Re-backed pages on the forking thread's stack are made private
 * first (hostfab_share_stack.c).
 */
static void share_fork_prepare(void)
{
	struct hostfab_share_file files[SHARE_STACK_FILES_MAX];
	size_t count = 0;

	pthread_mutex_lock(&share_lock);
	for (struct hostfab_share *s = shares; s && count < SHARE_STACK_FILES_MAX; s = s->next)
		if (s->rebacked)
			files[count++] = (struct hostfab_share_file){ .dev = s->dev, .ino = s->ino };
	hostfab_share_stack_aside(files, count);
}

static void share_fork_parent(void)
{
	hostfab_share_stack_back();
	pthread_mutex_unlock(&share_lock);
}

static void share_fork_child(void)
{
	hostfab_share_stack_forget();
	share_child();
	pthread_mutex_unlock(&share_lock);
}

/*
 * Set before every other handler of the library (constructor priority), so
 * ours run last before a fork and first after it: share_lock is a leaf, taken
 * after the core's locks and released before them. Without memory for the
 * handlers only fork is unguarded.
 */
static void __attribute__((constructor(101))) share_fork_handlers_set(void)
{
	(void)pthread_atfork(share_fork_prepare, share_fork_parent, share_fork_child);
}

/* Whether some page of s's range still maps its file (under share_lock). */
static bool share_still_mapped(const struct hostfab_share *s)
{
	struct share_piece pieces[SHARE_PIECES_MAX];
	size_t count = 0;

	smaps_read(s->addr, s->addr + s->len, pieces, &count);
	for (size_t i = 0; i < count; i++)
		if (pieces[i].dev == s->dev && pieces[i].ino == s->ino)
			return true;
	return false;
}

/* Forget the re-backed ranges no registration uses and the program no longer maps. */
static void share_sweep_locked(void)
{
	for (struct hostfab_share **pp = &shares; *pp;) {
		struct hostfab_share *s = *pp;

		if (s->refs || share_still_mapped(s)) {
			pp = &s->next;
			continue;
		}
		*pp = s->next;
		if (s->fd >= 0)
			close(s->fd);
		free(s);
	}
}

/* Drop s from the table (under share_lock); the caller closes and frees it. */
static void share_unlink_locked(struct hostfab_share *s)
{
	struct hostfab_share **pp;

	for (pp = &shares; *pp && *pp != s; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = s->next;
}

int hostfab_share_get(void *addr, size_t len, int *fd, uint64_t *file_offset, struct hostfab_share **out)
{
	struct share_piece pieces[SHARE_PIECES_MAX];
	uintptr_t start = (uintptr_t)addr, end;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), count = 0;
	struct hostfab_share *s = NULL;
	bool all_shared = true, all_private = true, one_file = true;
	int ret;

	if (start % page || len > SIZE_MAX - page)
		return -XRMA_ENOTSUP;
	end = start + (len + page - 1) / page * page;
	if (end < start)
		return -XRMA_ENOTSUP;
	pthread_mutex_lock(&share_lock);
	share_sweep_locked();
	ret = smaps_read(start, end, pieces, &count);
	for (size_t i = 0; !ret && i < count; i++) {
		all_shared &= pieces[i].shared && pieces[i].ino;
		all_private &= !pieces[i].shared;
		if (i && (pieces[i].dev != pieces[0].dev || pieces[i].ino != pieces[0].ino ||
			  pieces[i].offset != pieces[0].offset + (pieces[i].lo - pieces[0].lo)))
			one_file = false;
	}
	if (!ret && all_shared && one_file) {
		*file_offset = pieces[0].offset + (start - pieces[0].lo);
		s = share_find_locked(pieces[0].dev, pieces[0].ino);
		if (s && s->fd < 0) {
			/* Re-backed pages whose descriptor we let go: re-back them again. */
			share_unlink_locked(s);
			free(s);
			s = NULL;
			all_private = true;
		} else if (s) {
			s->refs++;
		} else if (strstr(pieces[0].path, "/memfd:" SHARE_MEMFD_NAME " ") == pieces[0].path) {
			/* Pages of ours the table forgot (moved by the program): private, re-back again. */
			all_private = true;
		} else {
			int file = open_mapped_file(&pieces[0]);

			if (file >= 0) {
				s = share_new(file, false, false, 0, 0);
				if (!s) {
					close(file);
					ret = -XRMA_ENOMEM;
				}
			} else {
				ret = -XRMA_ENOTSUP;
			}
		}
	}
	if (!ret && !s) {
		if (all_private) {
			ret = reback(pieces, count, start, end, &s);
			*file_offset = 0;
		} else {
			/* Mixed kinds, or several files: no one file holds the range. */
			ret = -XRMA_ENOTSUP;
		}
	}
	pthread_mutex_unlock(&share_lock);
	if (ret)
		return ret;
	*fd = s->fd;
	*out = s;
	return 0;
}

void hostfab_share_put(struct hostfab_share *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&share_lock);
	if (--s->refs) {
		pthread_mutex_unlock(&share_lock);
		return;
	}
	if (s->rebacked) {
		/* Listed while mapped, for a fork (share_sweep_locked); the descriptor goes now. */
		close(s->fd);
		s->fd = -1;
		pthread_mutex_unlock(&share_lock);
		return;
	}
	share_unlink_locked(s);
	pthread_mutex_unlock(&share_lock);
	/* The program's range keeps mapping the pages: closing our descriptor frees nothing. */
	close(s->fd);
	free(s);
}
