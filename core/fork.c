/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/fork.c: fork() in a process that uses libxrma. A thread may hold one of
 * the core's process-wide locks (the handle table's, the provider registry's)
 * at the moment another thread forks; the child would inherit it locked with
 * nobody to unlock it, and hang at its first xrma call. The handlers, set when
 * the library loads (so before any library built on it sets its own, whose
 * locks are taken before ours), hold every such lock across the fork.
 * A context itself is not inherited: its threads do not exist in the child.
 */
#include "core/fork.h"

#include <stddef.h>

static pthread_mutex_t *(*const fork_locks[])(void) = {
	xrma_core_registry_fork_lock,
	xrma_core_exit_notice_fork_lock,
	xrma_core_rwin_fork_lock,
	xrma_core_handle_fork_lock,
};

#define FORK_LOCK_COUNT (sizeof(fork_locks) / sizeof(fork_locks[0]))

static void fork_prepare(void)
{
	for (size_t i = 0; i < FORK_LOCK_COUNT; i++)
		pthread_mutex_lock(fork_locks[i]());
}

static void fork_parent(void)
{
	for (size_t i = FORK_LOCK_COUNT; i-- > 0;)
		pthread_mutex_unlock(fork_locks[i]());
}

/* The child is single-threaded: a fresh lock is the held one, released. */
static void fork_child(void)
{
	for (size_t i = FORK_LOCK_COUNT; i-- > 0;)
		pthread_mutex_init(fork_locks[i](), NULL);
}

static void __attribute__((constructor)) fork_handlers_set(void)
{
	/* Without memory for the handlers the library still works; only fork is unguarded. */
	(void)pthread_atfork(fork_prepare, fork_parent, fork_child);
}
