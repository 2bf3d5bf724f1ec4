/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_msg.c: the messaging layer (§3.4, §3.10):
 * an ordered byte stream (no message boundaries), blocking calls that move
 * everything, non-blocking ones that move what fits (0 when nothing does),
 * argument errors, ENOTCONN before connecting, draining after the peer closed
 * and then ECONNRESET, and a blocked receive woken by the peer's close.
 */
#include "tests/conformance/scif/scif_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "tests/helpers/fixture.h"

static void test_scif_send_recv_is_an_ordered_byte_stream(void **state)
{
	struct scif_test_pair p;
	char out[] = "abcdefgh", in[8] = { 0 };

	(void)state;
	scif_test_pair_open(&p);
	assert_int_equal(scif_send(p.client, out, 3, SCIF_SEND_BLOCK), 3);
	assert_int_equal(scif_send(p.client, out + 3, 5, SCIF_SEND_BLOCK), 5);
	/* Boundaries are not kept: one receive takes both sends. */
	assert_int_equal(scif_recv(p.server, in, 8, SCIF_RECV_BLOCK), 8);
	assert_memory_equal(in, out, 8);
	/* And both directions work. */
	assert_int_equal(scif_send(p.server, out, 8, SCIF_SEND_BLOCK), 8);
	struct scif_pollepd pe = { .epd = p.client, .events = SCIF_POLLIN };
	assert_int_equal(scif_poll(&pe, 1, SCIF_TEST_TIMEOUT_MS), 1);
	assert_int_equal(scif_recv(p.client, in, 2, 0), 2);
	assert_int_equal(scif_recv(p.client, in + 2, 6, SCIF_RECV_BLOCK), 6);
	assert_memory_equal(in, out, 8);
	scif_test_pair_close(&p);
}

static void test_scif_recv_nonblocking_returns_what_is_queued(void **state)
{
	struct scif_test_pair p;
	char buf[16];

	(void)state;
	scif_test_pair_open(&p);
	assert_int_equal(scif_recv(p.server, buf, 16, 0), 0);
	assert_int_equal(scif_send(p.client, "xyz", 3, 0), 3);
	struct scif_pollepd pe = { .epd = p.server, .events = SCIF_POLLIN };
	assert_int_equal(scif_poll(&pe, 1, SCIF_TEST_TIMEOUT_MS), 1);
	/* Only what is there: 3 of the 16 asked for. */
	assert_int_equal(scif_recv(p.server, buf, 16, 0), 3);
	assert_memory_equal(buf, "xyz", 3);
	scif_test_pair_close(&p);
}

static void test_scif_send_nonblocking_is_partial_when_full(void **state)
{
	struct scif_test_pair p;
	size_t big = 1 << 20, sent = 0, got = 0;
	char *buf = malloc(big), *in = malloc(big);
	int n;

	(void)state;
	assert_non_null(buf);
	assert_non_null(in);
	fixture_pattern(buf, big, 3, 0);
	scif_test_pair_open(&p);
	n = scif_send(p.client, buf, (int)big, 0);
	assert_true(n > 0 && (size_t)n < big);
	sent = (size_t)n;
	/* Nothing more fits until the receiver reads. */
	assert_int_equal(scif_send(p.client, buf + sent, (int)(big - sent), 0), 0);
	while (got < big) {
		n = scif_recv(p.server, in + got, (int)(big - got), 0);
		assert_true(n >= 0);
		got += (size_t)n;
		if (sent < big) {
			n = scif_send(p.client, buf + sent, (int)(big - sent), 0);
			assert_true(n >= 0);
			sent += (size_t)n;
		}
	}
	assert_int_equal(fixture_pattern_check(in, big, 3, 0), FIXTURE_MATCH);
	scif_test_pair_close(&p);
	free(buf);
	free(in);
}

struct reader {
	scif_epd_t epd;
	char *buf;
	int len;
	int rc;
	int err;
	pid_t tid;   /* set once running */
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	__atomic_store_n(&r->tid, fixture_gettid(), __ATOMIC_RELEASE);
	r->rc = scif_recv(r->epd, r->buf, r->len, SCIF_RECV_BLOCK);
	r->err = errno;
	return NULL;
}

static void test_scif_send_blocking_moves_a_large_message(void **state)
{
	struct scif_test_pair p;
	int big = 4 << 20;
	char *buf = malloc((size_t)big), *in = malloc((size_t)big);
	struct reader r = { .buf = in, .len = big };
	pthread_t thread;

	(void)state;
	fixture_pattern(buf, (size_t)big, 9, 0);
	scif_test_pair_open(&p);
	r.epd = p.server;
	assert_int_equal(pthread_create(&thread, NULL, reader_main, &r), 0);
	assert_int_equal(scif_send(p.client, buf, big, SCIF_SEND_BLOCK), big);
	assert_int_equal(fixture_join(thread, SCIF_TEST_TIMEOUT_MS, NULL), 0);
	assert_int_equal(r.rc, big);
	assert_int_equal(fixture_pattern_check(in, (size_t)big, 9, 0), FIXTURE_MATCH);
	scif_test_pair_close(&p);
	free(buf);
	free(in);
}

static void test_scif_send_recv_bad_arguments(void **state)
{
	struct scif_test_pair p;
	char buf[4];

	(void)state;
	scif_test_pair_open(&p);
	assert_scif_errno(scif_send(p.client, buf, -1, 0), EINVAL);
	assert_scif_errno(scif_recv(p.client, buf, -1, 0), EINVAL);
	assert_scif_errno(scif_send(p.client, buf, 4, 2), EINVAL);
	assert_scif_errno(scif_recv(p.client, buf, 4, 0x100), EINVAL);
	assert_scif_errno(scif_send(p.client, NULL, 4, 0), EFAULT);
	assert_int_equal(scif_send(p.client, buf, 0, 0), 0);
	/* Listening and unconnected endpoints do not carry messages. */
	assert_scif_errno(scif_send(p.listener, buf, 4, 0), ENOTCONN);
	scif_epd_t lone = scif_open();
	assert_scif_errno(scif_recv(lone, buf, 4, 0), ENOTCONN);
	assert_scif_ok(scif_close(lone));
	scif_test_pair_close(&p);
}

static void test_scif_recv_drains_after_peer_close_then_econnreset(void **state)
{
	struct scif_test_pair p;
	char buf[8];

	(void)state;
	scif_test_pair_open(&p);
	assert_int_equal(scif_send(p.client, "12345678", 8, SCIF_SEND_BLOCK), 8);
	assert_scif_ok(scif_close(p.client));
	p.client = -1;
	/* Send and close at once: the data still arrives (§3.10.1). */
	assert_int_equal(scif_recv(p.server, buf, 4, SCIF_RECV_BLOCK), 4);
	assert_int_equal(scif_recv(p.server, buf + 4, 8, SCIF_RECV_BLOCK), 4);
	assert_memory_equal(buf, "12345678", 8);
	assert_scif_errno(scif_recv(p.server, buf, 1, SCIF_RECV_BLOCK), ECONNRESET);
	scif_test_wait_hup(p.server);
	assert_scif_errno(scif_recv(p.server, buf, 1, 0), ECONNRESET);
	assert_scif_errno(scif_send(p.server, buf, 1, 0), ECONNRESET);
	scif_test_pair_close(&p);
}

/* A blocking receive of 8 bytes on one end while the other sends n bytes and closes. */
static struct reader recv_while_peer_closes(const char *data, int n)
{
	struct scif_test_pair p;
	char buf[8];
	struct reader r = { .buf = buf, .len = 8 };
	pthread_t thread;

	scif_test_pair_open(&p);
	r.epd = p.server;
	assert_int_equal(pthread_create(&thread, NULL, reader_main, &r), 0);
	if (n)
		assert_int_equal(scif_send(p.client, (void *)data, n, SCIF_SEND_BLOCK), n);
	assert_scif_ok(scif_close(p.client));
	p.client = -1;
	assert_int_equal(fixture_join(thread, SCIF_TEST_TIMEOUT_MS, NULL), 0);
	scif_test_pair_close(&p);
	r.buf = NULL;
	return r;
}

static void test_scif_blocked_recv_wakes_on_peer_close(void **state)
{
	(void)state;
	/* The bytes moved so far come back ... */
	assert_int_equal(recv_while_peer_closes("ab", 2).rc, 2);
}

static void test_scif_blocked_recv_with_nothing_fails_econnreset(void **state)
{
	struct reader r;

	(void)state;
	/* ... and with none, ECONNRESET. */
	r = recv_while_peer_closes(NULL, 0);
	assert_int_equal(r.rc, -1);
	assert_int_equal(r.err, ECONNRESET);
}

static void test_scif_close_wakes_own_blocked_recv(void **state)
{
	struct scif_test_pair p;
	char buf[8];
	struct reader r = { .buf = buf, .len = 8, .rc = 1 };
	pthread_t thread;

	(void)state;
	scif_test_pair_open(&p);
	r.epd = p.server;
	assert_int_equal(pthread_create(&thread, NULL, reader_main, &r), 0);
	while (!__atomic_load_n(&r.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	/* Close while it waits inside scif_recv, not before it got there. */
	assert_int_equal(fixture_wait_blocked(r.tid, SCIF_TEST_TIMEOUT_MS), 0);
	assert_scif_ok(scif_close(p.server));
	p.server = -1;
	assert_int_equal(fixture_join(thread, SCIF_TEST_TIMEOUT_MS, NULL), 0);
	/* Woken with nothing moved (§3.10.1 step 3); EBADF if the close came first. */
	assert_int_equal(r.rc, -1);
	assert_true(r.err == ECONNRESET || r.err == EBADF);
	scif_test_pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scif_send_recv_is_an_ordered_byte_stream),
		cmocka_unit_test(test_scif_recv_nonblocking_returns_what_is_queued),
		cmocka_unit_test(test_scif_send_nonblocking_is_partial_when_full),
		cmocka_unit_test(test_scif_send_blocking_moves_a_large_message),
		cmocka_unit_test(test_scif_send_recv_bad_arguments),
		cmocka_unit_test(test_scif_recv_drains_after_peer_close_then_econnreset),
		cmocka_unit_test(test_scif_blocked_recv_wakes_on_peer_close),
		cmocka_unit_test(test_scif_blocked_recv_with_nothing_fails_econnreset),
		cmocka_unit_test(test_scif_close_wakes_own_blocked_recv),
	};

	scif_test_env("scif-msg");
	return cmocka_run_group_tests_name("scif_msg", tests, NULL, NULL);
}
