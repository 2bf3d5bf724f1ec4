/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/test_pximc_errors.c: the vendor library's one error table
 * (personalities/pximc/pximc_errors.c, compiled into this test): every core code maps to a
 * PXImc status (an error, or the caller's fallback), the named rows map as documented, and
 * success stays success.
 */
#include "tests/conformance/pximc/pximc_test.h"
#include "personalities/pximc/pximc_vendor.h"

static void test_every_core_code_maps_to_an_error_or_the_fallback(void **state)
{
	(void)state;
	for (int code = 1; code < XRMA_EMAX_; code++) {
		tPXIMC_Status status = xrma_pximc_status(-code, PXIMC_INVALID_RESOURCE);

		assert_true(status < 0);
		assert_true(status >= PXIMC_INSUFFICIENT_SPACE && status <= PXIMC_ALIGNMENT_ERROR);
	}
}

static void test_named_codes_map_as_documented(void **state)
{
	(void)state;
	assert_px(xrma_pximc_status(0, PXIMC_NO_PAIRING), PXIMC_SUCCESS);
	assert_px(xrma_pximc_status(-XRMA_EINVAL, PXIMC_NO_PAIRING), PXIMC_INVALID_ARGUMENT);
	assert_px(xrma_pximc_status(-XRMA_ECONNREFUSED, PXIMC_NO_PAIRING), PXIMC_INTERFACE_DOWN);
	assert_px(xrma_pximc_status(-XRMA_ENODEV, PXIMC_NO_PAIRING), PXIMC_INVALID_INTERFACE);
	assert_px(xrma_pximc_status(-XRMA_ENOSPC, PXIMC_NO_PAIRING), PXIMC_SPACE_NOT_AVAILABLE);
	assert_px(xrma_pximc_status(-XRMA_ELOST, PXIMC_NO_PAIRING), PXIMC_SESSION_CLOSED);
	assert_px(xrma_pximc_status(-XRMA_ECONNRESET, PXIMC_NO_PAIRING), PXIMC_SESSION_CLOSED);
	assert_px(xrma_pximc_status(-XRMA_EHANDLE, PXIMC_NO_PAIRING), PXIMC_INVALID_SESSION);
	assert_px(xrma_pximc_status(-XRMA_ENOTSUP, PXIMC_NO_PAIRING),
		  PXIMC_PHY_RESOURCE_NOT_AVAILABLE);
	assert_px(xrma_pximc_status(-XRMA_EPROTO, PXIMC_NO_PAIRING), PXIMC_NO_PAIRING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_core_code_maps_to_an_error_or_the_fallback),
		cmocka_unit_test(test_named_codes_map_as_documented),
	};

	return cmocka_run_group_tests_name("pximc_errors", tests, NULL, NULL);
}
