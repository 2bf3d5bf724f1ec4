/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/scif_test.h: helpers shared by the SCIF conformance
 * programs: the process environment (a fabric unique to the program, this
 * process as node 0, the host), connected endpoint pairs on the local node
 * (the accept runs on a thread, as scif_connect returns once accepted),
 * page-aligned buffers and errno assertions. Public SCIF API only.
 */
#ifndef XRMA_SCIF_TEST_H
#define XRMA_SCIF_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <scif.h>
#include "tests/helpers/proc.h"

#define SCIF_TEST_PAGE 4096u
/* How long another thread or process may take: stretched under the sanitizers. */
#define SCIF_TEST_TIMEOUT_MS proc_scaled_ms(5000)

/* Assert that call failed with -1 (or the sentinel) and errno err. */
#define assert_scif_errno(call, err) \
	scif_test_assert_errno((long)(call), (err), #call, __FILE__, __LINE__)
/* Assert that call returned 0. */
#define assert_scif_ok(call) scif_test_assert_ok((long)(call), #call, __FILE__, __LINE__)

void scif_test_assert_errno(long rc, int err, const char *expr, const char *file, int line);
void scif_test_assert_ok(long rc, const char *expr, const char *file, int line);

/* Point libscif at a fabric of our own as node 0; call first thing in main. */
void scif_test_env(const char *tag);

struct scif_test_pair {
	scif_epd_t listener;
	scif_epd_t client;
	scif_epd_t server;
	uint16_t port;
	struct scif_portID server_peer;   /* what scif_accept reported */
	uint16_t client_port;             /* what scif_connect returned */
};

/* A listener on a free port, a client connected to it, and the accepted end. */
void scif_test_pair_open(struct scif_test_pair *p);
void scif_test_pair_close(struct scif_test_pair *p);

/* A connect running on a thread (scif_connect returns once accepted). */
struct scif_test_connector {
	scif_epd_t epd;          /* opened by start */
	struct scif_portID dst;
	void *thread;            /* pthread_t, kept opaque here */
	int rc;
	int err;
	uint16_t port;           /* what a successful scif_connect returned */
};
void scif_test_connect_start(struct scif_test_connector *c, uint16_t node, uint16_t port);
/* 0 (the local port is then in c->port), or -1 with errno as scif_connect left it. */
int scif_test_connect_finish(struct scif_test_connector *c);

/* Wait until epd sees its peer gone (SCIF_POLLHUP); the close travels asynchronously. */
void scif_test_wait_hup(scif_epd_t epd);

/* This process's node id. */
uint16_t scif_test_self(void);

/*
 * Zeroed pages of an anonymous mapping of their own, as SCIF programs get from
 * mmap or from the allocator for large blocks (libscif moves such memory onto
 * shareable pages at registration; the brk heap it registers in place).
 * Free with scif_test_free.
 */
void *scif_test_pages(size_t pages);
void scif_test_free(void *pages);

/* Wait up to timeout_ms for *word to equal want: 0 or ETIMEDOUT. */
int scif_test_wait_u64(const volatile uint64_t *word, uint64_t want, int timeout_ms);

#endif
