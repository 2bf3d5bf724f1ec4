/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/killpoint.h: named places where a test may have the process die by SIGKILL.
 * XRMA_KILL_POINT("scif.connect.after_request") expands to nothing unless the file is
 * compiled with XRMA_KILLPOINTS, which only the test-only copies of the libraries are
 * (tests/faults/Makefile.include), so the installed libraries carry no hook. The point
 * to die at comes from XRMA_TEST_KILL_POINT=name[:count] (the count-th pass, default the
 * first), read once per process. docs/reliability.md lists the points and their tests.
 */
#ifndef XRMA_COMMON_KILLPOINT_H
#define XRMA_COMMON_KILLPOINT_H

#include <stdbool.h>

#ifdef XRMA_KILLPOINTS
void xrma_killpoint_pass(const char *name);
#define XRMA_KILL_POINT(name) xrma_killpoint_pass(name)
#else
#define XRMA_KILL_POINT(name) ((void)0)
#endif

/*
 * A fail point: a place where a test may have a step fail as if the hardware or
 * the network had refused it. XRMA_FAIL_POINT("scif.unregister.notice") is true
 * on every pass while the test has armed that point with xrma_failpoint_arm
 * (so a test arms and disarms it around one call, whichever library thread
 * passes it); always false outside the test-only libraries.
 */
#ifdef XRMA_KILLPOINTS
bool xrma_failpoint_hit(const char *name);
#define XRMA_FAIL_POINT(name) xrma_failpoint_hit(name)
#else
#define XRMA_FAIL_POINT(name) false
#endif

/*
 * Arm the fail point name (NULL: none) in this process. name must stay valid while
 * armed. Defined only in the test-only libraries, for the programs that link them.
 */
void xrma_failpoint_arm(const char *name);

/*
 * Passes over the armed fail point since it was armed, so a test can wait until a
 * library thread has reached it. Defined only in the test-only libraries.
 */
unsigned long xrma_failpoint_passes(void);

#endif
