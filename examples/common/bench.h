/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/common/bench.h: the shared benchmark harness: monotonic timing,
 * median and minimum of repeated runs, thread pinning through hwloc, and one
 * table printer (text or --csv) whose rows carry a same-run baseline and the
 * ratio to it.
 */
#ifndef XRMA_BENCH_H
#define XRMA_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bench_opts {
	int iterations;        /* timed iterations per repetition */
	int repetitions;       /* repetitions; median and minimum are reported */
	bool csv;
	size_t max_size;
};

/* Parse -i N, -r N, -s BYTES, --csv, -h; exits on -h or a bad option. */
void bench_parse(int argc, char **argv, struct bench_opts *opts, const char *usage_extra);

uint64_t bench_now_ns(void);

/* Median of n values (sorts values in place). */
double bench_median(double *values, int n);
double bench_min(const double *values, int n);

/* Bind the calling thread to one processing unit (index modulo the count); best effort. */
void bench_pin_thread(int pu_index);

/* A header line naming the benchmark and the set-up, printed once. */
void bench_header(const struct bench_opts *opts, const char *name, const char *setup,
		  const char *metric, const char *baseline);

/* One row: size, iterations, median and minimum of ours and the baseline, ratio of medians. */
void bench_row(const struct bench_opts *opts, size_t bytes, int iterations, double ours_med,
	       double ours_min, double base_med, double base_min);

/*
 * The link between the two processes of a benchmark (a stream socket): one
 * 64-bit value per message, for set-up and phase changes only, never timed. A
 * peer that is gone, or silent for timeout_ms, ends the program with a message.
 */
void bench_link_send(int sock, uint64_t value);
uint64_t bench_link_recv(int sock, int timeout_ms);

#endif
