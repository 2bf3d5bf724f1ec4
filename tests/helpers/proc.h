/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/helpers/proc.h: real processes for multi-process tests.
 *
 * A test program re-executes itself (fork + exec of /proc/self/exe) to run a
 * named child role as another node, so the child starts clean: no inherited
 * threads, locks or library state, exactly like a second program. The parent
 * and each child share one stream socket carrying 64-bit values, used for
 * rendezvous ("segment 7 is exported") and for results; waits on it are
 * bounded, and a child that dies shows as EPIPE, never as a hang.
 *
 * Children cannot use cmocka assertions (a failed assertion would unwind into
 * the child's copy of the test runner), so roles return 0 or a failure code
 * and check with PROC_CHECK, which prints the failing line.
 *
 * Usage:
 *   static const struct proc_role roles[] = { { "server", server_main }, { 0 } };
 *   int main(int argc, char **argv) {
 *       int rc;
 *       if (proc_child_dispatch(argc, argv, roles, &rc))
 *           return rc;
 *       ... cmocka_run_group_tests(...) ...
 *   }
 */
#ifndef XRMA_TEST_PROC_H
#define XRMA_TEST_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* A child's body: sock is its end of the parent link, arg the spawn argument. */
typedef int (*proc_main_fn)(int sock, const char *arg);

struct proc_role {
	const char *name;
	proc_main_fn main;
};

struct proc {
	pid_t pid;
	int pidfd;   /* readable once the child exited */
	int sock;    /* the parent's end of the link */
};

/* Child-side check: print where and why, and fail the role with the line number. */
#define PROC_CHECK(cond)                                                              \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: child check failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                     \
			return __LINE__ & 0x7f ? __LINE__ & 0x7f : 1;                 \
		}                                                                     \
	} while (0)

/*
 * Child-side checks that an API's return or error code is the expected one:
 * PROC_CHECK_EQ for codes compared as they are (sci_error_t, tPXIMC_Status),
 * PROC_CHECK_RC for xrma calls against a non-negated XRMA_E* or 0. A mismatch
 * prints both codes and the library's error detail, so a log says what came back.
 */
#define PROC_CHECK_EQ(actual, expected) PROC_CHECK_CODE_(actual, (long long)(expected), #expected)
#define PROC_CHECK_RC(call, expected) PROC_CHECK_CODE_(call, -(long long)(expected), #expected)

#define PROC_CHECK_CODE_(actual, want, want_text)                                      \
	do {                                                                           \
		long long proc_got_ = (long long)(actual), proc_want_ = (want);        \
		if (proc_got_ != proc_want_)                                           \
			return proc_check_mismatch(__FILE__, __LINE__, #actual, proc_got_, \
						   want_text, proc_want_);            \
	} while (0)

/* Print a failed PROC_CHECK_EQ / _RC; the role's failure code for line. */
int proc_check_mismatch(const char *file, int line, const char *what, long long got,
			const char *want_text, long long want);

/*
 * In main(): if argv names a child role, run it and return true with its exit
 * code in *rc. Otherwise return false and let the test runner go on.
 */
bool proc_child_dispatch(int argc, char **argv, const struct proc_role *roles, int *rc);

/*
 * Start role as node on fabric (XRMA_NODE_ID and XRMA_FABRIC are set in the
 * child's environment; fabric NULL keeps the parent's). arg (may be NULL) is
 * passed through. 0, or -1 with errno set.
 */
int proc_spawn(struct proc *p, const char *fabric, uint32_t node, const char *role, const char *arg);

/*
 * Wait up to timeout_ms for the child to exit and reap it. Returns its exit
 * code (0..255), 128 + signal number if a signal ended it, or -1 on timeout
 * (the child is then killed and reaped).
 */
int proc_join(struct proc *p, int timeout_ms);

/* SIGKILL the child and reap it. 128 + SIGKILL, or its exit code if it had already exited. */
int proc_kill(struct proc *p);

/*
 * SIGKILL and reap every child this process started and has not reaped yet;
 * how many. After a failed assertion they would otherwise live on, holding
 * their nodes, until their own waits ran out.
 */
int proc_kill_all(void);

/* A cmocka teardown that calls proc_kill_all: cmocka_unit_test_teardown(test, proc_teardown). */
int proc_teardown(void **state);

/*
 * ms stretched by the build's test time scale (XRMA_TEST_TIME_SCALE, set by
 * `make check`: larger under the sanitizers, whose processes start and run
 * several times slower). For bounds on how long another process may take to do
 * something, never for a wait that is meant to run out. proc_join, proc_recv
 * and proc_expect scale their own timeouts.
 */
int proc_scaled_ms(int ms);

/* One 64-bit value over the link. 0, or an errno value (EPIPE: the other side is gone). */
int proc_send(int sock, uint64_t value);
/* 0, ETIMEDOUT, EPIPE (the other side closed or died), or another errno value. */
int proc_recv(int sock, uint64_t *value, int timeout_ms);
/* Receive and require a given value: 0, EPROTO on a different value, or proc_recv's error. */
int proc_expect(int sock, uint64_t want, int timeout_ms);

/*
 * Whether the provider this test would use by default (XRMA_PROVIDER, config,
 * built-in default) places nodes in separate processes. Multi-process tests
 * skip() when it does not.
 */
bool proc_provider_multiproc(void);

/* XRMA_CAP_* of that provider (0 if the name matches none). */
uint64_t proc_provider_caps(void);

/* That provider's name and capabilities; false if the name matches none. */
struct xrma_provider_info;
bool proc_provider_info(struct xrma_provider_info *info);

#endif
