/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_sendq.c: the per-endpoint message queue
 * between two real processes (§3.4, MPSS's 4 KiB ring): a non-blocking send
 * with no reader moves 4095 bytes and then nothing, a blocking one waits for
 * the reader, and bytes a scif_send has returned for are seen at once by the
 * peer's scif_poll(SCIF_POLLIN, 0) and a non-blocking scif_recv. The test
 * link (a socketpair) orders the two processes; nothing sleeps.
 */
#include "tests/conformance/scif/scif_test.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#define MP_TIMEOUT_MS 20000
#define QUEUE 4095           /* MPSS: a 4 KiB ring that keeps one byte free */
#define BIG (64 * 1024)
#define ROUNDS 200

/* ------------------------------------------------------------------ children */

static int card_connect(const char *arg, scif_epd_t *epd)
{
	struct scif_portID host = { .node = 0, .port = (uint16_t)atoi(arg) };

	*epd = scif_open();
	PROC_CHECK(*epd >= 0);
	PROC_CHECK(scif_connect(*epd, &host) >= 0);
	return 0;
}

/*
 * Fills the host's queue without a reader: a non-blocking send of 64 KiB, one
 * more that finds the queue full, then a blocking send of the rest that returns
 * only once the host has read.
 */
static int filler_main(int sock, const char *arg)
{
	char *buf = malloc(BIG);
	scif_epd_t epd;
	int rc, first, second, rest;

	PROC_CHECK(buf != NULL);
	fixture_pattern(buf, BIG, 21, 0);
	rc = card_connect(arg, &epd);
	if (rc)
		return rc;
	first = scif_send(epd, buf, BIG, 0);
	PROC_CHECK(proc_send(sock, (uint64_t)(int64_t)first) == 0);
	PROC_CHECK(first > 0);
	second = scif_send(epd, buf + first, BIG - first, 0);
	PROC_CHECK(proc_send(sock, (uint64_t)(int64_t)second) == 0);
	PROC_CHECK(second >= 0);
	rest = BIG - first - second;
	rc = scif_send(epd, buf + first + second, rest, SCIF_SEND_BLOCK);
	PROC_CHECK(proc_send(sock, (uint64_t)(int64_t)rc) == 0);
	PROC_CHECK(rc == rest);
	/* The host closes once it has checked everything. */
	PROC_CHECK(proc_expect(sock, 1, MP_TIMEOUT_MS) == 0);
	PROC_CHECK(scif_close(epd) == 0);
	free(buf);
	return 0;
}

/*
 * Round i: the host sends byte i and then says so on the link; we must see it
 * with a zero-timeout scif_poll and take it with a non-blocking recv. Then the
 * other way round: we send, tell the host, and it checks the same.
 */
static int echo_main(int sock, const char *arg)
{
	scif_epd_t epd;
	uint64_t round;
	int rc;

	rc = card_connect(arg, &epd);
	if (rc)
		return rc;
	for (int i = 0; i < ROUNDS; i++) {
		struct scif_pollepd pe = { .epd = epd, .events = SCIF_POLLIN };
		unsigned char c = 0;

		PROC_CHECK(proc_recv(sock, &round, MP_TIMEOUT_MS) == 0);
		PROC_CHECK(round == (uint64_t)i);
		PROC_CHECK(scif_poll(&pe, 1, 0) == 1);
		PROC_CHECK(pe.revents == SCIF_POLLIN);
		PROC_CHECK(scif_recv(epd, &c, 1, 0) == 1);
		PROC_CHECK(c == (unsigned char)i);
		c = (unsigned char)~i;
		PROC_CHECK(scif_send(epd, &c, 1, 0) == 1);
		PROC_CHECK(proc_send(sock, round) == 0);
	}
	PROC_CHECK(proc_expect(sock, ROUNDS, MP_TIMEOUT_MS) == 0);
	PROC_CHECK(scif_close(epd) == 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "filler", filler_main },
	{ "echo", echo_main },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ host side */

static scif_epd_t listener;
static char port_arg[16];

static int sendq_up(void **state)
{
	int p;

	(void)state;
	if (!proc_provider_multiproc())
		return 0;
	listener = scif_open();
	if (listener < 0)
		return -1;
	p = scif_bind(listener, 0);
	if (p < 0 || scif_listen(listener, 4))
		return -1;
	snprintf(port_arg, sizeof(port_arg), "%d", p);
	return 0;
}

static int sendq_down(void **state)
{
	(void)state;
	if (proc_provider_multiproc())
		scif_close(listener);
	return 0;
}

static scif_epd_t card_start(struct proc *child, const char *role)
{
	struct scif_portID peer;
	scif_epd_t epd;

	if (!proc_provider_multiproc())
		skip();
	assert_int_equal(proc_spawn(child, getenv("XRMA_FABRIC"), 1, role, port_arg), 0);
	assert_scif_ok(scif_accept(listener, &peer, &epd, SCIF_ACCEPT_SYNC));
	assert_int_equal(peer.node, 1);
	return epd;
}

static int64_t link_value(struct proc *child)
{
	uint64_t v = 0;

	assert_int_equal(proc_recv(child->sock, &v, MP_TIMEOUT_MS), 0);
	return (int64_t)v;
}

static void test_scif_send_queue_holds_4095_bytes_without_a_reader(void **state)
{
	struct proc child;
	char *in = malloc(BIG);
	scif_epd_t epd;
	size_t got = 0;
	int64_t first, rest;

	(void)state;
	assert_non_null(in);
	epd = card_start(&child, "filler");
	/*
	 * Non-blocking with nobody reading: the queue's worth, then nothing. Under
	 * load the first send was seen to stop 16 bytes short and the second to
	 * take them, as a partial count allows; the two together are the queue.
	 */
	first = link_value(&child);
	assert_true(first > 0 && first <= QUEUE);
	assert_int_equal(first + link_value(&child), QUEUE);
	rest = BIG - QUEUE;
	/* The card now blocks in a send of the rest, which moves on as we read. */
	while (got < BIG) {
		struct scif_pollepd pe = { .epd = epd, .events = SCIF_POLLIN };
		int n;

		assert_int_equal(scif_poll(&pe, 1, MP_TIMEOUT_MS), 1);
		n = scif_recv(epd, in + got, BIG - (int)got, 0);
		assert_true(n > 0);
		got += (size_t)n;
	}
	assert_int_equal(fixture_pattern_check(in, BIG, 21, 0), FIXTURE_MATCH);
	assert_int_equal(link_value(&child), rest);
	assert_int_equal(proc_send(child.sock, 1), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_scif_ok(scif_close(epd));
	free(in);
}

static void test_scif_sent_bytes_are_pollable_by_the_peer_at_once(void **state)
{
	struct proc child;
	scif_epd_t epd;

	(void)state;
	epd = card_start(&child, "echo");
	for (int i = 0; i < ROUNDS; i++) {
		struct scif_pollepd pe = { .epd = epd, .events = SCIF_POLLIN };
		unsigned char c = (unsigned char)i;

		assert_int_equal(scif_send(epd, &c, 1, 0), 1);
		assert_int_equal(proc_send(child.sock, (uint64_t)i), 0);
		assert_int_equal(link_value(&child), i);
		/* The card's byte went out before it told us: no wait may be needed. */
		assert_int_equal(scif_poll(&pe, 1, 0), 1);
		assert_int_equal(pe.revents, SCIF_POLLIN);
		c = 0;
		assert_int_equal(scif_recv(epd, &c, 1, 0), 1);
		assert_int_equal(c, (unsigned char)~i);
	}
	assert_int_equal(proc_send(child.sock, ROUNDS), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_scif_ok(scif_close(epd));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_scif_send_queue_holds_4095_bytes_without_a_reader,
					  proc_teardown),
		cmocka_unit_test_teardown(test_scif_sent_bytes_are_pollable_by_the_peer_at_once,
					  proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	scif_test_env("scif-sendq");
	return cmocka_run_group_tests_name("scif_sendq", tests, sendq_up, sendq_down);
}
