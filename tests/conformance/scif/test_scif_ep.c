/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_ep.c: endpoints and connections (§3.1-3.3,
 * §3.10, §3.12): open/close, bind and the port rules, listen, connect (refused,
 * bad node, twice), accept (blocking, non-blocking, flags), descriptors that
 * poll/select/epoll accept, scif_poll, scif_get_nodeIDs, bad descriptors,
 * non-blocking connect (O_NONBLOCK, EINPROGRESS, SCIF_POLLOUT), and scif_close
 * of an endpoint whose connect is still running.
 */
#include "tests/conformance/scif/scif_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include "tests/helpers/fixture.h"

static void test_scif_open_close_returns_distinct_fds(void **state)
{
	scif_epd_t a, b;

	(void)state;
	a = scif_open();
	b = scif_open();
	assert_true(a >= 0 && b >= 0);
	assert_int_not_equal(a, b);
	assert_int_equal(scif_get_fd(a), a);
	assert_scif_ok(scif_close(a));
	assert_scif_ok(scif_close(b));
	/* Closed: the descriptor is no endpoint any more. */
	assert_scif_errno(scif_close(a), EBADF);
}

static void test_scif_bad_descriptor_fails_ebadf_everywhere(void **state)
{
	struct scif_portID dst = { .node = 0, .port = 2000 }, peer;
	scif_epd_t newepd;
	char buf[8];
	int mark;

	(void)state;
	assert_scif_errno(scif_close(-1), EBADF);
	assert_scif_errno(scif_bind(12345, 0), EBADF);
	assert_scif_errno(scif_listen(STDIN_FILENO, 1), EBADF);
	assert_scif_errno(scif_connect(-5, &dst), EBADF);
	assert_scif_errno(scif_accept(-5, &peer, &newepd, 0), EBADF);
	assert_scif_errno(scif_send(-5, buf, 8, 0), EBADF);
	assert_scif_errno(scif_recv(-5, buf, 8, 0), EBADF);
	/* A misaligned address is refused before the descriptor is looked at. buf itself may
	 * happen to sit on a page boundary (sanitizers move stack frames), so misalign it. */
	assert_scif_errno(scif_register(-5, (void *)((uintptr_t)buf | 1), 4096, 0, SCIF_PROT_READ, 0),
			  EINVAL);
	assert_scif_errno(scif_unregister(-5, 0, 4096), EBADF);
	assert_scif_errno(scif_writeto(-5, 0, 8, 0, 0), EBADF);
	assert_scif_errno(scif_readfrom(-5, 0, 8, 0, 0), EBADF);
	assert_scif_errno(scif_vwriteto(-5, buf, 8, 0, 0), EBADF);
	assert_scif_errno(scif_vreadfrom(-5, buf, 8, 0, 0), EBADF);
	assert_scif_errno(scif_fence_mark(-5, SCIF_FENCE_INIT_SELF, &mark), EBADF);
	assert_scif_errno(scif_fence_wait(-5, 0), EBADF);
	assert_scif_errno(scif_fence_signal(-5, 0, 1, 0, 1, SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL),
			  EBADF);
	assert_true(scif_mmap(NULL, 4096, SCIF_PROT_READ, 0, -5, 0) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, EBADF);
}

static void test_scif_bind_any_port_is_above_reserved(void **state)
{
	scif_epd_t a = scif_open(), b = scif_open();
	int pa, pb;

	(void)state;
	pa = scif_bind(a, 0);
	pb = scif_bind(b, SCIF_PORT_ANY);
	assert_true(pa >= SCIF_PORT_RSVD && pb >= SCIF_PORT_RSVD);
	assert_int_not_equal(pa, pb);
	assert_scif_ok(scif_close(a));
	assert_scif_ok(scif_close(b));
}

static void test_scif_bind_taken_port_fails_eaddrinuse(void **state)
{
	scif_epd_t a = scif_open(), b = scif_open();
	int port;

	(void)state;
	port = scif_bind(a, 0);
	assert_true(port > 0);
	assert_scif_errno(scif_bind(b, (uint16_t)port), EADDRINUSE);
	/* b is unchanged and can bind elsewhere. */
	assert_true(scif_bind(b, 0) > 0);
	assert_scif_ok(scif_close(a));
	assert_scif_ok(scif_close(b));
}

static void test_scif_bind_port_returns_after_close(void **state)
{
	scif_epd_t a = scif_open(), b;
	int port;

	(void)state;
	port = scif_bind(a, 0);
	assert_scif_ok(scif_close(a));
	b = scif_open();
	assert_int_equal(scif_bind(b, (uint16_t)port), port);
	assert_scif_ok(scif_close(b));
}

static void test_scif_bind_twice_fails_einval(void **state)
{
	scif_epd_t a = scif_open();

	(void)state;
	assert_true(scif_bind(a, 0) > 0);
	assert_scif_errno(scif_bind(a, 0), EINVAL);
	assert_scif_ok(scif_close(a));
}

static void test_scif_bind_admin_port_needs_privilege(void **state)
{
	scif_epd_t a = scif_open();

	(void)state;
	if (geteuid() == 0) {
		assert_int_equal(scif_bind(a, 500), 500);
	} else {
		assert_scif_errno(scif_bind(a, 500), EACCES);
		assert_scif_errno(scif_bind(a, SCIF_COI_PORT_0), EACCES);
		/* Above the admin range a fixed port is fine, reserved for services or not. */
		assert_true(scif_bind(a, 0) > 0);
	}
	assert_scif_ok(scif_close(a));
}

static void test_scif_listen_unbound_fails_einval(void **state)
{
	scif_epd_t a = scif_open();

	(void)state;
	assert_scif_errno(scif_listen(a, 1), EINVAL);
	assert_true(scif_bind(a, 0) > 0);
	assert_scif_errno(scif_listen(a, -1), EINVAL);
	assert_scif_ok(scif_listen(a, 0));
	assert_scif_ok(scif_close(a));
}

static void test_scif_connect_no_listener_fails_econnrefused(void **state)
{
	scif_epd_t a = scif_open(), b = scif_open();
	struct scif_portID dst = { .node = scif_test_self() };
	int port;

	(void)state;
	port = scif_bind(a, 0);   /* bound, not listening */
	dst.port = (uint16_t)port;
	assert_scif_errno(scif_connect(b, &dst), ECONNREFUSED);
	dst.port = (uint16_t)(port + 1 == 65536 ? port - 1 : port + 1);
	assert_scif_errno(scif_connect(b, &dst), ECONNREFUSED);
	assert_scif_ok(scif_close(a));
	assert_scif_ok(scif_close(b));
}

static void test_scif_connect_bad_arguments(void **state)
{
	scif_epd_t a = scif_open();
	struct scif_portID dst = { .node = 4000, .port = 3000 };

	(void)state;
	assert_scif_errno(scif_connect(a, NULL), EINVAL);
	/*
	 * Without a node file every id the provider allows is a node, and one whose
	 * process is not running has nobody listening (ENODEV: test_scif_mpss).
	 */
	assert_scif_errno(scif_connect(a, &dst), ECONNREFUSED);
	assert_scif_ok(scif_close(a));
}

static void test_scif_connect_listening_endpoint_fails_einval(void **state)
{
	struct scif_test_pair p;
	struct scif_portID dst;

	(void)state;
	scif_test_pair_open(&p);
	dst.node = scif_test_self();
	dst.port = p.port;
	assert_scif_errno(scif_connect(p.listener, &dst), EINVAL);
	assert_scif_errno(scif_connect(p.client, &dst), EISCONN);
	assert_scif_errno(scif_listen(p.client, 1), EISCONN);
	assert_scif_errno(scif_bind(p.client, 0), EISCONN);
	scif_test_pair_close(&p);
}

static void test_scif_accept_reports_peer_and_same_port(void **state)
{
	struct scif_test_pair p;

	(void)state;
	scif_test_pair_open(&p);
	assert_int_equal(p.server_peer.node, scif_test_self());
	assert_true(p.server_peer.port >= SCIF_PORT_RSVD);   /* the client's automatic port */
	assert_int_not_equal(p.server_peer.port, p.port);
	scif_test_pair_close(&p);
}

static void test_scif_accept_nonblocking_without_request_fails_eagain(void **state)
{
	scif_epd_t l = scif_open(), n;
	struct scif_portID peer;

	(void)state;
	assert_true(scif_bind(l, 0) > 0);
	assert_scif_errno(scif_accept(l, &peer, &n, 0), EINVAL);   /* not listening yet */
	assert_scif_ok(scif_listen(l, 2));
	assert_scif_errno(scif_accept(l, &peer, &n, 0), EAGAIN);
	assert_scif_errno(scif_accept(l, &peer, &n, 2), EINVAL);
	assert_scif_errno(scif_accept(l, NULL, &n, 0), EINVAL);
	assert_scif_errno(scif_accept(l, &peer, NULL, 0), EINVAL);
	assert_scif_ok(scif_close(l));
}

static void test_scif_listener_accepts_many_connections(void **state)
{
	struct scif_test_pair p;
	struct scif_test_connector c;
	struct scif_pollepd pe;
	struct scif_portID peer;
	scif_epd_t s2;

	(void)state;
	scif_test_pair_open(&p);
	scif_test_connect_start(&c, scif_test_self(), p.port);
	/* The request shows as input on the listener. */
	pe = (struct scif_pollepd){ .epd = p.listener, .events = SCIF_POLLIN };
	assert_int_equal(scif_poll(&pe, 1, SCIF_TEST_TIMEOUT_MS), 1);
	assert_true(pe.revents & SCIF_POLLIN);
	assert_scif_ok(scif_accept(p.listener, &peer, &s2, 0));
	assert_scif_ok(scif_test_connect_finish(&c));
	assert_int_equal(c.port, peer.port);
	assert_int_equal(peer.node, scif_test_self());
	assert_int_not_equal(s2, p.server);
	assert_scif_ok(scif_close(s2));
	assert_scif_ok(scif_close(c.epd));
	scif_test_pair_close(&p);
}

static void test_scif_descriptor_works_with_poll_select_epoll(void **state)
{
	struct scif_test_pair p;
	struct pollfd pfd;
	struct epoll_event ev = { .events = EPOLLIN }, out;
	fd_set set;
	struct timeval tv = { 0, 0 };
	int ep;
	char c = 'x';

	(void)state;
	scif_test_pair_open(&p);
	pfd = (struct pollfd){ .fd = scif_get_fd(p.server), .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 0), 0);
	ep = epoll_create1(0);
	assert_true(ep >= 0);
	ev.data.fd = p.server;
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, scif_get_fd(p.server), &ev), 0);
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 0);

	assert_int_equal(scif_send(p.client, &c, 1, SCIF_SEND_BLOCK), 1);
	assert_int_equal(poll(&pfd, 1, SCIF_TEST_TIMEOUT_MS), 1);
	assert_true(pfd.revents & POLLIN);
	FD_ZERO(&set);
	FD_SET(scif_get_fd(p.server), &set);
	assert_int_equal(select(scif_get_fd(p.server) + 1, &set, NULL, NULL, &tv), 1);
	assert_int_equal(epoll_wait(ep, &out, 1, SCIF_TEST_TIMEOUT_MS), 1);
	assert_int_equal(out.data.fd, p.server);

	c = 0;
	assert_int_equal(scif_recv(p.server, &c, 1, SCIF_RECV_BLOCK), 1);
	assert_int_equal(c, 'x');
	/* Drained: not readable any more. */
	assert_int_equal(poll(&pfd, 1, 0), 0);
	close(ep);
	scif_test_pair_close(&p);
}

static void test_scif_poll_reports_in_out_hup_and_nval(void **state)
{
	struct scif_test_pair p;
	struct scif_pollepd pe[3];
	char c = 1;

	(void)state;
	scif_test_pair_open(&p);
	pe[0] = (struct scif_pollepd){ .epd = p.server, .events = SCIF_POLLIN | SCIF_POLLOUT };
	pe[1] = (struct scif_pollepd){ .epd = 99999, .events = SCIF_POLLIN };
	pe[2] = (struct scif_pollepd){ .epd = p.client, .events = SCIF_POLLIN };
	assert_int_equal(scif_poll(pe, 3, 0), 2);
	assert_int_equal(pe[0].revents, SCIF_POLLOUT);
	assert_int_equal(pe[1].revents, SCIF_POLLNVAL);
	assert_int_equal(pe[2].revents, 0);

	/* Timeout with nothing ready. */
	assert_int_equal(scif_poll(&pe[2], 1, 20), 0);
	assert_int_equal(scif_send(p.server, &c, 1, 0), 1);
	assert_int_equal(scif_poll(&pe[2], 1, SCIF_TEST_TIMEOUT_MS), 1);
	assert_int_equal(pe[2].revents, SCIF_POLLIN);

	assert_scif_ok(scif_close(p.server));
	p.server = -1;
	pe[2].events = 0;
	assert_int_equal(scif_poll(&pe[2], 1, SCIF_TEST_TIMEOUT_MS), 1);
	assert_true(pe[2].revents & SCIF_POLLHUP);
	assert_scif_errno(scif_poll(NULL, 1, 0), EFAULT);
	assert_int_equal(scif_poll(NULL, 0, 0), 0);
	scif_test_pair_close(&p);
}

static void test_scif_get_nodeIDs_lists_self(void **state)
{
	uint16_t nodes[32], self = 0xffff, one;
	int n;

	(void)state;
	n = scif_get_nodeIDs(nodes, 32, &self);
	assert_true(n >= 1);
	assert_int_equal(self, 0);   /* this process is the host */
	bool found = false;
	for (int i = 0; i < n && i < 32; i++)
		found |= nodes[i] == self;
	assert_true(found);
	/* Truncated: the total still comes back. */
	assert_int_equal(scif_get_nodeIDs(&one, 1, &self), n);
	assert_int_equal(scif_get_nodeIDs(NULL, 0, &self), n);
	assert_scif_errno(scif_get_nodeIDs(nodes, 32, NULL), EFAULT);
	assert_scif_errno(scif_get_nodeIDs(NULL, 4, &self), EFAULT);
}

static void test_scif_close_listener_leaves_connections(void **state)
{
	struct scif_test_pair p;
	char c = 7;

	(void)state;
	scif_test_pair_open(&p);
	assert_scif_ok(scif_close(p.listener));
	assert_int_equal(scif_send(p.client, &c, 1, SCIF_SEND_BLOCK), 1);
	c = 0;
	assert_int_equal(scif_recv(p.server, &c, 1, SCIF_RECV_BLOCK), 1);
	assert_int_equal(c, 7);
	assert_scif_ok(scif_close(p.client));
	assert_scif_ok(scif_close(p.server));
}

static void *close_soon(void *arg)
{
	scif_epd_t epd = *(scif_epd_t *)arg;

	scif_close(epd);
	return NULL;
}

static void test_scif_close_wakes_blocked_accept(void **state)
{
	scif_epd_t l = scif_open(), n;
	struct scif_portID peer;
	pthread_t thread;

	(void)state;
	assert_true(scif_bind(l, 0) > 0);
	assert_scif_ok(scif_listen(l, 1));
	assert_int_equal(pthread_create(&thread, NULL, close_soon, &l), 0);
	/* Either the close came first (EBADF) or it woke us. */
	assert_int_equal(scif_accept(l, &peer, &n, SCIF_ACCEPT_SYNC), -1);
	assert_true(errno == EBADF || errno == ECONNRESET || errno == EINVAL);
	assert_int_equal(fixture_join(thread, SCIF_TEST_TIMEOUT_MS, NULL), 0);
}

static void test_scif_connect_nonblocking_completes_by_poll(void **state)
{
	scif_epd_t l = scif_open(), c = scif_open(), s;
	struct scif_portID dst = { .node = scif_test_self() }, peer;
	struct scif_pollepd pe = { .events = SCIF_POLLOUT };
	char ch = 'n';
	int port;

	(void)state;
	port = scif_bind(l, 0);
	assert_scif_ok(scif_listen(l, 1));
	dst.port = (uint16_t)port;
	assert_int_equal(fcntl(scif_get_fd(c), F_SETFL, fcntl(scif_get_fd(c), F_GETFL) | O_NONBLOCK), 0);
	assert_scif_errno(scif_connect(c, &dst), EINPROGRESS);
	/* Not writable until accepted. */
	pe.epd = c;
	assert_int_equal(scif_poll(&pe, 1, 0), 0);
	assert_scif_errno(scif_connect(c, &dst), EINPROGRESS);
	assert_scif_ok(scif_accept(l, &peer, &s, SCIF_ACCEPT_SYNC));
	assert_int_equal(scif_poll(&pe, 1, SCIF_TEST_TIMEOUT_MS), 1);
	assert_int_equal(pe.revents, SCIF_POLLOUT);
	/* The next call reports the outcome, the local port; the one after sees EISCONN. */
	assert_int_equal(scif_connect(c, &dst), peer.port);
	assert_true(peer.port >= SCIF_PORT_RSVD);
	assert_scif_errno(scif_connect(c, &dst), EISCONN);
	assert_int_equal(scif_send(c, &ch, 1, SCIF_SEND_BLOCK), 1);
	ch = 0;
	assert_int_equal(scif_recv(s, &ch, 1, SCIF_RECV_BLOCK), 1);
	assert_int_equal(ch, 'n');
	assert_scif_ok(scif_close(c));
	assert_scif_ok(scif_close(s));
	assert_scif_ok(scif_close(l));
}

static void test_scif_connect_nonblocking_refused(void **state)
{
	scif_epd_t a = scif_open(), c = scif_open();
	struct scif_portID dst = { .node = scif_test_self() };
	struct scif_pollepd pe = { .events = SCIF_POLLOUT };
	int rc;

	(void)state;
	dst.port = (uint16_t)scif_bind(a, 0);   /* bound, nobody listens */
	assert_int_equal(fcntl(c, F_SETFL, O_NONBLOCK), 0);
	rc = scif_connect(c, &dst);
	assert_int_equal(rc, -1);
	assert_int_equal(errno, EINPROGRESS);
	pe.epd = c;
	assert_int_equal(scif_poll(&pe, 1, SCIF_TEST_TIMEOUT_MS), 1);
	assert_true(pe.revents & SCIF_POLLERR);
	assert_scif_errno(scif_connect(c, &dst), ECONNREFUSED);
	assert_scif_ok(scif_close(c));
	assert_scif_ok(scif_close(a));
}

/* Threads of this process named name (libscif names its connect threads "scif-connect"). */
static int threads_named(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;   /* the thread ended while we looked */
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		n += !strcmp(comm, name);
	}
	closedir(d);
	return n;
}

/*
 * Wait, bounded, until no thread is named name. A joined thread has ended, but
 * the kernel may still list it under /proc for a moment after the join returns.
 */
static int wait_no_thread_named(const char *name, int timeout_ms)
{
	uint64_t deadline = fixture_now_ms() + (uint64_t)timeout_ms;
	int n;

	while ((n = threads_named(name)) > 0 && fixture_now_ms() < deadline)
		sched_yield();
	return n;
}

#define FD_WATCH_MAX 4096

/* Which descriptors below FD_WATCH_MAX are open now. */
static void fds_open(bool open[FD_WATCH_MAX])
{
	for (int fd = 0; fd < FD_WATCH_MAX; fd++)
		open[fd] = fcntl(fd, F_GETFD) != -1;
}

/* Descriptors open now that were not in before: what a call left behind. */
static int fds_added(const bool before[FD_WATCH_MAX])
{
	int n = 0;

	for (int fd = 0; fd < FD_WATCH_MAX; fd++)
		n += !before[fd] && fcntl(fd, F_GETFD) != -1;
	return n;
}

/* A listener on a free port of this node; dst names it. */
static scif_epd_t listener_open(struct scif_portID *dst)
{
	scif_epd_t l = scif_open();
	int port;

	assert_true(l >= 0);
	port = scif_bind(l, 0);
	assert_true(port >= SCIF_PORT_RSVD);
	assert_scif_ok(scif_listen(l, 1));
	dst->node = scif_test_self();
	dst->port = (uint16_t)port;
	return l;
}

/* Wait until l holds a connection request: the connect is then waiting for an accept. */
static void wait_request(scif_epd_t l)
{
	struct scif_pollepd pe = { .epd = l, .events = SCIF_POLLIN };

	assert_int_equal(scif_poll(&pe, 1, SCIF_TEST_TIMEOUT_MS), 1);
	assert_int_equal(pe.revents, SCIF_POLLIN);
}

static void test_scif_close_wakes_blocked_connect_econnreset(void **state)
{
	struct scif_portID dst, peer;
	struct scif_test_connector c;
	scif_epd_t l = listener_open(&dst), n;

	(void)state;
	scif_test_connect_start(&c, dst.node, dst.port);
	/* The request is queued and nobody accepts: the connect waits until its endpoint closes. */
	wait_request(l);
	assert_scif_ok(scif_close(c.epd));
	assert_int_equal(scif_test_connect_finish(&c), -1);
	assert_int_equal(errno, ECONNRESET);
	/* The abandoned request is no connection: accepting it finds the connector gone. */
	assert_scif_errno(scif_accept(l, &peer, &n, SCIF_ACCEPT_SYNC), ECONNRESET);
	assert_scif_ok(scif_close(l));
}

static void test_scif_close_during_nonblocking_connect_leaves_no_thread_or_fd(void **state)
{
	static bool fds_before[FD_WATCH_MAX];
	struct scif_portID dst;
	scif_epd_t l = listener_open(&dst), c;

	(void)state;
	/*
	 * Only what this connect opens is counted: the library's own threads and
	 * descriptors may come and go meanwhile (a callback thread started on first
	 * use, an earlier test's connection finishing its close).
	 */
	fds_open(fds_before);
	assert_int_equal(threads_named("scif-connect"), 0);
	c = scif_open();
	assert_true(c >= 0);
	assert_int_equal(fcntl(c, F_SETFL, O_NONBLOCK), 0);
	assert_scif_errno(scif_connect(c, &dst), EINPROGRESS);
	wait_request(l);
	assert_int_equal(threads_named("scif-connect"), 1);
	/* Nobody accepts. The close ends the attempt: its thread is joined, its descriptors closed. */
	assert_scif_ok(scif_close(c));
	assert_int_equal(fds_added(fds_before), 0);
	assert_int_equal(wait_no_thread_named("scif-connect", SCIF_TEST_TIMEOUT_MS), 0);
	assert_scif_ok(scif_close(l));
}

/* Connections test_scif_nonblocking_connect_hides_stream_until_connected makes. */
#define HANDSHAKE_ROUNDS 200

/* Looks at an endpoint whose connect is running, as a program's other thread might. */
struct watcher {
	scif_epd_t epd;
	int stop;              /* atomic: set by the test */
	int pollin;            /* times scif_poll reported SCIF_POLLIN */
	int taken;             /* bytes scif_recv returned */
	int bad_errno;         /* a scif_recv error other than ENOTCONN, else 0 */
};

static void *watch_main(void *arg)
{
	struct watcher *w = arg;
	char buf[16];

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		struct scif_pollepd pe = { .epd = w->epd, .events = SCIF_POLLIN };
		int rc;

		if (scif_poll(&pe, 1, 0) > 0 && (pe.revents & SCIF_POLLIN))
			w->pollin++;
		rc = scif_recv(w->epd, buf, sizeof(buf), 0);
		if (rc > 0)
			w->taken += rc;
		else if (rc < 0 && errno != ENOTCONN)
			w->bad_errno = errno;
	}
	return NULL;
}

/*
 * The first bytes of a connection are libscif's handshake. Until scif_connect has
 * reported the connection, the stream is not the program's: no SCIF_POLLIN, and
 * scif_send/scif_recv fail with ENOTCONN (a recv that took the handshake's bytes
 * made the connect fail).
 */
static void test_scif_nonblocking_connect_hides_stream_until_connected(void **state)
{
	struct scif_portID dst, peer;
	scif_epd_t l = listener_open(&dst);

	(void)state;
	for (int i = 0; i < HANDSHAKE_ROUNDS; i++) {
		struct scif_pollepd pe = { .events = SCIF_POLLOUT };
		struct watcher w = { 0 };
		scif_epd_t c = scif_open(), s;
		pthread_t thread;
		char buf[2] = { 0 };
		int ready;

		assert_true(c >= 0);
		assert_int_equal(fcntl(c, F_SETFL, O_NONBLOCK), 0);
		w.epd = c;
		assert_int_equal(pthread_create(&thread, NULL, watch_main, &w), 0);
		assert_scif_errno(scif_connect(c, &dst), EINPROGRESS);
		wait_request(l);
		assert_scif_errno(scif_send(c, buf, 1, 0), ENOTCONN);
		assert_scif_errno(scif_recv(c, buf, 1, 0), ENOTCONN);
		assert_scif_ok(scif_accept(l, &peer, &s, SCIF_ACCEPT_SYNC));
		pe.epd = c;
		ready = scif_poll(&pe, 1, SCIF_TEST_TIMEOUT_MS);
		__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
		assert_int_equal(fixture_join(thread, SCIF_TEST_TIMEOUT_MS, NULL), 0);
		if (w.pollin || w.taken || w.bad_errno)
			print_error("round %d: SCIF_POLLIN %d times, %d bytes taken, errno %d\n", i,
				    w.pollin, w.taken, w.bad_errno);
		assert_int_equal(w.taken, 0);
		assert_int_equal(w.pollin, 0);
		assert_int_equal(w.bad_errno, 0);
		assert_int_equal(ready, 1);
		assert_int_equal(pe.revents, SCIF_POLLOUT);
		assert_int_equal(scif_connect(c, &dst), peer.port);
		/* The stream is whole: the server's first bytes are the client's first bytes. */
		assert_int_equal(scif_send(s, "ok", 2, SCIF_SEND_BLOCK), 2);
		assert_int_equal(scif_recv(c, buf, 2, SCIF_RECV_BLOCK), 2);
		assert_memory_equal(buf, "ok", 2);
		assert_scif_ok(scif_close(c));
		assert_scif_ok(scif_close(s));
	}
	assert_scif_ok(scif_close(l));
}

/* Rounds of test_scif_concurrent_nonblocking_connects_make_one_attempt. */
#define CONCURRENT_CONNECT_ROUNDS 300

struct connect_racer {
	struct fixture_barrier *start;
	scif_epd_t epd;
	struct scif_portID dst;
	int rc, err;
};

static void *connect_racer_main(void *arg)
{
	struct connect_racer *r = arg;

	if (fixture_barrier_wait(r->start, SCIF_TEST_TIMEOUT_MS)) {
		r->rc = -2;
		return NULL;
	}
	r->rc = scif_connect(r->epd, &r->dst);
	r->err = errno;
	return NULL;
}

/*
 * Two threads start a non-blocking connect on one endpoint at once: one attempt
 * runs (the other call sees it in progress), the listener gets one request, and
 * the endpoint ends up connected with a stream that works.
 */
static void test_scif_concurrent_nonblocking_connects_make_one_attempt(void **state)
{
	struct scif_portID dst, peer;
	scif_epd_t l = listener_open(&dst);
	struct fixture_barrier start;

	(void)state;
	fixture_barrier_init(&start, 2);
	for (int i = 0; i < CONCURRENT_CONNECT_ROUNDS; i++) {
		struct scif_pollepd pe = { .events = SCIF_POLLOUT };
		struct connect_racer r = { .start = &start, .dst = dst };
		scif_epd_t c = scif_open(), s, extra;
		pthread_t thread;
		char ch = 'c';
		int rc, err;

		assert_true(c >= 0);
		assert_int_equal(fcntl(c, F_SETFL, O_NONBLOCK), 0);
		r.epd = c;
		assert_int_equal(pthread_create(&thread, NULL, connect_racer_main, &r), 0);
		assert_int_equal(fixture_barrier_wait(&start, SCIF_TEST_TIMEOUT_MS), 0);
		rc = scif_connect(c, &dst);
		err = errno;
		assert_int_equal(fixture_join(thread, SCIF_TEST_TIMEOUT_MS, NULL), 0);
		assert_int_equal(rc, -1);
		assert_int_equal(err, EINPROGRESS);
		assert_int_equal(r.rc, -1);
		assert_int_equal(r.err, EINPROGRESS);
		assert_scif_ok(scif_accept(l, &peer, &s, SCIF_ACCEPT_SYNC));
		pe.epd = c;
		assert_int_equal(scif_poll(&pe, 1, SCIF_TEST_TIMEOUT_MS), 1);
		if (pe.revents != SCIF_POLLOUT)
			print_error("round %d: revents 0x%x\n", i, pe.revents);
		assert_int_equal(pe.revents, SCIF_POLLOUT);
		assert_int_equal(scif_connect(c, &dst), peer.port);
		assert_int_equal(scif_send(c, &ch, 1, SCIF_SEND_BLOCK), 1);
		ch = 0;
		assert_int_equal(scif_recv(s, &ch, 1, SCIF_RECV_BLOCK), 1);
		assert_int_equal(ch, 'c');
		/* No second request waits. */
		assert_scif_errno(scif_accept(l, &peer, &extra, 0), EAGAIN);
		assert_scif_ok(scif_close(c));
		assert_scif_ok(scif_close(s));
	}
	fixture_barrier_destroy(&start);
	assert_scif_ok(scif_close(l));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scif_open_close_returns_distinct_fds),
		cmocka_unit_test(test_scif_bad_descriptor_fails_ebadf_everywhere),
		cmocka_unit_test(test_scif_bind_any_port_is_above_reserved),
		cmocka_unit_test(test_scif_bind_taken_port_fails_eaddrinuse),
		cmocka_unit_test(test_scif_bind_port_returns_after_close),
		cmocka_unit_test(test_scif_bind_twice_fails_einval),
		cmocka_unit_test(test_scif_bind_admin_port_needs_privilege),
		cmocka_unit_test(test_scif_listen_unbound_fails_einval),
		cmocka_unit_test(test_scif_connect_no_listener_fails_econnrefused),
		cmocka_unit_test(test_scif_connect_bad_arguments),
		cmocka_unit_test(test_scif_connect_listening_endpoint_fails_einval),
		cmocka_unit_test(test_scif_accept_reports_peer_and_same_port),
		cmocka_unit_test(test_scif_accept_nonblocking_without_request_fails_eagain),
		cmocka_unit_test(test_scif_listener_accepts_many_connections),
		cmocka_unit_test(test_scif_descriptor_works_with_poll_select_epoll),
		cmocka_unit_test(test_scif_poll_reports_in_out_hup_and_nval),
		cmocka_unit_test(test_scif_get_nodeIDs_lists_self),
		cmocka_unit_test(test_scif_close_listener_leaves_connections),
		cmocka_unit_test(test_scif_close_wakes_blocked_accept),
		cmocka_unit_test(test_scif_connect_nonblocking_completes_by_poll),
		cmocka_unit_test(test_scif_connect_nonblocking_refused),
		cmocka_unit_test(test_scif_close_wakes_blocked_connect_econnreset),
		cmocka_unit_test(test_scif_close_during_nonblocking_connect_leaves_no_thread_or_fd),
		cmocka_unit_test(test_scif_concurrent_nonblocking_connects_make_one_attempt),
		cmocka_unit_test(test_scif_nonblocking_connect_hides_stream_until_connected),
	};

	scif_test_env("scif-ep");
	return cmocka_run_group_tests_name("scif_ep", tests, NULL, NULL);
}
