/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_config.h: the names of the [ofi] keys (ofi_config.c). Apart
 * from ofi.h because the table is built into libxrma while the rest of the
 * provider, and libfabric with it, may be a module loaded on demand.
 */
#ifndef XRMA_PROV_OFI_CONFIG_H
#define XRMA_PROV_OFI_CONFIG_H

enum ofi_config_key {
	OFI_CONFIG_PROVIDER,        /* [ofi] provider         / XRMA_OFI_PROVIDER */
	OFI_CONFIG_NODES,           /* [ofi] nodes            / XRMA_OFI_NODES */
	OFI_CONFIG_IFACE,           /* [ofi] iface            / XRMA_OFI_IFACE */
	OFI_CONFIG_LIVENESS_MS,     /* [ofi] liveness_ms      / XRMA_OFI_LIVENESS_MS */
	OFI_CONFIG_PROGRESS_SPIN_US, /* [ofi] progress_spin_us / XRMA_OFI_PROGRESS_SPIN_US */
	OFI_CONFIG_RMA_ENDPOINT,    /* [ofi] rma_endpoint     / XRMA_OFI_RMA_ENDPOINT */
	OFI_CONFIG_PROGRESS_WAIT,   /* [ofi] progress_wait    / XRMA_OFI_PROGRESS_WAIT */
	OFI_CONFIG_SERVE_MS,        /* [ofi] serve_ms         / XRMA_OFI_SERVE_MS */
	OFI_CONFIG_KEY_COUNT
};

struct xrma_config_table;
extern const struct xrma_config_table xrma_prov_ofi_config;

#endif
