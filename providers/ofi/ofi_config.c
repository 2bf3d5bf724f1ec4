/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_config.c: the [ofi] keys, read at open by ofi_init.c.
 * Plain data with no libfabric in it, so the parser knows the keys (and
 * xrma_info lists them) without loading the provider. docs/config.md and
 * docs/providers-ofi.md explain them.
 */
#include "providers/ofi/ofi_config.h"

#include "core/config.h"

static const struct xrma_config_key_desc ofi_keys[OFI_CONFIG_KEY_COUNT] = {
	/* The libfabric provider used everywhere, no node file until one is named. */
	[OFI_CONFIG_PROVIDER] = { "ofi", "provider", "XRMA_OFI_PROVIDER", "tcp;ofi_rxm" },
	[OFI_CONFIG_NODES] = { "ofi", "nodes", "XRMA_OFI_NODES", "" },
	[OFI_CONFIG_IFACE] = { "ofi", "iface", "XRMA_OFI_IFACE", "" },
	[OFI_CONFIG_LIVENESS_MS] = { "ofi", "liveness_ms", "XRMA_OFI_LIVENESS_MS", "3000" },
	/* How long the progress thread keeps polling after traffic before it sleeps. */
	[OFI_CONFIG_PROGRESS_SPIN_US] = { "ofi", "progress_spin_us", "XRMA_OFI_PROGRESS_SPIN_US",
					  "1000" },
	/* Transfers go out through an endpoint of their own, whose CQ needs no wait object. */
	[OFI_CONFIG_RMA_ENDPOINT] = { "ofi", "rma_endpoint", "XRMA_OFI_RMA_ENDPOINT", "single" },
	/* How the idle progress thread waits: asleep on the CQ's fd, or not at all (busy). */
	[OFI_CONFIG_PROGRESS_WAIT] = { "ofi", "progress_wait", "XRMA_OFI_PROGRESS_WAIT", "fd" },
	/* How long a node polls its target endpoint after a peer said it moves data there. */
	[OFI_CONFIG_SERVE_MS] = { "ofi", "serve_ms", "XRMA_OFI_SERVE_MS", "100" },
};

const struct xrma_config_table xrma_prov_ofi_config = {
	.keys = ofi_keys,
	.count = OFI_CONFIG_KEY_COUNT,
};
