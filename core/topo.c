/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/topo.c: the machine's topology through hwloc, read once per process
 * (pthread_once) and never changed, so every thread may read and bind with it.
 * Finding PCI devices costs far more than the rest (hundreds of sysfs files), so
 * it is read only when someone asks about adapters; placement that needs no
 * adapter uses a second topology of CPUs and memory only.
 * Adapters are PCI functions with ids xrma knows (core/topo_ids.c) plus the
 * host; the public queries of include/xrma/topo.h. Placement decisions (which
 * adapter, memory and thread binding) are core/topo_place.c's.
 */
#include "core/topo.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/config.h"
#include "core/ctx.h"
#include "core/topo_ids.h"

static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
static struct xrma_topo topo_state;
static int topo_status;

static void bitmap_list(char *buf, size_t len, hwloc_const_bitmap_t set)
{
	if (!set || hwloc_bitmap_iszero(set) || hwloc_bitmap_list_snprintf(buf, len, set) < 0)
		buf[0] = '\0';
}

static void fill_locality(struct xrma_topo_adapter *a)
{
	struct xrma_adapter_info *info = &a->info;

	info->numa_count = a->nodeset ? (uint32_t)hwloc_bitmap_weight(a->nodeset) : 0;
	info->cpu_count = a->cpuset ? (uint32_t)hwloc_bitmap_weight(a->cpuset) : 0;
	bitmap_list(info->numa_nodes, sizeof(info->numa_nodes), a->nodeset);
	bitmap_list(info->cpus, sizeof(info->cpus), a->cpuset);
}

/* A device adapter: the PCI function, its ids, and the CPUs and memory nearest to it. */
static void describe_device(hwloc_topology_t hw, hwloc_obj_t dev, const struct xrma_topo_id *id,
			    unsigned ordinal, struct xrma_topo_adapter *a)
{
	const struct hwloc_pcidev_attr_s *pci = &dev->attr->pcidev;
	struct xrma_adapter_info *info = &a->info;
	hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(hw, dev);
	const char *name = hwloc_obj_get_info_by_name(dev, "PCIDevice");

	info->kind = id->kind;
	snprintf(info->name, sizeof(info->name), "%s%u", xrma_topo_kind_name(id->kind), ordinal);
	snprintf(info->model, sizeof(info->model), "%s", name && *name ? name : id->model);
	info->pci_domain = pci->domain;
	info->pci_bus = pci->bus;
	info->pci_dev = pci->dev;
	info->pci_func = pci->func;
	snprintf(info->pci_addr, sizeof(info->pci_addr), "%04x:%02x:%02x.%x", (unsigned)pci->domain,
		 pci->bus, pci->dev, pci->func);
	info->vendor_id = pci->vendor_id;
	info->device_id = pci->device_id;
	info->subvendor_id = pci->subvendor_id;
	info->subdevice_id = pci->subdevice_id;
	a->cpuset = near ? near->cpuset : NULL;
	a->nodeset = near ? near->nodeset : NULL;
	info->numa_node = a->nodeset && !hwloc_bitmap_iszero(a->nodeset)
				  ? (uint32_t)hwloc_bitmap_first(a->nodeset)
				  : XRMA_NUMA_NONE;
	fill_locality(a);
}

static void describe_host(hwloc_topology_t hw, struct xrma_topo_adapter *a)
{
	hwloc_obj_t root = hwloc_get_root_obj(hw);
	const char *product = hwloc_obj_get_info_by_name(root, "DMIProductName");

	a->info.kind = XRMA_ADAPTER_HOST;
	snprintf(a->info.name, sizeof(a->info.name), "host");
	snprintf(a->info.model, sizeof(a->info.model), "%s", product && *product ? product : "host");
	a->cpuset = hwloc_topology_get_topology_cpuset(hw);
	a->nodeset = hwloc_topology_get_topology_nodeset(hw);
	/* The whole machine is local to no single node: nothing to bind to by default. */
	a->info.numa_node = XRMA_NUMA_NONE;
	fill_locality(a);
}

static int find_adapters(struct xrma_topo *t)
{
	unsigned ordinal[XRMA_ADAPTER_PXIMC + 1] = { 0 };
	size_t count = 1;
	hwloc_obj_t dev = NULL;

	while ((dev = hwloc_get_next_pcidev(t->hw, dev)))
		count += xrma_topo_id_match(&dev->attr->pcidev) != NULL;
	t->adapters = calloc(count, sizeof(*t->adapters));
	if (!t->adapters)
		return -XRMA_ENOMEM;
	while ((dev = hwloc_get_next_pcidev(t->hw, dev))) {
		const struct xrma_topo_id *id = xrma_topo_id_match(&dev->attr->pcidev);
		struct xrma_topo_adapter *a = &t->adapters[t->adapter_count];

		if (!id)
			continue;
		describe_device(t->hw, dev, id, ordinal[id->kind]++, a);
		a->info.index = (uint32_t)t->adapter_count++;
	}
	describe_host(t->hw, &t->adapters[t->adapter_count]);
	t->adapters[t->adapter_count].info.index = (uint32_t)t->adapter_count;
	t->adapter_count++;
	return 0;
}

/*
 * With io, PCI functions of every class are kept (an NTB is a "bridge, other"
 * function, which hwloc's default filter drops). A test's XML file describes this
 * machine's CPU numbering, so binding through it acts on this system.
 */
static int load_topology(hwloc_topology_t *hw, bool io)
{
	struct xrma_config *cfg = malloc(sizeof(*cfg));
	const char *xml;
	int ret;

	if (!cfg)
		return -XRMA_ENOMEM;
	ret = xrma_config_load(cfg);
	if (ret)
		goto out_free;
	ret = -XRMA_ENOMEM;
	if (hwloc_topology_init(hw))
		goto out_free;
	ret = -XRMA_ECONFIG;
	if (io) {
		hwloc_topology_set_type_filter(*hw, HWLOC_OBJ_PCI_DEVICE, HWLOC_TYPE_FILTER_KEEP_ALL);
		hwloc_topology_set_type_filter(*hw, HWLOC_OBJ_BRIDGE,
					       HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	}
	xml = xrma_config_value(cfg, XRMA_CONFIG_CORE_TOPOLOGY_XML);
	if (xml && *xml &&
	    (hwloc_topology_set_xml(*hw, xml) ||
	     hwloc_topology_set_flags(*hw, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM)))
		goto out_destroy;
	if (hwloc_topology_load(*hw))
		goto out_destroy;
	ret = 0;
	goto out_free;

out_destroy:
	hwloc_topology_destroy(*hw);
	*hw = NULL;
out_free:
	free(cfg);
	return ret;
}

static void topo_init_once(void)
{
	topo_status = load_topology(&topo_state.hw, true);
	if (!topo_status)
		topo_status = find_adapters(&topo_state);
}

/* The topology without I/O devices: what placement needs when no adapter is asked for. */
static pthread_once_t base_once = PTHREAD_ONCE_INIT;
static hwloc_topology_t base_hw;
static int base_status;

static void base_init_once(void)
{
	base_status = load_topology(&base_hw, false);
}

int xrma_core_topo_base(hwloc_topology_t *hw)
{
	pthread_once(&base_once, base_init_once);
	if (!base_status)
		*hw = base_hw;
	return base_status;
}

int xrma_core_topo_get(const struct xrma_topo **topo)
{
	pthread_once(&topo_once, topo_init_once);
	if (topo_status)
		return topo_status;
	*topo = &topo_state;
	return 0;
}

int xrma_adapter_count(void)
{
	const struct xrma_topo *t;
	int ret = xrma_core_topo_get(&t);

	return ret ? ret : (int)t->adapter_count;
}

static int numa_count(const struct xrma_topo *t)
{
	int n = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_NUMANODE);

	return n > 0 ? n : 1;
}

/* The checks every indexed query makes: an output, the topology, index below count(t). */
static int topo_entry(int index, const void *info, int (*count)(const struct xrma_topo *t),
		      const struct xrma_topo **t)
{
	int ret;

	if (!info)
		return -XRMA_EINVAL;
	ret = xrma_core_topo_get(t);
	if (ret)
		return ret;
	return index < 0 || index >= count(*t) ? -XRMA_ERANGE : 0;
}

static int adapter_count(const struct xrma_topo *t)
{
	return (int)t->adapter_count;
}

int xrma_adapter_get(int index, struct xrma_adapter_info *info)
{
	const struct xrma_topo *t;
	int ret = topo_entry(index, info, adapter_count, &t);

	if (!ret)
		*info = t->adapters[index].info;
	return ret;
}

int xrma_numa_count(void)
{
	const struct xrma_topo *t;
	int ret = xrma_core_topo_get(&t);

	return ret ? ret : numa_count(t);
}

int xrma_numa_get(int index, struct xrma_numa_info *info)
{
	const struct xrma_topo *t;
	hwloc_obj_t node;
	int ret = topo_entry(index, info, numa_count, &t);

	if (ret)
		return ret;
	memset(info, 0, sizeof(*info));
	info->index = (uint32_t)index;
	node = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE, (unsigned)index);
	if (node) {
		info->os_index = node->os_index;
		info->memory = node->attr ? node->attr->numanode.local_memory : 0;
		info->cpu_count = node->cpuset ? (uint32_t)hwloc_bitmap_weight(node->cpuset) : 0;
		bitmap_list(info->cpus, sizeof(info->cpus), node->cpuset);
	}
	return 0;
}

int xrma_ctx_adapter(struct xrma_ctx *handle, struct xrma_adapter_info *info)
{
	struct xrma_core_ctx *ctx;
	int ret;

	if (!info)
		return -XRMA_EINVAL;
	ret = xrma_core_ctx_acquire(handle, &ctx);
	if (ret)
		return ret;
	/* A context that needed no adapter at open has the default one: adapter 0. */
	if (ctx->placement.adapter)
		*info = ctx->placement.adapter->info;
	else
		ret = xrma_adapter_get(0, info);
	xrma_handle_put(&ctx->obj);
	return ret;
}
