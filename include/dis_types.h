/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/dis_types.h: the small types and limits of Dolphin's DIS software
 * that SISCI programs include beside sisci_api.h: fixed-width integers under
 * Dolphin's names and the adapter count DIS_MAX_NSCIS. Installed beside
 * sisci_api.h and as dis/dis_types.h, the two ways programs include it.
 * Values and choices are in docs/sisci.md.
 */
#ifndef DIS_TYPES_H
#define DIS_TYPES_H

#include <stdint.h>

typedef uint8_t unsigned8;
typedef uint16_t unsigned16;
typedef uint32_t unsigned32;
typedef uint64_t unsigned64;
typedef int8_t signed8;
typedef int16_t signed16;
typedef int32_t signed32;
typedef int64_t signed64;

/* Adapters a process can name (localAdapterNo 0 .. DIS_MAX_NSCIS - 1). */
#define DIS_MAX_NSCIS 8

#endif
