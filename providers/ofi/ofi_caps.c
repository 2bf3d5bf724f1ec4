/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_caps.c: what the ofi provider offers, as data. No load/store
 * mapping of remote memory (there is none over a network), no doorbells (the
 * core sends interrupts as control messages). XRMA_CAP_ATOMIC is cleared at open
 * when the libfabric provider chosen has no 64-bit fetch and compare atomics,
 * XRMA_CAP_LOCAL_VIRTUAL when it wants local memory registered (FI_MR_LOCAL).
 */
#include "providers/ofi/ofi.h"

const struct xrma_caps xrma_prov_ofi_caps = {
	.flags = XRMA_CAP_ATOMIC | XRMA_CAP_REGISTER | XRMA_CAP_MULTIPROC | XRMA_CAP_LOCAL_VIRTUAL,
	.page_size = 4096,
	.max_seg_size = (size_t)1 << 40,
	.rma_offset_align = 1,
	.rma_size_align = 1,
	.max_segs = 0,
	.max_maps = 0,
	.doorbell_count = 0,
	.max_nodes = 0,
	.max_node_id = 65535,
	.ctrl_msg_max = OFI_MSG_MAX,
	.spad_count = 0,
	.mw_count = 0,
	.mw_size = 0,
	.xlat_align = 0,
};
