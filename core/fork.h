/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/fork.h: the process-wide locks of the core that fork() must not copy
 * while another thread holds them. Each owning file lends its lock here;
 * core/fork.c takes them all around fork(), in the order below.
 */
#ifndef XRMA_CORE_FORK_H
#define XRMA_CORE_FORK_H

#include <pthread.h>

pthread_mutex_t *xrma_core_registry_fork_lock(void);     /* core/registry.c */
pthread_mutex_t *xrma_core_exit_notice_fork_lock(void);  /* core/exit_notice.c */
pthread_mutex_t *xrma_core_rwin_fork_lock(void);         /* core/rwin.c */
pthread_mutex_t *xrma_core_handle_fork_lock(void);       /* core/handle.c: a leaf, last */

#endif
