/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_maps.c: /proc/self/maps and smaps through a fixed
 * buffer and read(2) (hostfab_maps.h says why). The kernel hands out whole
 * lines per read, but a line may still end past the buffer: the unread tail
 * moves to the front before the next read.
 */
#include "providers/util/hostfab_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

int hostfab_maps_open(struct hostfab_maps *maps, const char *path)
{
	maps->len = maps->pos = 0;
	maps->fd = open(path, O_RDONLY | O_CLOEXEC);
	return maps->fd < 0 ? -1 : 0;
}

/* Read more after the unread bytes; false at the end or on an error. */
static bool maps_fill(struct hostfab_maps *maps)
{
	ssize_t got;

	if (maps->pos) {
		memmove(maps->buf, maps->buf + maps->pos, maps->len - maps->pos);
		maps->len -= maps->pos;
		maps->pos = 0;
	}
	if (maps->len >= sizeof(maps->buf) - 1)
		return false;
	do
		got = read(maps->fd, maps->buf + maps->len, sizeof(maps->buf) - 1 - maps->len);
	while (got < 0 && errno == EINTR);
	if (got <= 0)
		return false;
	maps->len += (size_t)got;
	return true;
}

const char *hostfab_maps_line(struct hostfab_maps *maps)
{
	char *line, *end;

	for (;;) {
		line = maps->buf + maps->pos;
		end = memchr(line, '\n', maps->len - maps->pos);
		if (end) {
			*end = '\0';
			maps->pos = (size_t)(end + 1 - maps->buf);
			return line;
		}
		if (!maps_fill(maps))
			break;
	}
	if (maps->pos == maps->len)
		return NULL;
	/* A last line without newline, or one longer than the buffer: cut, and its rest skipped. */
	line = maps->buf + maps->pos;
	maps->buf[maps->len] = '\0';
	if (maps->pos == 0 && maps->len == sizeof(maps->buf) - 1) {
		char c;

		while (read(maps->fd, &c, 1) == 1 && c != '\n')
			;
	}
	maps->pos = maps->len;
	return line;
}

void hostfab_maps_close(struct hostfab_maps *maps)
{
	if (maps->fd >= 0)
		close(maps->fd);
	maps->fd = -1;
}
