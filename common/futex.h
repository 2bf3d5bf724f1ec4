/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/futex.h: sleeping on a 32-bit word that may live in memory shared
 * between processes (the shared, not private, futex). A "change counter" word
 * comes with a count of sleepers, so whoever changes it makes a system call
 * only when somebody sleeps; a sleeper re-checks its own predicate after every
 * return (returns may be spurious). Used by the interrupt trigger pages and
 * the host fabric's doorbells and export withdrawal.
 */
#ifndef XRMA_COMMON_FUTEX_H
#define XRMA_COMMON_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include "common/wait.h"

/* Wake every sleeper on word. */
void xrma_futex_wake_all(_Atomic uint32_t *word);

/* Sleep while *word still reads seen, at most rel (NULL: unbounded). */
void xrma_futex_wait(_Atomic uint32_t *word, uint32_t seen, const struct timespec *rel);

/* Count one change of word and wake its sleepers, if any. */
void xrma_futex_bump(_Atomic uint32_t *word, _Atomic uint32_t *sleepers);

/*
 * Sleep (counted in sleepers) while *word still reads seen, until the
 * deadline. -XRMA_ETIMEDOUT if it had passed already, else 0: the caller
 * re-checks, and its deadline tells a timeout.
 */
int xrma_futex_sleep(_Atomic uint32_t *word, uint32_t seen, _Atomic uint32_t *sleepers,
		     const struct xrma_deadline *d);

#endif
