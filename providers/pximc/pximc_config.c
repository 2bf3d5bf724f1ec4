/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/pximc/pximc_config.c: the [pximc] keys: the Dispatcher the pximc
 * provider loads (pximc_init.c), and two keys of xrma's own PXImc vendor
 * library (personalities/pximc), which reads them by name through
 * xrma_config_get. docs/porting.md explains them.
 */
#include "providers/pximc/pximc.h"

#include "core/config.h"

static const struct xrma_config_key_desc pximc_keys[PXIMC_CONFIG_KEY_COUNT] = {
	/* A soname or a path. */
	[PXIMC_CONFIG_DISPATCHER] = { "pximc", "dispatcher", "XRMA_PXIMC_DISPATCHER",
				      "libpximc.so.0" },
	/* "": xrma.provider, or ntb where that is pximc. */
	[PXIMC_CONFIG_VENDOR_PROVIDER] = { "pximc", "vendor_provider", "XRMA_PXIMC_VENDOR_PROVIDER",
					   "" },
	/* The host's node id ("": every node meets every other, as on one machine). */
	[PXIMC_CONFIG_TREE_HOST] = { "pximc", "tree_host", "XRMA_PXIMC_TREE_HOST", "" },
};

const struct xrma_config_table xrma_prov_pximc_config = {
	.keys = pximc_keys,
	.count = PXIMC_CONFIG_KEY_COUNT,
};
