/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/topo_ids.h: which PCI functions are adapters (NTBs, Dolphin cards, PXImc
 * bridges), by vendor and device id or by vendor and class; the table is in
 * core/topo_ids.c.
 */
#ifndef XRMA_CORE_TOPO_IDS_H
#define XRMA_CORE_TOPO_IDS_H

#include <stdbool.h>
#include <stdint.h>
#include <hwloc.h>
#include <xrma/topo.h>

struct xrma_topo_id {
	uint16_t vendor;
	uint16_t device;        /* with match_class false */
	uint16_t class_id;      /* with match_class true: any device of this class */
	bool match_class;
	enum xrma_adapter_kind kind;
	const char *model;      /* said when hwloc has no name for the device */
};

/* The entry a PCI function matches, or NULL if it is no adapter. */
const struct xrma_topo_id *xrma_topo_id_match(const struct hwloc_pcidev_attr_s *pci);

/* "ntb", "dolphin", "pximc" or "host". */
const char *xrma_topo_kind_name(enum xrma_adapter_kind kind);

#endif
