/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_conn.c: connections (include/xrma/conn.h): ports and bind
 * rules, listen / connect / accept with refusals and backlog, the ordered byte
 * stream (partial non-blocking sends beyond the window, blocking megabyte sends
 * through a reader thread), readiness bits and the pollable fd, end of stream
 * after the peer closes, a close that ends a connect waiting for its accept,
 * bad handles, and several threads on connections.
 * Node 1 listens, node 2 (and 3) connect; connects run on helper threads so
 * either connect semantics (return when queued, or when accepted) works.
 */
#include "tests/helpers/fixture.h"

#include <stdlib.h>
#include <string.h>

static struct fixture fx;

static int conn_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "conn", 3);
}

static int conn_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

/* ------------------------------------------------------------------ helpers */

struct connector {
	pthread_t thread;
	struct xrma_conn *conn;
	uint32_t node, port;
	int timeout_ms;
	int rc;
};

static void *connect_main(void *arg)
{
	struct connector *c = arg;

	c->rc = xrma_conn_connect(c->conn, c->node, c->port, c->timeout_ms);
	return NULL;
}

static void connect_start(struct connector *c, struct xrma_conn *conn, uint32_t node, uint32_t port)
{
	c->conn = conn;
	c->node = node;
	c->port = port;
	c->timeout_ms = FIXTURE_TIMEOUT_MS;
	c->rc = 1;
	assert_int_equal(pthread_create(&c->thread, NULL, connect_main, c), 0);
}

static int connect_finish(struct connector *c)
{
	assert_int_equal(fixture_join(c->thread, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	return c->rc;
}

static struct xrma_conn *listener_open(size_t ctx, int backlog, uint32_t *port)
{
	struct xrma_conn *l = NULL;

	*port = XRMA_PORT_ANY;
	assert_rc(xrma_conn_open(fx.ctx[ctx], 0, &l), 0);
	assert_rc(xrma_conn_bind(l, port, 0, 0), 0);
	assert_rc(xrma_conn_listen(l, backlog), 0);
	return l;
}

/* A listener on node 1, a client on node 2 and the accepted end. */
struct link {
	struct xrma_conn *listener, *server, *client;
	uint32_t port;
};

static void link_open(struct link *k)
{
	struct connector c;

	k->listener = listener_open(0, 4, &k->port);
	assert_rc(xrma_conn_open(fx.ctx[1], 0, &k->client), 0);
	connect_start(&c, k->client, fx.node[0], k->port);
	assert_rc(xrma_conn_accept(k->listener, FIXTURE_TIMEOUT_MS, &k->server), 0);
	assert_rc(connect_finish(&c), 0);
}

static void link_close(struct link *k)
{
	if (k->client)
		assert_rc(xrma_conn_close(k->client), 0);
	if (k->server)
		assert_rc(xrma_conn_close(k->server), 0);
	assert_rc(xrma_conn_close(k->listener), 0);
}

static uint32_t revents(struct xrma_conn *conn)
{
	uint32_t ev = 0xdead;

	assert_rc(xrma_conn_poll(conn, &ev), 0);
	return ev;
}

static enum xrma_conn_state conn_state(struct xrma_conn *conn)
{
	enum xrma_conn_state st = 0;

	assert_rc(xrma_conn_state(conn, &st), 0);
	return st;
}

/* Receive exactly len bytes (blocking). */
static void recv_all(struct xrma_conn *conn, void *buf, size_t len)
{
	assert_count(xrma_conn_recv(conn, buf, len, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), (long)len);
}

/* Send non-blocking until the window is full; returns the bytes sent. */
static size_t fill_window(struct xrma_conn *conn)
{
	static uint8_t chunk[65536];
	size_t total = 0;
	ssize_t n;

	for (;;) {
		n = xrma_conn_send(conn, chunk, sizeof(chunk), 0, 0);
		if (n == -XRMA_EAGAIN)
			return total;
		assert_true(n > 0);
		total += (size_t)n;
		if (total > ((size_t)256 << 20))
			fail_msg("256 MiB sent without a full window");
	}
}

/* ------------------------------------------------------------------ lifecycle and bind */

static void test_conn_open_close_state_unbound(void **state)
{
	struct xrma_conn *c = NULL;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &c), 0);
	assert_int_equal(conn_state(c), XRMA_CONN_UNBOUND);
	assert_int_equal(fixture_count(fx.ctx[0]), 1);
	assert_true(xrma_conn_fd(c) >= 0);
	assert_rc(xrma_conn_close(c), 0);
	assert_rc(xrma_conn_close(c), XRMA_EHANDLE);
}

static void test_conn_open_bad_args_return_errors(void **state)
{
	struct xrma_conn *c = NULL;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 1u << 3, &c), XRMA_EINVAL);
	assert_rc(xrma_conn_open(fx.ctx[0], 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_conn_open(FIXTURE_FORGED(struct xrma_ctx), 0, &c), XRMA_EHANDLE);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_conn_bind_fixed_port_bound_local(void **state)
{
	struct xrma_conn *c = NULL;
	uint32_t port = 4000, node = 0, lport = 0;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &c), 0);
	assert_rc(xrma_conn_bind(c, &port, 0, 0), 0);
	assert_int_equal(port, 4000);
	assert_int_equal(conn_state(c), XRMA_CONN_BOUND);
	assert_rc(xrma_conn_local(c, &node, &lport), 0);
	assert_int_equal(node, fx.node[0]);
	assert_int_equal(lport, 4000);
	assert_rc(xrma_conn_close(c), 0);
}

static void test_conn_bind_any_in_range(void **state)
{
	struct xrma_conn *a = NULL, *b = NULL;
	uint32_t pa = XRMA_PORT_ANY, pb = XRMA_PORT_ANY;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &a), 0);
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &b), 0);
	assert_rc(xrma_conn_bind(a, &pa, 5000, 5009), 0);
	assert_rc(xrma_conn_bind(b, &pb, 0, 0), 0);
	assert_in_range(pa, 5000, 5009);
	assert_in_range(pb, 1, XRMA_PORT_MAX);
	assert_true(pa != pb);
	assert_rc(xrma_conn_close(a), 0);
	assert_rc(xrma_conn_close(b), 0);
}

static void test_conn_bind_taken_port_returns_eaddrinuse(void **state)
{
	struct xrma_conn *a = NULL, *b = NULL, *other = NULL;
	uint32_t port = 4001;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &a), 0);
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &b), 0);
	assert_rc(xrma_conn_open(fx.ctx[1], 0, &other), 0);
	assert_rc(xrma_conn_bind(a, &port, 0, 0), 0);
	port = 4001;
	assert_rc(xrma_conn_bind(b, &port, 0, 0), XRMA_EADDRINUSE);
	assert_int_equal(conn_state(b), XRMA_CONN_UNBOUND);
	/* Ports are per node. */
	port = 4001;
	assert_rc(xrma_conn_bind(other, &port, 0, 0), 0);
	assert_rc(xrma_conn_close(a), 0);
	/* Closing released the port. */
	port = 4001;
	assert_rc(xrma_conn_bind(b, &port, 0, 0), 0);
	assert_rc(xrma_conn_close(b), 0);
	assert_rc(xrma_conn_close(other), 0);
}

static void test_conn_bind_bad_args_return_einval(void **state)
{
	struct xrma_conn *c = NULL;
	uint32_t port;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &c), 0);
	port = XRMA_PORT_MAX + 1;
	assert_rc(xrma_conn_bind(c, &port, 0, 0), XRMA_EINVAL);
	port = XRMA_PORT_ANY;
	assert_rc(xrma_conn_bind(c, &port, 6010, 6000), XRMA_EINVAL);
	port = XRMA_PORT_ANY;
	assert_rc(xrma_conn_bind(c, &port, 1, XRMA_PORT_MAX + 1), XRMA_EINVAL);
	assert_rc(xrma_conn_bind(c, NULL, 0, 0), XRMA_EINVAL);
	assert_int_equal(conn_state(c), XRMA_CONN_UNBOUND);
	port = 4003;
	assert_rc(xrma_conn_bind(c, &port, 0, 0), 0);
	port = 4004;
	assert_rc(xrma_conn_bind(c, &port, 0, 0), XRMA_EINVAL);   /* already bound */
	/* 4004 stayed free. */
	assert_rc(xrma_conn_close(c), 0);
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &c), 0);
	assert_rc(xrma_conn_bind(c, &port, 0, 0), 0);
	assert_rc(xrma_conn_close(c), 0);
}

static void test_conn_bind_any_range_full_returns_enospc(void **state)
{
	struct xrma_conn *c[3] = { NULL };
	uint32_t port;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_rc(xrma_conn_open(fx.ctx[0], 0, &c[i]), 0);
	for (i = 0; i < 2; i++) {
		port = XRMA_PORT_ANY;
		assert_rc(xrma_conn_bind(c[i], &port, 6000, 6001), 0);
	}
	port = XRMA_PORT_ANY;
	assert_rc(xrma_conn_bind(c[2], &port, 6000, 6001), XRMA_ENOSPC);
	assert_int_equal(conn_state(c[2]), XRMA_CONN_UNBOUND);
	for (i = 0; i < 3; i++)
		assert_rc(xrma_conn_close(c[i]), 0);
}

/* ------------------------------------------------------------------ listen, connect, accept */

static void test_conn_listen_bad_state_returns_einval(void **state)
{
	struct xrma_conn *c = NULL;
	uint32_t port = XRMA_PORT_ANY;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &c), 0);
	assert_rc(xrma_conn_listen(c, 4), XRMA_EINVAL);
	assert_rc(xrma_conn_bind(c, &port, 0, 0), 0);
	assert_rc(xrma_conn_listen(c, 0), XRMA_EINVAL);
	assert_rc(xrma_conn_listen(c, -1), XRMA_EINVAL);
	assert_int_equal(conn_state(c), XRMA_CONN_BOUND);
	assert_rc(xrma_conn_listen(c, 1), 0);
	assert_int_equal(conn_state(c), XRMA_CONN_LISTENING);
	assert_rc(xrma_conn_close(c), 0);
}

static void test_conn_connect_no_listener_returns_econnrefused(void **state)
{
	struct xrma_conn *bound = NULL, *c = NULL;
	uint32_t port = XRMA_PORT_ANY;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &bound), 0);
	assert_rc(xrma_conn_bind(bound, &port, 0, 0), 0);
	assert_rc(xrma_conn_open(fx.ctx[1], 0, &c), 0);
	/* Bound but not listening, then a port nobody holds. */
	assert_rc(xrma_conn_connect(c, fx.node[0], port, FIXTURE_TIMEOUT_MS), XRMA_ECONNREFUSED);
	assert_rc(xrma_conn_connect(c, fx.node[0], 4999, FIXTURE_TIMEOUT_MS), XRMA_ECONNREFUSED);
	assert_true(conn_state(c) != XRMA_CONN_CONNECTED);
	assert_rc(xrma_conn_close(c), 0);
	assert_rc(xrma_conn_close(bound), 0);
}

static void test_conn_connect_unknown_node_returns_enodev(void **state)
{
	struct xrma_conn *c = NULL;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[1], 0, &c), 0);
	assert_rc(xrma_conn_connect(c, 99, 1000, FIXTURE_TIMEOUT_MS), XRMA_ENODEV);
	assert_rc(xrma_conn_close(c), 0);
}

static void test_conn_connect_accept_connected_peers(void **state)
{
	struct link k;
	uint32_t node = 0, port = 0, cport = 0;

	(void)state;
	link_open(&k);
	assert_int_equal(conn_state(k.client), XRMA_CONN_CONNECTED);
	assert_int_equal(conn_state(k.server), XRMA_CONN_CONNECTED);
	assert_int_equal(conn_state(k.listener), XRMA_CONN_LISTENING);
	/* The client was bound to a free port on the way. */
	assert_rc(xrma_conn_local(k.client, &node, &cport), 0);
	assert_int_equal(node, fx.node[1]);
	assert_true(cport != XRMA_PORT_ANY);
	/* The accepted end shares the listener's port. */
	assert_rc(xrma_conn_local(k.server, &node, &port), 0);
	assert_int_equal(node, fx.node[0]);
	assert_int_equal(port, k.port);
	assert_rc(xrma_conn_peer(k.client, &node, &port), 0);
	assert_int_equal(node, fx.node[0]);
	assert_int_equal(port, k.port);
	assert_rc(xrma_conn_peer(k.server, &node, &port), 0);
	assert_int_equal(node, fx.node[1]);
	assert_int_equal(port, cport);
	assert_int_equal(fixture_count(fx.ctx[0]), 2);
	assert_int_equal(fixture_count(fx.ctx[1]), 1);
	link_close(&k);
}

static void test_conn_connect_wrong_state_returns_error(void **state)
{
	struct link k;
	uint32_t port = XRMA_PORT_ANY;

	(void)state;
	link_open(&k);
	assert_rc(xrma_conn_connect(k.listener, fx.node[1], 1, FIXTURE_TIMEOUT_MS), XRMA_ESTATE);
	assert_rc(xrma_conn_connect(k.client, fx.node[0], k.port, FIXTURE_TIMEOUT_MS), XRMA_EISCONN);
	assert_rc(xrma_conn_listen(k.client, 1), XRMA_EISCONN);
	assert_rc(xrma_conn_bind(k.server, &port, 0, 0), XRMA_EISCONN);
	assert_int_equal(conn_state(k.client), XRMA_CONN_CONNECTED);
	assert_int_equal(conn_state(k.listener), XRMA_CONN_LISTENING);
	link_close(&k);
}

static void test_conn_accept_bad_state_or_none_returns_error(void **state)
{
	struct xrma_conn *c = NULL, *l, *out = NULL;
	uint32_t port;
	uint64_t start;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &c), 0);
	assert_rc(xrma_conn_accept(c, 0, &out), XRMA_EINVAL);
	assert_rc(xrma_conn_close(c), 0);
	l = listener_open(0, 2, &port);
	assert_rc(xrma_conn_accept(l, 0, &out), XRMA_EAGAIN);
	start = fixture_now_ms();
	assert_rc(xrma_conn_accept(l, FIXTURE_SHORT_MS, &out), XRMA_ETIMEDOUT);
	assert_true(fixture_now_ms() - start >= FIXTURE_SHORT_MS - 5);
	assert_rc(xrma_conn_accept(l, 0, NULL), XRMA_EINVAL);
	assert_null(out);
	assert_int_equal(fixture_count(fx.ctx[0]), 1);
	assert_rc(xrma_conn_close(l), 0);
}

static void test_conn_listener_fd_readable_on_pending_request(void **state)
{
	struct xrma_conn *l, *c = NULL, *s = NULL;
	struct connector con;
	uint32_t port;

	(void)state;
	l = listener_open(0, 2, &port);
	assert_int_equal(revents(l) & XRMA_POLLIN, 0);
	assert_rc(xrma_conn_open(fx.ctx[1], 0, &c), 0);
	connect_start(&con, c, fx.node[0], port);
	assert_int_equal(fixture_fd_readable(xrma_conn_fd(l), FIXTURE_TIMEOUT_MS), 1);
	assert_true(revents(l) & XRMA_POLLIN);
	assert_rc(xrma_conn_accept(l, 0, &s), 0);
	assert_rc(connect_finish(&con), 0);
	assert_int_equal(revents(l) & XRMA_POLLIN, 0);
	assert_rc(xrma_conn_close(s), 0);
	assert_rc(xrma_conn_close(c), 0);
	assert_rc(xrma_conn_close(l), 0);
}

static void test_conn_connect_backlog_full_returns_econnrefused(void **state)
{
	struct xrma_conn *l, *a = NULL, *b = NULL, *s = NULL, *extra = NULL;
	struct connector ca, cb;
	uint8_t byte;
	uint32_t port;

	(void)state;
	l = listener_open(0, 1, &port);
	assert_rc(xrma_conn_open(fx.ctx[1], 0, &a), 0);
	assert_rc(xrma_conn_open(fx.ctx[2], 0, &b), 0);
	connect_start(&ca, a, fx.node[0], port);
	/* a's request is pending once the listener is readable. */
	assert_int_equal(fixture_fd_readable(xrma_conn_fd(l), FIXTURE_TIMEOUT_MS), 1);
	connect_start(&cb, b, fx.node[0], port);
	assert_rc(connect_finish(&cb), XRMA_ECONNREFUSED);
	assert_rc(xrma_conn_accept(l, FIXTURE_TIMEOUT_MS, &s), 0);
	assert_rc(connect_finish(&ca), 0);
	assert_rc(xrma_conn_accept(l, 0, &extra), XRMA_EAGAIN);
	assert_int_equal(fixture_count(fx.ctx[0]), 2);
	assert_rc(xrma_conn_close(b), 0);
	/* The accepted end outlives its listener. */
	assert_rc(xrma_conn_close(l), 0);
	assert_int_equal(conn_state(s), XRMA_CONN_CONNECTED);
	assert_rc(xrma_conn_close(a), 0);
	assert_rc(xrma_conn_recv(s, &byte, 1, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), XRMA_ECONNRESET);
	assert_int_equal(conn_state(s), XRMA_CONN_DISCONNECTED);
	assert_rc(xrma_conn_close(s), 0);
}

static void test_conn_close_listener_refuses_pending(void **state)
{
	struct xrma_conn *l, *c = NULL;
	struct connector con;
	uint8_t byte;
	uint32_t port;
	int rc;

	(void)state;
	l = listener_open(0, 2, &port);
	assert_rc(xrma_conn_open(fx.ctx[1], 0, &c), 0);
	connect_start(&con, c, fx.node[0], port);
	assert_int_equal(fixture_fd_readable(xrma_conn_fd(l), FIXTURE_TIMEOUT_MS), 1);
	assert_rc(xrma_conn_close(l), 0);
	rc = connect_finish(&con);
	if (rc == 0) {
		/* connect returned when queued: the refusal then ends the stream. */
		assert_rc(xrma_conn_recv(c, &byte, 1, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS),
			  XRMA_ECONNRESET);
	} else {
		assert_rc(rc, XRMA_ECONNREFUSED);
	}
	assert_true(conn_state(c) != XRMA_CONN_CONNECTED);
	assert_rc(xrma_conn_close(c), 0);
}

static void test_conn_close_wakes_connect_waiting_for_accept_ecanceled(void **state)
{
	struct xrma_conn *l, *c = NULL, *s = NULL;
	struct connector con = { .timeout_ms = XRMA_TIMEOUT_INFINITE, .rc = 1 };
	uint8_t byte;
	uint32_t port;

	(void)state;
	l = listener_open(0, 1, &port);
	assert_rc(xrma_conn_open(fx.ctx[1], 0, &c), 0);
	con.conn = c;
	con.node = fx.node[0];
	con.port = port;
	assert_int_equal(pthread_create(&con.thread, NULL, connect_main, &con), 0);
	/* The request is queued and nobody accepts: without a deadline only the close ends it. */
	assert_int_equal(fixture_fd_readable(xrma_conn_fd(l), FIXTURE_TIMEOUT_MS), 1);
	assert_rc(xrma_conn_close(c), 0);
	assert_rc(connect_finish(&con), XRMA_ECANCELED);
	/* Accepted late, the request is a stream whose connector has gone. */
	assert_rc(xrma_conn_accept(l, 0, &s), 0);
	assert_rc(xrma_conn_recv(s, &byte, 1, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), XRMA_ECONNRESET);
	assert_rc(xrma_conn_close(s), 0);
	assert_rc(xrma_conn_close(l), 0);
}

/* ------------------------------------------------------------------ byte stream */

static void test_conn_send_recv_bytes_in_order_both_ways(void **state)
{
	struct link k;
	char buf[32];

	(void)state;
	link_open(&k);
	assert_count(xrma_conn_send(k.client, "hello", 5, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), 5);
	assert_count(xrma_conn_send(k.client, " world", 6, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), 6);
	memset(buf, 0, sizeof(buf));
	recv_all(k.server, buf, 11);
	assert_string_equal(buf, "hello world");
	assert_count(xrma_conn_send(k.server, "pong", 4, 0, 0), 4);
	memset(buf, 0, sizeof(buf));
	recv_all(k.client, buf, 4);
	assert_string_equal(buf, "pong");
	link_close(&k);
}

static void test_conn_recv_nothing_returns_eagain_or_etimedout(void **state)
{
	struct link k;
	uint8_t buf[8];

	(void)state;
	link_open(&k);
	fixture_fill(buf, sizeof(buf), 0xcc);
	assert_rc(xrma_conn_recv(k.server, buf, sizeof(buf), 0, 0), XRMA_EAGAIN);
	assert_rc(xrma_conn_recv(k.server, buf, sizeof(buf), XRMA_CONN_BLOCK, FIXTURE_SHORT_MS),
		  XRMA_ETIMEDOUT);
	assert_int_equal(fixture_check(buf, sizeof(buf), 0xcc), FIXTURE_MATCH);
	link_close(&k);
}

static void test_conn_recv_partial_returns_queued_count(void **state)
{
	struct link k;
	char buf[16];

	(void)state;
	link_open(&k);
	assert_count(xrma_conn_send(k.client, "abcdef", 6, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), 6);
	/* Short reads take only what fits; the rest stays queued, in order. */
	assert_int_equal(fixture_fd_readable(xrma_conn_fd(k.server), FIXTURE_TIMEOUT_MS), 1);
	memset(buf, 0, sizeof(buf));
	recv_all(k.server, buf, 2);
	assert_string_equal(buf, "ab");
	memset(buf, 0, sizeof(buf));
	recv_all(k.server, buf, 4);
	assert_string_equal(buf, "cdef");
	link_close(&k);
}

static void test_conn_send_unconnected_returns_enotconn(void **state)
{
	struct xrma_conn *c = NULL, *l;
	uint32_t port;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &c), 0);
	assert_rc(xrma_conn_send(c, "x", 1, 0, 0), XRMA_ENOTCONN);
	assert_rc(xrma_conn_send(c, "x", 1, XRMA_CONN_BLOCK, FIXTURE_SHORT_MS), XRMA_ENOTCONN);
	assert_rc(xrma_conn_close(c), 0);
	l = listener_open(0, 1, &port);
	assert_rc(xrma_conn_send(l, "x", 1, 0, 0), XRMA_ENOTCONN);
	assert_rc(xrma_conn_close(l), 0);
}

static void test_conn_send_recv_bad_args_return_einval(void **state)
{
	struct link k;
	uint8_t buf[4];

	(void)state;
	link_open(&k);
	assert_rc(xrma_conn_send(k.client, NULL, 4, 0, 0), XRMA_EINVAL);
	assert_rc(xrma_conn_send(k.client, buf, 4, 1u << 7, 0), XRMA_EINVAL);
	assert_rc(xrma_conn_recv(k.server, NULL, 4, 0, 0), XRMA_EINVAL);
	assert_rc(xrma_conn_recv(k.server, buf, 4, 1u << 7, 0), XRMA_EINVAL);
	/* Nothing was sent by the failed calls. */
	assert_rc(xrma_conn_recv(k.server, buf, 4, XRMA_CONN_BLOCK, FIXTURE_SHORT_MS), XRMA_ETIMEDOUT);
	link_close(&k);
}

#define BIG_LEN ((size_t)4 << 20)

static void test_conn_send_nonblocking_partial_beyond_window_keeps_order(void **state)
{
	struct link k;
	uint8_t *src, *dst;
	size_t sent = 0, rcvd = 0;
	bool first = true;
	uint64_t end;
	ssize_t n;

	(void)state;
	src = malloc(BIG_LEN);
	dst = malloc(BIG_LEN);
	assert_non_null(src);
	assert_non_null(dst);
	fixture_pattern(src, BIG_LEN, 11, 0);
	fixture_fill(dst, BIG_LEN, 0);
	link_open(&k);
	end = fixture_now_ms() + FIXTURE_TIMEOUT_MS * 5;
	while (rcvd < BIG_LEN) {
		if (fixture_now_ms() > end)
			fail_msg("stalled: %zu sent, %zu received", sent, rcvd);
		if (sent < BIG_LEN) {
			n = xrma_conn_send(k.client, src + sent, BIG_LEN - sent, 0, 0);
			if (first) {
				/* The window is smaller than 4 MiB: a partial send, not all or nothing. */
				assert_true(n > 0);
				assert_true((size_t)n < BIG_LEN);
				first = false;
			}
			if (n > 0)
				sent += (size_t)n;
			else
				assert_rc(n, XRMA_EAGAIN);
		}
		n = xrma_conn_recv(k.server, dst + rcvd, BIG_LEN - rcvd, 0, 0);
		if (n > 0)
			rcvd += (size_t)n;
		else
			assert_rc(n, XRMA_EAGAIN);
	}
	assert_int_equal(sent, BIG_LEN);
	assert_int_equal(fixture_pattern_check(dst, BIG_LEN, 11, 0), FIXTURE_MATCH);
	link_close(&k);
	free(src);
	free(dst);
}

static void test_conn_send_window_full_eagain_then_blocking_etimedout(void **state)
{
	struct link k;
	uint8_t buf[4096];
	size_t filled;
	ssize_t n;

	(void)state;
	link_open(&k);
	filled = fill_window(k.client);
	assert_true(filled > 0);
	assert_int_equal(revents(k.client) & XRMA_POLLOUT, 0);
	assert_rc(xrma_conn_send(k.client, buf, 1, 0, 0), XRMA_EAGAIN);
	assert_rc(xrma_conn_send(k.client, buf, 1, XRMA_CONN_BLOCK, FIXTURE_SHORT_MS), XRMA_ETIMEDOUT);
	/* Reading reopens the window. */
	n = xrma_conn_recv(k.server, buf, sizeof(buf), XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS);
	assert_count(n, (long)sizeof(buf));
	assert_count(xrma_conn_send(k.client, buf, 1, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), 1);
	link_close(&k);
}

#define MIB ((size_t)1 << 20)

struct reader {
	struct xrma_conn *conn;
	uint8_t *buf;
	size_t len;
	ssize_t rc;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	r->rc = xrma_conn_recv(r->conn, r->buf, r->len, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS);
	return NULL;
}

static void test_conn_send_blocking_mib_through_reader_thread(void **state)
{
	struct reader r;
	struct link k;
	pthread_t thread;
	uint8_t *src;

	(void)state;
	src = malloc(MIB);
	assert_non_null(src);
	fixture_pattern(src, MIB, 12, 0);
	link_open(&k);
	r = (struct reader){ .conn = k.server, .buf = malloc(MIB), .len = MIB, .rc = 1 };
	assert_non_null(r.buf);
	assert_int_equal(pthread_create(&thread, NULL, reader_main, &r), 0);
	assert_count(xrma_conn_send(k.client, src, MIB, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), (long)MIB);
	assert_int_equal(fixture_join(thread, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	assert_count(r.rc, (long)MIB);
	assert_int_equal(fixture_pattern_check(r.buf, MIB, 12, 0), FIXTURE_MATCH);
	link_close(&k);
	free(r.buf);
	free(src);
}

/* ------------------------------------------------------------------ readiness */

static void test_conn_poll_bits_follow_data_fd_readable(void **state)
{
	struct link k;
	uint8_t buf[10];

	(void)state;
	link_open(&k);
	assert_true(revents(k.client) & XRMA_POLLOUT);
	assert_true(revents(k.server) & XRMA_POLLOUT);
	assert_int_equal(revents(k.server) & (XRMA_POLLIN | XRMA_POLLHUP | XRMA_POLLERR), 0);
	assert_count(xrma_conn_send(k.client, "0123456789", 10, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), 10);
	assert_int_equal(fixture_fd_readable(xrma_conn_fd(k.server), FIXTURE_TIMEOUT_MS), 1);
	assert_true(revents(k.server) & XRMA_POLLIN);
	recv_all(k.server, buf, 10);
	assert_memory_equal(buf, "0123456789", 10);
	assert_int_equal(revents(k.server) & XRMA_POLLIN, 0);
	link_close(&k);
}

static void test_conn_close_peer_drains_then_econnreset(void **state)
{
	struct link k;
	uint8_t src[100], dst[100];
	uint32_t ev;

	(void)state;
	link_open(&k);
	fixture_pattern(src, sizeof(src), 13, 0);
	assert_count(xrma_conn_send(k.client, src, sizeof(src), XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), 100);
	assert_rc(xrma_conn_close(k.client), 0);
	k.client = NULL;
	/* The bytes sent before the close come first ... */
	recv_all(k.server, dst, sizeof(dst));
	assert_memory_equal(dst, src, sizeof(src));
	/* ... then the end of the stream. */
	assert_rc(xrma_conn_recv(k.server, dst, 1, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), XRMA_ECONNRESET);
	assert_rc(xrma_conn_recv(k.server, dst, 1, 0, 0), XRMA_ECONNRESET);
	assert_int_equal(conn_state(k.server), XRMA_CONN_DISCONNECTED);
	ev = revents(k.server);
	assert_true(ev & XRMA_POLLHUP);
	assert_int_equal(fixture_fd_readable(xrma_conn_fd(k.server), 0), 1);
	assert_rc(xrma_conn_send(k.server, src, 1, 0, 0), XRMA_ECONNRESET);
	link_close(&k);
}

static void test_conn_close_peer_fd_readable_with_hup(void **state)
{
	struct link k;

	(void)state;
	link_open(&k);
	assert_int_equal(revents(k.client) & XRMA_POLLHUP, 0);
	assert_rc(xrma_conn_close(k.server), 0);
	k.server = NULL;
	assert_int_equal(fixture_fd_readable(xrma_conn_fd(k.client), FIXTURE_TIMEOUT_MS), 1);
	assert_true(revents(k.client) & XRMA_POLLHUP);
	link_close(&k);
}

/* ------------------------------------------------------------------ handles and arguments */

/*
 * A listener's window is its accepted endpoints': the client fills exactly
 * that, and one byte read makes room for one byte more (quarter-window credit
 * goes back at once when the sender is that short).
 */
static void test_conn_set_window_listener_limits_what_client_may_queue(void **state)
{
	struct connector c;
	struct link k = { 0 };
	uint8_t buf[1];
	uint32_t port = XRMA_PORT_ANY;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &k.listener), 0);
	assert_rc(xrma_conn_set_window(k.listener, 100, 0), 0);
	assert_rc(xrma_conn_bind(k.listener, &port, 0, 0), 0);
	assert_rc(xrma_conn_listen(k.listener, 4), 0);
	k.port = port;
	assert_rc(xrma_conn_open(fx.ctx[1], 0, &k.client), 0);
	connect_start(&c, k.client, fx.node[0], k.port);
	assert_rc(xrma_conn_accept(k.listener, FIXTURE_TIMEOUT_MS, &k.server), 0);
	assert_rc(connect_finish(&c), 0);
	assert_int_equal(fill_window(k.client), 100);
	assert_rc(xrma_conn_send(k.client, buf, 1, 0, 0), XRMA_EAGAIN);
	assert_count(xrma_conn_recv(k.server, buf, 1, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), 1);
	assert_count(xrma_conn_send(k.client, buf, 1, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS), 1);
	assert_rc(xrma_conn_send(k.client, buf, 1, 0, 0), XRMA_EAGAIN);
	link_close(&k);
}

static void test_conn_set_window_bad_args_or_state_change_nothing(void **state)
{
	struct link k;
	struct xrma_conn *c = NULL;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &c), 0);
	assert_rc(xrma_conn_set_window(c, 0, 0), XRMA_EINVAL);
	assert_rc(xrma_conn_set_window(c, XRMA_CONN_WINDOW_MAX + 1, 0), XRMA_EINVAL);
	assert_rc(xrma_conn_set_window(c, 4096, 1), XRMA_EINVAL);
	assert_rc(xrma_conn_set_window(NULL, 4096, 0), XRMA_EHANDLE);
	assert_rc(xrma_conn_set_window(c, XRMA_CONN_WINDOW_MAX, 0), 0);
	assert_rc(xrma_conn_close(c), 0);
	assert_rc(xrma_conn_set_window(c, 4096, 0), XRMA_EHANDLE);
	link_open(&k);
	assert_rc(xrma_conn_set_window(k.listener, 4096, 0), XRMA_EINVAL);
	assert_rc(xrma_conn_set_window(k.client, 4096, 0), XRMA_EISCONN);
	assert_rc(xrma_conn_set_window(k.server, 4096, 0), XRMA_EISCONN);
	/* Unchanged: the full default window still fits. */
	assert_true(fill_window(k.client) >= XRMA_CONN_WINDOW_MAX);
	link_close(&k);
}

static void test_conn_calls_bad_handle_return_ehandle(void **state)
{
	struct xrma_conn *bad[3], *c = NULL, *out;
	struct xrma_event ev;
	enum xrma_conn_state st;
	uint32_t port = 1, u32;
	uint8_t buf[4];
	size_t i;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &c), 0);
	assert_rc(xrma_conn_close(c), 0);
	bad[0] = FIXTURE_FORGED(struct xrma_conn);
	bad[1] = c;
	bad[2] = (struct xrma_conn *)fx.ctx[0];
	for (i = 0; i < 3; i++) {
		assert_rc(xrma_conn_bind(bad[i], &port, 0, 0), XRMA_EHANDLE);
		assert_rc(xrma_conn_listen(bad[i], 1), XRMA_EHANDLE);
		assert_rc(xrma_conn_connect(bad[i], fx.node[1], 1, 0), XRMA_EHANDLE);
		assert_rc(xrma_conn_accept(bad[i], 0, &out), XRMA_EHANDLE);
		assert_rc(xrma_conn_send(bad[i], buf, 1, 0, 0), XRMA_EHANDLE);
		assert_rc(xrma_conn_recv(bad[i], buf, 1, 0, 0), XRMA_EHANDLE);
		assert_rc(xrma_conn_poll(bad[i], &u32), XRMA_EHANDLE);
		assert_rc(xrma_conn_fd(bad[i]), XRMA_EHANDLE);
		assert_rc(xrma_conn_state(bad[i], &st), XRMA_EHANDLE);
		assert_rc(xrma_conn_local(bad[i], &u32, &u32), XRMA_EHANDLE);
		assert_rc(xrma_conn_peer(bad[i], &u32, &u32), XRMA_EHANDLE);
		assert_rc(xrma_conn_set_callback(bad[i], NULL, NULL), XRMA_EHANDLE);
		assert_rc(xrma_conn_wait_event(bad[i], 0, &ev), XRMA_EHANDLE);
		assert_rc(xrma_conn_close(bad[i]), XRMA_EHANDLE);
	}
	assert_null_handle_rc(xrma_conn_close(NULL));
}

static void test_conn_getters_null_out_return_einval(void **state)
{
	struct xrma_conn *c = NULL;
	uint32_t u32;

	(void)state;
	assert_rc(xrma_conn_open(fx.ctx[0], 0, &c), 0);
	assert_rc(xrma_conn_state(c, NULL), XRMA_EINVAL);
	assert_rc(xrma_conn_poll(c, NULL), XRMA_EINVAL);
	assert_rc(xrma_conn_local(c, NULL, &u32), XRMA_EINVAL);
	assert_rc(xrma_conn_peer(c, &u32, NULL), XRMA_EINVAL);
	assert_rc(xrma_conn_wait_event(c, 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_conn_close(c), 0);
}

static void test_conn_wait_event_none_returns_etimedout(void **state)
{
	struct link k;
	struct xrma_event ev;

	(void)state;
	link_open(&k);
	assert_rc(xrma_conn_wait_event(k.client, 0, &ev), XRMA_ETIMEDOUT);
	assert_rc(xrma_conn_wait_event(k.client, FIXTURE_SHORT_MS, &ev), XRMA_ETIMEDOUT);
	link_close(&k);
}

/* ------------------------------------------------------------------ threads */

#define DUPLEX_LEN ((size_t)256 << 10)

struct pump {
	struct xrma_conn *conn;
	uint8_t *buf;
	uint8_t seed;
	bool sender;
	long rc;
};

static void *pump_main(void *arg)
{
	struct pump *p = arg;
	size_t done = 0, chunk = 1;
	uint64_t end = fixture_now_ms() + FIXTURE_TIMEOUT_MS * 5;
	ssize_t n;

	/* Odd, growing chunk sizes so records never line up with the window. */
	while (done < DUPLEX_LEN && fixture_now_ms() < end) {
		chunk = chunk * 3 % 7919 + 1;
		if (chunk > DUPLEX_LEN - done)
			chunk = DUPLEX_LEN - done;
		if (p->sender)
			n = xrma_conn_send(p->conn, p->buf + done, chunk, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS);
		else
			n = xrma_conn_recv(p->conn, p->buf + done, chunk, XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS);
		if (n <= 0) {
			p->rc = n ? n : -1;
			return NULL;
		}
		done += (size_t)n;
	}
	p->rc = (long)done;
	return NULL;
}

static void test_conn_send_recv_full_duplex_four_threads(void **state)
{
	struct pump p[4];
	pthread_t threads[4];
	struct link k;
	size_t i;

	(void)state;
	link_open(&k);
	p[0] = (struct pump){ .conn = k.client, .seed = 21, .sender = true };
	p[1] = (struct pump){ .conn = k.server, .seed = 21, .sender = false };
	p[2] = (struct pump){ .conn = k.server, .seed = 22, .sender = true };
	p[3] = (struct pump){ .conn = k.client, .seed = 22, .sender = false };
	for (i = 0; i < 4; i++) {
		p[i].buf = malloc(DUPLEX_LEN);
		assert_non_null(p[i].buf);
		if (p[i].sender)
			fixture_pattern(p[i].buf, DUPLEX_LEN, p[i].seed, 0);
		else
			fixture_fill(p[i].buf, DUPLEX_LEN, 0);
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, pump_main, &p[i]), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 6, NULL), 0);
	for (i = 0; i < 4; i++)
		assert_count(p[i].rc, (long)DUPLEX_LEN);
	assert_int_equal(fixture_pattern_check(p[1].buf, DUPLEX_LEN, 21, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(p[3].buf, DUPLEX_LEN, 22, 0), FIXTURE_MATCH);
	for (i = 0; i < 4; i++)
		free(p[i].buf);
	link_close(&k);
}

#define CLIENTS 4

struct client {
	pthread_t thread;
	struct xrma_ctx *ctx;
	uint32_t node, port;
	struct xrma_conn *conn;
	uint32_t id;
	int rc;
};

static void *client_main(void *arg)
{
	struct client *c = arg;
	ssize_t n;

	if ((c->rc = xrma_conn_open(c->ctx, 0, &c->conn)))
		return NULL;
	if ((c->rc = xrma_conn_connect(c->conn, c->node, c->port, FIXTURE_TIMEOUT_MS)))
		return NULL;
	n = xrma_conn_send(c->conn, &c->id, sizeof(c->id), XRMA_CONN_BLOCK, FIXTURE_TIMEOUT_MS);
	c->rc = n == sizeof(c->id) ? 0 : (int)(n < 0 ? n : -1);
	return NULL;
}

static void test_conn_accept_concurrent_clients_each_stream_separate(void **state)
{
	struct client c[CLIENTS];
	struct xrma_conn *l, *s[CLIENTS];
	uint32_t port, got, seen = 0;
	size_t i;

	(void)state;
	l = listener_open(0, CLIENTS, &port);
	for (i = 0; i < CLIENTS; i++) {
		c[i] = (struct client){ .ctx = fx.ctx[1 + i % 2], .node = fx.node[0], .port = port,
					.id = (uint32_t)i };
		assert_int_equal(pthread_create(&c[i].thread, NULL, client_main, &c[i]), 0);
	}
	for (i = 0; i < CLIENTS; i++) {
		assert_rc(xrma_conn_accept(l, FIXTURE_TIMEOUT_MS, &s[i]), 0);
		recv_all(s[i], &got, sizeof(got));
		assert_true(got < CLIENTS);
		assert_int_equal(seen & (1u << got), 0);
		seen |= 1u << got;
	}
	assert_int_equal(seen, (1u << CLIENTS) - 1);
	for (i = 0; i < CLIENTS; i++) {
		assert_int_equal(fixture_join(c[i].thread, FIXTURE_TIMEOUT_MS * 2, NULL), 0);
		assert_rc(c[i].rc, 0);
	}
	for (i = 0; i < CLIENTS; i++) {
		assert_rc(xrma_conn_close(c[i].conn), 0);
		assert_rc(xrma_conn_close(s[i]), 0);
	}
	assert_rc(xrma_conn_close(l), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_conn_open_close_state_unbound),
		T(test_conn_open_bad_args_return_errors),
		T(test_conn_bind_fixed_port_bound_local),
		T(test_conn_bind_any_in_range),
		T(test_conn_bind_taken_port_returns_eaddrinuse),
		T(test_conn_bind_bad_args_return_einval),
		T(test_conn_bind_any_range_full_returns_enospc),
		T(test_conn_listen_bad_state_returns_einval),
		T(test_conn_connect_no_listener_returns_econnrefused),
		T(test_conn_connect_unknown_node_returns_enodev),
		T(test_conn_connect_accept_connected_peers),
		T(test_conn_connect_wrong_state_returns_error),
		T(test_conn_accept_bad_state_or_none_returns_error),
		T(test_conn_listener_fd_readable_on_pending_request),
		T(test_conn_connect_backlog_full_returns_econnrefused),
		T(test_conn_close_listener_refuses_pending),
		T(test_conn_close_wakes_connect_waiting_for_accept_ecanceled),
		T(test_conn_send_recv_bytes_in_order_both_ways),
		T(test_conn_recv_nothing_returns_eagain_or_etimedout),
		T(test_conn_recv_partial_returns_queued_count),
		T(test_conn_send_unconnected_returns_enotconn),
		T(test_conn_send_recv_bad_args_return_einval),
		T(test_conn_send_nonblocking_partial_beyond_window_keeps_order),
		T(test_conn_send_window_full_eagain_then_blocking_etimedout),
		T(test_conn_set_window_listener_limits_what_client_may_queue),
		T(test_conn_set_window_bad_args_or_state_change_nothing),
		T(test_conn_send_blocking_mib_through_reader_thread),
		T(test_conn_poll_bits_follow_data_fd_readable),
		T(test_conn_close_peer_drains_then_econnreset),
		T(test_conn_close_peer_fd_readable_with_hup),
		T(test_conn_calls_bad_handle_return_ehandle),
		T(test_conn_getters_null_out_return_einval),
		T(test_conn_wait_event_none_returns_etimedout),
		T(test_conn_send_recv_full_duplex_four_threads),
		T(test_conn_accept_concurrent_clients_each_stream_separate),
	};

	return cmocka_run_group_tests_name("conn", tests, conn_group_up, conn_group_down);
}
