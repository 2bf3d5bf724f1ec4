/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/loopback/loopback_caps.c: what the loopback provider can do, as data.
 * Nodes share one address space, so mapping, atomics and registration of caller
 * memory are native; there are no doorbells (wake-ups go through control
 * messages). Open refuses to run when the system page size differs from page_size.
 */
#include "providers/loopback/loopback.h"

const struct xrma_caps xrma_prov_loopback_caps = {
	.flags = XRMA_CAP_MAP | XRMA_CAP_BROADCAST | XRMA_CAP_ATOMIC | XRMA_CAP_REGISTER | XRMA_CAP_LOCAL_VIRTUAL,
	.page_size = 4096,
	.max_seg_size = (size_t)1 << 40,   /* 1 TiB: mmap reserves lazily */
	.rma_offset_align = 1,
	.rma_size_align = 1,
	.max_segs = 0,
	.max_maps = 0,
	.doorbell_count = 0,
	.max_nodes = 0,
	.max_node_id = 65535,
	.ctrl_msg_max = 65536,
};
