/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/lock.h: the core's mutex and condition variable, with the owner recorded
 * so helpers can assert that their caller holds the lock.
 *
 * Lock order (take left before right, never the reverse):
 *   ctx->lock  ->  conn->lock  ->  seg / rseg / win / intr lock  ->  dmaq->lock
 *   -> control request table lock -> event queue lock
 * No core lock is held across a blocking provider call or a user callback:
 * copy what is needed, unlock, call, re-check.
 */
#ifndef XRMA_COMMON_LOCK_H
#define XRMA_COMMON_LOCK_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct xrma_lock {
	pthread_mutex_t mutex;
	_Atomic(pthread_t) owner;   /* valid while held; for assertions only */
	atomic_bool held;
};

static inline void xrma_lock_init(struct xrma_lock *lock)
{
	pthread_mutex_init(&lock->mutex, NULL);
	atomic_store_explicit(&lock->held, false, memory_order_relaxed);
}

static inline void xrma_lock_destroy(struct xrma_lock *lock)
{
	assert(!atomic_load_explicit(&lock->held, memory_order_relaxed));
	pthread_mutex_destroy(&lock->mutex);
}

static inline void xrma_lock(struct xrma_lock *lock)
{
	pthread_mutex_lock(&lock->mutex);
	atomic_store_explicit(&lock->owner, pthread_self(), memory_order_relaxed);
	atomic_store_explicit(&lock->held, true, memory_order_relaxed);
}

static inline void xrma_unlock(struct xrma_lock *lock)
{
	atomic_store_explicit(&lock->held, false, memory_order_relaxed);
	pthread_mutex_unlock(&lock->mutex);
}

static inline bool xrma_lock_held_by_me(struct xrma_lock *lock)
{
	return atomic_load_explicit(&lock->held, memory_order_relaxed) &&
	       pthread_equal(atomic_load_explicit(&lock->owner, memory_order_relaxed), pthread_self());
}

#define xrma_lock_assert_held(lock) assert(xrma_lock_held_by_me(lock))

/* A condition variable on CLOCK_MONOTONIC, paired with an xrma_lock. */
struct xrma_cond {
	pthread_cond_t cond;
};

static inline void xrma_cond_init(struct xrma_cond *c)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &attr);
	pthread_condattr_destroy(&attr);
}

static inline void xrma_cond_destroy(struct xrma_cond *c)
{
	pthread_cond_destroy(&c->cond);
}

static inline void xrma_cond_broadcast(struct xrma_cond *c)
{
	pthread_cond_broadcast(&c->cond);
}

#endif
