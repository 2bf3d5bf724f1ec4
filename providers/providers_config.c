/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/providers_config.c: the configuration key tables compiled in, for
 * core/config.c. Apart from the provider list (providers.c) so the parser can be
 * built with the tables alone (the fuzz target links no provider code).
 */
#include "providers/providers.h"

extern const struct xrma_config_table xrma_util_host_config;
extern const struct xrma_config_table xrma_prov_ntb_config;
extern const struct xrma_config_table xrma_prov_ofi_config;
extern const struct xrma_config_table xrma_prov_pximc_config;
extern const struct xrma_config_table xrma_prov_sci_config;

/* The [pximc] table is always in: two of its keys belong to xrma's own PXImc vendor
 * library (personalities/pximc), which is built whether or not the provider is. */
const struct xrma_config_table *const xrma_providers_config[] = {
#if XRMA_UTIL_HOSTFAB
	&xrma_util_host_config,
#endif
#if XRMA_PROV_NTB
	&xrma_prov_ntb_config,
#endif
#if XRMA_PROV_OFI
	&xrma_prov_ofi_config,
#endif
	&xrma_prov_pximc_config,
#if XRMA_PROV_SCI
	&xrma_prov_sci_config,
#endif
};
const size_t xrma_providers_config_count =
	sizeof(xrma_providers_config) / sizeof(xrma_providers_config[0]);
