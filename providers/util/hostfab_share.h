/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_share.h: the file behind a range of this process's
 * pages, for registrations that other processes (ntb, sci) or a view of the
 * provider's own (loopback) must map; hostfab_share.c says how.
 */
#ifndef XRMA_PROV_HOSTFAB_SHARE_H
#define XRMA_PROV_HOSTFAB_SHARE_H

#include <stddef.h>
#include <stdint.h>

struct hostfab_share;

/*
 * The file behind the page-aligned range [addr, +len), re-backing private
 * pages in place where needed; *file_offset is where addr lies in *fd (the
 * descriptor belongs to the share). XRMA_ENOTSUP where no one file can hold the
 * range (mixed kinds, unreadable or unaligned pages, a shared file we cannot
 * open), XRMA_EFAULT for unmapped pages, XRMA_ENOMEM. Each get is paired with
 * a put.
 */
int hostfab_share_get(void *addr, size_t len, int *fd, uint64_t *file_offset,
		      struct hostfab_share **share);
void hostfab_share_put(struct hostfab_share *share);

#endif
