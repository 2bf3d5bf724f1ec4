/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/test_faults_pximc.c: PXImc partners killed at the named points of xrma's
 * PXImc library: a client killed in the middle of pairing, right after
 * waitForConnection, before its assertEvent reaches us and while closing its session,
 * and a server killed while answering our pairing request. The survivor's session ends
 * with CONNECTION_CLOSED (sticky; assertEvent says SESSION_CLOSED), a request never
 * hangs, and once the interface to the dead node is back, a fresh partner on the same
 * node pairs and exchanges data (docs/pximc.md "Events", docs/reliability.md). One
 * row kills nobody: the fail point pximc.pairing.reply_lost has our answer to a
 * client's pairing request lost, as to a requester gone meanwhile; our window must be
 * posted and listed again, so the client's second request pairs with it. Another has
 * two crossing peer requests meet in the order that once left both windows posted and
 * unpaired (the fail point pximc.request.answer_late holds our answer back).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <pximc.h>
#include "common/killpoint.h"
#include "tests/conformance/pximc/pximc_test.h"
#include "tests/faults/faults.h"
#include "tests/helpers/fixture.h"

#define SURVIVOR_NODE 1
#define VICTIM_NODE 2
#define PROTO 0xF0001234u
#define UID 1587
#define SIZE 0x1000u
#define WAIT_MS 10000u
#define POSTED 100
#define CLIENT_BYTE 0xc1
#define SERVER_BYTE 0x5e
#define CLIENT_STEPS 6
#define GO 101

enum scenario {
	SC_CLIENT,  /* the victim is a client of our server window */
	SC_SERVER,  /* the victim posts a server window; we are its client */
	SC_REPLY_LOST,   /* a fail point of ours: our pairing answer is lost, the client asks again */
	SC_CROSSING,     /* a fail point of ours: peers cross while our ask's answer is late */
};

static const struct faults_case cases[] = {
	{ "pximc.request.mid_pairing", SC_CLIENT, 2 },
	{ "pximc.wait_connection.after_pairing", SC_CLIENT, 3 },
	{ "pximc.assert_event.before_trigger", SC_CLIENT, 4 },
	{ "pximc.close_session.mid", SC_CLIENT, 6 },
	{ "pximc.pairing.before_reply", SC_SERVER, 2 },
	{ "pximc.pairing.reply_lost", SC_REPLY_LOST, 0 },
	{ "pximc.request.answer_late", SC_CROSSING, 0 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

#define CHECK_PX(call) PROC_CHECK((call) == PXIMC_SUCCESS)

static bool all_bytes(const void *buf, size_t len, uint8_t byte)
{
	return fixture_check(buf, len, byte) == FIXTURE_MATCH;
}

/* ------------------------------------------------------------------ victims */

/* arg "point|": a client of node 1's server window, six steps. */
static int client_main(int sock, const char *arg)
{
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t iface, session, reason = 0;

	faults_child_arm(arg);
	iface = pxt_interface_wait(SURVIVOR_NODE, FAULTS_WAIT_MS);
	PROC_CHECK(iface != 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	PROC_CHECK(proc_expect(sock, POSTED, FAULTS_WAIT_MS) == 0);
	CHECK_PX(PXIMC_requestWindowLogicalAsClient(iface, PROTO, SIZE, SIZE, SIZE, SIZE, UID, &session));
	PROC_CHECK(faults_step_done(sock, 2) == 0);
	CHECK_PX(PXIMC_waitForConnection(session, WAIT_MS, &remote, &remote_size, &local, &local_size));
	PROC_CHECK(remote_size == SIZE && local_size == SIZE);
	PROC_CHECK(faults_step_done(sock, 3) == 0);
	memset(remote, CLIENT_BYTE, SIZE);
	CHECK_PX(PXIMC_assertEvent(session));
	PROC_CHECK(faults_step_done(sock, 4) == 0);
	CHECK_PX(PXIMC_waitForSessionEvent(session, WAIT_MS, &reason));
	PROC_CHECK(reason == PXIMC_EVENT_ASSERTED);
	PROC_CHECK(all_bytes(local, SIZE, SERVER_BYTE));
	PROC_CHECK(faults_step_done(sock, 5) == 0);
	CHECK_PX(PXIMC_closeWindow(session));
	PROC_CHECK(faults_step_done(sock, 6) == 0);
	CHECK_PX(PXIMC_cleanup());
	return 0;
}

/*
 * Once session pairs: fill node 1's window, raise its event, step 2; on GO (node 1 has
 * seen the pairing and the event) close.
 */
static int raise_and_close(int sock, uint32_t session)
{
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;

	CHECK_PX(PXIMC_waitForConnection(session, WAIT_MS, &remote, &remote_size, &local, &local_size));
	memset(remote, CLIENT_BYTE, SIZE);
	CHECK_PX(PXIMC_assertEvent(session));
	PROC_CHECK(faults_step_done(sock, 2) == 0);
	PROC_CHECK(proc_expect(sock, GO, FAULTS_WAIT_MS) == 0);
	CHECK_PX(PXIMC_closeWindow(session));
	CHECK_PX(PXIMC_cleanup());
	return 0;
}

/*
 * A client whose first pairing answer node 1 loses (SC_REPLY_LOST): step 1 once its
 * interface is up, then the first request's status to node 1, then on GO a second
 * request, which must pair; step 2 once its event is raised; closes on a second GO.
 */
static int asks_twice_main(int sock, const char *arg)
{
	uint32_t iface, session = 0;

	(void)arg;
	iface = pxt_interface_wait(SURVIVOR_NODE, FAULTS_WAIT_MS);
	PROC_CHECK(iface != 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	PROC_CHECK(proc_expect(sock, POSTED, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(proc_send(sock, (uint64_t)PXIMC_requestWindowLogicalAsClient(
					   iface, PROTO, SIZE, SIZE, SIZE, SIZE, UID, &session)) == 0);
	PROC_CHECK(proc_expect(sock, GO, FAULTS_WAIT_MS) == 0);
	CHECK_PX(PXIMC_requestWindowLogicalAsClient(iface, PROTO, SIZE, SIZE, SIZE, SIZE, UID, &session));
	return raise_and_close(sock, session);
}

/*
 * The higher of two crossing peers (SC_CROSSING): step 1 once its interface is up; on GO
 * its peer request (which hears BUSY from node 1 and so only posts), then its status;
 * it must pair all the same: step 2 once its event is raised; closes on a second GO.
 */
static int crossing_peer_main(int sock, const char *arg)
{
	uint32_t iface, session = 0;

	(void)arg;
	iface = pxt_interface_wait(SURVIVOR_NODE, FAULTS_WAIT_MS);
	PROC_CHECK(iface != 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	PROC_CHECK(proc_expect(sock, GO, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(proc_send(sock, (uint64_t)PXIMC_requestWindowLogicalAsPeer(
					   iface, PROTO, SIZE, SIZE, SIZE, SIZE, 0, NULL, 0,
					   &session)) == 0);
	return raise_and_close(sock, session);
}

/* arg "point|": a server window uid UID for node 1; step 2 is the client's event. */
static int server_main(int sock, const char *arg)
{
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0, v;
	uint32_t iface, session, reason = 0;

	faults_child_arm(arg);
	iface = pxt_interface_wait(SURVIVOR_NODE, FAULTS_WAIT_MS);
	PROC_CHECK(iface != 0);
	CHECK_PX(PXIMC_requestWindowLogicalAsServer(iface, PROTO, SIZE, SIZE, SIZE, SIZE, UID, NULL, 0,
						    &session));
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	CHECK_PX(PXIMC_waitForConnection(session, WAIT_MS, &remote, &remote_size, &local, &local_size));
	CHECK_PX(PXIMC_waitForSessionEvent(session, WAIT_MS, &reason));
	PROC_CHECK(reason == PXIMC_EVENT_ASSERTED && all_bytes(local, SIZE, CLIENT_BYTE));
	PROC_CHECK(faults_step_done(sock, 2) == 0);
	PROC_CHECK(proc_recv(sock, &v, FAULTS_WAIT_MS) == 0);
	CHECK_PX(PXIMC_closeWindow(session));
	CHECK_PX(PXIMC_cleanup());
	return 0;
}

/* ------------------------------------------------------------------ survivor: server */

/* Serve one client: the last of its steps acknowledged; *session is left open. */
static unsigned serve(int sock, uint32_t *session)
{
	void *remote = NULL, *local = NULL;
	uint64_t remote_size = 0, local_size = 0;
	uint32_t iface, reason = 0;
	bool paired;

	if (faults_step_wait(sock, 1))
		return 0;
	iface = pxt_interface_wait(VICTIM_NODE, FAULTS_WAIT_MS);
	if (!iface || PXIMC_requestWindowLogicalAsServer(iface, PROTO, SIZE, SIZE, SIZE, SIZE, UID, NULL,
							  0, session) != PXIMC_SUCCESS)
		return 0;
	if (proc_send(sock, POSTED))
		return 1;
	/*
	 * A client that dies while pairing, or soon after, closes the session: the wait then
	 * answers SESSION_CLOSED at once (which of the two it sees depends on the moment).
	 */
	paired = PXIMC_waitForConnection(*session, WAIT_MS, &remote, &remote_size, &local,
					 &local_size) == PXIMC_SUCCESS;
	for (unsigned step = 2; step <= CLIENT_STEPS; step++) {
		if (step == 4 && paired &&
		    PXIMC_waitForSessionEvent(*session, WAIT_MS, &reason) == PXIMC_SUCCESS &&
		    reason == PXIMC_EVENT_ASSERTED && all_bytes(local, SIZE, CLIENT_BYTE)) {
			memset(remote, SERVER_BYTE, SIZE);
			if (PXIMC_assertEvent(*session) != PXIMC_SUCCESS)
				return 0;
		}
		if (faults_step_wait(sock, step))
			return step - 1;
	}
	return CLIENT_STEPS;
}

/* The session of a dead partner: closed for good, and it closes cleanly. */
static int check_closed(uint32_t session)
{
	uint32_t reason = 0;
	tPXIMC_Status st;

	/* The death reaches us on its own time: the wait returns once it has. */
	st = PXIMC_waitForSessionEvent(session, WAIT_MS, &reason);
	PROC_CHECK(st == PXIMC_SESSION_CLOSED ||
		   (st == PXIMC_SUCCESS && reason == PXIMC_EVENT_CONNECTION_CLOSED));
	PROC_CHECK(PXIMC_assertEvent(session) == PXIMC_SESSION_CLOSED);
	CHECK_PX(PXIMC_closeWindow(session));
	return 0;
}

/* A healthy client on the victim's node id pairs, exchanges data and closes. */
static int healthy_client(const char *fabric)
{
	struct proc client;
	uint32_t session = 0;

	PROC_CHECK(faults_spawn(&client, fabric, VICTIM_NODE, "client", NULL, NULL) == 0);
	PROC_CHECK(serve(client.sock, &session) == CLIENT_STEPS);
	PROC_CHECK(proc_join(&client, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(check_closed(session) == 0);
	return 0;
}

static int survivor_server(const struct faults_case *c, const char *fabric)
{
	struct proc victim;
	uint32_t session = 0;
	size_t fds, maps;

	/* A first pairing opens the owner's control connection to itself, kept: count after it. */
	PROC_CHECK(healthy_client(fabric) == 0);
	fds = faults_fd_count();
	maps = faults_map_count();
	PROC_CHECK(faults_spawn(&victim, fabric, VICTIM_NODE, "client", c->point, NULL) == 0);
	PROC_CHECK(serve(victim.sock, &session) == c->step - 1);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == FAULTS_KILLED);
	PROC_CHECK(check_closed(session) == 0);
	PROC_CHECK(healthy_client(fabric) == 0);
	PROC_CHECK(faults_counts_back(fds, maps) == 0);
	CHECK_PX(PXIMC_cleanup());
	return 0;
}

/* ------------------------------------------------------------------ survivor: client */

/* Pair with the victim's server window: the request's status, and the session if any. */
static tPXIMC_Status request_from(struct proc *server, uint32_t *session)
{
	uint32_t iface;

	if (faults_step_wait(server->sock, 1))
		return PXIMC_TIMEOUT;   /* not a status the request itself gives here */
	iface = pxt_interface_wait(VICTIM_NODE, FAULTS_WAIT_MS);
	if (!iface)
		return PXIMC_TIMEOUT;   /* not a status the request itself gives here */
	return PXIMC_requestWindowLogicalAsClient(iface, PROTO, SIZE, SIZE, SIZE, SIZE, UID, session);
}

/* A healthy server on the victim's node id: we pair with it, raise its event and close. */
static int healthy_server(const char *fabric)
{
	void *remote, *local;
	uint64_t remote_size = 0, local_size = 0;
	struct proc server;
	uint32_t session = 0;

	PROC_CHECK(faults_spawn(&server, fabric, VICTIM_NODE, "server", NULL, NULL) == 0);
	CHECK_PX(request_from(&server, &session));
	CHECK_PX(PXIMC_waitForConnection(session, WAIT_MS, &remote, &remote_size, &local, &local_size));
	memset(remote, CLIENT_BYTE, SIZE);
	CHECK_PX(PXIMC_assertEvent(session));
	PROC_CHECK(faults_step_wait(server.sock, 2) == 0);
	CHECK_PX(PXIMC_closeWindow(session));
	PROC_CHECK(proc_send(server.sock, 1) == 0);
	PROC_CHECK(proc_join(&server, FAULTS_WAIT_MS) == 0);
	return 0;
}

static int survivor_client(const struct faults_case *c, const char *fabric)
{
	struct proc victim;
	uint32_t session = 0;
	tPXIMC_Status st;
	size_t fds, maps;

	PROC_CHECK(healthy_server(fabric) == 0);
	fds = faults_fd_count();
	maps = faults_map_count();
	PROC_CHECK(faults_spawn(&victim, fabric, VICTIM_NODE, "server", c->point, NULL) == 0);
	st = request_from(&victim, &session);
	/* The owner died before answering: the request reports the session closed. */
	PROC_CHECK(st == PXIMC_SESSION_CLOSED);
	PROC_CHECK(faults_step_wait(victim.sock, c->step) == EPIPE);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == FAULTS_KILLED);
	PROC_CHECK(healthy_server(fabric) == 0);
	PROC_CHECK(faults_counts_back(fds, maps) == 0);
	CHECK_PX(PXIMC_cleanup());
	return 0;
}

/*
 * Our answer to the first pairing request is lost (the fail point, on in this process
 * only while that request runs): the client hears the session closed, and our window,
 * still unpaired, takes its second request.
 */
static int survivor_reply_lost(const struct faults_case *c, const char *fabric)
{
	void *remote = NULL, *local = NULL;
	uint64_t remote_size = 0, local_size = 0, first = 0;
	uint32_t iface, session = 0, reason = 0;
	struct proc client;

	PROC_CHECK(faults_spawn(&client, fabric, VICTIM_NODE, "asks_twice", NULL, NULL) == 0);
	PROC_CHECK(faults_step_wait(client.sock, 1) == 0);
	iface = pxt_interface_wait(VICTIM_NODE, FAULTS_WAIT_MS);
	PROC_CHECK(iface != 0);
	CHECK_PX(PXIMC_requestWindowLogicalAsServer(iface, PROTO, SIZE, SIZE, SIZE, SIZE, UID, NULL, 0,
						    &session));
	xrma_failpoint_arm(c->point);
	PROC_CHECK(proc_send(client.sock, POSTED) == 0);
	PROC_CHECK(proc_recv(client.sock, &first, FAULTS_WAIT_MS) == 0);
	xrma_failpoint_arm(NULL);
	PROC_CHECK(first == (uint64_t)PXIMC_SESSION_CLOSED);
	/* Unpaired still: nothing to wait for yet. */
	PROC_CHECK(PXIMC_waitForConnection(session, 0, &remote, &remote_size, &local, &local_size) ==
		   PXIMC_TIMEOUT);
	PROC_CHECK(proc_send(client.sock, GO) == 0);
	CHECK_PX(PXIMC_waitForConnection(session, WAIT_MS, &remote, &remote_size, &local, &local_size));
	CHECK_PX(PXIMC_waitForSessionEvent(session, WAIT_MS, &reason));
	PROC_CHECK(reason == PXIMC_EVENT_ASSERTED && all_bytes(local, SIZE, CLIENT_BYTE));
	PROC_CHECK(faults_step_wait(client.sock, 2) == 0);
	PROC_CHECK(proc_send(client.sock, GO) == 0);
	PROC_CHECK(proc_join(&client, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(check_closed(session) == 0);
	CHECK_PX(PXIMC_cleanup());
	return 0;
}

struct peer_request {
	uint32_t iface;
	uint32_t session;
	tPXIMC_Status status;
};

static void *peer_request_main(void *arg)
{
	struct peer_request *r = arg;

	r->status = PXIMC_requestWindowLogicalAsPeer(r->iface, PROTO, SIZE, SIZE, SIZE, SIZE, 0,
						     NULL, 0, &r->session);
	return NULL;
}

/* Bounded wait until a library thread has passed the armed fail point. */
static int failpoint_reached(void)
{
	uint64_t deadline = fixture_now_ms() + FAULTS_WAIT_MS;
	const struct timespec tick = { 0, 1000000 };

	while (!xrma_failpoint_passes()) {
		if (fixture_now_ms() >= deadline)
			return -1;
		nanosleep(&tick, NULL);
	}
	return 0;
}

/*
 * Crossing peers, lower node first (we are node 1): our ask reaches node 2 before its
 * window exists (NO_MATCH), and while its answer is held back here (the fail point, our
 * window still CLAIMING) node 2 posts and asks, hears BUSY and, being the higher node,
 * gives up. Our window answered BUSY, so we must ask again and pair; otherwise both
 * windows stay posted and unpaired for good.
 */
static int survivor_crossing(const struct faults_case *c, const char *fabric)
{
	void *remote = NULL, *local = NULL;
	uint64_t remote_size = 0, local_size = 0, theirs = 0;
	struct peer_request req = { 0 };
	uint32_t reason = 0;
	struct proc peer;
	pthread_t thread;

	PROC_CHECK(faults_spawn(&peer, fabric, VICTIM_NODE, "crossing_peer", NULL, NULL) == 0);
	PROC_CHECK(faults_step_wait(peer.sock, 1) == 0);
	req.iface = pxt_interface_wait(VICTIM_NODE, FAULTS_WAIT_MS);
	PROC_CHECK(req.iface != 0);
	xrma_failpoint_arm(c->point);
	PROC_CHECK(pthread_create(&thread, NULL, peer_request_main, &req) == 0);
	PROC_CHECK(failpoint_reached() == 0);
	PROC_CHECK(proc_send(peer.sock, GO) == 0);
	PROC_CHECK(proc_recv(peer.sock, &theirs, FAULTS_WAIT_MS) == 0);
	xrma_failpoint_arm(NULL);
	PROC_CHECK(fixture_join(thread, FAULTS_WAIT_MS, NULL) == 0);
	PROC_CHECK(theirs == (uint64_t)PXIMC_SUCCESS);
	CHECK_PX(req.status);
	CHECK_PX(PXIMC_waitForConnection(req.session, WAIT_MS, &remote, &remote_size, &local,
					 &local_size));
	CHECK_PX(PXIMC_waitForSessionEvent(req.session, WAIT_MS, &reason));
	PROC_CHECK(reason == PXIMC_EVENT_ASSERTED && all_bytes(local, SIZE, CLIENT_BYTE));
	PROC_CHECK(faults_step_wait(peer.sock, 2) == 0);
	PROC_CHECK(proc_send(peer.sock, GO) == 0);
	PROC_CHECK(proc_join(&peer, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(check_closed(req.session) == 0);
	CHECK_PX(PXIMC_cleanup());
	return 0;
}

static int survivor_main(int sock, const char *arg)
{
	const struct faults_case *c = faults_case_of(arg, cases, NCASES);
	const char *fabric = getenv("XRMA_FABRIC");
	uint32_t ids[4], n = 0;

	(void)sock;
	PROC_CHECK(c != NULL);
	/* Our own instance first, so the counts include it. */
	CHECK_PX(PXIMC_findInterfaces(4, ids, &n));
	if (c->scenario == SC_CLIENT)
		return survivor_server(c, fabric);
	if (c->scenario == SC_REPLY_LOST)
		return survivor_reply_lost(c, fabric);
	if (c->scenario == SC_CROSSING)
		return survivor_crossing(c, fabric);
	return survivor_client(c, fabric);
}

static const struct proc_role roles[] = {
	{ "survivor", survivor_main },
	{ "client", client_main },
	{ "server", server_main },
	{ "asks_twice", asks_twice_main },
	{ "crossing_peer", crossing_peer_main },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return faults_main(argc, argv, roles, true,
			   "faults_pximc", "fpximc", cases, NCASES, SURVIVOR_NODE);
}
