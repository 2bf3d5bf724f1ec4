/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_errors.c: the one table from core error codes (negated
 * XRMA_E*) to PXImc status codes. Codes the table does not name take the caller's
 * fallback, the status its function documents for "anything else went wrong".
 */
#include "personalities/pximc/pximc_vendor.h"

static const struct {
	int core;
	tPXIMC_Status pximc;
} xrma_pximc_errors[] = {
	{ XRMA_OK, PXIMC_SUCCESS },
	{ XRMA_EINVAL, PXIMC_INVALID_ARGUMENT },
	{ XRMA_ENODEV, PXIMC_INVALID_INTERFACE },
	{ XRMA_ECONNREFUSED, PXIMC_INTERFACE_DOWN },
	{ XRMA_EHOSTUNREACH, PXIMC_INTERFACE_DOWN },
	{ XRMA_ETIMEDOUT, PXIMC_INTERFACE_DOWN },
	{ XRMA_ENETDOWN, PXIMC_INTERFACE_DOWN },
	{ XRMA_ENOMEM, PXIMC_SPACE_NOT_AVAILABLE },
	{ XRMA_ENOSPC, PXIMC_SPACE_NOT_AVAILABLE },
	{ XRMA_ERANGE, PXIMC_SPACE_NOT_AVAILABLE },
	{ XRMA_EADDRINUSE, PXIMC_UID_CONFLICT },
	{ XRMA_ECONNRESET, PXIMC_SESSION_CLOSED },
	{ XRMA_ELOST, PXIMC_SESSION_CLOSED },
	{ XRMA_ENOTCONN, PXIMC_SESSION_CLOSED },
	{ XRMA_EHANDLE, PXIMC_INVALID_SESSION },
	{ XRMA_ENOTSUP, PXIMC_PHY_RESOURCE_NOT_AVAILABLE },
};

tPXIMC_Status xrma_pximc_status(int core_err, tPXIMC_Status fallback)
{
	int code = core_err < 0 ? -core_err : core_err;

	for (size_t i = 0; i < sizeof(xrma_pximc_errors) / sizeof(xrma_pximc_errors[0]); i++)
		if (xrma_pximc_errors[i].core == code)
			return xrma_pximc_errors[i].pximc;
	return fallback;
}
