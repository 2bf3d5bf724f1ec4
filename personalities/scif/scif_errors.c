/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/scif/scif_errors.c: the one place where core codes become SCIF
 * errno values (STYLE.md habit 4). Codes that equal errno pass through; the
 * xrma-only codes get the errno the MPSS man pages give for that situation.
 * Calls with a more specific rule (bind, connect) decide before they come here.
 */
#include <errno.h>
#include "personalities/scif/scif_internal.h"

static const struct {
	int core;
	int err;
} xrma_scif_errors[] = {
	{ XRMA_EHANDLE, EBADF },
	{ XRMA_EALIGN_OFFSET, EINVAL },
	{ XRMA_EALIGN_SIZE, EINVAL },
	{ XRMA_ESTATE, EINVAL },
	{ XRMA_ELENGTH, EINVAL },
	{ XRMA_ENOTAVAIL, ENXIO },
	{ XRMA_ETRANSFER, EIO },
	{ XRMA_ELOST, ECONNRESET },
	{ XRMA_ENOPROV, ENODEV },
	{ XRMA_ECONFIG, EINVAL },
	/* The endpoint was closed under a blocked call: the guide's wake-up with ECONNRESET. */
	{ XRMA_ECANCELED, ECONNRESET },
	/* Outside the object is outside the registered address space. */
	{ XRMA_ERANGE, ENXIO },
	/* Tables full: SCIF reports resource shortage as ENOMEM. */
	{ XRMA_ENOSPC, ENOMEM },
	{ XRMA_EHOSTUNREACH, ENODEV },
	{ XRMA_ENETDOWN, ENODEV },
	{ XRMA_EPROTO, ECONNRESET },
};

int xrma_scif_errno(int core)
{
	int code = core < 0 ? -core : core;

	for (size_t i = 0; i < sizeof(xrma_scif_errors) / sizeof(xrma_scif_errors[0]); i++)
		if (xrma_scif_errors[i].core == code)
			return xrma_scif_errors[i].err;
	if (code > 0 && code <= XRMA_ERRNO_MAX)
		return code;
	return EIO;
}

_Thread_local unsigned xrma_scif_failures;

int xrma_scif_fail_errno(int err)
{
	xrma_scif_failures++;
	errno = err;
	return -1;
}

int xrma_scif_fail(int core)
{
	return xrma_scif_fail_errno(xrma_scif_errno(core));
}
