/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/errors.c: names and descriptions of the XRMA_E* codes. Codes that equal
 * an errno value describe themselves in xrma's words, not strerror's, so the
 * text is the same on every libc and thread-safe.
 */
#include <stddef.h>
#include <xrma/errors.h>

struct error_text {
	int code;
	const char *name;
	const char *text;
};

static const struct error_text error_texts[] = {
	{ XRMA_OK, "XRMA_OK", "success" },
	{ XRMA_EPERM, "XRMA_EPERM", "operation not permitted for these credentials" },
	{ XRMA_ENOENT, "XRMA_ENOENT", "no such segment, port or interrupt" },
	{ XRMA_EINTR, "XRMA_EINTR", "interrupted" },
	{ XRMA_EIO, "XRMA_EIO", "a system call failed unexpectedly" },
	{ XRMA_ENXIO, "XRMA_ENXIO", "offset not inside a registered window" },
	{ XRMA_EAGAIN, "XRMA_EAGAIN", "resource temporarily unavailable; try again" },
	{ XRMA_ENOMEM, "XRMA_ENOMEM", "out of memory" },
	{ XRMA_EACCES, "XRMA_EACCES", "access rights forbid the operation" },
	{ XRMA_EFAULT, "XRMA_EFAULT", "bad address" },
	{ XRMA_EBUSY, "XRMA_EBUSY", "object still in use" },
	{ XRMA_EEXIST, "XRMA_EEXIST", "already exists" },
	{ XRMA_ENODEV, "XRMA_ENODEV", "no such node" },
	{ XRMA_EINVAL, "XRMA_EINVAL", "invalid argument" },
	{ XRMA_ENOSPC, "XRMA_ENOSPC", "no space left in a table or provider limit" },
	{ XRMA_ERANGE, "XRMA_ERANGE", "offset or size out of range" },
	{ XRMA_EPROTO, "XRMA_EPROTO", "malformed control message" },
	{ XRMA_EOVERFLOW, "XRMA_EOVERFLOW", "value too large" },
	{ XRMA_EMSGSIZE, "XRMA_EMSGSIZE", "message too long" },
	{ XRMA_ENOTSUP, "XRMA_ENOTSUP", "not supported by this provider" },
	{ XRMA_EADDRINUSE, "XRMA_EADDRINUSE", "id, port or range already in use" },
	{ XRMA_ENETDOWN, "XRMA_ENETDOWN", "link is down" },
	{ XRMA_ECONNABORTED, "XRMA_ECONNABORTED", "connection aborted" },
	{ XRMA_ECONNRESET, "XRMA_ECONNRESET", "peer closed the connection or died" },
	{ XRMA_EISCONN, "XRMA_EISCONN", "already connected" },
	{ XRMA_ENOTCONN, "XRMA_ENOTCONN", "not connected" },
	{ XRMA_ETIMEDOUT, "XRMA_ETIMEDOUT", "timed out" },
	{ XRMA_ECONNREFUSED, "XRMA_ECONNREFUSED", "connection refused" },
	{ XRMA_EHOSTUNREACH, "XRMA_EHOSTUNREACH", "node does not answer" },
	{ XRMA_ECANCELED, "XRMA_ECANCELED", "cancelled" },
	{ XRMA_EHANDLE, "XRMA_EHANDLE", "invalid, stale or closed handle" },
	{ XRMA_EALIGN_OFFSET, "XRMA_EALIGN_OFFSET", "offset not suitably aligned" },
	{ XRMA_EALIGN_SIZE, "XRMA_EALIGN_SIZE", "size not suitably aligned" },
	{ XRMA_ESTATE, "XRMA_ESTATE", "object in the wrong state for this call" },
	{ XRMA_ELENGTH, "XRMA_ELENGTH", "local buffer shorter than the transfer" },
	{ XRMA_ENOTAVAIL, "XRMA_ENOTAVAIL", "object exists but is not available" },
	{ XRMA_ETRANSFER, "XRMA_ETRANSFER", "transfer failed" },
	{ XRMA_ELOST, "XRMA_ELOST", "peer lost" },
	{ XRMA_ENOPROV, "XRMA_ENOPROV", "no provider of that name" },
	{ XRMA_ECONFIG, "XRMA_ECONFIG", "invalid configuration value" },
};

static const struct error_text *find(int err)
{
	/* Negate in a wider type: -INT_MIN does not fit an int. */
	long long code = err < 0 ? -(long long)err : err;

	for (size_t i = 0; i < sizeof(error_texts) / sizeof(error_texts[0]); i++)
		if (error_texts[i].code == code)
			return &error_texts[i];
	return NULL;
}

const char *xrma_strerror(int err)
{
	const struct error_text *e = find(err);

	return e ? e->text : "unknown error";
}

const char *xrma_error_name(int err)
{
	const struct error_text *e = find(err);

	return e ? e->name : NULL;
}
