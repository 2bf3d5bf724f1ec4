/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/test_scale.c: one node at scale. Node 1 (this process) exports 10,000
 * segments; node 2 (a child) looks every one up by id, imports it, reads its tag through
 * a mapping and lets it go; then node 1 withdraws and closes them all. Node 1 also
 * accepts 1,000 connections from node 2 at once, each echoing its own number, and
 * closes them. The counts are XRMA_TEST_SCALE_SEGMENTS / _CONNECTIONS (defaults 10000,
 * 1000; a fifth of that in sanitizer builds, where the full size takes over half a
 * minute; `make soak` runs it at full size in any build). Limits met on the way are the host fabric's (docs/host-fabric.md) and the
 * descriptor limit (a descriptor per exported or imported segment and per connection).
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>
#include <xrma/xrma.h>
#include "tests/faults/faults.h"
#include "tests/helpers/fixture.h"

#define OWNER_NODE 1
#define PEER_NODE 2
#define BASE_ID 0x200000u
#define SEG_LEN 4096u
#define WAIT_MS 30000

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SCALE_DIVISOR 5
#else
#define SCALE_DIVISOR 1
#endif

static size_t count_of(const char *name, size_t fallback)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 10) : fallback / SCALE_DIVISOR;
}

static size_t nsegs(void)
{
	return count_of("XRMA_TEST_SCALE_SEGMENTS", 10000);
}

static size_t nconns(void)
{
	return count_of("XRMA_TEST_SCALE_CONNECTIONS", 1000);
}

/* Raise the descriptor limit to what the counts need; false if the hard limit is lower. */
static bool enough_descriptors(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return false;
	if (rl.rlim_cur >= need)
		return true;
	if (rl.rlim_max < need)
		return false;
	rl.rlim_cur = need;
	return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

static int ctx_open(uint32_t node, struct xrma_ctx **ctx)
{
	struct xrma_ctx_attr attr = { .node_id = node };

	return xrma_ctx_open(&attr, ctx);
}

/* ------------------------------------------------------------------ node 2 */

/* Import every segment by id, read its tag, let go. Sends how many matched. */
static int importer_main(int sock, const char *arg)
{
	size_t n = nsegs(), good = 0;
	struct xrma_ctx *ctx;

	(void)arg;
	PROC_CHECK(enough_descriptors(n + 256));
	PROC_CHECK_RC(ctx_open(PEER_NODE, &ctx), 0);
	for (size_t i = 0; i < n; i++) {
		struct xrma_rseg *r;
		void *p;

		PROC_CHECK_RC(xrma_rseg_open(ctx, OWNER_NODE, BASE_ID + i, XRMA_ACCESS_REMOTE_READ, 0,
					     WAIT_MS, &r), 0);
		PROC_CHECK_RC(xrma_rseg_map(r, 0, SEG_LEN, XRMA_MAP_READ, &p), 0);
		good += *(volatile uint64_t *)p == BASE_ID + i;
		PROC_CHECK_RC(xrma_rseg_unmap(r, p), 0);
		PROC_CHECK_RC(xrma_rseg_close(r), 0);
	}
	PROC_CHECK(proc_send(sock, good) == 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* Open every connection first, then send each its number and read the echo. */
static int client_main(int sock, const char *arg)
{
	size_t n = nconns(), good = 0;
	uint32_t port = (uint32_t)atoi(arg);
	struct xrma_conn **conns = calloc(n, sizeof(*conns));
	struct xrma_ctx *ctx;

	PROC_CHECK(conns != NULL);
	PROC_CHECK(enough_descriptors(n + 256));
	PROC_CHECK_RC(ctx_open(PEER_NODE, &ctx), 0);
	for (size_t i = 0; i < n; i++) {
		PROC_CHECK_RC(xrma_conn_open(ctx, 0, &conns[i]), 0);
		PROC_CHECK_RC(xrma_conn_connect(conns[i], OWNER_NODE, port, WAIT_MS), 0);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t v = i, back = ~0ull;

		PROC_CHECK(xrma_conn_send(conns[i], &v, sizeof(v), XRMA_CONN_BLOCK, WAIT_MS) == sizeof(v));
		PROC_CHECK(xrma_conn_recv(conns[i], &back, sizeof(back), XRMA_CONN_BLOCK, WAIT_MS) ==
			   sizeof(back));
		good += back == i;
	}
	for (size_t i = 0; i < n; i++)
		PROC_CHECK_RC(xrma_conn_close(conns[i]), 0);
	free(conns);
	PROC_CHECK(proc_send(sock, good) == 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "importer", importer_main },
	{ "client", client_main },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ node 1 */

static char fabric[XRMA_NAME_MAX];

static void test_scale_segments_export_lookup_teardown(void **state)
{
	size_t n = nsegs();
	struct xrma_seg **segs = calloc(n, sizeof(*segs));
	struct xrma_ctx *ctx;
	struct proc peer;
	uint64_t good = 0, t0;
	size_t objects;

	(void)state;
	assert_non_null(segs);
	if (!enough_descriptors(n + 256))
		skip();
	assert_rc(ctx_open(OWNER_NODE, &ctx), 0);
	t0 = fixture_now_ms();
	for (size_t i = 0; i < n; i++) {
		struct xrma_seg_attr attr = { .len = SEG_LEN, .id = BASE_ID + i, .access = XRMA_ACCESS_ALL };
		void *p;

		assert_rc(xrma_seg_open(ctx, &attr, &segs[i]), 0);
		assert_rc(xrma_seg_addr(segs[i], &p), 0);
		*(uint64_t *)p = BASE_ID + i;
		assert_rc(xrma_seg_export(segs[i], 0), 0);
	}
	print_message("exported %zu segments in %llu ms\n", n, (unsigned long long)(fixture_now_ms() - t0));
	t0 = fixture_now_ms();
	assert_int_equal(proc_spawn(&peer, fabric, PEER_NODE, "importer", NULL), 0);
	assert_int_equal(proc_recv(peer.sock, &good, WAIT_MS * 4), 0);
	assert_int_equal(good, n);
	assert_int_equal(proc_join(&peer, WAIT_MS), 0);
	print_message("node 2 imported, mapped and checked them in %llu ms\n",
		      (unsigned long long)(fixture_now_ms() - t0));
	t0 = fixture_now_ms();
	for (size_t i = 0; i < n; i++) {
		size_t importers = 1;

		/* The importer left: nobody is counted on any of them. */
		assert_rc(xrma_seg_importers(segs[i], &importers), 0);
		assert_int_equal(importers, 0);
		assert_rc(xrma_seg_unexport(segs[i], 0), 0);
		assert_rc(xrma_seg_close(segs[i]), 0);
	}
	print_message("withdrew and closed them in %llu ms\n", (unsigned long long)(fixture_now_ms() - t0));
	assert_rc(xrma_ctx_object_count(ctx, &objects), 0);
	assert_int_equal(objects, 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	free(segs);
}

static void test_scale_connections_accept_echo_close(void **state)
{
	size_t n = nconns();
	struct xrma_conn *listener, **conns = calloc(n, sizeof(*conns));
	struct xrma_ctx *ctx;
	struct proc peer;
	uint32_t port = 0;
	uint64_t good = 0, t0;
	char arg[16];
	size_t objects;

	(void)state;
	assert_non_null(conns);
	if (!enough_descriptors(n + 256))
		skip();
	assert_rc(ctx_open(OWNER_NODE, &ctx), 0);
	assert_rc(xrma_conn_open(ctx, 0, &listener), 0);
	assert_rc(xrma_conn_bind(listener, &port, 0, 0), 0);
	assert_rc(xrma_conn_listen(listener, (int)n), 0);
	snprintf(arg, sizeof(arg), "%u", port);
	t0 = fixture_now_ms();
	assert_int_equal(proc_spawn(&peer, fabric, PEER_NODE, "client", arg), 0);
	for (size_t i = 0; i < n; i++)
		assert_rc(xrma_conn_accept(listener, WAIT_MS, &conns[i]), 0);
	/* Echo in the order the client sends: its i-th connection is one of ours. */
	for (size_t done = 0; done < n;) {
		for (size_t i = 0; i < n; i++) {
			uint64_t v;

			if (!conns[i])
				continue;
			if (xrma_conn_recv(conns[i], &v, sizeof(v), 0, 0) != sizeof(v))
				continue;
			assert_int_equal(xrma_conn_send(conns[i], &v, sizeof(v), XRMA_CONN_BLOCK, WAIT_MS),
					 sizeof(v));
			done++;
		}
	}
	assert_int_equal(proc_recv(peer.sock, &good, WAIT_MS), 0);
	assert_int_equal(good, n);
	assert_int_equal(proc_join(&peer, WAIT_MS), 0);
	print_message("%zu connections accepted and echoed in %llu ms\n", n,
		      (unsigned long long)(fixture_now_ms() - t0));
	for (size_t i = 0; i < n; i++)
		assert_rc(xrma_conn_close(conns[i]), 0);
	assert_rc(xrma_conn_close(listener), 0);
	assert_rc(xrma_ctx_object_count(ctx, &objects), 0);
	assert_int_equal(objects, 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	free(conns);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_scale_segments_export_lookup_teardown, proc_teardown),
		cmocka_unit_test_teardown(test_scale_connections_accept_echo_close, proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	if (!proc_provider_multiproc() || !(proc_provider_caps() & XRMA_CAP_MAP))
		return 77;
	fixture_fabric_name(fabric, sizeof(fabric), "scale");
	setenv("XRMA_FABRIC", fabric, 1);
	rc = cmocka_run_group_tests_name("scale", tests, NULL, NULL);
	if (faults_sweep(fabric) || faults_leftovers(fabric))
		rc = 1;
	return rc;
}
