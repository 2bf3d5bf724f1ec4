/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/detail.c: the per-thread failure detail (common/detail.h,
 * xrma_error_detail in errors.h). Thread-local, so concurrent callers never
 * see each other's text.
 */
#include "common/detail.h"

#include <stdio.h>
#include <xrma/errors.h>

static __thread char detail_text[256];

void xrma_detail_vset(const char *fmt, va_list ap)
{
	vsnprintf(detail_text, sizeof(detail_text), fmt, ap);
}

void xrma_detail_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xrma_detail_vset(fmt, ap);
	va_end(ap);
}

const char *xrma_error_detail(void)
{
	return detail_text;
}

void xrma_error_detail_clear(void)
{
	detail_text[0] = '\0';
}
