/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/topo_place.c: a context's placement: the adapter it is tied to ([core]
 * adapter), where memory it allocates for segments is bound ([core] membind)
 * and whether its service and DMA threads run near the adapter ([core]
 * bind_threads). Binding is advice to the kernel: when it cannot be followed
 * (one NUMA node, no mbind) nothing fails. docs/topology.md has the rules.
 */
#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/config.h"
#include "common/detail.h"
#include "core/topo.h"

/* "" or "auto": the first adapter (devices come before the host); else a name, a PCI address or an index. */
static int choose_adapter(const struct xrma_topo *t, const char *want,
			  const struct xrma_topo_adapter **out)
{
	char *end;
	unsigned long n;

	if (!want || !*want || !strcmp(want, "auto")) {
		*out = &t->adapters[0];
		return 0;
	}
	for (size_t i = 0; i < t->adapter_count; i++) {
		const struct xrma_adapter_info *info = &t->adapters[i].info;
		size_t len = strlen(want);

		/* A PCI address may leave out the domain ("03:00.0"). */
		if (!strcmp(want, info->name) || (info->pci_addr[0] && !strcmp(want, info->pci_addr)) ||
		    (info->pci_addr[0] && len == 7 && !strcmp(want, info->pci_addr + 5))) {
			*out = &t->adapters[i];
			return 0;
		}
	}
	n = strtoul(want, &end, 10);
	if (*want >= '0' && *want <= '9' && !*end && n < t->adapter_count) {
		*out = &t->adapters[n];
		return 0;
	}
	xrma_detail_set("core.adapter '%s' names no adapter of this machine (xrma_info --topology)",
			want);
	return -XRMA_ECONFIG;
}

/* XRMA_ECONFIG, with the key and what it accepts in xrma_error_detail(). */
static int bad_value(const char *key, const char *value, const char *accepted)
{
	xrma_detail_set("%s '%s' is not %s", key, value, accepted);
	return -XRMA_ECONFIG;
}

static int parse_membind(const char *v, enum xrma_membind *out)
{
	if (!v || !*v)
		*out = XRMA_MEMBIND_AUTO;
	else if (!strcmp(v, "adapter"))
		*out = XRMA_MEMBIND_ADAPTER;
	else if (!strcmp(v, "thread"))
		*out = XRMA_MEMBIND_THREAD;
	else if (!strcmp(v, "none"))
		*out = XRMA_MEMBIND_NONE;
	else
		return bad_value("core.membind", v, "adapter, thread or none");
	return 0;
}

static int parse_bind_threads(const char *v, bool *out)
{
	if (!v || !*v || !strcmp(v, "no"))
		*out = false;
	else if (!strcmp(v, "adapter"))
		*out = true;
	else
		return bad_value("core.bind_threads", v, "no or adapter");
	return 0;
}

/*
 * The PCI scan is read only when placement needs the adapter: one is named, threads
 * are bound near it, memory is bound to it, or the default binding must know whether
 * it has a NUMA node of its own, which only matters with more than one node.
 */
int xrma_core_placement_resolve(const struct xrma_config *cfg, struct xrma_core_placement *pl)
{
	const char *want = xrma_config_value(cfg, XRMA_CONFIG_CORE_ADAPTER);
	const struct xrma_topo *t;
	bool need_adapter;
	int ret;

	memset(pl, 0, sizeof(*pl));
	ret = parse_membind(xrma_config_value(cfg, XRMA_CONFIG_CORE_MEMBIND), &pl->membind);
	if (!ret)
		ret = parse_bind_threads(xrma_config_value(cfg, XRMA_CONFIG_CORE_BIND_THREADS),
					 &pl->bind_threads);
	if (ret)
		return ret;
	need_adapter = (want && *want && strcmp(want, "auto")) || pl->bind_threads ||
		       pl->membind == XRMA_MEMBIND_ADAPTER;
	if (!need_adapter && pl->membind != XRMA_MEMBIND_NONE) {
		ret = xrma_core_topo_base(&pl->hw);
		if (ret)
			return ret;
		if (pl->membind == XRMA_MEMBIND_AUTO) {
			if (hwloc_get_nbobjs_by_type(pl->hw, HWLOC_OBJ_NUMANODE) > 1)
				need_adapter = true;
			else
				pl->membind = XRMA_MEMBIND_NONE;
		}
	}
	if (!need_adapter)
		return 0;
	ret = xrma_core_topo_get(&t);
	if (!ret)
		ret = choose_adapter(t, want, &pl->adapter);
	if (ret)
		return ret;
	pl->hw = t->hw;
	if (pl->membind == XRMA_MEMBIND_AUTO)
		pl->membind = pl->adapter->info.numa_node != XRMA_NUMA_NONE ? XRMA_MEMBIND_ADAPTER
									   : XRMA_MEMBIND_NONE;
	return 0;
}

void xrma_core_placement_membind(const struct xrma_core_placement *pl, void *addr, size_t len)
{
	hwloc_nodeset_t nodes;
	hwloc_cpuset_t cpus;

	if (!pl->hw || pl->membind == XRMA_MEMBIND_NONE || !addr || !len)
		return;
	nodes = hwloc_bitmap_alloc();
	if (!nodes)
		return;
	if (pl->membind == XRMA_MEMBIND_ADAPTER) {
		hwloc_bitmap_copy(nodes, pl->adapter->nodeset);
	} else {
		cpus = hwloc_bitmap_alloc();
		if (cpus && !hwloc_get_last_cpu_location(pl->hw, cpus, HWLOC_CPUBIND_THREAD))
			hwloc_cpuset_to_nodeset(pl->hw, cpus, nodes);
		hwloc_bitmap_free(cpus);
	}
	/* ENOSYS (no support) and EXDEV (cannot be enforced) leave the default policy. */
	if (!hwloc_bitmap_iszero(nodes))
		(void)hwloc_set_area_membind(pl->hw, addr, len, nodes, HWLOC_MEMBIND_BIND,
					     HWLOC_MEMBIND_BYNODESET);
	hwloc_bitmap_free(nodes);
}

void xrma_core_placement_start_thread(const struct xrma_core_placement *pl, pthread_t thread,
				      const char *name)
{
	pthread_setname_np(thread, name);
	if (!pl->hw || !pl->bind_threads || !pl->adapter || !pl->adapter->cpuset ||
	    hwloc_bitmap_iszero(pl->adapter->cpuset))
		return;
	/* A CPU set the kernel refuses (offline CPUs) leaves the thread where it was. */
	(void)hwloc_set_thread_cpubind(pl->hw, thread, pl->adapter->cpuset, 0);
}
