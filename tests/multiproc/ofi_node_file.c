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
#include "examples/common/local_port.h"

#define NODES_MAX 64

int main(int argc, char **argv)
{
	char *lines = NULL;
	size_t size = 0;
	long first, last;
	FILE *mem;
	int ret;

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
	/* Lines go out only once every node has its port: no half file on failure. */
	mem = open_memstream(&lines, &size);
	ret = mem ? local_port_node_lines(mem, (unsigned long)first, (unsigned long)last) : -1;
	if (mem && fclose(mem))
		ret = -1;
	if (ret) {
		fprintf(stderr, "%s: no free port on 127.0.0.1\n", argv[0]);
		free(lines);
		return 1;
	}
	printf("# id  host:port\n%s", lines);
	free(lines);
	return fflush(stdout) ? 1 : 0;
}
