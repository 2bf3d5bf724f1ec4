/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/wait.h: deadlines and the one blocking wait of the core. Every wait in
 * the core spins a bounded time on its predicate (common/spin.h: latency) and
 * then blocks on a condition variable or a futex against a monotonic deadline
 * (fairness to the other core of a small machine). No sleep loops.
 */
#ifndef XRMA_COMMON_WAIT_H
#define XRMA_COMMON_WAIT_H

#include <stdbool.h>
#include <time.h>
#include "common/lock.h"

struct xrma_deadline {
	struct timespec at;   /* CLOCK_MONOTONIC */
	bool infinite;
	bool poll;            /* timeout 0: do not block at all */
};

/* timeout_ms < 0 waits for ever (any negative value: XRMA_TIMEOUT_INFINITE). */
void xrma_deadline_set(struct xrma_deadline *d, int timeout_ms);

bool xrma_deadline_passed(const struct xrma_deadline *d);

/* Remaining milliseconds (rounded up), -1 for infinite, 0 when passed. */
int xrma_deadline_remaining_ms(const struct xrma_deadline *d);

/*
 * Block on c (lock held) until signalled or the deadline passes:
 * 0 or -XRMA_ETIMEDOUT. Callers re-check their predicate either way.
 */
int xrma_cond_wait(struct xrma_cond *c, struct xrma_lock *lock, const struct xrma_deadline *d);

static inline void xrma_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

#endif
