/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/helpers/watchdog.h: a per-step time limit that explains itself. A step that
 * outlives its limit ends the program with a message naming the step and, when gdb is
 * installed and may attach, every thread's stack, so a rare hang seen once in CI can be
 * read from the test's log instead of showing as a log that simply stops.
 */
#ifndef XRMA_TEST_WATCHDOG_H
#define XRMA_TEST_WATCHDOG_H

/* Exit status of a program the watchdog ended (timeout(1) uses the same). */
#define WATCHDOG_EXIT 124

/*
 * Start a limit of seconds on the step named what (the strings are kept, not copied:
 * they must outlive the step). Replaces any running limit.
 */
void watchdog_arm(unsigned int seconds, const char *what, const char *phase);

/* The step ended in time. */
void watchdog_disarm(void);

#endif
