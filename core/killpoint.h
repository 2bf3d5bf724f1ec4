/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/killpoint.h: named places where a test may have the process die by SIGKILL.
 * XRMA_KILL_POINT("scif.connect.after_request") expands to nothing unless the file is
 * compiled with XRMA_KILLPOINTS, which only the test-only copies of the libraries are
 * (tests/faults/Makefile.include), so the installed libraries carry no hook. The point
 * to die at comes from XRMA_TEST_KILL_POINT=name[:count] (the count-th pass, default the
 * first), read once per process. docs/reliability.md lists the points and their tests.
 */
#ifndef XRMA_CORE_KILLPOINT_H
#define XRMA_CORE_KILLPOINT_H

#ifdef XRMA_KILLPOINTS
void xrma_killpoint_pass(const char *name);
#define XRMA_KILL_POINT(name) xrma_killpoint_pass(name)
#else
#define XRMA_KILL_POINT(name) ((void)0)
#endif

#endif
