/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_rseg_bus.c: imports by bus address (xrma_rseg_open_bus):
 * a window inside an exported segment reads, writes and maps like the
 * segment's bytes at its offset, the owner neither counts nor hears of it, and
 * every refusal (no capability, bad arguments, alignment, unknown node, an
 * address nothing covers, a window past the segment's end, rights), and the
 * owner's address as an import learns it (xrma_rseg_bus_addr). The ntb
 * provider models bus addresses; its two nodes live in this process.
 */
#include "tests/helpers/fixture.h"

#include <stdlib.h>
#include <string.h>

#define RW (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)
#define SEG_LEN (4 * FIXTURE_PAGE)

static struct fixture fx;

static int bus_group_up(void **state)
{
	(void)state;
	setenv("XRMA_TEST_PROVIDER", "ntb", 1);
	return fixture_open(&fx, "rsegbus", 2);
}

static int bus_group_down(void **state)
{
	(void)state;
	unsetenv("XRMA_TEST_PROVIDER");
	return fixture_close(&fx);
}

/* An exported segment of node 1 filled with pattern 7, and its bus address. */
static void owner_make(struct fixture_seg *s, uint32_t access, uint64_t *bus)
{
	assert_rc(fixture_seg_make(fx.ctx[0], SEG_LEN, access, true, 7, s), 0);
	assert_rc(xrma_seg_bus_addr(s->seg, bus), 0);
}

static int open_bus(uint64_t bus, size_t len, uint32_t access, struct xrma_rseg **r)
{
	return xrma_rseg_open_bus(fx.ctx[1], fx.node[0], bus, len, access, 0, FIXTURE_TIMEOUT_MS, r);
}

static void test_rseg_open_bus_window_reads_writes_maps_segment_bytes(void **state)
{
	struct fixture_seg s, local;
	struct xrma_rseg *r;
	size_t len, importers = 1;
	uint64_t bus, id;
	uint8_t *m;

	(void)state;
	owner_make(&s, XRMA_ACCESS_ALL, &bus);
	assert_rc(fixture_seg_make(fx.ctx[1], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 0, &local), 0);
	assert_rc(open_bus(bus + FIXTURE_PAGE, 2 * FIXTURE_PAGE, RW, &r), 0);
	assert_rc(xrma_rseg_size(r, &len), 0);
	assert_int_equal(len, 2 * FIXTURE_PAGE);
	assert_rc(xrma_rseg_id(r, &id), 0);
	assert_int_equal(id, s.id);
	/* No handshake: the owner does not count a raw window. */
	assert_rc(xrma_seg_importers(s.seg, &importers), 0);
	assert_int_equal(importers, 0);
	/* Offset 0 of the window is byte FIXTURE_PAGE of the segment. */
	assert_rc(fixture_rma_sync(fx.ctx[1], XRMA_RMA_READ, local.seg, 0, r, 16, 64), 0);
	assert_int_equal(fixture_pattern_check(local.addr, 64, 7, FIXTURE_PAGE + 16), FIXTURE_MATCH);
	fixture_pattern(local.addr, 32, 9, 0);
	assert_rc(fixture_rma_sync(fx.ctx[1], XRMA_RMA_WRITE, local.seg, 0, r, FIXTURE_PAGE, 32), 0);
	assert_int_equal(fixture_pattern_check((uint8_t *)s.addr + 2 * FIXTURE_PAGE, 32, 9, 0),
			 FIXTURE_MATCH);
	assert_rc(xrma_rseg_map(r, 8, 8, XRMA_MAP_READ | XRMA_MAP_WRITE, (void **)&m), 0);
	m[0] = 0x5a;
	assert_int_equal(((uint8_t *)s.addr)[FIXTURE_PAGE + 8], 0x5a);
	assert_rc(xrma_rseg_unmap(r, m), 0);
	/* The window ends where it was cut. */
	assert_rc(fixture_rma_sync(fx.ctx[1], XRMA_RMA_READ, local.seg, 0, r, 2 * FIXTURE_PAGE - 8, 16),
		  XRMA_ERANGE);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(fixture_seg_close(&local), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_rseg_open_bus_whole_segment_at_its_address(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *r;
	uint64_t bus, old;

	(void)state;
	owner_make(&s, XRMA_ACCESS_ALL, &bus);
	assert_rc(open_bus(bus, SEG_LEN, RW, &r), 0);
	assert_rc(xrma_rseg_atomic(r, SEG_LEN - 8, XRMA_ATOMIC_SWAP, 42, 0, &old), 0);
	assert_int_equal(((uint64_t *)s.addr)[SEG_LEN / 8 - 1], 42);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_rseg_open_bus_refusals_return_documented_codes(void **state)
{
	struct fixture_seg s, ro;
	struct xrma_rseg *r = FIXTURE_FORGED(struct xrma_rseg);
	uint64_t bus, ro_bus;

	(void)state;
	owner_make(&s, XRMA_ACCESS_ALL, &bus);
	owner_make(&ro, XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE | XRMA_ACCESS_REMOTE_READ,
		   &ro_bus);
	assert_rc(open_bus(bus, SEG_LEN, RW, NULL), XRMA_EINVAL);
	assert_rc(open_bus(bus, 0, RW, &r), XRMA_EINVAL);
	assert_null(r);
	assert_rc(open_bus(bus, SEG_LEN, 0, &r), XRMA_EINVAL);
	assert_rc(open_bus(bus, SEG_LEN, XRMA_ACCESS_LOCAL_READ, &r), XRMA_EINVAL);
	assert_rc(xrma_rseg_open_bus(fx.ctx[1], fx.node[0], bus, SEG_LEN, RW, 1, FIXTURE_TIMEOUT_MS, &r),
		  XRMA_EINVAL);
	assert_rc(open_bus(bus + 8, FIXTURE_PAGE, RW, &r), XRMA_EALIGN_OFFSET);
	assert_rc(open_bus(bus, FIXTURE_PAGE + 8, RW, &r), XRMA_EALIGN_SIZE);
	assert_rc(xrma_rseg_open_bus(fx.ctx[1], 99, bus, SEG_LEN, RW, 0, FIXTURE_TIMEOUT_MS, &r),
		  XRMA_ENODEV);
	/* Below the node's windows, and past the last export. */
	assert_rc(open_bus(FIXTURE_PAGE, FIXTURE_PAGE, RW, &r), XRMA_ENOENT);
	assert_rc(open_bus((bus > ro_bus ? bus : ro_bus) + SEG_LEN, FIXTURE_PAGE, RW, &r), XRMA_ENOENT);
	assert_rc(open_bus(bus + FIXTURE_PAGE, SEG_LEN, RW, &r), XRMA_ERANGE);
	assert_rc(open_bus(ro_bus, SEG_LEN, RW, &r), XRMA_EACCES);
	assert_rc(open_bus(ro_bus, SEG_LEN, XRMA_ACCESS_REMOTE_READ, &r), 0);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(fixture_seg_close(&ro), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_rseg_open_bus_owner_may_close_under_a_raw_window(void **state)
{
	struct fixture_seg local;
	void *user = NULL;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[1], FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 0, &local), 0);
	assert_int_equal(posix_memalign(&user, FIXTURE_PAGE, SEG_LEN), 0);
	/* Provider memory, then the owner's own registered pages. */
	for (int registered = 0; registered < 2; registered++) {
		struct xrma_seg_attr attr = { .len = SEG_LEN, .addr = registered ? user : NULL,
					      .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL };
		struct xrma_seg *seg;
		struct xrma_rseg *r;
		enum xrma_rseg_state st;
		uint64_t bus;
		int ret;

		fixture_pattern(user, SEG_LEN, 4, 0);
		assert_rc(xrma_seg_open(fx.ctx[0], &attr, &seg), 0);
		assert_rc(xrma_seg_export(seg, 0), 0);
		assert_rc(xrma_seg_bus_addr(seg, &bus), 0);
		assert_rc(open_bus(bus + FIXTURE_PAGE, FIXTURE_PAGE, RW, &r), 0);
		assert_rc(fixture_rma_sync(fx.ctx[1], XRMA_RMA_READ, local.seg, 0, r, 0, 64), 0);
		if (registered)
			assert_int_equal(fixture_pattern_check(local.addr, 64, 4, FIXTURE_PAGE),
					 FIXTURE_MATCH);
		/* Nothing holds the segment for a raw window: its owner closes it at once. */
		assert_rc(xrma_seg_close(seg), 0);
		/* What the window reaches then is the importer's business: it fails or not, cleanly. */
		ret = fixture_rma_sync(fx.ctx[1], XRMA_RMA_READ, local.seg, 0, r, 0, 64);
		assert_true(ret == 0 || ret == -XRMA_ETRANSFER || ret == -XRMA_ELOST);
		assert_rc(xrma_rseg_state(r, &st), 0);
		assert_rc(xrma_rseg_close(r), 0);
	}
	free(user);
	assert_rc(fixture_seg_close(&local), 0);
}

static void test_rseg_open_bus_without_capability_returns_enotsup(void **state)
{
	char fabric[XRMA_NAME_MAX];
	struct xrma_ctx_attr attr = { .provider = "loopback", .fabric = fabric, .node_id = 1 };
	struct xrma_ctx *ctx;
	struct xrma_rseg *r;

	(void)state;
	fixture_fabric_name(fabric, sizeof(fabric), "rsegbus-lo");
	assert_rc(xrma_ctx_open(&attr, &ctx), 0);
	assert_rc(xrma_rseg_open_bus(ctx, 1, 0, FIXTURE_PAGE, RW, 0, FIXTURE_TIMEOUT_MS, &r),
		  XRMA_ENOTSUP);
	/* An import by id has no address there either. */
	{
		struct fixture_seg s;
		uint64_t bus = 0;

		assert_rc(fixture_seg_make(ctx, FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 0, &s), 0);
		assert_rc(xrma_rseg_open(ctx, 1, s.id, RW, 0, FIXTURE_TIMEOUT_MS, &r), 0);
		assert_rc(xrma_rseg_bus_addr(r, &bus), XRMA_ENOTSUP);
		assert_rc(xrma_rseg_close(r), 0);
		assert_rc(fixture_seg_close(&s), 0);
	}
	assert_rc(xrma_ctx_close(ctx), 0);
}

/*
 * XRMA_EXPORT_ADDRESS_ONLY gives the address but lets no importer in; an
 * import by id learns the owner's address, a window the one it was opened at.
 */
static void test_rseg_bus_addr_is_the_owners_address(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *by_id, *window, *stale;
	uint64_t bus = 0, got = 0, again = 0;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], SEG_LEN, XRMA_ACCESS_ALL, false, 7, &s), 0);
	assert_rc(xrma_seg_bus_addr(s.seg, &bus), XRMA_ENOTAVAIL);
	assert_rc(xrma_seg_export(s.seg, 1u << 7), XRMA_EINVAL);
	assert_rc(xrma_seg_export(s.seg, XRMA_EXPORT_ADDRESS_ONLY), 0);
	assert_rc(xrma_seg_bus_addr(s.seg, &bus), 0);
	assert_rc(xrma_rseg_open(fx.ctx[1], fx.node[0], s.id, RW, 0, FIXTURE_TIMEOUT_MS, &by_id),
		  XRMA_ENOTAVAIL);
	/* The full export keeps the address and lets importers in. */
	assert_rc(xrma_seg_export(s.seg, 0), 0);
	assert_rc(xrma_seg_bus_addr(s.seg, &again), 0);
	assert_int_equal(again, bus);
	assert_rc(xrma_rseg_open(fx.ctx[1], fx.node[0], s.id, RW, 0, FIXTURE_TIMEOUT_MS, &by_id), 0);
	assert_rc(xrma_rseg_bus_addr(by_id, &got), 0);
	assert_int_equal(got, bus);
	assert_rc(open_bus(bus + FIXTURE_PAGE, FIXTURE_PAGE, RW, &window), 0);
	assert_rc(xrma_rseg_bus_addr(window, &got), 0);
	assert_int_equal(got, bus + FIXTURE_PAGE);
	assert_rc(xrma_rseg_bus_addr(by_id, NULL), XRMA_EINVAL);
	assert_rc(xrma_rseg_close(window), 0);
	stale = by_id;
	assert_rc(xrma_rseg_close(by_id), 0);
	assert_rc(xrma_rseg_bus_addr(stale, &got), XRMA_EHANDLE);
	assert_rc(fixture_seg_close(&s), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_rseg_open_bus_window_reads_writes_maps_segment_bytes),
		T(test_rseg_open_bus_whole_segment_at_its_address),
		T(test_rseg_open_bus_refusals_return_documented_codes),
		T(test_rseg_open_bus_owner_may_close_under_a_raw_window),
		T(test_rseg_open_bus_without_capability_returns_enotsup),
		T(test_rseg_bus_addr_is_the_owners_address),
	};

	return cmocka_run_group_tests_name("rseg_bus", tests, bus_group_up, bus_group_down);
}
