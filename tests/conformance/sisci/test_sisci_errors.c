/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/test_sisci_errors.c: the error table of libsisci
 * (personalities/sisci/sisci_errors.c) names every core code explicitly, and
 * every SISCI error has a text.
 */
#include "tests/helpers/fixture.h"
#include "personalities/sisci/sisci.h"

static void test_every_core_code_is_mapped(void **state)
{
	(void)state;
	for (int code = 0; code < XRMA_EMAX_; code++) {
		if (!xrma_error_name(-code))
			continue;
		if (!xrma_sisci_error_known(-code))
			print_error("core code %s has no SISCI mapping\n", xrma_error_name(-code));
		assert_true(xrma_sisci_error_known(-code));
	}
	assert_int_equal(xrma_sisci_error(0, XRMA_SISCI_DOMAIN_SEGMENT), SCI_ERR_OK);
	assert_int_equal(xrma_sisci_error(-XRMA_ENOENT, XRMA_SISCI_DOMAIN_INTERRUPT), SCI_ERR_NO_SUCH_INTNO);
	assert_int_equal(xrma_sisci_error(-XRMA_EADDRINUSE, XRMA_SISCI_DOMAIN_SEGMENT), SCI_ERR_SEGMENTID_USED);
	assert_int_equal(xrma_sisci_error(-9999, XRMA_SISCI_DOMAIN_SEGMENT), SCI_ERR_SYSTEM);
}

static void test_every_sisci_code_has_text(void **state)
{
	static const sci_error_t all[] = {
		SCI_ERR_BUSY, SCI_ERR_FLAG_NOT_IMPLEMENTED, SCI_ERR_ILLEGAL_FLAG, SCI_ERR_NOSPC,
		SCI_ERR_API_NOSPC, SCI_ERR_HW_NOSPC, SCI_ERR_NOT_IMPLEMENTED, SCI_ERR_TIMEOUT,
		SCI_ERR_OUT_OF_RANGE, SCI_ERR_NO_SUCH_SEGMENT, SCI_ERR_CONNECTION_REFUSED,
		SCI_ERR_SEGMENT_NOT_CONNECTED, SCI_ERR_SIZE_ALIGNMENT, SCI_ERR_OFFSET_ALIGNMENT,
		SCI_ERR_ILLEGAL_PARAMETER, SCI_ERR_MAX_ENTRIES, SCI_ERR_SEGMENT_NOT_PREPARED,
		SCI_ERR_ILLEGAL_ADDRESS, SCI_ERR_ILLEGAL_OPERATION, SCI_ERR_ILLEGAL_QUERY,
		SCI_ERR_SEGMENTID_USED, SCI_ERR_SYSTEM, SCI_ERR_CANCELLED, SCI_ERR_INTNO_USED,
		SCI_ERR_NO_SUCH_INTNO, SCI_ERR_NO_LINK_ACCESS, SCI_ERR_NO_REMOTE_LINK_ACCESS,
		SCI_ERR_TRANSFER_FAILED,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		assert_true(all[i] & SCI_ERR_MASK);
		assert_string_not_equal(SCIGetErrorString(all[i]), "unknown SISCI error");
	}
}

static void test_flag_check_order(void **state)
{
	(void)state;
	assert_int_equal(xrma_sisci_flags(0, 0, 0), SCI_ERR_OK);
	assert_int_equal(xrma_sisci_flags(1, 0, 0), SCI_ERR_ILLEGAL_FLAG);
	assert_int_equal(xrma_sisci_flags(2, 2, 2), SCI_ERR_FLAG_NOT_IMPLEMENTED);
	assert_int_equal(xrma_sisci_timeout(SCI_INFINITE_TIMEOUT), XRMA_TIMEOUT_INFINITE);
	assert_int_equal(xrma_sisci_timeout(5), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_core_code_is_mapped),
		cmocka_unit_test(test_every_sisci_code_has_text),
		cmocka_unit_test(test_flag_check_order),
	};

	return cmocka_run_group_tests_name("sisci_errors", tests, NULL, NULL);
}
