/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/common/local_port.h: free TCP ports on 127.0.0.1, and the node
 * files that benchmarks and tests write themselves with them.
 */
#ifndef XRMA_EXAMPLES_LOCAL_PORT_H
#define XRMA_EXAMPLES_LOCAL_PORT_H

#include <stdio.h>

/*
 * Bind a TCP socket to a free port of 127.0.0.1 below the kernel's ephemeral
 * range, put the port in *port and return the socket (close it just before the
 * port is used), or -1 with errno set. Ports from the ephemeral range would not
 * stay free: every endpoint bound to port 0 draws from it (the ofi provider's
 * initiator and target endpoints among them). Successive calls return different ports.
 */
int local_port_hold(int *port);

/*
 * Write an ofi node file's lines for nodes first..last to out ("id
 * 127.0.0.1:port"), each node at a port of local_port_hold, all of them held
 * until every one is picked so that no two lines share one. 0, or -1 with
 * errno set (nothing is held then, though some lines may have been written).
 */
int local_port_node_lines(FILE *out, unsigned long first, unsigned long last);

#endif
