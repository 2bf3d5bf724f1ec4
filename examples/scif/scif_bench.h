/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/scif/scif_bench.h: the set-up shared by the SCIF benchmarks: this
 * process is the host (node 0) on a fabric of its own; the card (node 1) is
 * this program re-executed (or, on a provider whose nodes share one process, a
 * thread). The card connects, registers a window of its own at offset 0 and
 * serves echo requests until told to quit. A socket pair carries set-up
 * commands only, never timed traffic.
 */
#ifndef XRMA_SCIF_BENCH_H
#define XRMA_SCIF_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <scif.h>
#include "../common/bench.h"

#define SCIF_BENCH_PAGE 4096u

struct scif_bench {
	scif_epd_t epd;          /* the host's connected endpoint */
	size_t card_window;      /* bytes the card registered at offset 0 */
	bool card_is_process;
	const char *provider;
};

/* First thing in main: in the re-executed card, run it and exit. */
void scif_bench_card_dispatch(int argc, char **argv, const char *name);

/* Start the card with a window of window_len bytes at offset 0 and connect to it. */
void scif_bench_start(char **argv, size_t window_len, struct scif_bench *b);

/* Ask the card to echo len-byte messages back over the set-up socket pair (the baseline). */
void scif_bench_card_raw_echo(struct scif_bench *b, size_t len, int iterations);
/* The host's end of the socket pair. */
int scif_bench_link(const struct scif_bench *b);

/*
 * Run body(arg, iterations) once to warm up, then repetitions times; the median
 * and minimum microseconds per iteration go to *med and *min.
 */
void scif_bench_measure(void (*body)(void *arg, int iterations), void *arg, int iterations,
			int repetitions, double *med, double *min);

/*
 * Time body against baseline in alternating repetitions, after an untimed
 * warm-up of each, so that drift of the machine hits both alike; print the
 * row (bench_row_samples) of microseconds per iteration.
 */
void scif_bench_row_vs(const struct bench_opts *opts, size_t bytes,
		       void (*body)(void *arg, int iterations),
		       void (*baseline)(void *arg, int iterations), void *arg, int iterations);

/* Ask the card to echo iterations messages of len bytes (scif_send/scif_recv ping-pong). */
void scif_bench_card_echo(struct scif_bench *b, size_t len, int iterations);

/* The set-up line of the table headers: provider, nodes, how the card runs. */
const char *scif_bench_setup(const struct scif_bench *b);

/* len rounded up to whole pages (window sizes). */
size_t scif_bench_round(size_t len);

/* Stop the card and close. */
void scif_bench_stop(struct scif_bench *b);

/* Exit with a message naming the failed call and errno. */
void scif_bench_die(const char *what);

/*
 * Zeroed pages of an anonymous mapping of their own (exits on failure), which
 * libscif can move onto shareable memory; free with scif_bench_free.
 */
void *scif_bench_pages(size_t len);
void scif_bench_free(void *pages);

#endif
