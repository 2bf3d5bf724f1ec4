/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/topo.h: the machine as xrma sees it (hwloc): adapters, the PCI
 * devices a context is tied to (an NTB, a Dolphin card, a PXImc bridge) or the
 * host itself when there is none, and the NUMA nodes. The topology is read once
 * per process; docs/topology.md explains adapter choice, memory placement and
 * thread binding.
 */
#ifndef XRMA_TOPO_H
#define XRMA_TOPO_H

#include <stdint.h>
#include <xrma/api.h>
#include <xrma/info.h>

XRMA_BEGIN_DECLS

struct xrma_ctx;

enum xrma_adapter_kind {
	XRMA_ADAPTER_HOST = 0,     /* no device: the machine itself */
	XRMA_ADAPTER_NTB = 1,      /* a non-transparent bridge (Intel, AMD, IDT, PLX, Switchtec) */
	XRMA_ADAPTER_DOLPHIN = 2,  /* a Dolphin SCI / PCIe adapter */
	XRMA_ADAPTER_PXIMC = 3     /* a PXImc bridge */
};

/* Value of numa_node when the adapter is not local to one NUMA node. */
#define XRMA_NUMA_NONE UINT32_MAX

struct xrma_adapter_info {
	uint32_t index;
	uint32_t kind;            /* enum xrma_adapter_kind */
	char name[XRMA_NAME_MAX]; /* "ntb0", "dolphin0", "pximc0" or "host" */
	char model[96];           /* what the device is, from hwloc or xrma's id table */
	/* PCI location and ids; all 0 for the host. */
	uint32_t pci_domain;
	uint8_t pci_bus, pci_dev, pci_func;
	char pci_addr[16];        /* "dddd:bb:dd.f", "" for the host */
	uint16_t vendor_id, device_id;
	uint16_t subvendor_id, subdevice_id;
	/* Locality: the nearest NUMA node (os index) and the CPUs close to it. */
	uint32_t numa_node;       /* XRMA_NUMA_NONE for the host or an unknown locality */
	uint32_t numa_count;      /* NUMA nodes local to the adapter */
	char numa_nodes[64];      /* their os indexes as a list, "0" or "0-1" */
	uint32_t cpu_count;       /* processing units local to the adapter */
	char cpus[128];           /* their os indexes as a list, "0-7,16-23" */
};

struct xrma_numa_info {
	uint32_t index;           /* 0 .. count-1 */
	uint32_t os_index;        /* the kernel's node number */
	uint64_t memory;          /* local memory, bytes (0 if unknown) */
	uint32_t cpu_count;
	char cpus[128];
};

/*
 * Number of adapters on this machine (at least 1: the host is always last), or
 * a negative XRMA_E* code if the topology cannot be read (XRMA_ECONFIG for a
 * bad [core] topology_xml).
 */
XRMA_API int xrma_adapter_count(void);

/* Describe adapter number index; XRMA_ERANGE past the end, XRMA_EINVAL for NULL. */
XRMA_API int xrma_adapter_get(int index, struct xrma_adapter_info *info);

/* Number of NUMA nodes (at least 1), or a negative XRMA_E* code. */
XRMA_API int xrma_numa_count(void);

/* Describe NUMA node number index; XRMA_ERANGE past the end, XRMA_EINVAL for NULL. */
XRMA_API int xrma_numa_get(int index, struct xrma_numa_info *info);

/* The adapter a context is tied to (chosen at open by [core] adapter). */
XRMA_API int xrma_ctx_adapter(struct xrma_ctx *ctx, struct xrma_adapter_info *info);

XRMA_END_DECLS

#endif
