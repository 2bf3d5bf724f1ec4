/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/futex.c: shared-memory futex words (common/futex.h).
 */
#include "common/futex.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <xrma/errors.h>

void xrma_futex_wake_all(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void xrma_futex_wait(_Atomic uint32_t *word, uint32_t seen, const struct timespec *rel)
{
	syscall(SYS_futex, word, FUTEX_WAIT, seen, rel, NULL, 0);
}

void xrma_futex_bump(_Atomic uint32_t *word, _Atomic uint32_t *sleepers)
{
	atomic_fetch_add_explicit(word, 1, memory_order_seq_cst);
	if (atomic_load_explicit(sleepers, memory_order_seq_cst))
		xrma_futex_wake_all(word);
}

int xrma_futex_sleep(_Atomic uint32_t *word, uint32_t seen, _Atomic uint32_t *sleepers,
		     const struct xrma_deadline *d)
{
	struct timespec rel, *ts = NULL;
	int left = xrma_deadline_remaining_ms(d);

	if (left == 0)
		return -XRMA_ETIMEDOUT;
	if (left > 0) {
		rel.tv_sec = left / 1000;
		rel.tv_nsec = (long)(left % 1000) * 1000000L;
		ts = &rel;
	}
	/* Counted before the last look: a changer that bumps after it sees us and wakes. */
	atomic_fetch_add_explicit(sleepers, 1, memory_order_seq_cst);
	if (atomic_load_explicit(word, memory_order_seq_cst) == seen)
		xrma_futex_wait(word, seen, ts);
	atomic_fetch_sub_explicit(sleepers, 1, memory_order_seq_cst);
	return 0;
}
