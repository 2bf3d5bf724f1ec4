/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/test_ntb.c: the ntb provider across real processes. The
 * test program is node 1; it re-executes itself as nodes 2..4 (proc.h), all on
 * a fabric unique to this run. Covered: export/import and mapped store/load
 * visibility, RMA both ways into provider memory, into registered memory that
 * stays in place (no one file holds it) by cross-memory attach and by the
 * forced staging fallback, atomics, doorbells
 * and scratchpads, every configurable limit, a peer SIGKILLed in the middle of
 * transfers (event, survivor goes on, directory cleaned), two fabrics side by
 * side, a three-importer fan-in, and a process of another user refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

/* Process start-up under the sanitizers is slow; every cross-process wait has this bound. */
#define MP_TIMEOUT_MS 20000
#define SEG_ID 77
#define SEG_LEN (64 * 1024)

enum { MSG_READY = 1, MSG_GO, MSG_DONE, MSG_FAIL };

static char fabric[XRMA_NAME_MAX];

static int ctx_open_node(const char *fab, uint32_t node, struct xrma_ctx **ctx)
{
	struct xrma_ctx_attr attr = { .provider = "ntb", .fabric = fab, .node_id = node };

	return xrma_ctx_open(&attr, ctx);
}

/* A child's context: node and fabric from its environment (XRMA_NODE_ID, XRMA_FABRIC). */
static int child_ctx(struct xrma_ctx **ctx)
{
	return ctx_open_node(NULL, XRMA_NODE_ANY, ctx);
}

static int seg_make(struct xrma_ctx *ctx, uint64_t id, size_t len, void *addr, uint8_t seed,
		    struct xrma_seg **seg)
{
	struct xrma_seg_attr attr = {
		.len = len,
		.addr = addr,
		.id = id,
		.access = XRMA_ACCESS_ALL,
	};
	void *p;
	int ret = xrma_seg_open(ctx, &attr, seg);

	if (ret)
		return ret;
	if (seed) {
		xrma_seg_addr(*seg, &p);
		fixture_pattern(p, len, seed, 0);
	}
	return xrma_seg_export(*seg, 0);
}

/* ------------------------------------------------------------------ children */

/* Import node 1's segment, check its pattern by map and by RMA, then write back. */
static int child_importer(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;
	struct xrma_seg *local;
	unsigned char *map;
	uint8_t seed = (uint8_t)atoi(arg ? arg : "5");

	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK(proc_expect(sock, MSG_READY, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
				     0, MP_TIMEOUT_MS, &r), 0);
	/* Loads through a mapping see the owner's stores. */
	PROC_CHECK_RC(xrma_rseg_map(r, 0, SEG_LEN, XRMA_MAP_READ | XRMA_MAP_WRITE, (void **)&map), 0);
	PROC_CHECK(fixture_pattern_check(map, SEG_LEN, 3, 0) == FIXTURE_MATCH);
	/* RMA read into a private segment, then RMA write of a new pattern over the first half. */
	{
		struct xrma_seg_attr la = { .len = SEG_LEN, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
					    .flags = XRMA_SEG_PRIVATE };
		void *lp;

		PROC_CHECK_RC(xrma_seg_open(ctx, &la, &local), 0);
		xrma_seg_addr(local, &lp);
		PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, SEG_LEN), 0);
		PROC_CHECK(fixture_pattern_check(lp, SEG_LEN, 3, 0) == FIXTURE_MATCH);
		fixture_pattern(lp, SEG_LEN / 2, seed, 0);
		PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, r, 0, SEG_LEN / 2), 0);
	}
	/* A store through the mapping into the second half. */
	fixture_pattern(map + SEG_LEN / 2, SEG_LEN / 2, (uint8_t)(seed + 1), SEG_LEN / 2);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rseg_unmap(r, map), 0);
	PROC_CHECK_RC(xrma_rseg_close(r), 0);
	PROC_CHECK_RC(xrma_seg_close(local), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* Import node 1's registered segment; RMA a pattern in and read it back; atomics. */
static int child_registered(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;
	struct xrma_seg *local;
	struct xrma_seg_attr la = { .len = SEG_LEN, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
				    .flags = XRMA_SEG_PRIVATE };
	unsigned char *lp;
	void *map;
	uint64_t old = 0;

	(void)arg;
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK(proc_expect(sock, MSG_READY, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
				     0, MP_TIMEOUT_MS, &r), 0);
	/* Pages no one file holds (part shared, part private) cannot be mapped. */
	PROC_CHECK_RC(xrma_rseg_map(r, 0, 4096, XRMA_MAP_READ, &map), XRMA_ENOTSUP);
	PROC_CHECK_RC(xrma_seg_open(ctx, &la, &local), 0);
	xrma_seg_addr(local, (void **)&lp);
	PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_READ, local, 0, r, 0, SEG_LEN), 0);
	PROC_CHECK(fixture_pattern_check(lp, SEG_LEN, 9, 0) == FIXTURE_MATCH);
	/* Unaligned offset and odd length: bytes, not words. */
	fixture_pattern(lp, SEG_LEN, 11, 0);
	PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 1, r, 3, SEG_LEN - 7), 0);
	PROC_CHECK_RC(xrma_rseg_atomic(r, 0, XRMA_ATOMIC_SWAP, 0x1122334455667788ull, 0, &old), 0);
	PROC_CHECK_RC(xrma_rseg_atomic(r, 0, XRMA_ATOMIC_FETCH_ADD, 1, 0, &old), 0);
	PROC_CHECK(old == 0x1122334455667788ull);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rseg_close(r), 0);
	PROC_CHECK_RC(xrma_seg_close(local), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* Ring node 1's doorbell, then wait for its answer; scratchpads both ways. */
static int child_doorbell(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	uint64_t fired = 0;
	uint32_t v = 0;

	(void)arg;
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK_RC(xrma_scratchpad_write(ctx, 1, 2, 0xfeedbeef), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_doorbell_ring(ctx, 1, 1u << 3), 0);
	PROC_CHECK_RC(xrma_doorbell_wait(ctx, 0x7fff, MP_TIMEOUT_MS, &fired), 0);
	PROC_CHECK(fired == (1u << 14));
	PROC_CHECK_RC(xrma_scratchpad_read(ctx, 2, 0, &v), 0);
	PROC_CHECK(v == 42);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* Import node 1's segment and write to it until killed. */
static int child_writer_forever(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;
	struct xrma_seg *local;
	struct xrma_seg *own;
	struct xrma_seg_attr la = { .len = SEG_LEN, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
				    .flags = XRMA_SEG_PRIVATE };

	(void)arg;
	PROC_CHECK_RC(child_ctx(&ctx), 0);
	/* Something of ours in the directory, to see it reclaimed after our death. */
	PROC_CHECK_RC(seg_make(ctx, 555, 4096, NULL, 0, &own), 0);
	PROC_CHECK(proc_expect(sock, MSG_READY, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_WRITE, 0, MP_TIMEOUT_MS, &r), 0);
	PROC_CHECK_RC(xrma_seg_open(ctx, &la, &local), 0);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	for (;;)
		PROC_CHECK_RC(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, r, 0, SEG_LEN), 0);
}

/* Export a segment on our fabric and report its id; wait to be told to go. */
static int child_exporter(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;

	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK_RC(seg_make(ctx, (uint64_t)atoi(arg), 4096, NULL, 1, &seg), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/*
 * Become another user, then import node 1's segment: refused, or, with arg
 * "allowed" (node 1 lets us in), read it through the owner's copy path.
 */
static int child_other_user(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rseg *r = NULL;
	int ret;

	PROC_CHECK(setgid(65534) == 0 && setuid(65534) == 0);
	/* Join the fabric of user 0 (by name) but as nobody. */
	setenv("XRMA_HOST_FABRIC_UID", "0", 1);
	if (arg && !strcmp(arg, "allowed")) {
		unsigned char *p;

		setenv("XRMA_HOST_ALLOW_UIDS", "0", 1);
		PROC_CHECK_RC(child_ctx(&ctx), 0);
		PROC_CHECK(proc_send(sock, MSG_READY) == 0);
		PROC_CHECK_RC(xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), 0);
		/* A read-only import maps read-only: the descriptor we got allows no more. */
		PROC_CHECK_RC(xrma_rseg_map(r, 0, 4096, XRMA_MAP_READ, (void **)&p), 0);
		PROC_CHECK(fixture_pattern_check(p, 4096, 3, 0) == FIXTURE_MATCH);
		PROC_CHECK_RC(xrma_rseg_unmap(r, p), 0);
		PROC_CHECK_RC(xrma_rseg_close(r), 0);
		PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
		return 0;
	}
	ret = child_ctx(&ctx);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	if (ret == 0) {
		ret = xrma_rseg_open(ctx, 1, SEG_ID, XRMA_ACCESS_REMOTE_READ, 0, 5000, &r);
		PROC_CHECK(ret != 0);
		xrma_ctx_close(ctx);
	}
	/* Refused one way or another: its node, its directory or the owner said no. */
	PROC_CHECK(ret == -XRMA_EACCES || ret == -XRMA_ENODEV || ret == -XRMA_ENOENT ||
		   ret == -XRMA_ECONNRESET || ret == -XRMA_ELOST);
	return 0;
}

/* Connect to node 1's interrupt (number from the link) and trigger it: plain, data, plain. */
static int child_trigger(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct xrma_rintr *ri;
	uint64_t number = 0;
	int phase_two = arg && !strcmp(arg, "callback");

	PROC_CHECK_RC(child_ctx(&ctx), 0);
	PROC_CHECK(proc_recv(sock, &number, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_rintr_open(ctx, 1, number, MP_TIMEOUT_MS, &ri), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	for (int i = 0; i < 100; i++)
		PROC_CHECK_RC(xrma_rintr_trigger(ri, NULL, 0), 0);
	PROC_CHECK_RC(xrma_rintr_trigger(ri, "hello", 5), 0);
	if (phase_two) {
		/* Node 1 sets a callback; these must reach it. */
		PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
		for (int i = 0; i < 10; i++)
			PROC_CHECK_RC(xrma_rintr_trigger(ri, NULL, 0), 0);
	}
	PROC_CHECK(proc_expect(sock, MSG_DONE, MP_TIMEOUT_MS) == 0);
	/* Node 1 closed the interrupt: triggers now fail. */
	PROC_CHECK_RC(xrma_rintr_trigger(ri, NULL, 0), XRMA_ENOENT);
	PROC_CHECK_RC(xrma_rintr_close(ri), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "trigger", child_trigger },
	{ "importer", child_importer },
	{ "registered", child_registered },
	{ "doorbell", child_doorbell },
	{ "writer", child_writer_forever },
	{ "exporter", child_exporter },
	{ "other_user", child_other_user },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ tests */

static int group_up(void **state)
{
	(void)state;
	fixture_fabric_name(fabric, sizeof(fabric), "ntb");
	return 0;
}

static void test_export_import_map_rma(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	struct proc child;
	unsigned char *p;

	(void)state;
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	assert_rc(seg_make(ctx, SEG_ID, SEG_LEN, NULL, 3, &seg), 0);
	xrma_seg_addr(seg, (void **)&p);
	assert_int_equal(proc_spawn(&child, fabric, 2, "importer", "5"), 0);
	assert_int_equal(proc_send(child.sock, MSG_READY), 0);
	assert_int_equal(proc_expect(child.sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	/* Its RMA write and its mapped stores are our loads. */
	assert_true(fixture_pattern_check(p, SEG_LEN / 2, 5, 0) == FIXTURE_MATCH);
	assert_true(fixture_pattern_check(p + SEG_LEN / 2, SEG_LEN / 2, 6, SEG_LEN / 2) == FIXTURE_MATCH);
	assert_int_equal(proc_send(child.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_rc(fixture_wait_importers(seg, 0, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void registered_case(const char *cma)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	struct proc child;
	unsigned char *buf = mmap(NULL, SEG_LEN, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t word;

	assert_true(buf != MAP_FAILED);
	/* A first page of other memory keeps the registration in place (no one file holds
	 * it all), so transfers take cross-memory attach or the staging path. */
	assert_true(mmap(buf, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    buf);
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	assert_rc(seg_make(ctx, SEG_ID, SEG_LEN, buf, 9, &seg), 0);
	if (cma)
		setenv("XRMA_HOST_CMA", cma, 1);
	assert_int_equal(proc_spawn(&child, fabric, 2, "registered", NULL), 0);
	unsetenv("XRMA_HOST_CMA");
	assert_int_equal(proc_send(child.sock, MSG_READY), 0);
	assert_int_equal(proc_expect(child.sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	/* On the staging path our own service thread stored the bytes (fixture_pattern_check). */
	/* Remote byte j in [3, SEG_LEN-4) holds local byte j-2 of pattern 11 (bytes 0..7 then
	 * took the atomics); the last four bytes are untouched. */
	assert_true(fixture_pattern_check(buf + 8, SEG_LEN - 4 - 8, 11, 6) == FIXTURE_MATCH);
	assert_true(fixture_pattern_check(buf + SEG_LEN - 4, 4, 9, SEG_LEN - 4) == FIXTURE_MATCH);
	fixture_peer_copy(&word, buf, sizeof(word));
	assert_true(word == 0x1122334455667789ull);
	assert_int_equal(proc_send(child.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_rc(fixture_wait_importers(seg, 0, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	munmap(buf, SEG_LEN);
}

static void test_registered_cross_memory_attach(void **state)
{
	(void)state;
	registered_case(NULL);
}

static void test_registered_staged_fallback(void **state)
{
	(void)state;
	registered_case("off");
}

static void test_doorbells_and_scratchpads(void **state)
{
	struct xrma_ctx *ctx;
	struct proc child;
	struct xrma_ctx_info info;
	uint64_t fired = 0;
	uint32_t v = 0;

	(void)state;
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_int_equal(info.caps.doorbell_count, 15);
	assert_int_equal(info.caps.spad_count, 16);
	assert_int_equal(proc_spawn(&child, fabric, 2, "doorbell", NULL), 0);
	assert_int_equal(proc_expect(child.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	/* The child wrote our scratchpad 2 remotely; we write its scratchpad 0. */
	assert_rc(xrma_scratchpad_read(ctx, 1, 2, &v), 0);
	assert_int_equal(v, 0xfeedbeef);
	assert_rc(xrma_scratchpad_write(ctx, 2, 0, 42), 0);
	/* Nothing rung yet: a poll times out. */
	assert_rc(xrma_doorbell_wait(ctx, 1u << 3, 0, &fired), XRMA_ETIMEDOUT);
	assert_int_equal(proc_send(child.sock, MSG_GO), 0);
	assert_rc(xrma_doorbell_wait(ctx, 1u << 3, MP_TIMEOUT_MS, &fired), 0);
	assert_int_equal(fired, 1u << 3);
	assert_rc(xrma_doorbell_ring(ctx, 2, 1u << 14), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	/* Limits: bit 15 and scratchpad 16 do not exist on the default model. */
	assert_rc(xrma_doorbell_ring(ctx, 1, 1u << 15), XRMA_EINVAL);
	assert_non_null(strstr(xrma_error_detail(), "15 doorbell bits"));
	assert_rc(xrma_doorbell_ring(ctx, 1, 0), XRMA_EINVAL);
	assert_rc(xrma_scratchpad_read(ctx, 1, 16, &v), XRMA_ERANGE);
	assert_non_null(strstr(xrma_error_detail(), "16 scratchpads"));
	assert_rc(xrma_scratchpad_write(ctx, 1, 16, 1), XRMA_ERANGE);
	assert_rc(xrma_doorbell_ring(ctx, 9, 1), XRMA_ENODEV);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_window_limits(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *a, *b, *c;
	struct xrma_seg_attr attr = { .len = 2u << 20, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL };
	struct xrma_ctx_info info;
	uint64_t bus_a = 0, bus_b = 0;

	(void)state;
	setenv("XRMA_NTB_MW_COUNT", "2", 1);
	setenv("XRMA_NTB_MW_SIZE_MAX", "1M", 1);
	setenv("XRMA_NTB_XLAT_ALIGN", "64K", 1);
	setenv("XRMA_NTB_DB_COUNT", "4", 1);
	setenv("XRMA_NTB_SPAD_COUNT", "2", 1);
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	unsetenv("XRMA_NTB_MW_COUNT");
	unsetenv("XRMA_NTB_MW_SIZE_MAX");
	unsetenv("XRMA_NTB_XLAT_ALIGN");
	unsetenv("XRMA_NTB_DB_COUNT");
	unsetenv("XRMA_NTB_SPAD_COUNT");
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_int_equal(info.caps.mw_count, 2);
	assert_int_equal(info.caps.mw_size, 1u << 20);
	assert_int_equal(info.caps.xlat_align, 64u << 10);
	assert_int_equal(info.caps.doorbell_count, 4);
	assert_int_equal(info.caps.spad_count, 2);
	/* Larger than a window: refused at open, by the core, against caps. */
	assert_rc(xrma_seg_open(ctx, &attr, &a), XRMA_ERANGE);
	/* Two windows of 1 MiB: 768 KiB + 768 KiB fit (one each), a third does not. */
	attr.len = 768u << 10;
	assert_rc(xrma_seg_open(ctx, &attr, &a), 0);
	assert_rc(xrma_seg_open(ctx, &attr, &b), 0);
	assert_rc(xrma_seg_open(ctx, &attr, &c), 0);
	assert_rc(xrma_seg_bus_addr(a, &bus_a), XRMA_ENOTAVAIL);
	assert_rc(xrma_seg_export(a, 0), 0);
	assert_rc(xrma_seg_export(b, 0), 0);
	assert_rc(xrma_seg_export(c, 0), XRMA_ENOSPC);
	assert_non_null(strstr(xrma_error_detail(), "mw_count=2"));
	/* Window addresses: window 0 at the model's base, window 1 one window up. */
	assert_rc(xrma_seg_bus_addr(a, &bus_a), 0);
	assert_rc(xrma_seg_bus_addr(b, &bus_b), 0);
	assert_true(bus_b - bus_a == (1u << 20));
	assert_true(bus_a % (64u << 10) == 0);
	/* Space comes back with the segment. */
	assert_rc(xrma_seg_close(b), 0);
	assert_rc(xrma_seg_export(c, 0), 0);
	assert_rc(xrma_doorbell_ring(ctx, 1, 1u << 4), XRMA_EINVAL);
	assert_rc(xrma_scratchpad_write(ctx, 1, 2, 0), XRMA_ERANGE);
	/* Registered memory must sit on a translation boundary (64 KiB here). */
	{
		size_t span = 256u << 10;
		unsigned char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
					  -1, 0);
		unsigned char *aligned = raw + ((64u << 10) - (uintptr_t)raw % (64u << 10)) % (64u << 10);
		struct xrma_seg_attr reg = { .len = 4096, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL };
		struct xrma_seg *d;

		assert_true(raw != MAP_FAILED);
		reg.addr = aligned + 4096;
		assert_rc(xrma_seg_open(ctx, &reg, &d), XRMA_EALIGN_OFFSET);
		assert_non_null(strstr(xrma_error_detail(), "xlat_align=65536"));
		reg.addr = aligned;
		assert_rc(xrma_seg_open(ctx, &reg, &d), 0);
		assert_rc(xrma_seg_close(d), 0);
		munmap(raw, span);
	}
	assert_rc(xrma_seg_close(a), 0);
	assert_rc(xrma_seg_close(c), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	/* A limit that is not a number, or an alignment that is not a power of two. */
	setenv("XRMA_NTB_XLAT_ALIGN", "5000", 1);
	assert_rc(ctx_open_node(fabric, 1, &ctx), XRMA_ECONFIG);
	setenv("XRMA_NTB_XLAT_ALIGN", "lots", 1);
	assert_rc(ctx_open_node(fabric, 1, &ctx), XRMA_ECONFIG);
	unsetenv("XRMA_NTB_XLAT_ALIGN");
}

static void test_max_peers(void **state)
{
	struct xrma_ctx *a, *b, *c;

	(void)state;
	setenv("XRMA_NTB_MAX_PEERS", "1", 1);
	assert_rc(ctx_open_node(fabric, 1, &a), 0);
	assert_rc(ctx_open_node(fabric, 2, &b), 0);
	assert_rc(ctx_open_node(fabric, 3, &c), XRMA_ENOSPC);
	assert_non_null(strstr(xrma_error_detail(), "max_peers=1"));
	unsetenv("XRMA_NTB_MAX_PEERS");
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
}

static int events_lost_seen(struct xrma_seg *seg, int timeout_ms)
{
	struct xrma_event ev;
	uint64_t end = fixture_now_ms() + (uint64_t)timeout_ms;

	while (fixture_now_ms() < end) {
		int ret = xrma_seg_wait_event(seg, (int)(end - fixture_now_ms()), &ev);

		if (ret)
			return ret;
		if (ev.type == XRMA_EVENT_LOST && ev.node == 2)
			return 0;
	}
	return -XRMA_ETIMEDOUT;
}

static void test_peer_killed_mid_transfer(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	struct proc child;
	struct xrma_rseg *r;
	uint32_t nodes[8];
	size_t n = 0;

	(void)state;
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	assert_rc(seg_make(ctx, SEG_ID, SEG_LEN, NULL, 3, &seg), 0);
	assert_int_equal(proc_spawn(&child, fabric, 2, "writer", NULL), 0);
	assert_int_equal(proc_send(child.sock, MSG_READY), 0);
	assert_int_equal(proc_expect(child.sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	assert_rc(fixture_wait_importers(seg, 1, MP_TIMEOUT_MS), 0);
	/* Its segment 555 is in node 2's directory while it lives. */
	assert_rc(xrma_rseg_open(ctx, 2, 555, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), 0);
	assert_int_equal(proc_kill(&child), 128 + SIGKILL);
	/* The owner hears of the importer's death, and of the segment it imported. */
	assert_rc(events_lost_seen(seg, MP_TIMEOUT_MS), 0);
	assert_rc(fixture_wait_importers(seg, 0, MP_TIMEOUT_MS), 0);
	assert_int_equal(fixture_wait_rseg_state(r, XRMA_RSEG_LOST, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_rseg_close(r), 0);
	/* The directory no longer lists node 2 or its segment. */
	assert_rc(xrma_node_list(ctx, nodes, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(nodes[0], 1);
	assert_rc(xrma_rseg_open(ctx, 2, 555, XRMA_ACCESS_REMOTE_READ, 0, 500, &r), XRMA_ENODEV);
	/* The survivor goes on: a new node 2 imports the same segment. */
	{
		void *p;

		xrma_seg_addr(seg, &p);
		fixture_pattern(p, SEG_LEN, 3, 0);
	}
	assert_int_equal(proc_spawn(&child, fabric, 2, "importer", "7"), 0);
	assert_int_equal(proc_send(child.sock, MSG_READY), 0);
	assert_int_equal(proc_expect(child.sock, MSG_DONE, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_send(child.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_rc(fixture_wait_importers(seg, 0, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_two_fabrics_side_by_side(void **state)
{
	char other[XRMA_NAME_MAX];
	struct proc a, b;
	struct xrma_ctx *ca, *cb;
	struct xrma_rseg *r;

	(void)state;
	fixture_fabric_name(other, sizeof(other), "ntb-b");
	/* The same node id on both fabrics, exporting the same segment id. */
	assert_int_equal(proc_spawn(&a, fabric, 2, "exporter", "31"), 0);
	assert_int_equal(proc_spawn(&b, other, 2, "exporter", "32"), 0);
	assert_int_equal(proc_expect(a.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_expect(b.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_rc(ctx_open_node(fabric, 1, &ca), 0);
	assert_rc(ctx_open_node(other, 1, &cb), 0);
	assert_rc(xrma_rseg_open(ca, 2, 31, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), 0);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(xrma_rseg_open(ca, 2, 32, XRMA_ACCESS_REMOTE_READ, 0, 500, &r), XRMA_ENOENT);
	assert_rc(xrma_rseg_open(cb, 2, 32, XRMA_ACCESS_REMOTE_READ, 0, MP_TIMEOUT_MS, &r), 0);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(xrma_rseg_open(cb, 2, 31, XRMA_ACCESS_REMOTE_READ, 0, 500, &r), XRMA_ENOENT);
	assert_int_equal(proc_send(a.sock, MSG_GO), 0);
	assert_int_equal(proc_send(b.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&a, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_join(&b, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_ctx_close(ca), 0);
	assert_rc(xrma_ctx_close(cb), 0);
}

static int rseg_event(struct xrma_rseg *r, enum xrma_event_type want)
{
	struct xrma_event ev;
	int ret = xrma_rseg_wait_event(r, MP_TIMEOUT_MS, &ev);

	if (ret)
		return ret;
	return ev.type == want ? 0 : -XRMA_EPROTO;
}

static void test_link_down_and_up(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *local;
	struct xrma_rseg *r;
	struct proc child;
	enum xrma_rseg_state st;
	struct xrma_seg_attr la = { .len = 4096, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL,
				    .flags = XRMA_SEG_PRIVATE };

	(void)state;
	assert_int_equal(proc_spawn(&child, fabric, 2, "exporter", "50"), 0);
	assert_int_equal(proc_expect(child.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	assert_rc(xrma_seg_open(ctx, &la, &local), 0);
	assert_rc(xrma_rseg_open(ctx, 2, 50, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE, 0,
				 MP_TIMEOUT_MS, &r), 0);
	assert_rc(xrma_rseg_wait_event(r, 0, &(struct xrma_event){ 0 }), XRMA_ETIMEDOUT);
	assert_rc(xrma_node_set_link(ctx, 2, false), 0);
	assert_rc(rseg_event(r, XRMA_EVENT_NOT_OPERATIONAL), 0);
	assert_rc(xrma_rseg_state(r, &st), 0);
	assert_int_equal(st, XRMA_RSEG_NOT_OPERATIONAL);
	/* While the link is down, transfers and registers fail, and probes find nobody. */
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, r, 0, 64), XRMA_ETRANSFER);
	assert_rc(xrma_doorbell_ring(ctx, 2, 1), XRMA_ENETDOWN);
	assert_non_null(strstr(xrma_error_detail(), "link"));
	assert_rc(xrma_node_probe(ctx, 2, 100), XRMA_ENODEV);
	assert_rc(xrma_node_set_link(ctx, 2, true), 0);
	assert_rc(rseg_event(r, XRMA_EVENT_OPERATIONAL), 0);
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local, 0, r, 0, 64), 0);
	assert_rc(xrma_node_probe(ctx, 2, 100), 0);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(xrma_seg_close(local), 0);
	assert_int_equal(proc_send(child.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

struct cb_count {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n;
};

static void count_cb(void *arg, const void *data, size_t len)
{
	struct cb_count *c = arg;

	(void)data;
	(void)len;
	pthread_mutex_lock(&c->lock);
	c->n++;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static void test_interrupts_across_processes(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_intr *intr;
	struct proc child;
	uint64_t number = XRMA_ID_ANY;
	char data[16];
	size_t len;
	int plain = 0, with_data = 0;
	struct cb_count c = { .n = 0 };

	(void)state;
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.cond, NULL);
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	assert_rc(xrma_intr_open(ctx, &number, 0, 0, 0, &intr), 0);
	assert_int_equal(proc_spawn(&child, fabric, 2, "trigger", "callback"), 0);
	assert_int_equal(proc_send(child.sock, number), 0);
	assert_int_equal(proc_expect(child.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_send(child.sock, MSG_GO), 0);
	/* 100 plain triggers and one with data, each taken exactly once. */
	while (plain + with_data < 101) {
		len = sizeof(data);
		assert_rc(xrma_intr_wait(intr, MP_TIMEOUT_MS, data, &len), 0);
		if (len) {
			assert_int_equal(len, 5);
			assert_memory_equal(data, "hello", 5);
			with_data++;
		} else {
			plain++;
		}
	}
	assert_int_equal(plain, 100);
	assert_int_equal(with_data, 1);
	assert_rc(xrma_intr_wait(intr, 0, NULL, NULL), XRMA_ETIMEDOUT);
	/* With a callback set, triggers go to it. */
	assert_rc(xrma_intr_set_callback(intr, count_cb, &c), 0);
	assert_int_equal(proc_send(child.sock, MSG_GO), 0);
	pthread_mutex_lock(&c.lock);
	{
		uint64_t end = fixture_now_ms() + MP_TIMEOUT_MS;

		while (c.n < 10 && fixture_now_ms() < end) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&c.cond, &c.lock, &ts);
		}
	}
	assert_int_equal(c.n, 10);
	pthread_mutex_unlock(&c.lock);
	assert_rc(xrma_intr_close(intr), 0);
	assert_int_equal(proc_send(child.sock, MSG_DONE), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	assert_int_equal(c.n, 10);
	pthread_cond_destroy(&c.cond);
	pthread_mutex_destroy(&c.lock);
}

static void test_three_importers(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	struct proc child[3];
	uint32_t nodes[8];
	size_t n = 0;

	(void)state;
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	assert_rc(seg_make(ctx, SEG_ID, SEG_LEN, NULL, 3, &seg), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(proc_spawn(&child[i], fabric, (uint32_t)(2 + i), "exporter",
					    i == 0 ? "40" : i == 1 ? "41" : "42"), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(proc_expect(child[i].sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_node_list(ctx, nodes, 8, &n), 0);
	assert_int_equal(n, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(nodes[i], i + 1);
		assert_rc(xrma_node_probe(ctx, i + 1, 100), 0);
	}
	assert_rc(xrma_node_probe(ctx, 5, 100), XRMA_ENODEV);
	for (int i = 0; i < 3; i++) {
		struct xrma_rseg *r;
		unsigned char *p;

		assert_rc(xrma_rseg_open(ctx, (uint32_t)(2 + i), (uint64_t)(40 + i), XRMA_ACCESS_REMOTE_READ,
					 0, MP_TIMEOUT_MS, &r), 0);
		assert_rc(xrma_rseg_map(r, 0, 4096, XRMA_MAP_READ, (void **)&p), 0);
		assert_true(fixture_pattern_check(p, 4096, 1, 0) == FIXTURE_MATCH);
		assert_rc(xrma_rseg_unmap(r, p), 0);
		assert_rc(xrma_rseg_close(r), 0);
		assert_int_equal(proc_send(child[i].sock, MSG_GO), 0);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(proc_join(&child[i], MP_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_other_user_cannot_import(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	struct proc child;

	(void)state;
	if (geteuid() != 0) {
		print_message("not root: cannot start a process of another user\n");
		skip();
	}
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	assert_rc(seg_make(ctx, SEG_ID, 4096, NULL, 3, &seg), 0);
	assert_int_equal(proc_spawn(&child, fabric, 2, "other_user", NULL), 0);
	assert_int_equal(proc_expect(child.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_importers(seg, &(size_t){ 0 }), 0);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_other_user_allowed_by_configuration(void **state)
{
	char fab[XRMA_NAME_MAX];
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	struct proc child;

	(void)state;
	if (geteuid() != 0) {
		print_message("not root: cannot start a process of another user\n");
		skip();
	}
	/* A fabric of its own: its directory files are made readable for the guest. */
	fixture_fabric_name(fab, sizeof(fab), "ntb-guest");
	setenv("XRMA_HOST_ALLOW_UIDS", "65534", 1);
	assert_rc(ctx_open_node(fab, 1, &ctx), 0);
	unsetenv("XRMA_HOST_ALLOW_UIDS");
	assert_rc(seg_make(ctx, SEG_ID, 4096, NULL, 3, &seg), 0);
	assert_int_equal(proc_spawn(&child, fab, 2, "other_user", "allowed"), 0);
	assert_int_equal(proc_expect(child.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	assert_rc(fixture_wait_importers(seg, 0, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_export_import_map_rma, proc_teardown),
		cmocka_unit_test_teardown(test_registered_cross_memory_attach, proc_teardown),
		cmocka_unit_test_teardown(test_registered_staged_fallback, proc_teardown),
		cmocka_unit_test_teardown(test_doorbells_and_scratchpads, proc_teardown),
		cmocka_unit_test_teardown(test_window_limits, proc_teardown),
		cmocka_unit_test_teardown(test_max_peers, proc_teardown),
		cmocka_unit_test_teardown(test_peer_killed_mid_transfer, proc_teardown),
		cmocka_unit_test_teardown(test_two_fabrics_side_by_side, proc_teardown),
		cmocka_unit_test_teardown(test_link_down_and_up, proc_teardown),
		cmocka_unit_test_teardown(test_interrupts_across_processes, proc_teardown),
		cmocka_unit_test_teardown(test_three_importers, proc_teardown),
		cmocka_unit_test_teardown(test_other_user_cannot_import, proc_teardown),
		cmocka_unit_test_teardown(test_other_user_allowed_by_configuration, proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	/* The children must use the provider under test whatever the environment says. */
	setenv("XRMA_PROVIDER", "ntb", 1);
	return cmocka_run_group_tests(tests, group_up, NULL);
}
