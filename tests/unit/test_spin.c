/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_spin.c: the spin before a wait sleeps (common/spin.h, internal)
 * is bounded in time, not in rounds; a wait for a thread of this process does not
 * spin on a thread allowed one CPU; and [core] spin_us is checked when a context
 * opens (public).
 */
#include "tests/helpers/fixture.h"
#include "common/spin.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

static struct fixture fx;

static int spin_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "spin", 1);
}

static int spin_group_down(void **state)
{
	(void)state;
	unsetenv("XRMA_SPIN_US");
	xrma_spin_set_budget_ns(XRMA_SPIN_US_DEFAULT * 1000ull);
	return fixture_close(&fx);
}

/* Rounds until the spin gives up, and the time that took. */
static unsigned spin_out(enum xrma_spin_for whom, uint64_t *took_ns)
{
	struct xrma_spin spin;
	uint64_t start = xrma_spin_clock_ns();
	unsigned rounds = 0;

	xrma_spin_start(&spin, whom);
	while (xrma_spin_again(&spin))
		rounds++;
	*took_ns = xrma_spin_clock_ns() - start;
	return rounds;
}

static void test_spin_lasts_its_budget_in_time(void **state)
{
	uint64_t took;
	unsigned rounds;

	(void)state;
	/* 2 ms is far more pauses than any fixed count the spin used to allow. */
	xrma_spin_set_budget_ns(2000000);
	rounds = spin_out(XRMA_SPIN_PEER, &took);
	assert_true(took >= 2000000);
	assert_true(rounds > 2048);
	xrma_spin_set_budget_ns(XRMA_SPIN_US_DEFAULT * 1000ull);
}

static void test_spin_budget_zero_never_spins(void **state)
{
	uint64_t took;

	(void)state;
	xrma_spin_set_budget_ns(0);
	assert_int_equal(spin_out(XRMA_SPIN_PEER, &took), 0);
	assert_int_equal(spin_out(XRMA_SPIN_LOCAL, &took), 0);
	xrma_spin_set_budget_ns(XRMA_SPIN_US_DEFAULT * 1000ull);
}

static void *pinned_thread(void *arg)
{
	unsigned *rounds = arg;
	cpu_set_t one;
	uint64_t took;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return (void *)1;
	rounds[0] = spin_out(XRMA_SPIN_LOCAL, &took);
	rounds[1] = spin_out(XRMA_SPIN_PEER, &took);
	return NULL;
}

/* A thread pinned to one CPU would only take the CPU the local thread it waits for needs. */
static void test_spin_for_local_thread_not_on_one_cpu(void **state)
{
	unsigned rounds[2] = { 1, 0 };
	pthread_t t;
	void *ret;

	(void)state;
	xrma_spin_set_budget_ns(200000);
	assert_int_equal(pthread_create(&t, NULL, pinned_thread, rounds), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
	assert_int_equal(rounds[0], 0);
	assert_true(rounds[1] > 0);
	xrma_spin_set_budget_ns(XRMA_SPIN_US_DEFAULT * 1000ull);
}

static void test_spin_us_checked_at_context_open(void **state)
{
	static const char *const bad[] = { "abc", "-1", "1000001", "5us" };
	struct xrma_ctx_attr attr = { .provider = "loopback", .node_id = 2 };
	struct xrma_ctx *ctx = NULL;

	(void)state;
	attr.fabric = fx.fabric;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("XRMA_SPIN_US", bad[i], 1);
		if (xrma_ctx_open(&attr, &ctx) != -XRMA_ECONFIG)
			fail_msg("XRMA_SPIN_US=\"%s\" was not refused with XRMA_ECONFIG", bad[i]);
		assert_non_null(strstr(xrma_error_detail(), "spin_us"));
	}
	setenv("XRMA_SPIN_US", "0", 1);
	assert_rc(xrma_ctx_open(&attr, &ctx), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	unsetenv("XRMA_SPIN_US");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spin_lasts_its_budget_in_time),
		cmocka_unit_test(test_spin_budget_zero_never_spins),
		cmocka_unit_test(test_spin_for_local_thread_not_on_one_cpu),
		cmocka_unit_test(test_spin_us_checked_at_context_open),
	};

	return cmocka_run_group_tests_name("spin", tests, spin_group_up, spin_group_down);
}
