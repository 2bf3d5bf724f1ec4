/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/sci/sci_csr.c: the CSR space of a node: 64 registers of 32 bits
 * (offsets 0x000..0x0fc) kept in the node directory, where the NTB model keeps
 * its scratchpads, so every process of the node and every peer sees one
 * register file. The layout borrows IEEE 1212's first registers (STATE_CLEAR,
 * STATE_SET, NODE_IDS); the rest describe the model. docs/providers.md lists
 * them. The local node's registers are always reachable; a remote node's only
 * while both links are up, which is what SISCI's NO_LINK_ACCESS and
 * NO_REMOTE_LINK_ACCESS tell apart. A node's link (STATE's LINK_OFF) cuts it
 * from every node; the link between two nodes alone goes down by a fault
 * (sci.fault_link SRC-DST@...) and is listed in both nodes' LINK_DOWN
 * registers, where every process of either node sees it.
 */
#include "providers/sci/sci.h"

#include <stdio.h>
#include <unistd.h>

enum sci_csr_reg {
	SCI_CSR_STATE_CLEAR = 0x000,  /* read: state; write: clear the bits given */
	SCI_CSR_STATE_SET = 0x004,    /* read: state; write: set the bits given */
	SCI_CSR_NODE_IDS = 0x008,     /* RO: node id in bits 31..16 */
	SCI_CSR_ATT_ENTRIES = 0x010,  /* RO: ATT entries of the node */
	SCI_CSR_ATT_PAGE_SIZE = 0x014,/* RO: bytes per ATT entry */
	SCI_CSR_ATT_USED = 0x018,     /* RO: entries its exports take */
	SCI_CSR_ERROR_COUNT = 0x01c,  /* RW: transaction errors its initiators saw */
	SCI_CSR_ENDPOINTS = 0x020,    /* RO: live endpoints (processes) of the node */
	SCI_CSR_OUTSTANDING = 0x024,  /* RO: transaction ids its initiators hold now */
	SCI_CSR_OUTSTANDING_PEAK = 0x028, /* RW: the most held at once; write 0 to restart */
	SCI_CSR_LINK_DOWN = 0x040,    /* RO: nodes whose link with this one is down, 16 (0: none) */
	SCI_CSR_SCRATCH = 0x080,      /* RW: 32 registers for programs, to 0x0fc */
	SCI_CSR_SPACE = 0x100,
};

#define SCI_LINK_DOWN_MAX 16

/* STATE bits. LINK_OFF mirrors the modelled link: setting it takes the link down. */
#define SCI_STATE_LINK_OFF     (1u << 0)
#define SCI_STATE_ERROR_LOGGED (1u << 1)
#define SCI_STATE_BITS         (SCI_STATE_LINK_OFF | SCI_STATE_ERROR_LOGGED)

static _Atomic uint32_t *reg(struct hostfab_dir *dir, uint32_t offset)
{
	return &dir->spad[offset / 4];
}

/*
 * The directory of node, reachable from here (see the file comment). On success
 * the caller holds it and lets go with hostfab_dir_put; on failure nothing is held.
 */
static int csr_dir(struct hostfab_ep *ep, uint32_t node, struct hostfab_dirmap **map)
{
	int ret;

	if (!sci_node_valid(node)) {
		hostfab_detail("sci: %u is not an SCI node id (multiples of 4, 4..0x%x)", node,
			       SCI_NODE_MAX);
		return -XRMA_ENODEV;
	}
	ret = hostfab_dir_peer(ep, node, map);
	if (ret)
		return ret == -XRMA_EACCES ? ret : -XRMA_ENODEV;
	if (!hostfab_dir_node_live(ep, *map)) {
		ret = -XRMA_ENODEV;
	} else if (node == ep->self.node) {
		ret = 0;
	} else if (__atomic_load_n(&ep->own->dir->link_down, __ATOMIC_ACQUIRE)) {
		hostfab_detail("sci: the link of node %u (ours) is down", ep->self.node);
		ret = -XRMA_ENETDOWN;
	} else if (__atomic_load_n(&(*map)->dir->link_down, __ATOMIC_ACQUIRE)) {
		hostfab_detail("sci: the link of node %u is down", node);
		ret = -XRMA_EHOSTUNREACH;
	} else if (xrma_prov_sci_link_pair_down(ep, node)) {
		hostfab_detail("sci: the link between node %u and node %u is down", ep->self.node, node);
		ret = -XRMA_EHOSTUNREACH;
	}
	if (ret)
		hostfab_dir_put(ep, *map);
	return ret;
}

static int csr_offset(uint32_t offset)
{
	if (offset >= SCI_CSR_SPACE) {
		hostfab_detail("sci: CSR offset 0x%x is outside the 0x%x-byte CSR space", offset,
			       SCI_CSR_SPACE);
		return -XRMA_ERANGE;
	}
	return 0;
}

static uint32_t att_used(struct hostfab_dir *dir)
{
	uint32_t page = atomic_load_explicit(reg(dir, SCI_CSR_ATT_PAGE_SIZE), memory_order_relaxed);
	uint64_t bytes = 0;

	for (size_t i = 0; i < HOSTFAB_EXPORT_MAX; i++)
		if (__atomic_load_n(&dir->exports[i].state, __ATOMIC_ACQUIRE) == HOSTFAB_EXPORT_LIVE)
			bytes += __atomic_load_n(&dir->exports[i].win_len, __ATOMIC_RELAXED);
	return page ? (uint32_t)(bytes / page) : 0;
}

static uint32_t endpoints(struct hostfab_dir *dir)
{
	uint32_t n = 0;

	for (size_t i = 0; i < HOSTFAB_EP_MAX; i++)
		n += __atomic_load_n(&dir->slots[i].state, __ATOMIC_ACQUIRE) == HOSTFAB_SLOT_LIVE;
	return n;
}

int xrma_prov_sci_csr_read(void *state, uint32_t node, uint32_t offset, uint32_t *value)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dirmap *map;
	struct hostfab_dir *dir;
	int ret;

	if (!ep || !value)
		return -XRMA_EINVAL;
	if ((ret = csr_offset(offset)) || (ret = csr_dir(ep, node, &map)))
		return ret;
	dir = map->dir;
	switch (offset) {
	case SCI_CSR_STATE_CLEAR:
	case SCI_CSR_STATE_SET:
		*value = (atomic_load_explicit(reg(dir, SCI_CSR_STATE_SET), memory_order_acquire) &
			  ~SCI_STATE_LINK_OFF) |
			 (__atomic_load_n(&dir->link_down, __ATOMIC_ACQUIRE) ? SCI_STATE_LINK_OFF : 0);
		break;
	case SCI_CSR_NODE_IDS:
		*value = node << 16;
		break;
	case SCI_CSR_ATT_USED:
		*value = att_used(dir);
		break;
	case SCI_CSR_ENDPOINTS:
		*value = endpoints(dir);
		break;
	case SCI_CSR_ATT_ENTRIES:
	case SCI_CSR_ATT_PAGE_SIZE:
	case SCI_CSR_ERROR_COUNT:
	default:
		/* Stored registers; reserved ones read 0 (never written). */
		*value = atomic_load_explicit(reg(dir, offset), memory_order_acquire);
		break;
	}
	hostfab_dir_put(ep, map);
	return 0;
}

/* A write into the CSR space of map's node (held by the caller). */
static int csr_store(struct hostfab_ep *ep, struct hostfab_dirmap *map, uint32_t node, uint32_t offset,
		     uint32_t value)
{
	_Atomic uint32_t *r;

	if (!map->writable)
		return -XRMA_EACCES;
	r = reg(map->dir, offset);
	if (offset == SCI_CSR_STATE_CLEAR || offset == SCI_CSR_STATE_SET) {
		bool set = offset == SCI_CSR_STATE_SET;

		if (value & ~SCI_STATE_BITS) {
			hostfab_detail("sci: STATE bits 0x%x are not defined (0x%x are)",
				       value & ~SCI_STATE_BITS, SCI_STATE_BITS);
			return -XRMA_EINVAL;
		}
		if (value & SCI_STATE_ERROR_LOGGED) {
			if (set)
				atomic_fetch_or_explicit(reg(map->dir, SCI_CSR_STATE_SET),
							 SCI_STATE_ERROR_LOGGED, memory_order_acq_rel);
			else
				atomic_fetch_and_explicit(reg(map->dir, SCI_CSR_STATE_SET),
							  ~SCI_STATE_ERROR_LOGGED, memory_order_acq_rel);
		}
		return value & SCI_STATE_LINK_OFF ? hostfab_link_set(ep, node, !set) : 0;
	}
	if (offset == SCI_CSR_ERROR_COUNT || offset == SCI_CSR_OUTSTANDING_PEAK ||
	    offset >= SCI_CSR_SCRATCH) {
		atomic_store_explicit(r, value, memory_order_release);
		return 0;
	}
	hostfab_detail("sci: CSR register 0x%03x is read-only", offset);
	return -XRMA_EACCES;
}

int xrma_prov_sci_csr_write(void *state, uint32_t node, uint32_t offset, uint32_t value)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dirmap *map;
	int ret;

	if (!ep)
		return -XRMA_EINVAL;
	if ((ret = csr_offset(offset)) || (ret = csr_dir(ep, node, &map)))
		return ret;
	ret = csr_store(ep, map, node, offset, value);
	hostfab_dir_put(ep, map);
	return ret;
}

void xrma_prov_sci_csr_init(struct hostfab_ep *ep)
{
	struct sci_model *model = sci_model_of(ep);
	struct hostfab_dir *dir = ep->own->dir;

	atomic_store_explicit(reg(dir, SCI_CSR_ATT_ENTRIES), model->att_entries, memory_order_release);
	atomic_store_explicit(reg(dir, SCI_CSR_ATT_PAGE_SIZE), (uint32_t)model->att_page_size,
			      memory_order_release);
}

void xrma_prov_sci_csr_outstanding(struct hostfab_ep *ep, int32_t delta)
{
	struct hostfab_dir *dir = ep->own->dir;
	uint32_t now = atomic_fetch_add_explicit(reg(dir, SCI_CSR_OUTSTANDING), (uint32_t)delta,
						 memory_order_acq_rel) + (uint32_t)delta;
	uint32_t peak = atomic_load_explicit(reg(dir, SCI_CSR_OUTSTANDING_PEAK), memory_order_relaxed);

	while (delta > 0 && now > peak &&
	       !atomic_compare_exchange_weak(reg(dir, SCI_CSR_OUTSTANDING_PEAK), &peak, now))
		;
}

void xrma_prov_sci_csr_log_error(struct hostfab_ep *ep)
{
	struct hostfab_dir *dir = ep->own->dir;

	atomic_fetch_add_explicit(reg(dir, SCI_CSR_ERROR_COUNT), 1, memory_order_acq_rel);
	atomic_fetch_or_explicit(reg(dir, SCI_CSR_STATE_SET), SCI_STATE_ERROR_LOGGED,
				 memory_order_acq_rel);
}

/* Add (or with up, remove) peer in dir's LINK_DOWN list; false when it is full. */
static bool link_list_change(struct hostfab_dir *dir, uint32_t peer, bool up)
{
	_Atomic uint32_t *list = reg(dir, SCI_CSR_LINK_DOWN);

	for (int i = 0; i < SCI_LINK_DOWN_MAX; i++) {
		uint32_t v = atomic_load_explicit(&list[i], memory_order_acquire);

		if (v == peer) {
			if (up)
				atomic_compare_exchange_strong(&list[i], &v, 0);
			return true;
		}
	}
	if (up)
		return true;
	for (int i = 0; i < SCI_LINK_DOWN_MAX; i++) {
		uint32_t zero = 0;

		if (atomic_compare_exchange_strong(&list[i], &zero, peer))
			return true;
		if (zero == peer)
			return true;   /* another process listed it meanwhile */
	}
	return false;
}

int xrma_prov_sci_link_pair_set(struct hostfab_ep *ep, uint32_t a, uint32_t b, bool up)
{
	struct hostfab_dirmap *ma, *mb;
	int ret;

	if ((ret = hostfab_dir_peer(ep, a, &ma)))
		return ret;
	if ((ret = hostfab_dir_peer(ep, b, &mb))) {
		hostfab_dir_put(ep, ma);
		return ret;
	}
	if (!ma->writable || !mb->writable) {
		ret = -XRMA_EACCES;
	} else if (!link_list_change(ma->dir, b, up) || !link_list_change(mb->dir, a, up)) {
		hostfab_detail("sci: node %u or %u already has %d links down", a, b, SCI_LINK_DOWN_MAX);
		link_list_change(ma->dir, b, true);
		ret = -XRMA_ENOSPC;
	}
	hostfab_dir_put(ep, mb);
	hostfab_dir_put(ep, ma);
	if (ret)
		return ret;
	hostfab_chan_send_link(ep, a, b, up);
	hostfab_chan_send_link(ep, b, a, up);
	return 0;
}

bool xrma_prov_sci_link_pair_down(struct hostfab_ep *ep, uint32_t peer)
{
	_Atomic uint32_t *list = reg(ep->own->dir, SCI_CSR_LINK_DOWN);

	for (int i = 0; i < SCI_LINK_DOWN_MAX; i++)
		if (atomic_load_explicit(&list[i], memory_order_acquire) == peer)
			return true;
	return false;
}
