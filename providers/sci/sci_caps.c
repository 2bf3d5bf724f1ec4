/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/sci/sci_caps.c: what the SCI model can do and its static limits.
 * The ATT limits (window size, translation unit, largest segment) are narrowed
 * from the configuration at open (sci_init.c).
 */
#include "providers/sci/sci.h"

const struct xrma_caps xrma_prov_sci_caps = {
	.flags = XRMA_CAP_MAP | XRMA_CAP_BROADCAST | XRMA_CAP_ATOMIC | XRMA_CAP_REGISTER | XRMA_CAP_MULTIPROC |
		 XRMA_CAP_BUS_ADDR | XRMA_CAP_BUS_IMPORT | XRMA_CAP_CSR |
		 XRMA_CAP_RSEG_ERRORS | XRMA_CAP_LOCAL_VIRTUAL,
	.page_size = 4096,
	.max_seg_size = (size_t)256 << 20,
	.rma_offset_align = 1,
	.rma_size_align = 1,
	.max_segs = HOSTFAB_EXPORT_MAX,
	.max_maps = 0,
	.doorbell_count = 0,
	.max_nodes = SCI_NODE_MAX / SCI_NODE_STEP,
	.max_node_id = SCI_NODE_MAX,
	.ctrl_msg_max = 65536,
	.spad_count = 0,
	.mw_count = 1,
	.mw_size = (uint64_t)256 << 20,
	.xlat_align = 4096,
};
