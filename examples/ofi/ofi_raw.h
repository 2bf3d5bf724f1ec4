/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/ofi/ofi_raw.h: the raw libfabric baseline that the benchmarks over
 * the ofi provider measure themselves against, and their shared set-up: one
 * RDM endpoint with one CQ and one registered buffer, fi_writemsg with
 * FI_DELIVERY_COMPLETE (the guarantee xrma's writes give) or fi_readmsg, and
 * the node file a self-started run needs.
 *
 * Two ways to use it: ofi_rma_bench puts a raw endpoint in each of its two
 * processes itself (ofi_raw_open/connect); the SISCI and SCIF benchmarks start
 * a raw target process of their own at the top of main (ofi_raw_link_start,
 * before any xrma thread exists) and time rounds of raw transfers to it with
 * the same libfabric provider and sizes (ofi_raw_link_round).
 */
#ifndef XRMA_EXAMPLES_OFI_RAW_H
#define XRMA_EXAMPLES_OFI_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <rdma/fabric.h>

#define OFI_RAW_WINDOW 16   /* transfers in flight at most */

struct ofi_raw {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_mr *mr;
	unsigned char *buf;      /* [0, max): the target area; [max, 2*max): the source */
	size_t max;
	fi_addr_t peer;
	uint64_t peer_key, peer_base;
	struct fi_context2 ctx[OFI_RAW_WINDOW];
};

/* The libfabric provider: XRMA_OFI_PROVIDER, else tcp;ofi_rxm (as the ofi provider). */
const char *ofi_raw_provider(void);

/* A TCP port on 127.0.0.1 free right now. */
int ofi_raw_free_port(void);

/* Open an endpoint at 127.0.0.1:port with 2 * max bytes registered. Exits on failure. */
void ofi_raw_open(struct ofi_raw *r, const char *prov, const char *port, size_t max);

/* Learn the peer at 127.0.0.1:peer_port and swap keys over the set-up socket. */
void ofi_raw_connect(struct ofi_raw *r, int sock, const char *peer_port);

void ofi_raw_close(struct ofi_raw *r);

/* Post one transfer of len bytes (source or target at [max, max+len)) to the peer's byte 0. */
void ofi_raw_post(struct ofi_raw *r, bool read, size_t len, void *ctx);

/* Completions read now, up to want (<= OFI_RAW_WINDOW). Exits on a failed transfer. */
int ofi_raw_reap(struct ofi_raw *r, int want);

/* A raw target process and our endpoint connected to it. */
struct ofi_raw_link {
	struct ofi_raw r;
	pid_t pid;
	int sock;
	bool up;
};

/*
 * Whether the program runs on the ofi provider (XRMA_PROVIDER=ofi). If so and
 * no node file is given (XRMA_OFI_NODES), write one for nodes first..last on
 * 127.0.0.1 with free ports, export it for the processes started later, and
 * remove it at exit.
 */
bool ofi_raw_selected(uint32_t first, uint32_t last);

/*
 * Start the raw target (a child process on CPU target_cpu, progressing its CQ
 * until stopped) and connect to it. Call before anything starts threads.
 */
void ofi_raw_link_start(struct ofi_raw_link *l, size_t max, int target_cpu);

/*
 * iterations transfers of len bytes, window in flight at a time (1: each one
 * waited for, as a synchronous call). The target polls its CQ only during a
 * round (a set-up round trip starts it), so between rounds it leaves the CPU
 * to what is measured next.
 */
void ofi_raw_link_round(struct ofi_raw_link *l, bool read, size_t len, int iterations, int window);

void ofi_raw_link_stop(struct ofi_raw_link *l);

#endif
