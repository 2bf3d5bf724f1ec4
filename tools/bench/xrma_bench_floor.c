/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/bench/xrma_bench_floor.c: the physical floor of the benchmark suite,
 * what this machine does with no library at all, between two processes pinned
 * to two processing units (as every benchmark pair is):
 *   cacheline_pingpong        one-way latency of a 64-bit store seen by a
 *                             spinning load in a shared page (tight spin);
 *   cacheline_pingpong_pause  the same with a pause between loads (the spin
 *                             xrma's waits use; on some machines it is faster);
 *   futex_wake, eventfd_wake  one-way latency when the receiver sleeps in the
 *                             kernel and the sender wakes it;
 *   memcpy                    private-buffer copy, every power of two to -s.
 * Rows are in the common format (examples/common/bench.h), api "floor",
 * provider "host". tools/xrma-bench divides the other programs' figures by these.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "examples/common/bench.h"

#define LINK_TIMEOUT_MS 10000
#define STALL_NS 10000000000ull

enum test { T_SPIN = 1, T_PAUSE, T_FUTEX, T_EVENTFD, T_QUIT };

static const char *const test_names[] = {
	[T_SPIN] = "cacheline_pingpong", [T_PAUSE] = "cacheline_pingpong_pause",
	[T_FUTEX] = "futex_wake", [T_EVENTFD] = "eventfd_wake",
};

/* What the two processes share: two flags a cache line (and more) apart, two eventfds. */
struct shared {
	_Atomic uint32_t flag[2][32];
	int efd[2];
};

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static void await_spin(_Atomic uint32_t *flag, uint32_t want, bool pause)
{
	uint64_t start = bench_now_ns();

	for (uint32_t spins = 1; atomic_load_explicit(flag, memory_order_acquire) != want; spins++) {
		if (pause)
			cpu_relax();
		if (!(spins & 0xfffff) && bench_now_ns() - start > STALL_NS) {
			fprintf(stderr, "%s: the other process stalled\n", program_invocation_short_name);
			exit(1);
		}
	}
}

static void futex_call(_Atomic uint32_t *word, int op, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)word, op, val, NULL, NULL, 0);
}

/* The receiver sleeps on the word until it reads want (a wake may come before the wait). */
static void await_futex(_Atomic uint32_t *word, uint32_t want)
{
	uint32_t seen;

	while ((seen = atomic_load(word)) != want)
		futex_call(word, FUTEX_WAIT, seen);
}

static void signal_peer(struct shared *s, enum test t, int to, uint32_t value)
{
	uint64_t one = 1;

	if (t == T_EVENTFD) {
		if (write(s->efd[to], &one, sizeof(one)) != sizeof(one))
			exit(1);
		return;
	}
	atomic_store_explicit(&s->flag[to][0], value, memory_order_release);
	if (t == T_FUTEX)
		futex_call(&s->flag[to][0], FUTEX_WAKE, 1);
}

static void await_peer(struct shared *s, enum test t, int me, uint32_t value)
{
	uint64_t count;

	if (t == T_EVENTFD) {
		if (read(s->efd[me], &count, sizeof(count)) != sizeof(count))
			exit(1);
	} else if (t == T_FUTEX) {
		await_futex(&s->flag[me][0], value);
	} else {
		await_spin(&s->flag[me][0], value, t == T_PAUSE);
	}
}

/* One-way nanoseconds; side 0 starts. */
static double pingpong(struct shared *s, enum test t, int me, int iters)
{
	uint64_t t0 = bench_now_ns();

	for (uint32_t i = 1; i <= (uint32_t)iters; i++) {
		if (me == 0) {
			signal_peer(s, t, 1, i);
			await_peer(s, t, 0, i);
		} else {
			await_peer(s, t, 1, i);
			signal_peer(s, t, 0, i);
		}
	}
	return (double)(bench_now_ns() - t0) / iters / 2;
}

static int responder_main(struct shared *s, int sock)
{
	bench_pin_thread(1);
	for (;;) {
		uint64_t t = bench_link_recv(sock, LINK_TIMEOUT_MS), iters;

		if (t == T_QUIT)
			return 0;
		iters = bench_link_recv(sock, LINK_TIMEOUT_MS);
		atomic_store(&s->flag[1][0], 0);
		bench_link_send(sock, 1);
		pingpong(s, (enum test)t, 1, (int)iters);
	}
}

static double round_of(struct shared *s, int sock, enum test t, int iters)
{
	atomic_store(&s->flag[0][0], 0);
	bench_link_send(sock, t);
	bench_link_send(sock, (uint64_t)iters);
	bench_link_recv(sock, LINK_TIMEOUT_MS);
	return pingpong(s, t, 0, iters);
}

static void latencies(const struct bench_opts *opts, struct shared *s, int sock, double *v)
{
	for (int t = T_SPIN; t < T_QUIT; t++) {
		/* Kernel wake-ups cost microseconds: fewer of them. */
		int iters = t >= T_FUTEX ? opts->iterations / 20 + 1 : opts->iterations;

		bench_header(opts, test_names[t], "two processes, cpus 0 and 1", "floor_ns", NULL);
		round_of(s, sock, (enum test)t, iters / 10 + 1);   /* warm-up */
		for (int r = 0; r < opts->repetitions; r++)
			v[r] = round_of(s, sock, (enum test)t, iters);
		bench_row_samples(opts, t >= T_FUTEX ? 0 : 8, iters, v, NULL, opts->repetitions);
	}
}

static void copies(const struct bench_opts *opts, double *v)
{
	unsigned char *src = malloc(opts->max_size), *dst = malloc(opts->max_size);

	if (!src || !dst)
		exit(1);
	memset(src, 0x5a, opts->max_size);
	memset(dst, 0, opts->max_size);
	bench_header(opts, "memcpy", "private buffers, cpu 0", "floor_GBps", NULL);
	for (size_t size = 8; size <= opts->max_size; size *= 2) {
		/* About the same bytes per size, at least a few copies. */
		int iters = (int)((uint64_t)opts->iterations * 256 / (size + 256)) + 4;

		for (int r = 0; r < opts->repetitions; r++)
			v[r] = bench_memcpy_GBps(dst, src, size, iters);
		bench_row_samples(opts, size, iters, v, NULL, opts->repetitions);
	}
	free(src);
	free(dst);
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .iterations = 100000, .repetitions = 5, .max_size = 16u << 20 };
	struct shared *s;
	double *v;
	int sv[2], status = 0;
	pid_t pid;

	bench_parse(argc, argv, &opts,
		    "The floor: cache-line ping-pong, futex and eventfd wake-ups between two\n"
		    "processes, and memcpy at every power of two up to -s.\n");
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	v = calloc((size_t)opts.repetitions, sizeof(double));
	if (s == MAP_FAILED || !v || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	s->efd[0] = eventfd(0, 0);
	s->efd[1] = eventfd(0, 0);
	if (s->efd[0] < 0 || s->efd[1] < 0)
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		_exit(responder_main(s, sv[1]));
	}
	if (pid < 0)
		return 1;
	close(sv[1]);
	bench_pin_thread(0);
	bench_set_context("floor", "host");
	latencies(&opts, s, sv[0], v);
	bench_link_send(sv[0], T_QUIT);
	waitpid(pid, &status, 0);
	copies(&opts, v);
	free(v);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}
