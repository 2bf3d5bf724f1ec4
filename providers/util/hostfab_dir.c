/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_dir.c: the per-node directory in shared memory.
 *
 * One file per (fabric, node) under the runtime directory. The creator builds
 * it under a temporary name and links it into place, so nobody ever maps a
 * half-initialised directory. Writers take the robust mutex (a holder that
 * dies leaves EOWNERDEAD, and the next holder reclaims its slots); lookups
 * never lock but read between two equal even values of seq.
 *
 * An endpoint is alive while it holds an OFD write lock on one byte of the
 * file (its slot number past the end of the data): the kernel drops it when
 * the process dies, however it dies, so a slot whose byte is unlocked belongs
 * to a dead endpoint and is reclaimed with its names and exports.
 */
#include "providers/util/hostfab.h"
#include "common/spin.h"
#include "common/futex.h"
#include "providers/prov_atomic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HOSTFAB_LOCK_BASE ((off_t)1 << 40)   /* slot lock bytes live past the data */

static void dir_path(const struct hostfab_ep *ep, uint32_t node, char *buf, size_t len)
{
	snprintf(buf, len, "%s/xrma.%s.%u", ep->dirpath, ep->ns, node);
}

static int dir_init_file(const struct hostfab_ep *ep, int fd, const char *path, uint32_t node)
{
	struct hostfab_dir *dir;
	pthread_mutexattr_t ma;
	struct timespec now;
	int err;

	/* Every page allocated now: a full file system fails here, not later as a
	 * SIGBUS in whichever process first touches an unbacked page. */
	err = posix_fallocate(fd, 0, sizeof(*dir));
	if (err) {
		hostfab_detail("%s: cannot allocate %zu bytes for %s: %s", ep->model->name,
			       sizeof(*dir), path, strerror(err));
		return err == ENOSPC ? -XRMA_ENOSPC : err == ENOMEM ? -XRMA_ENOMEM : -XRMA_EIO;
	}
	dir = mmap(NULL, sizeof(*dir), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (dir == MAP_FAILED)
		return -XRMA_ENOMEM;
	dir->node = node;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&dir->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	/* Endpoint numbers start somewhere new each time the node file is born, so
	 * an address of a previous incarnation never reaches a new endpoint. */
	clock_gettime(CLOCK_REALTIME, &now);
	dir->last_ep = (uint32_t)((now.tv_sec * 1000003u + now.tv_nsec / 1000) & 0x3fffffff) << 1;
	dir->next_gen = 1;
	atomic_store_explicit(&dir->magic, HOSTFAB_DIR_MAGIC, memory_order_release);
	munmap(dir, sizeof(*dir));
	return 0;
}

/* Whether any endpoint holds its liveness byte in the file open as fd. */
static bool file_has_live_slot(int fd)
{
	struct flock fl = {
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = HOSTFAB_LOCK_BASE,
		.l_len = HOSTFAB_EP_MAX,
	};

	return fcntl(fd, F_OFD_GETLK, &fl) != 0 || fl.l_type != F_UNLCK;
}

/* Whether the file open as fd has a node directory's size and, for node (UINT32_MAX: any), its header. */
static bool dir_file_valid(int fd, const struct stat *st, uint32_t node)
{
	uint64_t magic;
	uint32_t file_node;

	if ((size_t)st->st_size < sizeof(struct hostfab_dir))
		return false;
	/* Read, not mapped: a file shrunk under us gives a short read, never a SIGBUS. */
	if (pread(fd, &magic, sizeof(magic), offsetof(struct hostfab_dir, magic)) != sizeof(magic) ||
	    pread(fd, &file_node, sizeof(file_node), offsetof(struct hostfab_dir, node)) !=
		    sizeof(file_node))
		return false;
	return magic == HOSTFAB_DIR_MAGIC && (node == UINT32_MAX || file_node == node);
}

/*
 * Remove a broken (truncated or overwritten) directory file at path, open as
 * fd, if it is ours and no endpoint lives in it. false: it stays, and whoever
 * found it must refuse it.
 */
static bool dir_sweep_broken(const struct hostfab_ep *ep, int fd, const struct stat *st, const char *path)
{
	struct stat now;

	if (st->st_uid != ep->uid || file_has_live_slot(fd))
		return false;
	/* Only the file we looked at: a fresh one linked in meanwhile is left alone. */
	if (stat(path, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino)
		unlink(path);
	return true;
}

/*
 * Whether an endpoint of node listens now (its abstract socket, hostfab_chan.c,
 * in /proc/net/unix, flagged as accepting connections); its name into name.
 * Endpoints stop listening before they leave the node's file, and a dead
 * process's socket is gone with it, so a listener while the file is missing
 * means the file was removed under a running node.
 */
static bool node_listening(const struct hostfab_ep *ep, uint32_t node, char *name, size_t len)
{
	char prefix[192], line[512];
	size_t plen;
	bool found = false;
	FILE *f = fopen("/proc/net/unix", "re");

	if (!f)
		return false;
	plen = (size_t)snprintf(prefix, sizeof(prefix), "@xrma.%s.%u.", ep->ns, node);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long flags;
		char path[256];

		/* Num RefCount Protocol Flags Type St Inode Path; 0x10000: listening */
		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %255s", &flags, path) != 2)
			continue;
		if ((flags & 0x10000) && !strncmp(path, prefix, plen)) {
			snprintf(name, len, "%s", path);
			found = true;
		}
	}
	fclose(f);
	return found;
}

int hostfab_dir_check_own(struct hostfab_ep *ep)
{
	char path[PATH_MAX];
	struct stat mine, there;

	dir_path(ep, ep->self.node, path, sizeof(path));
	if (fstat(ep->own->fd, &mine) == 0 && stat(path, &there) == 0 && mine.st_dev == there.st_dev &&
	    mine.st_ino == there.st_ino)
		return 0;
	hostfab_detail("%s: node %u's runtime file %s was removed or replaced while the node runs "
		       "(a tmp cleaner, or RemoveIPC of systemd-logind?): its names are invisible to "
		       "other processes; restart the node's processes", ep->model->name, ep->self.node,
		       path);
	return -XRMA_EIO;
}

/* Create and publish the file of node; EEXIST if someone else did first. */
static int dir_create(struct hostfab_ep *ep, uint32_t node, const char *path)
{
	char tmp[PATH_MAX + 64];
	int fd, ret;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.%lx", path, (long)getpid(), (unsigned long)pthread_self());
	/* Private to the user, unless other users are let in: then they may read it
	 * (look names up); writing stays the owner's. */
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
		  ep->allow_any || ep->allow_count ? 0644 : 0600);
	if (fd >= 0 && (ep->allow_any || ep->allow_count))
		fchmod(fd, 0644);   /* past the umask */
	if (fd < 0) {
		hostfab_detail("%s: cannot create %s: %s", ep->model->name, tmp, strerror(errno));
		return errno == EACCES ? -XRMA_EACCES : -XRMA_EIO;
	}
	ret = dir_init_file(ep, fd, tmp, node);
	if (!ret && link(tmp, path) != 0)
		ret = errno == EEXIST ? -XRMA_EEXIST : -XRMA_EIO;
	unlink(tmp);
	close(fd);
	return ret;
}

int hostfab_dir_open(struct hostfab_ep *ep, uint32_t node, bool create, struct hostfab_dirmap **out)
{
	char path[PATH_MAX], listener[256];
	struct hostfab_dirmap *map;
	struct stat st;
	int fd = -1, ret;
	bool writable = true;

	dir_path(ep, node, path, sizeof(path));
	for (int attempt = 0; attempt < 64; attempt++) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0 && errno == EACCES && !create) {
			fd = open(path, O_RDONLY | O_CLOEXEC);
			writable = false;
		}
		if (fd < 0) {
			if (errno != ENOENT)
				return errno == EACCES ? -XRMA_EACCES : -XRMA_EIO;
			if (!create)
				return -XRMA_ENODEV;
			if (node_listening(ep, node, listener, sizeof(listener))) {
				hostfab_detail("%s: node %u is running (it listens as %s) but its runtime "
					       "file %s was removed; refusing to start a second copy of "
					       "the node: stop its processes first", ep->model->name,
					       node, listener, path);
				return -XRMA_EADDRINUSE;
			}
			ret = dir_create(ep, node, path);
			if (ret && ret != -XRMA_EEXIST)
				return ret;
			continue;
		}
		if (fstat(fd, &st) != 0) {
			close(fd);
			return -XRMA_EIO;
		}
		if (!dir_file_valid(fd, &st, node)) {
			/* Files are linked in whole, so this one was truncated or
			 * overwritten since: swept if nobody uses it, else refused (mapping
			 * it would give its users SIGBUS or garbage). */
			bool swept = dir_sweep_broken(ep, fd, &st, path);

			close(fd);
			fd = -1;
			if (swept)
				continue;
			hostfab_detail("%s: %s is not a valid node file (%lld bytes, owner uid %u) and is in use",
				       ep->model->name, path, (long long)st.st_size, (unsigned)st.st_uid);
			return -XRMA_EIO;
		}
		break;
	}
	if (fd < 0)
		return -XRMA_EAGAIN;
	map = calloc(1, sizeof(*map));
	if (!map) {
		close(fd);
		return -XRMA_ENOMEM;
	}
	map->dir = mmap(NULL, sizeof(*map->dir), writable ? PROT_READ | PROT_WRITE : PROT_READ,
			MAP_SHARED, fd, 0);
	if (map->dir == MAP_FAILED ||
	    atomic_load_explicit(&map->dir->magic, memory_order_acquire) != HOSTFAB_DIR_MAGIC ||
	    map->dir->node != node) {
		if (map->dir != MAP_FAILED)
			munmap(map->dir, sizeof(*map->dir));
		close(fd);
		free(map);
		return -XRMA_EIO;
	}
	map->fd = fd;
	map->node = node;
	map->writable = writable;
	*out = map;
	return 0;
}

void hostfab_dir_close(struct hostfab_dirmap *map)
{
	if (!map)
		return;
	munmap(map->dir, sizeof(*map->dir));
	close(map->fd);
	free(map);
}

/* A file unlinked since we mapped it is a dead node's: the caller must map again. */
static bool dir_unlinked(const struct hostfab_dirmap *map)
{
	struct stat st;

	return fstat(map->fd, &st) != 0 || st.st_nlink == 0;
}

int hostfab_dir_peer(struct hostfab_ep *ep, uint32_t node, struct hostfab_dirmap **out)
{
	struct hostfab_dirmap *map, **pp, *fresh, *stale = NULL;
	int ret;

	if (node == ep->self.node) {
		*out = ep->own;
		return 0;
	}
	pthread_mutex_lock(&ep->lock);
	for (pp = &ep->dirs; (map = *pp); pp = &map->next) {
		if (map->node != node)
			continue;
		if (!dir_unlinked(map)) {
			map->users++;
			pthread_mutex_unlock(&ep->lock);
			*out = map;
			return 0;
		}
		/* No longer found; holders keep it mapped until they let go. */
		*pp = map->next;
		map->retired = true;
		if (!map->users)
			stale = map;
		break;
	}
	pthread_mutex_unlock(&ep->lock);
	hostfab_dir_close(stale);
	ret = hostfab_dir_open(ep, node, false, &fresh);
	if (ret)
		return ret;
	pthread_mutex_lock(&ep->lock);
	for (map = ep->dirs; map; map = map->next)
		if (map->node == node)
			break;
	if (map) {
		stale = fresh;   /* another thread was first */
		fresh = map;
	} else {
		stale = NULL;
		fresh->next = ep->dirs;
		ep->dirs = fresh;
	}
	fresh->users++;
	pthread_mutex_unlock(&ep->lock);
	hostfab_dir_close(stale);
	*out = fresh;
	return 0;
}

void hostfab_dir_put(struct hostfab_ep *ep, struct hostfab_dirmap *map)
{
	bool last;

	if (!map || map == ep->own)
		return;
	pthread_mutex_lock(&ep->lock);
	last = --map->users == 0 && map->retired;
	pthread_mutex_unlock(&ep->lock);
	if (last)
		hostfab_dir_close(map);
}

int hostfab_dir_reader(struct hostfab_ep *ep, uint32_t node, struct hostfab_dirmap **out)
{
	int ret = hostfab_dir_peer(ep, node, out);

	return !ret || ret == -XRMA_EACCES ? ret : -XRMA_ENODEV;
}

int hostfab_dir_lock(struct hostfab_ep *ep, struct hostfab_dir *dir)
{
	int r = pthread_mutex_lock(&dir->lock);

	(void)ep;
	if (r == EOWNERDEAD) {
		/* The holder died inside; seq may be odd. Writers keep every entry
		 * valid at each step, so making the lock consistent is enough, and
		 * the dead holder's slot is reclaimed by the next reclaim pass. */
		if (atomic_load_explicit(&dir->seq, memory_order_relaxed) & 1)
			atomic_fetch_add_explicit(&dir->seq, 1, memory_order_release);
		pthread_mutex_consistent(&dir->lock);
		return 0;
	}
	return r ? -XRMA_EIO : 0;
}

void hostfab_dir_unlock(struct hostfab_dir *dir)
{
	pthread_mutex_unlock(&dir->lock);
}

void hostfab_dir_write_begin(struct hostfab_dir *dir)
{
	atomic_fetch_add_explicit(&dir->seq, 1, memory_order_acq_rel);
	xrma_prov_release_fence();   /* entry stores stay after the odd count */
}

void hostfab_dir_write_end(struct hostfab_dir *dir)
{
	atomic_fetch_add_explicit(&dir->seq, 1, memory_order_release);
	/* A system call only when someone waits for a name (hostfab_name_wait). */
	xrma_futex_bump(&dir->names_futex, &dir->names_sleepers);
}

uint32_t hostfab_dir_read_begin(const struct hostfab_dirmap *map)
{
	struct hostfab_dir *dir = map->dir;

	for (int spins = 0;; spins++) {
		uint32_t seq = atomic_load_explicit(&dir->seq, memory_order_acquire);

		if (!(seq & 1))
			return seq;
		/* A writer is never long inside; yield once spinning stops paying. */
		if (spins > 64)
			sched_yield();
		/*
		 * A writer that died inside leaves the count odd until the next one to take the
		 * lock repairs it (hostfab_dir_lock): be that one, now and then.
		 */
		if (spins % 1024 == 1023 && map->writable && hostfab_dir_lock(NULL, dir) == 0)
			hostfab_dir_unlock(dir);
	}
}

bool hostfab_dir_read_retry(const struct hostfab_dir *dir, uint32_t seq)
{
	xrma_prov_full_fence();   /* entry loads stay before the second count */
	return atomic_load_explicit(&dir->seq, memory_order_relaxed) != seq;
}

/* ---- slots and liveness ---- */

static int slot_lock(int fd, int slot, short type, int cmd)
{
	struct flock fl = {
		.l_type = type,
		.l_whence = SEEK_SET,
		.l_start = HOSTFAB_LOCK_BASE + slot,
		.l_len = 1,
	};
	int r = fcntl(fd, cmd, &fl);

	if (r != 0)
		return -1;
	return cmd == F_OFD_GETLK ? (fl.l_type != F_UNLCK) : 0;
}

/* Whether the endpoint in slot still runs (its lock byte is held). */
static bool slot_alive(const struct hostfab_dirmap *map, int slot)
{
	return slot_lock(map->fd, slot, map->writable ? F_WRLCK : F_RDLCK, F_OFD_GETLK) != 0;
}

static uint32_t name_hash(uint16_t ns, uint64_t id)
{
	uint64_t h = (id ^ ((uint64_t)ns << 56)) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 40) % HOSTFAB_NAME_MAX;
}

/* Drop everything slot owns (under the directory lock, inside a write section). */
static void slot_clear_locked(struct hostfab_dir *dir, int slot)
{
	/* Stores that lock-free readers may race with are atomic (readers load atomically). */
	for (size_t i = 0; i < HOSTFAB_NAME_MAX; i++)
		if (dir->names[i].used == 1 && dir->names[i].slot == slot)
			__atomic_store_n(&dir->names[i].used, 2, __ATOMIC_RELEASE);
	for (size_t i = 0; i < HOSTFAB_EXPORT_MAX; i++)
		if (dir->exports[i].state != HOSTFAB_EXPORT_FREE && dir->exports[i].slot == slot)
			__atomic_store_n(&dir->exports[i].state, HOSTFAB_EXPORT_FREE, __ATOMIC_RELEASE);
	__atomic_store_n(&dir->slots[slot].state, HOSTFAB_SLOT_FREE, __ATOMIC_RELEASE);
}

int hostfab_dir_reclaim_locked(struct hostfab_ep *ep, struct hostfab_dirmap *map)
{
	struct hostfab_dir *dir = map->dir;
	int n = 0;

	(void)ep;
	if (!map->writable)
		return 0;
	for (int s = 0; s < HOSTFAB_EP_MAX; s++) {
		if (dir->slots[s].state != HOSTFAB_SLOT_LIVE || slot_alive(map, s))
			continue;
		hostfab_dir_write_begin(dir);
		slot_clear_locked(dir, s);
		hostfab_dir_write_end(dir);
		n++;
	}
	return n;
}

static bool dir_empty_locked(const struct hostfab_dir *dir)
{
	for (int s = 0; s < HOSTFAB_EP_MAX; s++)
		if (dir->slots[s].state == HOSTFAB_SLOT_LIVE)
			return false;
	return true;
}

/*
 * Reclaim the dead endpoints of the file mapped by map (named path), and
 * unlink it if nobody is left (under its lock). A live caller's own slot keeps
 * its node's file in place.
 */
static void dir_reclaim_or_unlink_locked(struct hostfab_ep *ep, struct hostfab_dirmap *map,
					 const char *path)
{
	hostfab_dir_reclaim_locked(ep, map);
	if (dir_empty_locked(map->dir) && !dir_unlinked(map)) {
		unlink(path);
		/* Waiters for the node's names look again, and find the file gone. */
		xrma_futex_bump(&map->dir->names_futex, &map->dir->names_sleepers);
	}
}

int hostfab_dir_join(struct hostfab_ep *ep)
{
	for (int attempt = 0; attempt < 16; attempt++) {
		struct hostfab_dirmap *map;
		struct hostfab_dir *dir;
		int ret, slot = -1;

		ret = hostfab_dir_open(ep, ep->self.node, true, &map);
		if (ret)
			return ret;
		if (!map->writable) {
			hostfab_dir_close(map);
			return -XRMA_EACCES;
		}
		dir = map->dir;
		ret = hostfab_dir_lock(ep, dir);
		if (ret) {
			hostfab_dir_close(map);
			return ret;
		}
		if (dir_unlinked(map)) {
			/* The last endpoint left and removed it between open and lock. */
			hostfab_dir_unlock(dir);
			hostfab_dir_close(map);
			continue;
		}
		hostfab_dir_reclaim_locked(ep, map);
		for (int s = 0; s < HOSTFAB_EP_MAX && slot < 0; s++)
			if (dir->slots[s].state == HOSTFAB_SLOT_FREE)
				slot = s;
		if (slot < 0) {
			hostfab_dir_unlock(dir);
			hostfab_dir_close(map);
			hostfab_detail("%s: node %u already has %d endpoints", ep->model->name,
				       ep->self.node, HOSTFAB_EP_MAX);
			return -XRMA_ENOSPC;
		}
		/* A descriptor of our own: OFD locks belong to the open file description,
		 * so this lock is seen as held even through our other descriptors. */
		{
			char path[PATH_MAX];

			dir_path(ep, ep->self.node, path, sizeof(path));
			ep->slot_fd = open(path, O_RDWR | O_CLOEXEC);
		}
		if (ep->slot_fd < 0 || slot_lock(ep->slot_fd, slot, F_WRLCK, F_OFD_SETLK) != 0) {
			if (ep->slot_fd >= 0)
				close(ep->slot_fd);
			ep->slot_fd = -1;
			hostfab_dir_unlock(dir);
			hostfab_dir_close(map);
			return -XRMA_EIO;
		}
		hostfab_dir_write_begin(dir);
		dir->last_ep += 1;
		if (dir->last_ep == 0)
			dir->last_ep = 1;
		__atomic_store_n(&dir->slots[slot].ep, dir->last_ep, __ATOMIC_RELAXED);
		dir->slots[slot].pid = ep->pid;
		dir->slots[slot].uid = ep->uid;
		__atomic_store_n(&dir->slots[slot].state, HOSTFAB_SLOT_LIVE, __ATOMIC_RELEASE);
		hostfab_dir_write_end(dir);
		ep->self.ep = dir->slots[slot].ep;
		ep->slot = slot;
		ep->own = map;
		hostfab_dir_unlock(dir);
		return 0;
	}
	return -XRMA_EAGAIN;
}

void hostfab_dir_leave(struct hostfab_ep *ep)
{
	struct hostfab_dirmap *map = ep->own;
	struct hostfab_dir *dir;
	char path[PATH_MAX];

	if (!map)
		return;
	dir = map->dir;
	if (hostfab_dir_lock(ep, dir) == 0) {
		hostfab_dir_write_begin(dir);
		slot_clear_locked(dir, ep->slot);
		hostfab_dir_write_end(dir);
		dir_path(ep, ep->self.node, path, sizeof(path));
		dir_reclaim_or_unlink_locked(ep, map, path);
		hostfab_dir_unlock(dir);
	}
	if (ep->slot_fd >= 0)
		close(ep->slot_fd);   /* drops the liveness lock */
	ep->slot_fd = -1;
	hostfab_dir_close(map);
	ep->own = NULL;
}

void hostfab_dir_sweep(struct hostfab_ep *ep, uint32_t node)
{
	struct hostfab_dirmap *map;

	if (hostfab_dir_peer(ep, node, &map) == 0) {
		hostfab_dir_remove_if_dead(ep, map);
		hostfab_dir_put(ep, map);
	}
}

void hostfab_dir_remove_if_dead(struct hostfab_ep *ep, struct hostfab_dirmap *map)
{
	char path[PATH_MAX];

	if (!map->writable || hostfab_dir_lock(ep, map->dir))
		return;
	dir_path(ep, map->node, path, sizeof(path));
	dir_reclaim_or_unlink_locked(ep, map, path);
	hostfab_dir_unlock(map->dir);
}

void hostfab_dir_sweep_runtime(struct hostfab_ep *ep)
{
	char prefix[32], path[PATH_MAX];
	struct dirent *de;
	size_t plen;
	DIR *d;

	snprintf(prefix, sizeof(prefix), "xrma.%u.", (unsigned)ep->uid);
	plen = strlen(prefix);
	d = opendir(ep->dirpath);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct hostfab_dirmap map = { .writable = true, .node = UINT32_MAX };
		struct stat st;
		int fd;

		if (strncmp(de->d_name, prefix, plen) || strstr(de->d_name, ".tmp."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", ep->dirpath, de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || st.st_uid != ep->uid || file_has_live_slot(fd)) {
			close(fd);
			continue;
		}
		if (!dir_file_valid(fd, &st, UINT32_MAX)) {
			dir_sweep_broken(ep, fd, &st, path);   /* truncated or overwritten, and unused */
			close(fd);
			continue;
		}
		/* Every process of that node is gone: lock, reclaim, and unlink if still empty. */
		map.fd = fd;
		map.dir = mmap(NULL, sizeof(*map.dir), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (map.dir != MAP_FAILED &&
		    atomic_load_explicit(&map.dir->magic, memory_order_acquire) == HOSTFAB_DIR_MAGIC &&
		    hostfab_dir_lock(ep, map.dir) == 0) {
			dir_reclaim_or_unlink_locked(ep, &map, path);
			hostfab_dir_unlock(map.dir);
		}
		if (map.dir != MAP_FAILED)
			munmap(map.dir, sizeof(*map.dir));
		close(fd);
	}
	closedir(d);
}

bool hostfab_dir_node_live(struct hostfab_ep *ep, struct hostfab_dirmap *map)
{
	(void)ep;
	for (int s = 0; s < HOSTFAB_EP_MAX; s++)
		if (__atomic_load_n(&map->dir->slots[s].state, __ATOMIC_ACQUIRE) == HOSTFAB_SLOT_LIVE &&
		    slot_alive(map, s))
			return true;
	return false;
}

bool hostfab_dir_ep_live(struct hostfab_ep *ep, struct hostfab_dirmap *map, uint32_t epno)
{
	(void)ep;
	for (int s = 0; s < HOSTFAB_EP_MAX; s++)
		if (__atomic_load_n(&map->dir->slots[s].state, __ATOMIC_ACQUIRE) == HOSTFAB_SLOT_LIVE &&
		    __atomic_load_n(&map->dir->slots[s].ep, __ATOMIC_RELAXED) == epno)
			return slot_alive(map, s);
	return false;
}

/* ---- names ---- */

/* The index of (ns, id) in the probe chain, or -1. Readers and writers alike. */
static long name_find(const struct hostfab_dir *dir, uint16_t ns, uint64_t id)
{
	uint32_t h = name_hash(ns, id);

	for (uint32_t i = 0; i < HOSTFAB_NAME_MAX; i++) {
		const struct hostfab_dir_name *n = &dir->names[(h + i) % HOSTFAB_NAME_MAX];
		uint16_t used = __atomic_load_n(&n->used, __ATOMIC_RELAXED);

		if (used == 0)
			return -1;
		if (used == 1 && __atomic_load_n(&n->ns, __ATOMIC_RELAXED) == ns &&
		    __atomic_load_n(&n->id, __ATOMIC_RELAXED) == id)
			return (long)((h + i) % HOSTFAB_NAME_MAX);
	}
	return -1;
}

/* Rebuild the table without deleted entries once they crowd it (under the lock). */
static void names_compact_locked(struct hostfab_dir *dir)
{
	struct hostfab_dir_name *live;
	size_t n = 0;

	live = malloc(sizeof(*live) * HOSTFAB_NAME_MAX);
	if (!live)
		return;
	for (size_t i = 0; i < HOSTFAB_NAME_MAX; i++)
		if (dir->names[i].used == 1)
			live[n++] = dir->names[i];
	hostfab_dir_write_begin(dir);
	memset(dir->names, 0, sizeof(dir->names));
	for (size_t k = 0; k < n; k++) {
		uint32_t h = name_hash(live[k].ns, live[k].id);

		while (dir->names[h].used)
			h = (h + 1) % HOSTFAB_NAME_MAX;
		dir->names[h] = live[k];
	}
	dir->names_used = (uint32_t)n;
	hostfab_dir_write_end(dir);
	free(live);
}

static int name_insert_locked(struct hostfab_dir *dir, uint16_t ns, uint64_t id, uint16_t slot)
{
	uint32_t h = name_hash(ns, id);

	if (dir->names_used >= HOSTFAB_NAME_MAX * 3 / 4)
		names_compact_locked(dir);
	if (dir->names_used >= HOSTFAB_NAME_MAX * 3 / 4)
		return -XRMA_ENOSPC;
	for (uint32_t i = 0; i < HOSTFAB_NAME_MAX; i++) {
		struct hostfab_dir_name *n = &dir->names[(h + i) % HOSTFAB_NAME_MAX];

		if (n->used == 1)
			continue;
		hostfab_dir_write_begin(dir);
		if (n->used == 0)
			dir->names_used++;
		__atomic_store_n(&n->id, id, __ATOMIC_RELAXED);
		__atomic_store_n(&n->ns, ns, __ATOMIC_RELAXED);
		__atomic_store_n(&n->slot, slot, __ATOMIC_RELAXED);
		__atomic_store_n(&n->used, 1, __ATOMIC_RELEASE);
		hostfab_dir_write_end(dir);
		return 0;
	}
	return -XRMA_ENOSPC;
}

int hostfab_name_bind(void *state, enum xrma_ns ns, uint64_t *id, uint64_t min, uint64_t max)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dir *dir;
	uint64_t want;
	int ret;

	if (!ep || !id || (unsigned)ns >= XRMA_NS_COUNT)
		return -XRMA_EINVAL;
	if (*id == XRMA_ID_ANY && min > max)
		return -XRMA_EINVAL;
	/* A name in a file nobody can find any more would be a second owner's to take. */
	ret = hostfab_dir_check_own(ep);
	if (ret)
		return ret;
	dir = ep->own->dir;
	ret = hostfab_dir_lock(ep, dir);
	if (ret)
		return ret;
	if (*id != XRMA_ID_ANY) {
		want = *id;
		ret = name_find(dir, (uint16_t)ns, want) >= 0 ? -XRMA_EADDRINUSE : 0;
	} else {
		/* Start where the last automatic search ended, then wrap to min, so
		 * binding ids in rising order stays O(1) per bind. */
		uint64_t top = max < XRMA_ID_ANY ? max : XRMA_ID_ANY - 1;
		uint64_t hint = dir->name_hint[ns];
		uint64_t start = hint >= min && hint <= top ? hint : min;
		uint64_t span = top - min;

		ret = -XRMA_ENOSPC;
		want = start;
		for (uint64_t tried = 0; tried <= span && tried < HOSTFAB_NAME_MAX + 1; tried++) {
			if (name_find(dir, (uint16_t)ns, want) < 0) {
				ret = 0;
				break;
			}
			want = want == top ? min : want + 1;
		}
		if (!ret)
			dir->name_hint[ns] = want == top ? min : want + 1;
	}
	if (!ret)
		ret = name_insert_locked(dir, (uint16_t)ns, want, (uint16_t)ep->slot);
	hostfab_dir_unlock(dir);
	if (!ret)
		*id = want;
	else if (ret == -XRMA_ENOSPC)
		hostfab_detail("%s: node %u has no free name in [%llu, %llu] or its table of %d names is full",
			       ep->model->name, ep->self.node, (unsigned long long)min,
			       (unsigned long long)max, HOSTFAB_NAME_MAX);
	return ret;
}

int hostfab_name_unbind(void *state, enum xrma_ns ns, uint64_t id)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dir *dir;
	long i;
	int ret;

	if (!ep || (unsigned)ns >= XRMA_NS_COUNT)
		return -XRMA_EINVAL;
	dir = ep->own->dir;
	ret = hostfab_dir_lock(ep, dir);
	if (ret)
		return ret;
	i = name_find(dir, (uint16_t)ns, id);
	if (i < 0 || dir->names[i].slot != ep->slot) {
		ret = -XRMA_ENOENT;
	} else {
		hostfab_dir_write_begin(dir);
		__atomic_store_n(&dir->names[i].used, 2, __ATOMIC_RELEASE);
		hostfab_dir_write_end(dir);
	}
	hostfab_dir_unlock(dir);
	return ret;
}

int hostfab_name_lookup(void *state, uint32_t node, enum xrma_ns ns, uint64_t id,
			struct xrma_prov_addr *owner)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dirmap *map;
	struct hostfab_dir *dir;
	uint32_t epno = 0;
	int ret;

	if (!ep || !owner || (unsigned)ns >= XRMA_NS_COUNT)
		return -XRMA_EINVAL;
	ret = hostfab_dir_reader(ep, node, &map);
	if (ret)
		return ret;
	dir = map->dir;
	for (;;) {
		uint32_t seq = hostfab_dir_read_begin(map);
		long i;
		int slot = -1;

		i = name_find(dir, (uint16_t)ns, id);
		if (i >= 0) {
			slot = __atomic_load_n(&dir->names[i].slot, __ATOMIC_RELAXED);
			if (slot < HOSTFAB_EP_MAX)
				epno = __atomic_load_n(&dir->slots[slot].ep, __ATOMIC_RELAXED);
		}
		if (hostfab_dir_read_retry(dir, seq))
			continue;
		if (i < 0 || slot >= HOSTFAB_EP_MAX) {
			ret = hostfab_dir_node_live(ep, map) ? -XRMA_ENOENT : -XRMA_ENODEV;
			break;
		}
		/* An entry left by a dead endpoint that nobody has reclaimed yet: clear it. */
		if (!slot_alive(map, slot)) {
			hostfab_dir_remove_if_dead(ep, map);
			ret = hostfab_dir_node_live(ep, map) ? -XRMA_ENOENT : -XRMA_ENODEV;
			break;
		}
		owner->node = node;
		owner->ep = epno;
		ret = 0;
		break;
	}
	hostfab_dir_put(ep, map);
	return ret;
}

/*
 * Waiting for a node's names. The token is the directory file's inode (plus 2;
 * 1 means no file) in the high half and its names futex in the low half: a
 * file replaced by a new one is a change even when the counts match.
 */
#define NAME_TOKEN_NO_FILE 1ull

/* Block until node's file exists or the deadline passes: inotify on the runtime directory. */
static int dir_wait_created(struct hostfab_ep *ep, uint32_t node, const struct xrma_deadline *d)
{
	char path[PATH_MAX], events[4096];
	int fd, ret = 0;

	dir_path(ep, node, path, sizeof(path));
	fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (fd < 0)
		return -XRMA_EIO;
	if (inotify_add_watch(fd, ep->dirpath, IN_CREATE | IN_MOVED_TO) < 0) {
		close(fd);
		return -XRMA_EIO;
	}
	/* Checked after the watch is in place, so a creation in between is not missed. */
	while (access(path, F_OK) != 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int ms = xrma_deadline_remaining_ms(d);

		if (xrma_deadline_passed(d)) {
			ret = -XRMA_ETIMEDOUT;
			break;
		}
		if (poll(&pfd, 1, ms) < 0 && errno != EINTR) {
			ret = -XRMA_EIO;
			break;
		}
		/* Other files of the directory wake us too; the loop looks again. */
		while (read(fd, events, sizeof(events)) > 0)
			;
	}
	close(fd);
	return ret;
}

int hostfab_name_wait(void *state, uint32_t node, uint64_t *seen, int timeout_ms)
{
	struct hostfab_ep *ep = state;
	struct xrma_deadline d;

	if (!ep || !seen)
		return -XRMA_EINVAL;
	xrma_deadline_set(&d, timeout_ms);
	for (;;) {
		struct hostfab_dirmap *map;
		struct xrma_spin spin;
		struct stat st;
		uint32_t word;
		uint64_t now;
		int ret = hostfab_dir_peer(ep, node, &map);

		if (ret == -XRMA_EACCES)
			return ret;
		if (ret) {
			if (*seen != NAME_TOKEN_NO_FILE) {
				*seen = NAME_TOKEN_NO_FILE;
				return 0;
			}
			ret = dir_wait_created(ep, node, &d);
			if (ret)
				return ret;
			continue;
		}
		word = atomic_load_explicit(&map->dir->names_futex, memory_order_acquire);
		now = fstat(map->fd, &st) ? 0 : ((uint64_t)(st.st_ino & 0x3fffffff) + 2) << 32;
		now |= word;
		if (*seen != now) {
			hostfab_dir_put(ep, map);
			*seen = now;
			return 0;
		}
		/* A node starting up binds its names within microseconds of each other. */
		xrma_spin_start(&spin, XRMA_SPIN_PEER);
		while (atomic_load_explicit(&map->dir->names_futex, memory_order_acquire) == word &&
		       xrma_spin_again(&spin))
			;
		ret = xrma_futex_sleep(&map->dir->names_futex, word, &map->dir->names_sleepers, &d);
		hostfab_dir_put(ep, map);
		if (ret)
			return ret;
	}
}

void hostfab_name_changed(void *state)
{
	struct hostfab_ep *ep = state;

	if (ep && ep->own)
		xrma_futex_bump(&ep->own->dir->names_futex, &ep->own->dir->names_sleepers);
}

/* ---- exports and window space ---- */

int hostfab_dir_export_owner(struct hostfab_ep *ep, struct hostfab_dirmap *map, uint16_t window,
			     uint64_t offset, uint32_t *epno)
{
	struct hostfab_dir *dir = map->dir;

	for (int spins = 0;; spins++) {
		uint32_t seq = atomic_load_explicit(&dir->seq, memory_order_acquire);
		int slot = -1;

		if (seq & 1) {
			if (spins > 64)
				sched_yield();
			continue;
		}
		for (size_t i = 0; i < HOSTFAB_EXPORT_MAX && slot < 0; i++) {
			const struct hostfab_dir_export *e = &dir->exports[i];
			uint64_t at = __atomic_load_n(&e->win_offset, __ATOMIC_RELAXED);

			if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != HOSTFAB_EXPORT_LIVE ||
			    __atomic_load_n(&e->window, __ATOMIC_RELAXED) != window || offset < at ||
			    offset - at >= __atomic_load_n(&e->len, __ATOMIC_RELAXED))
				continue;
			slot = __atomic_load_n(&e->slot, __ATOMIC_RELAXED);
			if (slot < HOSTFAB_EP_MAX)
				*epno = __atomic_load_n(&dir->slots[slot].ep, __ATOMIC_RELAXED);
		}
		xrma_prov_full_fence();   /* entry loads stay before the second count */
		if (atomic_load_explicit(&dir->seq, memory_order_relaxed) != seq)
			continue;
		if (slot < 0 || slot >= HOSTFAB_EP_MAX)
			return hostfab_dir_node_live(ep, map) ? -XRMA_ENOENT : -XRMA_ENODEV;
		if (!slot_alive(map, slot)) {
			hostfab_dir_remove_if_dead(ep, map);
			return hostfab_dir_node_live(ep, map) ? -XRMA_ENOENT : -XRMA_ENODEV;
		}
		return 0;
	}
}

bool hostfab_dir_ep_uid(struct hostfab_dirmap *map, uint32_t epno, uint32_t *uid)
{
	for (size_t i = 0; i < HOSTFAB_EP_MAX; i++) {
		const struct hostfab_dir_slot *s = &map->dir->slots[i];

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == HOSTFAB_SLOT_LIVE &&
		    __atomic_load_n(&s->ep, __ATOMIC_RELAXED) == epno) {
			*uid = __atomic_load_n(&s->uid, __ATOMIC_RELAXED);
			return true;
		}
	}
	return false;
}

/* First fit of need bytes in window w among the live exports; UINT64_MAX if none. */
static uint64_t window_fit_locked(const struct hostfab_dir *dir, const struct hostfab_model *m,
				  uint16_t w, uint64_t need)
{
	uint64_t at = 0, top = 0;

	/*
	 * Above every export of the window there is no clash: one pass finds that place, so
	 * exporting n segments in a row costs n passes, not n * n (first fit below stays for
	 * a window whose top is full).
	 */
	for (size_t i = 0; i < HOSTFAB_EXPORT_MAX; i++) {
		const struct hostfab_dir_export *e = &dir->exports[i];

		if (e->state != HOSTFAB_EXPORT_FREE && e->window == w && e->win_offset + e->win_len > top)
			top = e->win_offset + e->win_len;
	}
	if (top + need <= m->mw_size && top + need >= top)
		return top;
	for (;;) {
		uint64_t next = UINT64_MAX;
		bool clash = false;

		if (at + need > m->mw_size || at + need < at)
			return UINT64_MAX;
		for (size_t i = 0; i < HOSTFAB_EXPORT_MAX; i++) {
			const struct hostfab_dir_export *e = &dir->exports[i];

			if (e->state == HOSTFAB_EXPORT_FREE || e->window != w)
				continue;
			if (e->win_offset < at + need && at < e->win_offset + e->win_len) {
				clash = true;
				if (e->win_offset + e->win_len < next || next == UINT64_MAX)
					next = e->win_offset + e->win_len;
			}
		}
		if (!clash)
			return at;
		at = next;
	}
}

int hostfab_dir_export_add(struct hostfab_ep *ep, uint64_t len, uint32_t access, uint32_t *index,
			   uint64_t *gen, uint64_t *bus)
{
	const struct hostfab_model *m = ep->model;
	struct hostfab_dir *dir = ep->own->dir;
	uint64_t align = m->xlat_align ? m->xlat_align : 4096;
	uint64_t need = (len + align - 1) / align * align;
	uint64_t offset = 0;
	uint16_t window = 0;
	long free_index = -1;
	int ret;

	if (m->mw_count && need > m->mw_size) {
		hostfab_detail("%s: %llu bytes exceed the memory window size limit mw_size_max=%llu",
			       m->name, (unsigned long long)len, (unsigned long long)m->mw_size);
		return -XRMA_ERANGE;
	}
	ret = hostfab_dir_lock(ep, dir);
	if (ret)
		return ret;
	hostfab_dir_reclaim_locked(ep, ep->own);
	for (size_t i = 0; i < HOSTFAB_EXPORT_MAX && free_index < 0; i++)
		if (dir->exports[i].state == HOSTFAB_EXPORT_FREE)
			free_index = (long)i;
	if (free_index < 0) {
		hostfab_dir_unlock(dir);
		hostfab_detail("%s: node %u has %d exported regions, the directory's limit",
			       m->name, ep->self.node, HOSTFAB_EXPORT_MAX);
		return -XRMA_ENOSPC;
	}
	if (m->mw_count) {
		offset = UINT64_MAX;
		for (uint16_t w = 0; w < m->mw_count && offset == UINT64_MAX; w++) {
			offset = window_fit_locked(dir, m, w, need);
			window = w;
		}
		if (offset == UINT64_MAX) {
			hostfab_dir_unlock(dir);
			hostfab_detail("%s: node %u has no room for %llu bytes in its mw_count=%u inbound "
				       "windows of mw_size_max=%llu (xlat_align=%llu)",
				       m->name, ep->self.node, (unsigned long long)len, m->mw_count,
				       (unsigned long long)m->mw_size, (unsigned long long)align);
			return -XRMA_ENOSPC;
		}
	}
	hostfab_dir_write_begin(dir);
	XRMA_KILL_POINT("hostfab.dir.export_mid_write");
	{
		struct hostfab_dir_export *e = &dir->exports[free_index];

		/* Field by field, the state last: importers read entries without the lock. */
		__atomic_store_n(&e->slot, (uint16_t)ep->slot, __ATOMIC_RELAXED);
		__atomic_store_n(&e->window, window, __ATOMIC_RELAXED);
		__atomic_store_n(&e->gen, dir->next_gen++, __ATOMIC_RELAXED);
		__atomic_store_n(&e->win_offset, offset, __ATOMIC_RELAXED);
		__atomic_store_n(&e->win_len, need, __ATOMIC_RELAXED);
		__atomic_store_n(&e->len, len, __ATOMIC_RELAXED);
		__atomic_store_n(&e->access, access, __ATOMIC_RELAXED);
		atomic_store_explicit(&e->active, 0, memory_order_relaxed);
		__atomic_store_n(&e->state, HOSTFAB_EXPORT_LIVE, __ATOMIC_RELEASE);
	}
	hostfab_dir_write_end(dir);
	*index = (uint32_t)free_index;
	*gen = dir->exports[free_index].gen;
	*bus = m->bus_base + (uint64_t)window * m->mw_size + offset;
	hostfab_dir_unlock(dir);
	return 0;
}

void hostfab_dir_export_set_access(struct hostfab_ep *ep, uint32_t index, uint32_t access)
{
	struct hostfab_dir *dir = ep->own->dir;

	if (hostfab_dir_lock(ep, dir))
		return;
	__atomic_store_n(&dir->exports[index].access, access, __ATOMIC_RELEASE);
	hostfab_dir_unlock(dir);
}

void hostfab_dir_export_remove(struct hostfab_ep *ep, uint32_t index, uint64_t gen)
{
	struct hostfab_dir *dir = ep->own->dir;
	struct hostfab_dir_export *e = &dir->exports[index];
	_Atomic uint32_t *active = &e->active;
	const struct timespec slice = { 0, 10 * 1000 * 1000 };

	if (hostfab_dir_lock(ep, dir))
		return;
	if (e->gen != gen || e->state == HOSTFAB_EXPORT_FREE) {
		hostfab_dir_unlock(dir);
		return;
	}
	__atomic_store_n(&e->state, HOSTFAB_EXPORT_REVOKED, __ATOMIC_SEQ_CST);
	hostfab_dir_unlock(dir);
	/*
	 * Cross-memory transfers that began before the revocation finish first:
	 * the caller frees the pages next. An importer that died holding a count
	 * would hold us forever, so the wait is bounded (2 s) and liveness of the
	 * importers is not tracked per transfer.
	 */
	for (int i = 0; i < 200; i++) {
		uint32_t n = atomic_load_explicit(active, memory_order_acquire);

		if (!n)
			break;
		xrma_futex_wait(active, n, &slice);
	}
	if (hostfab_dir_lock(ep, dir))
		return;
	hostfab_dir_write_begin(dir);
	__atomic_store_n(&e->state, HOSTFAB_EXPORT_FREE, __ATOMIC_RELEASE);
	atomic_store_explicit(active, 0, memory_order_relaxed);
	hostfab_dir_write_end(dir);
	hostfab_dir_unlock(dir);
}
