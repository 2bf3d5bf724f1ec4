/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/registry.h: the list of providers and the rule that picks one:
 * the name asked for, else XRMA_PROVIDER, else the config file, else the
 * default. The providers themselves are listed in providers/providers.h.
 */
#ifndef XRMA_CORE_REGISTRY_H
#define XRMA_CORE_REGISTRY_H

#include <stdbool.h>
#include "providers/provider.h"
#include "core/config.h"

/* Mandatory ops present, optional ops present exactly when their bit is set. */
bool xrma_provider_ops_valid(const struct xrma_provider *prov);

/* Add a provider at run time (tests' mock providers). XRMA_EINVAL for an
 * invalid table, XRMA_EEXIST for a taken name, XRMA_ENOSPC when full. */
int xrma_registry_add(const struct xrma_provider *prov);
int xrma_registry_remove(const struct xrma_provider *prov);

/* Number of providers, and provider number index (NULL past the end). A provider
 * built as a module and not yet loaded is its entry in libxrma: ops is NULL. */
int xrma_registry_count(void);
const struct xrma_provider *xrma_registry_at(int index);

/* Exact name match, its module loaded if it is one, or NULL (unknown, or the module
 * failed to load: xrma_error_detail() says why). */
const struct xrma_provider *xrma_registry_find(const char *name);

/*
 * Pick the provider for a context: requested if not NULL, else the config's
 * "provider" value (environment first, then file), else the default.
 * XRMA_ENOPROV for an unknown name or a module that cannot be loaded.
 */
int xrma_registry_choose(const char *requested, const struct xrma_config *cfg,
			 const struct xrma_provider **prov);

#endif
