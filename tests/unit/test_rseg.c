/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_rseg.c: remote segments (include/xrma/rseg.h): import by
 * (node, id) with every refusal, getters, load/store mappings and their rights
 * and ranges, 64-bit atomics, the owner's NOTIFY / FORCE unexport as seen by
 * the importer (events and state), bad handles, and concurrent atomics.
 * Node 1 owns the segments; nodes 2 and 3 import them.
 */
#include "tests/helpers/fixture.h"

#include <string.h>

#define RW (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)
#define SEG_LEN (4 * FIXTURE_PAGE)

static struct fixture fx;

static int rseg_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "rseg", 3);
}

static int rseg_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

static int import_as(size_t from, uint64_t id, uint32_t access, struct xrma_rseg **rseg)
{
	return xrma_rseg_open(fx.ctx[from], fx.node[0], id, access, 0, FIXTURE_TIMEOUT_MS, rseg);
}

/* An exported, patterned owner segment and one import of it from node 2. */
struct pair {
	struct fixture_seg s;
	struct xrma_rseg *r;
};

static void pair_open(struct pair *p, uint32_t seg_access, uint32_t import_access, uint8_t seed)
{
	assert_rc(fixture_seg_make(fx.ctx[0], SEG_LEN, seg_access, true, seed, &p->s), 0);
	assert_rc(import_as(1, p->s.id, import_access, &p->r), 0);
}

static void pair_close(struct pair *p)
{
	assert_rc(xrma_rseg_close(p->r), 0);
	assert_int_equal(fixture_wait_importers(p->s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&p->s), 0);
}

static uint64_t owner_u64(struct pair *p, size_t offset)
{
	uint64_t v;

	memcpy(&v, (uint8_t *)p->s.addr + offset, sizeof(v));
	return v;
}

static void owner_set_u64(struct pair *p, size_t offset, uint64_t v)
{
	memcpy((uint8_t *)p->s.addr + offset, &v, sizeof(v));
}

static void test_rseg_open_getters_report_import(void **state)
{
	struct pair p;
	enum xrma_rseg_state st = 0;
	size_t len = 0;
	uint32_t node = 0, access = 0;
	uint64_t id = 0;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, XRMA_ACCESS_REMOTE_READ, 1);
	assert_rc(xrma_rseg_size(p.r, &len), 0);
	assert_int_equal(len, SEG_LEN);
	assert_rc(xrma_rseg_node(p.r, &node), 0);
	assert_int_equal(node, fx.node[0]);
	assert_rc(xrma_rseg_id(p.r, &id), 0);
	assert_int_equal(id, p.s.id);
	assert_rc(xrma_rseg_access(p.r, &access), 0);
	assert_int_equal(access, XRMA_ACCESS_REMOTE_READ);
	assert_rc(xrma_rseg_state(p.r, &st), 0);
	assert_int_equal(st, XRMA_RSEG_CONNECTED);
	assert_int_equal(fixture_count(fx.ctx[1]), 1);
	pair_close(&p);
}

static void test_rseg_open_unexported_returns_enotavail(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *r;
	size_t count = 9;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], SEG_LEN, XRMA_ACCESS_ALL, false, 1, &s), 0);
	assert_rc(import_as(1, s.id, RW, &r), XRMA_ENOTAVAIL);
	assert_rc(xrma_seg_importers(s.seg, &count), 0);
	assert_int_equal(count, 0);
	assert_int_equal(fixture_count(fx.ctx[1]), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_rseg_open_unknown_id_returns_enoent(void **state)
{
	struct xrma_rseg *r;

	(void)state;
	assert_rc(import_as(1, 0xfeedf00dull, RW, &r), XRMA_ENOENT);
	assert_int_equal(fixture_count(fx.ctx[1]), 0);
}

static void test_rseg_open_unknown_node_returns_enodev(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *r;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], SEG_LEN, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(xrma_rseg_open(fx.ctx[1], 99, s.id, RW, 0, FIXTURE_TIMEOUT_MS, &r), XRMA_ENODEV);
	assert_int_equal(fixture_count(fx.ctx[1]), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_rseg_open_rights_not_granted_returns_eacces(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *r;
	size_t count = 9;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], SEG_LEN,
				   XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE | XRMA_ACCESS_REMOTE_READ,
				   true, 1, &s), 0);
	assert_rc(import_as(1, s.id, XRMA_ACCESS_REMOTE_WRITE, &r), XRMA_EACCES);
	assert_rc(import_as(1, s.id, RW, &r), XRMA_EACCES);
	assert_rc(xrma_seg_importers(s.seg, &count), 0);
	assert_int_equal(count, 0);
	assert_rc(import_as(1, s.id, XRMA_ACCESS_REMOTE_READ, &r), 0);
	assert_rc(xrma_rseg_close(r), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_rseg_open_bad_args_return_einval(void **state)
{
	struct fixture_seg s;
	struct xrma_rseg *r;

	(void)state;
	assert_rc(fixture_seg_make(fx.ctx[0], SEG_LEN, XRMA_ACCESS_ALL, true, 1, &s), 0);
	assert_rc(import_as(1, s.id, RW, NULL), XRMA_EINVAL);
	assert_rc(import_as(1, s.id, RW | 0x80u, &r), XRMA_EINVAL);
	assert_rc(xrma_rseg_open(fx.ctx[1], fx.node[0], s.id, RW, 1u << 5, FIXTURE_TIMEOUT_MS, &r),
		  XRMA_EINVAL);
	assert_rc(xrma_rseg_open(FIXTURE_FORGED(struct xrma_ctx), fx.node[0], s.id, RW, 0,
				 FIXTURE_TIMEOUT_MS, &r), XRMA_EHANDLE);
	assert_int_equal(fixture_count(fx.ctx[1]), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, 0), 0);
	assert_rc(fixture_seg_close(&s), 0);
}

static void test_rseg_map_store_visible_both_ways(void **state)
{
	struct pair p;
	uint8_t *addr = NULL;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 2);
	assert_rc(xrma_rseg_map(p.r, 0, SEG_LEN, XRMA_MAP_READ | XRMA_MAP_WRITE, (void **)&addr), 0);
	assert_non_null(addr);
	/* The owner's bytes read through the mapping. */
	assert_int_equal(fixture_pattern_check(addr, SEG_LEN, 2, 0), FIXTURE_MATCH);
	/* Our stores show in the owner's memory ... */
	fixture_pattern(addr, SEG_LEN, 3, 0);
	assert_int_equal(fixture_pattern_check(p.s.addr, SEG_LEN, 3, 0), FIXTURE_MATCH);
	/* ... and the owner's in ours. */
	fixture_fill(p.s.addr, FIXTURE_PAGE, 0x5a);
	assert_int_equal(fixture_check(addr, FIXTURE_PAGE, 0x5a), FIXTURE_MATCH);
	assert_rc(xrma_rseg_unmap(p.r, addr), 0);
	pair_close(&p);
}

static void test_rseg_map_unaligned_offset_returns_address_of_offset(void **state)
{
	struct pair p;
	uint8_t *addr = NULL;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 2);
	assert_rc(xrma_rseg_map(p.r, FIXTURE_PAGE + 100, 50, XRMA_MAP_READ | XRMA_MAP_WRITE,
				(void **)&addr), 0);
	assert_non_null(addr);
	assert_int_equal((uintptr_t)addr % FIXTURE_PAGE, 100);
	assert_int_equal(fixture_pattern_check(addr, 50, 2, FIXTURE_PAGE + 100), FIXTURE_MATCH);
	addr[0] = 0xc3;
	addr[49] = 0x3c;
	assert_int_equal(((uint8_t *)p.s.addr)[FIXTURE_PAGE + 100], 0xc3);
	assert_int_equal(((uint8_t *)p.s.addr)[FIXTURE_PAGE + 149], 0x3c);
	assert_rc(xrma_rseg_unmap(p.r, addr), 0);
	pair_close(&p);
}

static void test_rseg_map_bad_args_return_einval(void **state)
{
	struct pair p;
	void *addr = NULL;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	assert_rc(xrma_rseg_map(p.r, 0, 0, XRMA_MAP_READ, &addr), XRMA_EINVAL);
	assert_rc(xrma_rseg_map(p.r, 0, FIXTURE_PAGE, XRMA_MAP_READ | (1u << 4), &addr), XRMA_EINVAL);
	assert_rc(xrma_rseg_map(p.r, 0, FIXTURE_PAGE, XRMA_MAP_READ, NULL), XRMA_EINVAL);
	assert_null(addr);
	/* No mapping was left behind: close is not busy. */
	pair_close(&p);
}

static void test_rseg_map_outside_segment_returns_erange(void **state)
{
	struct pair p;
	void *addr = NULL;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	assert_rc(xrma_rseg_map(p.r, 0, SEG_LEN + 1, XRMA_MAP_READ, &addr), XRMA_ERANGE);
	assert_rc(xrma_rseg_map(p.r, SEG_LEN, 1, XRMA_MAP_READ, &addr), XRMA_ERANGE);
	assert_rc(xrma_rseg_map(p.r, SEG_LEN - 10, 11, XRMA_MAP_READ, &addr), XRMA_ERANGE);
	assert_rc(xrma_rseg_map(p.r, 8, SIZE_MAX, XRMA_MAP_READ, &addr), XRMA_ERANGE);
	assert_rc(xrma_rseg_map(p.r, SIZE_MAX - 2, 8, XRMA_MAP_READ, &addr), XRMA_ERANGE);
	assert_null(addr);
	/* The last byte alone is inside. */
	assert_rc(xrma_rseg_map(p.r, SEG_LEN - 1, 1, XRMA_MAP_READ, &addr), 0);
	assert_rc(xrma_rseg_unmap(p.r, addr), 0);
	pair_close(&p);
}

static void test_rseg_map_beyond_import_rights_returns_eacces(void **state)
{
	struct pair p;
	struct xrma_rseg *wo;
	void *addr = NULL;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, XRMA_ACCESS_REMOTE_READ, 1);
	assert_rc(xrma_rseg_map(p.r, 0, FIXTURE_PAGE, XRMA_MAP_READ | XRMA_MAP_WRITE, &addr),
		  XRMA_EACCES);
	assert_rc(xrma_rseg_map(p.r, 0, FIXTURE_PAGE, XRMA_MAP_WRITE, &addr), XRMA_EACCES);
	assert_rc(xrma_rseg_map(p.r, 0, FIXTURE_PAGE, XRMA_MAP_READ, &addr), 0);
	assert_rc(xrma_rseg_unmap(p.r, addr), 0);
	assert_rc(import_as(2, p.s.id, XRMA_ACCESS_REMOTE_WRITE, &wo), 0);
	assert_rc(xrma_rseg_map(wo, 0, FIXTURE_PAGE, XRMA_MAP_READ, &addr), XRMA_EACCES);
	assert_rc(xrma_rseg_close(wo), 0);
	pair_close(&p);
}

static void test_rseg_unmap_wrong_address_returns_einval(void **state)
{
	struct pair p;
	uint8_t *addr = NULL;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	assert_rc(xrma_rseg_map(p.r, 0, FIXTURE_PAGE, XRMA_MAP_READ | XRMA_MAP_WRITE, (void **)&addr), 0);
	assert_rc(xrma_rseg_unmap(p.r, addr + 8), XRMA_EINVAL);
	assert_rc(xrma_rseg_unmap(p.r, NULL), XRMA_EINVAL);
	/* The mapping survived the failed calls. */
	addr[0] = 0x77;
	assert_int_equal(((uint8_t *)p.s.addr)[0], 0x77);
	assert_rc(xrma_rseg_unmap(p.r, addr), 0);
	assert_rc(xrma_rseg_unmap(p.r, addr), XRMA_EINVAL);
	pair_close(&p);
}

static void test_rseg_close_while_mapped_returns_ebusy(void **state)
{
	struct pair p;
	uint8_t *addr = NULL;
	size_t count = 0;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	assert_rc(xrma_rseg_map(p.r, 0, SEG_LEN, XRMA_MAP_READ | XRMA_MAP_WRITE, (void **)&addr), 0);
	assert_rc(xrma_rseg_close(p.r), XRMA_EBUSY);
	/* Still imported and mapped. */
	assert_rc(xrma_seg_importers(p.s.seg, &count), 0);
	assert_int_equal(count, 1);
	addr[5] = 0x42;
	assert_int_equal(((uint8_t *)p.s.addr)[5], 0x42);
	assert_rc(xrma_rseg_unmap(p.r, addr), 0);
	pair_close(&p);
}

static void test_rseg_map_twice_mappings_alias(void **state)
{
	struct pair p;
	uint8_t *a = NULL, *b = NULL;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	assert_rc(xrma_rseg_map(p.r, 0, FIXTURE_PAGE, XRMA_MAP_READ | XRMA_MAP_WRITE, (void **)&a), 0);
	assert_rc(xrma_rseg_map(p.r, 0, FIXTURE_PAGE, XRMA_MAP_READ | XRMA_MAP_WRITE, (void **)&b), 0);
	a[10] = 0x11;
	assert_int_equal(b[10], 0x11);
	assert_rc(xrma_rseg_unmap(p.r, a), 0);
	b[11] = 0x22;
	assert_int_equal(((uint8_t *)p.s.addr)[11], 0x22);
	assert_rc(xrma_rseg_close(p.r), XRMA_EBUSY);
	assert_rc(xrma_rseg_unmap(p.r, b), 0);
	pair_close(&p);
}

static void test_rseg_atomic_fetch_add_returns_old_adds(void **state)
{
	struct pair p;
	uint64_t old = 0;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	owner_set_u64(&p, 64, 5);
	assert_rc(xrma_rseg_atomic(p.r, 64, XRMA_ATOMIC_FETCH_ADD, 3, 0, &old), 0);
	assert_int_equal(old, 5);
	assert_int_equal(owner_u64(&p, 64), 8);
	/* Wraps as unsigned arithmetic. */
	assert_rc(xrma_rseg_atomic(p.r, 64, XRMA_ATOMIC_FETCH_ADD, UINT64_MAX, 0, &old), 0);
	assert_int_equal(old, 8);
	assert_int_equal(owner_u64(&p, 64), 7);
	pair_close(&p);
}

static void test_rseg_atomic_swap_returns_old_stores(void **state)
{
	struct pair p;
	uint64_t old = 0;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	owner_set_u64(&p, SEG_LEN - 8, 0xabcdef);
	assert_rc(xrma_rseg_atomic(p.r, SEG_LEN - 8, XRMA_ATOMIC_SWAP, 0x1234, 0, &old), 0);
	assert_int_equal(old, 0xabcdef);
	assert_int_equal(owner_u64(&p, SEG_LEN - 8), 0x1234);
	pair_close(&p);
}

static void test_rseg_atomic_cswap_stores_only_when_equal(void **state)
{
	struct pair p;
	uint64_t old = 0;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	owner_set_u64(&p, 0, 10);
	assert_rc(xrma_rseg_atomic(p.r, 0, XRMA_ATOMIC_CSWAP, 99, 11, &old), 0);
	assert_int_equal(old, 10);
	assert_int_equal(owner_u64(&p, 0), 10);
	assert_rc(xrma_rseg_atomic(p.r, 0, XRMA_ATOMIC_CSWAP, 99, 10, &old), 0);
	assert_int_equal(old, 10);
	assert_int_equal(owner_u64(&p, 0), 99);
	pair_close(&p);
}

static void test_rseg_atomic_read_returns_value_unchanged(void **state)
{
	struct pair p;
	uint64_t old = 0, before;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 7);
	before = owner_u64(&p, 128);
	assert_rc(xrma_rseg_atomic(p.r, 128, XRMA_ATOMIC_READ, 1, 2, &old), 0);
	assert_int_equal(old, before);
	assert_int_equal(owner_u64(&p, 128), before);
	assert_int_equal(fixture_pattern_check(p.s.addr, SEG_LEN, 7, 0), FIXTURE_MATCH);
	pair_close(&p);
}

static void test_rseg_atomic_misaligned_returns_ealign_offset(void **state)
{
	struct pair p;
	uint64_t old = 0x5555;
	size_t offsets[] = { 1, 4, 7, 12, SEG_LEN - 12 };
	size_t i;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 7);
	for (i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++)
		assert_rc(xrma_rseg_atomic(p.r, offsets[i], XRMA_ATOMIC_FETCH_ADD, 1, 0, &old),
			  XRMA_EALIGN_OFFSET);
	assert_int_equal(old, 0x5555);
	assert_int_equal(fixture_pattern_check(p.s.addr, SEG_LEN, 7, 0), FIXTURE_MATCH);
	pair_close(&p);
}

static void test_rseg_atomic_outside_segment_returns_erange(void **state)
{
	struct pair p;
	uint64_t old;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 7);
	assert_rc(xrma_rseg_atomic(p.r, SEG_LEN, XRMA_ATOMIC_FETCH_ADD, 1, 0, &old), XRMA_ERANGE);
	assert_rc(xrma_rseg_atomic(p.r, SEG_LEN * 16, XRMA_ATOMIC_READ, 0, 0, &old), XRMA_ERANGE);
	assert_rc(xrma_rseg_atomic(p.r, SIZE_MAX - 7, XRMA_ATOMIC_READ, 0, 0, &old), XRMA_ERANGE);
	assert_int_equal(fixture_pattern_check(p.s.addr, SEG_LEN, 7, 0), FIXTURE_MATCH);
	pair_close(&p);
}

static void test_rseg_atomic_bad_args_return_einval(void **state)
{
	struct pair p;
	uint64_t old;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 7);
	assert_rc(xrma_rseg_atomic(p.r, 0, (enum xrma_atomic_op)0, 1, 0, &old), XRMA_EINVAL);
	assert_rc(xrma_rseg_atomic(p.r, 0, (enum xrma_atomic_op)99, 1, 0, &old), XRMA_EINVAL);
	assert_rc(xrma_rseg_atomic(p.r, 0, XRMA_ATOMIC_READ, 0, 0, NULL), XRMA_EINVAL);
	assert_int_equal(fixture_pattern_check(p.s.addr, SEG_LEN, 7, 0), FIXTURE_MATCH);
	pair_close(&p);
}

static void test_rseg_atomic_read_only_import_write_ops_eacces(void **state)
{
	struct pair p;
	uint64_t old = 0, before;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, XRMA_ACCESS_REMOTE_READ, 7);
	before = owner_u64(&p, 8);
	assert_rc(xrma_rseg_atomic(p.r, 8, XRMA_ATOMIC_READ, 0, 0, &old), 0);
	assert_int_equal(old, before);
	assert_rc(xrma_rseg_atomic(p.r, 8, XRMA_ATOMIC_FETCH_ADD, 1, 0, &old), XRMA_EACCES);
	assert_rc(xrma_rseg_atomic(p.r, 8, XRMA_ATOMIC_SWAP, 1, 0, &old), XRMA_EACCES);
	assert_rc(xrma_rseg_atomic(p.r, 8, XRMA_ATOMIC_CSWAP, 1, before, &old), XRMA_EACCES);
	assert_int_equal(owner_u64(&p, 8), before);
	pair_close(&p);
}

#define ATOMIC_THREADS 4
#define ATOMIC_ROUNDS 1000

struct adder {
	struct xrma_rseg *r;
	struct fixture_barrier *barrier;
	uint64_t olds[ATOMIC_ROUNDS];
	int rc;
};

static void *atomic_adder(void *arg)
{
	struct adder *a = arg;
	int i;

	if ((a->rc = fixture_barrier_wait(a->barrier, FIXTURE_TIMEOUT_MS)))
		return NULL;
	for (i = 0; i < ATOMIC_ROUNDS; i++)
		if ((a->rc = xrma_rseg_atomic(a->r, 256, XRMA_ATOMIC_FETCH_ADD, 1, 0, &a->olds[i])))
			return NULL;
	return NULL;
}

static void test_rseg_atomic_concurrent_fetch_add_sums_exactly(void **state)
{
	static struct adder a[ATOMIC_THREADS];
	static uint8_t seen[ATOMIC_THREADS * ATOMIC_ROUNDS];
	struct fixture_barrier barrier;
	pthread_t threads[ATOMIC_THREADS];
	struct xrma_rseg *r3;
	struct pair p;
	size_t i, k;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	assert_rc(import_as(2, p.s.id, RW, &r3), 0);
	owner_set_u64(&p, 256, 0);
	fixture_barrier_init(&barrier, ATOMIC_THREADS);
	for (i = 0; i < ATOMIC_THREADS; i++) {
		a[i].r = i % 2 ? r3 : p.r;   /* two importing nodes, two threads each */
		a[i].barrier = &barrier;
		a[i].rc = 0;
		assert_int_equal(pthread_create(&threads[i], NULL, atomic_adder, &a[i]), 0);
	}
	for (i = 0; i < ATOMIC_THREADS; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 5, NULL), 0);
	fixture_barrier_destroy(&barrier);
	for (i = 0; i < ATOMIC_THREADS; i++)
		assert_rc(a[i].rc, 0);
	assert_int_equal(owner_u64(&p, 256), ATOMIC_THREADS * ATOMIC_ROUNDS);
	/* Every old value was handed out exactly once. */
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < ATOMIC_THREADS; i++)
		for (k = 0; k < ATOMIC_ROUNDS; k++) {
			assert_true(a[i].olds[k] < ATOMIC_THREADS * ATOMIC_ROUNDS);
			assert_int_equal(seen[a[i].olds[k]], 0);
			seen[a[i].olds[k]] = 1;
		}
	assert_rc(xrma_rseg_close(r3), 0);
	pair_close(&p);
}

static void test_rseg_unexport_notify_importer_disconnect_requested(void **state)
{
	struct pair p;
	struct xrma_event ev;
	enum xrma_rseg_state st = 0;
	uint64_t old = 0;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	owner_set_u64(&p, 0, 31);
	assert_rc(xrma_seg_unexport(p.s.seg, XRMA_UNEXPORT_NOTIFY), 0);
	memset(&ev, 0, sizeof(ev));
	assert_rc(xrma_rseg_wait_event(p.r, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_DISCONNECT);
	assert_int_equal(ev.node, fx.node[0]);
	assert_rc(xrma_rseg_state(p.r, &st), 0);
	assert_int_equal(st, XRMA_RSEG_DISCONNECT_REQUESTED);
	/* Still usable until we leave. */
	assert_rc(xrma_rseg_atomic(p.r, 0, XRMA_ATOMIC_FETCH_ADD, 1, 0, &old), 0);
	assert_int_equal(old, 31);
	pair_close(&p);
}

static void test_rseg_unexport_force_importer_lost(void **state)
{
	struct pair p;
	struct xrma_event ev;
	enum xrma_rseg_state st = 0;
	uint64_t old;
	void *addr = NULL;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	owner_set_u64(&p, 0, 31);
	assert_rc(xrma_seg_unexport(p.s.seg, XRMA_UNEXPORT_FORCE), 0);
	memset(&ev, 0, sizeof(ev));
	assert_rc(xrma_rseg_wait_event(p.r, FIXTURE_TIMEOUT_MS, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_LOST);
	assert_int_equal(ev.node, fx.node[0]);
	assert_rc(xrma_rseg_state(p.r, &st), 0);
	assert_int_equal(st, XRMA_RSEG_LOST);
	assert_rc(xrma_rseg_atomic(p.r, 0, XRMA_ATOMIC_FETCH_ADD, 1, 0, &old), XRMA_ELOST);
	assert_rc(xrma_rseg_map(p.r, 0, FIXTURE_PAGE, XRMA_MAP_READ, &addr), XRMA_ELOST);
	assert_int_equal(owner_u64(&p, 0), 31);
	pair_close(&p);
}

static void test_rseg_wait_event_none_returns_etimedout(void **state)
{
	struct pair p;
	struct xrma_event ev;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	assert_rc(xrma_rseg_wait_event(p.r, 0, &ev), XRMA_ETIMEDOUT);
	assert_rc(xrma_rseg_wait_event(p.r, FIXTURE_SHORT_MS, &ev), XRMA_ETIMEDOUT);
	assert_rc(xrma_rseg_wait_event(p.r, 0, NULL), XRMA_EINVAL);
	pair_close(&p);
}

static void test_rseg_set_callback_gets_notify_wait_returns_estate(void **state)
{
	struct fixture_events log;
	struct xrma_event ev;
	struct pair p;

	(void)state;
	fixture_events_init(&log);
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	assert_rc(xrma_rseg_set_callback(p.r, fixture_events_cb, &log), 0);
	assert_rc(xrma_rseg_wait_event(p.r, 0, &ev), XRMA_ESTATE);
	assert_rc(xrma_seg_unexport(p.s.seg, XRMA_UNEXPORT_NOTIFY), 0);
	assert_int_equal(fixture_events_wait(&log, 1, FIXTURE_TIMEOUT_MS), 0);
	pthread_mutex_lock(&log.lock);
	assert_int_equal(log.ev[0].type, XRMA_EVENT_DISCONNECT);
	assert_int_equal(log.ev[0].node, fx.node[0]);
	pthread_mutex_unlock(&log.lock);
	assert_rc(xrma_rseg_set_callback(p.r, NULL, NULL), 0);
	assert_rc(xrma_rseg_wait_event(p.r, 0, &ev), XRMA_ETIMEDOUT);
	pair_close(&p);
	fixture_events_destroy(&log);
}

static void test_rseg_calls_bad_handle_return_ehandle(void **state)
{
	struct xrma_rseg *bad[3];
	struct xrma_event ev;
	struct pair p;
	enum xrma_rseg_state st;
	void *addr;
	size_t len, i;
	uint32_t u32;
	uint64_t u64;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	bad[0] = FIXTURE_FORGED(struct xrma_rseg);
	bad[1] = (struct xrma_rseg *)p.s.seg;   /* a live handle of the wrong type */
	bad[2] = p.r;
	assert_rc(xrma_rseg_close(p.r), 0);
	for (i = 0; i < 3; i++) {
		assert_rc(xrma_rseg_size(bad[i], &len), XRMA_EHANDLE);
		assert_rc(xrma_rseg_node(bad[i], &u32), XRMA_EHANDLE);
		assert_rc(xrma_rseg_id(bad[i], &u64), XRMA_EHANDLE);
		assert_rc(xrma_rseg_access(bad[i], &u32), XRMA_EHANDLE);
		assert_rc(xrma_rseg_state(bad[i], &st), XRMA_EHANDLE);
		assert_rc(xrma_rseg_map(bad[i], 0, 8, XRMA_MAP_READ, &addr), XRMA_EHANDLE);
		assert_rc(xrma_rseg_unmap(bad[i], p.s.addr), XRMA_EHANDLE);
		assert_rc(xrma_rseg_atomic(bad[i], 0, XRMA_ATOMIC_READ, 0, 0, &u64), XRMA_EHANDLE);
		assert_rc(xrma_rseg_set_callback(bad[i], NULL, NULL), XRMA_EHANDLE);
		assert_rc(xrma_rseg_wait_event(bad[i], 0, &ev), XRMA_EHANDLE);
		assert_rc(xrma_rseg_close(bad[i]), XRMA_EHANDLE);
	}
	assert_null_handle_rc(xrma_rseg_close(NULL));
	assert_int_equal(fixture_wait_importers(p.s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&p.s), 0);
}

static void test_rseg_getters_null_out_return_einval(void **state)
{
	struct pair p;

	(void)state;
	pair_open(&p, XRMA_ACCESS_ALL, RW, 1);
	assert_rc(xrma_rseg_size(p.r, NULL), XRMA_EINVAL);
	assert_rc(xrma_rseg_node(p.r, NULL), XRMA_EINVAL);
	assert_rc(xrma_rseg_id(p.r, NULL), XRMA_EINVAL);
	assert_rc(xrma_rseg_access(p.r, NULL), XRMA_EINVAL);
	assert_rc(xrma_rseg_state(p.r, NULL), XRMA_EINVAL);
	pair_close(&p);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_rseg_open_getters_report_import),
		T(test_rseg_open_unexported_returns_enotavail),
		T(test_rseg_open_unknown_id_returns_enoent),
		T(test_rseg_open_unknown_node_returns_enodev),
		T(test_rseg_open_rights_not_granted_returns_eacces),
		T(test_rseg_open_bad_args_return_einval),
		T(test_rseg_map_store_visible_both_ways),
		T(test_rseg_map_unaligned_offset_returns_address_of_offset),
		T(test_rseg_map_bad_args_return_einval),
		T(test_rseg_map_outside_segment_returns_erange),
		T(test_rseg_map_beyond_import_rights_returns_eacces),
		T(test_rseg_unmap_wrong_address_returns_einval),
		T(test_rseg_close_while_mapped_returns_ebusy),
		T(test_rseg_map_twice_mappings_alias),
		T(test_rseg_atomic_fetch_add_returns_old_adds),
		T(test_rseg_atomic_swap_returns_old_stores),
		T(test_rseg_atomic_cswap_stores_only_when_equal),
		T(test_rseg_atomic_read_returns_value_unchanged),
		T(test_rseg_atomic_misaligned_returns_ealign_offset),
		T(test_rseg_atomic_outside_segment_returns_erange),
		T(test_rseg_atomic_bad_args_return_einval),
		T(test_rseg_atomic_read_only_import_write_ops_eacces),
		T(test_rseg_atomic_concurrent_fetch_add_sums_exactly),
		T(test_rseg_unexport_notify_importer_disconnect_requested),
		T(test_rseg_unexport_force_importer_lost),
		T(test_rseg_wait_event_none_returns_etimedout),
		T(test_rseg_set_callback_gets_notify_wait_returns_estate),
		T(test_rseg_calls_bad_handle_return_ehandle),
		T(test_rseg_getters_null_out_return_einval),
	};

	return cmocka_run_group_tests_name("rseg", tests, rseg_group_up, rseg_group_down);
}
