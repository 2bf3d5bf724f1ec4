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
#include "core/detail.h"
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

static int parse_membind(const char *v, const struct xrma_topo_adapter *adapter,
			 enum xrma_membind *out)
{
	if (!v || !*v)
		*out = adapter->info.numa_node != XRMA_NUMA_NONE ? XRMA_MEMBIND_ADAPTER
								 : XRMA_MEMBIND_NONE;
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

int xrma_core_placement_resolve(const struct xrma_config *cfg, struct xrma_core_placement *pl)
{
	const char *bind = xrma_config_value(cfg, XRMA_CONFIG_CORE_BIND_THREADS);
	int ret;

	memset(pl, 0, sizeof(*pl));
	ret = xrma_core_topo_get(&pl->topo);
	if (ret)
		return ret;
	ret = choose_adapter(pl->topo, xrma_config_value(cfg, XRMA_CONFIG_CORE_ADAPTER), &pl->adapter);
	if (ret)
		return ret;
	ret = parse_membind(xrma_config_value(cfg, XRMA_CONFIG_CORE_MEMBIND), pl->adapter,
			    &pl->membind);
	if (ret)
		return ret;
	if (!bind || !*bind || !strcmp(bind, "no"))
		pl->bind_threads = false;
	else if (!strcmp(bind, "adapter"))
		pl->bind_threads = true;
	else
		return bad_value("core.bind_threads", bind, "no or adapter");
	return 0;
}

void xrma_core_placement_membind(const struct xrma_core_placement *pl, void *addr, size_t len)
{
	hwloc_nodeset_t nodes;
	hwloc_cpuset_t cpus;

	if (!pl->topo || pl->membind == XRMA_MEMBIND_NONE || !addr || !len)
		return;
	nodes = hwloc_bitmap_alloc();
	if (!nodes)
		return;
	if (pl->membind == XRMA_MEMBIND_ADAPTER) {
		hwloc_bitmap_copy(nodes, pl->adapter->nodeset);
	} else {
		cpus = hwloc_bitmap_alloc();
		if (cpus && !hwloc_get_last_cpu_location(pl->topo->hw, cpus, HWLOC_CPUBIND_THREAD))
			hwloc_cpuset_to_nodeset(pl->topo->hw, cpus, nodes);
		hwloc_bitmap_free(cpus);
	}
	/* ENOSYS (no support) and EXDEV (cannot be enforced) leave the default policy. */
	if (!hwloc_bitmap_iszero(nodes))
		(void)hwloc_set_area_membind(pl->topo->hw, addr, len, nodes, HWLOC_MEMBIND_BIND,
					     HWLOC_MEMBIND_BYNODESET);
	hwloc_bitmap_free(nodes);
}

void xrma_core_placement_start_thread(const struct xrma_core_placement *pl, pthread_t thread,
				      const char *name)
{
	pthread_setname_np(thread, name);
	if (!pl->topo || !pl->bind_threads || !pl->adapter->cpuset ||
	    hwloc_bitmap_iszero(pl->adapter->cpuset))
		return;
	/* A CPU set the kernel refuses (offline CPUs) leaves the thread where it was. */
	(void)hwloc_set_thread_cpubind(pl->topo->hw, thread, pl->adapter->cpuset, 0);
}
