/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/faults.h: the fault campaign's shared machinery. A campaign program
 * is a table of kill points (common/killpoint.h); each case runs a survivor process
 * that spawns a victim armed with one point, follows the victim's numbered steps
 * until it dies, checks what the API promised it would see, reconnects to a fresh
 * peer, and compares its descriptor and mapping counts with the ones it started
 * with. After the survivor exits, the case checks that nothing of its fabric is left
 * on the host (directory files, abstract sockets). docs/reliability.md has the table.
 */
#ifndef XRMA_TEST_FAULTS_H
#define XRMA_TEST_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tests/helpers/proc.h"

/* Bounds of every wait of the campaign: generous for TSan, never reached when all is well. */
#define FAULTS_WAIT_MS 15000
/* Exit code of a process that died by SIGKILL (proc_join). */
#define FAULTS_KILLED (128 + 9)

/* One row of a campaign table: die at point during step, scenario says what is run. */
struct faults_case {
	const char *point;      /* XRMA_TEST_KILL_POINT value */
	int scenario;           /* the program's scenario number */
	unsigned step;          /* the victim's step in which the point lies */
};

/*
 * Child side: arg is "point|rest" as faults_spawn builds it. Arms the point (an empty
 * point arms nothing) and returns rest. Call before the first library call.
 */
const char *faults_child_arm(const char *arg);

/* Spawn role as node with point armed (NULL or "" for a healthy peer) and rest as its argument. */
int faults_spawn(struct proc *p, const char *fabric, uint32_t node, const char *role,
		 const char *point, const char *rest);

/* Victim side: step done. 0 or an errno value. */
int faults_step_done(int sock, unsigned step);

/*
 * Survivor side: wait for the acknowledgement of step. 0 when it came, EPIPE when the
 * victim died first, ETIMEDOUT, or EPROTO on an unexpected value.
 */
int faults_step_wait(int sock, unsigned step);

/* Whether the victim is dead already (its pidfd is readable). */
bool faults_dead(const struct proc *p);

/*
 * Open descriptors and file mappings (shared memory, memfds, libraries) of this process,
 * leaving out node directories (see faults.c) and anonymous memory (malloc's arenas).
 */
size_t faults_fd_count(void);
size_t faults_map_count(void);
/* Print this process's descriptors and what they are (for a failed count check). */
/* Wait (bounded) until both counts are back at (or below) fds and maps; 0, or ETIMEDOUT after printing both. */
int faults_counts_back(size_t fds, size_t maps);
/* Leave [addr, addr+len) out of the mapping count: user memory a library may re-back. */
void faults_map_ignore(const void *addr, size_t len);
void faults_fd_dump(const char *why);
void faults_map_dump(const char *why);

/*
 * What the host still holds of fabric: directory (and temporary) files in /dev/shm
 * and abstract sockets in /proc/net/unix. Each is printed. The count.
 */
size_t faults_leftovers(const char *fabric);

/* Open and close one context next to fabric, which sweeps dead nodes' files. 0 or an xrma code. */
int faults_sweep(const char *fabric);

/* The fabric of case index of the program tag, unique to this run. */
void faults_fabric(char *buf, size_t len, const char *tag, size_t index);

/*
 * The campaign's driver: builds one cmocka test per table row, named after its point;
 * each spawns role "survivor" with the row's index (on node survivor_node and a fabric
 * of its own), requires exit code 0, then no leftovers. Returns cmocka's result.
 */
int faults_run(const char *group, const char *tag, const struct faults_case *cases, size_t count,
	       uint32_t survivor_node);

/*
 * A campaign program's main: a child runs its role; otherwise the campaign runs when the
 * provider's nodes are processes (and map memory, when need_map), else the program skips
 * with Automake's code 77.
 */
int faults_main(int argc, char **argv, const struct proc_role *roles, bool need_map,
		const char *group, const char *tag, const struct faults_case *cases, size_t count,
		uint32_t survivor_node);

/* Survivor side: the row the driver passed as arg. */
const struct faults_case *faults_case_of(const char *arg, const struct faults_case *cases, size_t count);

#endif
