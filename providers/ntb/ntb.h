/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ntb/ntb.h: the NTB device model. Nodes are processes on this host
 * (the host fabric, providers/util) seen through a non-transparent bridge:
 * exported memory is carved from a few inbound memory windows of bounded size
 * and translation alignment, each node has a doorbell register and
 * scratchpads, and the link can go down. Limits come from the configuration
 * ([ntb] section); defaults follow an Intel Xeon NTB.
 */
#ifndef XRMA_PROV_NTB_H
#define XRMA_PROV_NTB_H

#include "providers/provider.h"

extern const struct xrma_provider xrma_prov_ntb;

/* The [ntb] keys (ntb_config.c). */
enum ntb_config_key {
	NTB_CONFIG_MW_COUNT,        /* [ntb] mw_count     / XRMA_NTB_MW_COUNT */
	NTB_CONFIG_MW_SIZE_MAX,     /* [ntb] mw_size_max  / XRMA_NTB_MW_SIZE_MAX */
	NTB_CONFIG_XLAT_ALIGN,      /* [ntb] xlat_align   / XRMA_NTB_XLAT_ALIGN */
	NTB_CONFIG_DB_COUNT,        /* [ntb] db_count     / XRMA_NTB_DB_COUNT */
	NTB_CONFIG_SPAD_COUNT,      /* [ntb] spad_count   / XRMA_NTB_SPAD_COUNT */
	NTB_CONFIG_MAX_PEERS,       /* [ntb] max_peers    / XRMA_NTB_MAX_PEERS */
	NTB_CONFIG_KEY_COUNT
};
struct xrma_config_table;
extern const struct xrma_config_table xrma_prov_ntb_config;

#endif
