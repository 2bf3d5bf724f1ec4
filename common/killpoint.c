/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/killpoint.c: the test-only side of common/killpoint.h. Compiled into the fault
 * campaign's copies of the libraries only. The chosen point is parsed once; every pass
 * over a point compares names, and the count-th pass over the chosen one kills the
 * whole process at once with SIGKILL (no handler, no exit code path, no cleanup), as a
 * crash or the OOM killer would. A fail point only reports whether the test has armed it
 * (xrma_failpoint_arm), and counts the passes while armed.
 */
#include "common/killpoint.h"

#include <stdatomic.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t killpoint_once = PTHREAD_ONCE_INIT;
static char killpoint_name[128];       /* written once, under killpoint_once */
static unsigned long killpoint_target; /* the pass that dies (1 = first) */
static unsigned long killpoint_passes; /* atomic */

static void killpoint_read(void)
{
	const char *v = getenv("XRMA_TEST_KILL_POINT");
	const char *colon;
	size_t n;

	if (!v || !*v)
		return;
	colon = strchr(v, ':');
	n = colon ? (size_t)(colon - v) : strlen(v);
	if (n >= sizeof(killpoint_name))
		return;
	memcpy(killpoint_name, v, n);
	killpoint_name[n] = '\0';
	killpoint_target = colon ? strtoul(colon + 1, NULL, 10) : 1;
	if (!killpoint_target)
		killpoint_target = 1;
}

void xrma_killpoint_pass(const char *name)
{
	char note[192];
	int len;

	pthread_once(&killpoint_once, killpoint_read);
	if (!killpoint_name[0] || strcmp(name, killpoint_name))
		return;
	if (__atomic_add_fetch(&killpoint_passes, 1, __ATOMIC_RELAXED) != killpoint_target)
		return;
	/* One write(2): the note must not depend on stdio state we may die inside. */
	len = snprintf(note, sizeof(note), "killpoint: pid %ld dies at %s\n", (long)getpid(), name);
	if (len > 0 && write(STDERR_FILENO, note, (size_t)len) < 0)
		note[0] = '\0';
	for (;;) {
		kill(getpid(), SIGKILL);
		pause();
	}
}

/* The armed fail point's name, the caller's string; atomic, as library threads read it. */
static const char *_Atomic failpoint_armed;
static atomic_ulong failpoint_passes;

void xrma_failpoint_arm(const char *name)
{
	atomic_store(&failpoint_passes, 0);
	atomic_store(&failpoint_armed, name);
}

bool xrma_failpoint_hit(const char *name)
{
	const char *armed = atomic_load(&failpoint_armed);

	if (!armed || strcmp(armed, name))
		return false;
	atomic_fetch_add(&failpoint_passes, 1);
	return true;
}

unsigned long xrma_failpoint_passes(void)
{
	return atomic_load(&failpoint_passes);
}
