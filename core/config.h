/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/config.h: configuration in force. Values come from, in rising priority:
 * built-in defaults, the INI file (XRMA_CONF, else ~/.config/xrma/xrma.conf,
 * else the system path), then environment variables. A snapshot is taken where
 * it is needed (context open, xrma_config_get), so nothing is process-global.
 * docs/config.md documents the format.
 */
#ifndef XRMA_CORE_CONFIG_H
#define XRMA_CORE_CONFIG_H

#include <stdint.h>
#include <xrma/info.h>

enum xrma_config_key {
	XRMA_CONFIG_PROVIDER = 0,   /* [xrma] provider   / XRMA_PROVIDER */
	XRMA_CONFIG_NODE_ID,        /* [xrma] node_id    / XRMA_NODE_ID */
	XRMA_CONFIG_FABRIC,         /* [xrma] fabric     / XRMA_FABRIC */
	XRMA_CONFIG_KEY_COUNT
};

struct xrma_config {
	struct xrma_config_entry entries[XRMA_CONFIG_KEY_COUNT];
	char file[256];             /* the file read, or "" */
};

/*
 * Take a snapshot. A file named by XRMA_CONF that cannot be read, or that has
 * a syntax error or an unknown key, is XRMA_ECONFIG; a missing default file is not.
 */
int xrma_config_load(struct xrma_config *cfg);

/* Parse one INI file into cfg (above defaults, below the environment). */
int xrma_config_load_file(struct xrma_config *cfg, const char *path);

const char *xrma_config_value(const struct xrma_config *cfg, enum xrma_config_key key);

/* Parse a node id value ("1", "0x10"); XRMA_ECONFIG if it is not a uint32. */
int xrma_config_node_id(const struct xrma_config *cfg, uint32_t *node_id);

#endif
