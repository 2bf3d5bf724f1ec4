/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/test_sci.c: the sci provider through the core API: node-id
 * rules, the address layout, ATT limits for exports and imports, the CSR
 * register file, and fault injection: the same seed gives the same faults,
 * a failed write moves only the transactions before the failed one, a failed
 * read never passes for good data, errors are counted per import and in the
 * node's registers, configured link events reach importers, a fault of the
 * link between two nodes spares every other link, and a lost node's
 * process dies and its importers see it lost; a node whose CSRs were read
 * and which went away leaves no mapping behind. Settings come from the
 * environment, read when each context opens.
 */
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RW (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)
#define CSR_STATE_SET 0x004
#define CSR_STATE_CLEAR 0x000
#define CSR_NODE_IDS 0x008
#define CSR_ATT_ENTRIES 0x010
#define CSR_ATT_PAGE_SIZE 0x014
#define CSR_ATT_USED 0x018
#define CSR_ERROR_COUNT 0x01c
#define CSR_ENDPOINTS 0x020
#define CSR_SCRATCH 0x080
#define STATE_LINK_OFF 1u
#define STATE_ERROR_LOGGED 2u

static char fabric[XRMA_NAME_MAX];

static const char *const fault_vars[] = {
	"XRMA_SCI_FAULT_RATE", "XRMA_SCI_FAULT_FATAL", "XRMA_SCI_FAULT_LINK", "XRMA_SCI_FAULT_LOST",
	"XRMA_SCI_FAULT_SEED", "XRMA_SCI_ATT_ENTRIES", "XRMA_SCI_ATT_PAGE_SIZE",
};

static int sci_test_up(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fault_vars) / sizeof(fault_vars[0]); i++)
		unsetenv(fault_vars[i]);
	fixture_fabric_name(fabric, sizeof(fabric), "sci");
	return 0;
}

static struct xrma_ctx *open_node(uint32_t node)
{
	struct xrma_ctx_attr attr = { .provider = "sci", .fabric = fabric, .node_id = node };
	struct xrma_ctx *ctx = NULL;

	assert_rc(xrma_ctx_open(&attr, &ctx), 0);
	return ctx;
}

/* An exported segment of len on a, imported by b as *r. */
static void pair_import(struct xrma_ctx *a, struct xrma_ctx *b, uint32_t a_node, size_t len,
			struct fixture_seg *s, struct xrma_rseg **r)
{
	assert_rc(fixture_seg_make(a, len, XRMA_ACCESS_ALL, true, 0, s), 0);
	assert_rc(xrma_rseg_open(b, a_node, s->id, RW, 0, FIXTURE_TIMEOUT_MS, r), 0);
}

static void pair_release(struct fixture_seg *s, struct xrma_rseg *r)
{
	assert_rc(xrma_rseg_close(r), 0);
	assert_int_equal(fixture_wait_importers(s->seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(s), 0);
}

/* One synchronous transfer of len bytes between local seg l and r at offset. */
static int transfer(struct xrma_ctx *ctx, enum xrma_rma_op op, struct fixture_seg *l, struct xrma_rseg *r,
		    size_t offset, size_t len)
{
	struct xrma_iov iov = { .seg = l->seg, .offset = 0, .len = len };
	struct xrma_dmaq *q;
	int ret;

	assert_rc(xrma_dmaq_open(ctx, 4, 0, &q), 0);
	ret = xrma_dmaq_post(q, op, &iov, 1, r, offset, len, 0, XRMA_RMA_SYNC);
	assert_rc(xrma_dmaq_close(q), 0);
	return ret;
}

/* A CSR register that must be readable. */
static uint32_t csr(struct xrma_ctx *ctx, uint32_t node, uint32_t offset)
{
	uint32_t v = UINT32_MAX;

	assert_rc(xrma_node_csr_read(ctx, node, offset, &v), 0);
	return v;
}

/* Wait until node's exports take want ATT entries (a closed segment is unexported
 * when its last user lets go, which may be the service thread). */
static void wait_att_used(struct xrma_ctx *ctx, uint32_t node, uint32_t want)
{
	uint64_t deadline = fixture_now_ms() + FIXTURE_TIMEOUT_MS;
	uint32_t used = UINT32_MAX;

	while (fixture_now_ms() < deadline) {
		assert_rc(xrma_node_csr_read(ctx, node, CSR_ATT_USED, &used), 0);
		if (used == want)
			return;
		sched_yield();
	}
	assert_int_equal(used, want);
}

static void test_sci_node_ids_are_multiples_of_four(void **state)
{
	struct xrma_ctx_attr attr = { .provider = "sci", .fabric = fabric };
	struct xrma_ctx *ctx = NULL, *c4;

	(void)state;
	for (uint32_t bad = 0; bad < 4; bad++) {
		attr.node_id = bad;
		assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_EINVAL);
		assert_non_null(strstr(xrma_error_detail(), "multiples of 4"));
	}
	attr.node_id = 0x10000;
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_EINVAL);
	assert_null(ctx);
	c4 = open_node(4);
	assert_rc(xrma_node_probe(c4, 4, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_node_probe(c4, 6, FIXTURE_TIMEOUT_MS), XRMA_EINVAL);
	assert_rc(xrma_node_probe(c4, 8, FIXTURE_TIMEOUT_MS), XRMA_ENODEV);
	ctx = open_node(0xfffc);
	assert_rc(xrma_node_probe(c4, 0xfffc, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	assert_rc(xrma_ctx_close(c4), 0);
}

static void test_sci_global_address_is_node_and_att_offset(void **state)
{
	struct fixture_seg s1, s2;
	struct xrma_ctx *ctx;
	uint64_t a1, a2;

	(void)state;
	setenv("XRMA_SCI_ATT_PAGE_SIZE", "64K", 1);
	ctx = open_node(8);
	assert_rc(fixture_seg_make(ctx, 100, XRMA_ACCESS_ALL, true, 0, &s1), 0);
	assert_rc(fixture_seg_make(ctx, 70000, XRMA_ACCESS_ALL, true, 0, &s2), 0);
	assert_rc(xrma_seg_bus_addr(s1.seg, &a1), 0);
	assert_rc(xrma_seg_bus_addr(s2.seg, &a2), 0);
	/* Node id in bits 63..48; offsets are whole ATT pages apart. */
	assert_int_equal(a1 >> 48, 8);
	assert_int_equal(a2 >> 48, 8);
	assert_int_equal((a1 & 0xffffffffffffull) % 65536, 0);
	assert_int_equal((a2 & 0xffffffffffffull) % 65536, 0);
	assert_true(a1 != a2);
	assert_rc(fixture_seg_close(&s2), 0);
	assert_rc(fixture_seg_close(&s1), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_sci_att_limits_exports_and_imports(void **state)
{
	struct xrma_ctx *a, *b;
	struct fixture_seg s1, s2, s3;
	struct xrma_rseg *r1, *r2 = NULL;
	struct xrma_ctx_info info;
	uint32_t used = 0;

	(void)state;
	setenv("XRMA_SCI_ATT_ENTRIES", "4", 1);
	setenv("XRMA_SCI_ATT_PAGE_SIZE", "8192", 1);
	a = open_node(4);
	b = open_node(8);
	assert_rc(xrma_ctx_query(a, &info), 0);
	assert_int_equal(info.caps.max_seg_size, 4 * 8192);
	assert_int_equal(info.caps.xlat_align, 8192);
	/* Larger than the whole table: refused at open. */
	assert_rc(fixture_seg_make(a, 5 * 8192, XRMA_ACCESS_ALL, true, 0, &s1), XRMA_ERANGE);
	/* Three entries, then one; a fifth does not fit. */
	assert_rc(fixture_seg_make(a, 3 * 8192 - 5, XRMA_ACCESS_ALL, true, 0, &s1), 0);
	assert_rc(fixture_seg_make(a, 100, XRMA_ACCESS_ALL, true, 0, &s2), 0);
	assert_rc(xrma_node_csr_read(b, 4, CSR_ATT_USED, &used), 0);
	assert_int_equal(used, 4);
	assert_rc(fixture_seg_make(a, 100, XRMA_ACCESS_ALL, true, 0, &s3), XRMA_ENOSPC);
	assert_non_null(strstr(xrma_error_detail(), "att_entries=4"));
	/* Imports take entries of the importer's table: 3 + 1 fit, then nothing. */
	assert_rc(xrma_rseg_open(b, 4, s1.id, RW, 0, FIXTURE_TIMEOUT_MS, &r1), 0);
	assert_rc(xrma_rseg_open(b, 4, s2.id, RW, 0, FIXTURE_TIMEOUT_MS, &r2), 0);
	assert_rc(xrma_rseg_close(r2), 0);
	assert_int_equal(fixture_wait_importers(s2.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s2), 0);
	wait_att_used(b, 4, 3);
	assert_rc(fixture_seg_make(a, 2 * 8192, XRMA_ACCESS_ALL, true, 0, &s2), XRMA_ENOSPC);
	assert_rc(fixture_seg_make(a, 8192, XRMA_ACCESS_ALL, true, 0, &s2), 0);
	assert_rc(xrma_rseg_open(b, 4, s2.id, RW, 0, FIXTURE_TIMEOUT_MS, &r2), 0);
	assert_rc(xrma_rseg_close(r2), 0);
	assert_rc(xrma_rseg_close(r1), 0);
	assert_rc(xrma_rseg_open(b, 4, s1.id, RW, 0, FIXTURE_TIMEOUT_MS, &r1), 0);
	assert_rc(xrma_rseg_open(b, 4, s2.id, RW, 0, FIXTURE_TIMEOUT_MS, &r2), 0);
	assert_rc(xrma_rseg_close(r2), 0);
	unsetenv("XRMA_SCI_ATT_ENTRIES");
	assert_rc(xrma_ctx_close(b), XRMA_EBUSY);
	assert_rc(xrma_rseg_close(r1), 0);
	assert_rc(xrma_ctx_close(b), 0);
	setenv("XRMA_SCI_ATT_ENTRIES", "2", 1);
	b = open_node(8);
	assert_rc(xrma_rseg_open(b, 4, s1.id, RW, 0, FIXTURE_TIMEOUT_MS, &r1), XRMA_ENOSPC);
	assert_non_null(strstr(xrma_error_detail(), "att_entries=2"));
	assert_int_equal(fixture_wait_importers(s1.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s2), 0);
	assert_rc(fixture_seg_close(&s1), 0);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
	setenv("XRMA_SCI_ATT_PAGE_SIZE", "3000", 1);
	assert_rc(xrma_ctx_open(&(struct xrma_ctx_attr){ .provider = "sci", .fabric = fabric,
							 .node_id = 4 }, &a), XRMA_ECONFIG);
}

static void test_sci_csr_registers(void **state)
{
	struct xrma_ctx *a, *b;
	struct fixture_events ev;
	struct fixture_seg s;
	struct xrma_rseg *r;
	uint32_t v = 0;

	(void)state;
	a = open_node(4);
	b = open_node(8);
	assert_rc(xrma_node_csr_read(a, 8, CSR_NODE_IDS, &v), 0);
	assert_int_equal(v, 8u << 16);
	assert_rc(xrma_node_csr_read(a, 8, CSR_ATT_ENTRIES, &v), 0);
	assert_int_equal(v, 65536);
	assert_rc(xrma_node_csr_read(a, 8, CSR_ATT_PAGE_SIZE, &v), 0);
	assert_int_equal(v, 4096);
	assert_rc(xrma_node_csr_read(a, 8, CSR_ENDPOINTS, &v), 0);
	assert_int_equal(v, 1);
	/* Scratch registers: written by one node, read by another. */
	assert_rc(xrma_node_csr_write(a, 8, CSR_SCRATCH + 8, 0xfeed), 0);
	assert_rc(xrma_node_csr_read(b, 8, CSR_SCRATCH + 8, &v), 0);
	assert_int_equal(v, 0xfeed);
	assert_rc(xrma_node_csr_write(a, 8, CSR_NODE_IDS, 1), XRMA_EACCES);
	assert_rc(xrma_node_csr_write(a, 8, 0x040, 1), XRMA_EACCES);
	assert_rc(xrma_node_csr_read(a, 8, 0x100, &v), XRMA_ERANGE);
	assert_rc(xrma_node_csr_read(a, 8, 0x006, &v), XRMA_EALIGN_OFFSET);
	assert_rc(xrma_node_csr_read(a, 12, 0, &v), XRMA_ENODEV);
	assert_rc(xrma_node_csr_read(a, 9, 0, &v), XRMA_ENODEV);
	assert_rc(xrma_node_csr_write(a, 8, CSR_STATE_SET, 0x80), XRMA_EINVAL);
	/* STATE.LINK_OFF is the link: set it and importers hear the link go down. */
	pair_import(b, a, 8, FIXTURE_PAGE, &s, &r);
	fixture_events_init(&ev);
	assert_rc(xrma_rseg_set_callback(r, fixture_events_cb, &ev), 0);
	assert_rc(xrma_node_csr_write(b, 8, CSR_STATE_SET, STATE_LINK_OFF), 0);
	assert_int_equal(fixture_events_wait(&ev, 1, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(ev.ev[0].type, XRMA_EVENT_NOT_OPERATIONAL);
	/* A node whose link is down answers only locally. */
	assert_rc(xrma_node_csr_read(a, 8, CSR_STATE_SET, &v), XRMA_EHOSTUNREACH);
	assert_rc(xrma_node_csr_read(b, 8, CSR_STATE_SET, &v), 0);
	assert_true(v & STATE_LINK_OFF);
	assert_rc(xrma_node_csr_write(b, 8, CSR_STATE_CLEAR, STATE_LINK_OFF), 0);
	assert_int_equal(fixture_events_wait(&ev, 2, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(ev.ev[1].type, XRMA_EVENT_OPERATIONAL);
	assert_rc(xrma_node_csr_read(a, 8, CSR_STATE_CLEAR, &v), 0);
	assert_false(v & STATE_LINK_OFF);
	assert_rc(xrma_rseg_set_callback(r, NULL, NULL), 0);
	fixture_events_destroy(&ev);
	pair_release(&s, r);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
}

/* Which of count writes of len bytes fail, as a bit mask, with the environment's faults. */
static uint64_t failure_pattern(unsigned int count, size_t len)
{
	struct xrma_ctx *a, *b;
	struct fixture_seg s, l;
	struct xrma_rseg *r;
	uint64_t mask = 0;

	a = open_node(4);
	b = open_node(8);
	pair_import(a, b, 4, 4 * FIXTURE_PAGE, &s, &r);
	assert_rc(fixture_seg_make(b, 4 * FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 3, &l), 0);
	for (unsigned int i = 0; i < count; i++) {
		int ret = transfer(b, XRMA_RMA_WRITE, &l, r, 0, len);

		assert_true(ret == 0 || ret == -XRMA_ETRANSFER);
		if (ret)
			mask |= 1ull << i;
	}
	assert_rc(fixture_seg_close(&l), 0);
	pair_release(&s, r);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
	return mask;
}

static void test_sci_faults_repeat_with_the_seed(void **state)
{
	uint64_t first, again, other;

	(void)state;
	setenv("XRMA_SCI_FAULT_RATE", "0.01", 1);
	setenv("XRMA_SCI_FAULT_SEED", "7", 1);
	first = failure_pattern(64, 512);
	again = failure_pattern(64, 512);
	setenv("XRMA_SCI_FAULT_SEED", "8", 1);
	other = failure_pattern(64, 512);
	/* 8 transactions a write at 1%: some fail, not all, and the seed decides which. */
	assert_true(first != 0 && first != UINT64_MAX);
	assert_int_equal(first, again);
	assert_true(first != other);
	/* A rate for another link leaves this one alone; a link rule wins over the default. */
	setenv("XRMA_SCI_FAULT_RATE", "12:1", 1);
	assert_int_equal(failure_pattern(8, 64), 0);
	setenv("XRMA_SCI_FAULT_RATE", "1,8-4:0", 1);
	assert_int_equal(failure_pattern(8, 64), 0);
	setenv("XRMA_SCI_FAULT_RATE", "0,4:1", 1);
	assert_int_equal(failure_pattern(8, 64), 0xff);
	setenv("XRMA_SCI_FAULT_RATE", "4:two", 1);
	assert_rc(xrma_ctx_open(&(struct xrma_ctx_attr){ .provider = "sci", .fabric = fabric,
							 .node_id = 4 }, &(struct xrma_ctx *){ NULL }),
		  XRMA_ECONFIG);
	assert_non_null(strstr(xrma_error_detail(), "fault_rate"));
}

static void test_sci_failed_transfers_move_only_what_went_before(void **state)
{
	struct xrma_rseg_errors e;
	struct xrma_ctx *a, *b;
	struct fixture_seg s, l;
	struct xrma_rseg *r;
	uint32_t count = 0, st = 0;
	size_t at;

	(void)state;
	setenv("XRMA_SCI_FAULT_RATE", "0.02", 1);
	setenv("XRMA_SCI_FAULT_SEED", "3", 1);
	a = open_node(4);
	b = open_node(8);
	pair_import(a, b, 4, 4 * FIXTURE_PAGE, &s, &r);
	assert_rc(fixture_seg_make(b, 4 * FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 9, &l), 0);
	assert_rc(xrma_node_csr_write(b, 8, CSR_ERROR_COUNT, 0), 0);
	/* Write the whole segment until one write fails: a prefix of whole transactions landed. */
	for (int i = 0;; i++) {
		fixture_fill(s.addr, s.len, 0);
		if (transfer(b, XRMA_RMA_WRITE, &l, r, 0, s.len) == -XRMA_ETRANSFER)
			break;
		assert_true(i < 100);
		assert_int_equal(fixture_pattern_check(s.addr, s.len, 9, 0), FIXTURE_MATCH);
	}
	at = fixture_pattern_check(s.addr, s.len, 9, 0);
	assert_true(at != FIXTURE_MATCH);
	assert_int_equal(at % 64, 0);
	assert_int_equal(fixture_check((char *)s.addr + at, s.len - at, 0), FIXTURE_MATCH);
	assert_rc(xrma_rseg_errors(r, 0, &e), 0);
	assert_int_equal(e.retriable, 1);
	assert_int_equal(e.fatal, 0);
	assert_rc(xrma_node_csr_read(a, 8, CSR_ERROR_COUNT, &count), 0);
	assert_int_equal(count, 1);
	assert_rc(xrma_node_csr_read(a, 8, CSR_STATE_SET, &st), 0);
	assert_true(st & STATE_ERROR_LOGGED);
	/* Reads that fail never pass for good data: the failed bytes are spoiled. */
	fixture_pattern(s.addr, s.len, 5, 0);
	for (int i = 0;; i++) {
		fixture_fill(l.addr, l.len, 0);
		if (transfer(b, XRMA_RMA_READ, &l, r, 0, s.len) == -XRMA_ETRANSFER)
			break;
		assert_true(i < 100);
		assert_int_equal(fixture_pattern_check(l.addr, l.len, 5, 0), FIXTURE_MATCH);
	}
	at = fixture_pattern_check(l.addr, l.len, 5, 0);
	assert_true(at != FIXTURE_MATCH);
	assert_int_equal(fixture_check((char *)l.addr + at, 64, 0xee), FIXTURE_MATCH);
	/* Every error was counted; fatal ones only with a fatal share. */
	assert_rc(xrma_rseg_errors(r, 0, &e), 0);
	assert_int_equal(e.retriable, 2);
	assert_rc(fixture_seg_close(&l), 0);
	pair_release(&s, r);
	assert_rc(xrma_ctx_close(b), 0);
	setenv("XRMA_SCI_FAULT_RATE", "1", 1);
	setenv("XRMA_SCI_FAULT_FATAL", "1", 1);
	b = open_node(8);
	pair_import(a, b, 4, FIXTURE_PAGE, &s, &r);
	assert_rc(xrma_rseg_atomic(r, 0, XRMA_ATOMIC_FETCH_ADD, 1, 0, &(uint64_t){ 0 }),
		  XRMA_ETRANSFER);
	assert_int_equal(*(uint64_t *)s.addr, 0);
	assert_rc(xrma_rseg_errors(r, XRMA_RSEG_ERRORS_MAPPED, &e), 0);
	assert_int_equal(e.fatal, 2);
	assert_int_equal(e.retriable, 0);
	pair_release(&s, r);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
}

static void test_sci_configured_link_fault_goes_down_and_up(void **state)
{
	struct xrma_ctx *a, *b;
	struct fixture_events ev;
	struct fixture_seg s, l;
	struct xrma_rseg *r;
	int failed = 0;

	(void)state;
	a = open_node(4);
	setenv("XRMA_SCI_FAULT_LINK", "4@10+100", 1);
	b = open_node(8);
	pair_import(a, b, 4, FIXTURE_PAGE, &s, &r);
	assert_rc(fixture_seg_make(b, FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 1, &l), 0);
	fixture_events_init(&ev);
	assert_rc(xrma_rseg_set_callback(r, fixture_events_cb, &ev), 0);
	/* 64-byte writes: ten go through, the eleventh finds the link down. */
	for (int i = 0; i < 10; i++)
		assert_rc(transfer(b, XRMA_RMA_WRITE, &l, r, 0, 64), 0);
	failed = transfer(b, XRMA_RMA_WRITE, &l, r, 0, 64);
	assert_int_equal(failed, -XRMA_ETRANSFER);
	assert_int_equal(fixture_events_wait(&ev, 2, FIXTURE_TIMEOUT_MS), 0);
	assert_int_equal(ev.ev[0].type, XRMA_EVENT_NOT_OPERATIONAL);
	assert_int_equal(ev.ev[1].type, XRMA_EVENT_OPERATIONAL);
	assert_rc(transfer(b, XRMA_RMA_WRITE, &l, r, 0, 64), 0);
	assert_rc(xrma_rseg_set_callback(r, NULL, NULL), 0);
	fixture_events_destroy(&ev);
	assert_rc(fixture_seg_close(&l), 0);
	pair_release(&s, r);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
}

#define CSR_LINK_DOWN 0x040

/* The first event of r within the deadline, its type (0 if none came). */
static enum xrma_event_type next_event(struct xrma_rseg *r, int timeout_ms)
{
	struct xrma_event ev = { 0 };

	return xrma_rseg_wait_event(r, timeout_ms, &ev) ? 0 : ev.type;
}

static void test_sci_configured_fault_of_one_link_spares_the_others(void **state)
{
	struct xrma_ctx *a, *b, *c;
	struct fixture_seg sa, sc, lb, lc;
	struct xrma_rseg *ba, *bc, *ca;
	struct xrma_event ev;
	uint32_t v;
	int failures = 0;

	(void)state;
	a = open_node(4);
	c = open_node(12);
	/* Node 8's link to node 4 goes down after 2 transactions of node 8's, for 300 ms. */
	setenv("XRMA_SCI_FAULT_LINK", "8-4@2+300", 1);
	b = open_node(8);
	unsetenv("XRMA_SCI_FAULT_LINK");
	pair_import(a, b, 4, FIXTURE_PAGE, &sa, &ba);
	pair_import(c, b, 12, FIXTURE_PAGE, &sc, &bc);
	assert_rc(xrma_rseg_open(c, 4, sa.id, RW, 0, FIXTURE_TIMEOUT_MS, &ca), 0);
	assert_rc(fixture_seg_make(b, FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 1, &lb), 0);
	assert_rc(fixture_seg_make(c, FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 1, &lc), 0);
	for (int i = 0; i < 4; i++)
		failures += transfer(b, XRMA_RMA_WRITE, &lb, ba, 0, 64) == -XRMA_ETRANSFER;
	assert_int_equal(failures, 2);
	/* Only 8-4 is down: 8 reaches 12, 12 reaches 4, and both ends list each other. */
	assert_rc(transfer(b, XRMA_RMA_WRITE, &lb, bc, 0, 64), 0);
	assert_rc(transfer(c, XRMA_RMA_WRITE, &lc, ca, 0, 64), 0);
	assert_int_equal(csr(a, 4, CSR_LINK_DOWN), 8);
	assert_int_equal(csr(b, 8, CSR_LINK_DOWN), 4);
	assert_int_equal(csr(c, 12, CSR_LINK_DOWN), 0);
	assert_rc(xrma_node_csr_read(b, 4, CSR_NODE_IDS, &v), XRMA_EHOSTUNREACH);
	assert_int_equal(csr(c, 4, CSR_NODE_IDS), 4u << 16);
	assert_rc(xrma_node_probe(b, 4, FIXTURE_TIMEOUT_MS), XRMA_EHOSTUNREACH);
	assert_rc(xrma_node_probe(c, 4, FIXTURE_TIMEOUT_MS), 0);
	/* The link's two ends hear of it, down then up; the third node does not. */
	assert_int_equal(next_event(ba, 5000), XRMA_EVENT_NOT_OPERATIONAL);
	assert_int_equal(next_event(ba, 5000), XRMA_EVENT_OPERATIONAL);
	assert_rc(xrma_seg_wait_event(sa.seg, 5000, &ev), 0);
	assert_int_equal(ev.type, XRMA_EVENT_CONNECT);
	do
		assert_rc(xrma_seg_wait_event(sa.seg, 5000, &ev), 0);
	while (ev.type == XRMA_EVENT_CONNECT);
	assert_int_equal(ev.type, XRMA_EVENT_NOT_OPERATIONAL);
	assert_int_equal(ev.node, 8);
	assert_int_equal(next_event(ca, 0), 0);
	assert_int_equal(next_event(bc, 0), 0);
	assert_rc(transfer(b, XRMA_RMA_WRITE, &lb, ba, 0, 64), 0);
	assert_int_equal(csr(a, 4, CSR_LINK_DOWN), 0);
	assert_rc(fixture_seg_close(&lc), 0);
	assert_rc(fixture_seg_close(&lb), 0);
	assert_rc(xrma_rseg_close(ca), 0);
	pair_release(&sc, bc);
	pair_release(&sa, ba);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(c), 0);
	assert_rc(xrma_ctx_close(a), 0);
	/* A link joins two different SCI nodes; raw_space has three words. */
	for (int i = 0; i < 4; i++) {
		static const char *const bad[][2] = {
			{ "XRMA_SCI_FAULT_LINK", "8-8@2+300" }, { "XRMA_SCI_FAULT_LINK", "8-5@2+300" },
			{ "XRMA_SCI_FAULT_LOST", "8-4@2" }, { "XRMA_SCI_RAW_SPACE", "some" },
		};

		setenv(bad[i][0], bad[i][1], 1);
		assert_rc(xrma_ctx_open(&(struct xrma_ctx_attr){ .provider = "sci", .fabric = fabric,
								 .node_id = 4 }, &a),
			  XRMA_ECONFIG);
		unsetenv(bad[i][0]);
	}
}

#define CSR_OUTSTANDING 0x024
#define CSR_OUTSTANDING_PEAK 0x028

/* Post len bytes at each of count offsets (stride len) from l to r, then drain: 0 or a code. */
static int post_all(struct xrma_ctx *ctx, struct fixture_seg *l, struct xrma_rseg *r, size_t len,
		    size_t count)
{
	struct xrma_dmaq *q;
	struct xrma_completion c;
	int ret = 0;

	assert_rc(xrma_dmaq_open(ctx, (uint32_t)count, 0, &q), 0);
	for (size_t i = 0; i < count; i++) {
		struct xrma_iov iov = { .seg = l->seg, .offset = i * len, .len = len };

		assert_rc(xrma_dmaq_post(q, XRMA_RMA_WRITE, &iov, 1, r, i * len, len, i, 0), 0);
	}
	for (size_t i = 0; i < count; i++) {
		assert_rc(xrma_dmaq_wait(q, &c, 10000), 0);
		assert_int_equal(c.cookie, i);
		if (c.status && !ret)
			ret = c.status;
	}
	assert_rc(xrma_dmaq_close(q), 0);
	return ret;
}

static void test_sci_posted_transfers_hold_at_most_64_transaction_ids(void **state)
{
	enum { BIG = 64 * 1024, SMALL = 64, MANY = 512 };
	struct xrma_ctx *a, *b;
	struct fixture_seg s, l;
	struct xrma_rseg *r;

	(void)state;
	a = open_node(4);
	b = open_node(8);
	pair_import(a, b, 4, MANY * SMALL > BIG ? MANY * SMALL : BIG, &s, &r);
	assert_rc(fixture_seg_make(b, BIG, XRMA_ACCESS_ALL, false, 5, &l), 0);
	/* 1024 transactions in one transfer: it moves in bursts holding all 64 ids. */
	assert_rc(xrma_node_csr_write(b, 8, CSR_OUTSTANDING_PEAK, 0), 0);
	assert_rc(post_all(b, &l, r, BIG, 1), 0);
	assert_int_equal(csr(b, 8, CSR_OUTSTANDING_PEAK), 64);
	assert_int_equal(csr(b, 8, CSR_OUTSTANDING), 0);
	assert_int_equal(fixture_pattern_check(s.addr, BIG, 5, 0), FIXTURE_MATCH);
	/* 100 bytes are two transactions. */
	assert_rc(xrma_node_csr_write(b, 8, CSR_OUTSTANDING_PEAK, 0), 0);
	assert_rc(post_all(b, &l, r, 100, 1), 0);
	assert_int_equal(csr(b, 8, CSR_OUTSTANDING_PEAK), 2);
	/* Many one-transaction writes posted at once: never more than 64 ids in use, every
	 * byte delivered; the poster waited for ids instead. */
	memset(s.addr, 0, MANY * SMALL);
	assert_rc(xrma_node_csr_write(b, 8, CSR_OUTSTANDING_PEAK, 0), 0);
	assert_rc(post_all(b, &l, r, SMALL, MANY), 0);
	assert_true(csr(b, 8, CSR_OUTSTANDING_PEAK) >= 1);
	assert_true(csr(b, 8, CSR_OUTSTANDING_PEAK) <= 64);
	assert_int_equal(csr(b, 8, CSR_OUTSTANDING), 0);
	assert_int_equal(fixture_pattern_check(s.addr, MANY * SMALL, 5, 0), FIXTURE_MATCH);
	/* OUTSTANDING itself is read-only. */
	assert_rc(xrma_node_csr_write(b, 8, CSR_OUTSTANDING, 0), XRMA_EACCES);
	assert_rc(fixture_seg_close(&l), 0);
	pair_release(&s, r);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
}

/* Child: node 12 exports a segment and reports its id, then waits to be killed. */
static int victim_main(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	struct fixture_seg s;
	uint64_t v;

	(void)arg;
	PROC_CHECK_RC(xrma_ctx_open(&(struct xrma_ctx_attr){ .provider = "sci",
							      .node_id = XRMA_NODE_ANY }, &ctx), 0);
	PROC_CHECK_RC(fixture_seg_make(ctx, FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 0, &s), 0);
	PROC_CHECK(proc_send(sock, s.id) == 0);
	(void)proc_recv(sock, &v, 20000);
	return 1;   /* reached only if nobody killed us */
}

static void test_sci_configured_node_loss_kills_the_node(void **state)
{
	struct xrma_ctx *b;
	struct fixture_seg l;
	struct xrma_rseg *r;
	struct proc victim;
	enum xrma_rseg_state st;
	uint64_t id;
	int ret = 0;

	(void)state;
	assert_int_equal(proc_spawn(&victim, fabric, 12, "victim", NULL), 0);
	assert_int_equal(proc_recv(victim.sock, &id, 10000), 0);
	setenv("XRMA_SCI_FAULT_LOST", "12@3", 1);
	b = open_node(8);
	assert_rc(xrma_rseg_open(b, 12, id, RW, 0, FIXTURE_TIMEOUT_MS, &r), 0);
	assert_rc(fixture_seg_make(b, FIXTURE_PAGE, XRMA_ACCESS_ALL, false, 1, &l), 0);
	for (int i = 0; i < 3; i++)
		assert_rc(transfer(b, XRMA_RMA_WRITE, &l, r, 0, 64), 0);
	ret = transfer(b, XRMA_RMA_WRITE, &l, r, 0, 64);
	assert_true(ret == -XRMA_ELOST);
	assert_int_equal(proc_join(&victim, 10000), 128 + SIGKILL);
	assert_rc(xrma_rseg_wait_event(r, 5000, &(struct xrma_event){ 0 }), 0);
	assert_rc(xrma_rseg_state(r, &st), 0);
	assert_int_equal(st, XRMA_RSEG_LOST);
	assert_rc(xrma_node_probe(b, 12, FIXTURE_TIMEOUT_MS), XRMA_ENODEV);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(fixture_seg_close(&l), 0);
	assert_rc(xrma_ctx_close(b), 0);
}

/* Child: a node that stays until the parent's word, then leaves in order. */
static int csr_node_main(int sock, const char *arg)
{
	struct xrma_ctx *ctx;
	uint64_t v;

	(void)arg;
	PROC_CHECK_RC(xrma_ctx_open(&(struct xrma_ctx_attr){ .provider = "sci",
							      .node_id = XRMA_NODE_ANY }, &ctx), 0);
	PROC_CHECK(proc_send(sock, 1) == 0);
	PROC_CHECK(proc_recv(sock, &v, 20000) == 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* Our mappings of files in the host fabric's runtime directory (node directories among them). */
static size_t runtime_mappings(void)
{
	const char *dir = getenv("XRMA_HOST_RUNTIME_DIR");
	FILE *maps = fopen("/proc/self/maps", "re");
	char line[512];
	size_t n = 0;

	assert_non_null(maps);
	if (!dir || !*dir)
		dir = "/dev/shm";
	while (fgets(line, sizeof(line), maps))
		n += strstr(line, dir) != NULL;
	fclose(maps);
	return n;
}

static void test_sci_csr_reader_lets_go_of_departed_nodes(void **state)
{
	struct xrma_ctx *a;
	size_t first = 0;

	(void)state;
	a = open_node(8);
	for (int round = 0; round < 4; round++) {
		struct proc node;
		uint64_t v;

		/* A new process takes node 12 each round; we read its CSRs. */
		assert_int_equal(proc_spawn(&node, fabric, 12, "csr_node", NULL), 0);
		assert_int_equal(proc_recv(node.sock, &v, 10000), 0);
		assert_int_equal(csr(a, 12, CSR_NODE_IDS), 12u << 16);
		assert_rc(xrma_node_csr_write(a, 12, CSR_SCRATCH, (uint32_t)round), 0);
		assert_int_equal(csr(a, 12, CSR_SCRATCH), (uint32_t)round);
		assert_int_equal(proc_send(node.sock, 1), 0);
		assert_int_equal(proc_join(&node, 10000), 0);
		if (!round)
			first = runtime_mappings();
		else
			assert_true(runtime_mappings() <= first);
	}
	assert_rc(xrma_ctx_close(a), 0);
}

int main(int argc, char **argv)
{
	static const struct proc_role roles[] = {
		{ "victim", victim_main }, { "csr_node", csr_node_main }, { NULL, NULL }
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_sci_node_ids_are_multiples_of_four, sci_test_up),
		cmocka_unit_test_setup(test_sci_global_address_is_node_and_att_offset, sci_test_up),
		cmocka_unit_test_setup(test_sci_att_limits_exports_and_imports, sci_test_up),
		cmocka_unit_test_setup(test_sci_csr_registers, sci_test_up),
		cmocka_unit_test_setup(test_sci_faults_repeat_with_the_seed, sci_test_up),
		cmocka_unit_test_setup(test_sci_failed_transfers_move_only_what_went_before, sci_test_up),
		cmocka_unit_test_setup(test_sci_configured_link_fault_goes_down_and_up, sci_test_up),
		cmocka_unit_test_setup(test_sci_configured_fault_of_one_link_spares_the_others, sci_test_up),
		cmocka_unit_test_setup(test_sci_posted_transfers_hold_at_most_64_transaction_ids,
				       sci_test_up),
		cmocka_unit_test_setup(test_sci_configured_node_loss_kills_the_node, sci_test_up),
		cmocka_unit_test_setup(test_sci_csr_reader_lets_go_of_departed_nodes, sci_test_up),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	return cmocka_run_group_tests_name("sci", tests, NULL, NULL);
}
