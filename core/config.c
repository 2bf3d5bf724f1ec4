/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/config.c: configuration snapshots (see config.h). The file is INI,
 * parsed by inih rather than by hand; only known [section] keys are accepted so
 * a typo is an error, not a silently ignored line. The environment wins over
 * the file, the file over the defaults.
 */
#include "core/config.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xrma/errors.h>
#include "common/detail.h"
#include "core/registry.h"

#ifndef XRMA_SYSCONFDIR
#define XRMA_SYSCONFDIR "/etc"
#endif

struct key_desc {
	const char *display;    /* the key as xrma_config_get lists it */
	const char *section;
	const char *name;
	const char *env;
	const char *fallback;   /* NULL: computed (the provider default) */
};

static const struct key_desc key_descs[XRMA_CONFIG_KEY_COUNT] = {
	[XRMA_CONFIG_PROVIDER] = { "provider", "xrma", "provider", "XRMA_PROVIDER", NULL },
	[XRMA_CONFIG_NODE_ID] = { "node_id", "xrma", "node_id", "XRMA_NODE_ID", "1" },
	[XRMA_CONFIG_FABRIC] = { "fabric", "xrma", "fabric", "XRMA_FABRIC", "default" },
	/* The cluster's node file (common/node_list.h); "": the provider's model decides. */
	[XRMA_CONFIG_NODES] = { "nodes", "xrma", "nodes", "XRMA_NODES", "" },
	/* "" for runtime_dir and fabric_uid means: /dev/shm, and the caller's own uid. */
	[XRMA_CONFIG_HOST_RUNTIME_DIR] = { "host.runtime_dir", "host", "runtime_dir",
					   "XRMA_HOST_RUNTIME_DIR", "" },
	[XRMA_CONFIG_HOST_FABRIC_UID] = { "host.fabric_uid", "host", "fabric_uid",
					  "XRMA_HOST_FABRIC_UID", "" },
	[XRMA_CONFIG_HOST_ALLOW_UIDS] = { "host.allow_uids", "host", "allow_uids",
					  "XRMA_HOST_ALLOW_UIDS", "" },
	[XRMA_CONFIG_HOST_CMA] = { "host.cma", "host", "cma", "XRMA_HOST_CMA", "auto" },
	/* An Intel Xeon NTB: 2 memory windows, 15 doorbell bits, 16 scratchpads. */
	[XRMA_CONFIG_NTB_MW_COUNT] = { "ntb.mw_count", "ntb", "mw_count", "XRMA_NTB_MW_COUNT", "2" },
	[XRMA_CONFIG_NTB_MW_SIZE_MAX] = { "ntb.mw_size_max", "ntb", "mw_size_max",
					  "XRMA_NTB_MW_SIZE_MAX", "512M" },
	[XRMA_CONFIG_NTB_XLAT_ALIGN] = { "ntb.xlat_align", "ntb", "xlat_align",
					 "XRMA_NTB_XLAT_ALIGN", "4096" },
	[XRMA_CONFIG_NTB_DB_COUNT] = { "ntb.db_count", "ntb", "db_count", "XRMA_NTB_DB_COUNT", "15" },
	[XRMA_CONFIG_NTB_SPAD_COUNT] = { "ntb.spad_count", "ntb", "spad_count",
					 "XRMA_NTB_SPAD_COUNT", "16" },
	[XRMA_CONFIG_NTB_MAX_PEERS] = { "ntb.max_peers", "ntb", "max_peers", "XRMA_NTB_MAX_PEERS",
					"0" },
	/* libfabric: the provider used everywhere, no node file until one is named. */
	[XRMA_CONFIG_OFI_PROVIDER] = { "ofi.provider", "ofi", "provider", "XRMA_OFI_PROVIDER",
				       "tcp;ofi_rxm" },
	[XRMA_CONFIG_OFI_NODES] = { "ofi.nodes", "ofi", "nodes", "XRMA_OFI_NODES", "" },
	[XRMA_CONFIG_OFI_IFACE] = { "ofi.iface", "ofi", "iface", "XRMA_OFI_IFACE", "" },
	[XRMA_CONFIG_OFI_LIVENESS_MS] = { "ofi.liveness_ms", "ofi", "liveness_ms",
					  "XRMA_OFI_LIVENESS_MS", "3000" },
	/* How long the progress thread keeps polling after traffic before it sleeps. */
	[XRMA_CONFIG_OFI_PROGRESS_SPIN_US] = { "ofi.progress_spin_us", "ofi", "progress_spin_us",
					       "XRMA_OFI_PROGRESS_SPIN_US", "1000" },
	/* Transfers go out through an endpoint of their own, whose CQ needs no wait object. */
	[XRMA_CONFIG_OFI_RMA_ENDPOINT] = { "ofi.rma_endpoint", "ofi", "rma_endpoint",
					   "XRMA_OFI_RMA_ENDPOINT", "single" },
	/* How the idle progress thread waits: asleep on the CQ's fd, or not at all (busy). */
	[XRMA_CONFIG_OFI_PROGRESS_WAIT] = { "ofi.progress_wait", "ofi", "progress_wait",
					    "XRMA_OFI_PROGRESS_WAIT", "fd" },
	/* How long a node polls its target endpoint after a peer said it moves data there. */
	[XRMA_CONFIG_OFI_SERVE_MS] = { "ofi.serve_ms", "ofi", "serve_ms", "XRMA_OFI_SERVE_MS", "100" },
	/* The Dispatcher the pximc provider loads (a soname or a path), and the provider xrma's
	 * own PXImc vendor library runs on ("": xrma.provider, or ntb where that is pximc). */
	[XRMA_CONFIG_PXIMC_DISPATCHER] = { "pximc.dispatcher", "pximc", "dispatcher",
					   "XRMA_PXIMC_DISPATCHER", "libpximc.so.0" },
	[XRMA_CONFIG_PXIMC_VENDOR_PROVIDER] = { "pximc.vendor_provider", "pximc", "vendor_provider",
						"XRMA_PXIMC_VENDOR_PROVIDER", "" },
	/* xrma's vendor library as a PXImc tree: the host's node id ("": every node meets every
	 * other, as on one machine). */
	[XRMA_CONFIG_PXIMC_TREE_HOST] = { "pximc.tree_host", "pximc", "tree_host",
					  "XRMA_PXIMC_TREE_HOST", "" },
	/* SCI: an ATT of 65536 pages of 4 KiB (256 MiB per node); no faults until asked. */
	[XRMA_CONFIG_SCI_ATT_ENTRIES] = { "sci.att_entries", "sci", "att_entries",
					  "XRMA_SCI_ATT_ENTRIES", "65536" },
	[XRMA_CONFIG_SCI_ATT_PAGE_SIZE] = { "sci.att_page_size", "sci", "att_page_size",
					    "XRMA_SCI_ATT_PAGE_SIZE", "4096" },
	[XRMA_CONFIG_SCI_FAULT_SEED] = { "sci.fault_seed", "sci", "fault_seed", "XRMA_SCI_FAULT_SEED",
					 "1" },
	[XRMA_CONFIG_SCI_FAULT_RATE] = { "sci.fault_rate", "sci", "fault_rate", "XRMA_SCI_FAULT_RATE",
					 "" },
	[XRMA_CONFIG_SCI_FAULT_FATAL] = { "sci.fault_fatal", "sci", "fault_fatal",
					  "XRMA_SCI_FAULT_FATAL", "0" },
	[XRMA_CONFIG_SCI_FAULT_LINK] = { "sci.fault_link", "sci", "fault_link", "XRMA_SCI_FAULT_LINK",
					 "" },
	[XRMA_CONFIG_SCI_FAULT_LOST] = { "sci.fault_lost", "sci", "fault_lost", "XRMA_SCI_FAULT_LOST",
					 "" },
	/* Who may import this node's memory by SCI address (SCIConnectSCISpace). */
	[XRMA_CONFIG_SCI_RAW_SPACE] = { "sci.raw_space", "sci", "raw_space", "XRMA_SCI_RAW_SPACE",
					"user" },
	/* SCIRemoveSegment with importers: cut them off, as Dolphin's library does ("busy":
	 * the 1999 specification's SCI_ERR_BUSY). Read by libsisci (xrma_config_find). */
	[XRMA_CONFIG_SISCI_REMOVE_CONNECTED] = { "sisci.remove_connected", "sisci", "remove_connected",
						 "XRMA_SISCI_REMOVE_CONNECTED", "disconnect" },

	/* Topology: "" picks the first NTB/Dolphin/PXImc device, else the host; "" membind
	 * binds to the adapter's NUMA node when it has one; no XML unless a test names one. */
	[XRMA_CONFIG_CORE_ADAPTER] = { "core.adapter", "core", "adapter", "XRMA_ADAPTER", "" },
	[XRMA_CONFIG_CORE_TOPOLOGY_XML] = { "core.topology_xml", "core", "topology_xml",
					    "XRMA_TOPOLOGY_XML", "" },
	[XRMA_CONFIG_CORE_MEMBIND] = { "core.membind", "core", "membind", "XRMA_MEMBIND", "" },
	[XRMA_CONFIG_CORE_BIND_THREADS] = { "core.bind_threads", "core", "bind_threads",
					    "XRMA_BIND_THREADS", "no" },
};

static void set_entry(struct xrma_config_entry *e, const char *value, const char *source)
{
	snprintf(e->value, sizeof(e->value), "%s", value);
	snprintf(e->source, sizeof(e->source), "%s", source);
}

struct parse_state {
	struct xrma_config *cfg;
	const char *path;
	FILE *file;
	int line;  /* lines read so far: the line of the entry being handled */
	int bad;   /* a value did not fit or a key was unknown */
};

/* inih's reader, counting lines so each value's source names its line. */
static char *read_line(char *str, int num, void *stream)
{
	struct parse_state *ps = stream;
	char *got = fgets(str, num, ps->file);

	if (got && strchr(got, '\n'))
		ps->line++;
	return got;
}

static int on_ini_entry(void *user, const char *section, const char *name, const char *value)
{
	struct parse_state *ps = user;
	char source[288];

	for (int k = 0; k < XRMA_CONFIG_KEY_COUNT; k++) {
		if (strcmp(section, key_descs[k].section) || strcmp(name, key_descs[k].name))
			continue;
		if (strlen(value) >= sizeof(ps->cfg->entries[k].value)) {
			xrma_detail_set("%s:%d: %s.%s is %zu characters long; the limit is %zu", ps->path,
					ps->line, section, name, strlen(value),
					sizeof(ps->cfg->entries[k].value) - 1);
			ps->bad = 1;
			return 0;
		}
		snprintf(source, sizeof(source), "file %s:%d", ps->path, ps->line);
		set_entry(&ps->cfg->entries[k], value, source);
		return 1;
	}
	ps->bad = 1;
	return 0;   /* unknown key: inih reports the line */
}

int xrma_config_load_file(struct xrma_config *cfg, const char *path)
{
	struct parse_state ps = { .cfg = cfg, .path = path };
	int line;

	if (!cfg || !path)
		return -XRMA_EINVAL;
	ps.file = fopen(path, "re");
	if (!ps.file)
		return -XRMA_ECONFIG;
	line = ini_parse_stream(read_line, &ps, on_ini_entry, &ps);
	fclose(ps.file);
	if (line != 0)
		return -XRMA_ECONFIG;
	snprintf(cfg->file, sizeof(cfg->file), "%s", path);
	return 0;
}

static void set_defaults(struct xrma_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	for (int k = 0; k < XRMA_CONFIG_KEY_COUNT; k++) {
		snprintf(cfg->entries[k].key, sizeof(cfg->entries[k].key), "%s", key_descs[k].display);
		set_entry(&cfg->entries[k],
			  key_descs[k].fallback ? key_descs[k].fallback : xrma_provider_default(), "default");
	}
}

/* The file to read: XRMA_CONF (must exist), else the first default that exists. */
static int find_file(char *path, size_t len, int *required)
{
	const char *env = getenv("XRMA_CONF");
	const char *home = getenv("HOME");

	*required = 0;
	if (env && *env) {
		*required = 1;
		snprintf(path, len, "%s", env);
		return 1;
	}
	if (home && *home) {
		snprintf(path, len, "%s/.config/xrma/xrma.conf", home);
		if (access(path, R_OK) == 0)
			return 1;
	}
	snprintf(path, len, "%s/xrma/xrma.conf", XRMA_SYSCONFDIR);
	return access(path, R_OK) == 0;
}

int xrma_config_load(struct xrma_config *cfg)
{
	char path[PATH_MAX];
	char source[64];
	int required, ret;

	if (!cfg)
		return -XRMA_EINVAL;
	set_defaults(cfg);
	if (find_file(path, sizeof(path), &required)) {
		ret = xrma_config_load_file(cfg, path);
		if (ret && (required || access(path, R_OK) == 0))
			return ret;
	}
	for (int k = 0; k < XRMA_CONFIG_KEY_COUNT; k++) {
		const char *v = getenv(key_descs[k].env);

		if (!v || !*v)
			continue;
		if (strlen(v) >= sizeof(cfg->entries[k].value)) {
			xrma_detail_set("%s is %zu characters long; the limit is %zu", key_descs[k].env,
					strlen(v), sizeof(cfg->entries[k].value) - 1);
			return -XRMA_ECONFIG;
		}
		snprintf(source, sizeof(source), "environment %s", key_descs[k].env);
		set_entry(&cfg->entries[k], v, source);
	}
	return 0;
}

const char *xrma_config_value(const struct xrma_config *cfg, enum xrma_config_key key)
{
	if (!cfg || key < 0 || key >= XRMA_CONFIG_KEY_COUNT)
		return NULL;
	return cfg->entries[key].value;
}

int xrma_config_size(const struct xrma_config *cfg, enum xrma_config_key key, uint64_t max,
		     uint64_t *value)
{
	const char *v = xrma_config_value(cfg, key);
	unsigned long long n;
	unsigned shift = 0;
	char *end;

	if (!v || !value)
		return -XRMA_EINVAL;
	if (*v == '-' || *v == '\0')
		return -XRMA_ECONFIG;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || end == v)
		return -XRMA_ECONFIG;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (*end != '\0' || n > (max >> shift))
		return -XRMA_ECONFIG;
	*value = (uint64_t)n << shift;
	return 0;
}

int xrma_config_node_id(const struct xrma_config *cfg, uint32_t *node_id)
{
	const char *v = xrma_config_value(cfg, XRMA_CONFIG_NODE_ID);
	unsigned long long n;
	char *end;

	if (!v || !node_id)
		return -XRMA_EINVAL;
	if (*v == '-' || *v == '\0')
		return -XRMA_ECONFIG;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || *end != '\0' || n >= UINT32_MAX)
		return -XRMA_ECONFIG;
	*node_id = (uint32_t)n;
	return 0;
}
