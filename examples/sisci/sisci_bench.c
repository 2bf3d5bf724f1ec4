/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/sisci/sisci_bench.c: the shared part of the SISCI examples (see
 * sisci_bench.h): Dolphin-style options, the self-started server, segment
 * set-up through SISCI, the command protocol and the ping-pong loop used for
 * both the SISCI and the raw shared-memory measurement.
 */
#include "sisci_bench.h"

#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define STALL_NS 10000000000ull
#define CONNECT_TRIES 2000

static pid_t server_pid;

void sb_check(sci_error_t err, const char *what)
{
	if (err != SCI_ERR_OK) {
		fprintf(stderr, "%s: %s (0x%x)\n", what, SCIGetErrorString(err), (unsigned)err);
		exit(1);
	}
}

static void usage(const char *prog, const struct sb_opts *o, const char *text)
{
	fprintf(stderr,
		"usage: %s [-server | -client -rn NODE] [-a ADAPTER] [-i iterations] [-r repetitions]\n"
		"       [-s max_bytes] [--csv | --format=csv|text]%s\n%s"
		"Without -server/-client the program starts its own server (node 2) and is the\n"
		"client (node 1). Node ids come from XRMA_NODE_ID.\n",
		prog, o->bench.selectable ? " [--only=TEXT]" : "", text);
	exit(2);
}

/* Start this program again as the server, node 2, on our fabric. */
static void spawn_server(char **argv, const struct sb_opts *o)
{
	char exe[4096], iters[16], size[32];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len < 0)
		exit(1);
	exe[len] = '\0';
	snprintf(iters, sizeof(iters), "%d", o->bench.iterations);
	snprintf(size, sizeof(size), "%zu", o->bench.max_size);
	server_pid = fork();
	if (server_pid == 0) {
		setenv("XRMA_NODE_ID", "2", 1);
		execl(exe, argv[0], "-server", "-rn", "1", "-i", iters, "-s", size, (char *)NULL);
		_exit(127);
	}
	if (server_pid < 0)
		exit(1);
}

void sb_parse(int argc, char **argv, struct sb_opts *o, const char *text)
{
	char fabric[64];
	const char *format = getenv("XRMA_BENCH_FORMAT");
	int i;

	if (format && *format)
		bench_set_format(&o->bench, format);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-server")) {
			o->server = true;
		} else if (!strcmp(a, "-client")) {
			o->client = true;
		} else if (!strcmp(a, "-rn") && i + 1 < argc) {
			o->remote_node = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(a, "-a") && i + 1 < argc) {
			o->adapter = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(a, "-i") && i + 1 < argc) {
			o->bench.iterations = atoi(argv[++i]);
		} else if (!strcmp(a, "-r") && i + 1 < argc) {
			o->bench.repetitions = atoi(argv[++i]);
		} else if (!strcmp(a, "-s") && i + 1 < argc) {
			o->bench.max_size = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(a, "--csv")) {
			o->bench.csv = true;
		} else if (!strncmp(a, "--format=", 9) && bench_set_format(&o->bench, a + 9)) {
			continue;
		} else if (o->bench.selectable && !strncmp(a, "--only=", 7) && a[7]) {
			o->bench.only = a + 7;
		} else {
			usage(argv[0], o, text);
		}
	}
	if (o->bench.iterations < 1 || o->bench.repetitions < 1 || o->bench.max_size < 4 ||
	    (o->server && o->client))
		usage(argv[0], o, text);
	if (!o->server && !o->client) {
		/* Our own fabric, so the demo never meets another run. */
		snprintf(fabric, sizeof(fabric), "sisci-%s-%d", strrchr(argv[0], '/') ?
			 strrchr(argv[0], '/') + 1 : argv[0], (int)getpid());
		setenv("XRMA_FABRIC", fabric, 1);
		setenv("XRMA_NODE_ID", "1", 1);
		o->client = true;
		o->remote_node = 2;
		spawn_server(argv, o);
	}
	if (!o->remote_node) {
		fprintf(stderr, "%s: -rn NODE is required with -server and -client\n", argv[0]);
		exit(2);
	}
	o->buffer = o->bench.max_size;
}

int sb_finish(const struct sb_opts *o)
{
	int status = 0;

	(void)o;
	if (!server_pid)
		return 0;
	if (waitpid(server_pid, &status, 0) != server_pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "the server failed\n");
		return 1;
	}
	return 0;
}

/* The raw page: one POSIX shared-memory object per pair of nodes and fabric. */
static void raw_open(struct sb_node *n, size_t half)
{
	const char *fabric = getenv("XRMA_FABRIC");
	unsigned int lo = n->self < n->peer ? n->self : n->peer, hi = n->self ^ n->peer ^ lo;
	int fd;

	snprintf(n->raw_name, sizeof(n->raw_name), "/xrma-sisci-raw-%s-%u-%u-%u",
		 fabric ? fabric : "default", (unsigned)getuid(), lo, hi);
	n->raw_len = 2 * half;
	fd = shm_open(n->raw_name, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)n->raw_len) != 0) {
		perror("shm_open");
		exit(1);
	}
	n->raw = mmap(NULL, n->raw_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (n->raw == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	/* The lower node's messages arrive in the first half. */
	n->raw_mine = n->raw + (n->self == lo ? 0 : half);
	n->raw_peer = n->raw + (n->self == lo ? half : 0);
}

void sb_node_open(struct sb_node *n, const struct sb_opts *o)
{
	size_t size = SB_CTRL_BYTES + o->buffer;
	sci_error_t err;
	int tries;

	n->me = o->server ? "server" : "client";
	n->peer = o->remote_node;
	SCIInitialize(0, &err);
	sb_check(err, "SCIInitialize");
	SCIOpen(&n->sd, 0, &err);
	sb_check(err, "SCIOpen");
	SCIGetLocalNodeId(o->adapter, &n->self, 0, &err);
	sb_check(err, "SCIGetLocalNodeId");
	SCICreateSegment(n->sd, &n->local, o->segment_id, size, NULL, NULL, 0, &err);
	sb_check(err, "SCICreateSegment");
	SCIPrepareSegment(n->local, o->adapter, 0, &err);
	sb_check(err, "SCIPrepareSegment");
	n->local_mem = SCIMapLocalSegment(n->local, &n->local_map, 0, size, NULL, 0, &err);
	sb_check(err, "SCIMapLocalSegment");
	memset((void *)n->local_mem, 0, size);
	SCISetSegmentAvailable(n->local, o->adapter, 0, &err);
	sb_check(err, "SCISetSegmentAvailable");
	/* As Dolphin's tools do: retry until the peer's segment is there. */
	for (tries = 0; tries < CONNECT_TRIES; tries++) {
		SCIConnectSegment(n->sd, &n->remote, n->peer, o->segment_id, o->adapter, NULL, NULL,
				  1000, 0, &err);
		if (err == SCI_ERR_OK)
			break;
		usleep(5000);
	}
	sb_check(err, "SCIConnectSegment");
	n->remote_mem = SCIMapRemoteSegment(n->remote, &n->remote_map, 0, size, NULL, 0, &err);
	if (err == SCI_ERR_NOT_IMPLEMENTED) {
		/* No load/store over this provider: control words go by DMA. */
		n->remote_mem = NULL;
		SCICreateDMAQueue(n->sd, &n->ctrl_dq, o->adapter, 1, 0, &err);
		sb_check(err, "SCICreateDMAQueue(control)");
	}
	sb_check(err, "SCIMapRemoteSegment");
	raw_open(n, SB_CTRL_BYTES + o->buffer);
}

void sb_need_mapping(const struct sb_node *n)
{
	if (!n->remote_mem) {
		fprintf(stderr, "%s: this provider cannot map remote memory (SCIMapRemoteSegment: "
				"not implemented); this program measures load/store\n", n->me);
		exit(1);
	}
}

void sb_node_close(struct sb_node *n)
{
	unsigned int node, adapter;
	sci_error_t err;
	int tries;

	if (n->remote_mem) {
		SCIUnmapSegment(n->remote_map, 0, &err);
		sb_check(err, "SCIUnmapSegment(remote)");
	} else {
		SCIRemoveDMAQueue(n->ctrl_dq, 0, &err);
		sb_check(err, "SCIRemoveDMAQueue(control)");
	}
	SCIDisconnectSegment(n->remote, 0, &err);
	sb_check(err, "SCIDisconnectSegment");
	SCIUnmapSegment(n->local_map, 0, &err);
	sb_check(err, "SCIUnmapSegment(local)");
	/* The peer leaves too: SCIRemoveSegment is BUSY until its disconnect arrives. */
	for (tries = 0; tries < 100; tries++) {
		SCIRemoveSegment(n->local, 0, &err);
		if (err != SCI_ERR_BUSY)
			break;
		(void)SCIWaitForLocalSegmentEvent(n->local, &node, &adapter, 100, 0, &err);
	}
	sb_check(err, "SCIRemoveSegment");
	munmap((void *)n->raw, n->raw_len);
	shm_unlink(n->raw_name);
	SCIClose(n->sd, 0, &err);
	sb_check(err, "SCIClose");
	SCITerminate();
}

static volatile _Atomic uint64_t *ctrl(volatile uint8_t *mem)
{
	return (volatile _Atomic uint64_t *)(void *)mem;
}

/*
 * Without a mapping: words [first, first+count) of the peer's control page by
 * DMA, staged at the same offset of our own page's outbox half (the peer never
 * writes there). DMA_WAIT returns once they are in the peer's memory.
 */
#define SB_OUTBOX (SB_CTRL_BYTES / 2)

static void ctrl_dma(struct sb_node *n, const uint64_t *words, unsigned first, unsigned count)
{
	size_t at = first * sizeof(uint64_t);
	sci_error_t err;

	memcpy((uint8_t *)n->local_mem + SB_OUTBOX + at, words, count * sizeof(uint64_t));
	SCIStartDmaTransfer(n->ctrl_dq, n->local, n->remote, SB_OUTBOX + at, count * sizeof(uint64_t),
			    at, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	sb_check(err, "SCIStartDmaTransfer(control)");
}

void sb_command(struct sb_node *n, uint64_t cmd, uint64_t arg0, uint64_t arg1)
{
	volatile _Atomic uint64_t *mine = ctrl(n->local_mem);
	uint64_t start = bench_now_ns();

	n->seq++;
	if (!n->remote_mem) {
		uint64_t words[] = { cmd, arg0, arg1 };

		/* The arguments are in place before the sequence number shows. */
		ctrl_dma(n, words, SB_CMD, 3);
		ctrl_dma(n, &n->seq, SB_SEQ, 1);
	} else {
		volatile _Atomic uint64_t *theirs = ctrl(n->remote_mem);

		atomic_store_explicit(&theirs[SB_CMD], cmd, memory_order_relaxed);
		atomic_store_explicit(&theirs[SB_ARG0], arg0, memory_order_relaxed);
		atomic_store_explicit(&theirs[SB_ARG1], arg1, memory_order_relaxed);
		atomic_store_explicit(&theirs[SB_SEQ], n->seq, memory_order_release);
	}
	while (atomic_load_explicit(&mine[SB_ACK], memory_order_acquire) != n->seq)
		if (bench_now_ns() - start > STALL_NS) {
			fprintf(stderr, "%s: the server does not answer\n", n->me);
			exit(1);
		}
}

uint64_t sb_next_command(struct sb_node *n, uint64_t *arg0, uint64_t *arg1)
{
	volatile _Atomic uint64_t *mine = ctrl(n->local_mem);
	uint64_t start = bench_now_ns();
	unsigned int idle = 0;

	while (atomic_load_explicit(&mine[SB_SEQ], memory_order_acquire) == n->seq) {
		if (bench_now_ns() - start > STALL_NS * 6) {
			fprintf(stderr, "%s: the client is silent\n", n->me);
			exit(1);
		}
		/* Commands are not timed: an idle server leaves its CPU to the threads carrying data. */
		bench_idle_step(&idle);
	}
	n->seq = atomic_load_explicit(&mine[SB_SEQ], memory_order_acquire);
	*arg0 = atomic_load_explicit(&mine[SB_ARG0], memory_order_relaxed);
	*arg1 = atomic_load_explicit(&mine[SB_ARG1], memory_order_relaxed);
	return atomic_load_explicit(&mine[SB_CMD], memory_order_relaxed);
}

void sb_ack(struct sb_node *n)
{
	if (!n->remote_mem)
		ctrl_dma(n, &n->seq, SB_ACK, 1);
	else
		atomic_store_explicit(&ctrl(n->remote_mem)[SB_ACK], n->seq, memory_order_release);
}

struct memcpy_base {
	void *to;
	const void *from;
};

static void memcpy_rounds(void *ctx, size_t size, int iterations)
{
	struct memcpy_base *m = ctx;

	(void)bench_memcpy_GBps(m->to, m->from, size, iterations);
}

void sb_bandwidth_rows(const struct bench_opts *b, void *to, const void *from, sb_transfer_fn ours,
		       void *ctx)
{
	struct memcpy_base m = { to, from };

	sb_bandwidth_rows_vs(b, memcpy_rounds, &m, ours, ctx);
}

void sb_bandwidth_rows_vs(const struct bench_opts *b, sb_baseline_fn baseline, void *base_ctx,
			  sb_transfer_fn ours, void *ctx)
{
	double mine[64], base[64];
	int reps = b->repetitions > 64 ? 64 : b->repetitions;

	for (size_t size = 64; size <= b->max_size; size *= 4) {
		int iters = (int)((uint64_t)b->iterations * 4096 / (size + 4096)) + 1;

		for (int r = 0; r < reps; r++) {
			uint64_t t0;

			t0 = bench_now_ns();
			baseline(base_ctx, size, iters);
			base[r] = (double)size * iters / (double)(bench_now_ns() - t0);
			t0 = bench_now_ns();
			for (int i = 0; i < iters; i++)
				ours(ctx, size);
			mine[r] = (double)size * iters / (double)(bench_now_ns() - t0);
		}
		bench_row_samples(b, size, iters, mine, base, reps);
	}
}

void sb_serve_until(struct sb_node *n, uint64_t quit)
{
	uint64_t a0, a1;

	while (sb_next_command(n, &a0, &a1) != quit)
		sb_ack(n);
	sb_ack(n);
}

void sb_await32(volatile uint32_t *word, uint32_t want, const char *me)
{
	volatile _Atomic uint32_t *w = (volatile _Atomic uint32_t *)word;
	uint64_t start = 0;

	for (uint32_t spins = 0;; spins++) {
		if (atomic_load_explicit(w, memory_order_acquire) == want)
			return;
		if ((spins & 0xffff) == 0) {
			uint64_t now = bench_now_ns();

			if (!start) {
				start = now;
			} else if (now - start > STALL_NS) {
				fprintf(stderr, "%s: the peer stalled\n", me);
				exit(1);
			}
		}
	}
}

static void send_message(volatile uint8_t *to, const uint8_t *data, size_t size, uint32_t seq)
{
	if (size > 4)
		memcpy((void *)to, data, size - 4);
	atomic_store_explicit((volatile _Atomic uint32_t *)(void *)(to + size - 4), seq,
			      memory_order_release);
}

double sb_pingpong(volatile uint8_t *send, volatile uint8_t *recv, size_t size, int iterations,
		   bool initiator, const char *me)
{
	static uint8_t payload[SB_MESSAGE_MAX];
	volatile uint32_t *flag = (volatile uint32_t *)(void *)(recv + size - 4);
	uint64_t t0 = bench_now_ns();

	if (size < 4 || size > SB_MESSAGE_MAX) {
		fprintf(stderr, "%s: message size %zu outside 4..%u\n", me, size, SB_MESSAGE_MAX);
		exit(1);
	}
	for (uint32_t i = 1; i <= (uint32_t)iterations; i++) {
		if (initiator) {
			send_message(send, payload, size, i);
			sb_await32(flag, i, me);
		} else {
			sb_await32(flag, i, me);
			send_message(send, payload, size, i);
		}
	}
	return (double)(bench_now_ns() - t0) / iterations / 2;
}
