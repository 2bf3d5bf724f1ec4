/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/pximc_xrma.h: extensions of xrma's PXImc vendor library (libpximc_xrma), not part
 * of the PXImc specification. The PXImc API has no context argument: each call works on the
 * calling thread's instance, which is the process's default instance (opened on first use
 * from the xrma defaults: XRMA_PROVIDER, XRMA_FABRIC, XRMA_NODE_ID) unless the thread bound
 * another one. Extra instances let one process act as several PXImc systems (tests,
 * single-process demos on the loopback provider). Return values are 0 or negative XRMA_E*.
 */
#ifndef PXIMC_XRMA_H
#define PXIMC_XRMA_H

#include <xrma/ctx.h>

XRMA_BEGIN_DECLS

struct xrma_pximc;

/* Open an instance on its own core context (attr as for xrma_ctx_open; NULL for defaults). */
XRMA_API int xrma_pximc_open(const struct xrma_ctx_attr *attr, struct xrma_pximc **px);

/* Close an instance: every session it holds is closed, as PXIMC_cleanup does. */
XRMA_API int xrma_pximc_close(struct xrma_pximc *px);

/* Make the calling thread's PXIMC_* calls use px (NULL: the process default again). */
XRMA_API int xrma_pximc_use(struct xrma_pximc *px);

/*
 * Device memory: len bytes (a page multiple) that stand for a device's memory on this system,
 * exported with a modelled bus address inside the node's inbound windows. *bus is the
 * physicalAddress a PXIMC_requestWindowPhysicalAsServer names to expose it (or a page-aligned
 * part of it); *addr is the local view a device driver would have. Freed with the instance.
 * px NULL: the calling thread's instance (the one its PXIMC_* calls use).
 * XRMA_ENOTSUP on providers without bus addresses (XRMA_CAP_BUS_ADDR).
 */
XRMA_API int xrma_pximc_device_memory(struct xrma_pximc *px, size_t len, uint64_t *bus,
				      void **addr);

/* The node id of an instance (interfaceID of it, seen from another node, is node + 1). */
XRMA_API int xrma_pximc_node(struct xrma_pximc *px, uint32_t *node);

XRMA_END_DECLS

#endif
