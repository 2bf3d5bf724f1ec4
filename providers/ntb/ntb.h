/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ntb/ntb.h: the NTB device model. Nodes are processes on this host
 * (the host fabric, providers/util) seen through a non-transparent bridge:
 * exported memory is carved from a few inbound memory windows of bounded size
 * and translation alignment, each node has a doorbell register and
 * scratchpads, and the link can go down. Limits come from the configuration
 * ([ntb] section); defaults follow an Intel Xeon NTB.
 */
#ifndef XRMA_PROV_NTB_H
#define XRMA_PROV_NTB_H

#include "providers/provider.h"

extern const struct xrma_provider xrma_prov_ntb;

#endif
