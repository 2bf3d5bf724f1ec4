/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_mpss.c: what MPSS-era programs rely on
 * beyond the guide: errno untouched by successful calls (the first one of
 * the process included), scif_connect's local port as scif_accept's peer sees
 * it, scif_mmap's address hint, and start order: a configured node that is
 * not up refuses connects (ECONNREFUSED, the tutorials' retry condition),
 * an id outside the configuration is ENODEV, and scif_get_nodeIDs lists the
 * configured nodes. This program is the host, node 0, with a node file of
 * nodes 0, 1, 2 and 5; cards are re-executions of it (proc.h).
 */
#include "tests/conformance/scif/scif_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xrma/info.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#define MPSS_TIMEOUT_MS 20000
#define PAGE SCIF_TEST_PAGE
#define RW (SCIF_PROT_READ | SCIF_PROT_WRITE)
#define SENTINEL 12345
#define CARD_NODE 1
#define ABSENT_NODE 5      /* in the node file, never started */
#define UNKNOWN_NODE 7     /* not in the node file */
#define FREE_NODE 3        /* the card that runs without a node file */
#define CARD_BOUND_PORT 3000

static char node_file[64];

/* Call with errno set to the sentinel; the call must succeed (ok) and leave errno alone. */
#define assert_keeps_errno(call, ok)                                                             \
	do {                                                                                     \
		long keep_rc_;                                                                   \
		errno = SENTINEL;                                                                \
		keep_rc_ = (long)(call);                                                         \
		if (!(ok) || errno != SENTINEL)                                                  \
			print_error("%s returned %ld, errno %d\n", #call, keep_rc_, errno);       \
		assert_true(ok);                                                                 \
		assert_int_equal(errno, SENTINEL);                                               \
	} while (0)

/* ------------------------------------------------------------------ cards */

/* Connect to the host's listener (arg: "port bind"), send what scif_connect returned. */
static int connector_main(int sock, const char *arg)
{
	unsigned int port, bind_port;
	struct scif_portID host = { .node = 0 };
	scif_epd_t epd;
	uint64_t done;
	int rc;

	PROC_CHECK(sscanf(arg, "%u %u", &port, &bind_port) == 2);
	host.port = (uint16_t)port;
	epd = scif_open();
	PROC_CHECK(epd >= 0);
	if (bind_port)
		PROC_CHECK(scif_bind(epd, (uint16_t)bind_port) == (int)bind_port);
	rc = scif_connect(epd, &host);
	PROC_CHECK(rc >= 0);
	PROC_CHECK(scif_send(epd, &rc, sizeof(rc), SCIF_SEND_BLOCK) == sizeof(rc));
	PROC_CHECK(proc_recv(sock, &done, MPSS_TIMEOUT_MS) == 0);
	PROC_CHECK(scif_close(epd) == 0);
	return 0;
}

/* Open an endpoint (the node is up), tell the host, wait for its word, and exit. */
static int brief_main(int sock, const char *arg)
{
	scif_epd_t epd = scif_open();
	uint64_t done;

	(void)arg;
	PROC_CHECK(epd >= 0);
	PROC_CHECK(proc_send(sock, 1) == 0);
	PROC_CHECK(proc_recv(sock, &done, MPSS_TIMEOUT_MS) == 0);
	PROC_CHECK(scif_close(epd) == 0);
	return 0;
}

/*
 * Without a node file every id the provider allows is a node (ntb: any): the
 * set is the live nodes plus the host, and an absent id refuses connects.
 */
static int no_node_file_main(int sock, const char *arg)
{
	struct scif_portID absent = { .node = 9, .port = 2000 };
	uint16_t nodes[16], self = 0;
	bool has_host = false, has_self = false;
	scif_epd_t epd;
	int n;

	(void)sock;
	(void)arg;
	unsetenv("XRMA_NODES");
	n = scif_get_nodeIDs(nodes, 16, &self);
	PROC_CHECK(n >= 2 && n <= 16);
	PROC_CHECK(self == FREE_NODE);
	for (int i = 0; i < n; i++) {
		PROC_CHECK(i == 0 || nodes[i] > nodes[i - 1]);
		has_host |= nodes[i] == 0;
		has_self |= nodes[i] == FREE_NODE;
	}
	PROC_CHECK(has_host && has_self);
	epd = scif_open();
	PROC_CHECK(epd >= 0);
	PROC_CHECK(scif_connect(epd, &absent) == -1 && errno == ECONNREFUSED);
	PROC_CHECK(scif_close(epd) == 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "connector", connector_main },
	{ "brief", brief_main },
	{ "no_node_file", no_node_file_main },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ errno */

static void *accept_sync(void *arg)
{
	scif_epd_t *epd = arg;
	struct scif_portID peer;
	scif_epd_t s;

	errno = SENTINEL;
	if (scif_accept(epd[0], &peer, &s, SCIF_ACCEPT_SYNC) || errno != SENTINEL)
		return NULL;
	epd[1] = s;
	return epd;
}

/*
 * A program's whole life, each call made with errno set to a sentinel: the
 * first call of the process (which opens the context and looks for a
 * configuration file), connection set-up, messages, registration, RMA,
 * fences, mapping and the closes (the last after the peer left).
 */
static void test_scif_successful_calls_leave_errno_alone(void **state)
{
	struct scif_pollepd pe = { .events = SCIF_POLLIN };
	struct scif_portID dst = { .node = 0 };
	uint16_t nodes[8], self;
	scif_epd_t l, c, pair[2] = { -1, -1 };
	char *mine = scif_test_pages(2), *theirs = scif_test_pages(2), *map;
	pthread_t thread;
	void *joined = NULL;
	int port, mark, got = 0;
	off_t off;

	(void)state;
	assert_keeps_errno(l = scif_open(), l >= 0);
	assert_keeps_errno(c = scif_open(), c >= 0);
	assert_keeps_errno(port = scif_bind(l, 0), port >= SCIF_PORT_RSVD);
	assert_keeps_errno(scif_listen(l, 4), keep_rc_ == 0);
	assert_keeps_errno(scif_get_nodeIDs(nodes, 8, &self), keep_rc_ >= 1);
	pair[0] = l;
	assert_int_equal(pthread_create(&thread, NULL, accept_sync, pair), 0);
	dst.port = (uint16_t)port;
	assert_keeps_errno(scif_connect(c, &dst), keep_rc_ >= SCIF_PORT_RSVD);
	assert_int_equal(fixture_join(thread, SCIF_TEST_TIMEOUT_MS, &joined), 0);
	assert_non_null(joined);

	assert_keeps_errno(scif_send(c, "mpss", 4, SCIF_SEND_BLOCK), keep_rc_ == 4);
	pe.epd = pair[1];
	assert_keeps_errno(scif_poll(&pe, 1, SCIF_TEST_TIMEOUT_MS), keep_rc_ == 1);
	assert_keeps_errno(scif_recv(pair[1], &got, 4, SCIF_RECV_BLOCK), keep_rc_ == 4);
	assert_memory_equal(&got, "mpss", 4);
	/* A non-blocking receive that finds nothing succeeds with 0. */
	assert_keeps_errno(scif_recv(pair[1], &got, 4, 0), keep_rc_ == 0);

	fixture_pattern(theirs, 2 * PAGE, 0x5a, 0);
	assert_keeps_errno(off = scif_register(pair[1], theirs, 2 * PAGE, 0x10000, RW, SCIF_MAP_FIXED),
			   off == 0x10000);
	assert_keeps_errno(off = scif_register(c, mine, 2 * PAGE, 0, RW, 0), off >= 0);
	assert_keeps_errno(scif_readfrom(c, off, 2 * PAGE, 0x10000, SCIF_RMA_SYNC), keep_rc_ == 0);
	assert_int_equal(fixture_pattern_check(mine, 2 * PAGE, 0x5a, 0), FIXTURE_MATCH);
	fixture_pattern(mine, PAGE, 0x3c, 0);
	assert_keeps_errno(scif_writeto(c, off, PAGE, 0x10000, 0), keep_rc_ == 0);
	assert_keeps_errno(scif_vwriteto(c, mine, PAGE, 0x10000 + PAGE, SCIF_RMA_USECACHE), keep_rc_ == 0);
	assert_keeps_errno(scif_vreadfrom(c, mine + PAGE, PAGE, 0x10000, 0), keep_rc_ == 0);
	assert_keeps_errno(scif_fence_mark(c, SCIF_FENCE_INIT_SELF, &mark), keep_rc_ == 0);
	assert_keeps_errno(scif_fence_wait(c, mark), keep_rc_ == 0);
	assert_keeps_errno(scif_fence_signal(c, off, 7, 0x10000 + PAGE, 9,
					     SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL | SCIF_SIGNAL_REMOTE),
			   keep_rc_ == 0);
	assert_int_equal(scif_test_wait_u64((volatile uint64_t *)(theirs + PAGE), 9, SCIF_TEST_TIMEOUT_MS), 0);
	assert_int_equal(fixture_pattern_check(theirs, PAGE, 0x3c, 0), FIXTURE_MATCH);

	errno = SENTINEL;
	map = scif_mmap(NULL, 2 * PAGE, RW, 0, c, 0x10000);
	if (map != SCIF_MMAP_FAILED) {
		assert_int_equal(errno, SENTINEL);
		assert_int_equal(map[PAGE + 8], theirs[PAGE + 8]);
		assert_keeps_errno(scif_munmap(map, 2 * PAGE), keep_rc_ == 0);
	} else {
		/* Providers that cannot map remote memory say so (docs/scif.md). */
		assert_int_equal(errno, EOPNOTSUPP);
	}
	assert_keeps_errno(scif_unregister(c, off, 2 * PAGE), keep_rc_ == 0);
	assert_keeps_errno(scif_unregister(pair[1], 0x10000, 2 * PAGE), keep_rc_ == 0);

	/* The peer closes first: the last close sees a stream whose other end is gone. */
	assert_keeps_errno(scif_close(pair[1]), keep_rc_ == 0);
	scif_test_wait_hup(c);
	assert_keeps_errno(scif_close(c), keep_rc_ == 0);
	assert_keeps_errno(scif_close(l), keep_rc_ == 0);
	scif_test_free(mine);
	scif_test_free(theirs);
}

/* ------------------------------------------------------------------ scif_connect's port */

static scif_epd_t listener = -1;
static char listen_arg[16];

static void connect_port_case(unsigned int bind_port)
{
	struct scif_portID peer;
	struct proc card;
	scif_epd_t s;
	int reported = 0;
	char arg[48];

	snprintf(arg, sizeof(arg), "%s %u", listen_arg, bind_port);
	assert_int_equal(proc_spawn(&card, NULL, CARD_NODE, "connector", arg), 0);
	assert_scif_ok(scif_accept(listener, &peer, &s, SCIF_ACCEPT_SYNC));
	assert_int_equal(scif_recv(s, &reported, sizeof(reported), SCIF_RECV_BLOCK), sizeof(reported));
	assert_int_equal(peer.node, CARD_NODE);
	/* What mpssd checks: the card's scif_connect result is the port accept reported. */
	assert_int_equal(reported, peer.port);
	if (bind_port)
		assert_int_equal(reported, bind_port);
	else
		assert_in_range(reported, SCIF_PORT_RSVD, UINT16_MAX);
	assert_int_equal(proc_send(card.sock, 1), 0);
	assert_int_equal(proc_join(&card, MPSS_TIMEOUT_MS), 0);
	assert_scif_ok(scif_close(s));
}

static void test_scif_connect_returns_implicitly_bound_port(void **state)
{
	(void)state;
	if (!proc_provider_multiproc())
		skip();
	connect_port_case(0);
}

static void test_scif_connect_returns_bound_port(void **state)
{
	(void)state;
	if (!proc_provider_multiproc())
		skip();
	connect_port_case(CARD_BOUND_PORT);
}

/* ------------------------------------------------------------------ scif_mmap's hint */

/* A free range of len bytes: reserved, then given back. */
static void *free_range(size_t len)
{
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	assert_int_equal(munmap(p, len), 0);
	return p;
}

static void test_scif_mmap_hint_used_when_free(void **state)
{
	struct scif_test_pair p;
	char *mem = scif_test_pages(2), *hint, *map;

	(void)state;
	scif_test_pair_open(&p);
	fixture_pattern(mem, 2 * PAGE, 0x21, 0);
	assert_int_equal(scif_register(p.server, mem, 2 * PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	hint = free_range(2 * PAGE);
	map = scif_mmap(hint, 2 * PAGE, RW, 0, p.client, 0);
	if (map == SCIF_MMAP_FAILED && errno == EOPNOTSUPP) {
		scif_test_pair_close(&p);
		scif_test_free(mem);
		skip();
	}
	assert_ptr_equal(map, hint);
	assert_int_equal(fixture_pattern_check(map, 2 * PAGE, 0x21, 0), FIXTURE_MATCH);
	map[5] = 0x77;
	assert_int_equal(mem[5], 0x77);
	assert_scif_ok(scif_munmap(map, 2 * PAGE));
	assert_scif_ok(scif_unregister(p.server, 0, 2 * PAGE));
	scif_test_pair_close(&p);
	scif_test_free(mem);
}

static void test_scif_mmap_hint_taken_maps_elsewhere(void **state)
{
	struct scif_test_pair p;
	char *mem = scif_test_pages(1), *taken, *map;

	(void)state;
	scif_test_pair_open(&p);
	fixture_pattern(mem, PAGE, 0x42, 0);
	assert_int_equal(scif_register(p.server, mem, PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	taken = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(taken != MAP_FAILED);
	taken[0] = 0x11;
	map = scif_mmap(taken, PAGE, RW, 0, p.client, 0);
	if (map == SCIF_MMAP_FAILED && errno == EOPNOTSUPP) {
		munmap(taken, PAGE);
		scif_test_pair_close(&p);
		scif_test_free(mem);
		skip();
	}
	/* Without SCIF_MAP_FIXED a hint never replaces what is there. */
	assert_true(map != SCIF_MMAP_FAILED);
	assert_ptr_not_equal(map, taken);
	assert_int_equal(taken[0], 0x11);
	assert_int_equal(fixture_pattern_check(map, PAGE, 0x42, 0), FIXTURE_MATCH);
	assert_scif_ok(scif_munmap(map, PAGE));
	assert_int_equal(munmap(taken, PAGE), 0);
	assert_scif_ok(scif_unregister(p.server, 0, PAGE));
	scif_test_pair_close(&p);
	scif_test_free(mem);
}

/* ------------------------------------------------------------------ start order, node set */

static void test_scif_connect_configured_node_not_started_refused(void **state)
{
	struct scif_portID dst = { .node = ABSENT_NODE, .port = 2000 };
	scif_epd_t epd = scif_open();

	(void)state;
	if (!proc_provider_multiproc())
		skip();
	assert_true(epd >= 0);
	assert_scif_errno(scif_connect(epd, &dst), ECONNREFUSED);
	/* Refused leaves the endpoint bound and usable: the tutorials' retry loop. */
	assert_scif_errno(scif_connect(epd, &dst), ECONNREFUSED);
	assert_scif_ok(scif_close(epd));
}

static void test_scif_connect_exited_node_refused(void **state)
{
	struct scif_portID dst = { .node = CARD_NODE, .port = 2000 };
	struct proc card;
	uint64_t up;
	scif_epd_t epd;

	(void)state;
	if (!proc_provider_multiproc())
		skip();
	assert_int_equal(proc_spawn(&card, NULL, CARD_NODE, "brief", NULL), 0);
	assert_int_equal(proc_recv(card.sock, &up, MPSS_TIMEOUT_MS), 0);
	/* Up, nobody listening on the port. */
	epd = scif_open();
	assert_true(epd >= 0);
	assert_scif_errno(scif_connect(epd, &dst), ECONNREFUSED);
	assert_int_equal(proc_send(card.sock, 1), 0);
	assert_int_equal(proc_join(&card, MPSS_TIMEOUT_MS), 0);
	/* Gone: still a node of the set, so still refused, not ENODEV. */
	assert_scif_errno(scif_connect(epd, &dst), ECONNREFUSED);
	assert_scif_ok(scif_close(epd));
}

static void test_scif_connect_unknown_node_enodev(void **state)
{
	struct scif_portID dst = { .node = UNKNOWN_NODE, .port = 2000 };
	scif_epd_t epd = scif_open();

	(void)state;
	if (!proc_provider_multiproc())
		skip();
	assert_true(epd >= 0);
	assert_scif_errno(scif_connect(epd, &dst), ENODEV);
	assert_scif_ok(scif_close(epd));
}

static void test_scif_get_nodeIDs_lists_node_file(void **state)
{
	uint16_t nodes[8] = { 0 }, self = 99, want[] = { 0, 1, 2, ABSENT_NODE };

	(void)state;
	if (!proc_provider_multiproc())
		skip();
	/* Only this node runs; the set is the node file's. */
	assert_int_equal(scif_get_nodeIDs(nodes, 8, &self), 4);
	assert_int_equal(self, 0);
	assert_memory_equal(nodes, want, sizeof(want));
	/* A short array gets the first ones; the count stays the whole set's. */
	memset(nodes, 0xff, sizeof(nodes));
	assert_int_equal(scif_get_nodeIDs(nodes, 2, &self), 4);
	assert_int_equal(nodes[0], 0);
	assert_int_equal(nodes[1], 1);
	assert_int_equal(nodes[2], 0xffff);
}

static void test_scif_get_nodeIDs_without_node_file(void **state)
{
	struct xrma_provider_info info;
	struct proc card;

	(void)state;
	if (!proc_provider_multiproc() || !proc_provider_info(&info) || strcmp(info.name, "ntb"))
		skip();
	assert_int_equal(proc_spawn(&card, NULL, FREE_NODE, "no_node_file", NULL), 0);
	assert_int_equal(proc_join(&card, MPSS_TIMEOUT_MS), 0);
}

/* ------------------------------------------------------------------ main */

static int mpss_up(void **state)
{
	int port;

	(void)state;
	listener = scif_open();
	if (listener < 0)
		return -1;
	port = scif_bind(listener, 0);
	if (port < 0 || scif_listen(listener, 4))
		return -1;
	snprintf(listen_arg, sizeof(listen_arg), "%d", port);
	return 0;
}

static int mpss_down(void **state)
{
	(void)state;
	if (listener >= 0)
		scif_close(listener);
	unlink(node_file);
	return 0;
}

int main(int argc, char **argv)
{
	/* The errno test runs first, before any other SCIF call of this process. */
	const struct CMUnitTest first[] = {
		cmocka_unit_test(test_scif_successful_calls_leave_errno_alone),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_scif_connect_returns_implicitly_bound_port, proc_teardown),
		cmocka_unit_test_teardown(test_scif_connect_returns_bound_port, proc_teardown),
		cmocka_unit_test(test_scif_mmap_hint_used_when_free),
		cmocka_unit_test(test_scif_mmap_hint_taken_maps_elsewhere),
		cmocka_unit_test(test_scif_connect_configured_node_not_started_refused),
		cmocka_unit_test_teardown(test_scif_connect_exited_node_refused, proc_teardown),
		cmocka_unit_test(test_scif_connect_unknown_node_enodev),
		cmocka_unit_test(test_scif_get_nodeIDs_lists_node_file),
		cmocka_unit_test_teardown(test_scif_get_nodeIDs_without_node_file, proc_teardown),
	};
	int rc, fd;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	scif_test_env("scif-mpss");
	/* The configured node set: the host, two cards, and a card that never starts. */
	snprintf(node_file, sizeof(node_file), "/tmp/xrma-scif-mpss-%ld.nodes", (long)getpid());
	fd = open(node_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dprintf(fd, "0 localhost\n1 localhost\n2 localhost\n%d localhost\n", ABSENT_NODE) < 0 ||
	    close(fd))
		return 1;
	setenv("XRMA_NODES", node_file, 1);
	rc = cmocka_run_group_tests_name("scif_mpss_errno", first, NULL, NULL);
	rc |= cmocka_run_group_tests_name("scif_mpss", tests, mpss_up, mpss_down);
	return rc;
}
