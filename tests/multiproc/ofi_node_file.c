/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/ofi_node_file.c: print an ofi node file for nodes FIRST..LAST
 * on 127.0.0.1, each at a TCP port free now and outside the ephemeral range
 * (examples/common/local_port.h says why). All ports are held until every one
 * is picked, so no two lines share one.
 * Used by run_conformance_on_ofi.sh:  ofi_node_file 0 8 > nodes
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "examples/common/local_port.h"

#define NODES_MAX 64

int main(int argc, char **argv)
{
	int fds[NODES_MAX], ports[NODES_MAX];
	long first, last;
	int n, status = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s FIRST LAST\n", argv[0]);
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
		fds[i] = local_port_hold(&ports[i]);
		if (fds[i] < 0) {
			fprintf(stderr, "%s: no free port on 127.0.0.1\n", argv[0]);
			return 1;
		}
	}
	printf("# id  host:port\n");
	for (int i = 0; i < n; i++) {
		printf("%ld 127.0.0.1:%d\n", first + i, ports[i]);
		close(fds[i]);
	}
	if (fflush(stdout))
		status = 1;
	return status;
}
