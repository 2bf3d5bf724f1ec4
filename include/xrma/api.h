/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/api.h: export and attribute macros shared by every public header.
 * The library is built with -fvisibility=hidden; only declarations marked
 * XRMA_API are exported (and the version script keeps them under XRMA_0.1).
 */
#ifndef XRMA_API_H
#define XRMA_API_H

#if defined(__GNUC__) || defined(__clang__)
#define XRMA_API __attribute__((visibility("default")))
#define XRMA_NODISCARD __attribute__((warn_unused_result))
#else
#define XRMA_API
#define XRMA_NODISCARD
#endif

#ifdef __cplusplus
#define XRMA_BEGIN_DECLS extern "C" {
#define XRMA_END_DECLS }
#else
#define XRMA_BEGIN_DECLS
#define XRMA_END_DECLS
#endif

/* Timeouts are in milliseconds; this one waits for ever. 0 polls once. */
#define XRMA_TIMEOUT_INFINITE (-1)

/* Wildcard for ids chosen by the core (segment ids, ports, interrupt numbers). */
#define XRMA_ID_ANY UINT64_MAX

#endif
