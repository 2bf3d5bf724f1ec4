/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/info.c: the public, read-only view of what is compiled in and configured
 * (xrma/info.h), for xrma_info and for programs that choose a provider.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include <xrma/info.h>
#include "core/config.h"
#include "core/registry.h"

int xrma_provider_count(void)
{
	return xrma_registry_count();
}

int xrma_provider_get(int index, struct xrma_provider_info *info)
{
	const struct xrma_provider *prov;

	if (!info)
		return -XRMA_EINVAL;
	prov = xrma_registry_at(index);
	if (!prov)
		return -XRMA_ERANGE;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", prov->name);
	snprintf(info->description, sizeof(info->description), "%s",
		 prov->description ? prov->description : "");
	info->caps = *prov->caps;
	return 0;
}

int xrma_config_find(const char *key, struct xrma_config_entry *entry)
{
	struct xrma_config *cfg;
	int ret;

	if (!key || !entry)
		return -XRMA_EINVAL;
	/* The snapshot is large: not on the caller's stack. */
	cfg = malloc(sizeof(*cfg));
	if (!cfg)
		return -XRMA_ENOMEM;
	ret = xrma_config_load(cfg);
	if (!ret) {
		ret = -XRMA_ENOENT;
		for (int k = 0; k < XRMA_CONFIG_KEY_COUNT; k++) {
			if (!strcmp(cfg->entries[k].key, key)) {
				*entry = cfg->entries[k];
				ret = 0;
				break;
			}
		}
	}
	free(cfg);
	return ret;
}

int xrma_config_get(int index, struct xrma_config_entry *entry)
{
	struct xrma_config cfg;
	int ret;

	if (!entry)
		return -XRMA_EINVAL;
	if (index < 0 || index >= XRMA_CONFIG_KEY_COUNT)
		return -XRMA_ERANGE;
	ret = xrma_config_load(&cfg);
	if (ret)
		return ret;
	*entry = cfg.entries[index];
	return 0;
}
