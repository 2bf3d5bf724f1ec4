/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/providers.c: the list of providers compiled in, for core/registry.c.
 * Each provider exports one struct xrma_provider (its ops and caps); nothing
 * else of a provider is visible here. A provider built as a module (ofi) is
 * here as its entry in libxrma, with no ops until core/registry.c loads it.
 * configure decides which are built (XRMA_PROV_<NAME> in config.h); loopback
 * always is.
 */
#include "providers/providers.h"

extern const struct xrma_provider xrma_prov_ntb;
extern const struct xrma_provider xrma_prov_loopback;
extern const struct xrma_provider xrma_prov_ofi;
extern const struct xrma_provider xrma_prov_pximc;
extern const struct xrma_provider xrma_prov_sci;

const struct xrma_provider *const xrma_providers[] = {
#if XRMA_PROV_NTB
	&xrma_prov_ntb,
#endif
	&xrma_prov_loopback,
#if XRMA_PROV_OFI
	&xrma_prov_ofi,
#endif
#if XRMA_PROV_PXIMC
	&xrma_prov_pximc,
#endif
#if XRMA_PROV_SCI
	&xrma_prov_sci,
#endif
};
const size_t xrma_providers_count = sizeof(xrma_providers) / sizeof(xrma_providers[0]);
