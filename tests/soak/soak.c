/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/soak/soak.c: the mixed soak run by `make soak` (not by make check). This process
 * is the hub, node 1: it exports a segment and listens on a port. Workers (real processes,
 * nodes 2..1+XRMA_SOAK_WORKERS) import the segment and connect; each round a worker fills
 * its slot of the segment by RMA with random bytes, sends the checksum, and the hub
 * verifies the bytes and echoes the checksum, which the worker verifies. The hub SIGKILLs
 * a random worker now and then and starts a fresh one on the same node id.
 * It runs XRMA_SOAK_SECONDS (default 600) and prints: rounds verified, kills and
 * restarts, every error the hub saw by kind (each must be one a dead peer is documented
 * to cause), corrupt rounds (must be 0), the hub's descriptors, file mappings and RSS
 * after the warm-up and at the end, and what is left on the host after everyone exited.
 * Exit 0 only when all of that holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <xrma/xrma.h>
#include "tests/faults/faults.h"
#include "tests/helpers/fixture.h"

#define HUB_NODE 1
#define HUB_SEG_ID 0x50a0
#define SLOT (256u * 1024)
#define WORKERS_MAX 8
#define RECV_MS 2000
#define CORRUPT_EXIT 99

struct round {
	uint64_t seq;
	uint64_t offset;
	uint64_t len;
	uint64_t sum;
};

static uint64_t fnv64(const uint8_t *p, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static size_t env_count(const char *name, size_t fallback)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 10) : fallback;
}

/* Move exactly len bytes or fail: 0 or the xrma code. */
static int recv_all(struct xrma_conn *c, void *buf, size_t len, int timeout_ms)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = xrma_conn_recv(c, (char *)buf + got, len - got, XRMA_CONN_BLOCK, timeout_ms);

		if (n < 0)
			return (int)n;
		if (n == 0)
			return -XRMA_ECONNRESET;
		got += (size_t)n;
	}
	return 0;
}

/* ------------------------------------------------------------------ worker */

/* arg: the port and our slot. Rounds until killed. */
static int worker_main(int sock, const char *arg)
{
	struct xrma_ctx_attr attr = { .node_id = XRMA_NODE_ANY };
	unsigned port = 0, slot = 0;
	struct xrma_seg_attr sattr = { .len = SLOT, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
				       .flags = XRMA_SEG_PRIVATE };
	struct xrma_ctx *ctx;
	struct xrma_rseg *hub;
	struct xrma_conn *conn;
	struct xrma_seg *local;
	uint8_t *buf;
	uint64_t seed = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
	int rc;

	PROC_CHECK(sscanf(arg, "%u:%u", &port, &slot) == 2);
	PROC_CHECK_RC(xrma_ctx_open(&attr, &ctx), 0);
	rc = xrma_rseg_open(ctx, HUB_NODE, HUB_SEG_ID, XRMA_ACCESS_REMOTE_WRITE, 0, RECV_MS, &hub);
	if (rc)
		fprintf(stderr, "soak: worker %u: import: %s (%s)\n", slot, xrma_error_name(rc),
			xrma_error_detail());
	PROC_CHECK_RC(rc, 0);
	PROC_CHECK_RC(xrma_seg_open(ctx, &sattr, &local), 0);
	PROC_CHECK_RC(xrma_seg_addr(local, (void **)&buf), 0);
	PROC_CHECK_RC(xrma_conn_open(ctx, 0, &conn), 0);
	PROC_CHECK_RC(xrma_conn_connect(conn, HUB_NODE, port, RECV_MS), 0);
	PROC_CHECK(proc_send(sock, 1) == 0);
	for (uint64_t seq = 1;; seq++) {
		struct round r = { .seq = seq, .offset = (uint64_t)slot * SLOT };
		uint64_t echo = 0;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		r.len = 1 + (seed >> 33) % SLOT;
		for (size_t i = 0; i < r.len; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			buf[i] = (uint8_t)(seed >> 56);
		}
		r.sum = fnv64(buf, r.len);
		PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, hub, r.offset, r.len), 0);
		PROC_CHECK(xrma_conn_send(conn, &r, sizeof(r), XRMA_CONN_BLOCK, RECV_MS) == sizeof(r));
		PROC_CHECK_RC(recv_all(conn, &echo, sizeof(echo), RECV_MS), 0);
		if (echo != r.sum)
			return CORRUPT_EXIT;
	}
}

static const struct proc_role roles[] = {
	{ "worker", worker_main },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ hub */

struct worker {
	struct proc proc;
	bool running;
	struct xrma_conn *conn;   /* accepted from it, once it connected */
};

struct tally {
	uint64_t rounds, corrupt, kills, restarts, unexpected_exits;
	uint64_t errors[XRMA_EMAX_];   /* by code, as the hub saw them */
	uint64_t events[8];            /* segment events by type */
};

static char fabric[XRMA_NAME_MAX];
static unsigned hub_port;

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	long kib = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kib;
}

static int worker_start(struct worker *w, unsigned slot)
{
	char arg[32];

	snprintf(arg, sizeof(arg), "%u:%u", hub_port, slot);
	if (proc_spawn(&w->proc, fabric, HUB_NODE + 1 + slot, "worker", arg))
		return -1;
	w->running = true;
	w->conn = NULL;
	return 0;
}

static void count_error(struct tally *t, int code)
{
	int c = code < 0 ? -code : code;

	t->errors[c < XRMA_EMAX_ ? c : 0]++;
}

/* One request from w: verify its bytes in our segment and echo the checksum. */
static void serve_round(struct worker *w, const uint8_t *mem, struct tally *t)
{
	struct round r;
	int ret = recv_all(w->conn, &r, sizeof(r), RECV_MS);

	if (ret) {
		count_error(t, ret);
		xrma_conn_close(w->conn);
		w->conn = NULL;
		return;
	}
	if (r.offset + r.len > (uint64_t)WORKERS_MAX * SLOT || fnv64(mem + r.offset, r.len) != r.sum) {
		t->corrupt++;
		r.sum = ~r.sum;
	} else {
		t->rounds++;
	}
	if (xrma_conn_send(w->conn, &r.sum, sizeof(r.sum), XRMA_CONN_BLOCK, RECV_MS) != sizeof(r.sum)) {
		count_error(t, -XRMA_ECONNRESET);
		xrma_conn_close(w->conn);
		w->conn = NULL;
	}
}

/* The connection of a worker that is gone: what it sent first is served, then its end is counted. */
static void drain_dead(struct worker *w, const uint8_t *mem, struct tally *t)
{
	while (w->conn)
		serve_round(w, mem, t);
}

/*
 * Take the connections that are waiting. Each worker connects once, so a newer connection
 * from a node is its live worker's: an older one still held (a killed worker's, accepted
 * late from the backlog) is drained first.
 */
static void accept_pending(struct xrma_conn *listener, struct worker *ws, size_t n,
			   const uint8_t *mem, struct tally *t)
{
	struct xrma_conn *c;

	while (xrma_conn_accept(listener, 0, &c) == 0) {
		uint32_t node = 0, port = 0;
		struct worker *w;

		xrma_conn_peer(c, &node, &port);
		if (node <= HUB_NODE || node - HUB_NODE - 1 >= n) {
			xrma_conn_close(c);
			continue;
		}
		w = &ws[node - HUB_NODE - 1];
		drain_dead(w, mem, t);
		w->conn = c;
	}
}

/* A worker that ended without our SIGKILL: corruption (its code) or a failure. */
static void reap_unexpected(struct worker *w, struct tally *t)
{
	int rc = proc_join(&w->proc, 0);

	w->running = false;
	if (rc == CORRUPT_EXIT)
		t->corrupt++;
	else
		t->unexpected_exits++;
	fprintf(stderr, "soak: worker ended by itself with %d\n", rc);
}

static bool error_expected(int code)
{
	/* What a peer that died or closed is documented to cause (docs/reliability.md). */
	return code == XRMA_ECONNRESET || code == XRMA_ELOST || code == XRMA_ETIMEDOUT;
}

int main(int argc, char **argv)
{
	size_t seconds = env_count("XRMA_SOAK_SECONDS", 600);
	size_t nworkers = env_count("XRMA_SOAK_WORKERS", 3);
	struct worker ws[WORKERS_MAX] = { 0 };
	struct tally t = { 0 };
	struct xrma_ctx_attr attr = { .node_id = HUB_NODE };
	struct xrma_seg_attr sattr = { .len = (size_t)WORKERS_MAX * SLOT, .id = HUB_SEG_ID,
				       .access = XRMA_ACCESS_ALL };
	struct xrma_ctx *ctx;
	struct xrma_conn *listener;
	struct xrma_seg *seg;
	uint8_t *mem;
	uint64_t start, end, next_kill, warm_at, seed = 0x50a4;
	size_t fds_base, maps_base, fds0 = 0, maps0 = 0, fds1, maps1, left;
	long rss0 = 0, rss1;
	struct xrma_event ev_last;
	bool warm = false, ok = true;
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	if (nworkers < 1 || nworkers > WORKERS_MAX)
		nworkers = 3;
	signal(SIGPIPE, SIG_IGN);
	fixture_fabric_name(fabric, sizeof(fabric), "soak");
	setenv("XRMA_FABRIC", fabric, 1);
	if (xrma_ctx_open(&attr, &ctx) || xrma_seg_open(ctx, &sattr, &seg) || xrma_seg_export(seg, 0) ||
	    xrma_seg_addr(seg, (void **)&mem) || xrma_conn_open(ctx, 0, &listener) ||
	    xrma_conn_bind(listener, &hub_port, 0, 0) || xrma_conn_listen(listener, 16)) {
		fprintf(stderr, "soak: hub set-up failed\n");
		return 1;
	}
	fds_base = faults_fd_count();
	maps_base = faults_map_count();
	for (size_t i = 0; i < nworkers; i++)
		if (worker_start(&ws[i], (unsigned)i))
			return 1;
	start = fixture_now_ms();
	end = start + seconds * 1000;
	warm_at = start + (seconds > 60 ? 10000 : seconds * 100);
	next_kill = start + 200;
	printf("# soak: %zu s, %zu workers, fabric %s\n", seconds, nworkers, fabric);
	while (fixture_now_ms() < end) {
		struct pollfd pfd[WORKERS_MAX + 1];
		struct xrma_event ev;
		size_t np = 0;

		accept_pending(listener, ws, nworkers, mem, &t);
		pfd[np++] = (struct pollfd){ .fd = xrma_conn_fd(listener), .events = POLLIN };
		for (size_t i = 0; i < nworkers; i++)
			if (ws[i].conn)
				pfd[np++] = (struct pollfd){ .fd = xrma_conn_fd(ws[i].conn), .events = POLLIN };
		poll(pfd, np, 10);
		for (size_t i = 0; i < nworkers; i++) {
			uint32_t revents = 0;

			if (ws[i].conn && xrma_conn_poll(ws[i].conn, &revents) == 0 &&
			    (revents & (XRMA_POLLIN | XRMA_POLLHUP | XRMA_POLLERR)))
				serve_round(&ws[i], mem, &t);
			if (ws[i].running && faults_dead(&ws[i].proc)) {
				reap_unexpected(&ws[i], &t);
				drain_dead(&ws[i], mem, &t);
				if (worker_start(&ws[i], (unsigned)i) == 0)
					t.restarts++;
			}
		}
		while (xrma_seg_wait_event(seg, 0, &ev) == 0)
			t.events[ev.type < 8 ? ev.type : 0]++;
		if (fixture_now_ms() >= next_kill) {
			size_t v;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			v = (size_t)(seed >> 33) % nworkers;
			proc_kill(&ws[v].proc);
			t.kills++;
			drain_dead(&ws[v], mem, &t);
			if (worker_start(&ws[v], (unsigned)v) == 0)
				t.restarts++;
			/* Between 50 ms and 1 s: some die mid-round, some between rounds. */
			next_kill = fixture_now_ms() + 50 + (seed >> 40) % 950;
		}
		if (!warm && fixture_now_ms() >= warm_at) {
			fds0 = faults_fd_count();
			maps0 = faults_map_count();
			rss0 = rss_kib();
			warm = true;
		}
	}
	for (size_t i = 0; i < nworkers; i++) {
		if (ws[i].conn)
			xrma_conn_close(ws[i].conn);
		ws[i].conn = NULL;
		proc_kill(&ws[i].proc);
	}
	/* Let the deaths reach us before the last counts (descriptors close asynchronously). */
	fixture_wait_importers(seg, 0, 5000);
	faults_counts_back(fds_base, maps_base);
	fds1 = faults_fd_count();
	maps1 = faults_map_count();
	rss1 = rss_kib();
	while (xrma_seg_wait_event(seg, 0, &ev_last) == 0)
		;
	xrma_conn_close(listener);
	xrma_seg_close(seg);
	rc = xrma_ctx_close(ctx);
	left = faults_sweep(fabric) ? 1 : faults_leftovers(fabric);

	printf("seconds %zu\nworkers %zu\nrounds_verified %" PRIu64 "\nrounds_per_second %.0f\n"
	       "kills %" PRIu64 "\nrestarts %" PRIu64 "\ncorrupt_rounds %" PRIu64 "\n"
	       "workers_ended_by_themselves %" PRIu64 "\n",
	       seconds, nworkers, t.rounds, (double)t.rounds / (double)seconds, t.kills, t.restarts,
	       t.corrupt, t.unexpected_exits);
	for (int c = 0; c < XRMA_EMAX_; c++) {
		if (!t.errors[c])
			continue;
		printf("hub_error %s %" PRIu64 "%s\n", xrma_error_name(-c) ? xrma_error_name(-c) : "?",
		       t.errors[c], error_expected(c) ? "" : " UNEXPECTED");
		ok = ok && error_expected(c);
	}
	printf("segment_events lost %" PRIu64 " disconnect %" PRIu64 " connect %" PRIu64 "\n",
	       t.events[XRMA_EVENT_LOST], t.events[XRMA_EVENT_DISCONNECT], t.events[XRMA_EVENT_CONNECT]);
	printf("hub_fds before_workers %zu warm %zu after_workers %zu\n"
	       "hub_file_mappings before_workers %zu warm %zu after_workers %zu\n"
	       "hub_rss_kib warm %ld end %ld\n",
	       fds_base, fds0, fds1, maps_base, maps0, maps1, rss0, rss1);
	printf("leftovers %zu\nctx_close %s\n", left, rc ? xrma_error_name(rc) : "ok");
	ok = ok && t.corrupt == 0 && t.unexpected_exits == 0 && left == 0 && rc == 0 && t.rounds > 0 &&
	     fds1 <= fds_base && maps1 <= maps_base;
	printf("%s\n", ok ? "soak: PASS" : "soak: FAIL");
	return ok ? 0 : 1;
}
