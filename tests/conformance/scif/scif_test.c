/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/scif_test.c: the helpers of scif_test.h.
 */
#include "tests/conformance/scif/scif_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "tests/helpers/fixture.h"

void scif_test_assert_errno(long rc, int err, const char *expr, const char *file, int line)
{
	int got = errno;

	if (rc != -1 || got != err) {
		print_error("%s returned %ld errno %d (%s); expected -1 errno %d (%s)\n", expr, rc, got,
			    strerror(got), err, strerror(err));
		_fail(file, line);
	}
}

void scif_test_assert_ok(long rc, const char *expr, const char *file, int line)
{
	if (rc != 0) {
		print_error("%s returned %ld (errno %d: %s)\n", expr, rc, errno, strerror(errno));
		_fail(file, line);
	}
}

void scif_test_env(const char *tag)
{
	char fabric[XRMA_NAME_MAX];

	fixture_fabric_name(fabric, sizeof(fabric), tag);
	setenv("XRMA_FABRIC", fabric, 1);
	setenv("XRMA_NODE_ID", "0", 1);
}

uint16_t scif_test_self(void)
{
	uint16_t nodes[16], self = 0xffff;

	assert_true(scif_get_nodeIDs(nodes, 16, &self) >= 1);
	return self;
}

struct acceptor {
	scif_epd_t listener;
	scif_epd_t server;
	struct scif_portID peer;
	int rc;
	int err;
};

static void *accept_main(void *arg)
{
	struct acceptor *a = arg;

	a->rc = scif_accept(a->listener, &a->peer, &a->server, SCIF_ACCEPT_SYNC);
	a->err = errno;
	return NULL;
}

void scif_test_pair_open(struct scif_test_pair *p)
{
	struct acceptor a = { .rc = 1 };
	struct scif_portID dst;
	pthread_t thread;
	int port;

	memset(p, 0, sizeof(*p));
	p->listener = scif_open();
	assert_true(p->listener >= 0);
	port = scif_bind(p->listener, 0);
	assert_true(port >= SCIF_PORT_RSVD);
	p->port = (uint16_t)port;
	assert_scif_ok(scif_listen(p->listener, 4));
	a.listener = p->listener;
	assert_int_equal(pthread_create(&thread, NULL, accept_main, &a), 0);
	p->client = scif_open();
	assert_true(p->client >= 0);
	dst.node = scif_test_self();
	dst.port = p->port;
	port = scif_connect(p->client, &dst);
	assert_in_range(port, SCIF_PORT_RSVD, UINT16_MAX);
	p->client_port = (uint16_t)port;
	assert_int_equal(fixture_join(thread, SCIF_TEST_TIMEOUT_MS, NULL), 0);
	if (a.rc)
		print_error("scif_accept: errno %d\n", a.err);
	assert_int_equal(a.rc, 0);
	p->server = a.server;
	p->server_peer = a.peer;
	/* scif_connect returns the port its peer's scif_accept reports. */
	assert_int_equal(p->server_peer.port, p->client_port);
}

void scif_test_pair_close(struct scif_test_pair *p)
{
	if (p->client >= 0)
		assert_scif_ok(scif_close(p->client));
	if (p->server >= 0)
		assert_scif_ok(scif_close(p->server));
	assert_scif_ok(scif_close(p->listener));
}

/* A header page in front of the pages records their number. */
void *scif_test_pages(size_t pages)
{
	char *base = mmap(NULL, (pages + 1) * SCIF_TEST_PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(base != MAP_FAILED);
	*(size_t *)base = pages;
	return base + SCIF_TEST_PAGE;
}

void scif_test_free(void *pages)
{
	char *base;

	if (!pages)
		return;
	base = (char *)pages - SCIF_TEST_PAGE;
	munmap(base, (*(size_t *)base + 1) * SCIF_TEST_PAGE);
}

int scif_test_wait_u64(const volatile uint64_t *word, uint64_t want, int timeout_ms)
{
	uint64_t end = fixture_now_ms() + (uint64_t)timeout_ms;

	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != want) {
		if (fixture_now_ms() > end)
			return ETIMEDOUT;
		sched_yield();
	}
	return 0;
}

static void *connect_main(void *arg)
{
	struct scif_test_connector *c = arg;

	c->rc = scif_connect(c->epd, &c->dst);
	c->err = errno;
	return NULL;
}

void scif_test_connect_start(struct scif_test_connector *c, uint16_t node, uint16_t port)
{
	pthread_t *thread = malloc(sizeof(*thread));

	assert_non_null(thread);
	c->epd = scif_open();
	assert_true(c->epd >= 0);
	c->dst.node = node;
	c->dst.port = port;
	c->rc = 1;
	c->thread = thread;
	assert_int_equal(pthread_create(thread, NULL, connect_main, c), 0);
}

int scif_test_connect_finish(struct scif_test_connector *c)
{
	pthread_t *thread = c->thread;

	assert_int_equal(fixture_join(*thread, SCIF_TEST_TIMEOUT_MS, NULL), 0);
	free(thread);
	errno = c->err;
	if (c->rc < 0)
		return c->rc;
	/* A connect's success is the local port; callers compare it with the accept's peer. */
	c->port = (uint16_t)c->rc;
	return 0;
}

void scif_test_wait_hup(scif_epd_t epd)
{
	struct scif_pollepd pe = { .epd = epd, .events = 0 };

	assert_int_equal(scif_poll(&pe, 1, SCIF_TEST_TIMEOUT_MS), 1);
	assert_true(pe.revents & SCIF_POLLHUP);
}
