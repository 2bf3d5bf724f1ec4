/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/fuzz/fuzz.h: the one entry every fuzz target defines (libFuzzer's name),
 * so the same file builds as a libFuzzer target with clang (make fuzz) and as a
 * replay program with the project's compiler (replay.c, in make check).
 */
#ifndef XRMA_TEST_FUZZ_H
#define XRMA_TEST_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Feed one input; returns 0. A finding aborts (or trips a sanitizer). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
