/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/xrma_info.c: what xrma has on this machine: the providers compiled in
 * with their capability bits and limits, the configuration in force (and where
 * each value came from), and the local node of a context on the chosen provider.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <xrma/xrma.h>

static const struct {
	uint64_t bit;
	const char *name;
} cap_names[] = {
	{ XRMA_CAP_MAP, "map" },           { XRMA_CAP_ATOMIC, "atomic" },
	{ XRMA_CAP_DOORBELL, "doorbell" }, { XRMA_CAP_REGISTER, "register" },
	{ XRMA_CAP_MULTIPROC, "multiproc" }, { XRMA_CAP_BUS_ADDR, "bus_addr" },
	{ XRMA_CAP_BROADCAST, "broadcast" }, { XRMA_CAP_CSR, "csr" },
	{ XRMA_CAP_RSEG_ERRORS, "rseg_errors" },
};

/* zero_means: what a 0 says for this limit ("unlimited" or "none"). */
static void print_value(const char *name, uint64_t value, const char *zero_means)
{
	if (value)
		printf("    %-18s %" PRIu64 "\n", name, value);
	else
		printf("    %-18s %s\n", name, zero_means);
}

static void print_limit(const char *name, uint64_t value)
{
	print_value(name, value, "unlimited");
}

static void print_count(const char *name, uint64_t value)
{
	print_value(name, value, "none");
}

static void print_limits(const struct xrma_caps *c)
{
	printf("    %-18s", "capabilities");
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
		printf(" %s%s", c->flags & cap_names[i].bit ? "+" : "-", cap_names[i].name);
	printf("\n");
	print_limit("page_size", c->page_size);
	print_limit("max_seg_size", c->max_seg_size);
	print_limit("rma_offset_align", c->rma_offset_align);
	print_limit("rma_size_align", c->rma_size_align);
	print_limit("max_segs", c->max_segs);
	print_limit("max_maps", c->max_maps);
	print_count("doorbell_count", c->doorbell_count);
	print_limit("max_nodes", c->max_nodes);
	print_limit("max_node_id", c->max_node_id);
	print_limit("ctrl_msg_max", c->ctrl_msg_max);
	print_count("spad_count", c->spad_count);
	print_count("mw_count", c->mw_count);
	print_count("mw_size", c->mw_size);
	print_count("xlat_align", c->xlat_align);
}

static void print_provider(const struct xrma_provider_info *info)
{
	printf("provider %s: %s\n", info->name, info->description);
	print_limits(&info->caps);
}

static int print_config(void)
{
	struct xrma_config_entry e;
	int ret;

	printf("configuration:\n");
	for (int i = 0; (ret = xrma_config_get(i, &e)) == 0; i++)
		printf("    %-16s = %-20s (%s)\n", e.key, e.value, e.source);
	if (ret != -XRMA_ERANGE) {
		fprintf(stderr, "xrma_info: configuration: %s\n", xrma_strerror(ret));
		return 1;
	}
	return 0;
}

static int print_local(const char *provider)
{
	struct xrma_ctx_attr attr = { .provider = provider, .node_id = XRMA_NODE_ANY };
	struct xrma_ctx_info info;
	struct xrma_ctx *ctx;
	uint32_t nodes[64];
	size_t count;
	int ret;

	ret = xrma_ctx_open(&attr, &ctx);
	if (ret) {
		fprintf(stderr, "xrma_info: cannot open a context: %s\n", xrma_strerror(ret));
		return 1;
	}
	ret = xrma_ctx_query(ctx, &info);
	if (!ret)
		ret = xrma_node_list(ctx, nodes, 64, &count);
	if (!ret) {
		printf("local: provider %s, fabric %s, node %" PRIu32 "\n", info.provider, info.fabric,
		       info.node_id);
		printf("    live nodes:");
		for (size_t i = 0; i < count && i < 64; i++)
			printf(" %" PRIu32, nodes[i]);
		printf("%s\n", count > 64 ? " ..." : "");
		printf("    limits in force (configuration applied):\n");
		print_limits(&info.caps);
	}
	xrma_ctx_close(ctx);
	if (ret) {
		fprintf(stderr, "xrma_info: %s\n", xrma_strerror(ret));
		return 1;
	}
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: xrma_info [--config] [--provider NAME] [--help]\n"
		     "  (no option)      providers, configuration and the local node\n"
		     "  -c, --config     only the configuration in force and its sources\n"
		     "  -p, --provider   only this provider (and a context on it)\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", no_argument, NULL, 'c' },
		{ "provider", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *only = NULL;
	int config_only = 0, opt, status = 0, shown = 0;

	while ((opt = getopt_long(argc, argv, "cp:h", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			config_only = 1;
			break;
		case 'p':
			only = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (config_only)
		return print_config();
	for (int i = 0; i < xrma_provider_count(); i++) {
		struct xrma_provider_info info;

		if (xrma_provider_get(i, &info) || (only && strcmp(only, info.name)))
			continue;
		print_provider(&info);
		shown++;
	}
	if (only && !shown) {
		fprintf(stderr, "xrma_info: no provider named %s\n", only);
		return 1;
	}
	printf("default provider: %s\n", xrma_provider_default());
	status |= print_config();
	status |= print_local(only);
	return status;
}
