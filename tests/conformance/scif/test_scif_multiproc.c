/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_multiproc.c: SCIF between real processes
 * (nodes in separate processes: the ntb provider by default). This program is
 * the host, node 0; it re-executes itself as cards, nodes 1 and 2 (proc.h).
 * Covered: messages, RMA both ways, fences initiated by either side, a signal
 * the card polls for, mmap of a card's window (EOPNOTSUPP where the provider
 * cannot map), scif_get_nodeIDs with two and three nodes, a card SIGKILLed in
 * the middle of RMAs (the host sees ECONNRESET and goes on), one buffer
 * registered towards two cards (where the provider lets one node import a
 * segment, caps.max_importers 1, the second card's RMA is ENXIO until the
 * first card is gone), and fork (the child does not inherit endpoints; where a
 * node is one process, ofi and pximc, its own context is EADDRINUSE), and the
 * card's view of our windows after we unregister, or register anew at the same
 * offset (the card reads our table by copy under the test hook XRMA_TEST_RWIN_COPY=1 and
 * on ofi: check_peer_table_rma.sh, run_conformance_on_ofi.sh).
 * Skipped on providers whose nodes share one process.
 */
#include "tests/conformance/scif/scif_test.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#define MP_TIMEOUT_MS 20000
#define PAGE SCIF_TEST_PAGE
#define RW (SCIF_PROT_READ | SCIF_PROT_WRITE)
#define CARD_WIN 0x10000     /* the card's window: 4 pages of data, then a flag page */
#define CARD_PAGES 5
#define HOST_WIN 0x20000     /* the host's window, 4 pages */
#define VICTIM_LEN (16u << 20)

enum { CMD_CHECK = 1, CMD_WRITE_HOST, CMD_TRY_WRITE_HOST, CMD_TRY_READ_HOST, CMD_TRY_WRITE_AT, CMD_QUIT };

/* ------------------------------------------------------------------ children */

static int card_connect(const char *arg, scif_epd_t *epd)
{
	struct scif_portID host = { .node = 0, .port = (uint16_t)atoi(arg) };

	*epd = scif_open();
	PROC_CHECK(*epd >= 0);
	PROC_CHECK(scif_connect(*epd, &host) >= 0);
	return 0;
}

static int recv_u64(scif_epd_t epd, uint64_t *v)
{
	return scif_recv(epd, v, sizeof(*v), SCIF_RECV_BLOCK) == sizeof(*v) ? 0 : -1;
}

static int send_u64(scif_epd_t epd, uint64_t v)
{
	return scif_send(epd, &v, sizeof(v), SCIF_SEND_BLOCK) == sizeof(v) ? 0 : -1;
}

/* A card: a window with its pattern, then commands from the host until told to quit. */
static int card_main(int sock, const char *arg)
{
	uint16_t self, nodes[8];
	char *mem = scif_test_pages(CARD_PAGES);
	volatile uint64_t *flag = (volatile uint64_t *)(mem + 4 * PAGE);
	scif_epd_t epd;
	uint64_t cmd, seed;
	int rc;

	(void)sock;
	rc = card_connect(arg, &epd);
	if (rc)
		return rc;
	PROC_CHECK(scif_get_nodeIDs(nodes, 8, &self) >= 2);
	fixture_pattern(mem, 4 * PAGE, (uint8_t)(0x40 + self), 0);
	PROC_CHECK(scif_register(epd, mem, CARD_PAGES * PAGE, CARD_WIN, RW, SCIF_MAP_FIXED) == CARD_WIN);
	PROC_CHECK(send_u64(epd, self) == 0);
	for (;;) {
		PROC_CHECK(recv_u64(epd, &cmd) == 0);
		if (cmd == CMD_QUIT)
			break;
		PROC_CHECK(recv_u64(epd, &seed) == 0);
		if (cmd == CMD_CHECK) {
			/* The host's signal shows only once its data is here. */
			PROC_CHECK(scif_test_wait_u64(flag, seed, MP_TIMEOUT_MS) == 0);
			PROC_CHECK(fixture_pattern_check(mem, 4 * PAGE, (uint8_t)seed, 0) == FIXTURE_MATCH);
			PROC_CHECK(send_u64(epd, 1) == 0);
		} else if (cmd == CMD_WRITE_HOST) {
			/* Asynchronous: the host fences on it (INIT_PEER). */
			fixture_pattern(mem, 4 * PAGE, (uint8_t)seed, 0);
			PROC_CHECK(scif_writeto(epd, CARD_WIN, 4 * PAGE, HOST_WIN, 0) == 0);
			PROC_CHECK(send_u64(epd, 1) == 0);
		} else if (cmd == CMD_TRY_WRITE_HOST) {
			/* Synchronous; the host checks the answer: 0 or the errno. */
			fixture_pattern(mem, 4 * PAGE, (uint8_t)seed, 0);
			rc = scif_writeto(epd, CARD_WIN, 4 * PAGE, HOST_WIN, SCIF_RMA_SYNC);
			PROC_CHECK(send_u64(epd, rc == 0 ? 0 : (uint64_t)errno) == 0);
		} else if (cmd == CMD_TRY_WRITE_AT) {
			/* seed: a page-aligned offset of the host's space | the pattern's seed. */
			fixture_pattern(mem, 4 * PAGE, (uint8_t)seed, 0);
			rc = scif_writeto(epd, CARD_WIN, 4 * PAGE, (off_t)(seed & ~(uint64_t)(PAGE - 1)), SCIF_RMA_SYNC);
			PROC_CHECK(send_u64(epd, rc == 0 ? 0 : (uint64_t)errno) == 0);
		} else if (cmd == CMD_TRY_READ_HOST) {
			/* Synchronous; 0 or the errno, and a failed read leaves our pages alone. */
			fixture_pattern(mem, 4 * PAGE, (uint8_t)seed, 0);
			rc = scif_readfrom(epd, CARD_WIN, 4 * PAGE, HOST_WIN, SCIF_RMA_SYNC);
			PROC_CHECK(rc == 0 || fixture_pattern_check(mem, 4 * PAGE, (uint8_t)seed, 0) == FIXTURE_MATCH);
			PROC_CHECK(send_u64(epd, rc == 0 ? 0 : (uint64_t)errno) == 0);
		}
	}
	PROC_CHECK(scif_unregister(epd, CARD_WIN, CARD_PAGES * PAGE) == 0);
	PROC_CHECK(scif_close(epd) == 0);
	scif_test_free(mem);
	return 0;
}

/* A card with a large window that waits to be killed. */
static int victim_main(int sock, const char *arg)
{
	char *mem = scif_test_pages(VICTIM_LEN / PAGE);
	scif_epd_t epd;
	uint64_t cmd;
	int rc;

	rc = card_connect(arg, &epd);
	if (rc)
		return rc;
	PROC_CHECK(scif_register(epd, mem, VICTIM_LEN, 0, RW, SCIF_MAP_FIXED) == 0);
	PROC_CHECK(send_u64(epd, 1) == 0);
	/* Blocks until the host kills us. */
	PROC_CHECK(proc_recv(sock, &cmd, 60000) == 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "card", card_main },
	{ "victim", victim_main },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ host side */

static scif_epd_t listener;
static uint16_t port;
static char port_arg[16];

static int mp_up(void **state)
{
	int p;

	(void)state;
	if (!proc_provider_multiproc())
		return 0;
	listener = scif_open();
	if (listener < 0)
		return -1;
	p = scif_bind(listener, 0);
	if (p < 0 || scif_listen(listener, 8))
		return -1;
	port = (uint16_t)p;
	snprintf(port_arg, sizeof(port_arg), "%u", port);
	return 0;
}

static int mp_down(void **state)
{
	(void)state;
	if (proc_provider_multiproc())
		scif_close(listener);
	return 0;
}

static void need_multiproc(void)
{
	if (!proc_provider_multiproc())
		skip();
}

static const char *fabric(void)
{
	return getenv("XRMA_FABRIC");
}

/* Spawn a card as node, accept it, and read its hello. */
static scif_epd_t card_start(struct proc *child, uint16_t node, const char *role)
{
	struct scif_portID peer;
	scif_epd_t epd;
	uint64_t hello = 0;

	assert_int_equal(proc_spawn(child, fabric(), node, role, port_arg), 0);
	assert_scif_ok(scif_accept(listener, &peer, &epd, SCIF_ACCEPT_SYNC));
	assert_int_equal(peer.node, node);
	assert_int_equal(scif_recv(epd, &hello, sizeof(hello), SCIF_RECV_BLOCK), sizeof(hello));
	if (strcmp(role, "card") == 0)
		assert_int_equal(hello, node);
	return epd;
}

static void host_cmd(scif_epd_t epd, uint64_t cmd, uint64_t arg)
{
	assert_int_equal(send_u64(epd, cmd), 0);
	if (cmd != CMD_QUIT)
		assert_int_equal(send_u64(epd, arg), 0);
}

static void host_write_and_check(scif_epd_t epd, char *mem, uint8_t seed)
{
	uint64_t ok = 0;

	fixture_pattern(mem, 4 * PAGE, seed, 0);
	assert_scif_ok(scif_writeto(epd, HOST_WIN, 4 * PAGE, CARD_WIN, 0));
	assert_scif_ok(scif_fence_signal(epd, 0, 0, CARD_WIN + 4 * PAGE, seed,
					 SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE));
	host_cmd(epd, CMD_CHECK, seed);
	assert_int_equal(recv_u64(epd, &ok), 0);
	assert_int_equal(ok, 1);
}

static void test_scif_two_processes(void **state)
{
	char *mem, *copy;
	uint16_t nodes[8], self;
	struct proc child;
	scif_epd_t epd;
	uint64_t ok = 0;
	int mark, mmap_errno;
	volatile char *map;

	(void)state;
	need_multiproc();
	mem = scif_test_pages(4);
	copy = scif_test_pages(4);
	epd = card_start(&child, 1, "card");
	assert_int_equal(scif_get_nodeIDs(nodes, 8, &self), 2);
	assert_int_equal(self, 0);
	assert_int_equal(scif_register(epd, mem, 4 * PAGE, HOST_WIN, RW, SCIF_MAP_FIXED), HOST_WIN);

	/* Read the card's pattern, by window and into plain memory. */
	assert_scif_ok(scif_readfrom(epd, HOST_WIN, 4 * PAGE, CARD_WIN, SCIF_RMA_SYNC));
	assert_int_equal(fixture_pattern_check(mem, 4 * PAGE, 0x41, 0), FIXTURE_MATCH);
	assert_scif_ok(scif_vreadfrom(epd, copy + 5, 100, CARD_WIN + 5, SCIF_RMA_SYNC));
	assert_int_equal(fixture_pattern_check(copy + 5, 100, 0x41, 5), FIXTURE_MATCH);
	/* Load/store through a mapping of the card's window, where the provider can map. */
	map = scif_mmap(NULL, PAGE, RW, 0, epd, CARD_WIN);
	mmap_errno = errno;
	if (proc_provider_caps() & XRMA_CAP_MAP) {
		assert_true(map != SCIF_MMAP_FAILED);
		assert_int_equal(fixture_pattern_check((const void *)map, PAGE, 0x41, 0), FIXTURE_MATCH);
		assert_scif_ok(scif_munmap((void *)map, PAGE));
	} else {
		assert_true(map == SCIF_MMAP_FAILED);
		assert_int_equal(mmap_errno, EOPNOTSUPP);
	}

	/* Host writes, signals the card; the card checks data once the value shows. */
	host_write_and_check(epd, mem, 0x51);
	/* The card writes asynchronously; the host fences on the peer's RMAs. */
	host_cmd(epd, CMD_WRITE_HOST, 0x61);
	assert_int_equal(recv_u64(epd, &ok), 0);
	assert_scif_ok(scif_fence_mark(epd, SCIF_FENCE_INIT_PEER, &mark));
	assert_scif_ok(scif_fence_wait(epd, mark));
	assert_int_equal(fixture_pattern_check(mem, 4 * PAGE, 0x61, 0), FIXTURE_MATCH);

	host_cmd(epd, CMD_QUIT, 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	scif_test_wait_hup(epd);
	assert_scif_ok(scif_close(epd));
	scif_test_free(mem);
	scif_test_free(copy);
}

static void test_scif_three_processes(void **state)
{
	char *mem[2];
	uint16_t nodes[8], self;
	struct proc child[2];
	scif_epd_t epd[2];

	(void)state;
	need_multiproc();
	mem[0] = scif_test_pages(4);
	mem[1] = scif_test_pages(4);
	for (int i = 0; i < 2; i++) {
		epd[i] = card_start(&child[i], (uint16_t)(1 + i), "card");
		assert_int_equal(scif_register(epd[i], mem[i], 4 * PAGE, HOST_WIN, RW, SCIF_MAP_FIXED),
				 HOST_WIN);
	}
	assert_int_equal(scif_get_nodeIDs(nodes, 8, &self), 3);
	assert_int_equal(nodes[0], 0);
	assert_int_equal(nodes[1], 1);
	assert_int_equal(nodes[2], 2);
	/* The same offsets on two connections are two address spaces. */
	host_write_and_check(epd[0], mem[0], 0x71);
	host_write_and_check(epd[1], mem[1], 0x72);
	for (int i = 0; i < 2; i++) {
		host_cmd(epd[i], CMD_QUIT, 0);
		assert_int_equal(proc_join(&child[i], MP_TIMEOUT_MS), 0);
		assert_scif_ok(scif_close(epd[i]));
		scif_test_free(mem[i]);
	}
}

/*
 * A card's answer to a CMD_TRY_* command: 0 or its errno. The argument is the
 * seed of the pattern (CMD_TRY_WRITE_AT: the offset of its 4 pages | seed).
 */
static uint64_t host_card_try(scif_epd_t epd, uint64_t cmd, uint64_t arg)
{
	uint64_t answer = ~0ull;

	host_cmd(epd, cmd, arg);
	assert_int_equal(recv_u64(epd, &answer), 0);
	return answer;
}

static void test_scif_one_buffer_registered_towards_two_cards(void **state)
{
	struct xrma_provider_info info;
	struct proc child[2];
	scif_epd_t epd[2];
	bool one_importer;
	char *mem;

	(void)state;
	need_multiproc();
	one_importer = proc_provider_info(&info) && info.caps.max_importers == 1;
	mem = scif_test_pages(4);
	for (int i = 0; i < 2; i++) {
		epd[i] = card_start(&child[i], (uint16_t)(1 + i), "card");
		/* The same pages behind a window of each connection. */
		assert_int_equal(scif_register(epd[i], mem, 4 * PAGE, HOST_WIN, RW, SCIF_MAP_FIXED),
				 HOST_WIN);
	}
	assert_int_equal(host_card_try(epd[0], CMD_TRY_WRITE_HOST, 0x91), 0);
	assert_int_equal(fixture_pattern_check(mem, 4 * PAGE, 0x91, 0), FIXTURE_MATCH);
	if (one_importer) {
		/* Card 1 holds the pages: card 2 cannot reach them, and nothing changed. */
		assert_int_equal(host_card_try(epd[1], CMD_TRY_WRITE_HOST, 0x92), ENXIO);
		assert_int_equal(fixture_pattern_check(mem, 4 * PAGE, 0x91, 0), FIXTURE_MATCH);
		host_cmd(epd[0], CMD_QUIT, 0);
		assert_int_equal(proc_join(&child[0], MP_TIMEOUT_MS), 0);
		scif_test_wait_hup(epd[0]);
	}
	/* Card 2's turn (at once where nodes may share a segment). */
	assert_int_equal(host_card_try(epd[1], CMD_TRY_WRITE_HOST, 0x93), 0);
	assert_int_equal(fixture_pattern_check(mem, 4 * PAGE, 0x93, 0), FIXTURE_MATCH);
	for (int i = 0; i < 2; i++) {
		if (i > 0 || !one_importer) {
			host_cmd(epd[i], CMD_QUIT, 0);
			assert_int_equal(proc_join(&child[i], MP_TIMEOUT_MS), 0);
		}
		assert_scif_ok(scif_close(epd[i]));
	}
	scif_test_free(mem);
}

/*
 * Once our scif_unregister returned, the card's next RMA after our next message
 * is ENXIO and touches nothing, whether it maps our table or reads a copy of it
 * (XRMA_TEST_RWIN_COPY=1, ofi): the copy it used a moment ago is stale.
 */
static void test_scif_unregister_seen_by_peer(void **state)
{
	struct proc child;
	scif_epd_t epd;
	char *mem;

	(void)state;
	need_multiproc();
	mem = scif_test_pages(4);
	epd = card_start(&child, 1, "card");
	assert_int_equal(scif_register(epd, mem, 4 * PAGE, HOST_WIN, RW, SCIF_MAP_FIXED), HOST_WIN);
	for (uint8_t seed = 0xa0; seed < 0xa4; seed++) {
		assert_int_equal(host_card_try(epd, CMD_TRY_WRITE_HOST, seed), 0);
		assert_int_equal(fixture_pattern_check(mem, 4 * PAGE, seed, 0), FIXTURE_MATCH);
	}
	assert_int_equal(host_card_try(epd, CMD_TRY_READ_HOST, 0xa4), 0);
	assert_scif_ok(scif_unregister(epd, HOST_WIN, 4 * PAGE));
	/* The command is our message after the unregister. */
	assert_int_equal(host_card_try(epd, CMD_TRY_WRITE_HOST, 0xa5), ENXIO);
	assert_int_equal(fixture_pattern_check(mem, 4 * PAGE, 0xa3, 0), FIXTURE_MATCH);
	assert_int_equal(host_card_try(epd, CMD_TRY_READ_HOST, 0xa6), ENXIO);
	assert_int_equal(host_card_try(epd, CMD_TRY_WRITE_HOST, 0xa7), ENXIO);
	assert_int_equal(fixture_pattern_check(mem, 4 * PAGE, 0xa3, 0), FIXTURE_MATCH);
	host_cmd(epd, CMD_QUIT, 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_scif_ok(scif_close(epd));
	scif_test_free(mem);
}

/*
 * A different window registered at the offset of an unregistered one: the card's
 * RMAs reach the new one, though the card's view of our table (a copy, where it
 * reads it by RMA) was taken while the old one was there. The card never used the
 * old windows, so their ranges are free at once (docs/scif.md, deferred deletion).
 */
static void test_scif_reregister_same_offset(void **state)
{
	enum { ROUNDS = 2 };
	const off_t side = HOST_WIN, base = HOST_WIN + 0x100000;
	char *old[ROUNDS], *fresh[ROUNDS], *other;
	struct proc child;
	scif_epd_t epd;

	(void)state;
	need_multiproc();
	other = scif_test_pages(4);
	epd = card_start(&child, 1, "card");
	assert_int_equal(scif_register(epd, other, 4 * PAGE, side, RW, SCIF_MAP_FIXED), side);
	for (int i = 0; i < ROUNDS; i++) {
		old[i] = scif_test_pages(4);
		fresh[i] = scif_test_pages(4);
		fixture_pattern(old[i], 4 * PAGE, (uint8_t)(0xc0 + i), 0);
		assert_int_equal(scif_register(epd, old[i], 4 * PAGE, base + i * 0x10000, RW, SCIF_MAP_FIXED),
				 base + i * 0x10000);
	}
	for (int i = 0; i < ROUNDS; i++) {
		off_t at = base + i * 0x10000;
		uint8_t seed = (uint8_t)(0xd0 + i);

		/* The card looks at our table now, with the old window at at. */
		assert_int_equal(host_card_try(epd, CMD_TRY_WRITE_AT,
					       (uint64_t)side | (uint8_t)(0xb0 + i)), 0);
		assert_int_equal(fixture_pattern_check(other, 4 * PAGE, (uint8_t)(0xb0 + i), 0), FIXTURE_MATCH);
		assert_scif_ok(scif_unregister(epd, at, 4 * PAGE));
		assert_int_equal(scif_register(epd, fresh[i], 4 * PAGE, at, RW, SCIF_MAP_FIXED), at);
		assert_int_equal(host_card_try(epd, CMD_TRY_WRITE_AT, (uint64_t)at | seed), 0);
		assert_int_equal(fixture_pattern_check(fresh[i], 4 * PAGE, seed, 0), FIXTURE_MATCH);
		assert_int_equal(fixture_pattern_check(old[i], 4 * PAGE, (uint8_t)(0xc0 + i), 0), FIXTURE_MATCH);
	}
	host_cmd(epd, CMD_QUIT, 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_scif_ok(scif_close(epd));
	for (int i = 0; i < ROUNDS; i++) {
		scif_test_free(old[i]);
		scif_test_free(fresh[i]);
	}
	scif_test_free(other);
}

static void test_scif_peer_killed_mid_rma(void **state)
{
	char *mem;
	struct proc child;
	scif_epd_t epd;
	int rc = 0;
	char c;

	(void)state;
	need_multiproc();
	mem = scif_test_pages(VICTIM_LEN / PAGE);
	epd = card_start(&child, 1, "victim");
	assert_int_equal(scif_register(epd, mem, VICTIM_LEN, 0, RW, SCIF_MAP_FIXED), 0);
	for (int i = 0; i < 4; i++)
		assert_scif_ok(scif_writeto(epd, 0, VICTIM_LEN, 0, 0));
	assert_int_equal(proc_kill(&child), 128 + SIGKILL);
	/* Transfers under way finish or fail; then every call reports the reset. */
	for (int i = 0; i < 100000 && rc == 0; i++)
		rc = scif_writeto(epd, 0, PAGE, 0, SCIF_RMA_SYNC);
	assert_int_equal(rc, -1);
	assert_true(errno == ECONNRESET || errno == ENODEV);
	assert_scif_errno(scif_recv(epd, &c, 1, SCIF_RECV_BLOCK), ECONNRESET);
	assert_scif_errno(scif_send(epd, &c, 1, 0), ECONNRESET);
	assert_scif_ok(scif_close(epd));
	/* The survivor goes on: a new card connects and works. */
	{
		char *m2 = scif_test_pages(4);

		epd = card_start(&child, 1, "card");
		assert_int_equal(scif_register(epd, m2, 4 * PAGE, HOST_WIN, RW, SCIF_MAP_FIXED), HOST_WIN);
		host_write_and_check(epd, m2, 0x33);
		host_cmd(epd, CMD_QUIT, 0);
		assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
		assert_scif_ok(scif_close(epd));
		scif_test_free(m2);
	}
	scif_test_free(mem);
}

static void test_scif_fork_child_does_not_inherit_endpoints(void **state)
{
	struct scif_test_pair p;
	int status;
	pid_t pid;
	char c = 'f';

	(void)state;
	scif_test_pair_open(&p);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The child's copies are no endpoints; it may open its own. */
		int bad = scif_send(p.client, &c, 1, 0) == -1 && errno == EBADF;
		uint16_t self;

#if defined(__SANITIZE_THREAD__)
		/* ThreadSanitizer cannot start threads in the child of a threaded process. */
		(void)self;
		_exit(bad ? 0 : 1);
#else
		/* Where a node is one process (ofi, pximc), the parent holds the node: EADDRINUSE. */
		_exit(bad && (scif_get_nodeIDs(NULL, 0, &self) >= 1 || errno == EADDRINUSE) ? 0 : 1);
#endif
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The parent's endpoints are untouched. */
	assert_int_equal(scif_send(p.client, &c, 1, SCIF_SEND_BLOCK), 1);
	c = 0;
	assert_int_equal(scif_recv(p.server, &c, 1, SCIF_RECV_BLOCK), 1);
	assert_int_equal(c, 'f');
	scif_test_pair_close(&p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_scif_two_processes, proc_teardown),
		cmocka_unit_test_teardown(test_scif_three_processes, proc_teardown),
		cmocka_unit_test_teardown(test_scif_one_buffer_registered_towards_two_cards, proc_teardown),
		cmocka_unit_test_teardown(test_scif_unregister_seen_by_peer, proc_teardown),
		cmocka_unit_test_teardown(test_scif_reregister_same_offset, proc_teardown),
		cmocka_unit_test_teardown(test_scif_peer_killed_mid_rma, proc_teardown),
		cmocka_unit_test_teardown(test_scif_fork_child_does_not_inherit_endpoints, proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	scif_test_env("scif-mp");
	return cmocka_run_group_tests_name("scif_multiproc", tests, mp_up, mp_down);
}
