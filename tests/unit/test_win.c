/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_win.c: registered address spaces (include/xrma/win.h): fixed
 * and automatic placement, overlap, page alignment, range and rights errors,
 * removal rules (no cutting, not empty), holds over one or several adjacent
 * windows and over holes, deferred deletion while held, and threads adding and
 * removing windows in one space at once.
 */
#include "tests/helpers/fixture.h"

#include <stdlib.h>
#include <string.h>

#define P FIXTURE_PAGE
#define RDWR (XRMA_WIN_PROT_READ | XRMA_WIN_PROT_WRITE)

static struct fixture fx;

static int win_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "win", 1);
}

static int win_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

/* A window space and two local segments (A: 8 pages, B: 4 pages). */
struct space {
	struct xrma_win *win;
	struct fixture_seg a, b;
};

static void space_open(struct space *s)
{
	assert_rc(xrma_win_open(fx.ctx[0], 0, &s->win), 0);
	assert_rc(fixture_seg_make(fx.ctx[0], 8 * P, XRMA_ACCESS_ALL, false, 1, &s->a), 0);
	assert_rc(fixture_seg_make(fx.ctx[0], 4 * P, XRMA_ACCESS_ALL, false, 2, &s->b), 0);
}

static void space_close(struct space *s)
{
	assert_rc(xrma_win_close(s->win), 0);
	assert_rc(fixture_seg_close(&s->a), 0);
	assert_rc(fixture_seg_close(&s->b), 0);
}

static void assert_counts(struct xrma_win *win, size_t live, size_t deferred)
{
	size_t l = 99, d = 99;

	assert_rc(xrma_win_count(win, &l, &d), 0);
	assert_int_equal(l, live);
	assert_int_equal(d, deferred);
}

static uint64_t add_fixed(struct space *s, struct fixture_seg *seg, size_t seg_offset, size_t len,
			  uint64_t offset, uint32_t prot)
{
	uint64_t placed = 0;

	assert_rc(xrma_win_add(s->win, seg->seg, seg_offset, len, offset, prot, XRMA_WIN_FIXED,
			       &placed), 0);
	assert_int_equal(placed, offset);
	return placed;
}

static void test_win_open_empty_counts_zero(void **state)
{
	struct xrma_win *win = NULL;

	(void)state;
	assert_rc(xrma_win_open(fx.ctx[0], 0, &win), 0);
	assert_int_equal(fixture_count(fx.ctx[0]), 1);
	assert_counts(win, 0, 0);
	assert_rc(xrma_win_close(win), 0);
	assert_rc(xrma_win_close(win), XRMA_EHANDLE);
}

static void test_win_open_bad_args_return_errors(void **state)
{
	struct xrma_win *win = NULL;

	(void)state;
	assert_rc(xrma_win_open(fx.ctx[0], 1, &win), XRMA_EINVAL);
	assert_rc(xrma_win_open(fx.ctx[0], 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_win_open(FIXTURE_FORGED(struct xrma_ctx), 0, &win), XRMA_EHANDLE);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_win_add_fixed_places_at_offset(void **state)
{
	struct space s;
	struct xrma_iov iov;
	struct xrma_win_hold *hold;
	size_t count;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, 2 * P, 0x100000, RDWR);
	assert_counts(s.win, 1, 0);
	assert_rc(xrma_win_hold(s.win, 0x100000, 2 * P, XRMA_WIN_PROT_READ, &iov, 1, &count, &hold), 0);
	assert_int_equal(count, 1);
	assert_ptr_equal(iov.seg, s.a.seg);
	assert_int_equal(iov.offset, 0);
	assert_int_equal(iov.len, 2 * P);
	assert_rc(xrma_win_release(hold), 0);
	space_close(&s);
}

static void test_win_add_auto_places_aligned_disjoint(void **state)
{
	struct space s;
	uint64_t p1 = 1, p2 = 1, p3 = 1;

	(void)state;
	space_open(&s);
	assert_rc(xrma_win_add(s.win, s.a.seg, 0, 4 * P, 0, RDWR, 0, &p1), 0);
	assert_rc(xrma_win_add(s.win, s.b.seg, 0, 4 * P, 0, RDWR, 0, &p2), 0);
	assert_rc(xrma_win_add(s.win, s.a.seg, 4 * P, 4 * P, 0, RDWR, 0, &p3), 0);
	assert_int_equal(p1 % P, 0);
	assert_int_equal(p2 % P, 0);
	assert_int_equal(p3 % P, 0);
	assert_true(p1 + 4 * P <= p2 || p2 + 4 * P <= p1);
	assert_true(p1 + 4 * P <= p3 || p3 + 4 * P <= p1);
	assert_true(p2 + 4 * P <= p3 || p3 + 4 * P <= p2);
	assert_true(p1 + 4 * P <= XRMA_WIN_OFFSET_LIMIT);
	assert_counts(s.win, 3, 0);
	space_close(&s);
}

static void test_win_add_auto_at_or_above_hint_avoids_taken(void **state)
{
	struct space s;
	uint64_t placed = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, 4 * P, 0x4000000, RDWR);
	/* The hint's range is taken: the window goes elsewhere, still at or above it. */
	assert_rc(xrma_win_add(s.win, s.b.seg, 0, 2 * P, 0x4000000, RDWR, 0, &placed), 0);
	assert_true(placed >= 0x4000000);
	assert_int_equal(placed % P, 0);
	assert_true(placed >= 0x4000000 + 4 * P);
	assert_rc(xrma_win_add(s.win, s.b.seg, 2 * P, 2 * P, 0x8000000, RDWR, 0, &placed), 0);
	assert_true(placed >= 0x8000000);
	assert_counts(s.win, 3, 0);
	space_close(&s);
}

static void test_win_add_fixed_overlap_returns_eaddrinuse(void **state)
{
	struct space s;
	uint64_t placed = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, 2 * P, 0x10000, RDWR);
	assert_rc(xrma_win_add(s.win, s.b.seg, 0, 2 * P, 0x11000, RDWR, XRMA_WIN_FIXED, &placed),
		  XRMA_EADDRINUSE);
	assert_rc(xrma_win_add(s.win, s.b.seg, 0, 2 * P, 0xf000, RDWR, XRMA_WIN_FIXED, &placed),
		  XRMA_EADDRINUSE);
	assert_rc(xrma_win_add(s.win, s.b.seg, 0, 4 * P, 0xf000, RDWR, XRMA_WIN_FIXED, &placed),
		  XRMA_EADDRINUSE);
	assert_counts(s.win, 1, 0);
	/* Touching is not overlapping. */
	add_fixed(&s, &s.b, 0, P, 0x12000, RDWR);
	add_fixed(&s, &s.b, P, P, 0xf000, RDWR);
	assert_counts(s.win, 3, 0);
	space_close(&s);
}

static void test_win_add_misaligned_offset_returns_ealign_offset(void **state)
{
	struct space s;
	uint64_t placed = 0;

	(void)state;
	space_open(&s);
	assert_rc(xrma_win_add(s.win, s.a.seg, 0, P, 0x10100, RDWR, XRMA_WIN_FIXED, &placed),
		  XRMA_EALIGN_OFFSET);
	assert_rc(xrma_win_add(s.win, s.a.seg, 100, P, 0x10000, RDWR, XRMA_WIN_FIXED, &placed),
		  XRMA_EALIGN_OFFSET);
	assert_rc(xrma_win_add(s.win, s.a.seg, 100, P, 0, RDWR, 0, &placed), XRMA_EALIGN_OFFSET);
	assert_counts(s.win, 0, 0);
	space_close(&s);
}

static void test_win_add_len_not_page_multiple_returns_ealign_size(void **state)
{
	struct space s;
	uint64_t placed = 0;

	(void)state;
	space_open(&s);
	assert_rc(xrma_win_add(s.win, s.a.seg, 0, P + 1, 0x10000, RDWR, XRMA_WIN_FIXED, &placed),
		  XRMA_EALIGN_SIZE);
	assert_rc(xrma_win_add(s.win, s.a.seg, 0, 100, 0, RDWR, 0, &placed), XRMA_EALIGN_SIZE);
	assert_counts(s.win, 0, 0);
	space_close(&s);
}

static void test_win_add_bad_args_return_einval(void **state)
{
	struct space s;
	uint64_t placed = 0;

	(void)state;
	space_open(&s);
	assert_rc(xrma_win_add(s.win, s.a.seg, 0, 0, 0x10000, RDWR, XRMA_WIN_FIXED, &placed), XRMA_EINVAL);
	assert_rc(xrma_win_add(s.win, s.a.seg, 0, P, 0x10000, RDWR | (1u << 4), XRMA_WIN_FIXED, &placed),
		  XRMA_EINVAL);
	assert_rc(xrma_win_add(s.win, s.a.seg, 0, P, 0x10000, RDWR, XRMA_WIN_FIXED | (1u << 5), &placed),
		  XRMA_EINVAL);
	assert_rc(xrma_win_add(s.win, FIXTURE_FORGED(struct xrma_seg), 0, P, 0x10000, RDWR,
			       XRMA_WIN_FIXED, &placed), XRMA_EHANDLE);
	assert_rc(xrma_win_add(FIXTURE_FORGED(struct xrma_win), s.a.seg, 0, P, 0x10000, RDWR,
			       XRMA_WIN_FIXED, &placed), XRMA_EHANDLE);
	assert_rc(xrma_win_add((struct xrma_win *)s.a.seg, s.a.seg, 0, P, 0x10000, RDWR,
			       XRMA_WIN_FIXED, &placed), XRMA_EHANDLE);
	assert_counts(s.win, 0, 0);
	/* The failed adds took no reference on the segment. */
	assert_rc(xrma_win_close(s.win), 0);
	assert_rc(fixture_seg_close(&s.a), 0);
	assert_rc(fixture_seg_close(&s.b), 0);
}

static void test_win_add_outside_seg_or_limit_returns_erange(void **state)
{
	struct space s;
	uint64_t placed = 0;

	(void)state;
	space_open(&s);
	assert_rc(xrma_win_add(s.win, s.b.seg, 2 * P, 3 * P, 0x10000, RDWR, XRMA_WIN_FIXED, &placed),
		  XRMA_ERANGE);
	assert_rc(xrma_win_add(s.win, s.b.seg, 4 * P, P, 0x10000, RDWR, XRMA_WIN_FIXED, &placed),
		  XRMA_ERANGE);
	assert_rc(xrma_win_add(s.win, s.b.seg, 0, 2 * P, XRMA_WIN_OFFSET_LIMIT - P, RDWR, XRMA_WIN_FIXED,
			       &placed), XRMA_ERANGE);
	assert_rc(xrma_win_add(s.win, s.b.seg, 0, P, XRMA_WIN_OFFSET_LIMIT, RDWR, XRMA_WIN_FIXED,
			       &placed), XRMA_ERANGE);
	assert_counts(s.win, 0, 0);
	/* Ending exactly at the limit is allowed. */
	add_fixed(&s, &s.b, 0, P, XRMA_WIN_OFFSET_LIMIT - P, RDWR);
	assert_counts(s.win, 1, 0);
	space_close(&s);
}

static void test_win_add_prot_beyond_seg_rights_returns_eacces(void **state)
{
	struct xrma_win *win;
	struct fixture_seg ro, wo;
	uint64_t placed = 0;

	(void)state;
	assert_rc(xrma_win_open(fx.ctx[0], 0, &win), 0);
	assert_rc(fixture_seg_make(fx.ctx[0], 2 * P, XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_REMOTE_READ,
				   false, 1, &ro), 0);
	assert_rc(fixture_seg_make(fx.ctx[0], 2 * P, XRMA_ACCESS_LOCAL_WRITE, false, 0, &wo), 0);
	assert_rc(xrma_win_add(win, ro.seg, 0, P, 0x10000, XRMA_WIN_PROT_WRITE, XRMA_WIN_FIXED, &placed),
		  XRMA_EACCES);
	assert_rc(xrma_win_add(win, ro.seg, 0, P, 0x10000, RDWR, XRMA_WIN_FIXED, &placed), XRMA_EACCES);
	assert_rc(xrma_win_add(win, wo.seg, 0, P, 0x10000, XRMA_WIN_PROT_READ, XRMA_WIN_FIXED, &placed),
		  XRMA_EACCES);
	assert_counts(win, 0, 0);
	assert_rc(xrma_win_add(win, ro.seg, 0, P, 0x10000, XRMA_WIN_PROT_READ, XRMA_WIN_FIXED, &placed), 0);
	assert_rc(xrma_win_add(win, wo.seg, 0, P, 0x20000, XRMA_WIN_PROT_WRITE, XRMA_WIN_FIXED, &placed), 0);
	assert_counts(win, 2, 0);
	assert_rc(xrma_win_close(win), 0);
	assert_rc(fixture_seg_close(&ro), 0);
	assert_rc(fixture_seg_close(&wo), 0);
}

static void test_win_add_unaligned_user_memory_returns_ealign_offset(void **state)
{
	struct xrma_seg_attr attr = {
		.len = 2 * P, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL, .flags = XRMA_SEG_PRIVATE,
	};
	struct xrma_win *win;
	struct xrma_seg *seg = NULL;
	uint64_t placed = 0;
	uint8_t *buf;

	(void)state;
	buf = aligned_alloc(P, 4 * P);
	assert_non_null(buf);
	attr.addr = buf + 64;
	if (xrma_seg_open(fx.ctx[0], &attr, &seg) != 0) {
		free(buf);
		skip();   /* the provider only registers page-aligned memory */
	}
	assert_rc(xrma_win_open(fx.ctx[0], 0, &win), 0);
	assert_rc(xrma_win_add(win, seg, 0, P, 0x10000, RDWR, XRMA_WIN_FIXED, &placed),
		  XRMA_EALIGN_OFFSET);
	assert_counts(win, 0, 0);
	assert_rc(xrma_win_close(win), 0);
	assert_rc(xrma_seg_close(seg), 0);
	free(buf);
}

static void test_win_add_keeps_seg_open_until_removed(void **state)
{
	struct space s;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.b, 0, 2 * P, 0x10000, RDWR);
	assert_rc(xrma_seg_close(s.b.seg), XRMA_EBUSY);
	assert_int_equal(fixture_pattern_check(s.b.addr, s.b.len, 2, 0), FIXTURE_MATCH);
	assert_rc(xrma_win_remove(s.win, 0x10000, 2 * P), 0);
	space_close(&s);
}

static void test_win_remove_exact_range_removes(void **state)
{
	struct space s;
	struct xrma_win_hold *hold;
	struct xrma_iov iov;
	size_t count;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, 2 * P, 0x10000, RDWR);
	assert_rc(xrma_win_remove(s.win, 0x10000, 2 * P), 0);
	assert_counts(s.win, 0, 0);
	assert_rc(xrma_win_hold(s.win, 0x10000, P, XRMA_WIN_PROT_READ, &iov, 1, &count, &hold), XRMA_ENXIO);
	/* The range is free again. */
	add_fixed(&s, &s.b, 0, 2 * P, 0x10000, RDWR);
	space_close(&s);
}

static void test_win_remove_range_over_two_windows_removes_both(void **state)
{
	struct space s;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, 2 * P, 0x10000, RDWR);
	add_fixed(&s, &s.b, 0, P, 0x14000, RDWR);
	add_fixed(&s, &s.b, P, P, 0x20000, RDWR);
	/* The range covers the first two wholly (and a hole); the third stays. */
	assert_rc(xrma_win_remove(s.win, 0x10000, 0x8000), 0);
	assert_counts(s.win, 1, 0);
	space_close(&s);
}

static void test_win_remove_cutting_window_returns_einval(void **state)
{
	struct space s;
	struct xrma_win_hold *hold;
	struct xrma_iov iov;
	size_t count;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, 4 * P, 0x10000, RDWR);
	assert_rc(xrma_win_remove(s.win, 0x10000, 2 * P), XRMA_EINVAL);
	assert_rc(xrma_win_remove(s.win, 0xf000, 2 * P), XRMA_EINVAL);
	assert_rc(xrma_win_remove(s.win, 0x12000, 4 * P), XRMA_EINVAL);
	assert_counts(s.win, 1, 0);
	/* The window is intact. */
	assert_rc(xrma_win_hold(s.win, 0x10000, 4 * P, RDWR, &iov, 1, &count, &hold), 0);
	assert_int_equal(iov.len, 4 * P);
	assert_rc(xrma_win_release(hold), 0);
	space_close(&s);
}

static void test_win_remove_empty_range_returns_enxio(void **state)
{
	struct space s;

	(void)state;
	space_open(&s);
	assert_rc(xrma_win_remove(s.win, 0x10000, P), XRMA_ENXIO);
	add_fixed(&s, &s.a, 0, P, 0x10000, RDWR);
	assert_rc(xrma_win_remove(s.win, 0x11000, 4 * P), XRMA_ENXIO);
	assert_counts(s.win, 1, 0);
	space_close(&s);
}

/* can_remove answers what remove would, and removes nothing. */
static void test_win_can_remove_answers_like_remove_changes_nothing(void **state)
{
	struct space s;

	(void)state;
	space_open(&s);
	assert_rc(xrma_win_can_remove(s.win, 0x10000, P), XRMA_ENXIO);
	add_fixed(&s, &s.a, 0, 2 * P, 0x10000, RDWR);
	assert_rc(xrma_win_can_remove(s.win, 0x10000, P), XRMA_EINVAL);
	assert_rc(xrma_win_can_remove(s.win, 0x20000, P), XRMA_ENXIO);
	assert_rc(xrma_win_can_remove(s.win, 0x10000, 0), XRMA_EINVAL);
	assert_rc(xrma_win_can_remove(s.win, UINT64_MAX - P + 1, 2 * P), XRMA_EINVAL);
	assert_rc(xrma_win_can_remove(NULL, 0x10000, 2 * P), XRMA_EHANDLE);
	assert_rc(xrma_win_can_remove(s.win, 0xf000, 4 * P), 0);
	assert_counts(s.win, 1, 0);
	assert_rc(xrma_win_remove(s.win, 0xf000, 4 * P), 0);
	assert_counts(s.win, 0, 0);
	assert_rc(xrma_win_can_remove(s.win, 0xf000, 4 * P), XRMA_ENXIO);
	space_close(&s);
}

static void test_win_hold_single_window_describes_iov(void **state)
{
	struct space s;
	struct xrma_win_hold *hold = NULL;
	struct xrma_iov iov[2];
	size_t count = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 2 * P, 4 * P, 0x20000, RDWR);
	memset(iov, 0, sizeof(iov));
	assert_rc(xrma_win_hold(s.win, 0x21000, 2 * P, XRMA_WIN_PROT_READ, iov, 2, &count, &hold), 0);
	assert_non_null(hold);
	assert_int_equal(count, 1);
	assert_ptr_equal(iov[0].seg, s.a.seg);
	assert_int_equal(iov[0].offset, 3 * P);
	assert_int_equal(iov[0].len, 2 * P);
	assert_int_equal(fixture_count(fx.ctx[0]), 4);   /* win, two segs, hold */
	assert_rc(xrma_win_release(hold), 0);
	space_close(&s);
}

static void test_win_hold_spanning_adjacent_windows_two_entries(void **state)
{
	struct space s;
	struct xrma_win_hold *hold = NULL;
	struct xrma_iov iov[4];
	size_t count = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, 2 * P, 0x30000, RDWR);
	add_fixed(&s, &s.b, P, 2 * P, 0x32000, RDWR);
	memset(iov, 0, sizeof(iov));
	assert_rc(xrma_win_hold(s.win, 0x31000, 2 * P, RDWR, iov, 4, &count, &hold), 0);
	assert_int_equal(count, 2);
	assert_ptr_equal(iov[0].seg, s.a.seg);
	assert_int_equal(iov[0].offset, P);
	assert_int_equal(iov[0].len, P);
	assert_ptr_equal(iov[1].seg, s.b.seg);
	assert_int_equal(iov[1].offset, P);
	assert_int_equal(iov[1].len, P);
	assert_null(iov[2].seg);
	assert_rc(xrma_win_release(hold), 0);
	space_close(&s);
}

static void test_win_hold_over_hole_returns_enxio(void **state)
{
	struct space s;
	struct xrma_win_hold *hold = NULL;
	struct xrma_iov iov[4];
	size_t count = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, P, 0x40000, RDWR);
	add_fixed(&s, &s.b, 0, P, 0x42000, RDWR);
	assert_rc(xrma_win_hold(s.win, 0x40000, 3 * P, XRMA_WIN_PROT_READ, iov, 4, &count, &hold),
		  XRMA_ENXIO);
	assert_rc(xrma_win_hold(s.win, 0x42000, 2 * P, XRMA_WIN_PROT_READ, iov, 4, &count, &hold),
		  XRMA_ENXIO);
	assert_rc(xrma_win_hold(s.win, 0x41000, P, XRMA_WIN_PROT_READ, iov, 4, &count, &hold), XRMA_ENXIO);
	assert_null(hold);
	/* No hold was left: removal is immediate, not deferred. */
	assert_rc(xrma_win_remove(s.win, 0x40000, 3 * P), 0);
	assert_counts(s.win, 0, 0);
	space_close(&s);
}

static void test_win_hold_prot_forbidden_returns_eacces(void **state)
{
	struct space s;
	struct xrma_win_hold *hold = NULL;
	struct xrma_iov iov[4];
	size_t count = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, P, 0x50000, XRMA_WIN_PROT_READ);
	add_fixed(&s, &s.b, 0, P, 0x51000, RDWR);
	assert_rc(xrma_win_hold(s.win, 0x50000, P, XRMA_WIN_PROT_WRITE, iov, 4, &count, &hold),
		  XRMA_EACCES);
	/* One window of a span forbids it. */
	assert_rc(xrma_win_hold(s.win, 0x50000, 2 * P, XRMA_WIN_PROT_WRITE, iov, 4, &count, &hold),
		  XRMA_EACCES);
	assert_null(hold);
	assert_rc(xrma_win_hold(s.win, 0x50000, 2 * P, XRMA_WIN_PROT_READ, iov, 4, &count, &hold), 0);
	assert_int_equal(count, 2);
	assert_rc(xrma_win_release(hold), 0);
	space_close(&s);
}

static void test_win_hold_vector_too_small_returns_enospc(void **state)
{
	struct space s;
	struct xrma_win_hold *hold = NULL;
	struct xrma_iov iov[1];
	size_t count = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, P, 0x60000, RDWR);
	add_fixed(&s, &s.b, 0, P, 0x61000, RDWR);
	assert_rc(xrma_win_hold(s.win, 0x60000, 2 * P, RDWR, iov, 1, &count, &hold), XRMA_ENOSPC);
	assert_null(hold);
	assert_rc(xrma_win_remove(s.win, 0x60000, 2 * P), 0);
	assert_counts(s.win, 0, 0);
	space_close(&s);
}

static void test_win_hold_bad_args_return_errors(void **state)
{
	struct space s;
	struct xrma_win_hold *hold = NULL;
	struct xrma_iov iov[2];
	size_t count = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, P, 0x70000, RDWR);
	assert_rc(xrma_win_hold(s.win, 0x70000, P, RDWR, NULL, 2, &count, &hold), XRMA_EINVAL);
	assert_rc(xrma_win_hold(s.win, 0x70000, P, RDWR, iov, 2, NULL, &hold), XRMA_EINVAL);
	assert_rc(xrma_win_hold(s.win, 0x70000, P, RDWR, iov, 2, &count, NULL), XRMA_EINVAL);
	assert_rc(xrma_win_hold(s.win, 0x70000, P, 1u << 6, iov, 2, &count, &hold), XRMA_EINVAL);
	assert_rc(xrma_win_hold(FIXTURE_FORGED(struct xrma_win), 0x70000, P, RDWR, iov, 2, &count, &hold),
		  XRMA_EHANDLE);
	assert_null(hold);
	assert_rc(xrma_win_remove(s.win, 0x70000, P), 0);
	assert_counts(s.win, 0, 0);
	space_close(&s);
}

static void test_win_remove_while_held_deferred_until_release(void **state)
{
	struct space s;
	struct xrma_win_hold *hold = NULL, *h2 = NULL;
	struct xrma_iov iov[2];
	uint64_t placed = 0;
	size_t count = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, 2 * P, 0x80000, RDWR);
	assert_rc(xrma_win_hold(s.win, 0x80000, P, XRMA_WIN_PROT_READ, iov, 2, &count, &hold), 0);
	assert_rc(xrma_win_remove(s.win, 0x80000, 2 * P), 0);
	assert_counts(s.win, 0, 1);
	/* Not usable for new work ... */
	assert_rc(xrma_win_hold(s.win, 0x80000, P, XRMA_WIN_PROT_READ, iov, 2, &count, &h2), XRMA_ENXIO);
	assert_rc(xrma_win_remove(s.win, 0x80000, 2 * P), XRMA_ENXIO);
	/* ... and not reusable while held ... */
	assert_rc(xrma_win_add(s.win, s.b.seg, 0, P, 0x81000, RDWR, XRMA_WIN_FIXED, &placed),
		  XRMA_EADDRINUSE);
	/* ... and the segment under it stays open. */
	assert_rc(xrma_seg_close(s.a.seg), XRMA_EBUSY);
	assert_rc(xrma_win_release(hold), 0);
	assert_counts(s.win, 0, 0);
	add_fixed(&s, &s.b, 0, P, 0x81000, RDWR);
	assert_rc(xrma_win_close(s.win), 0);
	assert_rc(fixture_seg_close(&s.a), 0);
	assert_rc(fixture_seg_close(&s.b), 0);
}

static void test_win_close_with_hold_returns_ebusy(void **state)
{
	struct space s;
	struct xrma_win_hold *hold = NULL;
	struct xrma_iov iov[2];
	size_t count = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, 2 * P, 0x90000, RDWR);
	assert_rc(xrma_win_hold(s.win, 0x90000, 2 * P, RDWR, iov, 2, &count, &hold), 0);
	assert_rc(xrma_win_close(s.win), XRMA_EBUSY);
	assert_counts(s.win, 1, 0);
	assert_rc(xrma_win_release(hold), 0);
	space_close(&s);
}

static void test_win_close_removes_windows_releases_segs(void **state)
{
	struct space s;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, 8 * P, 0x100000, RDWR);
	add_fixed(&s, &s.b, 0, 4 * P, 0x200000, XRMA_WIN_PROT_READ);
	assert_rc(xrma_win_close(s.win), 0);
	assert_rc(fixture_seg_close(&s.a), 0);
	assert_rc(fixture_seg_close(&s.b), 0);
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

static void test_win_release_twice_returns_ehandle(void **state)
{
	struct space s;
	struct xrma_win_hold *hold = NULL;
	struct xrma_iov iov[2];
	size_t count = 0;

	(void)state;
	space_open(&s);
	add_fixed(&s, &s.a, 0, P, 0xa0000, RDWR);
	assert_rc(xrma_win_hold(s.win, 0xa0000, P, RDWR, iov, 2, &count, &hold), 0);
	assert_rc(xrma_win_release(hold), 0);
	assert_rc(xrma_win_release(hold), XRMA_EHANDLE);
	assert_rc(xrma_win_release(FIXTURE_FORGED(struct xrma_win_hold)), XRMA_EHANDLE);
	assert_rc(xrma_win_release((struct xrma_win_hold *)s.win), XRMA_EHANDLE);
	assert_null_handle_rc(xrma_win_release(NULL));
	space_close(&s);
}

static void test_win_calls_bad_handle_return_ehandle(void **state)
{
	struct xrma_win *win;
	size_t live, deferred;

	(void)state;
	assert_rc(xrma_win_open(fx.ctx[0], 0, &win), 0);
	assert_rc(xrma_win_close(win), 0);
	assert_rc(xrma_win_count(win, &live, &deferred), XRMA_EHANDLE);
	assert_rc(xrma_win_remove(win, 0, P), XRMA_EHANDLE);
	assert_rc(xrma_win_close(win), XRMA_EHANDLE);
	assert_rc(xrma_win_count(FIXTURE_FORGED(struct xrma_win), &live, &deferred), XRMA_EHANDLE);
	assert_rc(xrma_win_close((struct xrma_win *)fx.ctx[0]), XRMA_EHANDLE);
	assert_null_handle_rc(xrma_win_close(NULL));
}

#define WIN_THREADS 4
#define WIN_ROUNDS 50

struct win_worker {
	struct xrma_win *win;
	struct xrma_seg *seg;
	struct fixture_barrier *barrier;
	int rc;
	int step;
};

static void *win_worker(void *arg)
{
	struct win_worker *w = arg;
	struct xrma_win_hold *hold;
	struct xrma_iov iov[2];
	uint64_t placed;
	size_t count;
	int round;

	if ((w->rc = fixture_barrier_wait(w->barrier, FIXTURE_TIMEOUT_MS)))
		return NULL;
	for (round = 0; round < WIN_ROUNDS; round++) {
		w->step = 1;
		if ((w->rc = xrma_win_add(w->win, w->seg, 0, 2 * P, 0, RDWR, 0, &placed)))
			return NULL;
		/* Our range leads to our segment alone. */
		w->step = 2;
		if ((w->rc = xrma_win_hold(w->win, placed, 2 * P, RDWR, iov, 2, &count, &hold)))
			return NULL;
		w->step = 3;
		if (count != 1 || iov[0].seg != w->seg || iov[0].offset != 0 || iov[0].len != 2 * P) {
			w->rc = -1;
			xrma_win_release(hold);
			return NULL;
		}
		w->step = 4;
		if ((w->rc = xrma_win_release(hold)))
			return NULL;
		w->step = 5;
		if ((w->rc = xrma_win_remove(w->win, placed, 2 * P)))
			return NULL;
	}
	return NULL;
}

static void test_win_add_remove_concurrent_threads_disjoint(void **state)
{
	struct fixture_barrier barrier;
	struct win_worker w[WIN_THREADS];
	struct fixture_seg segs[WIN_THREADS];
	pthread_t threads[WIN_THREADS];
	struct xrma_win *win;
	size_t i;

	(void)state;
	assert_rc(xrma_win_open(fx.ctx[0], 0, &win), 0);
	fixture_barrier_init(&barrier, WIN_THREADS);
	for (i = 0; i < WIN_THREADS; i++) {
		assert_rc(fixture_seg_make(fx.ctx[0], 2 * P, XRMA_ACCESS_ALL, false, 0, &segs[i]), 0);
		w[i] = (struct win_worker){ .win = win, .seg = segs[i].seg, .barrier = &barrier };
		assert_int_equal(pthread_create(&threads[i], NULL, win_worker, &w[i]), 0);
	}
	for (i = 0; i < WIN_THREADS; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 5, NULL), 0);
	fixture_barrier_destroy(&barrier);
	for (i = 0; i < WIN_THREADS; i++)
		if (w[i].rc)
			fail_msg("thread %zu step %d: %d", i, w[i].step, w[i].rc);
	assert_counts(win, 0, 0);
	assert_rc(xrma_win_close(win), 0);
	for (i = 0; i < WIN_THREADS; i++)
		assert_rc(fixture_seg_close(&segs[i]), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_win_open_empty_counts_zero),
		T(test_win_open_bad_args_return_errors),
		T(test_win_add_fixed_places_at_offset),
		T(test_win_add_auto_places_aligned_disjoint),
		T(test_win_add_auto_at_or_above_hint_avoids_taken),
		T(test_win_add_fixed_overlap_returns_eaddrinuse),
		T(test_win_add_misaligned_offset_returns_ealign_offset),
		T(test_win_add_len_not_page_multiple_returns_ealign_size),
		T(test_win_add_bad_args_return_einval),
		T(test_win_add_outside_seg_or_limit_returns_erange),
		T(test_win_add_prot_beyond_seg_rights_returns_eacces),
		T(test_win_add_unaligned_user_memory_returns_ealign_offset),
		T(test_win_add_keeps_seg_open_until_removed),
		T(test_win_remove_exact_range_removes),
		T(test_win_remove_range_over_two_windows_removes_both),
		T(test_win_remove_cutting_window_returns_einval),
		T(test_win_remove_empty_range_returns_enxio),
		T(test_win_can_remove_answers_like_remove_changes_nothing),
		T(test_win_hold_single_window_describes_iov),
		T(test_win_hold_spanning_adjacent_windows_two_entries),
		T(test_win_hold_over_hole_returns_enxio),
		T(test_win_hold_prot_forbidden_returns_eacces),
		T(test_win_hold_vector_too_small_returns_enospc),
		T(test_win_hold_bad_args_return_errors),
		T(test_win_remove_while_held_deferred_until_release),
		T(test_win_close_with_hold_returns_ebusy),
		T(test_win_close_removes_windows_releases_segs),
		T(test_win_release_twice_returns_ehandle),
		T(test_win_calls_bad_handle_return_ehandle),
		T(test_win_add_remove_concurrent_threads_disjoint),
	};

	return cmocka_run_group_tests_name("win", tests, win_group_up, win_group_down);
}
