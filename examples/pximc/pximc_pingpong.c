/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/pximc/pximc_pingpong.c: PXImc latency and bandwidth between two systems (two
 * processes, pximc_demo.h) paired as logical server and client, each against a baseline
 * measured in the same run over the same mapped windows:
 *   1. ping-pong: write a sequence number into the remote window, assertEvent, the other
 *      side's waitForSessionEvent reads it and answers the same way; one-way latency against
 *      a raw ping-pong that stores the number and spins on it (no events);
 *   2. window copy: memcpy of 1 MiB (and smaller sizes) into the remote window against memcpy
 *      of the same size between two private buffers.
 * Needs a provider whose nodes are processes (the default, ntb).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/bench.h"
#include "pximc_demo.h"

#define PROTOCOL 0xF0002000u
#define WINDOW (1u << 20)
#define FLAG_OFFSET 0u          /* ping-pong word in each window */
#define WAIT_MS 5000u

enum phase { PHASE_EVENTS = 1, PHASE_RAW, PHASE_COPY, PHASE_DONE };

struct link {
	uint32_t session;
	_Atomic uint64_t *out;  /* in the remote window */
	_Atomic uint64_t *in;   /* in the local window */
	uint8_t *remote;
	uint8_t *local;
};

static void wait_event(const struct link *l)
{
	uint32_t reason = 0;

	pximc_demo_expect(PXIMC_waitForSessionEvent(l->session, WAIT_MS, &reason), PXIMC_SUCCESS,
			  "waitForSessionEvent");
	if (reason != PXIMC_EVENT_ASSERTED) {
		fprintf(stderr, "pximc_pingpong: the other system closed\n");
		exit(1);
	}
}

/* One-way ns of iterations event round trips; system 2 echoes. */
static double pingpong_events(const struct link *l, uint32_t self, int iterations)
{
	uint64_t t0 = bench_now_ns();

	for (uint64_t i = 1; i <= (uint64_t)iterations; i++) {
		uint64_t seen;

		if (self == 1) {
			atomic_store_explicit(l->out, i, memory_order_release);
			pximc_demo_expect(PXIMC_assertEvent(l->session), PXIMC_SUCCESS, "assertEvent");
			wait_event(l);
			seen = atomic_load_explicit(l->in, memory_order_acquire);
		} else {
			wait_event(l);
			seen = atomic_load_explicit(l->in, memory_order_acquire);
			atomic_store_explicit(l->out, seen, memory_order_release);
			pximc_demo_expect(PXIMC_assertEvent(l->session), PXIMC_SUCCESS, "assertEvent");
		}
		/* The event guarantees the write before it is visible (3.3.4.1-R1). */
		if (seen != i) {
			fprintf(stderr, "pximc_pingpong: round %llu read %llu\n", (unsigned long long)i,
				(unsigned long long)seen);
			exit(1);
		}
	}
	return (double)(bench_now_ns() - t0) / iterations / 2;
}

static void spin_until(_Atomic uint64_t *word, uint64_t want)
{
	uint64_t start = bench_now_ns();

	for (uint32_t spins = 0; atomic_load_explicit(word, memory_order_acquire) != want; spins++) {
		if ((spins & 0xffff) == 0 && bench_now_ns() - start > WAIT_MS * 1000000ull) {
			fprintf(stderr, "pximc_pingpong: the other system stalled\n");
			exit(1);
		}
	}
}

/* The baseline: the same stores through the same windows, spinning instead of events. */
static double pingpong_raw(const struct link *l, uint32_t self, int iterations, uint64_t base)
{
	uint64_t t0 = bench_now_ns();

	for (uint64_t i = base + 1; i <= base + (uint64_t)iterations; i++) {
		if (self == 1) {
			atomic_store_explicit(l->out, i, memory_order_release);
			spin_until(l->in, i);
		} else {
			spin_until(l->in, i);
			atomic_store_explicit(l->out, i, memory_order_release);
		}
	}
	return (double)(bench_now_ns() - t0) / iterations / 2;
}

static void open_link(struct pximc_demo *demo, struct link *l)
{
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;

	if (demo->self == 1) {
		pximc_demo_expect(PXIMC_requestWindowLogicalAsServer(demo->iface, PROTOCOL, WINDOW,
								     WINDOW, WINDOW, WINDOW, 0,
								     NULL, 0, &l->session),
				  PXIMC_SUCCESS, "requestWindowLogicalAsServer");
		pximc_demo_send(demo, 1);
	} else {
		pximc_demo_recv(demo);
		pximc_demo_expect(PXIMC_requestWindowLogicalAsClient(demo->iface, PROTOCOL, WINDOW,
								     WINDOW, WINDOW, WINDOW, 0,
								     &l->session),
				  PXIMC_SUCCESS, "requestWindowLogicalAsClient");
	}
	pximc_demo_expect(PXIMC_waitForConnection(l->session, WAIT_MS, &remote, &remote_size, &local,
						  &local_size),
			  PXIMC_SUCCESS, "waitForConnection");
	l->remote = remote;
	l->local = local;
	l->out = (_Atomic uint64_t *)(l->remote + FLAG_OFFSET);
	l->in = (_Atomic uint64_t *)(l->local + FLAG_OFFSET);
	atomic_store(l->out, 0);
}

static void latency(struct pximc_demo *demo, const struct bench_opts *opts, const struct link *l)
{
	double *ours = calloc((size_t)opts->repetitions, sizeof(double));
	double *raw = calloc((size_t)opts->repetitions, sizeof(double));
	uint64_t base = 0;

	if (!ours || !raw)
		exit(1);
	/* No reset between rounds: the other side may still be reading our last store. */
	for (int r = 0; r < opts->repetitions; r++) {
		pximc_demo_send(demo, PHASE_EVENTS);
		pximc_demo_recv(demo);
		ours[r] = pingpong_events(l, demo->self, opts->iterations);
		pximc_demo_send(demo, PHASE_RAW);
		pximc_demo_recv(demo);
		base = (uint64_t)opts->iterations + (uint64_t)r * (uint64_t)opts->iterations * 2;
		raw[r] = pingpong_raw(l, demo->self, opts->iterations, base);
	}
	if (demo->self == 1) {
		bench_header(opts, "pximc_event_pingpong",
			     "one-way latency: window write + assertEvent/waitForSessionEvent, "
			     "sys1 <-> sys2 (two processes)",
			     "pximc_ns", "raw_store_ns");
		bench_row_samples(opts, 8, opts->iterations, ours, raw, opts->repetitions);
	}
	free(ours);
	free(raw);
}

/* System 1 copies into system 2's window; GB/s against private memcpy. */
static void bandwidth(const struct bench_opts *opts, const struct link *l)
{
	uint8_t *src = malloc(WINDOW), *dst = malloc(WINDOW);
	double *ours = calloc((size_t)opts->repetitions, sizeof(double));
	double *base = calloc((size_t)opts->repetitions, sizeof(double));

	if (!src || !dst || !ours || !base)
		exit(1);
	memset(src, 0x3c, WINDOW);
	memset(dst, 0, WINDOW);
	bench_header(opts, "pximc_window_copy", "memcpy into the remote window, sys1 -> sys2",
		     "pximc_GBps", "memcpy_GBps");
	/* 4 KiB to exactly 1 MiB in steps of 4. */
	for (size_t size = 4096; size <= WINDOW; size *= 4) {
		/* At most 256 MiB per timed loop, so large -i stays quick at 1 MiB. */
		size_t cap = ((size_t)256 << 20) / size;
		int iters = (size_t)opts->iterations > cap ? (int)cap : opts->iterations;

		for (int r = 0; r < opts->repetitions; r++) {
			ours[r] = bench_memcpy_GBps(l->remote, src, size, iters);
			base[r] = bench_memcpy_GBps(dst, src, size, iters);
		}
		/* Verified outside the timed loops. */
		if (memcmp(l->remote, src, size)) {
			fprintf(stderr, "pximc_pingpong: the remote window lost data\n");
			exit(1);
		}
		bench_row_samples(opts, size, iters, ours, base, opts->repetitions);
	}
	free(src);
	free(dst);
	free(ours);
	free(base);
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .iterations = 2000, .repetitions = 5, .max_size = WINDOW };
	struct pximc_demo demo;
	struct link link;

	pximc_demo_start(argc, argv, &demo);
	if (demo.self == 1)
		bench_parse(argc, argv, &opts, "");
	/* System 2 learns the counts over the set-up link. */
	if (demo.self == 1) {
		pximc_demo_send(&demo, (uint64_t)opts.iterations);
		pximc_demo_send(&demo, (uint64_t)opts.repetitions);
	} else {
		opts.iterations = (int)pximc_demo_recv(&demo);
		opts.repetitions = (int)pximc_demo_recv(&demo);
	}
	bench_pin_thread(demo.self == 1 ? 0 : 1);
	open_link(&demo, &link);
	latency(&demo, &opts, &link);
	if (demo.self == 1)
		bandwidth(&opts, &link);
	pximc_demo_send(&demo, PHASE_DONE);
	pximc_demo_recv(&demo);
	pximc_demo_expect(PXIMC_closeWindow(link.session), PXIMC_SUCCESS, "closeWindow");
	return pximc_demo_finish(&demo);
}
