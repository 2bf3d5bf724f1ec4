/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/spin.h: the bounded spin a waiter makes before it blocks. The bound is
 * time, not a count of pauses: a pause costs from a few to ~140 cycles depending
 * on the core, so 2048 of them were 58-87 us on the test machines and a few us on
 * older ones. The budget ([core] spin_us, default 5 us) is about what a futex
 * sleep and wake cost, so a waiter that spins and then sleeps never pays more
 * than twice the better of the two.
 *
 * Two kinds of wait: one for another process (a peer's store, doorbell or
 * trigger), which runs on another CPU whenever there is one; and one for a
 * thread of this process (the service, DMA or engine thread), which may need
 * this very CPU. A thread allowed a single CPU (taskset, cgroup) never spins for
 * a local thread: it would only burn the slice the other thread needs.
 */
#ifndef XRMA_COMMON_SPIN_H
#define XRMA_COMMON_SPIN_H

#include <stdbool.h>
#include <stdint.h>
#include "common/wait.h"

enum xrma_spin_for {
	XRMA_SPIN_PEER,     /* another process, on another CPU when there is one */
	XRMA_SPIN_LOCAL,    /* a thread of this process */
};

struct xrma_spin {
	uint64_t until_ns;  /* 0 until the clock is first read */
	uint64_t budget_ns;
	unsigned rounds;
};

/* The default budget, and the largest [core] spin_us accepts. */
#define XRMA_SPIN_US_DEFAULT 5
#define XRMA_SPIN_US_MAX 1000000

/* Set the process's budget (a context open applies [core] spin_us). */
void xrma_spin_set_budget_ns(uint64_t ns);

/* Start a spin; for XRMA_SPIN_LOCAL the budget is 0 on a thread allowed one CPU. */
void xrma_spin_start(struct xrma_spin *s, enum xrma_spin_for whom);

uint64_t xrma_spin_clock_ns(void);

/*
 * One round: pause, and say whether the budget leaves room for another. The
 * clock is read every few rounds only, so a short wait costs no clock read.
 */
static inline bool xrma_spin_again(struct xrma_spin *s)
{
	uint64_t now;

	if (!s->budget_ns)
		return false;
	xrma_cpu_relax();
	if (++s->rounds % 8)
		return true;
	now = xrma_spin_clock_ns();
	if (!s->until_ns)
		s->until_ns = now + s->budget_ns;
	return now < s->until_ns;
}

#endif
