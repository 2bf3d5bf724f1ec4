/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_share_stack.h: re-backed pages on the forking
 * thread's stack, kept private to each process across fork();
 * hostfab_share_stack.c says why and how. The three calls are the fork
 * handlers' and run under the share table's lock (hostfab_share.c).
 */
#ifndef XRMA_PROV_HOSTFAB_SHARE_STACK_H
#define XRMA_PROV_HOSTFAB_SHARE_STACK_H

#include <stddef.h>
#include <sys/types.h>

/* One memfd of ours, by identity. */
struct hostfab_share_file {
	dev_t dev;
	ino_t ino;
};

/* Before fork: the forking thread's stack pages mapping one of files become private. */
void hostfab_share_stack_aside(const struct hostfab_share_file *files, size_t count);
/* In the parent after fork: those pages go back onto their memfd, with what they hold now. */
void hostfab_share_stack_back(void);
/* In the child: the memfd mappings set aside are dropped; the stack stays private. */
void hostfab_share_stack_forget(void);

#endif
