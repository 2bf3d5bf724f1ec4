/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_mmap.c: mapped remote memory (§3.6):
 * loads and stores through scif_mmap reach the peer's window pages both ways,
 * protection is checked against the window (EACCES) but does not restrict the
 * mapping, argument errors (EINVAL, ENXIO), a mapping outlives the endpoint,
 * ranges over adjacent windows and SCIF_MAP_FIXED (where the provider's
 * mappings are shared memory), and scif_munmap (its errors; plain memory goes
 * to munmap). Skipped on providers that cannot map.
 */
#include "tests/conformance/scif/scif_test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "tests/helpers/fixture.h"

#define PAGE SCIF_TEST_PAGE
#define RW (SCIF_PROT_READ | SCIF_PROT_WRITE)

static struct scif_test_pair pair;
static char *smem;   /* server windows: 0x0 RW (2 pages), 0x10000 read-only, 0x11000 write-only */

static int mmap_up(void **state)
{
	(void)state;
	scif_test_pair_open(&pair);
	smem = scif_test_pages(4);
	assert_int_equal(scif_register(pair.server, smem, 2 * PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	assert_int_equal(scif_register(pair.server, smem + 2 * PAGE, PAGE, 0x10000, SCIF_PROT_READ,
				       SCIF_MAP_FIXED), 0x10000);
	assert_int_equal(scif_register(pair.server, smem + 3 * PAGE, PAGE, 0x11000, SCIF_PROT_WRITE,
				       SCIF_MAP_FIXED), 0x11000);
	return 0;
}

static int mmap_down(void **state)
{
	(void)state;
	scif_test_pair_close(&pair);
	scif_test_free(smem);
	return 0;
}

static volatile char *map_or_skip(size_t len, int prot, off_t offset)
{
	void *m = scif_mmap(NULL, len, prot, 0, pair.client, offset);

	if (m == SCIF_MMAP_FAILED && errno == EOPNOTSUPP)
		skip();
	assert_true(m != SCIF_MMAP_FAILED);
	return m;
}

static void test_scif_mmap_loads_and_stores_reach_the_window(void **state)
{
	volatile char *m;

	(void)state;
	m = map_or_skip(2 * PAGE, RW, 0);
	m[5] = 'a';
	m[PAGE + 7] = 'b';
	assert_int_equal(smem[5], 'a');
	assert_int_equal(smem[PAGE + 7], 'b');
	smem[9] = 'c';
	assert_int_equal(m[9], 'c');
	assert_scif_ok(scif_munmap((void *)m, 2 * PAGE));
}

static void test_scif_mmap_offset_inside_window(void **state)
{
	volatile char *m;

	(void)state;
	smem[PAGE] = 'z';
	m = map_or_skip(PAGE, SCIF_PROT_READ, PAGE);
	assert_int_equal(m[0], 'z');
	assert_scif_ok(scif_munmap((void *)m, PAGE));
}

static void test_scif_mmap_protection_is_checked_fails_eacces(void **state)
{
	volatile char *m;

	(void)state;
	assert_true(scif_mmap(NULL, PAGE, SCIF_PROT_WRITE, 0, pair.client, 0x10000) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, EACCES);
	assert_true(scif_mmap(NULL, PAGE, SCIF_PROT_READ, 0, pair.client, 0x11000) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, EACCES);
	/* prot_flags 0 asks for nothing, and the mapping may still be used (§3.5). */
	m = map_or_skip(PAGE, 0, 0x10000);
	smem[2 * PAGE] = 'r';
	assert_int_equal(m[0], 'r');
	assert_scif_ok(scif_munmap((void *)m, PAGE));
}

static void test_scif_mmap_spans_adjacent_windows(void **state)
{
	volatile char *m;
	void *raw;

	(void)state;
	/*
	 * 0x10000 (read-only) and 0x11000 (write-only) are adjacent: prot 0 asks neither, so
	 * the mapping is read-only (stores are the security suite's test).
	 */
	raw = scif_mmap(NULL, 2 * PAGE, 0, 0, pair.client, 0x10000);
	if (raw == SCIF_MMAP_FAILED && errno == EOPNOTSUPP)
		skip();   /* the provider's mappings cannot be placed side by side */
	assert_true(raw != SCIF_MMAP_FAILED);
	m = raw;
	smem[2 * PAGE + 1] = 'x';
	smem[3 * PAGE + 2] = 'y';
	assert_int_equal(m[1], 'x');
	assert_int_equal(m[PAGE + 2], 'y');
	assert_scif_ok(scif_munmap(raw, 2 * PAGE));
}

static void test_scif_mmap_fixed_places_at_addr(void **state)
{
	void *want = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char *m;

	(void)state;
	assert_true(want != MAP_FAILED);
	m = scif_mmap(want, PAGE, RW, SCIF_MAP_FIXED, pair.client, 0);
	if (m == SCIF_MMAP_FAILED && errno == EOPNOTSUPP) {
		munmap(want, PAGE);
		skip();
	}
	/* The mapping replaced what was there. */
	assert_ptr_equal((void *)m, want);
	m[11] = 'f';
	assert_int_equal(smem[11], 'f');
	assert_scif_ok(scif_munmap(want, PAGE));
	assert_true(scif_mmap(NULL, PAGE, RW, SCIF_MAP_FIXED, pair.client, 0) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, EINVAL);
}

static void test_scif_mmap_bad_arguments(void **state)
{
	scif_epd_t c = pair.client;

	(void)state;
	assert_true(scif_mmap(NULL, PAGE + 1, RW, 0, c, 0) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, EINVAL);
	assert_true(scif_mmap(NULL, PAGE, RW, 0, c, 8) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, EINVAL);
	assert_true(scif_mmap(NULL, 0, RW, 0, c, 0) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, EINVAL);
	assert_true(scif_mmap(NULL, PAGE, 8, 0, c, 0) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, EINVAL);
	assert_true(scif_mmap(NULL, PAGE, RW, 0x4, c, 0) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, EINVAL);
	assert_true(scif_mmap((void *)0x1001, PAGE, RW, SCIF_MAP_FIXED, c, 0) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, EINVAL);
	assert_true(scif_mmap(NULL, PAGE, RW, 0, c, 0x40000) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, ENXIO);
	assert_true(scif_mmap(NULL, 3 * PAGE, RW, 0, c, 0) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, ENXIO);
	assert_true(scif_mmap(NULL, PAGE, RW, 0, c, -4096) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, ENXIO);
	assert_true(scif_mmap(NULL, PAGE, RW, 0, pair.listener, 0) == SCIF_MMAP_FAILED);
	assert_int_equal(errno, ENOTCONN);
	assert_scif_errno(scif_munmap((void *)0x1001, PAGE), EINVAL);
	assert_scif_errno(scif_munmap(smem, 0), EINVAL);
}

static void test_scif_munmap_of_plain_memory_unmaps_it(void **state)
{
	void *m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(m != MAP_FAILED);
	assert_scif_ok(scif_munmap(m, PAGE));
	/* The range is free again: a hint there is honoured. */
	void *again = mmap(m, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	assert_true(again == m);
	munmap(again, PAGE);
}

static void test_scif_mapping_outlives_the_endpoint(void **state)
{
	struct scif_test_pair p;
	char *mem = scif_test_pages(1);
	volatile char *m;
	void *raw;

	(void)state;
	scif_test_pair_open(&p);
	assert_int_equal(scif_register(p.server, mem, PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	raw = scif_mmap(NULL, PAGE, RW, 0, p.client, 0);
	if (raw == SCIF_MMAP_FAILED && errno == EOPNOTSUPP) {
		scif_test_pair_close(&p);
		scif_test_free(mem);
		skip();
	}
	assert_true(raw != SCIF_MMAP_FAILED);
	m = raw;
	/* Both ends close; the mapping still reaches the pages until scif_munmap. */
	assert_scif_ok(scif_close(p.client));
	p.client = -1;
	assert_scif_ok(scif_close(p.server));
	p.server = -1;
	m[3] = 'q';
	assert_int_equal(mem[3], 'q');
	assert_scif_ok(scif_munmap(raw, PAGE));
	scif_test_pair_close(&p);
	scif_test_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scif_mmap_loads_and_stores_reach_the_window),
		cmocka_unit_test(test_scif_mmap_offset_inside_window),
		cmocka_unit_test(test_scif_mmap_protection_is_checked_fails_eacces),
		cmocka_unit_test(test_scif_mmap_spans_adjacent_windows),
		cmocka_unit_test(test_scif_mmap_fixed_places_at_addr),
		cmocka_unit_test(test_scif_mmap_bad_arguments),
		cmocka_unit_test(test_scif_munmap_of_plain_memory_unmaps_it),
		cmocka_unit_test(test_scif_mapping_outlives_the_endpoint),
	};

	scif_test_env("scif-mmap");
	return cmocka_run_group_tests_name("scif_mmap", tests, mmap_up, mmap_down);
}
