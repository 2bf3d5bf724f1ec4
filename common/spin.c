/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/spin.c: the spin budget (see spin.h) and whether this thread has a CPU
 * to itself.
 */
#include "common/spin.h"

#include <sched.h>
#include <stdatomic.h>
#include <time.h>

static _Atomic uint64_t spin_budget_ns = XRMA_SPIN_US_DEFAULT * 1000ull;

/* 0: not looked up yet; 1: this thread may run on one CPU only; 2: on several. */
static __thread int thread_cpus;

void xrma_spin_set_budget_ns(uint64_t ns)
{
	atomic_store_explicit(&spin_budget_ns, ns, memory_order_relaxed);
}

uint64_t xrma_spin_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Looked up once per thread: a program pins its threads before it waits. */
static bool thread_has_one_cpu(void)
{
	if (!thread_cpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		thread_cpus = !sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) == 1 ? 1 : 2;
	}
	return thread_cpus == 1;
}

void xrma_spin_start(struct xrma_spin *s, enum xrma_spin_for whom)
{
	s->until_ns = 0;
	s->rounds = 0;
	s->budget_ns = atomic_load_explicit(&spin_budget_ns, memory_order_relaxed);
	if (whom == XRMA_SPIN_LOCAL && s->budget_ns && thread_has_one_cpu())
		s->budget_ns = 0;
}
