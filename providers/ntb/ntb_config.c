/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ntb/ntb_config.c: the [ntb] keys, the limits of the modelled NTB
 * device, read at open by ntb_init.c. docs/host-fabric.md explains them.
 */
#include "providers/ntb/ntb.h"

#include "core/config.h"

/* An Intel Xeon NTB: 2 memory windows, 15 doorbell bits, 16 scratchpads. */
static const struct xrma_config_key_desc ntb_keys[NTB_CONFIG_KEY_COUNT] = {
	[NTB_CONFIG_MW_COUNT] = { "ntb", "mw_count", "XRMA_NTB_MW_COUNT", "2" },
	[NTB_CONFIG_MW_SIZE_MAX] = { "ntb", "mw_size_max", "XRMA_NTB_MW_SIZE_MAX", "64G" },
	[NTB_CONFIG_XLAT_ALIGN] = { "ntb", "xlat_align", "XRMA_NTB_XLAT_ALIGN", "4096" },
	[NTB_CONFIG_DB_COUNT] = { "ntb", "db_count", "XRMA_NTB_DB_COUNT", "15" },
	[NTB_CONFIG_SPAD_COUNT] = { "ntb", "spad_count", "XRMA_NTB_SPAD_COUNT", "16" },
	[NTB_CONFIG_MAX_PEERS] = { "ntb", "max_peers", "XRMA_NTB_MAX_PEERS", "0" },
};

const struct xrma_config_table xrma_prov_ntb_config = {
	.keys = ntb_keys,
	.count = NTB_CONFIG_KEY_COUNT,
};
