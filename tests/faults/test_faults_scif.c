/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/test_faults_scif.c: SCIF peers killed at the named points of libscif
 * (connect, accept, send, recv, register, writeto/readfrom, fence mark and signal, mmap,
 * unregister, close). The survivor is the host (node 0) and the victim a card (node 1)
 * that walks eleven numbered steps. Whatever step the card dies in, the host's endpoint reports
 * ECONNRESET (bytes sent before the death are received first) and SCIF_POLLHUP, the
 * listener goes on, and a fresh card on the same node id completes all the steps
 * (docs/scif.md, "Peer loss"; docs/reliability.md).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include <scif.h>
#include "tests/faults/faults.h"
#include "tests/helpers/fixture.h"

#define PAGE 4096u
#define DATA_LEN (64u * PAGE)            /* each side's window: data, then a flag page */
#define WIN_LEN (DATA_LEN + PAGE)
#define HOST_WIN 0x100000
#define CARD_WIN 0x200000
#define MSG_LEN 64
#define HOST_NODE 0
#define CARD_NODE 1
#define STEPS 11
#define RW (SCIF_PROT_READ | SCIF_PROT_WRITE)
#define CARD_SEED 0x31
#define HOST_SEED 0x52
#define SIGNAL_VALUE 0x5157ull

enum scenario {
	SC_CARD,      /* the card connects to the host's listener and walks the steps */
	SC_ACCEPTOR,  /* the card listens; the host connects to it */
};

/* One line per point: the point, who dies how, and in which of the card's steps. */
static const struct faults_case cases[] = {
	{ "scif.connect.after_request", SC_CARD, 1 },
	{ "scif.accept.before_handshake", SC_ACCEPTOR, 1 },
	{ "scif.send.after_data", SC_CARD, 2 },
	{ "scif.recv.after_data", SC_CARD, 3 },
	{ "scif.register.after_window", SC_CARD, 4 },
	{ "scif.writeto.mid_transfer", SC_CARD, 5 },
	{ "scif.readfrom.mid_transfer", SC_CARD, 6 },
	{ "scif.fence_mark.after_mark:2", SC_CARD, 7 },   /* step 5 marks first */
	{ "scif.fence_signal.before_signal", SC_CARD, 8 },
	{ "scif.mmap.after_map", SC_CARD, 9 },
	/* The host reads the card's table by copy: the card dies before telling it. */
	{ "rwin.remove.before_notice", SC_CARD, 10 },
	{ "scif.close.after_teardown", SC_CARD, 11 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* make check runs the table as two programs (FAULTS_HALF 1 and 2) to keep each short under TSan. */
#if defined(FAULTS_HALF) && FAULTS_HALF == 1
#define FIRST_CASE 0
#define CASE_COUNT (NCASES / 2)
#elif defined(FAULTS_HALF) && FAULTS_HALF == 2
#define FIRST_CASE (NCASES / 2)
#define CASE_COUNT (NCASES - NCASES / 2)
#else
#define FIRST_CASE 0
#define CASE_COUNT NCASES
#endif

static void *pages(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ------------------------------------------------------------------ the card */

/* The card's steps on a connected endpoint. */
static int card_steps(int sock, scif_epd_t epd)
{
	char *mem = pages(WIN_LEN);
	char msg[MSG_LEN];
	volatile uint64_t *map;
	int mark;

	PROC_CHECK(mem != NULL);
	fixture_pattern(msg, MSG_LEN, CARD_SEED, 0);
	PROC_CHECK(scif_send(epd, msg, MSG_LEN, SCIF_SEND_BLOCK) == MSG_LEN);
	PROC_CHECK(faults_step_done(sock, 2) == 0);
	PROC_CHECK(scif_recv(epd, msg, MSG_LEN, SCIF_RECV_BLOCK) == MSG_LEN);
	PROC_CHECK(fixture_pattern_check(msg, MSG_LEN, HOST_SEED, 0) == FIXTURE_MATCH);
	PROC_CHECK(faults_step_done(sock, 3) == 0);
	fixture_pattern(mem, DATA_LEN, CARD_SEED, 0);
	PROC_CHECK(scif_register(epd, mem, WIN_LEN, CARD_WIN, RW, SCIF_MAP_FIXED) == CARD_WIN);
	PROC_CHECK(faults_step_done(sock, 4) == 0);
	/* Asynchronous, then a fence: the point lies between the post and the end. */
	PROC_CHECK(scif_writeto(epd, CARD_WIN, DATA_LEN, HOST_WIN, 0) == 0);
	PROC_CHECK(scif_fence_mark(epd, SCIF_FENCE_INIT_SELF, &mark) == 0);
	PROC_CHECK(scif_fence_wait(epd, mark) == 0);
	PROC_CHECK(faults_step_done(sock, 5) == 0);
	PROC_CHECK(scif_readfrom(epd, CARD_WIN, DATA_LEN, HOST_WIN, SCIF_RMA_SYNC) == 0);
	PROC_CHECK(fixture_pattern_check(mem, DATA_LEN, CARD_SEED, 0) == FIXTURE_MATCH);
	PROC_CHECK(faults_step_done(sock, 6) == 0);
	PROC_CHECK(scif_writeto(epd, CARD_WIN, PAGE, HOST_WIN, 0) == 0);
	PROC_CHECK(scif_fence_mark(epd, SCIF_FENCE_INIT_SELF, &mark) == 0);
	PROC_CHECK(scif_fence_wait(epd, mark) == 0);
	PROC_CHECK(faults_step_done(sock, 7) == 0);
	PROC_CHECK(scif_fence_signal(epd, 0, 0, HOST_WIN + DATA_LEN, SIGNAL_VALUE,
				     SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE) == 0);
	PROC_CHECK(faults_step_done(sock, 8) == 0);
	map = scif_mmap(NULL, WIN_LEN, RW, 0, epd, HOST_WIN);
	/* Providers that cannot map refuse it; the step is then only the refusal. */
	if (map != SCIF_MMAP_FAILED) {
		PROC_CHECK(map[DATA_LEN / sizeof(uint64_t)] == SIGNAL_VALUE);
		PROC_CHECK(scif_munmap((void *)map, WIN_LEN) == 0);
	} else {
		PROC_CHECK(errno == EOPNOTSUPP);
	}
	PROC_CHECK(faults_step_done(sock, 9) == 0);
	PROC_CHECK(scif_unregister(epd, CARD_WIN, WIN_LEN) == 0);
	PROC_CHECK(faults_step_done(sock, 10) == 0);
	PROC_CHECK(scif_close(epd) == 0);
	PROC_CHECK(faults_step_done(sock, 11) == 0);
	munmap(mem, WIN_LEN);
	return 0;
}

/* arg "point|port": connect to the host and walk the steps. */
static int card_main(int sock, const char *arg)
{
	const char *rest = faults_child_arm(arg);
	struct scif_portID host = { .node = HOST_NODE, .port = (uint16_t)atoi(rest) };
	scif_epd_t epd = scif_open();

	PROC_CHECK(epd >= 0);
	PROC_CHECK(scif_connect(epd, &host) >= 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	return card_steps(sock, epd);
}

/* arg "point|": listen, tell the host the port, accept it (and die there). */
static int acceptor_main(int sock, const char *arg)
{
	struct scif_portID peer;
	scif_epd_t listener, epd;
	int port;

	faults_child_arm(arg);
	listener = scif_open();
	PROC_CHECK(listener >= 0);
	port = scif_bind(listener, 0);
	PROC_CHECK(port > 0);
	PROC_CHECK(scif_listen(listener, 4) == 0);
	PROC_CHECK(proc_send(sock, (uint64_t)port) == 0);
	PROC_CHECK(scif_accept(listener, &peer, &epd, SCIF_ACCEPT_SYNC) == 0);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	PROC_CHECK(scif_close(epd) == 0);
	PROC_CHECK(scif_close(listener) == 0);
	return 0;
}

/* ------------------------------------------------------------------ the host */

/* Accept from the listener unless the card dies first: 1 accepted, 0 card dead, <0 failed. */
static int host_accept(scif_epd_t listener, const struct proc *card, scif_epd_t *epd)
{
	uint64_t end = fixture_now_ms() + FAULTS_WAIT_MS;
	struct scif_pollepd pfd = { .epd = listener, .events = SCIF_POLLIN };
	struct scif_portID peer;

	while (fixture_now_ms() < end) {
		if (scif_poll(&pfd, 1, 20) == 1) {
			if (scif_accept(listener, &peer, epd, 0) == 0)
				return 1;
			/* The request of a card that died in its handshake fails here. */
			if (errno != ECONNRESET && errno != EAGAIN) {
				fprintf(stderr, "scif_accept: %s\n", strerror(errno));
				return -errno;
			}
			if (errno == ECONNRESET && faults_dead(card))
				return 0;
			continue;
		}
		if (faults_dead(card))
			return 0;
	}
	return -ETIMEDOUT;
}

/* The host's side of the card's steps; returns the last step acknowledged (0..STEPS). */
static unsigned host_follow(int sock, scif_epd_t epd, char *mem, bool healthy)
{
	char msg[MSG_LEN];
	volatile uint64_t *flag = (volatile uint64_t *)(mem + DATA_LEN);
	int n;

	fixture_pattern(msg, MSG_LEN, HOST_SEED, 0);
	/* Step 2: bytes the card sent before it died are still delivered. */
	n = scif_recv(epd, msg, MSG_LEN, SCIF_RECV_BLOCK);
	if (n == MSG_LEN && fixture_pattern_check(msg, MSG_LEN, CARD_SEED, 0) != FIXTURE_MATCH) {
		fprintf(stderr, "host: the card's message is corrupt at byte %zu\n",
			fixture_pattern_check(msg, MSG_LEN, CARD_SEED, 0));
		return 0;
	}

	if (faults_step_wait(sock, 2))
		return 1;
	fixture_pattern(msg, MSG_LEN, HOST_SEED, 0);
	if (scif_send(epd, msg, MSG_LEN, SCIF_SEND_BLOCK) != MSG_LEN && healthy)
		return 0;
	for (unsigned step = 3; step <= STEPS; step++) {
		if (faults_step_wait(sock, step))
			return step - 1;
		/* A healthy card's data must be whole at the step that wrote it. */
		if (healthy && step == 5 && fixture_pattern_check(mem, DATA_LEN, CARD_SEED, 0) != FIXTURE_MATCH)
			return 0;
		if (healthy && step == 8 && *flag != SIGNAL_VALUE)
			return 0;
	}
	return STEPS;
}

/* The host's view of a dead card's endpoint: reset everywhere, nothing else. */
static int host_check_reset(scif_epd_t epd)
{
	struct scif_pollepd pfd = { .epd = epd, .events = SCIF_POLLIN };
	uint64_t end = fixture_now_ms() + FAULTS_WAIT_MS;
	char byte = 0;

	while (!(pfd.revents & SCIF_POLLHUP)) {
		PROC_CHECK(fixture_now_ms() < end);
		PROC_CHECK(scif_poll(&pfd, 1, 50) >= 0);
	}
	/* Queued bytes (none are left in any step) would come first; then the reset. */
	PROC_CHECK(scif_recv(epd, &byte, 1, SCIF_RECV_BLOCK) == -1 && errno == ECONNRESET);
	PROC_CHECK(scif_send(epd, &byte, 1, SCIF_SEND_BLOCK) == -1 && errno == ECONNRESET);
	PROC_CHECK(scif_writeto(epd, HOST_WIN, PAGE, CARD_WIN, SCIF_RMA_SYNC) == -1 &&
		   errno == ECONNRESET);
	PROC_CHECK(scif_close(epd) == 0);
	return 0;
}

/* A fresh, healthy card on the dead one's node id walks every step. */
static int host_reconnect(const char *fabric, scif_epd_t listener, const char *port, char *mem)
{
	struct proc card;
	scif_epd_t epd;

	memset(mem, 0, WIN_LEN);
	PROC_CHECK(faults_spawn(&card, fabric, CARD_NODE, "card", NULL, port) == 0);
	PROC_CHECK(host_accept(listener, &card, &epd) == 1);
	PROC_CHECK(scif_register(epd, mem, WIN_LEN, HOST_WIN, RW, SCIF_MAP_FIXED) == HOST_WIN);
	PROC_CHECK(faults_step_wait(card.sock, 1) == 0);
	PROC_CHECK(host_follow(card.sock, epd, mem, true) == STEPS);
	PROC_CHECK(proc_join(&card, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(scif_close(epd) == 0);
	return 0;
}

/* The card connects to us and dies at the case's point. */
static int host_card_case(const struct faults_case *c, const char *fabric, scif_epd_t listener,
			  const char *port, char *mem)
{
	struct proc card;
	scif_epd_t epd;
	unsigned last = 0;
	int rc;

	PROC_CHECK(faults_spawn(&card, fabric, CARD_NODE, "card", c->point, port) == 0);
	rc = host_accept(listener, &card, &epd);
	PROC_CHECK(rc >= 0);
	if (rc == 1) {
		/*
		 * The card does not wait for our window: one dying at its first steps may be
		 * gone already, and a reset endpoint refuses the registration as SCIF says.
		 */
		off_t reg = scif_register(epd, mem, WIN_LEN, HOST_WIN, RW, SCIF_MAP_FIXED);

		PROC_CHECK(reg == HOST_WIN || (reg == -1 && errno == ECONNRESET));
		if (faults_step_wait(card.sock, 1) == 0)
			last = host_follow(card.sock, epd, mem, false);
	}
	PROC_CHECK(proc_join(&card, FAULTS_WAIT_MS) == FAULTS_KILLED);
	/*
	 * A card that died before our accept finished is not handed out (accept says
	 * ECONNRESET, host_accept 0), whatever step it reached; otherwise we followed it to
	 * its last step and its endpoint is reset.
	 */
	if (rc == 1) {
		if (last != c->step - 1)
			fprintf(stderr, "%s: the host saw step %u last\n", c->point, last);
		PROC_CHECK(last == c->step - 1);
		PROC_CHECK(host_check_reset(epd) == 0);
	}
	return 0;
}

/* We connect to a card that dies accepting us. */
static int host_acceptor_case(const struct faults_case *c, const char *fabric)
{
	struct scif_portID dst = { .node = CARD_NODE };
	struct proc card;
	scif_epd_t epd;
	uint64_t port;
	int ret;

	PROC_CHECK(faults_spawn(&card, fabric, CARD_NODE, "acceptor", c->point, "") == 0);
	PROC_CHECK(proc_recv(card.sock, &port, FAULTS_WAIT_MS) == 0);
	dst.port = (uint16_t)port;
	epd = scif_open();
	PROC_CHECK(epd >= 0);
	ret = scif_connect(epd, &dst);
	/*
	 * The card accepted, then died before its handshake answer: the connect is reset, or
	 * refused when the core's answer to the request had not left yet (core/conn.c).
	 */
	PROC_CHECK(ret == -1 && (errno == ECONNRESET || errno == ECONNREFUSED));
	PROC_CHECK(proc_join(&card, FAULTS_WAIT_MS) == FAULTS_KILLED);
	PROC_CHECK(scif_close(epd) == 0);
	return 0;
}

static int survivor_main(int sock, const char *arg)
{
	const struct faults_case *c = faults_case_of(arg, cases + FIRST_CASE, CASE_COUNT);
	const char *fabric = getenv("XRMA_FABRIC");
	char *mem = pages(WIN_LEN);
	size_t fds, maps;
	scif_epd_t listener;
	char port[16];
	int p;

	(void)sock;
	PROC_CHECK(c != NULL && mem != NULL);
	/* The unregister notice goes only to a peer reading the table by copy. */
	if (!strcmp(c->point, "rwin.remove.before_notice"))
		setenv("XRMA_TEST_RWIN_COPY", "1", 1);
	listener = scif_open();
	PROC_CHECK(listener >= 0);
	p = scif_bind(listener, 0);
	PROC_CHECK(p > 0 && scif_listen(listener, 8) == 0);
	snprintf(port, sizeof(port), "%d", p);
	/* Registration may re-back our window's pages with shared memory (docs/scif.md). */
	faults_map_ignore(mem, WIN_LEN);
	/* Whatever happens below must leave these as they are now. */
	fds = faults_fd_count();
	maps = faults_map_count();
	if (c->scenario == SC_CARD)
		PROC_CHECK(host_card_case(c, fabric, listener, port, mem) == 0);
	else
		PROC_CHECK(host_acceptor_case(c, fabric) == 0);
	PROC_CHECK(host_reconnect(fabric, listener, port, mem) == 0);
	PROC_CHECK(faults_counts_back(fds, maps) == 0);
	PROC_CHECK(scif_close(listener) == 0);
	munmap(mem, WIN_LEN);
	return 0;
}

static const struct proc_role roles[] = {
	{ "survivor", survivor_main },
	{ "card", card_main },
	{ "acceptor", acceptor_main },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return faults_main(argc, argv, roles, false,
			   "faults_scif", "fscif", cases + FIRST_CASE, CASE_COUNT, HOST_NODE);
}
