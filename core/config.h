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
	XRMA_CONFIG_NODES,          /* [xrma] nodes      / XRMA_NODES: the node file */
	/* Host fabric (providers/util), read by the providers built on it. */
	XRMA_CONFIG_HOST_RUNTIME_DIR,  /* [host] runtime_dir / XRMA_HOST_RUNTIME_DIR */
	XRMA_CONFIG_HOST_FABRIC_UID,   /* [host] fabric_uid  / XRMA_HOST_FABRIC_UID */
	XRMA_CONFIG_HOST_ALLOW_UIDS,   /* [host] allow_uids  / XRMA_HOST_ALLOW_UIDS */
	XRMA_CONFIG_HOST_CMA,          /* [host] cma         / XRMA_HOST_CMA */
	/* NTB device model (providers/ntb). */
	XRMA_CONFIG_NTB_MW_COUNT,      /* [ntb] mw_count     / XRMA_NTB_MW_COUNT */
	XRMA_CONFIG_NTB_MW_SIZE_MAX,   /* [ntb] mw_size_max  / XRMA_NTB_MW_SIZE_MAX */
	XRMA_CONFIG_NTB_XLAT_ALIGN,    /* [ntb] xlat_align   / XRMA_NTB_XLAT_ALIGN */
	XRMA_CONFIG_NTB_DB_COUNT,      /* [ntb] db_count     / XRMA_NTB_DB_COUNT */
	XRMA_CONFIG_NTB_SPAD_COUNT,    /* [ntb] spad_count   / XRMA_NTB_SPAD_COUNT */
	XRMA_CONFIG_NTB_MAX_PEERS,     /* [ntb] max_peers    / XRMA_NTB_MAX_PEERS */
	/* libfabric (providers/ofi). */
	XRMA_CONFIG_OFI_PROVIDER,      /* [ofi] provider     / XRMA_OFI_PROVIDER */
	XRMA_CONFIG_OFI_NODES,         /* [ofi] nodes        / XRMA_OFI_NODES */
	XRMA_CONFIG_OFI_IFACE,         /* [ofi] iface        / XRMA_OFI_IFACE */
	XRMA_CONFIG_OFI_LIVENESS_MS,   /* [ofi] liveness_ms  / XRMA_OFI_LIVENESS_MS */
	XRMA_CONFIG_OFI_PROGRESS_SPIN_US, /* [ofi] progress_spin_us / XRMA_OFI_PROGRESS_SPIN_US */
	XRMA_CONFIG_OFI_RMA_ENDPOINT,  /* [ofi] rma_endpoint / XRMA_OFI_RMA_ENDPOINT */
	XRMA_CONFIG_OFI_PROGRESS_WAIT, /* [ofi] progress_wait / XRMA_OFI_PROGRESS_WAIT */
	XRMA_CONFIG_OFI_SERVE_MS,      /* [ofi] serve_ms     / XRMA_OFI_SERVE_MS */
	/* PXImc as a transport (providers/pximc) and the vendor library under it. */
	XRMA_CONFIG_PXIMC_DISPATCHER,      /* [pximc] dispatcher      / XRMA_PXIMC_DISPATCHER */
	XRMA_CONFIG_PXIMC_VENDOR_PROVIDER, /* [pximc] vendor_provider / XRMA_PXIMC_VENDOR_PROVIDER */
	XRMA_CONFIG_PXIMC_TREE_HOST,       /* [pximc] tree_host       / XRMA_PXIMC_TREE_HOST */
	/* SCI interconnect model (providers/sci): ATT and fault injection. */
	XRMA_CONFIG_SCI_ATT_ENTRIES,       /* [sci] att_entries   / XRMA_SCI_ATT_ENTRIES */
	XRMA_CONFIG_SCI_ATT_PAGE_SIZE,     /* [sci] att_page_size / XRMA_SCI_ATT_PAGE_SIZE */
	XRMA_CONFIG_SCI_FAULT_SEED,        /* [sci] fault_seed    / XRMA_SCI_FAULT_SEED */
	XRMA_CONFIG_SCI_FAULT_RATE,        /* [sci] fault_rate    / XRMA_SCI_FAULT_RATE */
	XRMA_CONFIG_SCI_FAULT_FATAL,       /* [sci] fault_fatal   / XRMA_SCI_FAULT_FATAL */
	XRMA_CONFIG_SCI_FAULT_LINK,        /* [sci] fault_link    / XRMA_SCI_FAULT_LINK */
	XRMA_CONFIG_SCI_FAULT_LOST,        /* [sci] fault_lost    / XRMA_SCI_FAULT_LOST */
	XRMA_CONFIG_SCI_RAW_SPACE,         /* [sci] raw_space     / XRMA_SCI_RAW_SPACE */
	/* The SISCI face (personalities/sisci), read through xrma_config_find. */
	XRMA_CONFIG_SISCI_REMOVE_CONNECTED, /* [sisci] remove_connected / XRMA_SISCI_REMOVE_CONNECTED */

	/* Topology and placement (core/topo.c, docs/topology.md). */
	XRMA_CONFIG_CORE_ADAPTER,          /* [core] adapter       / XRMA_ADAPTER */
	XRMA_CONFIG_CORE_TOPOLOGY_XML,     /* [core] topology_xml  / XRMA_TOPOLOGY_XML */
	XRMA_CONFIG_CORE_MEMBIND,          /* [core] membind       / XRMA_MEMBIND */
	XRMA_CONFIG_CORE_BIND_THREADS,     /* [core] bind_threads  / XRMA_BIND_THREADS */
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

/*
 * Parse a size or count value: decimal or 0x hex, with an optional K, M or G
 * suffix (powers of 1024). XRMA_ECONFIG if it is not one or exceeds max.
 */
int xrma_config_size(const struct xrma_config *cfg, enum xrma_config_key key, uint64_t max,
		     uint64_t *value);

/* Parse a node id value ("1", "0x10"); XRMA_ECONFIG if it is not a uint32. */
int xrma_config_node_id(const struct xrma_config *cfg, uint32_t *node_id);

#endif
