/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_fence.c: RMA synchronisation (§3.8):
 * scif_fence_mark/scif_fence_wait for RMAs initiated by ourselves and by the
 * peer, scif_fence_signal writing local and remote values only once the marked
 * data is visible (both INIT flags), marks across many RMAs, and every
 * argument error (flags, alignment, offsets outside windows). A wait on a mark also
 * covers the signals before it, and a close covers the signals it still has.
 */
#include "tests/conformance/scif/scif_test.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "tests/helpers/fixture.h"

#define PAGE SCIF_TEST_PAGE
#define RW (SCIF_PROT_READ | SCIF_PROT_WRITE)
#define DATA (1u << 20)

static struct scif_test_pair pair;
static char *cmem, *smem;   /* client window 0x0 (data + a flag page), server window 0x0 */

static int fence_up(void **state)
{
	(void)state;
	scif_test_pair_open(&pair);
	cmem = scif_test_pages(DATA / PAGE + 1);
	smem = scif_test_pages(DATA / PAGE + 1);
	assert_int_equal(scif_register(pair.client, cmem, DATA + PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	assert_int_equal(scif_register(pair.server, smem, DATA + PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	return 0;
}

static int fence_down(void **state)
{
	(void)state;
	assert_scif_ok(scif_unregister(pair.client, 0, DATA + PAGE));
	assert_scif_ok(scif_unregister(pair.server, 0, DATA + PAGE));
	scif_test_pair_close(&pair);
	scif_test_free(cmem);
	scif_test_free(smem);
	return 0;
}

static int fence_reset(void **state)
{
	(void)state;
	memset(cmem, 0, DATA + PAGE);
	memset(smem, 0, DATA + PAGE);
	return 0;
}

static volatile uint64_t *flag_of(char *mem, size_t slot)
{
	return (volatile uint64_t *)(mem + DATA + slot * 8);
}

static void test_scif_fence_self_waits_for_earlier_rmas(void **state)
{
	int mark;

	(void)state;
	fixture_pattern(cmem, DATA, 1, 0);
	for (int i = 0; i < 8; i++)
		assert_scif_ok(scif_writeto(pair.client, 0, DATA, 0, 0));
	assert_scif_ok(scif_fence_mark(pair.client, SCIF_FENCE_INIT_SELF, &mark));
	assert_true(mark >= 0);
	assert_scif_ok(scif_fence_wait(pair.client, mark));
	assert_int_equal(fixture_pattern_check(smem, DATA, 1, 0), FIXTURE_MATCH);
	/* Waiting twice on a completed mark is fine. */
	assert_scif_ok(scif_fence_wait(pair.client, mark));
}

static void test_scif_fence_with_no_rma_returns_at_once(void **state)
{
	int mark;

	(void)state;
	assert_scif_ok(scif_fence_mark(pair.server, SCIF_FENCE_INIT_SELF, &mark));
	assert_scif_ok(scif_fence_wait(pair.server, mark));
	assert_scif_ok(scif_fence_mark(pair.server, SCIF_FENCE_INIT_PEER, &mark));
	assert_scif_ok(scif_fence_wait(pair.server, mark));
}

static void test_scif_fence_peer_waits_for_the_peers_rmas(void **state)
{
	int mark;

	(void)state;
	fixture_pattern(cmem, DATA, 2, 0);
	for (int i = 0; i < 8; i++)
		assert_scif_ok(scif_writeto(pair.client, 0, DATA, 0, 0));
	/* The target waits for what the initiator started. */
	assert_scif_ok(scif_fence_mark(pair.server, SCIF_FENCE_INIT_PEER, &mark));
	assert_scif_ok(scif_fence_wait(pair.server, mark));
	assert_int_equal(fixture_pattern_check(smem, DATA, 2, 0), FIXTURE_MATCH);
	/* Synchronous RMAs count too. */
	fixture_pattern(cmem, 64, 3, 0);
	assert_scif_ok(scif_writeto(pair.client, 0, 64, 0, SCIF_RMA_SYNC));
	assert_scif_ok(scif_fence_mark(pair.server, SCIF_FENCE_INIT_PEER, &mark));
	assert_scif_ok(scif_fence_wait(pair.server, mark));
	assert_int_equal(fixture_pattern_check(smem, 64, 3, 0), FIXTURE_MATCH);
}

static void test_scif_fence_signal_self_writes_after_data(void **state)
{
	(void)state;
	fixture_pattern(cmem, DATA, 4, 0);
	for (int i = 0; i < 4; i++)
		assert_scif_ok(scif_writeto(pair.client, 0, DATA, 0, 0));
	assert_scif_ok(scif_fence_signal(pair.client, DATA, 0x1111, DATA + 8, 0x2222,
					 SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL | SCIF_SIGNAL_REMOTE));
	/* When a value shows, the data it guards is there. */
	assert_int_equal(scif_test_wait_u64(flag_of(smem, 1), 0x2222, SCIF_TEST_TIMEOUT_MS), 0);
	assert_int_equal(fixture_pattern_check(smem, DATA, 4, 0), FIXTURE_MATCH);
	assert_int_equal(scif_test_wait_u64(flag_of(cmem, 0), 0x1111, SCIF_TEST_TIMEOUT_MS), 0);
	/* Remote only, 4-byte aligned offset. */
	assert_scif_ok(scif_fence_signal(pair.client, 0, 0, DATA + 20, 0x3333,
					 SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE));
	assert_int_equal(scif_test_wait_u64((volatile uint64_t *)(smem + DATA + 20), 0x3333,
					    SCIF_TEST_TIMEOUT_MS), 0);
}

static void test_scif_fence_signal_peer_writes_after_peers_data(void **state)
{
	(void)state;
	fixture_pattern(cmem, DATA, 5, 0);
	for (int i = 0; i < 4; i++)
		assert_scif_ok(scif_writeto(pair.client, 0, DATA, 0, 0));
	/* The target signals itself and the initiator once the initiator's writes landed. */
	assert_scif_ok(scif_fence_signal(pair.server, DATA + 16, 0x4444, DATA + 24, 0x5555,
					 SCIF_FENCE_INIT_PEER | SCIF_SIGNAL_LOCAL | SCIF_SIGNAL_REMOTE));
	assert_int_equal(scif_test_wait_u64(flag_of(smem, 2), 0x4444, SCIF_TEST_TIMEOUT_MS), 0);
	assert_int_equal(fixture_pattern_check(smem, DATA, 5, 0), FIXTURE_MATCH);
	assert_int_equal(scif_test_wait_u64(flag_of(cmem, 3), 0x5555, SCIF_TEST_TIMEOUT_MS), 0);
}

static void test_scif_fence_bad_arguments(void **state)
{
	scif_epd_t c = pair.client;
	int mark;

	(void)state;
	assert_scif_errno(scif_fence_mark(c, 0, &mark), EINVAL);
	assert_scif_errno(scif_fence_mark(c, SCIF_FENCE_INIT_SELF | SCIF_FENCE_INIT_PEER, &mark), EINVAL);
	assert_scif_errno(scif_fence_mark(c, SCIF_FENCE_RAS_SELF, &mark), EINVAL);
	assert_scif_errno(scif_fence_mark(c, SCIF_FENCE_INIT_SELF, NULL), EINVAL);
	assert_scif_errno(scif_fence_wait(c, -1), EINVAL);
	/* Signals: exactly one INIT flag, at least one SIGNAL flag, nothing else. */
	assert_scif_errno(scif_fence_signal(c, DATA, 1, DATA, 1, SCIF_SIGNAL_LOCAL), EINVAL);
	assert_scif_errno(scif_fence_signal(c, DATA, 1, DATA, 1, SCIF_FENCE_INIT_SELF), EINVAL);
	assert_scif_errno(scif_fence_signal(c, DATA, 1, DATA, 1,
					    SCIF_FENCE_INIT_SELF | SCIF_FENCE_INIT_PEER | SCIF_SIGNAL_LOCAL),
			  EINVAL);
	assert_scif_errno(scif_fence_signal(c, DATA, 1, DATA, 1,
					    SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL | 0x100), EINVAL);
	/* Offsets: 4-byte aligned, inside a window. */
	assert_scif_errno(scif_fence_signal(c, DATA + 2, 1, 0, 0, SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL),
			  EINVAL);
	assert_scif_errno(scif_fence_signal(c, 0, 0, DATA + 6, 1, SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE),
			  EINVAL);
	assert_scif_errno(scif_fence_signal(c, 0x900000, 1, 0, 0, SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL),
			  ENXIO);
	assert_scif_errno(scif_fence_signal(c, 0, 0, 0x900000, 1, SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE),
			  ENXIO);
	assert_scif_errno(scif_fence_signal(c, -8, 1, 0, 0, SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL), ENXIO);
	/* The last 4 bytes of a window cannot hold the 8-byte value. */
	assert_scif_errno(scif_fence_signal(c, DATA + PAGE - 4, 1, 0, 0,
					    SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL), ENXIO);
}

struct waiter {
	scif_epd_t epd;
	int mark;
	int rc;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	w->rc = scif_fence_wait(w->epd, w->mark);
	return NULL;
}

static void test_scif_fence_waits_from_threads(void **state)
{
	struct waiter w[3];
	pthread_t t[3];

	(void)state;
	fixture_pattern(cmem, DATA, 6, 0);
	for (int i = 0; i < 3; i++) {
		assert_scif_ok(scif_writeto(pair.client, 0, DATA, 0, 0));
		w[i].epd = pair.client;
		assert_scif_ok(scif_fence_mark(pair.client, SCIF_FENCE_INIT_SELF, &w[i].mark));
		assert_int_equal(pthread_create(&t[i], NULL, waiter_main, &w[i]), 0);
	}
	for (int i = 0; i < 3; i++) {
		assert_int_equal(fixture_join(t[i], SCIF_TEST_TIMEOUT_MS, NULL), 0);
		assert_int_equal(w[i].rc, 0);
	}
	assert_int_equal(fixture_pattern_check(smem, DATA, 6, 0), FIXTURE_MATCH);
}

/*
 * A signal comes before the mark in the endpoint's order: once the mark's wait returns,
 * both values are written (every round, sizes mixed so some signals fire at once and
 * some at a transfer's end).
 */
static void test_scif_fence_wait_sees_the_signals_before_the_mark(void **state)
{
	(void)state;
	for (uint64_t round = 1; round <= 200; round++) {
		size_t len = round % 4 == 0 ? DATA : PAGE * (1 + round % 8);
		int mark;

		assert_scif_ok(scif_writeto(pair.client, 0, len, 0, 0));
		assert_scif_ok(scif_fence_signal(pair.client, DATA, round, DATA + 8, round,
						 SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL |
							 SCIF_SIGNAL_REMOTE));
		assert_scif_ok(scif_fence_mark(pair.client, SCIF_FENCE_INIT_SELF, &mark));
		assert_scif_ok(scif_fence_wait(pair.client, mark));
		assert_int_equal(__atomic_load_n(flag_of(cmem, 0), __ATOMIC_ACQUIRE), round);
		assert_int_equal(__atomic_load_n(flag_of(smem, 1), __ATOMIC_ACQUIRE), round);
	}
}

/*
 * Closing right after a signal to the peer's window: the close waits for the signal,
 * then lets go of the peer's window. Nothing stays behind, round after round.
 */
static void test_scif_close_after_a_remote_signal_keeps_nothing(void **state)
{
	int before = 0;

	(void)state;
	for (int round = 0; round <= 40; round++) {
		struct scif_test_pair p;

		/* Round 0 warms up whatever the library opens once. */
		if (round == 1) {
			before = fixture_open_fds();
			assert_true(before > 0);
		}
		scif_test_pair_open(&p);
		assert_int_equal(scif_register(p.server, smem, DATA + PAGE, 0, RW, SCIF_MAP_FIXED), 0);
		assert_int_equal(scif_register(p.client, cmem, DATA + PAGE, 0, RW, SCIF_MAP_FIXED), 0);
		assert_scif_ok(scif_writeto(p.client, 0, DATA, 0, 0));
		assert_scif_ok(scif_fence_signal(p.client, 0, 0, DATA + 8, (uint64_t)round + 1,
						 SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE));
		assert_scif_ok(scif_close(p.client));
		p.client = -1;
		assert_int_equal(__atomic_load_n(flag_of(smem, 1), __ATOMIC_ACQUIRE),
				 (uint64_t)round + 1);
		scif_test_pair_close(&p);
	}
	assert_int_equal(fixture_open_fds(), before);
}

static void test_scif_fence_after_peer_close_fails_econnreset(void **state)
{
	struct scif_test_pair p;
	int mark;

	(void)state;
	scif_test_pair_open(&p);
	assert_scif_ok(scif_close(p.server));
	p.server = -1;
	scif_test_wait_hup(p.client);
	assert_scif_errno(scif_fence_mark(p.client, SCIF_FENCE_INIT_SELF, &mark), ECONNRESET);
	assert_scif_errno(scif_fence_wait(p.client, 0), ECONNRESET);
	scif_test_pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_scif_fence_self_waits_for_earlier_rmas, fence_reset),
		cmocka_unit_test_setup(test_scif_fence_with_no_rma_returns_at_once, fence_reset),
		cmocka_unit_test_setup(test_scif_fence_peer_waits_for_the_peers_rmas, fence_reset),
		cmocka_unit_test_setup(test_scif_fence_signal_self_writes_after_data, fence_reset),
		cmocka_unit_test_setup(test_scif_fence_signal_peer_writes_after_peers_data, fence_reset),
		cmocka_unit_test_setup(test_scif_fence_bad_arguments, fence_reset),
		cmocka_unit_test_setup(test_scif_fence_waits_from_threads, fence_reset),
		cmocka_unit_test_setup(test_scif_fence_wait_sees_the_signals_before_the_mark,
				       fence_reset),
		cmocka_unit_test_setup(test_scif_close_after_a_remote_signal_keeps_nothing, fence_reset),
		cmocka_unit_test(test_scif_fence_after_peer_close_fails_econnreset),
	};

	scif_test_env("scif-fence");
	return cmocka_run_group_tests_name("scif_fence", tests, fence_up, fence_down);
}
