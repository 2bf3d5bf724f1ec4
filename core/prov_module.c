/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/prov_module.c: finds, opens and checks a provider module (dlopen), and gives
 * it the core services it may call, so that a provider with heavy dependencies is
 * loaded only into the programs that choose it. The registry calls this once per
 * provider, under its lock.
 */
#include "core/prov_module.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xrma/errors.h>
#include "common/detail.h"
#include "common/killpoint.h"
#include "common/node_list.h"
#include "core/config.h"
#include "core/registry.h"
#include "providers/provider_module.h"

/* The install directory ($(pkglibdir)/prov), set by Makefile.am. */
#ifndef XRMA_PROVIDER_DIR
#error "XRMA_PROVIDER_DIR must name the directory provider modules are installed in"
#endif

static const struct xrma_prov_core_calls prov_module_calls = {
	.detail_vset = xrma_detail_vset,
	.config_value = xrma_config_value,
	.config_table_value = xrma_config_table_value,
	.config_table_size = xrma_config_table_size,
	.node_list_load = xrma_node_list_load,
	.node_list_free = xrma_node_list_free,
	.strerror = xrma_strerror,
#ifdef XRMA_KILLPOINTS
	.failpoint_hit = xrma_failpoint_hit,
#endif
};

/*
 * The first directory of XRMA_PROVIDER_PATH (':'-separated), then the install
 * directory, that holds file: its path in path. secure_getenv: a set-user-ID
 * program never loads code from a directory its caller names.
 */
static bool prov_module_find(const char *file, char *path, size_t size, char *tried, size_t tried_size)
{
	const char *list = secure_getenv("XRMA_PROVIDER_PATH");
	const char *dir = list;
	size_t used = 0;

	tried[0] = '\0';
	while (dir && *dir) {
		size_t len = strcspn(dir, ":");

		if (len) {
			snprintf(path, size, "%.*s/%s", (int)len, dir, file);
			if (!access(path, F_OK))
				return true;
			used += (size_t)snprintf(tried + used, used < tried_size ? tried_size - used : 0,
						 "%.*s, ", (int)len, dir);
			if (used >= tried_size)
				used = tried_size - 1;
		}
		dir += len;
		if (*dir == ':')
			dir++;
	}
	snprintf(path, size, "%s/%s", XRMA_PROVIDER_DIR, file);
	snprintf(tried + used, used < tried_size ? tried_size - used : 0, "%s", XRMA_PROVIDER_DIR);
	return !access(path, F_OK);
}

int xrma_prov_module_load(const struct xrma_provider *entry, const struct xrma_provider **prov)
{
	const struct xrma_prov_module *module;
	const struct xrma_provider *loaded;
	struct xrma_prov_core_calls *calls;
	char path[PATH_MAX], tried[1024];
	void *handle;

	if (!entry || !entry->module || !prov)
		return -XRMA_EINVAL;
	if (!prov_module_find(entry->module, path, sizeof(path), tried, sizeof(tried))) {
		xrma_detail_set("the %s provider is a module, %s, and no directory holds it "
				"(looked in XRMA_PROVIDER_PATH, then the install directory: %s)",
				entry->name, entry->module, tried);
		return -XRMA_ENOPROV;
	}
	/* RTLD_LOCAL: the module's libfabric symbols stay out of the program's name space. */
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		xrma_detail_set("the %s provider's module %s cannot be loaded: %s", entry->name, path,
				dlerror());
		return -XRMA_ENOPROV;
	}
	module = dlsym(handle, XRMA_PROV_MODULE_SYMBOL);
	if (!module) {
		xrma_detail_set("%s is not a provider module: it has no %s", path, XRMA_PROV_MODULE_SYMBOL);
		dlclose(handle);
		return -XRMA_ENOPROV;
	}
	if (module->abi != XRMA_PROV_MODULE_ABI || !module->attach) {
		xrma_detail_set("%s was built for another xrma: its module interface is version %u, "
				"this library's %u", path, module->abi, XRMA_PROV_MODULE_ABI);
		dlclose(handle);
		return -XRMA_ENOPROV;
	}
	/* The module keeps the table: one per module, never freed, as the module is never unloaded. */
	calls = malloc(sizeof(*calls));
	if (!calls) {
		dlclose(handle);
		return -XRMA_ENOMEM;
	}
	*calls = prov_module_calls;
	calls->keys = entry->keys;
	loaded = module->attach(calls);
	if (!loaded || !loaded->name || strcmp(loaded->name, entry->name) || loaded->module ||
	    !xrma_provider_ops_valid(loaded)) {
		xrma_detail_set("%s does not hold a valid %s provider (its ops table or name is wrong)",
				path, entry->name);
		/* attach may have started something: the module stays, its table with it. */
		return -XRMA_ENOPROV;
	}
	*prov = loaded;
	return 0;
}
