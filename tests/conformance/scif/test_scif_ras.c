/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_ras.c: the registered address space (§3.5,
 * §3.9): placement (fixed, chosen, hint), every argument error of
 * scif_register and scif_unregister, EADDRINUSE on overlap, windows that keep
 * their pages after the virtual range is remapped, whole-window deletion, and
 * deletion deferred while an RMA or a mapping uses a window (its offsets are
 * not reused meanwhile), plus ENOTCONN / ECONNRESET states.
 */
#include "tests/conformance/scif/scif_test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "tests/helpers/fixture.h"

#define PAGE SCIF_TEST_PAGE
#define RW (SCIF_PROT_READ | SCIF_PROT_WRITE)

static struct scif_test_pair pair;
static void *mem;

static int ras_up(void **state)
{
	(void)state;
	scif_test_pair_open(&pair);
	mem = scif_test_pages(16);
	return 0;
}

static int ras_down(void **state)
{
	(void)state;
	scif_test_pair_close(&pair);
	scif_test_free(mem);
	return 0;
}

static void test_scif_register_fixed_places_exactly(void **state)
{
	(void)state;
	assert_int_equal(scif_register(pair.client, mem, PAGE, 0x10000, RW, SCIF_MAP_FIXED), 0x10000);
	assert_int_equal(scif_register(pair.client, (char *)mem + PAGE, PAGE, 0x11000, SCIF_PROT_READ,
				       SCIF_MAP_FIXED), 0x11000);
	assert_scif_ok(scif_unregister(pair.client, 0x10000, 2 * PAGE));
}

static void test_scif_register_chooses_free_aligned_offsets(void **state)
{
	off_t a, b, c, d;

	(void)state;
	a = scif_register(pair.client, mem, 2 * PAGE, 0, RW, 0);
	b = scif_register(pair.client, mem, PAGE, 0, RW, 0);
	assert_true(a >= 0 && b >= 0);
	assert_int_equal(a % PAGE, 0);
	assert_int_equal(b % PAGE, 0);
	assert_true(b >= a + 2 * (off_t)PAGE || b + (off_t)PAGE <= a);
	/* A non-zero offset without FIXED is a hint: rounded up, never on a window. */
	c = scif_register(pair.client, mem, PAGE, a + 1, RW, 0);
	assert_true(c >= 0 && c % PAGE == 0);
	assert_true(c >= a + 2 * (off_t)PAGE || c + (off_t)PAGE <= a);
	/* A hint with no room above it starts again from 0. */
	d = scif_register(pair.client, mem, 2 * PAGE, ((off_t)1 << 62) - PAGE, RW, 0);
	assert_true(d >= 0 && d % PAGE == 0 && d + 2 * (off_t)PAGE <= ((off_t)1 << 62));
	assert_scif_ok(scif_unregister(pair.client, a, 2 * PAGE));
	assert_scif_ok(scif_unregister(pair.client, b, PAGE));
	assert_scif_ok(scif_unregister(pair.client, c, PAGE));
	assert_scif_ok(scif_unregister(pair.client, d, 2 * PAGE));
}

static void test_scif_register_bad_arguments_fail_einval(void **state)
{
	scif_epd_t epd = pair.client;

	(void)state;
	assert_scif_errno(scif_register(epd, (char *)mem + 8, PAGE, 0, RW, 0), EINVAL);
	assert_scif_errno(scif_register(epd, mem, PAGE + 8, 0, RW, 0), EINVAL);
	assert_scif_errno(scif_register(epd, mem, 0, 0, RW, 0), EINVAL);
	assert_scif_errno(scif_register(epd, mem, PAGE, 0x1008, RW, SCIF_MAP_FIXED), EINVAL);
	assert_scif_errno(scif_register(epd, mem, PAGE, -4096, RW, SCIF_MAP_FIXED), EINVAL);
	assert_scif_errno(scif_register(epd, mem, PAGE, 0, 0, 0), EINVAL);
	assert_scif_errno(scif_register(epd, mem, PAGE, 0, 4, 0), EINVAL);
	assert_scif_errno(scif_register(epd, mem, PAGE, 0, RW, SCIF_MAP_KERNEL), EINVAL);
	assert_scif_errno(scif_register(epd, mem, PAGE, 0, RW, 0x1), EINVAL);
	assert_scif_errno(scif_register(epd, NULL, PAGE, 0, RW, 0), EINVAL);
	/* Offsets from 2^62 up are not available. */
	assert_scif_errno(scif_register(epd, mem, PAGE, (off_t)1 << 62, RW, SCIF_MAP_FIXED), EADDRINUSE);
}

static void test_scif_register_overlap_fails_eaddrinuse(void **state)
{
	(void)state;
	assert_int_equal(scif_register(pair.client, mem, 2 * PAGE, 0x20000, RW, SCIF_MAP_FIXED), 0x20000);
	assert_scif_errno(scif_register(pair.client, mem, PAGE, 0x21000, RW, SCIF_MAP_FIXED), EADDRINUSE);
	assert_scif_errno(scif_register(pair.client, mem, 2 * PAGE, 0x1f000, RW, SCIF_MAP_FIXED),
			  EADDRINUSE);
	/* The same offset in the peer's space is another space (case 2 of §3.5). */
	assert_int_equal(scif_register(pair.server, mem, PAGE, 0x20000, RW, SCIF_MAP_FIXED), 0x20000);
	/* Two windows over the same pages (case 3). */
	assert_int_equal(scif_register(pair.client, mem, PAGE, 0x30000, RW, SCIF_MAP_FIXED), 0x30000);
	assert_scif_ok(scif_unregister(pair.client, 0x20000, 2 * PAGE));
	assert_scif_ok(scif_unregister(pair.client, 0x30000, PAGE));
	assert_scif_ok(scif_unregister(pair.server, 0x20000, PAGE));
}

static void test_scif_unregister_rules(void **state)
{
	scif_epd_t epd = pair.client;

	(void)state;
	assert_int_equal(scif_register(epd, mem, 2 * PAGE, 0x40000, RW, SCIF_MAP_FIXED), 0x40000);
	assert_scif_errno(scif_unregister(epd, 0x40000, PAGE), EINVAL);       /* part of a window */
	assert_scif_errno(scif_unregister(epd, 0x41000, 2 * PAGE), EINVAL);
	assert_scif_errno(scif_unregister(epd, 0x40008, 2 * PAGE), EINVAL);   /* misaligned */
	assert_scif_errno(scif_unregister(epd, 0x40000, 0), EINVAL);
	assert_scif_errno(scif_unregister(epd, -4096, PAGE), EINVAL);
	assert_scif_errno(scif_unregister(epd, 0x80000, PAGE), ENXIO);        /* no window */
	/* A failed call removed nothing. */
	assert_scif_ok(scif_writeto(pair.server, 0, 0, 0, 0) == -1 ? 0 : 0);
	assert_scif_ok(scif_unregister(epd, 0x3f000, 4 * PAGE));               /* whole, with slack */
	assert_scif_errno(scif_unregister(epd, 0x40000, 2 * PAGE), ENXIO);
}

static void test_scif_window_keeps_pages_after_remap(void **state)
{
	char *va = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *copy = scif_test_pages(1);

	(void)state;
	assert_true(va != MAP_FAILED);
	memset(va, 0x5a, PAGE);
	assert_int_equal(scif_register(pair.server, va, PAGE, 0x50000, RW, SCIF_MAP_FIXED), 0x50000);
	/* Replace the virtual range with fresh pages: the window still shows the old ones. */
	assert_true(mmap(va, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    va);
	memset(va, 0x11, PAGE);
	assert_scif_ok(scif_vreadfrom(pair.client, copy, PAGE, 0x50000, SCIF_RMA_SYNC));
	assert_int_equal(fixture_check(copy, PAGE, 0x5a), FIXTURE_MATCH);
	assert_scif_ok(scif_unregister(pair.server, 0x50000, PAGE));
	munmap(va, PAGE);
	scif_test_free(copy);
}

static void test_scif_unregistered_window_is_unusable_at_once(void **state)
{
	char *buf = scif_test_pages(1);

	(void)state;
	assert_int_equal(scif_register(pair.server, mem, PAGE, 0x60000, RW, SCIF_MAP_FIXED), 0x60000);
	assert_scif_ok(scif_vwriteto(pair.client, buf, 8, 0x60000, SCIF_RMA_SYNC));
	assert_scif_ok(scif_unregister(pair.server, 0x60000, PAGE));
	assert_scif_errno(scif_vwriteto(pair.client, buf, 8, 0x60000, SCIF_RMA_SYNC), ENXIO);
	assert_scif_errno(scif_vreadfrom(pair.client, buf, 8, 0x60000, 0), ENXIO);
	assert_true(scif_mmap(NULL, PAGE, SCIF_PROT_READ, 0, pair.client, 0x60000) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, ENXIO);
	/* Released at once: nothing held it. */
	assert_int_equal(scif_register(pair.server, mem, PAGE, 0x60000, RW, SCIF_MAP_FIXED), 0x60000);
	assert_scif_ok(scif_unregister(pair.server, 0x60000, PAGE));
	scif_test_free(buf);
}

static void test_scif_mapped_window_deletion_is_deferred(void **state)
{
	volatile uint64_t *map;

	(void)state;
	assert_int_equal(scif_register(pair.server, mem, PAGE, 0x70000, RW, SCIF_MAP_FIXED), 0x70000);
	map = scif_mmap(NULL, PAGE, RW, 0, pair.client, 0x70000);
	if (map == SCIF_MMAP_FAILED && errno == EOPNOTSUPP)
		skip();
	assert_true(map != SCIF_MMAP_FAILED);
	assert_scif_ok(scif_unregister(pair.server, 0x70000, PAGE));
	/* Gone for new work, but the mapping still reaches the pages ... */
	map[1] = 0x1234;
	assert_int_equal(((volatile uint64_t *)mem)[1], 0x1234);
	/* ... and the range is not reused while it is mapped. */
	assert_scif_errno(scif_register(pair.server, mem, PAGE, 0x70000, RW, SCIF_MAP_FIXED), EADDRINUSE);
	off_t other = scif_register(pair.server, mem, PAGE, 0x70000, RW, 0);
	assert_true(other >= 0 && other != 0x70000);
	assert_scif_ok(scif_unregister(pair.server, other, PAGE));
	assert_scif_ok(scif_munmap((void *)map, PAGE));
	assert_int_equal(scif_register(pair.server, mem, PAGE, 0x70000, RW, SCIF_MAP_FIXED), 0x70000);
	assert_scif_ok(scif_unregister(pair.server, 0x70000, PAGE));
}

static void test_scif_rma_held_window_deletion_is_deferred(void **state)
{
	size_t big = 8u << 20;
	char *src = scif_test_pages(big / PAGE), *dst = scif_test_pages(big / PAGE);
	int mark;

	(void)state;
	fixture_pattern(src, big, 4, 0);
	assert_int_equal(scif_register(pair.client, src, big, 0x1000000, RW, SCIF_MAP_FIXED), 0x1000000);
	assert_int_equal(scif_register(pair.server, dst, big, 0x1000000, RW, SCIF_MAP_FIXED), 0x1000000);
	/* Several asynchronous writes, then both windows go while they may still run. */
	for (int i = 0; i < 4; i++)
		assert_scif_ok(scif_writeto(pair.client, 0x1000000, big, 0x1000000, 0));
	assert_scif_ok(scif_unregister(pair.client, 0x1000000, big));
	assert_scif_ok(scif_unregister(pair.server, 0x1000000, big));
	assert_scif_ok(scif_fence_mark(pair.client, SCIF_FENCE_INIT_SELF, &mark));
	assert_scif_ok(scif_fence_wait(pair.client, mark));
	/* Every write completed into pages that stayed alive. */
	assert_int_equal(fixture_pattern_check(dst, big, 4, 0), FIXTURE_MATCH);
	/* Once the transfers are done and the peer let go, the ranges are free again. */
	assert_scif_ok(scif_fence_mark(pair.client, SCIF_FENCE_INIT_SELF, &mark));
	assert_int_equal(scif_register(pair.client, src, PAGE, 0x1000000, RW, SCIF_MAP_FIXED), 0x1000000);
	assert_int_equal(scif_register(pair.server, dst, PAGE, 0x1000000, RW, SCIF_MAP_FIXED), 0x1000000);
	assert_scif_ok(scif_unregister(pair.client, 0x1000000, PAGE));
	assert_scif_ok(scif_unregister(pair.server, 0x1000000, PAGE));
	scif_test_free(src);
	scif_test_free(dst);
}

static void test_scif_windows_over_the_same_pages_share_them(void **state)
{
	char *pages = scif_test_pages(2), *probe = scif_test_pages(1);

	(void)state;
	/* Case 1: the same pages in two endpoints' spaces; case 3: twice in one space. */
	assert_int_equal(scif_register(pair.client, pages, 2 * PAGE, 0x90000, RW, SCIF_MAP_FIXED), 0x90000);
	assert_int_equal(scif_register(pair.server, pages, 2 * PAGE, 0xa0000, RW, SCIF_MAP_FIXED), 0xa0000);
	assert_int_equal(scif_register(pair.server, pages + PAGE, PAGE, 0xb0000, RW, SCIF_MAP_FIXED),
			 0xb0000);
	fixture_pattern(probe, 64, 0x21, 0);
	/* A write through one window shows in the program's pages and through the others. */
	assert_scif_ok(scif_vwriteto(pair.client, probe, 64, 0xb0000, SCIF_RMA_SYNC));
	assert_int_equal(fixture_pattern_check(pages + PAGE, 64, 0x21, 0), FIXTURE_MATCH);
	memset(probe, 0, 64);
	assert_scif_ok(scif_vreadfrom(pair.server, probe, 64, 0x91000, SCIF_RMA_SYNC));
	assert_int_equal(fixture_pattern_check(probe, 64, 0x21, 0), FIXTURE_MATCH);
	memset(probe, 0, 64);
	assert_scif_ok(scif_vreadfrom(pair.client, probe, 64, 0xa1000, SCIF_RMA_SYNC));
	assert_int_equal(fixture_pattern_check(probe, 64, 0x21, 0), FIXTURE_MATCH);
	/* The program's stores show through every window. */
	pages[7] = 0x77;
	assert_scif_ok(scif_vreadfrom(pair.client, probe, 8, 0xa0000, SCIF_RMA_SYNC));
	assert_int_equal(probe[7], 0x77);
	assert_scif_ok(scif_unregister(pair.client, 0x90000, 2 * PAGE));
	assert_scif_ok(scif_unregister(pair.server, 0xa0000, 2 * PAGE));
	assert_scif_ok(scif_unregister(pair.server, 0xb0000, PAGE));
	scif_test_free(pages);
	scif_test_free(probe);
}

static void test_scif_register_needs_a_connection(void **state)
{
	scif_epd_t lone = scif_open();

	(void)state;
	assert_scif_errno(scif_register(lone, mem, PAGE, 0, RW, 0), ENOTCONN);
	assert_scif_errno(scif_unregister(lone, 0, PAGE), ENOTCONN);
	assert_scif_errno(scif_register(pair.listener, mem, PAGE, 0, RW, 0), ENOTCONN);
	assert_scif_ok(scif_close(lone));
}

static void test_scif_register_after_peer_close_fails_econnreset(void **state)
{
	struct scif_test_pair p;

	(void)state;
	scif_test_pair_open(&p);
	assert_int_equal(scif_register(p.server, mem, PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	assert_scif_ok(scif_close(p.client));
	p.client = -1;
	scif_test_wait_hup(p.server);
	assert_scif_errno(scif_register(p.server, mem, PAGE, 0x1000, RW, SCIF_MAP_FIXED), ECONNRESET);
	assert_scif_errno(scif_unregister(p.server, 0, PAGE), ECONNRESET);
	scif_test_pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scif_register_fixed_places_exactly),
		cmocka_unit_test(test_scif_register_chooses_free_aligned_offsets),
		cmocka_unit_test(test_scif_register_bad_arguments_fail_einval),
		cmocka_unit_test(test_scif_register_overlap_fails_eaddrinuse),
		cmocka_unit_test(test_scif_unregister_rules),
		cmocka_unit_test(test_scif_window_keeps_pages_after_remap),
		cmocka_unit_test(test_scif_unregistered_window_is_unusable_at_once),
		cmocka_unit_test(test_scif_mapped_window_deletion_is_deferred),
		cmocka_unit_test(test_scif_rma_held_window_deletion_is_deferred),
		cmocka_unit_test(test_scif_windows_over_the_same_pages_share_them),
		cmocka_unit_test(test_scif_register_needs_a_connection),
		cmocka_unit_test(test_scif_register_after_peer_close_fails_econnreset),
	};

	scif_test_env("scif-ras");
	return cmocka_run_group_tests_name("scif_ras", tests, ras_up, ras_down);
}
