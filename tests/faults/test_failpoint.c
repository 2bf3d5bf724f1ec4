/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/test_failpoint.c: the fail points of the test-only libraries
 * (common/killpoint.h): only the armed name reports true, only its passes are counted,
 * and arming again (or disarming) starts the count anew.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "common/killpoint.h"

static void test_only_the_armed_point_is_hit_and_counted(void **state)
{
	(void)state;
	xrma_failpoint_arm(NULL);
	assert_false(XRMA_FAIL_POINT("test.point.a"));
	assert_int_equal(xrma_failpoint_passes(), 0);
	xrma_failpoint_arm("test.point.a");
	assert_false(XRMA_FAIL_POINT("test.point.b"));
	assert_int_equal(xrma_failpoint_passes(), 0);
	assert_true(XRMA_FAIL_POINT("test.point.a"));
	assert_true(XRMA_FAIL_POINT("test.point.a"));
	assert_int_equal(xrma_failpoint_passes(), 2);
	xrma_failpoint_arm("test.point.b");
	assert_int_equal(xrma_failpoint_passes(), 0);
	assert_false(XRMA_FAIL_POINT("test.point.a"));
	assert_true(XRMA_FAIL_POINT("test.point.b"));
	assert_int_equal(xrma_failpoint_passes(), 1);
	xrma_failpoint_arm(NULL);
	assert_false(XRMA_FAIL_POINT("test.point.b"));
	assert_int_equal(xrma_failpoint_passes(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_the_armed_point_is_hit_and_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
