/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/common/bench_fabric.h: the one raw libfabric baseline of the
 * benchmarks: one RDM endpoint, one CQ and one registered buffer per process,
 * connected to the other process of a benchmark over its set-up link
 * (bench_link_*), fi_writemsg with FI_DELIVERY_COMPLETE (the guarantee xrma's
 * writes give) or fi_readmsg, the CQ polled by the thread that posts.
 *
 * Three ways to use it: tools/bench measures libfabric directly (shm and
 * tcp;ofi_rxm); ofi_rma_bench puts an endpoint next to xrma in each of its two
 * processes; the SISCI and SCIF benchmarks on ofi start a raw target process
 * of their own (bench_fabric_link_*) that polls only during the rounds they
 * announce. Every failure ends the program with a message: these are benchmarks.
 */
#ifndef XRMA_BENCH_FABRIC_H
#define XRMA_BENCH_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <rdma/fabric.h>

#define BENCH_FABRIC_WINDOW 64   /* operations in flight at most */

struct bench_fabric {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_mr *mr;
	unsigned char *buf;      /* [0, max): where the peer writes and reads; [max, 2*max): ours */
	size_t max;
	fi_addr_t peer;
	uint64_t peer_key, peer_base;
	struct fi_context2 ctx[BENCH_FABRIC_WINDOW];
};

/*
 * Open an endpoint of libfabric provider prov (e.g. "shm", "tcp;ofi_rxm") on
 * 127.0.0.1 (port service, NULL: any) with a buffer of 2 * max bytes. false,
 * with the reason on stderr, when the provider is not there: callers may skip it.
 */
bool bench_fabric_open(struct bench_fabric *f, const char *prov, const char *service, size_t max);

/* Swap addresses, keys and buffer bases with the other process over sock. */
void bench_fabric_connect(struct bench_fabric *f, int sock);
void bench_fabric_close(struct bench_fabric *f);

/*
 * Post one write (our half to the peer's first half) or read (the peer's
 * first half into our half) of len bytes with context ctx. Writes ask for
 * FI_DELIVERY_COMPLETE, the guarantee xrma's synchronous RMA gives.
 */
void bench_fabric_post(struct bench_fabric *f, bool read, size_t len, void *ctx);

/* Completions read, at most want (and at most BENCH_FABRIC_WINDOW); 0 when none. */
int bench_fabric_reap(struct bench_fabric *f, int want);

/*
 * Spin until the 8 bytes at the end of len bytes of buf read want, calling
 * step(arg) between looks; without a step, yield the CPU to whichever thread
 * delivers the writes (two spinners already fill a 2-CPU machine). A peer
 * silent for seconds ends the program.
 */
void bench_await_word(unsigned char *buf, size_t len, uint64_t want, void (*step)(void *arg),
		      void *arg);

/* bench_await_word, driving endpoint progress (libfabric's manual progress) if not NULL. */
void bench_fabric_await_word(struct bench_fabric *progress, unsigned char *buf, size_t len,
			     uint64_t want);

/*
 * One-way nanoseconds of iterations rounds of a write ping-pong of len bytes:
 * each side writes when it sees the peer's last word change (the initiator
 * writes first), waiting for each write's completion.
 */
double bench_fabric_pingpong(struct bench_fabric *f, size_t len, int iterations, bool initiator);

/*
 * The same ping-pong with the threads xrma's ofi provider runs: a second
 * thread per process (on the caller's CPUs) polls the CQ between yields, as
 * xrma's progress thread does, so the peer's writes land while the caller
 * waits for them in memory, yielding, as an xrma target application does;
 * the caller drives its own write's completion, as an xrma synchronous post
 * does. Against bench_fabric_pingpong it prices that division of labour on
 * its own; against xrma, what xrma adds to it.
 */
double bench_fabric_pingpong_threaded(struct bench_fabric *f, size_t len, int iterations,
				      bool initiator);

/*
 * Nanoseconds per operation of iterations writes (or reads), window in flight
 * (1: each one waited for, as a synchronous call; at most BENCH_FABRIC_WINDOW).
 */
double bench_fabric_stream(struct bench_fabric *f, bool read, size_t len, int iterations, int window);

/* The target's part while the initiator streams: progress until sock has a message. */
void bench_fabric_serve_until(struct bench_fabric *f, int sock);

/* The 8-byte word at the end of len bytes of buf. */
static inline volatile uint64_t *bench_fabric_last_word(unsigned char *buf, size_t len)
{
	return (volatile uint64_t *)(void *)(buf + len - 8);
}

/* The libfabric provider under xrma's ofi provider: XRMA_OFI_PROVIDER, else tcp;ofi_rxm. */
const char *bench_fabric_provider(void);

/*
 * Write a node file for xrma's ofi provider, nodes first..last on 127.0.0.1
 * with free ports, export it as XRMA_OFI_NODES for the processes started
 * later, and remove it when the program exits.
 */
void bench_fabric_node_file(uint32_t first, uint32_t last);

/*
 * Whether the program runs on the ofi provider (XRMA_PROVIDER=ofi); if so and
 * no node file is given, write one (bench_fabric_node_file).
 */
bool bench_fabric_ofi_selected(uint32_t first, uint32_t last);

/* A raw target process and our endpoint connected to it. */
struct bench_fabric_link {
	struct bench_fabric f;
	pid_t pid;
	int sock;
	bool up;
};

/*
 * Start the raw target (a child process on CPU target_cpu, with the provider
 * of bench_fabric_provider) and connect to it. Call before anything starts
 * threads: the child is forked, not executed.
 */
void bench_fabric_link_start(struct bench_fabric_link *l, size_t max, int target_cpu);

/*
 * iterations transfers of len bytes, window in flight (as bench_fabric_stream).
 * The target polls its CQ only during a round (a set-up round trip starts it),
 * so between rounds it leaves the CPU to what is measured next.
 */
void bench_fabric_link_round(struct bench_fabric_link *l, bool read, size_t len, int iterations,
			     int window);

void bench_fabric_link_stop(struct bench_fabric_link *l);

#endif
