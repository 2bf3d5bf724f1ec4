/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/common/bench.h: the shared benchmark harness: monotonic timing,
 * median and minimum of repeated runs, thread pinning through hwloc, and one
 * table printer whose rows carry a same-run baseline and the ratio to it.
 * Tables are text for people, or rows of one CSV format for tools (--csv or
 * XRMA_BENCH_FORMAT=csv): every program's rows mean the same columns, so
 * tools/xrma-bench merges them without knowing the program (BENCH_CSV_COLUMNS).
 */
#ifndef XRMA_BENCH_H
#define XRMA_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bench_opts {
	int iterations;        /* timed iterations per repetition */
	int repetitions;       /* repetitions; median and minimum are reported */
	bool csv;              /* rows in the CSV format below instead of a text table */
	size_t max_size;
	bool selectable;       /* set before bench_parse: the program honours --only */
	const char *only;      /* --only=TEXT: run the tables whose name holds TEXT (NULL: all) */
};

/*
 * The CSV rows: one line per size, times in nanoseconds per operation (a
 * bandwidth table's GB/s is turned into time per transfer of bytes), best and
 * worst of the repetitions (empty when the program only kept one of them),
 * MB/s of the median, and time_ratio = median_ns / baseline_median_ns (below 1:
 * faster than the baseline). kind is latency or bandwidth (the table's metric,
 * or a memcpy baseline).
 */
#define BENCH_CSV_COLUMNS                                                                  \
	"program,api,provider,operation,kind,bytes,iterations,repetitions,median_ns,best_ns," \
	"worst_ns,mbps,baseline,baseline_median_ns,baseline_best_ns,time_ratio"

/*
 * Parse -i N, -r N, -s BYTES, --csv, --format=csv|text, -h, and --only=TEXT
 * where the program set selectable; exits on -h or a bad option.
 * XRMA_BENCH_FORMAT=csv in the environment selects CSV as well.
 */
void bench_parse(int argc, char **argv, struct bench_opts *opts, const char *usage_extra);

/*
 * Whether the table called name is to run: always, unless --only named a text
 * the name does not hold (a profile of one mode needs the others out of it).
 */
bool bench_selected(const struct bench_opts *opts, const char *name);

/* Apply XRMA_BENCH_FORMAT, or a --format value (false if neither csv nor text). */
bool bench_set_format(struct bench_opts *opts, const char *format);

/*
 * The api and provider columns of later rows. By default the api is the
 * metric's first word (sisci_ns: sisci) and the provider is "provider=NAME"
 * from the header's set-up text, else XRMA_PROVIDER, else ntb (the default).
 * NULL keeps the default.
 */
void bench_set_context(const char *api, const char *provider);

uint64_t bench_now_ns(void);

/*
 * One step of an untimed wait (a server awaiting its next command): yield for
 * the first steps, then sleep, longer each time up to a millisecond, so an
 * idle waiter leaves the CPU to the threads that carry the data. *step starts
 * at 0 for each wait.
 */
void bench_idle_step(unsigned int *step);

/* Median of n values (sorts values in place). */
double bench_median(double *values, int n);
double bench_min(const double *values, int n);

/* GB/s of iterations copies of size bytes from src to dst (the memcpy baseline). */
double bench_memcpy_GBps(void *dst, const void *src, size_t size, int iterations);

/* Bind the calling thread to one processing unit (index modulo the count); best effort. */
void bench_pin_thread(int pu_index);

/*
 * A header line naming the table (name) and the set-up, printed once; in CSV
 * the column line, once per process. metric and baseline end in their unit
 * (_ns, _us or _GBps, as in xrma_ns); baseline NULL: a table without one (the
 * baseline programs of tools/bench).
 */
void bench_header(const struct bench_opts *opts, const char *name, const char *setup,
		  const char *metric, const char *baseline);

/* One row: size, iterations, median and minimum of ours and the baseline, ratio of medians. */
void bench_row(const struct bench_opts *opts, size_t bytes, int iterations, double ours_med,
	       double ours_min, double base_med, double base_min);

/* One row from the repetitions' values themselves (n of each; base NULL: no baseline). */
void bench_row_samples(const struct bench_opts *opts, size_t bytes, int iterations,
		       const double *ours, const double *base, int n);

/*
 * The link between the two processes of a benchmark (a stream socket): one
 * 64-bit value per message, for set-up and phase changes only, never timed. A
 * peer that is gone, or silent for timeout_ms, ends the program with a message.
 */
void bench_link_send(int sock, uint64_t value);
uint64_t bench_link_recv(int sock, int timeout_ms);

/*
 * A command from the measuring process to its peer: a code, then (unless the
 * code is the peer's quit) a size and an iteration count. The receiver returns
 * the code and fills *len and *iterations.
 */
void bench_link_send_command(int sock, uint64_t code, uint64_t len, uint64_t iterations);
uint64_t bench_link_recv_command(int sock, uint64_t quit, uint64_t *len, uint64_t *iterations,
				 int timeout_ms);

#endif
