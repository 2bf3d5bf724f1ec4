/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_config.c: the [host] keys of the host fabric, read by
 * every provider built on it (ntb, sci) in hostfab_init.c. docs/host-fabric.md
 * explains them.
 */
#include "providers/util/hostfab.h"

#include "core/config.h"

/* "" for runtime_dir and fabric_uid means: /dev/shm, and the caller's own uid. */
static const struct xrma_config_key_desc hostfab_keys[HOSTFAB_CONFIG_KEY_COUNT] = {
	[HOSTFAB_CONFIG_RUNTIME_DIR] = { "host", "runtime_dir", "XRMA_HOST_RUNTIME_DIR", "" },
	[HOSTFAB_CONFIG_FABRIC_UID] = { "host", "fabric_uid", "XRMA_HOST_FABRIC_UID", "" },
	[HOSTFAB_CONFIG_ALLOW_UIDS] = { "host", "allow_uids", "XRMA_HOST_ALLOW_UIDS", "" },
	[HOSTFAB_CONFIG_CMA] = { "host", "cma", "XRMA_HOST_CMA", "auto" },
};

const struct xrma_config_table xrma_util_host_config = {
	.keys = hostfab_keys,
	.count = HOSTFAB_CONFIG_KEY_COUNT,
};
