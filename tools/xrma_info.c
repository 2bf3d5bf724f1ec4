/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/xrma_info.c: what xrma has on this machine: the providers compiled in
 * with their capability bits and limits, the configuration in force (and where
 * each value came from), the topology (adapters, NUMA nodes), and, through a
 * context on the chosen provider, the adapter in use, the live nodes of the
 * fabric and their live objects with owner pids. Plain text, or --json.
 * The page is docs/man/xrma_info.1; docs/topology.md explains the topology part.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xrma/xrma.h>
#include "tools/json_writer.h"

#define NODES_MAX 256

static const struct {
	uint64_t bit;
	const char *name;
} cap_names[] = {
	{ XRMA_CAP_MAP, "map" },           { XRMA_CAP_ATOMIC, "atomic" },
	{ XRMA_CAP_DOORBELL, "doorbell" }, { XRMA_CAP_REGISTER, "register" },
	{ XRMA_CAP_MULTIPROC, "multiproc" }, { XRMA_CAP_BUS_ADDR, "bus_addr" },
	{ XRMA_CAP_BROADCAST, "broadcast" }, { XRMA_CAP_CSR, "csr" },
	{ XRMA_CAP_RSEG_ERRORS, "rseg_errors" }, { XRMA_CAP_BUS_IMPORT, "bus_import" },
	{ XRMA_CAP_LOCAL_VIRTUAL, "local_virtual" },
};

/* The limits of struct xrma_caps, and what a 0 in each says ("unlimited" or "none"). */
#define LIMIT(field, zero) { #field, offsetof(struct xrma_caps, field), \
			     sizeof(((struct xrma_caps *)0)->field), zero }
static const struct {
	const char *name;
	size_t offset, size;
	const char *zero_means;
} limits[] = {
	LIMIT(page_size, "unlimited"),      LIMIT(max_seg_size, "unlimited"),
	LIMIT(rma_offset_align, "unlimited"), LIMIT(rma_size_align, "unlimited"),
	LIMIT(max_segs, "unlimited"),       LIMIT(max_maps, "unlimited"),
	LIMIT(doorbell_count, "none"),      LIMIT(max_nodes, "unlimited"),
	LIMIT(max_node_id, "unlimited"),    LIMIT(ctrl_msg_max, "unlimited"),
	LIMIT(spad_count, "none"),          LIMIT(mw_count, "none"),
	LIMIT(mw_size, "none"),             LIMIT(xlat_align, "none"),
	LIMIT(max_importers, "unlimited"),
};

static const char *const kind_names[] = { "host", "ntb", "dolphin", "pximc" };
static const char *const object_names[] = { "context", "segment", "port", "interrupt", "memory" };

static uint64_t limit_value(const struct xrma_caps *c, size_t i)
{
	const unsigned char *p = (const unsigned char *)c + limits[i].offset;
	uint32_t v32;
	uint64_t v64;

	if (limits[i].size == sizeof(v32)) {
		memcpy(&v32, p, sizeof(v32));
		return v32;
	}
	memcpy(&v64, p, sizeof(v64));
	return v64;
}

static const char *name_of(const char *const *names, size_t count, uint32_t index)
{
	return index < count ? names[index] : "unknown";
}

#define NAME_OF(table, index) name_of(table, sizeof(table) / sizeof(table[0]), index)

/* ------------------------------------------------------------------ plain text */

static void text_limits(const struct xrma_caps *c)
{
	printf("    %-18s", "capabilities");
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
		printf(" %s%s", c->flags & cap_names[i].bit ? "+" : "-", cap_names[i].name);
	printf("\n");
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		uint64_t v = limit_value(c, i);

		if (v)
			printf("    %-18s %" PRIu64 "\n", limits[i].name, v);
		else
			printf("    %-18s %s\n", limits[i].name, limits[i].zero_means);
	}
}

static void text_adapter(const struct xrma_adapter_info *a, const char *mark)
{
	printf("    %u %-10s %-8s %s%s\n", a->index, a->name, NAME_OF(kind_names, a->kind), a->model,
	       mark);
	if (a->pci_addr[0])
		printf("        pci %s  id %04x:%04x  subsystem %04x:%04x\n", a->pci_addr,
		       a->vendor_id, a->device_id, a->subvendor_id, a->subdevice_id);
	if (a->numa_node != XRMA_NUMA_NONE)
		printf("        numa node %u (local nodes %s), cpus %s (%u)\n", a->numa_node,
		       a->numa_nodes, a->cpus, a->cpu_count);
	else
		printf("        numa nodes %s, cpus %s (%u)\n", a->numa_nodes[0] ? a->numa_nodes : "-",
		       a->cpus[0] ? a->cpus : "-", a->cpu_count);
}

static void text_object(const struct xrma_node_object *o)
{
	printf("      %-9s", NAME_OF(object_names, o->kind));
	if (o->kind != XRMA_OBJECT_CONTEXT)
		printf(" id %-8" PRIu64, o->id);
	printf(" ep %u pid %d uid %u", o->ep, o->pid, o->uid);
	if (o->kind == XRMA_OBJECT_MEMORY)
		printf(" len %" PRIu64 " access 0x%x", o->len, o->access);
	printf("\n");
}

/* ------------------------------------------------------------------ JSON */

static void json_caps(struct json_writer *w, const struct xrma_caps *c)
{
	json_begin_object(w);
	json_key(w, "capabilities");
	json_begin_array(w);
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
		if (c->flags & cap_names[i].bit)
			json_string(w, cap_names[i].name);
	json_end_array(w);
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		json_member_uint(w, limits[i].name, limit_value(c, i));
	}
	json_end_object(w);
}

static void json_adapter(struct json_writer *w, const struct xrma_adapter_info *a)
{
	json_begin_object(w);
	json_member_uint(w, "index", a->index);
	json_member_string(w, "name", a->name);
	json_member_string(w, "kind", NAME_OF(kind_names, a->kind));
	json_member_string(w, "model", a->model);
	json_key(w, "pci");
	if (a->pci_addr[0]) {
		json_begin_object(w);
		json_member_string(w, "address", a->pci_addr);
		json_member_uint(w, "vendor_id", a->vendor_id);
		json_member_uint(w, "device_id", a->device_id);
		json_member_uint(w, "subvendor_id", a->subvendor_id);
		json_member_uint(w, "subdevice_id", a->subdevice_id);
		json_end_object(w);
	} else {
		json_null(w);
	}
	json_key(w, "numa_node");
	if (a->numa_node != XRMA_NUMA_NONE)
		json_uint(w, a->numa_node);
	else
		json_null(w);
	json_member_string(w, "numa_nodes", a->numa_nodes);
	json_member_string(w, "cpus", a->cpus);
	json_member_uint(w, "cpu_count", a->cpu_count);
	json_end_object(w);
}

static void json_object(struct json_writer *w, const struct xrma_node_object *o)
{
	json_begin_object(w);
	json_member_uint(w, "node", o->node);
	json_member_string(w, "kind", NAME_OF(object_names, o->kind));
	json_member_uint(w, "id", o->id);
	json_member_uint(w, "ep", o->ep);
	json_member_int(w, "pid", o->pid);
	json_member_uint(w, "uid", o->uid);
	if (o->kind == XRMA_OBJECT_MEMORY) {
		json_member_uint(w, "len", o->len);
		json_member_uint(w, "access", o->access);
	}
	json_end_object(w);
}

/* ------------------------------------------------------------------ sections */

/* Output goes to text (w NULL) or to the JSON document w. */
struct out {
	struct json_writer *w;
};

static void show_providers(struct out *o, const char *only, int *shown)
{
	if (o->w) {
		json_key(o->w, "providers");
		json_begin_array(o->w);
	}
	for (int i = 0; i < xrma_provider_count(); i++) {
		struct xrma_provider_info info;

		if (xrma_provider_get(i, &info) || (only && strcmp(only, info.name)))
			continue;
		(*shown)++;
		if (!o->w) {
			printf("provider %s: %s\n", info.name, info.description);
			text_limits(&info.caps);
			continue;
		}
		json_begin_object(o->w);
		json_member_string(o->w, "name", info.name);
		json_member_string(o->w, "description", info.description);
		json_key(o->w, "caps");
		json_caps(o->w, &info.caps);
		json_end_object(o->w);
	}
	/* What configure left out of this build and why (--enable-<p>, providers/<p>/configure.m4);
	 * the tool is built with the library, so config.h speaks for both. */
	if (o->w) {
		json_end_array(o->w);
		json_member_string(o->w, "default_provider", xrma_provider_default());
		json_member_string(o->w, "providers_left_out", XRMA_PROVIDERS_SKIPPED);
	} else {
		printf("default provider: %s\n", xrma_provider_default());
		printf("providers left out of this build: %s\n",
		       *XRMA_PROVIDERS_SKIPPED ? XRMA_PROVIDERS_SKIPPED : "none");
	}
}

static int show_config(struct out *o)
{
	struct xrma_config_entry e;
	int ret;

	if (o->w) {
		json_key(o->w, "config");
		json_begin_array(o->w);
	} else {
		printf("configuration:\n");
	}
	for (int i = 0; (ret = xrma_config_get(i, &e)) == 0; i++) {
		if (!o->w) {
			printf("    %-22s = %-20s (%s)\n", e.key, e.value, e.source);
			continue;
		}
		json_begin_object(o->w);
		json_member_string(o->w, "key", e.key);
		json_member_string(o->w, "value", e.value);
		json_member_string(o->w, "source", e.source);
		json_end_object(o->w);
	}
	if (o->w)
		json_end_array(o->w);
	if (ret != -XRMA_ERANGE) {
		fprintf(stderr, "xrma_info: configuration: %s\n", xrma_strerror(ret));
		return 1;
	}
	return 0;
}

/* used: the index of the adapter the local context is tied to, or -1. */
static int show_topology(struct out *o, int used)
{
	struct xrma_adapter_info a;
	struct xrma_numa_info n;
	int count = xrma_adapter_count(), numa = xrma_numa_count();

	if (count < 0 || numa < 0) {
		fprintf(stderr, "xrma_info: topology: %s\n", xrma_strerror(count < 0 ? count : numa));
		return 1;
	}
	if (o->w) {
		json_key(o->w, "topology");
		json_begin_object(o->w);
		json_key(o->w, "adapters");
		json_begin_array(o->w);
	} else {
		printf("topology:\n  adapters:\n");
	}
	for (int i = 0; i < count && !xrma_adapter_get(i, &a); i++) {
		if (o->w)
			json_adapter(o->w, &a);
		else
			text_adapter(&a, i == used ? "  [in use]" : "");
	}
	if (o->w) {
		json_end_array(o->w);
		json_key(o->w, "adapter_in_use");
		if (used >= 0)
			json_uint(o->w, (uint64_t)used);
		else
			json_null(o->w);
		json_key(o->w, "numa_nodes");
		json_begin_array(o->w);
	} else {
		printf("  numa nodes:\n");
	}
	for (int i = 0; i < numa && !xrma_numa_get(i, &n); i++) {
		if (!o->w) {
			printf("    %u  memory %" PRIu64 " MiB, cpus %s (%u)\n", n.os_index,
			       n.memory >> 20, n.cpus[0] ? n.cpus : "-", n.cpu_count);
			continue;
		}
		json_begin_object(o->w);
		json_member_uint(o->w, "os_index", n.os_index);
		json_member_uint(o->w, "memory", n.memory);
		json_member_string(o->w, "cpus", n.cpus);
		json_member_uint(o->w, "cpu_count", n.cpu_count);
		json_end_object(o->w);
	}
	if (o->w) {
		json_end_array(o->w);
		json_end_object(o->w);
	}
	return 0;
}

static int report_object(void *arg, const struct xrma_node_object *obj)
{
	struct out *o = arg;

	if (o->w)
		json_object(o->w, obj);
	else
		text_object(obj);
	return 0;
}

/* The live nodes and, where the provider keeps a directory, their objects. */
static int show_nodes(struct out *o, struct xrma_ctx *ctx)
{
	uint32_t nodes[NODES_MAX];
	size_t count;
	int ret = xrma_node_list(ctx, nodes, NODES_MAX, &count);
	bool listed = true;

	if (ret)
		return ret;
	if (count > NODES_MAX)
		count = NODES_MAX;
	if (o->w) {
		json_key(o->w, "live_nodes");
		json_begin_array(o->w);
		for (size_t i = 0; i < count; i++)
			json_uint(o->w, nodes[i]);
		json_end_array(o->w);
		json_key(o->w, "objects");
		json_begin_array(o->w);
	} else {
		printf("    live nodes:");
		for (size_t i = 0; i < count; i++)
			printf(" %" PRIu32, nodes[i]);
		printf("\n");
	}
	for (size_t i = 0; i < count && listed; i++) {
		if (!o->w)
			printf("    node %" PRIu32 ":\n", nodes[i]);
		ret = xrma_node_objects(ctx, nodes[i], 0, report_object, o);
		/* A node that left since the list was taken is simply gone. */
		if (ret == -XRMA_ENOTSUP) {
			listed = false;
			if (!o->w)
				printf("      (the provider keeps no directory of live objects)\n");
		}
	}
	if (o->w) {
		json_end_array(o->w);
		json_key(o->w, "objects_listed");
		json_bool(o->w, listed);
	}
	return 0;
}

/* A context on provider (NULL: the default): its node, adapter, limits and the live fabric. */
static int open_local(const char *provider, struct xrma_ctx **ctx, int *adapter)
{
	struct xrma_ctx_attr attr = { .provider = provider, .node_id = XRMA_NODE_ANY };
	struct xrma_adapter_info a;
	int ret = xrma_ctx_open(&attr, ctx);

	*adapter = -1;
	if (ret) {
		const char *why = xrma_error_detail();

		fprintf(stderr, "xrma_info: cannot open a context: %s%s%s\n", xrma_strerror(ret),
			why && *why ? ": " : "", why && *why ? why : "");
		return 1;
	}
	if (!xrma_ctx_adapter(*ctx, &a))
		*adapter = (int)a.index;
	return 0;
}

static int show_local(struct out *o, struct xrma_ctx *ctx, int adapter)
{
	struct xrma_ctx_info info;
	struct xrma_adapter_info a;
	int ret = xrma_ctx_query(ctx, &info);

	if (ret)
		goto out_error;
	if (adapter < 0 || xrma_adapter_get(adapter, &a))
		snprintf(a.name, sizeof(a.name), "-");
	if (o->w) {
		json_key(o->w, "local");
		json_begin_object(o->w);
		json_member_string(o->w, "provider", info.provider);
		json_member_string(o->w, "fabric", info.fabric);
		json_member_uint(o->w, "node", info.node_id);
		json_member_string(o->w, "adapter", a.name);
		json_key(o->w, "caps");
		json_caps(o->w, &info.caps);
	} else {
		printf("local: provider %s, fabric %s, node %" PRIu32 ", adapter %s\n", info.provider,
		       info.fabric, info.node_id, a.name);
	}
	ret = show_nodes(o, ctx);
	if (o->w)
		json_end_object(o->w);
	else if (!ret) {
		printf("    limits in force (configuration applied):\n");
		text_limits(&info.caps);
	}
	if (!ret)
		return 0;
out_error:
	fprintf(stderr, "xrma_info: %s\n", xrma_strerror(ret));
	return 1;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: xrma_info [--config] [--topology] [--provider NAME] [--json] [--help]\n"
		     "  (no option)      providers, configuration, topology, the local node and\n"
		     "                   the live nodes with their objects\n"
		     "  -c, --config     only the configuration in force and its sources\n"
		     "  -t, --topology   only the adapters and NUMA nodes\n"
		     "  -p, --provider   only this provider (and a context on it)\n"
		     "  -j, --json       the same as one JSON document\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", no_argument, NULL, 'c' },
		{ "topology", no_argument, NULL, 't' },
		{ "provider", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct json_writer writer;
	struct out o = { NULL };
	struct xrma_ctx *ctx = NULL;
	const char *only = NULL;
	int config_only = 0, topology_only = 0, opt, status = 0, shown = 0, adapter = -1;

	while ((opt = getopt_long(argc, argv, "ctp:jh", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			config_only = 1;
			break;
		case 't':
			topology_only = 1;
			break;
		case 'p':
			only = optarg;
			break;
		case 'j':
			json_init(&writer, stdout);
			o.w = &writer;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || (config_only && topology_only)) {
		usage(stderr);
		return 2;
	}
	if (o.w)
		json_begin_object(o.w);
	if (config_only) {
		status = show_config(&o);
	} else if (topology_only) {
		status = show_topology(&o, -1);
	} else {
		show_providers(&o, only, &shown);
		if (only && !shown) {
			fprintf(stderr, "xrma_info: no provider named %s\n", only);
			status = 1;
		} else {
			status |= show_config(&o);
			status |= open_local(only, &ctx, &adapter);
			status |= show_topology(&o, adapter);
			if (ctx) {
				status |= show_local(&o, ctx, adapter);
				xrma_ctx_close(ctx);
			}
		}
	}
	if (o.w) {
		json_end_object(o.w);
		json_finish(o.w);
	}
	return status;
}
