/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_maps.h: reading /proc/self/maps or smaps line by line
 * without allocating: the fork handlers read them, and a forked child of a
 * threaded process must not call malloc.
 */
#ifndef XRMA_PROV_HOSTFAB_MAPS_H
#define XRMA_PROV_HOSTFAB_MAPS_H

#include <stddef.h>

/* Long enough for a header line with a PATH_MAX path. */
#define HOSTFAB_MAPS_BUF 8192

struct hostfab_maps {
	int fd;
	size_t len, pos;   /* bytes in buf; start of the next line */
	char buf[HOSTFAB_MAPS_BUF];
};

/* Open path ("/proc/self/maps", "/proc/self/smaps"); -1 when it cannot be read. */
int hostfab_maps_open(struct hostfab_maps *maps, const char *path);
/*
 * The next line, NUL-terminated, without its newline; NULL at the end. A line
 * longer than the buffer comes cut to its first HOSTFAB_MAPS_BUF - 1 bytes.
 * Valid until the next call.
 */
const char *hostfab_maps_line(struct hostfab_maps *maps);
void hostfab_maps_close(struct hostfab_maps *maps);

#endif
