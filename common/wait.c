/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/wait.c: monotonic deadlines and the condition wait behind every blocking
 * call (see wait.h for the spin-then-block rule).
 */
#include "common/wait.h"

#include <errno.h>
#include <xrma/errors.h>

void xrma_deadline_set(struct xrma_deadline *d, int timeout_ms)
{
	d->infinite = timeout_ms < 0;
	d->poll = timeout_ms == 0;
	d->at = (struct timespec){ 0 };
	/* Only a finite, non-zero timeout needs the clock: reading it costs tens of
	 * nanoseconds, a good part of a synchronous RMA that never waits. */
	if (timeout_ms > 0) {
		clock_gettime(CLOCK_MONOTONIC, &d->at);
		d->at.tv_sec += timeout_ms / 1000;
		d->at.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (d->at.tv_nsec >= 1000000000L) {
			d->at.tv_sec++;
			d->at.tv_nsec -= 1000000000L;
		}
	}
}

bool xrma_deadline_passed(const struct xrma_deadline *d)
{
	struct timespec now;

	if (d->infinite)
		return false;
	if (d->poll)
		return true;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > d->at.tv_sec || (now.tv_sec == d->at.tv_sec && now.tv_nsec >= d->at.tv_nsec);
}

int xrma_deadline_remaining_ms(const struct xrma_deadline *d)
{
	struct timespec now;
	long long ns;

	if (d->infinite)
		return -1;
	if (d->poll)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(d->at.tv_sec - now.tv_sec) * 1000000000LL + (d->at.tv_nsec - now.tv_nsec);
	if (ns <= 0 || d->poll)
		return 0;
	return (int)((ns + 999999) / 1000000);
}

int xrma_cond_wait(struct xrma_cond *c, struct xrma_lock *lock, const struct xrma_deadline *d)
{
	int rc;

	xrma_lock_assert_held(lock);
	if (d->poll)
		return -XRMA_ETIMEDOUT;
	atomic_store_explicit(&lock->held, false, memory_order_relaxed);
	if (d->infinite)
		rc = pthread_cond_wait(&c->cond, &lock->mutex);
	else
		rc = pthread_cond_timedwait(&c->cond, &lock->mutex, &d->at);
	atomic_store_explicit(&lock->owner, pthread_self(), memory_order_relaxed);
	atomic_store_explicit(&lock->held, true, memory_order_relaxed);
	return rc == ETIMEDOUT ? -XRMA_ETIMEDOUT : 0;
}
