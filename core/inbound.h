/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/inbound.h: the upcalls a context gives its provider at open
 * (core/inbound.c dispatches them to the objects).
 */
#ifndef XRMA_CORE_INBOUND_H
#define XRMA_CORE_INBOUND_H

#include "providers/provider.h"

extern const struct xrma_prov_upcalls xrma_core_inbound_upcalls;

#endif
