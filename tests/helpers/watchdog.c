/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/helpers/watchdog.c: SIGALRM ends a step that outlived its limit (watchdog.h).
 * Everything the handler needs (message, gdb's path and arguments) is prepared when the
 * limit is armed, so the handler itself only writes, forks, execs and waits, all of
 * which are async-signal-safe.
 */
#include "tests/helpers/watchdog.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char watchdog_message[512];
static size_t watchdog_message_len;
static char watchdog_gdb[256];
static char watchdog_pid[24];
static int watchdog_ready;

/* gdb's full path from PATH, or "" when it is not installed. */
static void watchdog_find_gdb(void)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;

	watchdog_gdb[0] = '\0';
	if (!path || !(copy = strdup(path)))
		return;
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char candidate[sizeof(watchdog_gdb)];

		if ((size_t)snprintf(candidate, sizeof(candidate), "%s/gdb", dir) >= sizeof(candidate))
			continue;
		if (access(candidate, X_OK) == 0) {
			memcpy(watchdog_gdb, candidate, sizeof(candidate));
			break;
		}
	}
	free(copy);
}

static void watchdog_write(const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDERR_FILENO, text, len);

		if (n <= 0)
			return;
		text += n;
		len -= (size_t)n;
	}
}

static void watchdog_fire(int sig)
{
	static const char no_gdb[] = "watchdog: gdb is not installed; no stacks\n";
	pid_t child;

	(void)sig;
	watchdog_write(watchdog_message, watchdog_message_len);
	if (!watchdog_gdb[0]) {
		watchdog_write(no_gdb, sizeof(no_gdb) - 1);
		_exit(WATCHDOG_EXIT);
	}
	child = fork();
	if (child == 0) {
		char *argv[] = { watchdog_gdb, "-batch", "-nx", "-p", watchdog_pid,
				 "-ex", "thread apply all bt", NULL };
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execve(watchdog_gdb, argv, environ);
		_exit(127);
	}
	if (child > 0)
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	_exit(WATCHDOG_EXIT);
}

void watchdog_arm(unsigned int seconds, const char *what, const char *phase)
{
	/* Sanitized builds run slower: the same stretch as proc_scaled_ms. */
	const char *env = getenv("XRMA_TEST_TIME_SCALE");
	unsigned long scale = env ? strtoul(env, NULL, 10) : 1;
	int n;

	if (scale > 1 && scale <= 100)
		seconds = (unsigned int)(seconds * scale);

	if (!watchdog_ready) {
		struct sigaction sa = { .sa_handler = watchdog_fire };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
		watchdog_find_gdb();
		snprintf(watchdog_pid, sizeof(watchdog_pid), "%ld", (long)getpid());
#ifdef PR_SET_PTRACER
		/* Where Yama limits ptrace to ancestors, let our own gdb child attach. */
		prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
		watchdog_ready = 1;
	}
	n = snprintf(watchdog_message, sizeof(watchdog_message),
		     "watchdog: %s (%s) still running after %u s; thread stacks follow\n", what,
		     phase, seconds);
	watchdog_message_len = n < 0 ? 0 : (size_t)n >= sizeof(watchdog_message) ?
						sizeof(watchdog_message) - 1 : (size_t)n;
	alarm(seconds);
}

void watchdog_disarm(void)
{
	alarm(0);
}
