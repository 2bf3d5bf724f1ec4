/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/config.h: configuration in force. Values come from, in rising priority:
 * built-in defaults, the INI file (XRMA_CONF, else ~/.config/xrma/xrma.conf,
 * else the system path), then environment variables. A snapshot is taken where
 * it is needed (context open, xrma_config_get), so nothing is process-global.
 * The core owns the [xrma] and [core] keys; every provider brings its own key
 * table (providers/<p>/<p>_config.c), listed in providers/providers.h, and the
 * parser accepts exactly the keys of the tables compiled in. docs/config.md
 * documents the format.
 */
#ifndef XRMA_CORE_CONFIG_H
#define XRMA_CORE_CONFIG_H

#include <stdint.h>
#include <xrma/info.h>

/* The core's own keys: the first entries of every snapshot, in this order. */
enum xrma_config_key {
	XRMA_CONFIG_PROVIDER = 0,   /* [xrma] provider   / XRMA_PROVIDER */
	XRMA_CONFIG_NODE_ID,        /* [xrma] node_id    / XRMA_NODE_ID */
	XRMA_CONFIG_FABRIC,         /* [xrma] fabric     / XRMA_FABRIC */
	XRMA_CONFIG_NODES,          /* [xrma] nodes      / XRMA_NODES: the node file */
	/* Topology and placement (core/topo.c, docs/topology.md). */
	XRMA_CONFIG_CORE_ADAPTER,          /* [core] adapter       / XRMA_ADAPTER */
	XRMA_CONFIG_CORE_TOPOLOGY_XML,     /* [core] topology_xml  / XRMA_TOPOLOGY_XML */
	XRMA_CONFIG_CORE_MEMBIND,          /* [core] membind       / XRMA_MEMBIND */
	XRMA_CONFIG_CORE_BIND_THREADS,     /* [core] bind_threads  / XRMA_BIND_THREADS */
	XRMA_CONFIG_CORE_SPIN_US,          /* [core] spin_us       / XRMA_SPIN_US (common/spin.h) */
	/* The SISCI face (personalities/sisci), read through xrma_config_find. */
	XRMA_CONFIG_SISCI_REMOVE_CONNECTED, /* [sisci] remove_connected / XRMA_SISCI_REMOVE_CONNECTED */
	XRMA_CONFIG_CORE_KEY_COUNT
};

/* One key of a table: [section] name in the file, env in the environment. */
struct xrma_config_key_desc {
	const char *section;
	const char *name;
	const char *env;
	const char *fallback;   /* the default; NULL: the default provider's name */
};

/* A provider's keys; a key is named by its index in keys[]. */
struct xrma_config_table {
	const struct xrma_config_key_desc *keys;
	int count;
};

/* Room for every key of every table; xrma_config_load refuses more. */
#define XRMA_CONFIG_MAX 64

/* Keys of the core and of every provider compiled in (the entries of a snapshot). */
int xrma_config_key_count(void);
#define XRMA_CONFIG_KEY_COUNT (xrma_config_key_count())

struct xrma_config {
	struct xrma_config_entry entries[XRMA_CONFIG_MAX];
	char file[256];             /* the file read, or "" */
};

/*
 * Take a snapshot. A file named by XRMA_CONF that cannot be read, or that has
 * a syntax error or an unknown key, is XRMA_ECONFIG; a missing default file is not.
 */
int xrma_config_load(struct xrma_config *cfg);

/* Parse one INI file into cfg (above defaults, below the environment). */
int xrma_config_load_file(struct xrma_config *cfg, const char *path);

/* The value of entry key (a core key, or any index below XRMA_CONFIG_KEY_COUNT). */
const char *xrma_config_value(const struct xrma_config *cfg, int key);

/*
 * Parse a size or count value: decimal or 0x hex, with an optional K, M or G
 * suffix (powers of 1024). XRMA_ECONFIG if it is not one or exceeds max.
 */
int xrma_config_size(const struct xrma_config *cfg, int key, uint64_t max, uint64_t *value);

/* The same for key number key of a provider's table (NULL if the table is not compiled in). */
const char *xrma_config_table_value(const struct xrma_config *cfg,
				    const struct xrma_config_table *table, int key);
int xrma_config_table_size(const struct xrma_config *cfg, const struct xrma_config_table *table,
			   int key, uint64_t max, uint64_t *value);

/* Parse a node id value ("1", "0x10"); XRMA_ECONFIG if it is not a uint32. */
int xrma_config_node_id(const struct xrma_config *cfg, uint32_t *node_id);

#endif
