/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/errno_keep.h: the caller's errno survives every successful call of a
 * face (SCIF, SISCI, PXImc). The core and the system calls under it set errno
 * on paths that end well (a configuration file looked up and absent, a socket
 * written after its peer left), and programs read errno after their last call.
 * Each public entry opens an XRMA_ERRNO_KEEP guard; when the call returns, the
 * guard puts the saved errno back unless the face reported a failure through
 * errno meanwhile (SCIF counts those; SISCI and PXImc never report in errno).
 */
#ifndef XRMA_COMMON_ERRNO_KEEP_H
#define XRMA_COMMON_ERRNO_KEEP_H

#include <errno.h>
#include <stddef.h>

struct xrma_errno_keep {
	int saved;                   /* the caller's errno at entry */
	const unsigned *failures;    /* the face's per-thread count of errno reports, or NULL */
	unsigned failures_at_entry;
};

static inline struct xrma_errno_keep xrma_errno_keep_begin(const unsigned *failures)
{
	struct xrma_errno_keep keep = { .saved = errno, .failures = failures };

	if (failures)
		keep.failures_at_entry = *failures;
	return keep;
}

static inline void xrma_errno_keep_end(struct xrma_errno_keep *keep)
{
	if (!keep->failures || *keep->failures == keep->failures_at_entry)
		errno = keep->saved;
}

/*
 * First statement of a public call. failures: the face's thread-local count
 * of failures reported in errno, or NULL when the face never reports there.
 * The cleanup runs after the return value is computed, on every return path.
 */
#define XRMA_ERRNO_KEEP(failures)                                                                 \
	struct xrma_errno_keep xrma_errno_keep_guard __attribute__((cleanup(xrma_errno_keep_end))) = \
		xrma_errno_keep_begin(failures)

#endif
