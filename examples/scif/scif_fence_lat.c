/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/scif/scif_fence_lat.c: the cost of knowing an RMA completed. For
 * an 8-byte asynchronous scif_writeto followed by (a) scif_fence_mark +
 * scif_fence_wait, (b) scif_fence_signal of a local value the host polls,
 * (c) scif_fence_signal of a remote value the host polls through a mapping of
 * the card's window (where the provider can map), and (d) the same write with
 * SCIF_RMA_SYNC instead of a fence. The baseline, measured in the same run, is
 * the raw local cost of the same pattern: an 8-byte store, a full fence, and
 * a load of a flag.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scif_bench.h"

#define HOST_WIN 0
#define FLAG_OFF 64
/* Looks at the flag before await_flag starts yielding. */
#define AWAIT_SPINS (1u << 16)

enum kind { FENCE_WAIT, SIGNAL_LOCAL, SIGNAL_REMOTE, RMA_SYNC };

struct fl {
	scif_epd_t epd;
	enum kind kind;
	volatile uint64_t *local_flag;
	volatile uint64_t *remote_flag;   /* the card's window, mapped */
	uint64_t seq;
	char *raw;
};

/*
 * Spin for the value, then yield between looks: the library thread that
 * writes it may share this CPU (and a scheduler that serialises threads, as
 * valgrind's does, may otherwise never run it).
 */
static void await_flag(volatile uint64_t *flag, uint64_t want)
{
	for (unsigned spins = 0; __atomic_load_n(flag, __ATOMIC_ACQUIRE) != want; spins++)
		if (spins >= AWAIT_SPINS)
			sched_yield();
}

static void fence_round(void *arg, int iterations)
{
	struct fl *f = arg;
	int mark;

	for (int i = 0; i < iterations; i++) {
		uint64_t v = ++f->seq;

		if (scif_writeto(f->epd, HOST_WIN, 8, 0, f->kind == RMA_SYNC ? SCIF_RMA_SYNC : 0))
			scif_bench_die("scif_writeto");
		switch (f->kind) {
		case FENCE_WAIT:
			if (scif_fence_mark(f->epd, SCIF_FENCE_INIT_SELF, &mark) || scif_fence_wait(f->epd, mark))
				scif_bench_die("fence");
			break;
		case SIGNAL_LOCAL:
			if (scif_fence_signal(f->epd, FLAG_OFF, v, 0, 0, SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL))
				scif_bench_die("scif_fence_signal");
			await_flag(f->local_flag, v);
			break;
		case SIGNAL_REMOTE:
			if (scif_fence_signal(f->epd, 0, 0, FLAG_OFF, v, SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE))
				scif_bench_die("scif_fence_signal");
			await_flag(f->remote_flag, v);
			break;
		case RMA_SYNC:
			break;
		}
	}
}

static void raw_round(void *arg, int iterations)
{
	struct fl *f = arg;
	volatile uint64_t *flag = (volatile uint64_t *)(f->raw + FLAG_OFF);

	for (int i = 0; i < iterations; i++) {
		memcpy(f->raw, &f->seq, 8);
		atomic_thread_fence(memory_order_seq_cst);
		__atomic_store_n(flag, (uint64_t)i, __ATOMIC_RELEASE);
		await_flag(flag, (uint64_t)i);
	}
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .iterations = 20000, .repetitions = 5, .max_size = 8 };
	static const char *const names[] = { "write+fence_mark/wait", "write+fence_signal(local)",
					     "write+fence_signal(remote)", "write(SCIF_RMA_SYNC)" };
	struct scif_bench b;
	struct fl f;
	void *map;

	scif_bench_card_dispatch(argc, argv, "scif_fence_lat");
	bench_parse(argc, argv, &opts, "  RMA completion latency: fences against a raw store/fence/load\n");
	scif_bench_start(argv, SCIF_BENCH_PAGE, &b);
	f = (struct fl){ .epd = b.epd, .raw = scif_bench_pages(SCIF_BENCH_PAGE) };
	char *local = scif_bench_pages(SCIF_BENCH_PAGE);
	if (scif_register(b.epd, local, SCIF_BENCH_PAGE, HOST_WIN, SCIF_PROT_READ | SCIF_PROT_WRITE,
			  SCIF_MAP_FIXED) != HOST_WIN)
		scif_bench_die("scif_register");
	f.local_flag = (volatile uint64_t *)(local + FLAG_OFF);
	map = scif_mmap(NULL, SCIF_BENCH_PAGE, SCIF_PROT_READ | SCIF_PROT_WRITE, 0, b.epd, 0);
	f.remote_flag = map == SCIF_MMAP_FAILED ? NULL : (volatile uint64_t *)((char *)map + FLAG_OFF);
	for (int k = FENCE_WAIT; k <= RMA_SYNC; k++) {
		if (k == SIGNAL_REMOTE && !f.remote_flag) {
			printf("# %s: skipped, the provider cannot map the card's window\n", names[k]);
			continue;
		}
		f.kind = (enum kind)k;
		bench_header(&opts, names[k], scif_bench_setup(&b), "scif_us", "raw_us");
		scif_bench_row_vs(&opts, 8, fence_round, raw_round, &f, opts.iterations);
	}
	if (map != SCIF_MMAP_FAILED)
		scif_munmap(map, SCIF_BENCH_PAGE);
	scif_unregister(b.epd, HOST_WIN, SCIF_BENCH_PAGE);
	scif_bench_stop(&b);
	scif_bench_free(local);
	scif_bench_free(f.raw);
	return 0;
}
