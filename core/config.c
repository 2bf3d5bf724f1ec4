/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/config.c: configuration snapshots (see config.h). The file is INI,
 * parsed by inih rather than by hand; only known [section] keys are accepted so
 * a typo is an error, not a silently ignored line. The environment wins over
 * the file, the file over the defaults. The core's keys are here; the providers'
 * come from their tables (providers/providers.h), whose owners read them.
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
#include "providers/providers.h"

#ifndef XRMA_SYSCONFDIR
#define XRMA_SYSCONFDIR "/etc"
#endif

/* The core's keys, in the order of enum xrma_config_key. */
static const struct xrma_config_key_desc core_keys[XRMA_CONFIG_CORE_KEY_COUNT] = {
	[XRMA_CONFIG_PROVIDER] = { "xrma", "provider", "XRMA_PROVIDER", NULL },
	[XRMA_CONFIG_NODE_ID] = { "xrma", "node_id", "XRMA_NODE_ID", "1" },
	[XRMA_CONFIG_FABRIC] = { "xrma", "fabric", "XRMA_FABRIC", "default" },
	/* The cluster's node file (common/node_list.h); "": the provider's model decides. */
	[XRMA_CONFIG_NODES] = { "xrma", "nodes", "XRMA_NODES", "" },
	/* Topology: "" picks the first NTB/Dolphin/PXImc device, else the host; "" membind
	 * binds to the adapter's NUMA node when it has one; no XML unless a test names one. */
	[XRMA_CONFIG_CORE_ADAPTER] = { "core", "adapter", "XRMA_ADAPTER", "" },
	[XRMA_CONFIG_CORE_TOPOLOGY_XML] = { "core", "topology_xml", "XRMA_TOPOLOGY_XML", "" },
	[XRMA_CONFIG_CORE_MEMBIND] = { "core", "membind", "XRMA_MEMBIND", "" },
	[XRMA_CONFIG_CORE_BIND_THREADS] = { "core", "bind_threads", "XRMA_BIND_THREADS", "no" },
	[XRMA_CONFIG_CORE_SPIN_US] = { "core", "spin_us", "XRMA_SPIN_US", "5" },
	/* What SCIRemoveSegment does with connected importers: disconnect (Dolphin's library) or
	 * busy (the 1999 specification's SCI_ERR_BUSY). Read by libsisci (xrma_config_find). */
	[XRMA_CONFIG_SISCI_REMOVE_CONNECTED] = { "sisci", "remove_connected",
						 "XRMA_SISCI_REMOVE_CONNECTED", "disconnect" },
};

/* Entry k of a snapshot: the core's keys, then each compiled-in table's, in list order. */
static const struct xrma_config_key_desc *key_at(int k)
{
	if (k < 0)
		return NULL;
	if (k < XRMA_CONFIG_CORE_KEY_COUNT)
		return &core_keys[k];
	k -= XRMA_CONFIG_CORE_KEY_COUNT;
	for (size_t t = 0; t < xrma_providers_config_count; t++) {
		if (k < xrma_providers_config[t]->count)
			return &xrma_providers_config[t]->keys[k];
		k -= xrma_providers_config[t]->count;
	}
	return NULL;
}

int xrma_config_key_count(void)
{
	int n = XRMA_CONFIG_CORE_KEY_COUNT;

	for (size_t t = 0; t < xrma_providers_config_count; t++)
		n += xrma_providers_config[t]->count;
	return n;
}

/* The entry index of a table's first key, or -1 when the table is not compiled in. */
static int table_base(const struct xrma_config_table *table)
{
	int base = XRMA_CONFIG_CORE_KEY_COUNT;

	for (size_t t = 0; t < xrma_providers_config_count; t++) {
		if (xrma_providers_config[t] == table)
			return base;
		base += xrma_providers_config[t]->count;
	}
	return -1;
}

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

	for (int k = 0; k < xrma_config_key_count(); k++) {
		const struct xrma_config_key_desc *d = key_at(k);

		if (strcmp(section, d->section) || strcmp(name, d->name))
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
	if (xrma_config_key_count() > XRMA_CONFIG_MAX)
		return -XRMA_ECONFIG;   /* the tables outgrew a snapshot: caught by test_config */
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
	for (int k = 0; k < xrma_config_key_count(); k++) {
		const struct xrma_config_key_desc *d = key_at(k);

		/* [xrma] keys are listed by their bare name, every other as section.name. */
		if (!strcmp(d->section, "xrma"))
			snprintf(cfg->entries[k].key, sizeof(cfg->entries[k].key), "%s", d->name);
		else
			snprintf(cfg->entries[k].key, sizeof(cfg->entries[k].key), "%s.%s", d->section,
				 d->name);
		set_entry(&cfg->entries[k], d->fallback ? d->fallback : XRMA_PROVIDERS_DEFAULT,
			  "default");
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
	if (xrma_config_key_count() > XRMA_CONFIG_MAX)
		return -XRMA_ECONFIG;   /* the tables outgrew a snapshot: caught by test_config */
	set_defaults(cfg);
	if (find_file(path, sizeof(path), &required)) {
		ret = xrma_config_load_file(cfg, path);
		if (ret && (required || access(path, R_OK) == 0))
			return ret;
	}
	for (int k = 0; k < xrma_config_key_count(); k++) {
		const struct xrma_config_key_desc *d = key_at(k);
		const char *v = getenv(d->env);

		if (!v || !*v)
			continue;
		if (strlen(v) >= sizeof(cfg->entries[k].value)) {
			xrma_detail_set("%s is %zu characters long; the limit is %zu", d->env,
					strlen(v), sizeof(cfg->entries[k].value) - 1);
			return -XRMA_ECONFIG;
		}
		snprintf(source, sizeof(source), "environment %s", d->env);
		set_entry(&cfg->entries[k], v, source);
	}
	return 0;
}

const char *xrma_config_value(const struct xrma_config *cfg, int key)
{
	if (!cfg || key < 0 || key >= xrma_config_key_count() || key >= XRMA_CONFIG_MAX)
		return NULL;
	return cfg->entries[key].value;
}

const char *xrma_config_table_value(const struct xrma_config *cfg,
				    const struct xrma_config_table *table, int key)
{
	int base = table_base(table);

	if (base < 0 || key < 0 || key >= table->count)
		return NULL;
	return xrma_config_value(cfg, base + key);
}

int xrma_config_table_size(const struct xrma_config *cfg, const struct xrma_config_table *table,
			   int key, uint64_t max, uint64_t *value)
{
	int base = table_base(table);

	if (base < 0 || key < 0 || key >= table->count)
		return -XRMA_EINVAL;
	return xrma_config_size(cfg, base + key, max, value);
}

int xrma_config_size(const struct xrma_config *cfg, int key, uint64_t max, uint64_t *value)
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
