/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/pximc/pximc_appendix_a.c: the flows of the PXImc specification's Appendix A as one
 * runnable program with two systems (two processes, pximc_demo.h):
 *   A.1 logical server (system 1) and logical client (system 2), found by findWindows and
 *       queryWindowInformation, data pushed both ways with assertEvent;
 *   A.3 peers requested by both systems at the same moment;
 *   A.2 / A.4 physical server (system 1, exposing device memory at its bus address) and
 *       physical client (system 2, writing into it), on providers with bus addresses (ntb);
 *       elsewhere the table shows the documented refusals.
 * Each system prints its steps as a table: flow, system, call, status, detail.
 * The protocol number is from the proprietary range (the spec's 0xABCD1000 is reserved).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <pximc_xrma.h>
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
	void *remote = NULL, *local = NULL, *dev = NULL;
	uint64_t remote_size = 0, local_size = 0, bus = 0xF0000000u, pa = 0;
	uint32_t session = 0, reason = 0;
	tPXIMC_Status status;
	char detail[96];

	if (demo->self == 1) {
		/* The "digitizer": device memory with a bus address in our inbound windows. */
		if (xrma_pximc_device_memory(NULL, 0x10000, &bus, &dev))
			dev = NULL;
		snprintf(detail, sizeof(detail), "device memory at bus 0x%llx",
			 (unsigned long long)bus);
		row(demo, "A.2", "requestWindowPhysicalAsServer",
		    PXIMC_requestWindowPhysicalAsServer(demo->iface, PROTOCOL, 0x10000, 0, bus,
							 (const uint8_t *)"digitizer", 9, &session),
		    detail);
		pximc_demo_send(demo, 5);
		if (session) {
			row(demo, "A.2", "waitForConnection",
			    PXIMC_waitForConnection(session, WAIT_MS, &remote, &remote_size, &local,
						    &local_size),
			    "both windows NULL, sizes 0/0 (R8)");
		}
		pximc_demo_recv(demo);
		if (session && dev) {
			snprintf(detail, sizeof(detail), "device memory reads \"%s\"",
				 (const char *)dev);
			row(demo, "A.2", "(read device memory)", PXIMC_SUCCESS, detail);
			row(demo, "A.2", "closeWindow", PXIMC_closeWindow(session), "");
		}
		pximc_demo_send(demo, 7);
		return;
	}
	pximc_demo_recv(demo);
	/* minRemoteSize 0 as in the example is refused by the rule: ask for the exact size. */
	status = PXIMC_requestWindowPhysicalAsClient(demo->iface, PROTOCOL, 0x10000, 0x10000, 0,
						     &session);
	row(demo, "A.4", "requestWindowPhysicalAsClient", status,
	    status ? "no physical server to pair with" : "paired with the physical server");
	if (session) {
		row(demo, "A.4", "waitForConnection",
		    PXIMC_waitForConnection(session, 0, &remote, &remote_size, &local, &local_size),
		    "remote window only");
		snprintf(detail, sizeof(detail), "0x%llx",
			 PXIMC_getPhysicalAddress(session, &pa) ? 0ull : (unsigned long long)pa);
		row(demo, "A.4", "getPhysicalAddress", PXIMC_SUCCESS, detail);
		strcpy(remote, "samples from system 2");
	}
	pximc_demo_send(demo, 6);
	pximc_demo_recv(demo);
	if (session) {
		row(demo, "A.4", "waitForSessionEvent", PXIMC_waitForSessionEvent(session, WAIT_MS,
										  &reason),
		    "CONNECTION_CLOSED: the server closed");
		row(demo, "A.4", "closeWindow", PXIMC_closeWindow(session), "");
	}
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
