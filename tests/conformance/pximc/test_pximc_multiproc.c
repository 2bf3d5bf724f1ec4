/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/test_pximc_multiproc.c: PXImc between real processes, each a node,
 * through the Dispatcher (libpximc) and xrma's vendor library found in a vendor directory made
 * here: server and client with size negotiation and data both ways, peers requested at the
 * same moment, uid targeting among several servers, and a partner killed while paired (the
 * survivor sees CONNECTION_CLOSED and keeps working). Skipped on providers whose nodes share
 * one process (loopback). On a provider that cannot map remote memory (ofi) windows cannot be
 * used by load and store: there, interfaces and window look-ups work across processes and every
 * window request is PXIMC_PHY_RESOURCE_NOT_AVAILABLE; the session tests are skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/conformance/pximc/pximc_test.h"
#include "tests/helpers/proc.h"

#define MP_WAIT_MS 5000
/* The same bound for the library's own waits, which proc_* does not stretch. */
#define MP_CALL_MS proc_scaled_ms(MP_WAIT_MS)
/* Waiting for a child to come up: longer than it looks for us, so that its own failure is logged. */
#define MP_UP_WAIT_MS (2 * MP_WAIT_MS)
#define MP_PARENT_NODE 1u
#define MP_CHILD_NODE 2u

static char fabric[XRMA_NAME_MAX];
static char vendor_dir[64];
static char vendor_link[128];

/* ------------------------------------------------------------------ child roles */

/* Client of the parent's server uid 1587: sizes, data both ways, events, close. */
static int role_client(int sock, const char *arg)
{
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t iface, session, reason = 0, wid = 0, actual = 0;
	uint8_t data[64] = { 0 };

	(void)arg;
	iface = pxt_interface_wait(MP_PARENT_NODE, MP_CALL_MS);
	PROC_CHECK(iface != 0);
	PROC_CHECK(proc_send(sock, 100) == 0);              /* our instance is up */
	PROC_CHECK(proc_expect(sock, 1, MP_WAIT_MS) == 0);  /* the server is posted */
	PROC_CHECK_EQ(PXIMC_findWindows(iface, 1, &wid, &actual), PXIMC_SUCCESS);
	PROC_CHECK(actual == 1 && wid == 1587);
	PROC_CHECK_EQ(PXIMC_queryWindowInformation(iface, wid, PXIMC_U8_WINDOW_DATA, sizeof(data), data,
						&actual), PXIMC_SUCCESS);
	PROC_CHECK(actual == 23 && !memcmp(data, "System 1 Server Process", 23));
	PROC_CHECK_EQ(PXIMC_requestWindowLogicalAsClient(iface, PXT_PROTO, 0x1000, 0x400, 0x1000, 0x400,
						      wid, &session), PXIMC_SUCCESS);
	PROC_CHECK_EQ(PXIMC_waitForConnection(session, 0, &remote, &remote_size, &local,
					   &local_size), PXIMC_SUCCESS);
	PROC_CHECK(remote_size == 0x1000 && local_size == 0x1000);
	memset(remote, 0xc1, 0x1000);
	PROC_CHECK_EQ(PXIMC_assertEvent(session), PXIMC_SUCCESS);
	PROC_CHECK_EQ(PXIMC_waitForSessionEvent(session, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	PROC_CHECK(reason == PXIMC_EVENT_ASSERTED);
	for (size_t i = 0; i < 0x1000; i++)
		PROC_CHECK(((uint8_t *)local)[i] == 0x5e);
	PROC_CHECK_EQ(PXIMC_closeWindow(session), PXIMC_SUCCESS);
	PROC_CHECK_EQ(PXIMC_cleanup(), PXIMC_SUCCESS);
	return 0;
}

/* Peer requested when the parent says go, at the moment the parent requests its own. */
static int role_peer(int sock, const char *arg)
{
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t iface, session;

	(void)arg;
	iface = pxt_interface_wait(MP_PARENT_NODE, MP_CALL_MS);
	PROC_CHECK(iface != 0);
	PROC_CHECK(proc_send(sock, 1) == 0);
	PROC_CHECK(proc_expect(sock, 2, MP_WAIT_MS) == 0);
	PROC_CHECK_EQ(PXIMC_requestWindowLogicalAsPeer(iface, PXT_PROTO, 0x1000, 0, 0x1000, 0, 0, NULL,
						    0, &session), PXIMC_SUCCESS);
	PROC_CHECK_EQ(PXIMC_waitForConnection(session, MP_CALL_MS, &remote, &remote_size, &local,
					   &local_size), PXIMC_SUCCESS);
	*(volatile uint32_t *)remote = 0xfeed;
	PROC_CHECK_EQ(PXIMC_assertEvent(session), PXIMC_SUCCESS);
	PROC_CHECK(proc_expect(sock, 3, MP_WAIT_MS) == 0);  /* the parent saw it */
	PROC_CHECK_EQ(PXIMC_closeWindow(session), PXIMC_SUCCESS);
	return 0;
}

/* Client of the server whose uid the parent names; then waits to be killed or released. */
static int role_targeted(int sock, const char *arg)
{
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t iface, session;

	iface = pxt_interface_wait(MP_PARENT_NODE, MP_CALL_MS);
	PROC_CHECK(iface != 0);
	PROC_CHECK(proc_send(sock, 100) == 0);
	PROC_CHECK(proc_expect(sock, 1, MP_WAIT_MS) == 0);
	PROC_CHECK(PXIMC_requestWindowLogicalAsClient(iface, PXT_PROTO, 0x1000, 0, 0x1000, 0,
						      (uint32_t)atoi(arg), &session) ==
		   PXIMC_SUCCESS);
	PROC_CHECK_EQ(PXIMC_waitForConnection(session, 0, &remote, &remote_size, &local,
					   &local_size), PXIMC_SUCCESS);
	*(volatile uint32_t *)remote = (uint32_t)atoi(arg);
	PROC_CHECK(proc_send(sock, 2) == 0);
	/* Hold the session until the parent is done (or kills us). */
	PROC_CHECK(proc_expect(sock, 3, MP_WAIT_MS) == 0);
	PROC_CHECK_EQ(PXIMC_closeWindow(session), PXIMC_SUCCESS);
	return 0;
}

/* Client of uid 1587 while the parent takes our link down and up again. */
static int role_link(int sock, const char *arg)
{
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t iface, session, reason = 0;

	(void)arg;
	iface = pxt_interface_wait(MP_PARENT_NODE, MP_CALL_MS);
	PROC_CHECK(iface != 0);
	PROC_CHECK(proc_send(sock, 100) == 0);
	PROC_CHECK(proc_expect(sock, 1, MP_WAIT_MS) == 0);
	PROC_CHECK_EQ(PXIMC_requestWindowLogicalAsClient(iface, PXT_PROTO, 0x1000, 0, 0x1000, 0, 1587,
						      &session), PXIMC_SUCCESS);
	PROC_CHECK_EQ(PXIMC_waitForConnection(session, 0, &remote, &remote_size, &local,
					   &local_size), PXIMC_SUCCESS);
	PROC_CHECK(proc_send(sock, 2) == 0);
	/* Our own link goes down: a blocked wait is told. */
	PROC_CHECK_EQ(PXIMC_waitForSessionEvent(session, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	PROC_CHECK(reason == PXIMC_EVENT_INTERFACE_DOWN);
	PROC_CHECK_EQ(PXIMC_assertEvent(session), PXIMC_INTERFACE_DOWN);
	PROC_CHECK(proc_send(sock, 3) == 0);
	/* Back up: events flow again. */
	PROC_CHECK_EQ(PXIMC_waitForSessionEvent(session, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	PROC_CHECK(reason == PXIMC_EVENT_ASSERTED);
	*(volatile uint32_t *)remote = 0xbacc;
	PROC_CHECK_EQ(PXIMC_assertEvent(session), PXIMC_SUCCESS);
	PROC_CHECK(proc_expect(sock, 4, MP_WAIT_MS) == 0);
	PROC_CHECK_EQ(PXIMC_closeWindow(session), PXIMC_SUCCESS);
	return 0;
}

/* Up, seen by the parent, and gone when told (no window: the provider cannot map). */
static int role_bare(int sock, const char *arg)
{
	uint32_t iface;

	(void)arg;
	iface = pxt_interface_wait(MP_PARENT_NODE, MP_CALL_MS);
	PROC_CHECK(iface != 0);
	PROC_CHECK(proc_send(sock, 100) == 0);
	/* The parent makes a dozen calls meanwhile, each a round trip or more. */
	PROC_CHECK(proc_expect(sock, 1, 6 * MP_WAIT_MS) == 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "bare", role_bare },
	{ "link", role_link },
	{ "client", role_client },
	{ "peer", role_peer },
	{ "targeted", role_targeted },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ parent tests */

/* Nodes in one process cannot be killed apart: these tests need a multi-process provider. */
static void skip_unless_multiproc(void)
{
	if (!proc_provider_multiproc())
		skip();
}

/* Sessions are load/store windows: they need a provider that maps remote memory. */
static void skip_unless_sessions(void)
{
	skip_unless_multiproc();
	if (!(proc_provider_caps() & XRMA_CAP_MAP))
		skip();
}

static void test_server_and_client_processes_exchange_data(void **state)
{
	struct proc child;
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t iface, session, reason = 0;

	(void)state;
	skip_unless_sessions();
	assert_int_equal(proc_spawn(&child, fabric, MP_CHILD_NODE, "client", NULL), 0);
	assert_int_equal(proc_expect(child.sock, 100, MP_UP_WAIT_MS), 0);
	iface = pxt_interface_to(MP_CHILD_NODE);
	assert_true(iface != 0);
	/* Server: local 0x400..0x2000; the client's 0x1000 decides. */
	assert_px(PXIMC_requestWindowLogicalAsServer(iface, PXT_PROTO, 0x2000, 0x400, 0x2000, 0x400,
						     1587,
						     (const uint8_t *)"System 1 Server Process", 23,
						     &session),
		  PXIMC_SUCCESS);
	assert_int_equal(proc_send(child.sock, 1), 0);
	assert_px(PXIMC_waitForConnection(session, MP_CALL_MS, &remote, &remote_size, &local,
					  &local_size),
		  PXIMC_SUCCESS);
	assert_int_equal(remote_size, 0x1000);
	assert_int_equal(local_size, 0x1000);
	assert_px(PXIMC_waitForSessionEvent(session, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_ASSERTED);
	assert_int_equal(fixture_check(local, 0x1000, 0xc1), FIXTURE_MATCH);
	memset(remote, 0x5e, 0x1000);
	assert_px(PXIMC_assertEvent(session), PXIMC_SUCCESS);
	assert_px(PXIMC_waitForSessionEvent(session, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_CONNECTION_CLOSED);
	assert_px(PXIMC_closeWindow(session), PXIMC_SUCCESS);
	assert_int_equal(proc_join(&child, MP_WAIT_MS), 0);
}

static void test_peer_processes_requesting_at_once_pair(void **state)
{
	struct proc child;
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t iface, session, reason = 0;

	(void)state;
	skip_unless_sessions();
	assert_int_equal(proc_spawn(&child, fabric, MP_CHILD_NODE, "peer", NULL), 0);
	assert_int_equal(proc_expect(child.sock, 1, MP_WAIT_MS), 0);
	iface = pxt_interface_to(MP_CHILD_NODE);
	assert_true(iface != 0);
	assert_int_equal(proc_send(child.sock, 2), 0);
	assert_px(PXIMC_requestWindowLogicalAsPeer(iface, PXT_PROTO, 0x1000, 0, 0x1000, 0, 0, NULL, 0,
						   &session),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_waitForConnection(session, MP_CALL_MS, &remote, &remote_size, &local,
					  &local_size),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_waitForSessionEvent(session, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_ASSERTED);
	assert_int_equal(*(volatile uint32_t *)local, 0xfeed);
	assert_int_equal(proc_send(child.sock, 3), 0);
	assert_int_equal(proc_join(&child, MP_WAIT_MS), 0);
	assert_px(PXIMC_closeWindow(session), PXIMC_SUCCESS);
}

/* Two servers; the child names the second by uid; then it is killed while paired. */
static void test_uid_targeting_and_partner_killed_while_paired(void **state)
{
	struct proc child;
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t iface, s11, s12, reason = 0;

	(void)state;
	skip_unless_sessions();
	assert_int_equal(proc_spawn(&child, fabric, MP_CHILD_NODE, "targeted", "12"), 0);
	assert_int_equal(proc_expect(child.sock, 100, MP_UP_WAIT_MS), 0);
	iface = pxt_interface_to(MP_CHILD_NODE);
	assert_true(iface != 0);
	assert_px(PXIMC_requestWindowLogicalAsServer(iface, PXT_PROTO, 0x1000, 0, 0x1000, 0, 11, NULL,
						     0, &s11),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_requestWindowLogicalAsServer(iface, PXT_PROTO, 0x1000, 0, 0x1000, 0, 12, NULL,
						     0, &s12),
		  PXIMC_SUCCESS);
	assert_int_equal(proc_send(child.sock, 1), 0);
	assert_int_equal(proc_expect(child.sock, 2, MP_WAIT_MS), 0);
	assert_px(PXIMC_waitForConnection(s12, MP_CALL_MS, &remote, &remote_size, &local,
					  &local_size),
		  PXIMC_SUCCESS);
	assert_int_equal(*(volatile uint32_t *)local, 12);
	assert_px(PXIMC_waitForConnection(s11, 0, &remote, &remote_size, &local, &local_size),
		  PXIMC_TIMEOUT);
	/* SIGKILL: the survivor is told, and can still close and pair again. */
	proc_kill(&child);
	assert_px(PXIMC_waitForSessionEvent(s12, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_CONNECTION_CLOSED);
	assert_px(PXIMC_assertEvent(s12), PXIMC_SESSION_CLOSED);
	assert_px(PXIMC_closeWindow(s12), PXIMC_SUCCESS);
	assert_px(PXIMC_closeWindow(s11), PXIMC_SUCCESS);
}

/* Wait for an interface event carrying bit (earlier reports are skipped). */
static void expect_interface_event(uint32_t iface, uint32_t bit)
{
	uint32_t reason = 0;

	for (int i = 0; i < 8 && !(reason & bit); i++)
		assert_px(PXIMC_waitForInterfaceEvent(iface, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	assert_true(reason & bit);
}

static uint32_t interface_state(uint32_t iface)
{
	uint32_t state = 0, actual = 0;

	assert_px(PXIMC_queryInterfaceInformation(iface, PXIMC_U32_INTERFACE_STATE, 4, &state,
						  &actual),
		  PXIMC_SUCCESS);
	return state;
}

/* ntb's modelled link to the child goes down and up: INTERFACE_DOWN on both sides. */
static void test_link_down_is_interface_down_on_both_sides(void **state)
{
	struct xrma_ctx_attr attr = { .provider = NULL, .fabric = fabric, .node_id = MP_PARENT_NODE };
	struct xrma_ctx *ctx = NULL;
	struct proc child;
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t iface, session, reason = 0;

	(void)state;
	skip_unless_sessions();
	assert_int_equal(xrma_ctx_open(&attr, &ctx), 0);
	assert_int_equal(proc_spawn(&child, fabric, MP_CHILD_NODE, "link", NULL), 0);
	assert_int_equal(proc_expect(child.sock, 100, MP_UP_WAIT_MS), 0);
	iface = pxt_interface_to(MP_CHILD_NODE);
	assert_true(iface != 0);
	assert_px(PXIMC_requestWindowLogicalAsServer(iface, PXT_PROTO, 0x1000, 0, 0x1000, 0, 1587,
						     NULL, 0, &session),
		  PXIMC_SUCCESS);
	assert_int_equal(proc_send(child.sock, 1), 0);
	assert_int_equal(proc_expect(child.sock, 2, MP_WAIT_MS), 0);
	assert_px(PXIMC_waitForConnection(session, MP_CALL_MS, &remote, &remote_size, &local,
					  &local_size),
		  PXIMC_SUCCESS);
	/* Take what the interface reported so far. */
	assert_px(PXIMC_waitForInterfaceEvent(iface, 0, &reason), PXIMC_SUCCESS);
	if (xrma_node_set_link(ctx, MP_CHILD_NODE, false) == -XRMA_ENOTSUP) {
		xrma_ctx_close(ctx);
		proc_kill(&child);
		skip();
	}
	assert_px(PXIMC_waitForSessionEvent(session, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_INTERFACE_DOWN);
	assert_px(PXIMC_assertEvent(session), PXIMC_INTERFACE_DOWN);
	expect_interface_event(iface, PXIMC_EVENT_INTERFACE_STATE_CHANGE);
	assert_int_equal(interface_state(iface), PXIMC_STATE_DOWN);
	assert_px(PXIMC_findWindows(iface, 0, NULL, &reason), PXIMC_INTERFACE_DOWN);
	/* The event is consumed: the next wait times out. */
	assert_px(PXIMC_waitForSessionEvent(session, 0, &reason), PXIMC_TIMEOUT);
	assert_int_equal(proc_expect(child.sock, 3, MP_WAIT_MS), 0);
	assert_int_equal(xrma_node_set_link(ctx, MP_CHILD_NODE, true), 0);
	expect_interface_event(iface, PXIMC_EVENT_INTERFACE_STATE_CHANGE);
	assert_int_equal(interface_state(iface), PXIMC_STATE_UP);
	assert_px(PXIMC_assertEvent(session), PXIMC_SUCCESS);
	assert_px(PXIMC_waitForSessionEvent(session, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_ASSERTED);
	assert_int_equal(*(volatile uint32_t *)local, 0xbacc);
	assert_int_equal(proc_send(child.sock, 4), 0);
	assert_px(PXIMC_waitForSessionEvent(session, MP_CALL_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_CONNECTION_CLOSED);
	assert_px(PXIMC_closeWindow(session), PXIMC_SUCCESS);
	assert_int_equal(proc_join(&child, MP_WAIT_MS), 0);
	assert_int_equal(xrma_ctx_close(ctx), 0);
}

/* Without mapping: the child's interface and window look-ups work, every window request is refused. */
static void test_without_mapping_windows_are_refused(void **state)
{
	struct proc child;
	uint32_t iface, session = 0, actual = 99, state_now = 0;
	uint64_t addr = 0x100000;

	(void)state;
	skip_unless_multiproc();
	if (proc_provider_caps() & XRMA_CAP_MAP)
		skip();
	assert_int_equal(proc_spawn(&child, fabric, MP_CHILD_NODE, "bare", NULL), 0);
	assert_int_equal(proc_expect(child.sock, 100, MP_UP_WAIT_MS), 0);
	iface = pxt_interface_to(MP_CHILD_NODE);
	assert_true(iface != 0);
	assert_px(PXIMC_queryInterfaceInformation(iface, PXIMC_U32_INTERFACE_STATE, 4, &state_now,
						  &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(state_now, PXIMC_STATE_UP);
	assert_px(PXIMC_findWindows(iface, 0, NULL, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 0);
	assert_px(PXIMC_requestWindowLogicalAsServer(iface, PXT_PROTO, 0x1000, 0, 0x1000, 0, 1587,
						     NULL, 0, &session),
		  PXIMC_PHY_RESOURCE_NOT_AVAILABLE);
	assert_px(PXIMC_requestWindowLogicalAsClient(iface, PXT_PROTO, 0x1000, 0, 0x1000, 0, 1587,
						     &session),
		  PXIMC_PHY_RESOURCE_NOT_AVAILABLE);
	assert_px(PXIMC_requestWindowLogicalAsPeer(iface, PXT_PROTO, 0x1000, 0, 0x1000, 0, 0, NULL, 0,
						   &session),
		  PXIMC_PHY_RESOURCE_NOT_AVAILABLE);
	assert_px(PXIMC_requestWindowPhysicalAsClient(iface, PXT_PROTO, 0x1000, 0x1000, 0, &session),
		  PXIMC_PHY_RESOURCE_NOT_AVAILABLE);
	assert_px(PXIMC_requestWindowPhysicalAsServer(iface, PXT_PROTO, 0x1000, 0, addr, NULL, 0,
						      &session),
		  PXIMC_PHY_RESOURCE_NOT_AVAILABLE);
	/* Arguments are still checked first. */
	assert_px(PXIMC_requestWindowLogicalAsClient(iface, PXT_PROTO, 0, 0, 0, 0, 1587, &session),
		  PXIMC_INVALID_ARGUMENT);
	assert_int_equal(session, 0);
	assert_int_equal(proc_send(child.sock, 1), 0);
	assert_int_equal(proc_join(&child, MP_WAIT_MS), 0);
}

/* ------------------------------------------------------------------ setup */

static int group_up(void **state)
{
	const char *build = getenv("XRMA_TEST_BUILDDIR");
	char target[4096], node[16];
	tPXIMC_Status status;
	uint32_t count;

	(void)state;
	if (!proc_provider_multiproc())
		return 0;
	fixture_fabric_name(fabric, sizeof(fabric), "pximc-mp");
	snprintf(vendor_dir, sizeof(vendor_dir), "/tmp/pximc-mp-XXXXXX");
	if (!mkdtemp(vendor_dir) || !realpath(build ? build : ".", target) ||
	    strlen(target) + 32 > sizeof(target))
		return -1;
	strcat(target, "/.libs/libpximc_xrma.so");
	snprintf(vendor_link, sizeof(vendor_link), "%s/libpximc_xrma.so", vendor_dir);
	if (symlink(target, vendor_link))
		return -1;
	/* Children inherit these; the parent is node 1 of the same fabric. */
	snprintf(node, sizeof(node), "%u", MP_PARENT_NODE);
	setenv("PXIMC_VENDOR_PATH", vendor_dir, 1);
	setenv("XRMA_FABRIC", fabric, 1);
	setenv("XRMA_NODE_ID", node, 1);
	/* Bring the parent's own PXImc system up before any child looks for it. */
	status = PXIMC_findInterfaces(0, NULL, &count);
	return status == PXIMC_SUCCESS || status == PXIMC_INSUFFICIENT_SPACE ? 0 : -1;
}

static int group_down(void **state)
{
	(void)state;
	if (!vendor_link[0])
		return 0;
	PXIMC_cleanup();
	unlink(vendor_link);
	rmdir(vendor_dir);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_server_and_client_processes_exchange_data, proc_teardown),
		cmocka_unit_test_teardown(test_peer_processes_requesting_at_once_pair, proc_teardown),
		cmocka_unit_test_teardown(test_uid_targeting_and_partner_killed_while_paired, proc_teardown),
		cmocka_unit_test_teardown(test_link_down_is_interface_down_on_both_sides, proc_teardown),
		cmocka_unit_test_teardown(test_without_mapping_windows_are_refused, proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	return cmocka_run_group_tests_name("pximc_multiproc", tests, group_up, group_down);
}
