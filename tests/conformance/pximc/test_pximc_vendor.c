/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/test_pximc_vendor.c: xrma's PXImc vendor library through the PXImc
 * API, with two systems A and B in one process (pximc_test.h): interfaces and their
 * attributes and events, window listing and attributes, the five requests and every step of
 * their sequence rules, pairing (types, sizes, protocol, uid, crossing peers), the data path,
 * session events, close and cleanup, physical address and device access. Spec test ideas
 * are cited as [idea N] (spec/pximc.md section 10).
 */
#include "tests/conformance/pximc/pximc_test.h"
#include "tests/helpers/proc.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>

static struct pxt_pair pp;

static int group_up(void **state)
{
	(void)state;
	return pxt_pair_open(&pp, "pximc");
}

static int group_down(void **state)
{
	(void)state;
	pxt_pair_close(&pp);
	return 0;
}

/* Each test starts on A with no session open on either side. */
static int test_up(void **state)
{
	(void)state;
	xrma_pximc_use(pp.b);
	PXIMC_cleanup();
	xrma_pximc_use(pp.a);
	PXIMC_cleanup();
	return 0;
}

static const uint8_t server_data[] = "System 1 Server Process";

/* A posts a logical server window; returns its session number. */
static uint32_t post_server(uint32_t uid, uint64_t max, uint64_t min)
{
	uint32_t session = 0;

	xrma_pximc_use(pp.a);
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, PXT_PROTO, max, min, max, min, uid,
						     server_data, 23, &session),
		  PXIMC_SUCCESS);
	assert_true(session != 0);
	return session;
}

/* B connects a logical client to A; returns its session number. */
static uint32_t connect_client(uint32_t uid, uint64_t max, uint64_t min)
{
	uint32_t session = 0;

	xrma_pximc_use(pp.b);
	assert_px(PXIMC_requestWindowLogicalAsClient(pp.if_ba, PXT_PROTO, max, min, max, min, uid,
						     &session),
		  PXIMC_SUCCESS);
	assert_true(session != 0);
	return session;
}

struct mapping {
	void *remote, *local;
	uint64_t remote_size, local_size;
};

static void wait_paired(struct xrma_pximc *px, uint32_t session, struct mapping *m)
{
	xrma_pximc_use(px);
	assert_px(PXIMC_waitForConnection(session, FIXTURE_TIMEOUT_MS, &m->remote, &m->remote_size,
					  &m->local, &m->local_size),
		  PXIMC_SUCCESS);
}

/* ------------------------------------------------------------------ interfaces */

static void test_find_interfaces_lists_remote_nodes_only(void **state)
{
	uint32_t ids[8] = { 0 }, actual = 0;

	(void)state;
	assert_px(PXIMC_findInterfaces(8, ids, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 1);
	assert_int_equal(ids[0], pp.if_ab);
	/* [idea 7] too small: the count, INSUFFICIENT_SPACE, nothing written. */
	ids[0] = 0;
	actual = 0;
	assert_px(PXIMC_findInterfaces(0, ids, &actual), PXIMC_INSUFFICIENT_SPACE);
	assert_int_equal(actual, 1);
	assert_int_equal(ids[0], 0);
	assert_px(PXIMC_findInterfaces(8, ids, NULL), PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_findInterfaces(8, NULL, &actual), PXIMC_INVALID_ARGUMENT);
}

static void test_query_interface_required_attributes(void **state)
{
	uint32_t value = 0, actual = 0;
	char text[256];

	(void)state;
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_U32_PROTOCOL_VERSION, 4, &value,
						  &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(value, PXIMC_SPEC_VERSION);
	assert_int_equal(actual, 4);
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_U32_MANF_ID, 4, &value, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(value >> 16, 0);
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_U32_INTERFACE_STATE, 4, &value,
						  &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(value, PXIMC_STATE_UP);
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_U32_REMOTE_WORD_SIZE, 4, &value,
						  &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(value, sizeof(void *) * 8);
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_STR_MANF_NAME, sizeof(text), text,
						  &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(actual, strlen(text) + 1);
	for (size_t i = 0; text[i]; i++)
		assert_true(text[i] >= 0x20 && text[i] <= 0x7e);
}

/* PCI location and ids are the adapter's (xrma/topo.h); the host adapter has none. */
static void test_query_interface_pci_attributes_follow_adapter(void **state)
{
	static const uint32_t pci_ids[] = {
		PXIMC_U32_INTERFACE_DEVICE_ID, PXIMC_U32_INTERFACE_VENDOR_ID, PXIMC_U32_INTERFACE_SS_ID,
		PXIMC_U32_INTERFACE_SS_VENDOR_ID, PXIMC_U32_INTERFACE_BUS, PXIMC_U32_INTERFACE_DEV,
		PXIMC_U32_INTERFACE_FUNC,
	};
	struct xrma_adapter_info a;
	uint32_t value = 0, actual = 0;
	bool host;

	(void)state;
	assert_int_equal(xrma_adapter_get(0, &a), 0);
	host = a.kind == XRMA_ADAPTER_HOST;
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_U32_INTERFACE_LOCAL, 4, &value,
						  &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(value, PXIMC_LOCAL);
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_U32_MANF_ID, 4, &value, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(value, host ? 0xFFFFu : a.vendor_id);
	for (size_t i = 0; i < sizeof(pci_ids) / sizeof(pci_ids[0]); i++)
		assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, pci_ids[i], 4, &value, &actual),
			  host ? PXIMC_NSUP_ATTRIBUTE : PXIMC_SUCCESS);
	if (!host) {
		assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_U32_INTERFACE_BUS, 4, &value,
							  &actual),
			  PXIMC_SUCCESS);
		assert_int_equal(value, a.pci_bus);
	}
}

static void test_query_interface_errors_write_nothing(void **state)
{
	uint32_t words[3] = { 0xdead, 0xdead, 0xdead }, actual = 99;
	char text[4] = "xyz";

	(void)state;
	assert_px(PXIMC_queryInterfaceInformation(0, PXIMC_U32_MANF_ID, 4, words, &actual),
		  PXIMC_INVALID_INTERFACE);
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ba, PXIMC_U32_MANF_ID, 4, words, &actual),
		  PXIMC_INVALID_INTERFACE);  /* A's own node is not an interface */
	assert_px(PXIMC_queryInterfaceInformation(999, PXIMC_U32_MANF_ID, 4, words, &actual),
		  PXIMC_INVALID_INTERFACE);
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, 0xF0000001u, 4, words, &actual),
		  PXIMC_NSUP_ATTRIBUTE);
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_U32_MANF_ID, 4,
						  (uint8_t *)words + 1, &actual),
		  PXIMC_ALIGNMENT_ERROR);
	/* [idea 15] max < 4: INSUFFICIENT_SPACE, actual 4, no byte written. */
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_U32_MANF_ID, 3, words, &actual),
		  PXIMC_INSUFFICIENT_SPACE);
	assert_int_equal(actual, 4);
	assert_int_equal(words[0], 0xdead);
	/* A string that fits only without its NUL is not returned. */
	assert_px(PXIMC_queryInterfaceInformation(pp.if_ab, PXIMC_STR_MANF_NAME, 4, text, &actual),
		  PXIMC_INSUFFICIENT_SPACE);
	assert_int_equal(actual, 5);
	assert_string_equal(text, "xyz");
}

static void test_interface_event_first_call_returns_then_times_out(void **state)
{
	uint32_t reason = 0;
	uint64_t start;

	(void)state;
	xrma_pximc_use(pp.b);
	/* [idea 20] The first call returns at once; then nothing is pending. */
	assert_px(PXIMC_waitForInterfaceEvent(pp.if_ba, 0, &reason), PXIMC_SUCCESS);
	assert_true(reason != 0);
	reason = 77;
	start = fixture_now_ms();
	assert_px(PXIMC_waitForInterfaceEvent(pp.if_ba, FIXTURE_SHORT_MS, &reason), PXIMC_TIMEOUT);
	assert_true(fixture_now_ms() - start >= FIXTURE_SHORT_MS);
	assert_int_equal(reason, 77);
	assert_px(PXIMC_waitForInterfaceEvent(0, 0, &reason), PXIMC_INVALID_INTERFACE);
	assert_px(PXIMC_waitForInterfaceEvent(pp.if_ba, 0, NULL), PXIMC_INVALID_ARGUMENT);
}

static void test_interface_event_reports_posted_window(void **state)
{
	uint32_t reason = 0, session;

	(void)state;
	xrma_pximc_use(pp.b);
	while (PXIMC_waitForInterfaceEvent(pp.if_ba, 0, &reason) == PXIMC_SUCCESS)
		;
	session = post_server(0, PXT_SIZE, 0);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_waitForInterfaceEvent(pp.if_ba, FIXTURE_TIMEOUT_MS, &reason), PXIMC_SUCCESS);
	assert_true(reason & PXIMC_EVENT_WINDOW_STATE_CHANGE);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_closeWindow(session), PXIMC_SUCCESS);
}

/* ------------------------------------------------------------------ windows */

static void test_find_windows_lists_posted_and_drops_closed(void **state)
{
	uint32_t s1, s2, ids[4] = { 0 }, actual = 0;

	(void)state;
	s1 = post_server(1587, PXT_SIZE, 0x400);
	s2 = post_server(0, PXT_SIZE, 0x400);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_findWindows(pp.if_ba, 4, ids, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 2);
	assert_true(ids[0] == 1587 || ids[1] == 1587);
	/* [idea 27] auto-assigned uids are never 0 and differ from the manual one. */
	assert_true(ids[0] != 0 && ids[1] != 0 && ids[0] != ids[1]);
	assert_px(PXIMC_findWindows(pp.if_ba, 1, ids, &actual), PXIMC_INSUFFICIENT_SPACE);
	assert_int_equal(actual, 2);
	assert_px(PXIMC_findWindows(0, 4, ids, &actual), PXIMC_INVALID_INTERFACE);
	assert_px(PXIMC_findWindows(pp.if_ba, 4, ids, NULL), PXIMC_INVALID_ARGUMENT);
	/* A sees nothing posted by B. */
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_findWindows(pp.if_ab, 4, ids, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 0);
	assert_px(PXIMC_closeWindow(s1), PXIMC_SUCCESS);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_findWindows(pp.if_ba, 4, ids, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 1);
	assert_true(ids[0] != 1587);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_closeWindow(s2), PXIMC_SUCCESS);
}

static void test_query_window_attributes_match_request(void **state)
{
	uint8_t data[64] = { 0 };
	uint32_t u32 = 0, actual = 0, session;
	uint64_t u64 = 0;

	(void)state;
	session = post_server(1587, 0x1000, 0x400);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U8_WINDOW_DATA, sizeof(data),
					       data, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(actual, 23);
	assert_memory_equal(data, server_data, 23);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U32_WINDOW_CONNECTION_TYPE, 4,
					       &u32, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(u32, PXIMC_CONNECTION_SERVER);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U32_WINDOW_LOCATION_TYPE, 4,
					       &u32, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(u32, PXIMC_LOCATION_LOGICAL);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U32_WINDOW_PROTOCOL_NUMBER, 4,
					       &u32, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(u32, PXT_PROTO);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U32_WINDOW_PAIRING_STATE, 4,
					       &u32, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(u32, PXIMC_WINDOW_UNPAIRED);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U64_WINDOW_MIN_LOCAL_SIZE, 8,
					       &u64, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(u64, 0x400);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U64_WINDOW_MAX_REMOTE_SIZE, 8,
					       &u64, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(u64, 0x1000);
	/* Errors: unknown window, unknown attribute, alignment, space. */
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 4242, PXIMC_U32_WINDOW_PAIRING_STATE, 4,
					       &u32, &actual),
		  PXIMC_INVALID_WINDOW);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, 0x30000077u, 4, &u32, &actual),
		  PXIMC_NSUP_ATTRIBUTE);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U64_WINDOW_MAX_LOCAL_SIZE, 8,
					       (uint8_t *)&data[4], &actual),
		  PXIMC_ALIGNMENT_ERROR);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U8_WINDOW_DATA, 4, data,
					       &actual),
		  PXIMC_INSUFFICIENT_SPACE);
	assert_int_equal(actual, 23);
	assert_px(PXIMC_queryWindowInformation(0, 1587, PXIMC_U8_WINDOW_DATA, 4, data, &actual),
		  PXIMC_INVALID_INTERFACE);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_closeWindow(session), PXIMC_SUCCESS);
}

/* ------------------------------------------------------------------ request validation */

static void test_server_request_sequence_errors(void **state)
{
	uint8_t big[1025] = { 0 };
	uint32_t session = 0xabcd;

	(void)state;
	assert_px(PXIMC_requestWindowLogicalAsServer(0, 1, 16, 0, 16, 0, 0, NULL, 0, &session),
		  PXIMC_INVALID_INTERFACE);
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, 1, 0, 0, 0, 0, 0, NULL, 0, &session),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, 1, 16, 32, 16, 0, 0, NULL, 0,
						     &session),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, 1, 16, 0, 16, 32, 0, NULL, 0,
						     &session),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, 1, 16, 0, 16, 0, 0, big, 1025,
						     &session),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, 1, PXIMC_MAXIMUM_WINDOW_SIZE,
						     PXIMC_MAXIMUM_WINDOW_SIZE, 16, 0, 0, NULL, 0,
						     &session),
		  PXIMC_SPACE_NOT_AVAILABLE);
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, 1, 16, 0, 16, 0, 0, NULL, 0, NULL),
		  PXIMC_INVALID_ARGUMENT);
	/* Nothing was written on any failure. */
	assert_int_equal(session, 0xabcd);
}

static void test_server_uid_conflict_and_data_limit(void **state)
{
	uint8_t data[1024];
	uint32_t s1, s2 = 0x77, actual = 0;

	(void)state;
	memset(data, 0x5a, sizeof(data));
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, 1, 16, 0, 16, 0, 9, data, 1024, &s1),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, 1, 16, 0, 16, 0, 9, NULL, 0, &s2),
		  PXIMC_UID_CONFLICT);
	assert_int_equal(s2, 0x77);
	/* The peer request conflicts too when it has to post. */
	assert_px(PXIMC_requestWindowLogicalAsPeer(pp.if_ab, 1, 16, 0, 16, 0, 9, NULL, 0, &s2),
		  PXIMC_UID_CONFLICT);
	xrma_pximc_use(pp.b);
	memset(data, 0, sizeof(data));
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 9, PXIMC_U8_WINDOW_DATA, sizeof(data), data,
					       &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(actual, 1024);
	assert_int_equal(data[1023], 0x5a);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_closeWindow(s1), PXIMC_SUCCESS);
	/* Once closed the uid is free again. */
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, 1, 16, 0, 16, 0, 9, NULL, 0, &s1),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_closeWindow(s1), PXIMC_SUCCESS);
}

static void test_client_without_matching_server_gets_no_pairing(void **state)
{
	uint32_t server, session = 0x55;

	(void)state;
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_requestWindowLogicalAsClient(pp.if_ba, PXT_PROTO, 16, 0, 16, 0, 0, &session),
		  PXIMC_NO_PAIRING);
	server = post_server(300, 0x1000, 0x800);
	xrma_pximc_use(pp.b);
	/* Wrong protocol, wrong uid, sizes that cannot overlap, server-to-server. */
	assert_px(PXIMC_requestWindowLogicalAsClient(pp.if_ba, PXT_PROTO + 1, 0x1000, 0, 0x1000, 0, 0,
						     &session),
		  PXIMC_NO_PAIRING);
	assert_px(PXIMC_requestWindowLogicalAsClient(pp.if_ba, PXT_PROTO, 0x1000, 0, 0x1000, 0, 301,
						     &session),
		  PXIMC_NO_PAIRING);
	assert_px(PXIMC_requestWindowLogicalAsClient(pp.if_ba, PXT_PROTO, 0x400, 0, 0x400, 0, 0,
						     &session),
		  PXIMC_NO_PAIRING);
	assert_px(PXIMC_requestWindowLogicalAsPeer(pp.if_ba, PXT_PROTO, 0x1000, 0, 0x1000, 0, 0, NULL,
						   0, &session),
		  PXIMC_SUCCESS);  /* a peer never pairs with a server: it posts */
	assert_px(PXIMC_closeWindow(session), PXIMC_SUCCESS);
	assert_px(PXIMC_requestWindowLogicalAsClient(pp.if_ba, PXT_PROTO, 16, 32, 16, 0, 0, &session),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowLogicalAsClient(0, PXT_PROTO, 16, 0, 16, 0, 0, &session),
		  PXIMC_INVALID_INTERFACE);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_closeWindow(server), PXIMC_SUCCESS);
}

/* ------------------------------------------------------------------ pairing and data */

static void test_server_client_pair_share_windows_and_events(void **state)
{
	struct mapping ms, mc;
	uint32_t server, client, reason = 0, u32 = 0, actual = 0;

	(void)state;
	server = post_server(1587, 0x1000, 0x400);
	client = connect_client(1587, 0x1000, 0x400);
	/* [idea 45] a client is paired when its request returns: polling succeeds. */
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_waitForConnection(client, 0, &mc.remote, &mc.remote_size, &mc.local,
					  &mc.local_size),
		  PXIMC_SUCCESS);
	wait_paired(pp.a, server, &ms);
	assert_int_equal(ms.local_size, 0x1000);
	assert_int_equal(ms.remote_size, 0x1000);
	assert_int_equal(mc.local_size, ms.remote_size);
	assert_int_equal(mc.remote_size, ms.local_size);
	/* Push both ways, then tell the other side. */
	fixture_pattern(mc.remote, 0x1000, 3, 0);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_assertEvent(client), PXIMC_SUCCESS);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_waitForSessionEvent(server, FIXTURE_TIMEOUT_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_ASSERTED);
	assert_int_equal(fixture_pattern_check(ms.local, 0x1000, 3, 0), FIXTURE_MATCH);
	fixture_pattern(ms.remote, 0x1000, 4, 0);
	assert_px(PXIMC_assertEvent(server), PXIMC_SUCCESS);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_waitForSessionEvent(client, FIXTURE_TIMEOUT_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_ASSERTED);
	assert_int_equal(fixture_pattern_check(mc.local, 0x1000, 4, 0), FIXTURE_MATCH);
	/* The window shows paired, with min == max == the actual sizes. */
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U32_WINDOW_PAIRING_STATE, 4,
					       &u32, &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(u32, PXIMC_WINDOW_PAIRED);
	/* A paired server is not offered to a second client. */
	assert_px(PXIMC_requestWindowLogicalAsClient(pp.if_ba, PXT_PROTO, 0x1000, 0, 0x1000, 0, 1587,
						     &u32),
		  PXIMC_NO_PAIRING);
	assert_px(PXIMC_closeWindow(client), PXIMC_SUCCESS);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_waitForSessionEvent(server, FIXTURE_TIMEOUT_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_CONNECTION_CLOSED);
	assert_px(PXIMC_closeWindow(server), PXIMC_SUCCESS);
}

static void test_sizes_negotiate_to_the_net_maximum(void **state)
{
	struct mapping ms, mc;
	uint32_t server, client;

	(void)state;
	xrma_pximc_use(pp.a);
	/* Server: local 0x400..0x2000, no remote window. Client: remote up to 0x1000. */
	assert_px(PXIMC_requestWindowLogicalAsServer(pp.if_ab, PXT_PROTO, 0x2000, 0x400, 0, 0, 0, NULL,
						     0, &server),
		  PXIMC_SUCCESS);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_requestWindowLogicalAsClient(pp.if_ba, PXT_PROTO, 0, 0, 0x1000, 0x100, 0,
						     &client),
		  PXIMC_SUCCESS);
	/* Outputs of a window that was not requested may be NULL. */
	assert_px(PXIMC_waitForConnection(client, 0, &mc.remote, &mc.remote_size, NULL, NULL),
		  PXIMC_SUCCESS);
	assert_int_equal(mc.remote_size, 0x1000);
	wait_paired(pp.a, server, &ms);
	assert_int_equal(ms.local_size, 0x1000);
	assert_int_equal(ms.remote_size, 0);
	assert_null(ms.remote);
	memset(mc.remote, 0x6b, 0x1000);
	assert_int_equal(fixture_check(ms.local, 0x1000, 0x6b), FIXTURE_MATCH);
	assert_px(PXIMC_closeWindow(server), PXIMC_SUCCESS);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_closeWindow(client), PXIMC_SUCCESS);
}

struct peer_arg {
	struct xrma_pximc *px;
	uint32_t iface;
	struct fixture_barrier *barrier;
	tPXIMC_Status status;
	uint32_t session;
};

static void *peer_thread(void *arg)
{
	struct peer_arg *p = arg;

	xrma_pximc_use(p->px);
	fixture_barrier_wait(p->barrier, FIXTURE_TIMEOUT_MS);
	p->status = PXIMC_requestWindowLogicalAsPeer(p->iface, PXT_PROTO, 0x1000, 0, 0x1000, 0, 0,
						     NULL, 0, &p->session);
	return NULL;
}

/* [idea 60] Peers posted at the same moment pair with each other, exactly once. */
static void test_peers_posted_at_once_pair_with_each_other(void **state)
{
	struct fixture_barrier barrier;

	(void)state;
	fixture_barrier_init(&barrier, 2);
	for (int round = 0; round < 20; round++) {
		struct peer_arg pa = { pp.a, pp.if_ab, &barrier, 0, 0 };
		struct peer_arg pb = { pp.b, pp.if_ba, &barrier, 0, 0 };
		struct mapping ma, mb;
		pthread_t ta, tb;

		assert_int_equal(pthread_create(&ta, NULL, peer_thread, &pa), 0);
		assert_int_equal(pthread_create(&tb, NULL, peer_thread, &pb), 0);
		assert_int_equal(fixture_join(ta, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
		assert_int_equal(fixture_join(tb, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
		assert_px(pa.status, PXIMC_SUCCESS);
		assert_px(pb.status, PXIMC_SUCCESS);
		wait_paired(pp.a, pa.session, &ma);
		wait_paired(pp.b, pb.session, &mb);
		/* They are each other's partner: a write shows on the other side. */
		*(volatile uint32_t *)ma.remote = 0x1000u + (uint32_t)round;
		assert_int_equal(*(volatile uint32_t *)mb.local, 0x1000u + (uint32_t)round);
		xrma_pximc_use(pp.a);
		assert_px(PXIMC_closeWindow(pa.session), PXIMC_SUCCESS);
		xrma_pximc_use(pp.b);
		assert_px(PXIMC_closeWindow(pb.session), PXIMC_SUCCESS);
	}
	fixture_barrier_destroy(&barrier);
}

static void test_peer_posted_first_pairs_with_later_peer(void **state)
{
	struct mapping ma, mb;
	uint32_t sa, sb, uid = 0, actual;

	(void)state;
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_requestWindowLogicalAsPeer(pp.if_ab, PXT_PROTO, 0x800, 0, 0x800, 0, 0, NULL, 0,
						   &sa),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_waitForConnection(sa, 0, &ma.remote, &ma.remote_size, &ma.local,
					  &ma.local_size),
		  PXIMC_TIMEOUT);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_findWindows(pp.if_ba, 1, &uid, &actual), PXIMC_SUCCESS);
	/* UID targeting: B names A's window. */
	assert_px(PXIMC_requestWindowLogicalAsPeer(pp.if_ba, PXT_PROTO, 0x1000, 0, 0x1000, 0, uid,
						   NULL, 0, &sb),
		  PXIMC_SUCCESS);
	wait_paired(pp.b, sb, &mb);
	wait_paired(pp.a, sa, &ma);
	assert_int_equal(ma.local_size, 0x800);
	assert_int_equal(mb.local_size, 0x800);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_closeWindow(sb), PXIMC_SUCCESS);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_closeWindow(sa), PXIMC_SUCCESS);
}

/* ------------------------------------------------------------------ session states */

static void test_session_calls_follow_the_state(void **state)
{
	struct mapping m;
	uint32_t server, client, reason = 0;
	uint64_t address = 5;

	(void)state;
	server = post_server(0, 0x1000, 0);
	xrma_pximc_use(pp.a);
	/* Posted, not paired. */
	assert_px(PXIMC_assertEvent(server), PXIMC_NO_PAIRING);
	assert_px(PXIMC_waitForSessionEvent(server, 0, &reason), PXIMC_NO_PAIRING);
	assert_px(PXIMC_getPhysicalAddress(server, &address), PXIMC_NO_PAIRING);
	assert_px(PXIMC_enableDeviceAccess(server, PXIMC_DEVICE_ACCESS_READ, 0, 0, 0),
		  PXIMC_NO_PAIRING);
	assert_px(PXIMC_waitForConnection(server, FIXTURE_SHORT_MS, &m.remote, &m.remote_size,
					  &m.local, &m.local_size),
		  PXIMC_TIMEOUT);
	/* Unknown sessions. */
	assert_px(PXIMC_assertEvent(0), PXIMC_INVALID_SESSION);
	assert_px(PXIMC_waitForSessionEvent(12345, 0, &reason), PXIMC_INVALID_SESSION);
	assert_px(PXIMC_waitForConnection(12345, 0, NULL, NULL, NULL, NULL), PXIMC_INVALID_SESSION);
	assert_px(PXIMC_getPhysicalAddress(12345, &address), PXIMC_INVALID_SESSION);
	assert_px(PXIMC_enableDeviceAccess(12345, 1, 0, 0, 0), PXIMC_INVALID_SESSION);
	assert_px(PXIMC_closeWindow(12345), PXIMC_INVALID_SESSION);
	/* A session belongs to its instance: B does not know A's number. */
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_assertEvent(server), PXIMC_INVALID_SESSION);
	client = connect_client(0, 0x1000, 0);
	wait_paired(pp.a, server, &m);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_waitForSessionEvent(server, 0, &reason), PXIMC_TIMEOUT);
	/* Device access: argument checks first, then what the provider can do. */
	assert_px(PXIMC_enableDeviceAccess(server, 0x4, 0, 0, 0), PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_enableDeviceAccess(server, 0, 0, 0, 0), PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_enableDeviceAccess(server, 1, 256, 0, 0), PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_enableDeviceAccess(server, 1, 0, 32, 0), PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_enableDeviceAccess(server, 1, 0, 0, 8), PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_enableDeviceAccess(server, PXIMC_DEVICE_ACCESS_CLEAR_ALL | 1, 0, 0, 0),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_getPhysicalAddress(server, NULL), PXIMC_INVALID_ARGUMENT);
	if (m.remote_size == 0) {
		/* This server asked for no remote window. */
		assert_px(PXIMC_getPhysicalAddress(server, &address), PXIMC_NO_WINDOW);
		assert_px(PXIMC_enableDeviceAccess(server, 3, 1, 2, 3), PXIMC_NO_WINDOW);
	}
	assert_int_equal(address, 5);
	xrma_pximc_use(pp.b);
	{
		/* Without XRMA_CAP_BUS_ADDR: the documented "no physical resource". */
		tPXIMC_Status want = proc_provider_caps() & XRMA_CAP_BUS_ADDR
					     ? PXIMC_SUCCESS
					     : PXIMC_PHY_RESOURCE_NOT_AVAILABLE;

		assert_px(PXIMC_getPhysicalAddress(client, &address), want);
		assert_px(PXIMC_enableDeviceAccess(client, 3, 1, 2, 3), want);
		assert_px(PXIMC_enableDeviceAccess(client, PXIMC_DEVICE_ACCESS_CLEAR_ALL, 1, 2, 3),
			  want);
	}
	/* After the partner closed: sticky CONNECTION_CLOSED, SESSION_CLOSED elsewhere. */
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_closeWindow(server), PXIMC_SUCCESS);
	xrma_pximc_use(pp.b);
	for (int i = 0; i < 2; i++) {
		assert_px(PXIMC_waitForSessionEvent(client, FIXTURE_TIMEOUT_MS, &reason),
			  PXIMC_SUCCESS);
		assert_int_equal(reason, PXIMC_EVENT_CONNECTION_CLOSED);
	}
	assert_px(PXIMC_assertEvent(client), PXIMC_SESSION_CLOSED);
	assert_px(PXIMC_waitForConnection(client, 0, &m.remote, &m.remote_size, &m.local,
					  &m.local_size),
		  PXIMC_SESSION_CLOSED);
	assert_px(PXIMC_getPhysicalAddress(client, &address), PXIMC_SESSION_CLOSED);
	assert_px(PXIMC_closeWindow(client), PXIMC_SUCCESS);
	assert_px(PXIMC_closeWindow(client), PXIMC_INVALID_SESSION);
}

struct waiter_arg {
	struct xrma_pximc *px;
	uint32_t session;
	tPXIMC_Status status;
	uint32_t reason;
};

static void *waiter_thread(void *arg)
{
	struct waiter_arg *w = arg;

	xrma_pximc_use(w->px);
	w->status = PXIMC_waitForSessionEvent(w->session, PXIMC_TIMEOUT_INFINITE, &w->reason);
	return NULL;
}

static void test_blocked_waiter_wakes_on_assert(void **state)
{
	struct waiter_arg w = { 0 };
	struct mapping m;
	uint32_t server, client;
	pthread_t t;

	(void)state;
	server = post_server(0, 0x1000, 0);
	client = connect_client(0, 0x1000, 0);
	wait_paired(pp.a, server, &m);
	w.px = pp.a;
	w.session = server;
	assert_int_equal(pthread_create(&t, NULL, waiter_thread, &w), 0);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_assertEvent(client), PXIMC_SUCCESS);
	assert_px(PXIMC_assertEvent(client), PXIMC_SUCCESS);  /* coalesces */
	assert_int_equal(fixture_join(t, FIXTURE_TIMEOUT_MS, NULL), 0);
	assert_px(w.status, PXIMC_SUCCESS);
	assert_int_equal(w.reason, PXIMC_EVENT_ASSERTED);
	assert_px(PXIMC_closeWindow(client), PXIMC_SUCCESS);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_closeWindow(server), PXIMC_SUCCESS);
}

/* B's view of A's server window 1587: the remote (A's) and local (B's client) bits. */
static uint32_t event_status_from_b(void)
{
	uint32_t u32 = 0xFFu, actual = 0;

	xrma_pximc_use(pp.b);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 1587, PXIMC_U32_SESSION_EVENT_STATUS, 4,
					       &u32, &actual),
		  PXIMC_SUCCESS);
	return u32;
}

static void test_session_event_status_has_both_sides(void **state)
{
	const uint32_t remote_pending = PXIMC_WINDOW_REMOTE_EVENT_PENDING;
	const uint32_t local_pending = PXIMC_WINDOW_LOCAL_EVENT_PENDING;
	struct waiter_arg w = { 0 };
	uint32_t server, client, reason = 0, status = 0;
	struct mapping m;
	pthread_t t;

	(void)state;
	server = post_server(1587, 0x1000, 0);
	client = connect_client(1587, 0x1000, 0);
	wait_paired(pp.a, server, &m);
	assert_int_equal(event_status_from_b(), 0);
	assert_px(PXIMC_assertEvent(client), PXIMC_SUCCESS);
	assert_int_equal(event_status_from_b(), remote_pending);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_assertEvent(server), PXIMC_SUCCESS);
	assert_int_equal(event_status_from_b(), remote_pending | local_pending);
	/* Looking does not consume: each side still gets its event. */
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_waitForSessionEvent(server, 0, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_ASSERTED);
	assert_int_equal(event_status_from_b(), local_pending);
	assert_px(PXIMC_waitForSessionEvent(client, 0, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_ASSERTED);
	assert_int_equal(event_status_from_b(), 0);
	/* A thread of B blocked on its client is a local waiter; of A on its server, a remote one. */
	w.px = pp.b;
	w.session = client;
	assert_int_equal(pthread_create(&t, NULL, waiter_thread, &w), 0);
	for (int i = 0; i < 100000 && status != PXIMC_WINDOW_LOCAL_SESSION_WAITING; i++) {
		status = event_status_from_b();
		if (status != PXIMC_WINDOW_LOCAL_SESSION_WAITING)
			sched_yield();
	}
	assert_int_equal(status, PXIMC_WINDOW_LOCAL_SESSION_WAITING);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_assertEvent(server), PXIMC_SUCCESS);
	assert_int_equal(fixture_join(t, FIXTURE_TIMEOUT_MS, NULL), 0);
	assert_px(w.status, PXIMC_SUCCESS);
	assert_int_equal(w.reason, PXIMC_EVENT_ASSERTED);
	w = (struct waiter_arg){ .px = pp.a, .session = server };
	assert_int_equal(pthread_create(&t, NULL, waiter_thread, &w), 0);
	status = 0;
	for (int i = 0; i < 100000 && status != PXIMC_WINDOW_REMOTE_SESSION_WAITING; i++) {
		status = event_status_from_b();
		if (status != PXIMC_WINDOW_REMOTE_SESSION_WAITING)
			sched_yield();
	}
	assert_int_equal(status, PXIMC_WINDOW_REMOTE_SESSION_WAITING);
	assert_px(PXIMC_assertEvent(client), PXIMC_SUCCESS);
	assert_int_equal(fixture_join(t, FIXTURE_TIMEOUT_MS, NULL), 0);
	assert_px(w.status, PXIMC_SUCCESS);
	assert_px(PXIMC_closeWindow(client), PXIMC_SUCCESS);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_closeWindow(server), PXIMC_SUCCESS);
}

static void test_cleanup_closes_every_session(void **state)
{
	uint32_t servers[3], clients[3], reason = 0, ids[4], actual;
	struct mapping m;

	(void)state;
	for (int i = 0; i < 3; i++) {
		servers[i] = post_server((uint32_t)(700 + i), 0x1000, 0);
		clients[i] = connect_client((uint32_t)(700 + i), 0x1000, 0);
	}
	for (int i = 0; i < 3; i++)
		wait_paired(pp.a, servers[i], &m);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_cleanup(), PXIMC_SUCCESS);
	for (int i = 0; i < 3; i++)
		assert_px(PXIMC_closeWindow(servers[i]), PXIMC_INVALID_SESSION);
	assert_px(PXIMC_findInterfaces(4, ids, &actual), PXIMC_SUCCESS);
	xrma_pximc_use(pp.b);
	for (int i = 0; i < 3; i++) {
		assert_px(PXIMC_waitForSessionEvent(clients[i], FIXTURE_TIMEOUT_MS, &reason),
			  PXIMC_SUCCESS);
		assert_int_equal(reason, PXIMC_EVENT_CONNECTION_CLOSED);
		assert_px(PXIMC_closeWindow(clients[i]), PXIMC_SUCCESS);
	}
}

/* ------------------------------------------------------------------ interface state */

/* A node with a core context but no PXImc system: listed, DOWN, no windows to ask. */
static void test_node_without_pximc_is_a_down_interface(void **state)
{
	struct xrma_ctx_attr attr = { .fabric = pp.fabric, .node_id = 5 };
	struct xrma_ctx *plain;
	uint32_t ids[4], actual = 0, value = 0, session = 0, down = 5 + 1;

	(void)state;
	xrma_pximc_use(pp.a);
	assert_rc(xrma_ctx_open(&attr, &plain), 0);
	assert_px(PXIMC_findInterfaces(4, ids, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 2);
	assert_px(PXIMC_queryInterfaceInformation(down, PXIMC_U32_INTERFACE_STATE, 4, &value,
						  &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(value, PXIMC_STATE_DOWN);
	assert_px(PXIMC_queryInterfaceInformation(down, PXIMC_U32_REMOTE_WORD_SIZE, 4, &value,
						  &actual),
		  PXIMC_NSUP_ATTRIBUTE);
	assert_px(PXIMC_findWindows(down, 4, ids, &actual), PXIMC_INTERFACE_DOWN);
	assert_px(PXIMC_queryWindowInformation(down, 1, PXIMC_U32_WINDOW_PAIRING_STATE, 4, &value,
					       &actual),
		  PXIMC_INTERFACE_DOWN);
	assert_px(PXIMC_requestWindowLogicalAsClient(down, PXT_PROTO, 16, 0, 16, 0, 0, &session),
		  PXIMC_INTERFACE_DOWN);
	/* Posting does not need the other side (docs/pximc.md, ambiguity 22). */
	assert_px(PXIMC_requestWindowLogicalAsServer(down, PXT_PROTO, 16, 0, 16, 0, 0, NULL, 0,
						     &session),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_closeWindow(session), PXIMC_SUCCESS);
	assert_rc(xrma_ctx_close(plain), 0);
	/* Gone: no longer an interface. */
	assert_px(PXIMC_queryInterfaceInformation(down, PXIMC_U32_INTERFACE_STATE, 4, &value,
						  &actual),
		  PXIMC_INVALID_INTERFACE);
}

struct iface_waiter {
	_Atomic uint64_t tid;
	uint32_t iface;
	tPXIMC_Status status;
	uint32_t reason;
};

static void *iface_wait_thread(void *arg)
{
	struct iface_waiter *w = arg;

	xrma_pximc_use(pp.a);
	atomic_store(&w->tid, (uint64_t)fixture_gettid());
	w->status = PXIMC_waitForInterfaceEvent(w->iface, FIXTURE_TIMEOUT_MS, &w->reason);
	return NULL;
}

/* [idea 21] A system that goes away wakes a blocked interface waiter with STATE_CHANGE. */
static void test_interface_event_reports_system_leaving(void **state)
{
	struct xrma_ctx_attr attr = { .fabric = pp.fabric, .node_id = 6 };
	struct iface_waiter w = { .iface = 6 + 1 };
	struct xrma_pximc *c;
	uint32_t reason;
	pthread_t t;

	(void)state;
	assert_rc(xrma_pximc_open(&attr, &c), 0);
	xrma_pximc_use(pp.a);
	assert_px(PXIMC_waitForInterfaceEvent(w.iface, 0, &reason), PXIMC_SUCCESS);
	assert_int_equal(pthread_create(&t, NULL, iface_wait_thread, &w), 0);
	/* Close C only once the waiter sleeps in its wait. */
	for (uint64_t start = fixture_now_ms();
	     !atomic_load(&w.tid) && fixture_now_ms() - start < FIXTURE_TIMEOUT_MS;)
		sched_yield();
	assert_int_equal(fixture_wait_blocked((pid_t)atomic_load(&w.tid), FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_pximc_close(c), 0);
	assert_int_equal(fixture_join(t, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	assert_px(w.status, PXIMC_SUCCESS);
	assert_true(w.reason & PXIMC_EVENT_INTERFACE_STATE_CHANGE);
}

struct churn_arg {
	struct fixture_barrier *barrier;
	tPXIMC_Status failed;
};

static void *churn_thread(void *arg)
{
	struct churn_arg *c = arg;

	xrma_pximc_use(pp.a);
	fixture_barrier_wait(c->barrier, FIXTURE_TIMEOUT_MS);
	for (int i = 0; i < 40 && !c->failed; i++) {
		uint32_t session = 0;
		tPXIMC_Status status = PXIMC_requestWindowLogicalAsServer(
			pp.if_ab, PXT_PROTO, 16, 0, 16, 0, 0, NULL, 0, &session);

		if (status == PXIMC_SUCCESS)
			status = PXIMC_closeWindow(session);
		if (status != PXIMC_SUCCESS)
			c->failed = status;
	}
	return NULL;
}

/* [idea 4] Threads posting and closing at once while the other side lists: all succeed. */
static void test_threads_post_and_close_concurrently(void **state)
{
	struct fixture_barrier barrier;
	struct churn_arg args[4];
	pthread_t threads[4];
	uint32_t ids[64], actual;

	(void)state;
	fixture_barrier_init(&barrier, 4);
	for (int i = 0; i < 4; i++) {
		args[i] = (struct churn_arg){ &barrier, PXIMC_SUCCESS };
		assert_int_equal(pthread_create(&threads[i], NULL, churn_thread, &args[i]), 0);
	}
	xrma_pximc_use(pp.b);
	for (int i = 0; i < 20; i++)
		assert_px(PXIMC_findWindows(pp.if_ba, 64, ids, &actual), PXIMC_SUCCESS);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 4, NULL), 0);
		assert_px(args[i].failed, PXIMC_SUCCESS);
	}
	fixture_barrier_destroy(&barrier);
	assert_px(PXIMC_findWindows(pp.if_ba, 64, ids, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 0);
}

/* ------------------------------------------------------------------ physical windows */

static void test_physical_requests(void **state)
{
	uint32_t session = 0x99;

	(void)state;
	assert_px(PXIMC_requestWindowPhysicalAsServer(0, 1, 0x1000, 0, 0xF0000000u, NULL, 0, &session),
		  PXIMC_INVALID_INTERFACE);
	assert_px(PXIMC_requestWindowPhysicalAsServer(pp.if_ab, 1, 0, 0, 0xF0000000u, NULL, 0,
						      &session),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowPhysicalAsServer(pp.if_ab, 1, 0x1000, 0, 0, NULL, 0, &session),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowPhysicalAsServer(pp.if_ab, 1, 0x1000, 0, 0xF0000000u, NULL,
						      1025, &session),
		  PXIMC_INVALID_ARGUMENT);
	/* No device memory covers this address (docs/pximc.md, "Physical windows"). */
	assert_px(PXIMC_requestWindowPhysicalAsServer(pp.if_ab, 1, 0x1000, 0, 0xF0000000u, NULL, 0,
						      &session),
		  PXIMC_PHY_RESOURCE_NOT_AVAILABLE);
	/* [idea 39] minRemoteSize 0 is refused (the rule, not examples A.2/A.4). */
	assert_px(PXIMC_requestWindowPhysicalAsClient(pp.if_ab, 1, 0x1000, 0, 0, &session),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowPhysicalAsClient(pp.if_ab, 1, 0x100, 0x1000, 0, &session),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowPhysicalAsClient(pp.if_ab, 1, 0x1000, 0x1000, 0, &session),
		  PXIMC_NO_PAIRING);
	assert_int_equal(session, 0x99);
}

/* Appendix A.2/A.4 on a provider with bus addresses: B's client reaches A's device memory. */
static void test_physical_server_exposes_device_memory(void **state)
{
	static const uint8_t tag[] = "digitizer";
	uint32_t server = 0, client = 0, wid = 0, u32 = 0, actual = 0, reason = 0;
	void *dev = NULL, *remote = (void *)1, *local = (void *)1;
	uint64_t bus = 0, rs = 1, ls = 1, u64 = 0, pa = 0;

	(void)state;
	if (!(proc_provider_caps() & XRMA_CAP_BUS_ADDR)) {
		/* Without bus addresses there is no device memory to expose. */
		assert_int_equal(xrma_pximc_device_memory(pp.a, 0x2000, &bus, &dev), -XRMA_ENOTSUP);
		skip();
	}
	assert_int_equal(xrma_pximc_device_memory(pp.a, 0x2000, NULL, &dev), -XRMA_EINVAL);
	assert_int_equal(xrma_pximc_device_memory(pp.a, 0, &bus, &dev), -XRMA_EINVAL);
	assert_int_equal(xrma_pximc_device_memory(pp.a, 0x2001, &bus, &dev), -XRMA_EINVAL);
	assert_int_equal(xrma_pximc_device_memory(pp.a, 0x2000, &bus, &dev), 0);
	assert_true(bus != 0 && dev != NULL);
	xrma_pximc_use(pp.a);
	/* Off a page of the device memory, past its end, or where none is. */
	assert_px(PXIMC_requestWindowPhysicalAsServer(pp.if_ab, PXT_PROTO, 0x800, 0, bus + 0x800,
						      NULL, 0, &server),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowPhysicalAsServer(pp.if_ab, PXT_PROTO, 0x2000, 0, bus + 0x1000,
						      NULL, 0, &server),
		  PXIMC_PHY_RESOURCE_NOT_AVAILABLE);
	assert_px(PXIMC_requestWindowPhysicalAsServer(pp.if_ab, PXT_PROTO, 0x1000, 0, bus - 0x1000,
						      NULL, 0, &server),
		  PXIMC_PHY_RESOURCE_NOT_AVAILABLE);
	assert_int_equal(server, 0);
	assert_px(PXIMC_requestWindowPhysicalAsServer(pp.if_ab, PXT_PROTO, 0x1000, 77, bus + 0x1000,
						      tag, sizeof(tag), &server),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_requestWindowPhysicalAsServer(pp.if_ab, PXT_PROTO, 0x1000, 77, bus, NULL, 0,
						      &u32),
		  PXIMC_UID_CONFLICT);
	/* B sees a physical server window of exactly localSize [idea 38]. */
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_findWindows(pp.if_ba, 1, &wid, &actual), PXIMC_SUCCESS);
	assert_int_equal(wid, 77);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 77, PXIMC_U32_WINDOW_LOCATION_TYPE, 4, &u32,
					       &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(u32, PXIMC_LOCATION_PHYSICAL);
	assert_px(PXIMC_queryWindowInformation(pp.if_ba, 77, PXIMC_U64_WINDOW_MAX_LOCAL_SIZE, 8, &u64,
					       &actual),
		  PXIMC_SUCCESS);
	assert_int_equal(u64, 0x1000);
	/* Logical does not pair with physical; a range that excludes the size does not pair. */
	assert_px(PXIMC_requestWindowLogicalAsClient(pp.if_ba, PXT_PROTO, 0, 0, 0x1000, 0x1000, 77,
						     &client),
		  PXIMC_NO_PAIRING);
	assert_px(PXIMC_requestWindowPhysicalAsClient(pp.if_ba, PXT_PROTO, 0x800, 0x400, 77, &client),
		  PXIMC_NO_PAIRING);
	assert_px(PXIMC_requestWindowPhysicalAsClient(pp.if_ba, PXT_PROTO, 0x4000, 0x800, 77,
						      &client),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_waitForConnection(client, 0, &remote, &rs, &local, &ls), PXIMC_SUCCESS);
	assert_non_null(remote);
	assert_int_equal(rs, 0x1000);
	assert_null(local);
	assert_int_equal(ls, 0);
	assert_px(PXIMC_getPhysicalAddress(client, &pa), PXIMC_SUCCESS);
	assert_int_equal(pa, bus + 0x1000);
	fixture_pattern(remote, 0x1000, 9, 0);
	assert_int_equal(fixture_pattern_check((uint8_t *)dev + 0x1000, 0x1000, 9, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_check(dev, 0x1000, 0), FIXTURE_MATCH);
	/* The server reaches neither window (R8, sizes 0/0 as in A.2). */
	xrma_pximc_use(pp.a);
	rs = ls = 1;
	remote = local = (void *)1;
	assert_px(PXIMC_waitForConnection(server, FIXTURE_TIMEOUT_MS, &remote, &rs, &local, &ls),
		  PXIMC_SUCCESS);
	assert_null(remote);
	assert_null(local);
	assert_int_equal(rs + ls, 0);
	assert_px(PXIMC_getPhysicalAddress(server, &pa), PXIMC_NO_WINDOW);
	assert_px(PXIMC_closeWindow(server), PXIMC_SUCCESS);
	xrma_pximc_use(pp.b);
	assert_px(PXIMC_waitForSessionEvent(client, FIXTURE_TIMEOUT_MS, &reason), PXIMC_SUCCESS);
	assert_int_equal(reason, PXIMC_EVENT_CONNECTION_CLOSED);
	assert_px(PXIMC_closeWindow(client), PXIMC_SUCCESS);
}

static void test_header_values_are_the_specification_s(void **state)
{
	(void)state;
	assert_int_equal((uint32_t)PXIMC_INSUFFICIENT_SPACE, 0x80001000u);
	assert_int_equal((uint32_t)PXIMC_ALIGNMENT_ERROR, 0x8000100Eu);
	assert_int_equal(PXIMC_INVALID_INTERFACE, -2147479551);
	assert_int_equal(PXIMC_NO_PROVIDER, 0x10001000);
	assert_int_equal(PXIMC_TIMEOUT, 0x10001001);
	assert_true(PXIMC_MAXIMUM_WINDOW_SIZE == UINT64_MAX);
	assert_true(PXIMC_TIMEOUT_INFINITE == UINT32_MAX);
	assert_int_equal(PXIMC_DEVICE_ACCESS_CLEAR_ALL, 0x80000000u);
	assert_int_equal(PXIMC_U64_WINDOW_MAX_LOCAL_SIZE, 0x40000004);
	assert_int_equal(PXIMC_STR_REMOTE_OS, 0x10000006);
	assert_int_equal(PXIMC_U32_REMOTE_WORD_SIZE, 0x3000000D);
	assert_int_equal(PXIMC_EVENT_INTERFACE_DOWN, 3);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, test_up)
	const struct CMUnitTest tests[] = {
		T(test_header_values_are_the_specification_s),
		T(test_find_interfaces_lists_remote_nodes_only),
		T(test_query_interface_required_attributes),
		T(test_query_interface_pci_attributes_follow_adapter),
		T(test_query_interface_errors_write_nothing),
		T(test_interface_event_first_call_returns_then_times_out),
		T(test_interface_event_reports_posted_window),
		T(test_find_windows_lists_posted_and_drops_closed),
		T(test_query_window_attributes_match_request),
		T(test_server_request_sequence_errors),
		T(test_server_uid_conflict_and_data_limit),
		T(test_client_without_matching_server_gets_no_pairing),
		T(test_server_client_pair_share_windows_and_events),
		T(test_sizes_negotiate_to_the_net_maximum),
		T(test_peers_posted_at_once_pair_with_each_other),
		T(test_peer_posted_first_pairs_with_later_peer),
		T(test_session_calls_follow_the_state),
		T(test_blocked_waiter_wakes_on_assert),
		T(test_session_event_status_has_both_sides),
		T(test_cleanup_closes_every_session),
		T(test_physical_requests),
		T(test_physical_server_exposes_device_memory),
		T(test_node_without_pximc_is_a_down_interface),
		T(test_interface_event_reports_system_leaving),
		T(test_threads_post_and_close_concurrently),
	};
#undef T
	return cmocka_run_group_tests_name("pximc_vendor", tests, group_up, group_down);
}
