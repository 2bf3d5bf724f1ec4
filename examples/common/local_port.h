/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/common/local_port.h: a free TCP port on 127.0.0.1 for the node
 * files that benchmarks and tests write themselves.
 */
#ifndef XRMA_EXAMPLES_LOCAL_PORT_H
#define XRMA_EXAMPLES_LOCAL_PORT_H

/*
 * Bind a TCP socket to a free port of 127.0.0.1 below the kernel's ephemeral
 * range, put the port in *port and return the socket (close it just before the
 * port is used), or -1 with errno set. Ports from the ephemeral range would not
 * stay free: every endpoint bound to port 0 draws from it (the ofi provider's
 * initiator endpoint among them). Successive calls return different ports.
 */
int local_port_hold(int *port);

#endif
