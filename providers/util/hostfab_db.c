/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_db.c: doorbells and scratchpads, as an NTB has them:
 * one doorbell register and one set of scratchpads per node, in the node's
 * directory, so every process of the node shares them. Ringing sets bits and
 * wakes sleepers through a futex word; a waiter spins a bounded number of
 * times (a doorbell answered within a few microseconds never sleeps), then
 * sleeps on the futex. Waiting consumes the bits it returns.
 */
#include "providers/util/hostfab.h"
#include "common/spin.h"

#include "common/futex.h"

/* A writable directory of node whose link is up, for doorbells and scratchpads; put it after use. */
static int db_dir(struct hostfab_ep *ep, uint32_t node, struct hostfab_dirmap **out)
{
	struct hostfab_dirmap *map;
	int ret = hostfab_dir_peer(ep, node, &map);

	if (ret)
		return ret == -XRMA_EACCES ? ret : -XRMA_ENODEV;
	if (!map->writable) {
		ret = -XRMA_EACCES;
	} else if (__atomic_load_n(&map->dir->link_down, __ATOMIC_ACQUIRE) ||
		   __atomic_load_n(&ep->own->dir->link_down, __ATOMIC_ACQUIRE)) {
		hostfab_detail("%s: the link between node %u and node %u is down", ep->model->name,
			       ep->self.node, node);
		ret = -XRMA_ENETDOWN;
	}
	if (ret)
		hostfab_dir_put(ep, map);
	else
		*out = map;
	return ret;
}

int hostfab_doorbell_raise(void *state, uint32_t node, uint64_t bits)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dirmap *map;
	int ret;

	if (!ep)
		return -XRMA_EINVAL;
	if (!ep->model->db_count || bits >> ep->model->db_count || !bits) {
		hostfab_detail("%s: doorbell bits 0x%llx outside the db_count=%u bits", ep->model->name,
			       (unsigned long long)bits, ep->model->db_count);
		return -XRMA_EINVAL;
	}
	ret = db_dir(ep, node, &map);
	if (ret)
		return ret;
	atomic_fetch_or_explicit(&map->dir->db_pending, bits, memory_order_seq_cst);
	xrma_futex_bump(&map->dir->db_futex, &map->dir->db_sleepers);
	hostfab_dir_put(ep, map);
	return 0;
}

/* Take the pending bits of mask, if any. */
static uint64_t db_take(struct hostfab_dir *dir, uint64_t mask)
{
	uint64_t cur = atomic_load_explicit(&dir->db_pending, memory_order_acquire);

	while (cur & mask) {
		if (atomic_compare_exchange_weak_explicit(&dir->db_pending, &cur, cur & ~mask,
							  memory_order_acq_rel, memory_order_acquire))
			return cur & mask;
	}
	return 0;
}

int hostfab_doorbell_wait(void *state, uint64_t mask, int timeout_ms, uint64_t *fired)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dir *dir;
	struct xrma_deadline dl;
	struct xrma_spin spin;
	uint64_t got;

	if (!ep || !fired)
		return -XRMA_EINVAL;
	if (!ep->model->db_count || !mask || mask >> ep->model->db_count) {
		hostfab_detail("%s: doorbell mask 0x%llx outside the db_count=%u bits", ep->model->name,
			       (unsigned long long)mask, ep->model->db_count);
		return -XRMA_EINVAL;
	}
	dir = ep->own->dir;
	xrma_spin_start(&spin, XRMA_SPIN_PEER);
	do {
		if ((got = db_take(dir, mask))) {
			*fired = got;
			return 0;
		}
	} while (xrma_spin_again(&spin));
	xrma_deadline_set(&dl, timeout_ms);
	for (;;) {
		/* Read before taking: a ring after the take bumps the word and ends the sleep. */
		uint32_t seq = atomic_load_explicit(&dir->db_futex, memory_order_seq_cst);

		if ((got = db_take(dir, mask))) {
			*fired = got;
			return 0;
		}
		if (xrma_futex_sleep(&dir->db_futex, seq, &dir->db_sleepers, &dl))
			return -XRMA_ETIMEDOUT;
	}
}

static int spad_check(struct hostfab_ep *ep, uint32_t index)
{
	if (index >= ep->model->spad_count) {
		hostfab_detail("%s: scratchpad %u outside the spad_count=%u registers", ep->model->name,
			       index, ep->model->spad_count);
		return -XRMA_ERANGE;
	}
	return 0;
}

int hostfab_scratchpad_read(void *state, uint32_t node, uint32_t index, uint32_t *value)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dirmap *map;
	int ret;

	if (!ep || !value)
		return -XRMA_EINVAL;
	ret = spad_check(ep, index);
	if (!ret)
		ret = db_dir(ep, node, &map);
	if (!ret) {
		*value = atomic_load_explicit(&map->dir->spad[index], memory_order_acquire);
		hostfab_dir_put(ep, map);
	}
	return ret;
}

int hostfab_scratchpad_write(void *state, uint32_t node, uint32_t index, uint32_t value)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dirmap *map;
	int ret;

	if (!ep)
		return -XRMA_EINVAL;
	ret = spad_check(ep, index);
	if (!ret)
		ret = db_dir(ep, node, &map);
	if (!ret) {
		atomic_store_explicit(&map->dir->spad[index], value, memory_order_release);
		hostfab_dir_put(ep, map);
	}
	return ret;
}
