/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/exit_notice.h: contexts still open when their process exits tell
 * their peers so at once (see exit_notice.c).
 */
#ifndef XRMA_CORE_EXIT_NOTICE_H
#define XRMA_CORE_EXIT_NOTICE_H

#include <sys/types.h>
#include "common/list.h"

struct xrma_core_ctx;

/* A context's place on the list; under the list's lock. */
struct xrma_exit_notice {
	struct xrma_list_link link;
	pid_t opener;               /* the process that opened the context */
};

/* Put an open context on the list (a no-op if its provider has no depart op). */
void xrma_exit_notice_add(struct xrma_core_ctx *ctx);
/* Take it off before its provider closes; waits out a notice in progress. */
void xrma_exit_notice_remove(struct xrma_core_ctx *ctx);

#endif
