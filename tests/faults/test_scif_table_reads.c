/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/test_scif_table_reads.c: a card that reads the host's table by
 * copy (the test hook XRMA_TEST_RWIN_COPY=1: the path of providers that cannot map) reads
 * it again only when the host changed it, not once per RMA call (core/rwin.c).
 * The reads are counted by the kill point "rwin.table_read" of the
 * test-only libscif: the card is armed to die at its READ_LIMIT-th read. A card
 * doing hundreds of transfers to a table that stays the same lives; a card whose
 * host unregisters and registers between its transfers must read the table
 * again each time, and so dies (which shows the point counts the reads). The
 * same card serves the test of an unregister whose notice cannot be delivered.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <scif.h>
#include "common/killpoint.h"
#include "tests/faults/faults.h"
#include "tests/helpers/fixture.h"

#define PAGE 4096u
#define RW (SCIF_PROT_READ | SCIF_PROT_WRITE)
#define HOST_WIN 0x100000
#define CARD_WIN 0x200000
/* Far above what connecting and a few table changes need, far below one read per call. */
#define READ_LIMIT "64"
/* Calls of the quiet card: each a write, a read and a virtual write. */
#define QUIET_ROUNDS 200
/* Table changes the host makes for the busy card, each followed by a transfer. */
#define BUSY_ROUNDS 40
#define WAIT_MS 15000

enum { CMD_WRITE = 1, CMD_QUIET, CMD_QUIT, CMD_WRITE_GONE };

static void *pages(size_t n)
{
	void *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int send_u64(scif_epd_t epd, uint64_t v)
{
	return scif_send(epd, &v, sizeof(v), SCIF_SEND_BLOCK) == sizeof(v) ? 0 : -1;
}

static int recv_u64(scif_epd_t epd, uint64_t *v)
{
	return scif_recv(epd, v, sizeof(*v), SCIF_RECV_BLOCK) == sizeof(*v) ? 0 : -1;
}

/* ------------------------------------------------------------------ the card */

static int card_main(int sock, const char *arg)
{
	struct scif_portID host = { .node = 0, .port = (uint16_t)atoi(arg) };
	char *mem = pages(1);
	scif_epd_t epd;
	uint64_t cmd, offset;

	(void)sock;
	/* Before the first library call: both are read once, on first use. */
	setenv("XRMA_TEST_RWIN_COPY", "1", 1);
	setenv("XRMA_TEST_KILL_POINT", "rwin.table_read:" READ_LIMIT, 1);
	PROC_CHECK(mem != NULL);
	epd = scif_open();
	PROC_CHECK(epd >= 0);
	PROC_CHECK(scif_connect(epd, &host) >= 0);
	PROC_CHECK(scif_register(epd, mem, PAGE, CARD_WIN, RW, SCIF_MAP_FIXED) == CARD_WIN);
	for (;;) {
		PROC_CHECK(recv_u64(epd, &cmd) == 0);
		if (cmd == CMD_QUIT)
			break;
		if (cmd == CMD_WRITE) {
			PROC_CHECK(recv_u64(epd, &offset) == 0);
			PROC_CHECK(scif_writeto(epd, CARD_WIN, 8, (off_t)offset, SCIF_RMA_SYNC) == 0);
		} else if (cmd == CMD_WRITE_GONE) {
			/* The host unregistered the window there: no transfer reaches it. */
			PROC_CHECK(recv_u64(epd, &offset) == 0);
			PROC_CHECK(scif_writeto(epd, CARD_WIN, 8, (off_t)offset, SCIF_RMA_SYNC) == -1 &&
				   errno == ENXIO);
		} else {
			for (int i = 0; i < QUIET_ROUNDS; i++) {
				PROC_CHECK(scif_writeto(epd, CARD_WIN, 8, HOST_WIN + 8 * (i % 8), SCIF_RMA_SYNC) == 0);
				PROC_CHECK(scif_readfrom(epd, CARD_WIN, 8, HOST_WIN, SCIF_RMA_SYNC) == 0);
				PROC_CHECK(scif_vwriteto(epd, mem, 8, HOST_WIN + PAGE, SCIF_RMA_SYNC) == 0);
			}
		}
		PROC_CHECK(send_u64(epd, 1) == 0);
	}
	PROC_CHECK(scif_close(epd) == 0);
	munmap(mem, PAGE);
	return 0;
}

static const struct proc_role roles[] = {
	{ "card", card_main },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ the host */

static scif_epd_t listener;
static char port_arg[16];

static int up(void **state)
{
	int p;

	(void)state;
	listener = scif_open();
	if (listener < 0)
		return -1;
	p = scif_bind(listener, 0);
	if (p < 0 || scif_listen(listener, 4))
		return -1;
	snprintf(port_arg, sizeof(port_arg), "%d", p);
	return 0;
}

static int down(void **state)
{
	(void)state;
	scif_close(listener);
	return 0;
}

static scif_epd_t card_start(struct proc *card, char *mem)
{
	struct scif_portID peer;
	scif_epd_t epd;

	assert_int_equal(proc_spawn(card, getenv("XRMA_FABRIC"), 1, "card", port_arg), 0);
	assert_int_equal(scif_accept(listener, &peer, &epd, SCIF_ACCEPT_SYNC), 0);
	assert_int_equal(scif_register(epd, mem, 2 * PAGE, HOST_WIN, RW, SCIF_MAP_FIXED), HOST_WIN);
	return epd;
}

/* The card's answer to cmd (CMD_WRITE: to offset): 0, or -1 when it died. */
static int card_do(scif_epd_t epd, uint64_t cmd, uint64_t offset)
{
	uint64_t done = 0;

	if (send_u64(epd, cmd) || ((cmd == CMD_WRITE || cmd == CMD_WRITE_GONE) && send_u64(epd, offset)) ||
	    recv_u64(epd, &done))
		return -1;
	return done == 1 ? 0 : -1;
}

/* The card leaves on our word and exits cleanly; then our side goes. */
static void card_quit(struct proc *card, scif_epd_t epd, char *mem)
{
	assert_int_equal(send_u64(epd, CMD_QUIT), 0);
	assert_int_equal(proc_join(card, WAIT_MS), 0);
	assert_int_equal(scif_close(epd), 0);
	munmap(mem, 2 * PAGE);
}

static void test_scif_copy_kept_across_transfers(void **state)
{
	char *mem = pages(2);
	struct proc card;
	scif_epd_t epd;

	(void)state;
	assert_non_null(mem);
	epd = card_start(&card, mem);
	/* Hundreds of calls against an unchanged table: a read per call would kill the card. */
	assert_int_equal(card_do(epd, CMD_QUIET, 0), 0);
	assert_int_equal(card_do(epd, CMD_QUIET, 0), 0);
	card_quit(&card, epd, mem);
}

static void test_scif_changed_table_read_again(void **state)
{
	char *mem = pages(2);
	struct proc card;
	scif_epd_t epd;
	int i;

	(void)state;
	assert_non_null(mem);
	epd = card_start(&card, mem);
	/* Each round moves the window: a new one after the last, then the last one goes. */
	for (i = 1; i <= BUSY_ROUNDS; i++) {
		off_t at = HOST_WIN + (off_t)i * 2 * PAGE;

		assert_int_equal(scif_register(epd, mem, 2 * PAGE, at, RW, SCIF_MAP_FIXED), at);
		assert_int_equal(scif_unregister(epd, at - 2 * PAGE, 2 * PAGE), 0);
		if (card_do(epd, CMD_WRITE, (uint64_t)at))
			break;
	}
	/* Each change costs the card a read of our table: it reached the limit. */
	assert_true(i <= BUSY_ROUNDS);
	assert_int_equal(proc_join(&card, WAIT_MS), FAULTS_KILLED);
	assert_int_equal(scif_close(epd), 0);
	munmap(mem, 2 * PAGE);
}

/*
 * An unregister whose notice to the card fails on the way (the fail point
 * "rwin.remove.notice", as a transfer error would) while the card lives
 * fails with EIO and changes nothing: the window stays registered, in our
 * space and in the card's view. Repeated once the notice can go, it succeeds.
 */
static void test_scif_unregister_undone_when_notice_fails(void **state)
{
	char *mem = pages(2);
	struct proc card;
	scif_epd_t epd;

	(void)state;
	assert_non_null(mem);
	epd = card_start(&card, mem);
	/* The card reads our table by copy and announces its box. */
	assert_int_equal(card_do(epd, CMD_WRITE, HOST_WIN), 0);
	xrma_failpoint_arm("rwin.remove.notice");
	errno = 0;
	assert_int_equal(scif_unregister(epd, HOST_WIN, 2 * PAGE), -1);
	assert_int_equal(errno, EIO);
	xrma_failpoint_arm(NULL);
	/* Still ours: its range is taken, our RMAs use it, the card's reach it. */
	errno = 0;
	assert_int_equal(scif_register(epd, mem, 2 * PAGE, HOST_WIN, RW, SCIF_MAP_FIXED), -1);
	assert_int_equal(errno, EADDRINUSE);
	assert_int_equal(scif_writeto(epd, HOST_WIN, 8, CARD_WIN, SCIF_RMA_SYNC), 0);
	assert_int_equal(card_do(epd, CMD_WRITE, HOST_WIN + 8), 0);
	assert_int_equal(scif_unregister(epd, HOST_WIN, 2 * PAGE), 0);
	assert_int_equal(card_do(epd, CMD_WRITE_GONE, HOST_WIN), 0);
	card_quit(&card, epd, mem);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_scif_copy_kept_across_transfers, proc_teardown),
		cmocka_unit_test_teardown(test_scif_changed_table_read_again, proc_teardown),
		cmocka_unit_test_teardown(test_scif_unregister_undone_when_notice_fails, proc_teardown),
	};
	char fabric[XRMA_NAME_MAX];
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	if (!proc_provider_multiproc())
		return 77;
	fixture_fabric_name(fabric, sizeof(fabric), "scifreads");
	setenv("XRMA_FABRIC", fabric, 1);
	setenv("XRMA_NODE_ID", "0", 1);
	return cmocka_run_group_tests_name("scif_table_reads", tests, up, down);
}
