/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/win.h: registered address space internals (the public contract is
 * include/xrma/win.h). Nothing outside core/win.c needs them yet; the header
 * keeps the object's layout next to its lock rules.
 */
#ifndef XRMA_CORE_WIN_H
#define XRMA_CORE_WIN_H

#include <stddef.h>
#include <stdint.h>
#include <xrma/win.h>
#include "core/handle.h"
#include "common/lock.h"

struct xrma_core_ctx;
struct xrma_win_entry;

struct xrma_core_win {
	struct xrma_obj obj;
	struct xrma_core_ctx *ctx;          /* fixed */
	struct xrma_lock lock;              /* guards the entry list and counts */
	struct xrma_win_entry *entries;     /* sorted by offset; live and deferred */
	size_t live, deferred;
	size_t holds;                       /* outstanding xrma_win_hold objects */
};

struct xrma_core_win_hold {
	struct xrma_obj obj;
	struct xrma_core_win *win;          /* referenced */
	size_t count;
	struct xrma_win_entry *entries[];   /* each counted in its hold_count */
};

#endif
