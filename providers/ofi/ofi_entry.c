/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_entry.c: the ofi provider as libxrma lists it: name, description,
 * caps and key table, and the module holding the rest (libxrma-ofi.so), which the
 * registry loads when a program chooses ofi. Only data: libxrma links no libfabric,
 * so a program that never chooses ofi never loads it or what it depends on.
 */
#include "providers/ofi/ofi.h"

const struct xrma_provider xrma_prov_ofi = {
	.name = "ofi",
	.description = OFI_DESCRIPTION,
	.caps = &xrma_prov_ofi_caps,
	.module = OFI_MODULE_FILE,
	.keys = &xrma_prov_ofi_config,
};
