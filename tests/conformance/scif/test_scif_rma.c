/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_rma.c: remote memory access (§3.7, §4.1):
 * scif_writeto, scif_readfrom, scif_vwriteto, scif_vreadfrom with SYNC,
 * asynchronous, USECPU and ORDERED flags at any alignment, ranges spanning
 * adjacent windows on either side, and each documented error: ENXIO outside
 * the windows or across a gap, EACCES against the window protections, EINVAL
 * for flags and length, EFAULT, ENOTCONN and ECONNRESET.
 */
#include "tests/conformance/scif/scif_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "tests/helpers/fixture.h"

#define PAGE SCIF_TEST_PAGE
#define RW (SCIF_PROT_READ | SCIF_PROT_WRITE)
#define PAGES 8

static struct scif_test_pair pair;
static char *lmem, *rmem;   /* the client's and the server's windows */

/* Client window at 0x100000 (8 pages), server window at 0x200000 (8 pages). */
static int rma_up(void **state)
{
	(void)state;
	scif_test_pair_open(&pair);
	lmem = scif_test_pages(PAGES);
	rmem = scif_test_pages(PAGES);
	assert_int_equal(scif_register(pair.client, lmem, PAGES * PAGE, 0x100000, RW, SCIF_MAP_FIXED),
			 0x100000);
	assert_int_equal(scif_register(pair.server, rmem, PAGES * PAGE, 0x200000, RW, SCIF_MAP_FIXED),
			 0x200000);
	return 0;
}

static int rma_down(void **state)
{
	(void)state;
	assert_scif_ok(scif_unregister(pair.client, 0x100000, PAGES * PAGE));
	assert_scif_ok(scif_unregister(pair.server, 0x200000, PAGES * PAGE));
	scif_test_pair_close(&pair);
	scif_test_free(lmem);
	scif_test_free(rmem);
	return 0;
}

static int rma_reset(void **state)
{
	(void)state;
	memset(lmem, 0, PAGES * PAGE);
	memset(rmem, 0, PAGES * PAGE);
	return 0;
}

static void wait_self(scif_epd_t epd)
{
	int mark;

	assert_scif_ok(scif_fence_mark(epd, SCIF_FENCE_INIT_SELF, &mark));
	assert_scif_ok(scif_fence_wait(epd, mark));
}

static void test_scif_writeto_sync_lands_at_any_alignment(void **state)
{
	static const struct { size_t l, r, len; } cases[] = {
		{ 0, 0, 8 }, { 0, 0, PAGE }, { 64, 128, 1000 }, { 3, 77, 4093 }, { 1, 2, 3 * PAGE + 5 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fixture_pattern(lmem + cases[i].l, cases[i].len, (uint8_t)(i + 1), 0);
		fixture_fill(rmem, PAGES * PAGE, 0xee);
		assert_scif_ok(scif_writeto(pair.client, 0x100000 + (off_t)cases[i].l, cases[i].len,
					    0x200000 + (off_t)cases[i].r, SCIF_RMA_SYNC));
		assert_int_equal(fixture_pattern_check(rmem + cases[i].r, cases[i].len, (uint8_t)(i + 1), 0),
				 FIXTURE_MATCH);
		/* Nothing around the range changed. */
		assert_int_equal(fixture_check(rmem, cases[i].r, 0xee), FIXTURE_MATCH);
		assert_int_equal(fixture_check(rmem + cases[i].r + cases[i].len,
					       PAGES * PAGE - cases[i].r - cases[i].len, 0xee),
				 FIXTURE_MATCH);
	}
}

static void test_scif_readfrom_sync_and_usecpu(void **state)
{
	(void)state;
	fixture_pattern(rmem, PAGES * PAGE, 5, 0);
	assert_scif_ok(scif_readfrom(pair.client, 0x100010, 2 * PAGE, 0x200020, SCIF_RMA_SYNC));
	assert_int_equal(fixture_pattern_check(lmem + 0x10, 2 * PAGE, 5, 0x20), FIXTURE_MATCH);
	assert_scif_ok(scif_readfrom(pair.client, 0x100000, PAGE, 0x201000,
				     SCIF_RMA_SYNC | SCIF_RMA_USECPU | SCIF_RMA_ORDERED));
	assert_int_equal(fixture_pattern_check(lmem, PAGE, 5, PAGE), FIXTURE_MATCH);
}

static void test_scif_async_rma_completes_by_fence(void **state)
{
	(void)state;
	fixture_pattern(lmem, PAGES * PAGE, 6, 0);
	for (int i = 0; i < PAGES; i++)
		assert_scif_ok(scif_writeto(pair.client, 0x100000 + i * (off_t)PAGE, PAGE,
					    0x200000 + i * (off_t)PAGE, i % 2 ? SCIF_RMA_ORDERED : 0));
	wait_self(pair.client);
	assert_int_equal(fixture_pattern_check(rmem, PAGES * PAGE, 6, 0), FIXTURE_MATCH);
	/* And the other way, read asynchronously. */
	fixture_pattern(rmem, PAGES * PAGE, 7, 0);
	assert_scif_ok(scif_readfrom(pair.client, 0x100000, PAGES * PAGE, 0x200000, SCIF_RMA_USECPU));
	wait_self(pair.client);
	assert_int_equal(fixture_pattern_check(lmem, PAGES * PAGE, 7, 0), FIXTURE_MATCH);
}

static void test_scif_vwriteto_vreadfrom_use_plain_memory(void **state)
{
	char *buf = malloc(3 * PAGE + 100);

	(void)state;
	assert_non_null(buf);
	fixture_pattern(buf + 3, 2 * PAGE + 50, 8, 0);
	assert_scif_ok(scif_vwriteto(pair.client, buf + 3, 2 * PAGE + 50, 0x200007, SCIF_RMA_SYNC));
	assert_int_equal(fixture_pattern_check(rmem + 7, 2 * PAGE + 50, 8, 0), FIXTURE_MATCH);
	memset(buf, 0, 3 * PAGE + 100);
	assert_scif_ok(scif_vreadfrom(pair.client, buf + 1, 2 * PAGE + 50, 0x200007,
				      SCIF_RMA_USECACHE));
	wait_self(pair.client);
	assert_int_equal(fixture_pattern_check(buf + 1, 2 * PAGE + 50, 8, 0), FIXTURE_MATCH);
	assert_scif_errno(scif_vwriteto(pair.client, NULL, 8, 0x200000, 0), EFAULT);
	free(buf);
}

/* Whatever a v-call keeps of earlier calls, it moves the pages mapped at the address now. */
static void vrma_follows_the_pages(int keep_flag)
{
	char *buf = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(buf != MAP_FAILED);
	for (int round = 0; round < 3; round++) {
		fixture_pattern(buf, 2 * PAGE, (uint8_t)(0x30 + round), 0);
		assert_scif_ok(scif_vwriteto(pair.client, buf, 2 * PAGE, 0x200000, SCIF_RMA_SYNC | keep_flag));
		assert_int_equal(fixture_pattern_check(rmem, 2 * PAGE, (uint8_t)(0x30 + round), 0),
				 FIXTURE_MATCH);
		/* New pages at the same address: a kept registration must move them, not the old. */
		assert_true(mmap(buf, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				 -1, 0) == buf);
	}
	/* Reads land in the pages mapped now. */
	fixture_pattern(rmem, PAGE, 0x3f, 0);
	assert_scif_ok(scif_vreadfrom(pair.client, buf + 100, 500, 0x200000 + 100, SCIF_RMA_SYNC | keep_flag));
	assert_int_equal(fixture_pattern_check(buf + 100, 500, 0x3f, 100), FIXTURE_MATCH);
	munmap(buf, 2 * PAGE);
}

static void test_scif_vrma_usecache_follows_the_pages(void **state)
{
	(void)state;
	vrma_follows_the_pages(SCIF_RMA_USECACHE);
}

/* Where registrations pin nothing, uncached v-calls keep them too (docs/scif.md). */
static void test_scif_vrma_uncached_follows_the_pages(void **state)
{
	(void)state;
	vrma_follows_the_pages(0);
}

static void test_scif_rma_spans_adjacent_windows(void **state)
{
	char *a = scif_test_pages(2), *b = scif_test_pages(2), *src = scif_test_pages(4);

	(void)state;
	/* Two adjacent windows on each side, over unrelated pages. */
	assert_int_equal(scif_register(pair.server, a, 2 * PAGE, 0x400000, RW, SCIF_MAP_FIXED), 0x400000);
	assert_int_equal(scif_register(pair.server, b, 2 * PAGE, 0x402000, RW, SCIF_MAP_FIXED), 0x402000);
	assert_int_equal(scif_register(pair.client, src, 2 * PAGE, 0x400000, RW, SCIF_MAP_FIXED), 0x400000);
	assert_int_equal(scif_register(pair.client, src + 2 * PAGE, 2 * PAGE, 0x402000, RW, SCIF_MAP_FIXED),
			 0x402000);
	fixture_pattern(src, 4 * PAGE, 9, 0);
	/* Remote split at a different point than the local one. */
	assert_scif_ok(scif_writeto(pair.client, 0x400100, 3 * PAGE, 0x400900, SCIF_RMA_SYNC));
	assert_int_equal(fixture_pattern_check(a + 0x900, 2 * PAGE - 0x900, 9, 0x100), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(b, 3 * PAGE - (2 * PAGE - 0x900), 9, 0x100 + 2 * PAGE - 0x900),
			 FIXTURE_MATCH);
	memset(src, 0, 4 * PAGE);
	assert_scif_ok(scif_readfrom(pair.client, 0x400000, 4 * PAGE, 0x400000, 0));
	wait_self(pair.client);
	assert_memory_equal(src, a, 2 * PAGE);
	assert_memory_equal(src + 2 * PAGE, b, 2 * PAGE);
	assert_scif_ok(scif_unregister(pair.server, 0x400000, 4 * PAGE));
	assert_scif_ok(scif_unregister(pair.client, 0x400000, 4 * PAGE));
	scif_test_free(a);
	scif_test_free(b);
	scif_test_free(src);
}

static void test_scif_rma_outside_windows_fails_enxio(void **state)
{
	char *gap = scif_test_pages(1);
	scif_epd_t c = pair.client;

	(void)state;
	assert_scif_errno(scif_writeto(c, 0x100000, 8, 0x300000, SCIF_RMA_SYNC), ENXIO);      /* remote */
	assert_scif_errno(scif_writeto(c, 0x300000, 8, 0x200000, SCIF_RMA_SYNC), ENXIO);      /* local */
	assert_scif_errno(scif_writeto(c, 0x100000, PAGE, 0x200000 + PAGES * PAGE - 8, 0), ENXIO);
	assert_scif_errno(scif_readfrom(c, 0x100000 + PAGES * PAGE - 8, 16, 0x200000, 0), ENXIO);
	assert_scif_errno(scif_writeto(c, -4096, 8, 0x200000, 0), ENXIO);
	assert_scif_errno(scif_writeto(c, 0x100000, 8, -4096, 0), ENXIO);
	assert_scif_errno(scif_vreadfrom(c, gap, 8, 0x300000, 0), ENXIO);
	/* Windows with a hole between them do not make one range. */
	assert_int_equal(scif_register(pair.server, gap, PAGE, 0x200000 + (PAGES + 1) * PAGE, RW,
				       SCIF_MAP_FIXED), 0x200000 + (PAGES + 1) * PAGE);
	assert_scif_errno(scif_writeto(c, 0x100000, 3 * PAGE, 0x200000 + (PAGES - 1) * PAGE, 0), ENXIO);
	assert_scif_ok(scif_unregister(pair.server, 0x200000 + (PAGES + 1) * PAGE, PAGE));
	scif_test_free(gap);
}

static void test_scif_rma_protection_fails_eacces(void **state)
{
	char *ro = scif_test_pages(1), *wo = scif_test_pages(1);
	scif_epd_t c = pair.client;

	(void)state;
	assert_int_equal(scif_register(pair.server, ro, PAGE, 0x500000, SCIF_PROT_READ, SCIF_MAP_FIXED),
			 0x500000);
	assert_int_equal(scif_register(pair.server, wo, PAGE, 0x501000, SCIF_PROT_WRITE, SCIF_MAP_FIXED),
			 0x501000);
	assert_int_equal(scif_register(c, ro, PAGE, 0x500000, SCIF_PROT_READ, SCIF_MAP_FIXED), 0x500000);
	assert_int_equal(scif_register(c, wo, PAGE, 0x501000, SCIF_PROT_WRITE, SCIF_MAP_FIXED), 0x501000);
	/* Remote side: a read-only window is no destination, a write-only one no source. */
	assert_scif_errno(scif_writeto(c, 0x100000, 8, 0x500000, SCIF_RMA_SYNC), EACCES);
	assert_scif_errno(scif_readfrom(c, 0x100000, 8, 0x501000, SCIF_RMA_SYNC), EACCES);
	assert_scif_errno(scif_vwriteto(c, lmem, 8, 0x500000, 0), EACCES);
	/* Local side likewise. */
	assert_scif_errno(scif_writeto(c, 0x501000, 8, 0x200000, SCIF_RMA_SYNC), EACCES);
	assert_scif_errno(scif_readfrom(c, 0x500000, 8, 0x200000, SCIF_RMA_SYNC), EACCES);
	/* The allowed directions work. */
	assert_scif_ok(scif_writeto(c, 0x500000, 8, 0x501000, SCIF_RMA_SYNC));
	assert_scif_ok(scif_readfrom(c, 0x501000, 8, 0x500000, SCIF_RMA_SYNC));
	assert_scif_ok(scif_unregister(pair.server, 0x500000, 2 * PAGE));
	assert_scif_ok(scif_unregister(c, 0x500000, 2 * PAGE));
	scif_test_free(ro);
	scif_test_free(wo);
}

static void test_scif_rma_bad_flags_and_length_fail_einval(void **state)
{
	scif_epd_t c = pair.client;

	(void)state;
	assert_scif_errno(scif_writeto(c, 0x100000, 8, 0x200000, 0x10), EINVAL);
	assert_scif_errno(scif_readfrom(c, 0x100000, 8, 0x200000, 0x100), EINVAL);
	assert_scif_errno(scif_vwriteto(c, lmem, 8, 0x200000, 0x40), EINVAL);
	assert_scif_errno(scif_writeto(c, 0x100000, 0, 0x200000, 0), EINVAL);
	assert_scif_errno(scif_vreadfrom(c, lmem, 0, 0x200000, 0), EINVAL);
}

struct rma_thread {
	scif_epd_t epd;
	int slot;
	int rc;
};

/* Each thread writes its own page, many times, mixing sync and async RMAs. */
static void *rma_thread_main(void *arg)
{
	struct rma_thread *t = arg;
	off_t at = t->slot * (off_t)PAGE;

	t->rc = 0;
	for (int i = 0; i < 200 && !t->rc; i++)
		t->rc = scif_writeto(t->epd, 0x100000 + at, PAGE, 0x200000 + at, i % 3 ? 0 : SCIF_RMA_SYNC);
	return NULL;
}

static void test_scif_rma_from_many_threads(void **state)
{
	static struct rma_thread t[4];   /* static: a thread that overran its join keeps it */
	pthread_t thread[4];

	(void)state;
	for (int i = 0; i < 4; i++)
		fixture_pattern(lmem + i * PAGE, PAGE, (uint8_t)(0x50 + i), 0);
	for (int i = 0; i < 4; i++) {
		t[i] = (struct rma_thread){ .epd = pair.client, .slot = i, .rc = 1 };
		assert_int_equal(pthread_create(&thread[i], NULL, rma_thread_main, &t[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(fixture_join(thread[i], SCIF_TEST_TIMEOUT_MS * 2, NULL), 0);
		assert_int_equal(t[i].rc, 0);
	}
	wait_self(pair.client);
	for (int i = 0; i < 4; i++)
		assert_int_equal(fixture_pattern_check(rmem + i * PAGE, PAGE, (uint8_t)(0x50 + i), 0),
				 FIXTURE_MATCH);
}

struct closer_race {
	scif_epd_t epd;
	int ok, failed, err;
	pid_t tid;
};

/* RMAs until the endpoint goes away under us. */
static void *rma_until_closed_main(void *arg)
{
	struct closer_race *c = arg;

	__atomic_store_n(&c->tid, fixture_gettid(), __ATOMIC_RELEASE);
	for (;;) {
		if (scif_writeto(c->epd, 0, PAGE, 0, c->ok % 2 ? SCIF_RMA_SYNC : 0) == 0) {
			c->ok++;
			continue;
		}
		c->err = errno;
		c->failed = 1;
		return NULL;
	}
}

static void test_scif_close_during_rmas_from_another_thread(void **state)
{
	struct scif_test_pair p;
	char *a = scif_test_pages(1), *b = scif_test_pages(1);
	struct closer_race c = { 0 };
	pthread_t thread;

	(void)state;
	scif_test_pair_open(&p);
	assert_int_equal(scif_register(p.client, a, PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	assert_int_equal(scif_register(p.server, b, PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	c.epd = p.client;
	assert_int_equal(pthread_create(&thread, NULL, rma_until_closed_main, &c), 0);
	while (!__atomic_load_n(&c.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_scif_ok(scif_close(p.client));
	p.client = -1;
	assert_int_equal(fixture_join(thread, SCIF_TEST_TIMEOUT_MS, NULL), 0);
	/* The closed descriptor is no endpoint; nothing crashed or hung. */
	assert_int_equal(c.failed, 1);
	assert_int_equal(c.err, EBADF);
	scif_test_pair_close(&p);
	scif_test_free(a);
	scif_test_free(b);
}

struct registrar {
	scif_epd_t epd;
	char *mem;
	off_t offset;
	int rc;
	int registered;
};

/*
 * Register and unregister the same window over and over. While the peer still
 * uses a removed window its range stays taken: EADDRINUSE, try again.
 */
static void *register_loop_main(void *arg)
{
	struct registrar *r = arg;

	r->rc = 0;
	for (int i = 0; i < 200 && !r->rc; i++) {
		if (scif_register(r->epd, r->mem, PAGE, r->offset, RW, SCIF_MAP_FIXED) != r->offset) {
			if (errno != EADDRINUSE)
				r->rc = errno;
			continue;
		}
		r->registered++;
		if (scif_unregister(r->epd, r->offset, PAGE))
			r->rc = errno;
	}
	return NULL;
}

static void test_scif_register_races_rma_into_the_space(void **state)
{
	static struct registrar r[2];   /* static: a thread that overran its join keeps it */
	pthread_t thread[2];
	char *probe = scif_test_pages(1);
	int ok = 0, enxio = 0;

	(void)state;
	for (int i = 0; i < 2; i++) {
		r[i] = (struct registrar){ .epd = pair.server, .mem = scif_test_pages(1),
					   .offset = 0x600000 + i * (off_t)PAGE, .rc = 1 };
		assert_int_equal(pthread_create(&thread[i], NULL, register_loop_main, &r[i]), 0);
	}
	/* Meanwhile the peer writes into those offsets: each RMA lands or finds no window. */
	for (int i = 0; i < 400; i++) {
		if (scif_vwriteto(pair.client, probe, 64, 0x600000 + (i % 2) * (off_t)PAGE, SCIF_RMA_SYNC) == 0)
			ok++;
		else if (errno == ENXIO)
			enxio++;
		else
			fail_msg("scif_vwriteto: errno %d", errno);
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(fixture_join(thread[i], SCIF_TEST_TIMEOUT_MS * 2, NULL), 0);
		assert_int_equal(r[i].rc, 0);
		assert_true(r[i].registered > 0);
		scif_test_free(r[i].mem);
	}
	assert_int_equal(ok + enxio, 400);
	scif_test_free(probe);
}

static void test_scif_rma_needs_a_connection(void **state)
{
	scif_epd_t lone = scif_open();

	(void)state;
	assert_scif_errno(scif_writeto(lone, 0, 8, 0, 0), ENOTCONN);
	assert_scif_errno(scif_vreadfrom(lone, lmem, 8, 0, 0), ENOTCONN);
	assert_scif_ok(scif_close(lone));
}

static void test_scif_rma_after_peer_close_fails_econnreset(void **state)
{
	struct scif_test_pair p;
	char *m = scif_test_pages(1);

	(void)state;
	scif_test_pair_open(&p);
	assert_int_equal(scif_register(p.client, m, PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	assert_int_equal(scif_register(p.server, m, PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	assert_scif_ok(scif_writeto(p.client, 0, 8, 0, SCIF_RMA_SYNC));
	assert_scif_ok(scif_close(p.server));
	p.server = -1;
	scif_test_wait_hup(p.client);
	assert_scif_errno(scif_writeto(p.client, 0, 8, 0, SCIF_RMA_SYNC), ECONNRESET);
	assert_scif_errno(scif_vreadfrom(p.client, m, 8, 0, 0), ECONNRESET);
	scif_test_pair_close(&p);
	scif_test_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_scif_writeto_sync_lands_at_any_alignment, rma_reset),
		cmocka_unit_test_setup(test_scif_readfrom_sync_and_usecpu, rma_reset),
		cmocka_unit_test_setup(test_scif_async_rma_completes_by_fence, rma_reset),
		cmocka_unit_test_setup(test_scif_vwriteto_vreadfrom_use_plain_memory, rma_reset),
		cmocka_unit_test_setup(test_scif_vrma_usecache_follows_the_pages, rma_reset),
		cmocka_unit_test_setup(test_scif_vrma_uncached_follows_the_pages, rma_reset),
		cmocka_unit_test_setup(test_scif_rma_spans_adjacent_windows, rma_reset),
		cmocka_unit_test_setup(test_scif_rma_outside_windows_fails_enxio, rma_reset),
		cmocka_unit_test_setup(test_scif_rma_protection_fails_eacces, rma_reset),
		cmocka_unit_test_setup(test_scif_rma_bad_flags_and_length_fail_einval, rma_reset),
		cmocka_unit_test_setup(test_scif_rma_from_many_threads, rma_reset),
		cmocka_unit_test(test_scif_close_during_rmas_from_another_thread),
		cmocka_unit_test_setup(test_scif_register_races_rma_into_the_space, rma_reset),
		cmocka_unit_test(test_scif_rma_needs_a_connection),
		cmocka_unit_test(test_scif_rma_after_peer_close_fails_econnreset),
	};

	scif_test_env("scif-rma");
	return cmocka_run_group_tests_name("scif_rma", tests, rma_up, rma_down);
}
