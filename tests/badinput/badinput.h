/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/badinput/badinput.h: the harness of the bad-input matrix. Each API's program
 * includes the cases gen_matrix.awk made from matrix.def and gives a fixture: up builds
 * a valid set of objects, check asserts they are exactly as built (bytes, handles, states),
 * down removes them and fails if anything else was left behind. bi_run makes one cmocka
 * test per case, each on a fresh fixture and under a watchdog, so a hang fails too and
 * says where.
 */
#ifndef XRMA_TEST_BADINPUT_H
#define XRMA_TEST_BADINPUT_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

struct bi_fx;

struct bi_case {
	const char *label;                   /* "Function(position:kind=class)" */
	long (*call)(struct bi_fx *F);
	long expected;
};

struct bi_api {
	const char *name;
	const struct bi_case *cases;
	size_t count;
	struct bi_fx *(*up)(void);           /* NULL on failure (printed) */
	void (*check)(struct bi_fx *F);      /* asserts nothing changed */
	int (*down)(struct bi_fx *F);        /* 0, or -1 when objects were left behind */
	const char *(*describe)(long code);  /* a code's name, for messages */
};

/* A handle value no library handed out. */
#define BI_FORGED(type) ((type)(uintptr_t)0x5a5a5a5a5a5a5a5aull)
/* Timeouts given to blocking calls: a call that wrongly blocks returns soon. */
#define BI_SHORT_MS 20u
/* Seconds each step of a case (set-up, call and check, teardown) may take before the
 * watchdog ends the program, naming the case and printing the threads' stacks. */
#define BI_CASE_ALARM_S 20u

/* Run every case of api as a cmocka group; returns the number of failures. */
int bi_run(const struct bi_api *api);

#endif
