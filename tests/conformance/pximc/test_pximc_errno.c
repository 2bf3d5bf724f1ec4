/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/test_pximc_errno.c: PXImc reports through its
 * status, so a call that succeeds leaves the program's errno as it was. Two
 * systems of xrma's vendor library in one process (pximc_test_pair.c's
 * layout) go through a whole session with errno set to a sentinel before
 * each call: open (the process's first call, which opens a context and looks
 * for a configuration file), interface listing and query, a logical server
 * and client window paired, data and an event each way, close and cleanup.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>
#include "tests/conformance/pximc/pximc_test.h"

#define SENTINEL 12345

/* Run one call with errno at the sentinel: it must return want and leave errno alone. */
#define assert_px_keeps_errno(call, want)                                          \
	do {                                                                       \
		long keep_rc_;                                                     \
		errno = SENTINEL;                                                  \
		keep_rc_ = (long)(call);                                           \
		if (errno != SENTINEL)                                             \
			print_error("%s changed errno to %d\n", #call, errno);     \
		assert_int_equal(keep_rc_, (long)(want));                          \
		assert_int_equal(errno, SENTINEL);                                 \
	} while (0)

static void test_pximc_successful_calls_leave_errno_alone(void **state)
{
	static const uint8_t hello[] = "server";
	struct xrma_ctx_attr attr = { .node_id = 1 };
	struct xrma_pximc *a, *b;
	char fabric[XRMA_NAME_MAX];
	uint32_t ids[8], count = 0, value = 0, actual = 0, server = 0, client = 0, reason = 0;
	void *remote_a, *local_a, *remote_b, *local_b;
	uint64_t remote_size, local_size;

	(void)state;
	fixture_fabric_name(fabric, sizeof(fabric), "pximc-errno");
	attr.fabric = fabric;
	assert_px_keeps_errno(xrma_pximc_open(&attr, &a), 0);
	attr.node_id = 2;
	assert_px_keeps_errno(xrma_pximc_open(&attr, &b), 0);

	assert_px_keeps_errno(xrma_pximc_use(a), 0);
	assert_px_keeps_errno(PXIMC_findInterfaces(8, ids, &count), PXIMC_SUCCESS);
	assert_true(count >= 1);
	/* Interface ids are node + 1 (pximc_test_pair.c): A reaches B through 3, B reaches A through 2. */
	assert_px_keeps_errno(PXIMC_queryInterfaceInformation(3, PXIMC_U32_INTERFACE_STATE, 4, &value, &actual),
			      PXIMC_SUCCESS);
	assert_px_keeps_errno(PXIMC_requestWindowLogicalAsServer(3, PXT_PROTO, PXT_SIZE, PXT_SIZE, PXT_SIZE,
								 PXT_SIZE, 4711, hello, sizeof(hello),
								 &server),
			      PXIMC_SUCCESS);
	assert_px_keeps_errno(xrma_pximc_use(b), 0);
	assert_px_keeps_errno(PXIMC_requestWindowLogicalAsClient(2, PXT_PROTO, PXT_SIZE, PXT_SIZE, PXT_SIZE,
								 PXT_SIZE, 4711, &client),
			      PXIMC_SUCCESS);
	assert_px_keeps_errno(PXIMC_waitForConnection(client, FIXTURE_TIMEOUT_MS, &remote_b, &remote_size,
						      &local_b, &local_size),
			      PXIMC_SUCCESS);
	assert_px_keeps_errno(xrma_pximc_use(a), 0);
	assert_px_keeps_errno(PXIMC_waitForConnection(server, FIXTURE_TIMEOUT_MS, &remote_a, &remote_size,
						      &local_a, &local_size),
			      PXIMC_SUCCESS);

	/* B writes into A's window and tells it; A answers the same way. */
	fixture_pattern(remote_b, 256, 7, 0);
	assert_px_keeps_errno(xrma_pximc_use(b), 0);
	assert_px_keeps_errno(PXIMC_assertEvent(client), PXIMC_SUCCESS);
	assert_px_keeps_errno(xrma_pximc_use(a), 0);
	assert_px_keeps_errno(PXIMC_waitForSessionEvent(server, FIXTURE_TIMEOUT_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_ASSERTED);
	assert_int_equal(fixture_pattern_check(local_a, 256, 7, 0), FIXTURE_MATCH);
	fixture_pattern(remote_a, 256, 8, 0);
	assert_px_keeps_errno(PXIMC_assertEvent(server), PXIMC_SUCCESS);
	assert_px_keeps_errno(xrma_pximc_use(b), 0);
	assert_px_keeps_errno(PXIMC_waitForSessionEvent(client, FIXTURE_TIMEOUT_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(fixture_pattern_check(local_b, 256, 8, 0), FIXTURE_MATCH);

	/* Closing: the client first, so the server's close sees its peer gone. */
	assert_px_keeps_errno(PXIMC_closeWindow(client), PXIMC_SUCCESS);
	assert_px_keeps_errno(xrma_pximc_use(a), 0);
	assert_px_keeps_errno(PXIMC_waitForSessionEvent(server, FIXTURE_TIMEOUT_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_CONNECTION_CLOSED);
	assert_px_keeps_errno(PXIMC_closeWindow(server), PXIMC_SUCCESS);
	assert_px_keeps_errno(PXIMC_cleanup(), PXIMC_SUCCESS);
	assert_px_keeps_errno(xrma_pximc_use(b), 0);
	assert_px_keeps_errno(PXIMC_cleanup(), PXIMC_SUCCESS);
	assert_px_keeps_errno(xrma_pximc_close(b), 0);
	assert_px_keeps_errno(xrma_pximc_close(a), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pximc_successful_calls_leave_errno_alone),
	};

	return cmocka_run_group_tests_name("pximc_errno", tests, NULL, NULL);
}
