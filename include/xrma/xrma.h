/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/xrma.h: the whole core API in one include. Personalities and
 * programs include this; see docs/core.md for the object model.
 */
#ifndef XRMA_XRMA_H
#define XRMA_XRMA_H

#include <xrma/api.h>
#include <xrma/errors.h>
#include <xrma/info.h>
#include <xrma/topo.h>
#include <xrma/ctx.h>
#include <xrma/node.h>
#include <xrma/event.h>
#include <xrma/seg.h>
#include <xrma/rseg.h>
#include <xrma/dmaq.h>
#include <xrma/bcast.h>
#include <xrma/fence.h>
#include <xrma/win.h>
#include <xrma/rwin.h>
#include <xrma/conn.h>
#include <xrma/intr.h>
#include <xrma/doorbell.h>

#endif
