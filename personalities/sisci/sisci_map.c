/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_map.c: mapped segments and PIO (spec §2.3 "shared
 * memory"): SCIMapLocalSegment/SCIMapRemoteSegment/SCIUnmapSegment, SCIMemCopy
 * and Dolphin's SCIMemCpy/SCIMemWrite/SCICacheSync. A local map is a window on
 * the segment's memory; a remote map is the core's load/store mapping
 * (XRMA_CAP_MAP; SCI_ERR_NOT_IMPLEMENTED without it). Loads and stores through
 * a map never enter the library. A map of a broadcast group is the core's
 * group map: local memory whose stores reach every member at the release
 * points (xrma_sisci_map_push) and within the core's push interval.
 * Sequences are in sisci_sequence.c.
 */
#include "personalities/sisci/sisci.h"

#include <stdlib.h>
#include <string.h>
#include "common/errno_keep.h"

#define MAP_FLAGS                                                                                 \
	(SCI_FLAG_FIXED_MAP_ADDR | SCI_FLAG_READONLY_MAP | SCI_FLAG_IO_MAP_IOSPACE |              \
	 SCI_FLAG_READ_PREFETCH_AGGR_HOLD_MAP | SCI_FLAG_READ_PREFETCH_NO_HOLD_MAP |              \
	 SCI_FLAG_DMOVE_MAP | SCI_FLAG_WRITES_DISABLE_GATHER_MAP |                                \
	 SCI_FLAG_DISABLE_128_BYTES_PACKETS | SCI_FLAG_CONDITIONAL_INTERRUPT_MAP |                \
	 SCI_FLAG_UNCONDITIONAL_DATA_INTERRUPT_MAP | SCI_FLAG_NO_MEMORY_LOOPBACK_MAP)

static void map_destroy(struct xrma_sisci_obj *obj)
{
	free(obj);
}

static sci_error_t map_publish(struct xrma_sisci_map *m, sci_map_t *out)
{
	sci_error_t err = xrma_sisci_obj_publish(&m->obj, XRMA_SISCI_MAP, map_destroy);

	if (err == SCI_ERR_OK)
		*out = m->obj.handle;
	return err;
}

struct xrma_sisci_map *xrma_sisci_map_enter(sci_map_t map)
{
	struct xrma_sisci_map *m = XRMA_SISCI_GET(map, XRMA_SISCI_MAP, struct xrma_sisci_map);
	unsigned users;

	if (!m)
		return NULL;
	users = __atomic_load_n(&m->users, __ATOMIC_RELAXED);
	do {
		if (users & XRMA_SISCI_MAP_UNMAPPING) {
			xrma_sisci_obj_put(&m->obj);
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&m->users, &users, users + 1, true, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return m;
}

void xrma_sisci_map_leave(struct xrma_sisci_map *m)
{
	__atomic_sub_fetch(&m->users, 1, __ATOMIC_RELEASE);
	xrma_sisci_obj_put(&m->obj);
}

static sci_error_t check_range(size_t offset, size_t size, size_t limit)
{
	if (!size)
		return SCI_ERR_SIZE_ALIGNMENT;
	if (offset > limit || size > limit - offset)
		return SCI_ERR_OUT_OF_RANGE;
	return SCI_ERR_OK;
}

void *SCIMapLocalSegment(sci_local_segment_t segment, sci_map_t *map, size_t offset, size_t size,
			 void *addr, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_lseg *l = XRMA_SISCI_GET(segment, XRMA_SISCI_LSEG, struct xrma_sisci_lseg);
	struct xrma_sisci_map *m = NULL;
	sci_error_t err;
	void *base = NULL;

	(void)addr; /* FIXED_MAP_ADDR is a hint; the memory already has its address */
	if (!l) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return NULL;
	}
	err = xrma_sisci_flags(flags, MAP_FLAGS, 0);
	if (err == SCI_ERR_OK && !map)
		err = SCI_ERR_ILLEGAL_PARAMETER;
	pthread_mutex_lock(&l->lock);
	if (err == SCI_ERR_OK && !l->addr)
		err = SCI_ERR_ILLEGAL_OPERATION; /* EMPTY without memory */
	if (err == SCI_ERR_OK)
		err = check_range(offset, size, l->size);
	if (err == SCI_ERR_OK && !(m = calloc(1, sizeof(*m))))
		err = SCI_ERR_NOSPC;
	if (err == SCI_ERR_OK) {
		m->lseg = l;
		m->addr = (char *)l->addr + offset;
		m->offset = offset;
		m->size = size;
		m->readonly = flags & SCI_FLAG_READONLY_MAP;
		err = map_publish(m, map);
		if (err == SCI_ERR_OK) {
			l->maps++;
			xrma_sisci_obj_ref(&l->obj); /* the map's */
			base = m->addr;
		} else {
			free(m);
		}
	}
	pthread_mutex_unlock(&l->lock);
	xrma_sisci_obj_put(&l->obj);
	xrma_sisci_set(error, err);
	return base;
}

volatile void *SCIMapRemoteSegment(sci_remote_segment_t segment, sci_map_t *map, size_t offset,
				   size_t size, void *addr, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_rseg *r = XRMA_SISCI_GET(segment, XRMA_SISCI_RSEG, struct xrma_sisci_rseg);
	struct xrma_sisci_map *m = NULL;
	void *base = NULL;
	sci_error_t err;
	int ret;

	(void)addr;
	if (!r) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return NULL;
	}
	err = xrma_sisci_flags(flags, MAP_FLAGS | SCI_FLAG_BROADCAST, 0);
	if (err == SCI_ERR_OK && !map)
		err = SCI_ERR_ILLEGAL_PARAMETER;
	/* A group is written, not read: its map cannot be read-only, nor a unicast one broadcast. */
	if (err == SCI_ERR_OK && (r->broadcast ? (flags & SCI_FLAG_READONLY_MAP) != 0
					       : (flags & SCI_FLAG_BROADCAST) != 0))
		err = SCI_ERR_ILLEGAL_FLAG;
	pthread_mutex_lock(&r->lock);
	if (err == SCI_ERR_OK && !r->rseg && !r->bcast)
		err = SCI_ERR_NOT_CONNECTED;
	if (err == SCI_ERR_OK)
		err = check_range(offset, size, r->size);
	if (err == SCI_ERR_OK && !(m = calloc(1, sizeof(*m))))
		err = SCI_ERR_NOSPC;
	if (err == SCI_ERR_OK) {
		uint32_t prot = XRMA_MAP_READ | ((flags & SCI_FLAG_READONLY_MAP) ? 0 : XRMA_MAP_WRITE);

		if (r->bcast)
			ret = xrma_bcast_map(r->bcast, offset, size, XRMA_MAP_READ | XRMA_MAP_WRITE, &base);
		else
			ret = xrma_rseg_map(r->rseg, offset, size, prot, &base);
		err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
	}
	if (err == SCI_ERR_OK) {
		m->rseg = r;
		m->addr = base;
		m->offset = offset;
		m->size = size;
		m->readonly = flags & SCI_FLAG_READONLY_MAP;
		err = map_publish(m, map);
		if (err == SCI_ERR_OK) {
			r->maps++;
			xrma_sisci_obj_ref(&r->obj);
			m = NULL;
		} else {
			if (r->bcast)
				(void)xrma_bcast_unmap(r->bcast, base);
			else
				(void)xrma_rseg_unmap(r->rseg, base);
			base = NULL;
		}
	}
	free(m);
	pthread_mutex_unlock(&r->lock);
	xrma_sisci_obj_put(&r->obj);
	if (err == SCI_ERR_OK)
		XRMA_KILL_POINT("sisci.map.after_map");
	xrma_sisci_set(error, err);
	return base;
}

void SCIUnmapSegment(sci_map_t map, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_map *m = XRMA_SISCI_GET(map, XRMA_SISCI_MAP, struct xrma_sisci_map);
	unsigned idle = 0;
	sci_error_t err;

	if (!m) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, 0, 0);
	/* Claimed only when no use is held; from then on none can start. */
	if (err == SCI_ERR_OK && !__atomic_compare_exchange_n(&m->users, &idle, XRMA_SISCI_MAP_UNMAPPING,
							       false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		err = idle & XRMA_SISCI_MAP_UNMAPPING ? SCI_ERR_ILLEGAL_PARAMETER : SCI_ERR_BUSY;
	if (err == SCI_ERR_OK && !xrma_sisci_obj_kill(&m->obj))
		err = SCI_ERR_ILLEGAL_PARAMETER;
	if (err == SCI_ERR_OK && m->lseg) {
		pthread_mutex_lock(&m->lseg->lock);
		m->lseg->maps--;
		pthread_mutex_unlock(&m->lseg->lock);
		xrma_sisci_obj_put(&m->lseg->obj);
	} else if (err == SCI_ERR_OK) {
		pthread_mutex_lock(&m->rseg->lock);
		/* A group map pushes its last stores as it goes. */
		if (m->rseg->bcast)
			(void)xrma_bcast_unmap(m->rseg->bcast, m->addr);
		else
			(void)xrma_rseg_unmap(m->rseg->rseg, m->addr);
		m->rseg->maps--;
		pthread_mutex_unlock(&m->rseg->lock);
		xrma_sisci_obj_put(&m->rseg->obj);
	}
	xrma_sisci_obj_put(&m->obj);
	xrma_sisci_set(error, err);
}

/* ------------------------------------------------------------ copy routines */

/*
 * The routines SetSciMemCopyFunction chooses among. Each copies with stores of
 * one width where both ends are aligned to it and bytes elsewhere; a program
 * picks the width its target memory or device wants. Volatile stores keep the
 * compiler from merging them into wider ones.
 */
static void store_word(volatile unsigned char *d, const unsigned char *s, size_t width)
{
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;

	switch (width) {
	case 2:
		memcpy(&v16, s, 2);
		*(volatile uint16_t *)(volatile void *)d = v16;
		break;
	case 4:
		memcpy(&v32, s, 4);
		*(volatile uint32_t *)(volatile void *)d = v32;
		break;
	default:
		memcpy(&v64, s, 8);
		*(volatile uint64_t *)(volatile void *)d = v64;
	}
}

static void copy_width(void *dst, const void *src, size_t size, size_t width)
{
	volatile unsigned char *d = dst;
	const unsigned char *s = src;

	/* Bytes until the destination is aligned; words only if the source is then too. */
	while (size && (uintptr_t)d % width) {
		*d++ = *s++;
		size--;
	}
	if ((uintptr_t)s % width == 0)
		for (; size >= width; size -= width, d += width, s += width)
			store_word(d, s, width);
	while (size--)
		*d++ = *s++;
}

static void copy_word16(void *dst, const void *src, size_t size)
{
	copy_width(dst, src, size, 2);
}

static void copy_word32(void *dst, const void *src, size_t size)
{
	copy_width(dst, src, size, 4);
}

static void copy_word64(void *dst, const void *src, size_t size)
{
	copy_width(dst, src, size, 8);
}

static void copy_default(void *dst, const void *src, size_t size)
{
	memcpy(dst, src, size);
}

static void copy_bytes(void *dst, const void *src, size_t size)
{
	volatile unsigned char *d = dst;
	const unsigned char *s = src;

	while (size--)
		*d++ = *s++;
}

/* 64-byte blocks (a cache line, a typical adapter's write-combining buffer), each fenced. */
static void copy_block64(void *dst, const void *src, size_t size)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (size) {
		size_t n = size < 64 ? size : 64;

		copy_word64(d, s, n);
		xrma_sisci_barrier();
		d += n;
		s += n;
		size -= n;
	}
}

static void (*const copy_routines[])(void *dst, const void *src, size_t size) = {
	[SCI_MEMCOPY_DEFAULT] = copy_default, [SCI_MEMCOPY_BYTES] = copy_bytes,
	[SCI_MEMCOPY_WORD16] = copy_word16,   [SCI_MEMCOPY_WORD32] = copy_word32,
	[SCI_MEMCOPY_WORD64] = copy_word64,   [SCI_MEMCOPY_BLOCK64] = copy_block64,
};

/* The routine in use, process-wide as in Dolphin's library; atomic. */
static unsigned int copy_routine = SCI_MEMCOPY_DEFAULT;

void SetSciMemCopyFunction(unsigned int function)
{
	XRMA_ERRNO_KEEP(NULL);
	if (function >= sizeof(copy_routines) / sizeof(copy_routines[0]))
		function = SCI_MEMCOPY_DEFAULT;
	__atomic_store_n(&copy_routine, function, __ATOMIC_RELAXED);
}

unsigned int GetSciMemCopyFunction(void)
{
	XRMA_ERRNO_KEEP(NULL);
	return __atomic_load_n(&copy_routine, __ATOMIC_RELAXED);
}

static void copy_chosen(void *dst, const void *src, size_t size)
{
	copy_routines[__atomic_load_n(&copy_routine, __ATOMIC_RELAXED)](dst, src, size);
}

/*
 * The PIO copy shared by SCIMemCopy and SCIMemCpy: check, copy, and with
 * ERROR_CHECK make the stores visible and ask the core whether the peer is
 * still there (a lost peer means the bytes went nowhere) and whether the
 * copy, a check point of mapped accesses, had a transaction error; a checked
 * read that failed leaves the untrusted pattern in the caller's buffer.
 */
static sci_error_t pio_copy(void *mem, sci_map_t map, size_t offset, size_t size, unsigned int flags)
{
	struct xrma_sisci_map *m = xrma_sisci_map_enter(map);
	sci_error_t err;

	if (!m)
		return SCI_ERR_ILLEGAL_PARAMETER;
	err = xrma_sisci_flags(flags, SCI_FLAG_ERROR_CHECK | SCI_FLAG_BLOCK_READ, 0);
	if (err == SCI_ERR_OK && !mem)
		err = SCI_ERR_ILLEGAL_ADDRESS;
	if (err == SCI_ERR_OK)
		err = check_range(offset, size, m->size);
	if (err == SCI_ERR_OK && m->readonly && !(flags & SCI_FLAG_BLOCK_READ))
		err = SCI_ERR_ILLEGAL_OPERATION;
	if (err == SCI_ERR_OK) {
		/* The chosen routine does the stores; reads from a map are plain copies. */
		if (flags & SCI_FLAG_BLOCK_READ)
			memcpy(mem, (char *)m->addr + offset, size);
		else
			copy_chosen((char *)m->addr + offset, mem, size);
		xrma_sisci_barrier();
		if (!(flags & SCI_FLAG_BLOCK_READ) && xrma_sisci_map_push(m) != SCI_ERR_OK &&
		    (flags & SCI_FLAG_ERROR_CHECK))
			err = SCI_ERR_TRANSFER_FAILED;
	}
	if (err == SCI_ERR_OK && (flags & SCI_FLAG_ERROR_CHECK) && m->rseg &&
	    !xrma_sisci_rseg_checkpoint(m->rseg)) {
		err = SCI_ERR_TRANSFER_FAILED;
		if (flags & SCI_FLAG_BLOCK_READ)
			memset(mem, XRMA_SISCI_UNTRUSTED_BYTE, size);
	}
	xrma_sisci_map_leave(m);
	return err;
}

sci_error_t xrma_sisci_map_push(struct xrma_sisci_map *m)
{
	/* A map holds its remote segment connected, so bcast is stable here. */
	if (!m->rseg || !m->rseg->bcast)
		return SCI_ERR_OK;
	return xrma_bcast_flush(m->rseg->bcast, m->addr) ? SCI_ERR_NOT_CONNECTED : SCI_ERR_OK;
}

void SCIMemCopy(void *memAddr, sci_map_t remoteMap, size_t remoteOffset, size_t size,
		unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	xrma_sisci_set(error, pio_copy(memAddr, remoteMap, remoteOffset, size, flags));
}

void SCIMemCpy(sci_sequence_t sequence, void *memAddr, sci_map_t remoteMap, size_t remoteOffset,
	       size_t size, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	/*
	 * The sequence (may be NULL) only names where errors are tracked; the map decides.
	 * A sequence that is given must still be a live one.
	 */
	struct xrma_sisci_obj *seq = sequence ? xrma_sisci_obj_get(sequence, XRMA_SISCI_SEQ) : NULL;

	if (sequence && !seq) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	xrma_sisci_set(error, pio_copy(memAddr, remoteMap, remoteOffset, size, flags));
	if (seq)
		xrma_sisci_obj_put(seq);
}

void SCIMemWrite(void *memAddr, volatile void *remoteAddr, size_t size, unsigned int flags,
		 sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	sci_error_t err = xrma_sisci_flags(flags, 0, 0);

	if (err == SCI_ERR_OK && (!memAddr || !remoteAddr))
		err = SCI_ERR_ILLEGAL_ADDRESS;
	if (err == SCI_ERR_OK) {
		memcpy((void *)remoteAddr, memAddr, size);
		xrma_sisci_barrier();
	}
	xrma_sisci_set(error, err);
}

void SCICacheSync(sci_map_t map, void *addr, size_t length, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_map *m = XRMA_SISCI_GET(map, XRMA_SISCI_MAP, struct xrma_sisci_map);
	sci_error_t err;

	if (!m) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, SCI_FLAG_CACHE_FLUSH | SCI_FLAG_CACHE_INVALIDATE, 0);
	if (err == SCI_ERR_OK && ((char *)addr < (char *)m->addr ||
				  (size_t)((char *)addr - (char *)m->addr) > m->size ||
				  length > m->size - (size_t)((char *)addr - (char *)m->addr)))
		err = SCI_ERR_OUT_OF_RANGE;
	/* Every provider's memory is cache coherent: ordering is all there is to do. */
	if (err == SCI_ERR_OK)
		xrma_sisci_barrier();
	xrma_sisci_obj_put(&m->obj);
	xrma_sisci_set(error, err);
}
