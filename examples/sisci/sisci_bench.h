/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/sisci/sisci_bench.h: what the SISCI example programs share, written
 * the way Dolphin's tools are used: "prog -server" on one node and
 * "prog -client -rn SERVER_NODE" on another (each process's node id comes from
 * XRMA_NODE_ID, as SCIOpen takes it). Run with neither option, a program
 * starts its own server as node 2 on a fabric of its own and acts as the
 * client, node 1. Client and server meet through SISCI alone: each exports a
 * segment (control words and a buffer), connects to the other's and maps it;
 * the client drives the run with commands in the server's control words. The
 * raw baseline uses a plain POSIX shared-memory page between the same two
 * processes, with the same layout and protocol. Where the provider cannot map
 * remote memory (ofi), remote_mem is NULL and the control words travel by DMA
 * (programs that need the mapping itself say so and stop).
 */
#ifndef XRMA_SISCI_BENCH_H
#define XRMA_SISCI_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sisci_api.h>
#include "../common/bench.h"

#define SB_CTRL_BYTES 4096u   /* control words at the start of each segment */
#define SB_MESSAGE_MAX (1u << 20) /* largest ping-pong message */

struct sb_opts {
	struct bench_opts bench;
	bool server, client;
	unsigned int remote_node;
	unsigned int adapter;
	unsigned int segment_id;      /* both sides export this id */
	size_t buffer;                /* bytes after the control page */
};

/* A command slot in the server's control page (64-bit words). */
enum sb_ctrl_word { SB_SEQ = 0, SB_CMD = 1, SB_ARG0 = 2, SB_ARG1 = 3, SB_ACK = 8 };

struct sb_node {
	sci_desc_t sd;
	unsigned int self, peer;
	sci_local_segment_t local;
	sci_map_t local_map;
	volatile uint8_t *local_mem;     /* my segment: control page + buffer */
	sci_remote_segment_t remote;
	sci_map_t remote_map;
	volatile uint8_t *remote_mem;    /* the peer's segment, mapped; NULL: not mappable */
	sci_dma_queue_t ctrl_dq;         /* without remote_mem: control words go by DMA */
	volatile uint8_t *raw;           /* the raw page, shared by both (same layout x2) */
	volatile uint8_t *raw_mine, *raw_peer;  /* my half and the peer's half */
	char raw_name[96];
	size_t raw_len;
	uint64_t seq;                    /* last command sequence (client) */
	const char *me;
};

/* Exit with a message if err is not SCI_ERR_OK. */
void sb_check(sci_error_t err, const char *what);

/*
 * Parse -server | -client -rn NODE, -a ADAPTER, plus bench options (-i -r -s
 * --csv, and --only=TEXT where o->bench.selectable is set). Without -server/-client, start the server process and become the
 * client (true is returned to the server child's caller as a server).
 */
void sb_parse(int argc, char **argv, struct sb_opts *o, const char *usage);

/* Open, export my segment, connect to the peer's (waiting for it), map both, map the raw page. */
void sb_node_open(struct sb_node *n, const struct sb_opts *o);
void sb_node_close(struct sb_node *n);

/* Client: run command cmd with two arguments at the server and wait for its ack. */
void sb_command(struct sb_node *n, uint64_t cmd, uint64_t arg0, uint64_t arg1);
/* Server: wait for the next command; returns it and its arguments. */
uint64_t sb_next_command(struct sb_node *n, uint64_t *arg0, uint64_t *arg1);
/* Server: acknowledge the command just taken (the client may start). */
void sb_ack(struct sb_node *n);

/*
 * Bandwidth rows, sizes 64 B .. max by 4: per size and repetition, time
 * iterations of the memcpy baseline (to <- from) and of ours(ctx, size), and
 * print GB/s of both with their ratio.
 */
typedef void (*sb_transfer_fn)(void *ctx, size_t size);
void sb_bandwidth_rows(const struct bench_opts *b, void *to, const void *from, sb_transfer_fn ours,
		       void *ctx);
/* The same rows against another baseline: base(base_ctx, size, iterations). */
typedef void (*sb_baseline_fn)(void *ctx, size_t size, int iterations);
void sb_bandwidth_rows_vs(const struct bench_opts *b, sb_baseline_fn base, void *base_ctx,
			  sb_transfer_fn ours, void *ctx);
/* Exit with a message unless the peer's segment is mapped (programs that need load/store). */
void sb_need_mapping(const struct sb_node *n);

/* Server with nothing to do but follow: acknowledge every command until quit. */
void sb_serve_until(struct sb_node *n, uint64_t quit);

/* Spin until *word == want (acquire); exits after a long stall. */
void sb_await32(volatile uint32_t *word, uint32_t want, const char *me);

/*
 * One ping-pong run of iterations messages of size bytes (>= 4): the last 4
 * bytes of a message carry its sequence number. send is where my messages go,
 * recv where the peer's arrive. Returns the one-way time in ns.
 */
double sb_pingpong(volatile uint8_t *send, volatile uint8_t *recv, size_t size, int iterations,
		   bool initiator, const char *me);

/* Wait for the server child started by sb_parse (if any); exit code 0 or 1. */
int sb_finish(const struct sb_opts *o);

#endif
