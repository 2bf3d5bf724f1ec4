/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/pximc/pximc_appendix_a.c: the flows of the PXImc specification's Appendix A as one
 * runnable program with two systems (two processes, pximc_demo.h):
 *   A.1 logical server (system 1) and logical client (system 2), found by findWindows and
 *       queryWindowInformation, data pushed both ways with assertEvent;
 *   A.3 peers requested by both systems at the same moment;
 *   A.2 / A.4 physical server and client, where the provider can expose physical ranges
 *       (no xrma provider can yet: the table shows the documented refusal).
 * Each system prints its steps as a table: flow, system, call, status, detail.
 * The protocol number is from the proprietary range (the spec's 0xABCD1000 is reserved).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "pximc_demo.h"

#define PROTOCOL 0xF0001000u
#define SERVER_UID 1587u
#define WAIT_MS 5000u

static const char server_data[] = "System 1 Server Process";

static void row(const struct pximc_demo *demo, const char *flow, const char *call,
		tPXIMC_Status status, const char *detail)
{
	printf("%-4s  sys%u  %-34s %-27s %s\n", flow, demo->self, call, pximc_demo_status(status),
	       detail);
	fflush(stdout);
}

/* Write text into a window, tell the partner, wait for its answer in our local window. */
static void exchange(struct pximc_demo *demo, const char *flow, uint32_t session, void *remote,
		     const void *local, bool first)
{
	char text[64], detail[96];
	uint32_t reason = 0;

	snprintf(text, sizeof(text), "hello from system %u", demo->self);
	if (!first) {
		row(demo, flow, "waitForSessionEvent",
		    PXIMC_waitForSessionEvent(session, WAIT_MS, &reason), "ASSERTED: data is there");
		snprintf(detail, sizeof(detail), "local window reads \"%s\"", (const char *)local);
		row(demo, flow, "(read local window)", PXIMC_SUCCESS, detail);
	}
	memcpy(remote, text, strlen(text) + 1);
	row(demo, flow, "assertEvent", PXIMC_assertEvent(session), "after writing the remote window");
	if (first) {
		pximc_demo_expect(PXIMC_waitForSessionEvent(session, WAIT_MS, &reason), PXIMC_SUCCESS,
				  "waitForSessionEvent");
		snprintf(detail, sizeof(detail), "reason %u, local window reads \"%s\"", reason,
			 (const char *)local);
		row(demo, flow, "waitForSessionEvent", PXIMC_SUCCESS, detail);
	}
}

static void flow_a1(struct pximc_demo *demo)
{
	void *remote = NULL, *local = NULL;
	uint64_t remote_size = 0, local_size = 0, max_local = 0;
	uint32_t session = 0, reason = 0, ids[8], count = 0, actual = 0;
	uint8_t data[64] = { 0 };
	char detail[128];
	tPXIMC_Status status;

	if (demo->self == 1) {
		status = PXIMC_requestWindowLogicalAsServer(demo->iface, PROTOCOL, 0x1000, 0x400,
							    0x1000, 0x400, SERVER_UID,
							    (const uint8_t *)server_data,
							    (uint32_t)strlen(server_data), &session);
		row(demo, "A.1", "requestWindowLogicalAsServer", status, "uid 1587, 0x400..0x1000");
		pximc_demo_send(demo, 1);
		status = PXIMC_waitForConnection(session, WAIT_MS, &remote, &remote_size, &local,
						 &local_size);
		snprintf(detail, sizeof(detail), "remote 0x%llx bytes, local 0x%llx bytes",
			 (unsigned long long)remote_size, (unsigned long long)local_size);
		row(demo, "A.1", "waitForConnection", status, detail);
		exchange(demo, "A.1", session, remote, local, false);
		status = PXIMC_waitForSessionEvent(session, WAIT_MS, &reason);
		row(demo, "A.1", "waitForSessionEvent", status,
		    reason == PXIMC_EVENT_CONNECTION_CLOSED ? "CONNECTION_CLOSED" : "?");
		row(demo, "A.1", "closeWindow", PXIMC_closeWindow(session), "resources freed now");
		pximc_demo_send(demo, 2);
		return;
	}
	pximc_demo_recv(demo);
	status = PXIMC_findWindows(demo->iface, 8, ids, &count);
	snprintf(detail, sizeof(detail), "%u window(s), first id %u", count, count ? ids[0] : 0);
	row(demo, "A.1", "findWindows", status, detail);
	status = PXIMC_queryWindowInformation(demo->iface, ids[0], PXIMC_U8_WINDOW_DATA,
					      sizeof(data) - 1, data, &actual);
	snprintf(detail, sizeof(detail), "window data \"%s\" (%u bytes)", (const char *)data, actual);
	row(demo, "A.1", "queryWindowInformation", status, detail);
	status = PXIMC_queryWindowInformation(demo->iface, ids[0], PXIMC_U64_WINDOW_MAX_LOCAL_SIZE, 8,
					      &max_local, &actual);
	snprintf(detail, sizeof(detail), "the server's max local 0x%llx = our max remote",
		 (unsigned long long)max_local);
	row(demo, "A.1", "queryWindowInformation", status, detail);
	status = PXIMC_requestWindowLogicalAsClient(demo->iface, PROTOCOL, 0x1000, 0x400, max_local,
						    0x400, ids[0], &session);
	row(demo, "A.1", "requestWindowLogicalAsClient", status, "paired on return");
	status = PXIMC_waitForConnection(session, 0, &remote, &remote_size, &local, &local_size);
	snprintf(detail, sizeof(detail), "remote 0x%llx bytes, local 0x%llx bytes",
		 (unsigned long long)remote_size, (unsigned long long)local_size);
	row(demo, "A.1", "waitForConnection", status, detail);
	exchange(demo, "A.1", session, remote, local, true);
	row(demo, "A.1", "closeWindow", PXIMC_closeWindow(session), "partner sees CONNECTION_CLOSED");
	pximc_demo_recv(demo);
}

static void flow_a3(struct pximc_demo *demo)
{
	void *remote = NULL, *local = NULL;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t session = 0;
	tPXIMC_Status status;

	/* Both systems request at the same moment: pairing does not depend on the order. */
	pximc_demo_send(demo, 3);
	pximc_demo_recv(demo);
	status = PXIMC_requestWindowLogicalAsPeer(demo->iface, PROTOCOL, 0x1000, 0, 0x1000, 0, 0,
						  NULL, 0, &session);
	row(demo, "A.3", "requestWindowLogicalAsPeer", status, "requested at the same moment");
	status = PXIMC_waitForConnection(session, WAIT_MS, &remote, &remote_size, &local,
					 &local_size);
	row(demo, "A.3", "waitForConnection", status, "paired with the other peer");
	exchange(demo, "A.3", session, remote, local, demo->self == 2);
	pximc_demo_send(demo, 4);
	pximc_demo_recv(demo);
	row(demo, "A.3", "closeWindow", PXIMC_closeWindow(session), "");
}

static void flow_physical(struct pximc_demo *demo)
{
	uint32_t session = 0;

	if (demo->self == 1) {
		row(demo, "A.2", "requestWindowPhysicalAsServer",
		    PXIMC_requestWindowPhysicalAsServer(demo->iface, PROTOCOL, 0x10000, 0, 0xF0000000u,
							 (const uint8_t *)"digitizer", 9, &session),
		    "a device BAR at 0xF0000000");
		pximc_demo_send(demo, 5);
		pximc_demo_recv(demo);
		return;
	}
	pximc_demo_recv(demo);
	row(demo, "A.4", "requestWindowPhysicalAsClient",
	    PXIMC_requestWindowPhysicalAsClient(demo->iface, PROTOCOL, 0x10000, 0x10000, 0, &session),
	    "no physical server to pair with");
	pximc_demo_send(demo, 6);
}

int main(int argc, char **argv)
{
	struct pximc_demo demo;

	pximc_demo_start(argc, argv, &demo);
	if (demo.self == 1)
		printf("%-4s  %-4s  %-34s %-27s %s\n", "flow", "sys", "call", "status", "detail");
	flow_a1(&demo);
	flow_a3(&demo);
	flow_physical(&demo);
	return pximc_demo_finish(&demo);
}
