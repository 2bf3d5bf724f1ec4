/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/bench/xrma_bench_fabric.c: the peer baseline of the benchmark suite:
 * libfabric used directly, with no xrma in between, between two processes
 * pinned to two processing units, for each libfabric provider asked for
 * (default shm and tcp;ofi_rxm):
 *   fi_write_sync, fi_read_sync  one operation at a time, waiting for its
 *                                completion (what xrma's XRMA_RMA_SYNC gives);
 *   fi_write_pingpong            one-way latency: each side writes into the
 *                                other's buffer when it sees the last word change;
 *   fi_write_stream, fi_read_stream  16 operations in flight: bandwidth.
 * Rows are in the common format (examples/common/bench.h), api "libfabric",
 * provider the libfabric provider. A provider that cannot open is skipped with
 * a message on stderr. The target process drives progress all the time (the
 * providers' manual progress model), as a real peer would.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "examples/common/bench.h"
#include "examples/common/bench_fabric.h"

#define LINK_TIMEOUT_MS 10000

enum op { OP_WRITE_SYNC = 1, OP_READ_SYNC, OP_WRITE_PINGPONG, OP_WRITE_STREAM, OP_READ_STREAM, OP_QUIT };

static const char *const op_names[] = {
	[OP_WRITE_SYNC] = "fi_write_sync", [OP_READ_SYNC] = "fi_read_sync",
	[OP_WRITE_PINGPONG] = "fi_write_pingpong", [OP_WRITE_STREAM] = "fi_write_stream",
	[OP_READ_STREAM] = "fi_read_stream",
};

/* The target: follow the initiator's phases, progressing while they run. */
static int target_main(int sock, const char *prov, size_t max)
{
	struct bench_fabric f;

	bench_pin_thread(1);
	if (!bench_fabric_open(&f, prov, NULL, max)) {
		bench_link_send(sock, 0);
		return 1;
	}
	bench_link_send(sock, 1);
	bench_fabric_connect(&f, sock);
	for (;;) {
		uint64_t len, iters;
		uint64_t op = bench_link_recv_command(sock, OP_QUIT, &len, &iters, LINK_TIMEOUT_MS);

		if (op == OP_QUIT)
			break;
		memset(f.buf, 0, len);
		bench_link_send(sock, 0);
		if (op == OP_WRITE_PINGPONG) {
			bench_fabric_pingpong(&f, len, (int)iters, false);
			continue;
		}
		/* Serve the initiator's operations until it says it is done. */
		bench_fabric_serve_until(&f, sock);
		bench_link_recv(sock, LINK_TIMEOUT_MS);
	}
	bench_fabric_close(&f);
	return 0;
}

static double run(int sock, struct bench_fabric *f, enum op op, size_t len, int iters)
{
	double v;

	bench_link_send_command(sock, op, len, (uint64_t)iters);
	bench_link_recv(sock, LINK_TIMEOUT_MS);
	switch (op) {
	case OP_WRITE_SYNC:
	case OP_READ_SYNC:
		v = bench_fabric_stream(f, op == OP_READ_SYNC, len, iters, 1);
		break;
	case OP_WRITE_PINGPONG:
		return bench_fabric_pingpong(f, len, iters, true);
	default:
		/* As GB/s: 1 GB/s is a byte per nanosecond. */
		v = (double)len / bench_fabric_stream(f, op == OP_READ_STREAM, len, iters,
							 BENCH_FABRIC_WINDOW);
		break;
	}
	bench_link_send(sock, 0);
	return v;
}

static void measure(const struct bench_opts *opts, int sock, struct bench_fabric *f, const char *prov)
{
	double *ours = calloc((size_t)opts->repetitions, sizeof(double));
	char setup[96];

	if (!ours)
		exit(1);
	snprintf(setup, sizeof(setup), "provider=%s two processes, cpus 0 and 1", prov);
	for (int op = OP_WRITE_SYNC; op < OP_QUIT; op++) {
		bool bw = op == OP_WRITE_STREAM || op == OP_READ_STREAM;

		bench_header(opts, op_names[op], setup, bw ? "libfabric_GBps" : "libfabric_ns", NULL);
		for (size_t len = 8; len <= opts->max_size; len *= 8) {
			int iters = len >= 65536 ? opts->iterations / 10 + 1 : opts->iterations;

			run(sock, f, (enum op)op, len, iters / 10 + 1);   /* warm-up */
			for (int r = 0; r < opts->repetitions; r++)
				ours[r] = run(sock, f, (enum op)op, len, iters);
			bench_row_samples(opts, len, iters, ours, NULL, opts->repetitions);
			if (len < opts->max_size && len * 8 > opts->max_size)
				len = opts->max_size / 8;   /* end on max_size */
		}
	}
	free(ours);
}

/* One libfabric provider: start the target, measure, stop it. false: skipped. */
static bool one_provider(const struct bench_opts *opts, const char *prov)
{
	struct bench_fabric f;
	int sv[2], status = 0;
	bool ok;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return false;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		_exit(target_main(sv[1], prov, opts->max_size));
	}
	close(sv[1]);
	ok = pid > 0 && bench_link_recv(sv[0], LINK_TIMEOUT_MS) == 1 &&
	     bench_fabric_open(&f, prov, NULL, opts->max_size);
	if (ok) {
		bench_fabric_connect(&f, sv[0]);
		bench_set_context("libfabric", prov);
		measure(opts, sv[0], &f, prov);
		bench_link_send(sv[0], OP_QUIT);
		bench_fabric_close(&f);
	}
	close(sv[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (!ok)
		fprintf(stderr, "%s: skipped libfabric provider %s\n", program_invocation_short_name, prov);
	return ok && WIFEXITED(status) && !WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .iterations = 2000, .repetitions = 5, .max_size = 1 << 20 };
	const char *env = getenv("XRMA_BENCH_FABRICS");
	char *list = strdup(env && *env ? env : "shm,tcp;ofi_rxm"), *save = NULL;
	int ran = 0;

	bench_parse(argc, argv, &opts,
		    "libfabric fi_write/fi_read directly between two processes, for each provider\n"
		    "in XRMA_BENCH_FABRICS (comma-separated; default shm,tcp;ofi_rxm).\n");
	if (opts.max_size < 8)
		opts.max_size = 8;
	bench_pin_thread(0);
	for (char *prov = strtok_r(list, ",", &save); prov; prov = strtok_r(NULL, ",", &save))
		ran += one_provider(&opts, prov);
	free(list);
	return ran ? 0 : 1;
}
