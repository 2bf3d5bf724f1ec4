/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/common/local_port.c: free ports outside the ephemeral range (see
 * local_port.h). Each process starts at its own place in the range, so that
 * programs choosing ports at the same time rarely try the same ones.
 */
#include "local_port.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PORT_FLOOR 1024
#define PORT_SPAN 16384

/* The first port the kernel hands out for port 0 (32768 where it cannot be read). */
static int ephemeral_low(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	int low = 32768, high;

	if (f) {
		if (fscanf(f, "%d %d", &low, &high) != 2)
			low = 32768;
		fclose(f);
	}
	return low;
}

int local_port_hold(int *port)
{
	static unsigned int next, span;
	static int bottom;

	/* The range, and where this process starts in it, once. */
	if (!next) {
		int top = ephemeral_low();

		bottom = top - PORT_SPAN < PORT_FLOOR ? PORT_FLOOR : top - PORT_SPAN;
		span = top > bottom ? (unsigned int)(top - bottom) : 0;
		next = ((unsigned int)getpid() * 2654435761u ^ (unsigned int)time(NULL)) | 1u;
	}
	for (unsigned int tries = 0; tries < span; tries++) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -1;
		a.sin_port = htons((uint16_t)(bottom + (int)(next++ % span)));
		if (!bind(fd, (struct sockaddr *)&a, sizeof(a))) {
			*port = ntohs(a.sin_port);
			return fd;
		}
		close(fd);
	}
	errno = EADDRNOTAVAIL;
	return -1;
}

int local_port_node_lines(FILE *out, unsigned long first, unsigned long last)
{
	size_t n = last >= first ? last - first + 1 : 0, held = 0;
	int *fds = n ? calloc(n, sizeof(*fds)) : NULL;
	int err = 0;

	if (!fds) {
		errno = n ? ENOMEM : EINVAL;
		return -1;
	}
	while (held < n) {
		int port, fd = local_port_hold(&port);

		if (fd < 0) {
			err = errno;
			break;
		}
		fds[held] = fd;
		if (fprintf(out, "%lu 127.0.0.1:%d\n", first + held++, port) < 0) {
			err = errno ? errno : EIO;
			break;
		}
	}
	/* Closed only now: a port still held cannot be picked again for a later line. */
	for (size_t i = 0; i < held; i++)
		close(fds[i]);
	free(fds);
	errno = err;
	return err ? -1 : 0;
}
