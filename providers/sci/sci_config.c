/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/sci/sci_config.c: the [sci] keys: the ATT (read by sci_init.c),
 * fault injection (sci_fault.c) and who may import by SCI address.
 * docs/providers.md explains them.
 */
#include "providers/sci/sci.h"

#include "core/config.h"

/* An ATT of 65536 pages of 4 KiB (256 MiB per node); no faults until asked. */
static const struct xrma_config_key_desc sci_keys[SCI_CONFIG_KEY_COUNT] = {
	[SCI_CONFIG_ATT_ENTRIES] = { "sci", "att_entries", "XRMA_SCI_ATT_ENTRIES", "65536" },
	[SCI_CONFIG_ATT_PAGE_SIZE] = { "sci", "att_page_size", "XRMA_SCI_ATT_PAGE_SIZE", "4096" },
	[SCI_CONFIG_FAULT_SEED] = { "sci", "fault_seed", "XRMA_SCI_FAULT_SEED", "1" },
	[SCI_CONFIG_FAULT_RATE] = { "sci", "fault_rate", "XRMA_SCI_FAULT_RATE", "" },
	[SCI_CONFIG_FAULT_FATAL] = { "sci", "fault_fatal", "XRMA_SCI_FAULT_FATAL", "0" },
	[SCI_CONFIG_FAULT_LINK] = { "sci", "fault_link", "XRMA_SCI_FAULT_LINK", "" },
	[SCI_CONFIG_FAULT_LOST] = { "sci", "fault_lost", "XRMA_SCI_FAULT_LOST", "" },
	/* Who may import this node's memory by SCI address (SCIConnectSCISpace). */
	[SCI_CONFIG_RAW_SPACE] = { "sci", "raw_space", "XRMA_SCI_RAW_SPACE", "user" },
};

const struct xrma_config_table xrma_prov_sci_config = {
	.keys = sci_keys,
	.count = SCI_CONFIG_KEY_COUNT,
};
