/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/ofi_node_file.c: print an ofi node file for nodes FIRST..LAST
 * on HOST (default 127.0.0.1), each at a TCP port the kernel hands out now.
 * All ports are held until every one is picked, so no two lines share one.
 * Used by run_conformance_on_ofi.sh:  ofi_node_file 0 8 > nodes
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#define NODES_MAX 64

int main(int argc, char **argv)
{
	const char *host = argc > 3 ? argv[3] : "127.0.0.1";
	int fds[NODES_MAX], ports[NODES_MAX];
	long first, last;
	int n, status = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s FIRST LAST [HOST]\n", argv[0]);
		return 2;
	}
	first = strtol(argv[1], NULL, 0);
	last = strtol(argv[2], NULL, 0);
	if (first < 0 || last < first || last - first >= NODES_MAX) {
		fprintf(stderr, "%s: at most %d nodes, FIRST <= LAST\n", argv[0], NODES_MAX);
		return 2;
	}
	n = (int)(last - first + 1);
	for (int i = 0; i < n; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET };
		socklen_t len = sizeof(a);

		fds[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (fds[i] < 0 || inet_pton(AF_INET, host, &a.sin_addr) != 1 ||
		    bind(fds[i], (struct sockaddr *)&a, sizeof(a)) ||
		    getsockname(fds[i], (struct sockaddr *)&a, &len)) {
			fprintf(stderr, "%s: no free port on %s\n", argv[0], host);
			return 1;
		}
		ports[i] = ntohs(a.sin_port);
	}
	printf("# id  host:port\n");
	for (int i = 0; i < n; i++) {
		printf("%ld %s:%d\n", first + i, host, ports[i]);
		close(fds[i]);
	}
	if (fflush(stdout))
		status = 1;
	return status;
}
