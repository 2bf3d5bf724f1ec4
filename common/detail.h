/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/detail.h: the per-thread text that explains the last failure in words
 * (which limit, which setting), read back by xrma_error_detail(). Providers set
 * it where a bare code would leave a user guessing.
 */
#ifndef XRMA_COMMON_DETAIL_H
#define XRMA_COMMON_DETAIL_H

#include <stdarg.h>
#include <xrma/api.h>

void xrma_detail_vset(const char *fmt, va_list ap);
/* Exported so that the faces' libraries can explain their own refusals too. */
XRMA_API void xrma_detail_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
