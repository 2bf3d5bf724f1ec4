/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/errors.h: the one error enum of the core.
 * Every core call returns 0 (or a non-negative count) on success and a negative
 * XRMA_E* code on failure. Codes equal errno where POSIX has the word; xrma's
 * own codes start at 256. Each personality maps them in one table.
 */
#ifndef XRMA_ERRORS_H
#define XRMA_ERRORS_H

#include <errno.h>
#include <xrma/api.h>

XRMA_BEGIN_DECLS

enum xrma_error {
	XRMA_OK = 0,
	XRMA_EPERM = EPERM,               /* caller may not do this (credentials) */
	XRMA_ENOENT = ENOENT,             /* no such id (segment, port, interrupt) */
	XRMA_EINTR = EINTR,
	XRMA_EIO = EIO,                   /* the operating system refused unexpectedly */
	XRMA_ENXIO = ENXIO,               /* offset not inside a registered window */
	XRMA_EAGAIN = EAGAIN,             /* would block / queue full; retry */
	XRMA_ENOMEM = ENOMEM,
	XRMA_EACCES = EACCES,             /* access rights forbid the operation */
	XRMA_EFAULT = EFAULT,
	XRMA_EBUSY = EBUSY,               /* object still has users or children */
	XRMA_EEXIST = EEXIST,
	XRMA_ENODEV = ENODEV,             /* no such node / node lost */
	XRMA_EINVAL = EINVAL,             /* bad argument (NULL, flags, value) */
	XRMA_ENOSPC = ENOSPC,             /* a table or provider limit is full */
	XRMA_ERANGE = ERANGE,             /* offset or size outside the object */
	XRMA_EPROTO = EPROTO,             /* malformed control message */
	XRMA_EOVERFLOW = EOVERFLOW,
	XRMA_EMSGSIZE = EMSGSIZE,
	XRMA_ENOTSUP = EOPNOTSUPP,        /* provider lacks the capability */
	XRMA_EADDRINUSE = EADDRINUSE,     /* id, port or offset range taken */
	XRMA_ENETDOWN = ENETDOWN,         /* link down */
	XRMA_ECONNABORTED = ECONNABORTED,
	XRMA_ECONNRESET = ECONNRESET,     /* peer closed or died */
	XRMA_EISCONN = EISCONN,
	XRMA_ENOTCONN = ENOTCONN,
	XRMA_ETIMEDOUT = ETIMEDOUT,
	XRMA_ECONNREFUSED = ECONNREFUSED, /* nobody listens / peer refused */
	XRMA_EHOSTUNREACH = EHOSTUNREACH, /* node exists but does not answer */
	XRMA_ECANCELED = ECANCELED,       /* aborted or object closed while waiting */

	XRMA_ERRNO_MAX = 255,
	XRMA_EHANDLE = 256,               /* stale, closed, forged or wrong-type handle */
	XRMA_EALIGN_OFFSET,               /* offset violates the required alignment */
	XRMA_EALIGN_SIZE,                 /* size violates the required alignment */
	XRMA_ESTATE,                      /* object is in the wrong state */
	XRMA_ELENGTH,                     /* local vector shorter than the transfer */
	XRMA_ENOTAVAIL,                   /* object exists but is not available */
	XRMA_ETRANSFER,                   /* transfer failed on the way (retriable) */
	XRMA_ELOST,                       /* peer lost: the object is dead for good */
	XRMA_ENOPROV,                     /* no provider of that name */
	XRMA_ECONFIG,                     /* configuration value invalid */
	XRMA_EMAX_                        /* one past the last; not an error */
};

/*
 * A static description of a code (positive or negative), never NULL.
 * Unknown codes give "unknown error".
 */
XRMA_API const char *xrma_strerror(int err);

/* The symbolic name ("XRMA_EBUSY") of a code, or NULL for an unknown code. */
XRMA_API const char *xrma_error_name(int err);

/*
 * Words for the last failure on this thread where a code alone would not say
 * enough (the limit or setting that refused it), or "" if none was given.
 * Meaningful right after a call failed; xrma_error_detail_clear empties it.
 */
XRMA_API const char *xrma_error_detail(void);
XRMA_API void xrma_error_detail_clear(void);

XRMA_END_DECLS

#endif
