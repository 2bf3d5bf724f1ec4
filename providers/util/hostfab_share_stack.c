/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_share_stack.c: re-backed pages on the stack of the
 * thread that forks. Registration may move stack pages onto a MAP_SHARED memfd
 * (a window over a stack array), and they stay there after it. Between fork()
 * and the child's handler, which gives the child private copies, parent and
 * child would share those pages: the parent's calls overwrite the frames the
 * child is returning through, and the child crashes. So before the fork such
 * pages become private (fork then copies them) and after it the parent's go
 * back onto their memfd, where importers see them.
 *
 * The pages being moved hold the frames of the thread moving them, and a
 * store between copying and replacing them would be lost. The moves therefore
 * run on an aside context: clone() with CLONE_VM | CLONE_VFORK on a small stack
 * of its own, which suspends the forking thread until it exits. It makes raw
 * system calls and copies, nothing else: it shares the thread's TLS and
 * libc's state. An importer's store into such pages while the fork runs can be
 * lost (docs/scif.md).
 */
#include "providers/util/hostfab_share_stack.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "providers/util/hostfab_maps.h"

#define STACK_MOVED_MAX 16
#define ASIDE_STACK_LEN (64 * 1024)

/* One memfd-backed piece of the stack, made private for a fork. */
struct stack_moved {
	uintptr_t lo, hi;
	int prot;
	void *aside;    /* the memfd mapping, moved here; NULL when the move failed */
};

/* Under the share table's lock from prepare to the parent's or child's handler. */
static struct stack_moved moved[STACK_MOVED_MAX];
static size_t moved_count;

static bool file_listed(const struct hostfab_share_file *files, size_t count, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < count; i++)
		if (files[i].dev == dev && files[i].ino == ino)
			return true;
	return false;
}

/*
 * The calling thread's stack, whole. For the main thread only the top that
 * pthread_getattr_np gives is reliable (its size stops at the mapping below
 * the top one, which may be re-backed pages): the stack may reach down by
 * RLIMIT_STACK from there.
 */
static bool stack_range(uintptr_t *lo, uintptr_t *hi)
{
	pthread_attr_t attr;
	struct rlimit limit;
	void *addr;
	size_t size;
	bool ok;

	if (pthread_getattr_np(pthread_self(), &attr))
		return false;
	ok = !pthread_attr_getstack(&attr, &addr, &size);
	pthread_attr_destroy(&attr);
	if (!ok)
		return false;
	*lo = (uintptr_t)addr;
	*hi = (uintptr_t)addr + size;
	if (syscall(SYS_gettid) == getpid() && !getrlimit(RLIMIT_STACK, &limit)) {
		if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > *hi)
			*lo = 0;
		else if (*hi - limit.rlim_cur < *lo)
			*lo = *hi - limit.rlim_cur;
	}
	return true;
}

/* The shared mappings of files within [lo, hi), from /proc/self/maps, into moved[]. */
static void stack_find(const struct hostfab_share_file *files, size_t count, uintptr_t lo, uintptr_t hi)
{
	struct hostfab_maps maps;
	const char *line;

	if (hostfab_maps_open(&maps, "/proc/self/maps"))
		return;
	while ((line = hostfab_maps_line(&maps)) && moved_count < STACK_MOVED_MAX) {
		uintptr_t start, end;
		unsigned long long offset, ino;
		unsigned int major, minor;
		char perms[8];

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %x:%x %llu", &start, &end, perms, &offset,
			   &major, &minor, &ino) < 7)
			continue;
		if (end <= lo || start >= hi || perms[3] != 's' ||
		    !file_listed(files, count, makedev(major, minor), (ino_t)ino))
			continue;
		/* A shared mapping is split only where it was mapped in pieces: take it whole. */
		moved[moved_count++] = (struct stack_moved){
			.lo = start,
			.hi = end,
			.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
				(perms[2] == 'x' ? PROT_EXEC : 0),
		};
	}
	hostfab_maps_close(&maps);
}

/*
 * Whole pages of the suspended thread's stack, which AddressSanitizer would
 * take for stray reads; ThreadSanitizer must not see the aside context at all.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
__attribute__((no_sanitize("address", "thread"))) static void aside_copy(void *dst, const void *src, size_t len)
{
	volatile uint64_t *d = dst;
	const volatile uint64_t *s = src;

	for (size_t i = 0; i < len / sizeof(uint64_t); i++)
		d[i] = s[i];
}
#define ASIDE_NO_SANITIZE __attribute__((no_sanitize("address", "thread")))
#else
static void aside_copy(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
}
#define ASIDE_NO_SANITIZE
#endif

static void *raw_mmap(void *addr, size_t len, int prot, int flags)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, -1, 0);
}

static void *raw_mremap(void *from, size_t len, int flags, void *to)
{
	return (void *)syscall(SYS_mremap, from, len, len, flags, to);
}

/*
 * On the aside context: each piece's memfd mapping moves elsewhere and a
 * private copy takes its place. A piece whose copy cannot be made stays shared.
 */
ASIDE_NO_SANITIZE static int aside_make_private(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < moved_count; i++) {
		struct stack_moved *m = &moved[i];
		size_t len = m->hi - m->lo;
		void *copy = raw_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);

		if (copy == MAP_FAILED)
			continue;
		aside_copy(copy, (void *)m->lo, len);
		syscall(SYS_mprotect, copy, len, m->prot);
		/* mremap moves a mapping it does not resize only to a fixed place: reserve one. */
		m->aside = raw_mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
		if (m->aside == MAP_FAILED ||
		    raw_mremap((void *)m->lo, len, MREMAP_MAYMOVE | MREMAP_FIXED, m->aside) == MAP_FAILED) {
			if (m->aside != MAP_FAILED)
				syscall(SYS_munmap, m->aside, len);
			m->aside = NULL;
			syscall(SYS_munmap, copy, len);
			continue;
		}
		if (raw_mremap(copy, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)m->lo) == MAP_FAILED) {
			/* The memfd pages still hold everything: put them back. */
			raw_mremap(m->aside, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)m->lo);
			m->aside = NULL;
			syscall(SYS_munmap, copy, len);
		}
	}
	return 0;
}

/* On the aside context: the private pages' bytes go to the memfd, which takes their place again. */
ASIDE_NO_SANITIZE static int aside_make_shared(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < moved_count; i++) {
		struct stack_moved *m = &moved[i];
		size_t len = m->hi - m->lo;

		if (!m->aside)
			continue;
		if (m->prot & PROT_WRITE)
			aside_copy(m->aside, (void *)m->lo, len);
		/* Replaces the private copy. On failure the stack stays private, and correct. */
		if (raw_mremap(m->aside, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)m->lo) == MAP_FAILED)
			syscall(SYS_munmap, m->aside, len);
		m->aside = NULL;
	}
	return 0;
}

/* Run fn on the aside context while this thread waits; false if it could not start. */
static bool aside_run(int (*fn)(void *))
{
	int saved = errno;
	char *stack = raw_mmap(NULL, ASIDE_STACK_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
	pid_t pid;
	bool ran = false;

	if (stack != MAP_FAILED) {
		/* No exit signal: the program's SIGCHLD handler and wait() calls never see it. */
		pid = clone(fn, stack + ASIDE_STACK_LEN, CLONE_VM | CLONE_VFORK | CLONE_FILES, NULL);
		if (pid > 0) {
			while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
				;
			ran = true;
		}
		syscall(SYS_munmap, stack, ASIDE_STACK_LEN);
	}
	errno = saved;
	return ran;
}

void hostfab_share_stack_aside(const struct hostfab_share_file *files, size_t count)
{
	uintptr_t lo, hi;

	moved_count = 0;
	if (!count || !stack_range(&lo, &hi))
		return;
	stack_find(files, count, lo, hi);
	if (moved_count && !aside_run(aside_make_private))
		moved_count = 0;
}

void hostfab_share_stack_back(void)
{
	if (moved_count && !aside_run(aside_make_shared)) {
		/* The stack stays private; the memfd mappings set aside go. */
		hostfab_share_stack_forget();
		return;
	}
	moved_count = 0;
}

void hostfab_share_stack_forget(void)
{
	for (size_t i = 0; i < moved_count; i++)
		if (moved[i].aside)
			syscall(SYS_munmap, moved[i].aside, moved[i].hi - moved[i].lo);
	moved_count = 0;
}
