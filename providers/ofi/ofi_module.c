/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_module.c: what makes the ofi provider a loadable module: its one
 * exported symbol (providers/provider_module.h) and the core's calls it keeps. The
 * module links libfabric and nothing of libxrma, so the same file serves the shared
 * libxrma and the tests' static copies of the core.
 */
#include "providers/ofi/ofi.h"

const struct xrma_prov_core_calls *ofi_core;

static const struct xrma_provider *ofi_attach(const struct xrma_prov_core_calls *core)
{
	if (!core || !core->detail_vset || !core->config_value || !core->keys ||
	    !core->config_table_value || !core->config_table_size || !core->node_list_load ||
	    !core->node_list_free || !core->strerror)
		return NULL;
	ofi_core = core;
	return &ofi_provider;
}

/* The one symbol the module exports (-export-symbols-regex in Makefile.include). */
__attribute__((visibility("default"))) const struct xrma_prov_module xrma_prov_module = {
	.abi = XRMA_PROV_MODULE_ABI,
	.attach = ofi_attach,
};
