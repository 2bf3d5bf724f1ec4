/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/topo_ids.c: the PCI ids of adapters. Intel and AMD NTBs are matched by
 * device id (the ids the Linux ntb_hw_intel and ntb_hw_amd drivers claim); IDT,
 * Microchip Switchtec and Broadcom/PLX switches expose NT functions as class
 * 0x0680 ("bridge, other"), so any such function of those vendors counts. Every
 * Dolphin (11c8) function is an adapter. NI publishes no id for its PXImc bridges:
 * an NI "bridge, other" function is taken for one (docs/topology.md).
 */
#include "core/topo_ids.h"

#include <stddef.h>

#define PCI_CLASS_BRIDGE_OTHER 0x0680

#define BY_DEVICE(v, d, k, m) { .vendor = (v), .device = (d), .kind = (k), .model = (m) }
#define BY_CLASS(v, k, m) \
	{ .vendor = (v), .class_id = PCI_CLASS_BRIDGE_OTHER, .match_class = true, .kind = (k), \
	  .model = (m) }

static const struct xrma_topo_id topo_ids[] = {
	/* Intel Xeon: back-to-back, primary and secondary functions per generation. */
	BY_DEVICE(0x8086, 0x3725, XRMA_ADAPTER_NTB, "Intel Xeon C5500 NTB (B2B)"),
	BY_DEVICE(0x8086, 0x3726, XRMA_ADAPTER_NTB, "Intel Xeon C5500 NTB (primary)"),
	BY_DEVICE(0x8086, 0x3727, XRMA_ADAPTER_NTB, "Intel Xeon C5500 NTB (secondary)"),
	BY_DEVICE(0x8086, 0x3c0d, XRMA_ADAPTER_NTB, "Intel Xeon E5 NTB (B2B)"),
	BY_DEVICE(0x8086, 0x3c0e, XRMA_ADAPTER_NTB, "Intel Xeon E5 NTB (primary)"),
	BY_DEVICE(0x8086, 0x3c0f, XRMA_ADAPTER_NTB, "Intel Xeon E5 NTB (secondary)"),
	BY_DEVICE(0x8086, 0x0e0d, XRMA_ADAPTER_NTB, "Intel Xeon E5 v2 NTB (B2B)"),
	BY_DEVICE(0x8086, 0x0e0e, XRMA_ADAPTER_NTB, "Intel Xeon E5 v2 NTB (primary)"),
	BY_DEVICE(0x8086, 0x0e0f, XRMA_ADAPTER_NTB, "Intel Xeon E5 v2 NTB (secondary)"),
	BY_DEVICE(0x8086, 0x2f0d, XRMA_ADAPTER_NTB, "Intel Xeon E5 v3 NTB (B2B)"),
	BY_DEVICE(0x8086, 0x2f0e, XRMA_ADAPTER_NTB, "Intel Xeon E5 v3 NTB (primary)"),
	BY_DEVICE(0x8086, 0x2f0f, XRMA_ADAPTER_NTB, "Intel Xeon E5 v3 NTB (secondary)"),
	BY_DEVICE(0x8086, 0x6f0d, XRMA_ADAPTER_NTB, "Intel Xeon E5 v4 NTB (B2B)"),
	BY_DEVICE(0x8086, 0x6f0e, XRMA_ADAPTER_NTB, "Intel Xeon E5 v4 NTB (primary)"),
	BY_DEVICE(0x8086, 0x6f0f, XRMA_ADAPTER_NTB, "Intel Xeon E5 v4 NTB (secondary)"),
	BY_DEVICE(0x8086, 0x0c4e, XRMA_ADAPTER_NTB, "Intel Atom C2000 NTB"),
	BY_DEVICE(0x8086, 0x201c, XRMA_ADAPTER_NTB, "Intel Xeon Scalable NTB"),
	BY_DEVICE(0x8086, 0x347e, XRMA_ADAPTER_NTB, "Intel Xeon Scalable 3rd gen NTB"),
	BY_DEVICE(0x8086, 0x0db4, XRMA_ADAPTER_NTB, "Intel Xeon 6 NTB"),
	/* AMD Zen and Hygon. */
	BY_DEVICE(0x1022, 0x145b, XRMA_ADAPTER_NTB, "AMD Zen NTB"),
	BY_DEVICE(0x1022, 0x148b, XRMA_ADAPTER_NTB, "AMD Zen 2 NTB"),
	BY_DEVICE(0x1022, 0x14c0, XRMA_ADAPTER_NTB, "AMD Zen 3 NTB"),
	BY_DEVICE(0x1022, 0x14c3, XRMA_ADAPTER_NTB, "AMD Zen 4 NTB"),
	BY_DEVICE(0x1d94, 0x145b, XRMA_ADAPTER_NTB, "Hygon NTB"),
	/* PCIe switches with NT functions. */
	BY_CLASS(0x111d, XRMA_ADAPTER_NTB, "IDT PCIe switch NT function"),
	BY_CLASS(0x11f8, XRMA_ADAPTER_NTB, "Microchip Switchtec NT function"),
	BY_CLASS(0x10b5, XRMA_ADAPTER_NTB, "Broadcom/PLX PCIe switch NT function"),
	BY_CLASS(0x1093, XRMA_ADAPTER_PXIMC, "NI PXImc bridge"),
};

const struct xrma_topo_id *xrma_topo_id_match(const struct hwloc_pcidev_attr_s *pci)
{
	static const struct xrma_topo_id dolphin = {
		.vendor = 0x11c8, .kind = XRMA_ADAPTER_DOLPHIN, .model = "Dolphin PCIe adapter",
	};

	if (pci->vendor_id == dolphin.vendor)
		return &dolphin;
	for (size_t i = 0; i < sizeof(topo_ids) / sizeof(topo_ids[0]); i++) {
		const struct xrma_topo_id *id = &topo_ids[i];

		if (id->vendor != pci->vendor_id)
			continue;
		if (id->match_class ? id->class_id == pci->class_id : id->device == pci->device_id)
			return id;
	}
	return NULL;
}

const char *xrma_topo_kind_name(enum xrma_adapter_kind kind)
{
	switch (kind) {
	case XRMA_ADAPTER_NTB:
		return "ntb";
	case XRMA_ADAPTER_DOLPHIN:
		return "dolphin";
	case XRMA_ADAPTER_PXIMC:
		return "pximc";
	default:
		return "host";
	}
}
