/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_errors.c: the one table from core codes to
 * SCIF errno values (personalities/scif/scif_errors.c, compiled in here):
 * every XRMA_E* code maps to a real errno, the codes equal to errno pass
 * through, and the xrma-only codes get the errno the SCIF man pages give.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "personalities/scif/scif_internal.h"

static void test_scif_errno_table_is_total(void **state)
{
	(void)state;
	for (int code = 1; code < XRMA_EMAX_; code++) {
		int err;

		if (code > XRMA_ERRNO_MAX && code < XRMA_EHANDLE)
			continue;
		err = xrma_scif_errno(-code);
		assert_true(err > 0 && err < 256);
		assert_int_equal(xrma_scif_errno(code), err);   /* sign does not matter */
		if (!xrma_error_name(-code))
			continue;
		/* Every named core code has a description of its errno. */
		assert_non_null(strerror(err));
	}
}

static void test_scif_errno_specific_codes(void **state)
{
	(void)state;
	assert_int_equal(xrma_scif_errno(-XRMA_EHANDLE), EBADF);
	assert_int_equal(xrma_scif_errno(-XRMA_EALIGN_OFFSET), EINVAL);
	assert_int_equal(xrma_scif_errno(-XRMA_EALIGN_SIZE), EINVAL);
	assert_int_equal(xrma_scif_errno(-XRMA_ELOST), ECONNRESET);
	assert_int_equal(xrma_scif_errno(-XRMA_ECANCELED), ECONNRESET);
	assert_int_equal(xrma_scif_errno(-XRMA_ERANGE), ENXIO);
	assert_int_equal(xrma_scif_errno(-XRMA_ENOSPC), ENOMEM);
	assert_int_equal(xrma_scif_errno(-XRMA_ENOTAVAIL), ENXIO);
	/* Codes that are errno values pass through. */
	assert_int_equal(xrma_scif_errno(-XRMA_ECONNREFUSED), ECONNREFUSED);
	assert_int_equal(xrma_scif_errno(-XRMA_EADDRINUSE), EADDRINUSE);
	assert_int_equal(xrma_scif_errno(-XRMA_EACCES), EACCES);
	assert_int_equal(xrma_scif_errno(-XRMA_ENXIO), ENXIO);
	assert_int_equal(xrma_scif_errno(-XRMA_ENOTCONN), ENOTCONN);
	/* An unknown code is still an error. */
	assert_int_equal(xrma_scif_errno(-100000), EIO);
}

static void test_scif_fail_sets_errno(void **state)
{
	(void)state;
	errno = 0;
	assert_int_equal(xrma_scif_fail(-XRMA_EHANDLE), -1);
	assert_int_equal(errno, EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scif_errno_table_is_total),
		cmocka_unit_test(test_scif_errno_specific_codes),
		cmocka_unit_test(test_scif_fail_sets_errno),
	};

	return cmocka_run_group_tests_name("scif_errors", tests, NULL, NULL);
}
