/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/providers.h: the one list of providers built into libxrma, with
 * their configuration key tables, and the provider a context opens by default.
 * core/registry.c takes the providers from here and core/config.c the key
 * tables, so neither names a provider nor includes a provider's own header.
 * Which providers are in the list is decided by configure (--enable-<p>).
 */
#ifndef XRMA_PROVIDERS_H
#define XRMA_PROVIDERS_H

#include <stddef.h>
#include "core/config.h"
#include "providers/provider.h"

/* ntb: processes on this host as nodes, real shared memory, nothing to set up.
 * Without it (--disable-ntb), loopback, the one provider always built. */
#if XRMA_PROV_NTB
#define XRMA_PROVIDERS_DEFAULT "ntb"
#else
#define XRMA_PROVIDERS_DEFAULT "loopback"
#endif

/* The providers compiled in, in the order xrma_provider_get lists them (providers.c). */
extern const struct xrma_provider *const xrma_providers[];
extern const size_t xrma_providers_count;

/* The key tables of the providers and shared parts compiled in (providers_config.c):
 * each table's keys follow the core's in a configuration snapshot, in this order. */
extern const struct xrma_config_table *const xrma_providers_config[];
extern const size_t xrma_providers_config_count;

#endif
