/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/topo.h: the process's one hwloc topology (read lazily, once, then only
 * read: hwloc allows concurrent readers) with the adapters found in it, and a
 * context's placement: the adapter it is tied to, where its segment memory is
 * bound and whether its service and DMA threads are bound near the adapter.
 * The public view is include/xrma/topo.h; docs/topology.md the user's guide.
 */
#ifndef XRMA_CORE_TOPO_H
#define XRMA_CORE_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <hwloc.h>
#include <pthread.h>
#include <xrma/topo.h>

struct xrma_config;

struct xrma_topo_adapter {
	struct xrma_adapter_info info;
	hwloc_const_cpuset_t cpuset;     /* CPUs near it (the topology's, read-only) */
	hwloc_const_nodeset_t nodeset;   /* NUMA nodes near it */
};

struct xrma_topo {
	hwloc_topology_t hw;
	size_t adapter_count;            /* devices first, the host last */
	struct xrma_topo_adapter *adapters;
};

/* The topology with adapters, read on first use; 0 or XRMA_ECONFIG (bad XML) / XRMA_ENOMEM. */
int xrma_core_topo_get(const struct xrma_topo **topo);

/* The topology of CPUs and memory only (no PCI scan), read on first use. */
int xrma_core_topo_base(hwloc_topology_t *hw);

enum xrma_membind {
	XRMA_MEMBIND_NONE = 0,
	XRMA_MEMBIND_ADAPTER,   /* the adapter's NUMA node(s) */
	XRMA_MEMBIND_THREAD,    /* the NUMA node of the CPU the allocating thread runs on */
	XRMA_MEMBIND_AUTO       /* the default while resolving: one of the above once resolved */
};

struct xrma_core_placement {
	hwloc_topology_t hw;                       /* what binding uses; NULL: no binding */
	const struct xrma_topo_adapter *adapter;   /* NULL: the default (adapter 0), not read */
	enum xrma_membind membind;
	bool bind_threads;
};

/*
 * Resolve [core] adapter, membind and bind_threads from a snapshot; XRMA_ECONFIG
 * for an unknown adapter or value.
 */
int xrma_core_placement_resolve(const struct xrma_config *cfg, struct xrma_core_placement *pl);

/*
 * Bind [addr, addr+len) (page-aligned, not yet touched) as the placement says.
 * Best effort: a kernel or machine that cannot bind (one NUMA node, no mbind)
 * leaves the memory where it falls, which is never the caller's error.
 */
void xrma_core_placement_membind(const struct xrma_core_placement *pl, void *addr, size_t len);

/*
 * Name a context thread its creator just started (for ps and xrma's tests) and
 * bind it near the adapter if asked, before the creator returns to its caller.
 */
void xrma_core_placement_start_thread(const struct xrma_core_placement *pl, pthread_t thread,
				      const char *name);

#endif
