/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/prov_module.h: loading a provider built as a module (providers/provider_module.h)
 * when a program chooses it, for core/registry.c. Where the module is looked for:
 * XRMA_PROVIDER_PATH, then the install directory.
 */
#ifndef XRMA_CORE_PROV_MODULE_H
#define XRMA_CORE_PROV_MODULE_H

#include "providers/provider.h"

/*
 * Load the module that entry (ops NULL, module set) names and return its provider
 * after checking the module's ABI version, the provider's name and its ops table.
 * XRMA_ENOPROV when the file is not found, cannot be loaded or is not a valid
 * module; xrma_error_detail() then says which and where it looked. A module once
 * loaded stays loaded (libfabric keeps threads and state for the process's life).
 */
int xrma_prov_module_load(const struct xrma_provider *entry, const struct xrma_provider **prov);

#endif
