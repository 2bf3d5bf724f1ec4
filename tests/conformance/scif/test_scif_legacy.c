/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_legacy.c: a program written the way MPSS-era
 * SCIF programs were (the MPSS example programs, micperf-style benchmarks,
 * MPI transports over SCIF), compiled unchanged against our scif.h: only
 * <scif.h> and libc, the old names (portID_t, ACCEPT_SYNC, SEND_BLOCK,
 * RECV_BLOCK, SCIF_RMA_ORDER), posix_memalign buffers, a connect retry loop,
 * send/recv barriers, a fixed-offset window, RMA with a fence signal polled on
 * a volatile flag, scif_get_fd under select(). The server runs on a thread of
 * this process, on a fixed port. The cmocka test runs the two halves.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>
#include <scif.h>

/* ---- the legacy program: nothing below uses xrma or the test helpers ---- */

#define PAGE_SIZE 0x1000
#define BUF_SIZE (16 * PAGE_SIZE)
#define WIN_OFFSET 0x80000
#define FLAG_OFFSET (WIN_OFFSET + BUF_SIZE)
#define LEGACY_PORT 2050
#define MAX_RETRIES 200

#define CHECK(cond, what)                                                           \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "%s failed: %s\n", what, strerror(errno));  \
			return -1;                                                  \
		}                                                                   \
	} while (0)

static int barrier(scif_epd_t epd)
{
	int token = 0x12345678, got = 0;

	if (scif_send(epd, &token, sizeof(token), SEND_BLOCK) != sizeof(token))
		return -1;
	if (scif_recv(epd, &got, sizeof(got), RECV_BLOCK) != sizeof(got))
		return -1;
	return got == token ? 0 : -1;
}

static volatile int server_port_ready;

static int legacy_server(void)
{
	scif_epd_t epd, newepd;
	portID_t portID;
	void *buf;
	volatile uint64_t *flag;
	off_t off;
	unsigned int i;
	int err = 0;

	epd = scif_open();
	CHECK(epd != SCIF_OPEN_FAILED, "scif_open");
	CHECK(scif_bind(epd, LEGACY_PORT) == LEGACY_PORT, "scif_bind");
	CHECK(scif_listen(epd, 1) == 0, "scif_listen");
	server_port_ready = 1;
	CHECK(scif_accept(epd, &portID, &newepd, ACCEPT_SYNC) == 0, "scif_accept");

	err = posix_memalign(&buf, PAGE_SIZE, BUF_SIZE + PAGE_SIZE);
	CHECK(err == 0, "posix_memalign");
	memset(buf, 0, BUF_SIZE + PAGE_SIZE);
	flag = (volatile uint64_t *)((char *)buf + BUF_SIZE);
	off = scif_register(newepd, buf, BUF_SIZE + PAGE_SIZE, WIN_OFFSET,
			    SCIF_PROT_READ | SCIF_PROT_WRITE, SCIF_MAP_FIXED);
	CHECK(off == WIN_OFFSET, "scif_register");
	CHECK(barrier(newepd) == 0, "barrier 1");

	/* The client writes, then signals; the data is there once the flag is. */
	while (*flag != 0xabcdULL)
		;
	for (i = 0; i < BUF_SIZE; i++)
		if (((unsigned char *)buf)[i] != (unsigned char)(i % 251))
			break;
	CHECK(i == BUF_SIZE, "data check");
	/* Before the last barrier: once past it the peer may close, and then ECONNRESET. */
	CHECK(scif_unregister(newepd, WIN_OFFSET, BUF_SIZE + PAGE_SIZE) == 0, "scif_unregister");
	CHECK(barrier(newepd) == 0, "barrier 2");

	CHECK(scif_close(newepd) == 0, "scif_close");
	CHECK(scif_close(epd) == 0, "scif_close");
	free(buf);
	return 0;
}

static int legacy_client(uint16_t node)
{
	struct scif_portID portID;
	struct timeval tv;
	scif_epd_t epd;
	fd_set rfds;
	void *buf;
	off_t off;
	int tries = MAX_RETRIES, err, mark;
	unsigned int i;

	epd = scif_open();
	CHECK(epd != SCIF_OPEN_FAILED, "scif_open");
	portID.node = node;
	portID.port = LEGACY_PORT;
	/* The classic loop: the server may not listen yet. */
	while ((err = scif_connect(epd, &portID)) < 0) {
		if ((errno == ECONNREFUSED) && (tries > 0)) {
			tries--;
			usleep(10000);
			continue;
		}
		break;
	}
	CHECK(err >= 0, "scif_connect");

	err = posix_memalign(&buf, PAGE_SIZE, BUF_SIZE);
	CHECK(err == 0, "posix_memalign");
	for (i = 0; i < BUF_SIZE; i++)
		((unsigned char *)buf)[i] = (unsigned char)(i % 251);
	off = scif_register(epd, buf, BUF_SIZE, 0, SCIF_PROT_READ | SCIF_PROT_WRITE, 0);
	CHECK(off != SCIF_REGISTER_FAILED, "scif_register");
	CHECK(barrier(epd) == 0, "barrier 1");

	CHECK(scif_writeto(epd, off, BUF_SIZE / 2, WIN_OFFSET, SCIF_RMA_ORDER) == 0, "scif_writeto");
	CHECK(scif_vwriteto(epd, (char *)buf + BUF_SIZE / 2, BUF_SIZE / 2, WIN_OFFSET + BUF_SIZE / 2,
			    SCIF_RMA_USECPU) == 0, "scif_vwriteto");
	CHECK(scif_fence_mark(epd, SCIF_FENCE_INIT_SELF, &mark) == 0, "scif_fence_mark");
	CHECK(scif_fence_wait(epd, mark) == 0, "scif_fence_wait");
	CHECK(scif_fence_signal(epd, 0, 0, FLAG_OFFSET, 0xabcdULL,
				SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE) == 0, "scif_fence_signal");

	/* The server's barrier token makes our descriptor readable. */
	FD_ZERO(&rfds);
	FD_SET(scif_get_fd(epd), &rfds);
	tv.tv_sec = 10;
	tv.tv_usec = 0;
	CHECK(select(scif_get_fd(epd) + 1, &rfds, NULL, NULL, &tv) == 1, "select");
	CHECK(scif_unregister(epd, off, BUF_SIZE) == 0, "scif_unregister");
	CHECK(barrier(epd) == 0, "barrier 2");

	CHECK(scif_close(epd) == 0, "scif_close");
	free(buf);
	return 0;
}

/* ---- the test harness ---- */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "tests/conformance/scif/scif_test.h"

static void *server_main(void *arg)
{
	*(int *)arg = legacy_server();
	return NULL;
}

static void test_scif_legacy_program_runs_unchanged(void **state)
{
	pthread_t thread;
	int server_rc = 1;

	(void)state;
	assert_int_equal(pthread_create(&thread, NULL, server_main, &server_rc), 0);
	assert_int_equal(legacy_client(scif_test_self()), 0);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_int_equal(server_rc, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scif_legacy_program_runs_unchanged),
	};

	scif_test_env("scif-legacy");
	return cmocka_run_group_tests_name("scif_legacy", tests, NULL, NULL);
}
