/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/provider_module.h: the contract of a provider built as a loadable
 * module (the ofi provider, whose libfabric and its dependencies must not load
 * into programs that never choose it). The module exports one data symbol,
 * XRMA_PROV_MODULE_SYMBOL; the core (core/prov_module.c) checks its ABI
 * version before anything else, then hands it the few core services it may
 * call and takes its struct xrma_provider, which it validates as it does any.
 */
#ifndef XRMA_PROVIDER_MODULE_H
#define XRMA_PROVIDER_MODULE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include "providers/provider.h"

/* Raised whenever struct xrma_provider, its ops, the caps or the structs below
 * change in a way a module built against the old ones would misread. */
#define XRMA_PROV_MODULE_ABI 1u

#define XRMA_PROV_MODULE_SYMBOL "xrma_prov_module"

struct xrma_config;
struct xrma_node_list;

/*
 * What a module may call in the core that loaded it. A module links nothing
 * of libxrma: the core may be the shared library or a test's static copy,
 * and the services must be that core's own (the error detail is per thread
 * in it, the fail points are armed in it).
 */
struct xrma_prov_core_calls {
	/* xrma_error_detail()'s sentence for the calling thread (common/detail.h). */
	void (*detail_vset)(const char *fmt, va_list ap);
	/* A core key's value (core/config.h). */
	const char *(*config_value)(const struct xrma_config *cfg, int key);
	/* Key number key of the table keys, the provider's own (xrma_provider.keys). */
	const struct xrma_config_table *keys;
	const char *(*config_table_value)(const struct xrma_config *cfg,
					  const struct xrma_config_table *table, int key);
	int (*config_table_size)(const struct xrma_config *cfg, const struct xrma_config_table *table,
				 int key, uint64_t max, uint64_t *value);
	/* The node file (common/node_list.h). */
	int (*node_list_load)(const char *path, const char *key, struct xrma_node_list *list);
	void (*node_list_free)(struct xrma_node_list *list);
	/* The name of an XRMA_E* code. */
	const char *(*strerror)(int code);
	/* A fail point (common/killpoint.h); NULL outside the test-only core. */
	bool (*failpoint_hit)(const char *name);
};

/* The module's one exported symbol. abi stays the first member in every version. */
struct xrma_prov_module {
	uint32_t abi;
	/* Keeps core (it outlives the module's use) and returns the provider, or NULL. */
	const struct xrma_provider *(*attach)(const struct xrma_prov_core_calls *core);
};

#endif
