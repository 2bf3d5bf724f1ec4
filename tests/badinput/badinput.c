/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/badinput/badinput.c: runs the generated cases of one API as cmocka tests
 * (badinput.h). Per case: a fresh fixture, the call with its one bad argument, the
 * exact documented result, then the fixture's own check and a clean teardown.
 */
#include "tests/badinput/badinput.h"
#include "tests/helpers/watchdog.h"

#include <stdio.h>
#include <stdlib.h>

struct bi_slot {
	const struct bi_api *api;
	const struct bi_case *c;
	struct bi_fx *F;
};

static int bi_setup(void **state)
{
	struct bi_slot *s = *state;

	watchdog_arm(BI_CASE_ALARM_S, s->c->label, "fixture set-up");
	s->F = s->api->up();
	return s->F ? 0 : -1;
}

static int bi_teardown(void **state)
{
	struct bi_slot *s = *state;
	int rc;

	watchdog_arm(BI_CASE_ALARM_S, s->c->label, "teardown");
	rc = s->api->down(s->F);

	s->F = NULL;
	watchdog_disarm();
	return rc;
}

static void bi_test(void **state)
{
	struct bi_slot *s = *state;
	long got;

	watchdog_arm(BI_CASE_ALARM_S, s->c->label, "the call and the check");
	got = s->c->call(s->F);

	if (got != s->c->expected) {
		print_error("%s: got %ld (%s), documented %ld (%s)\n", s->c->label, got,
			    s->api->describe(got), s->c->expected, s->api->describe(s->c->expected));
		fail();
	}
	s->api->check(s->F);
}

int bi_run(const struct bi_api *api)
{
	struct CMUnitTest *tests = calloc(api->count, sizeof(*tests));
	struct bi_slot *slots = calloc(api->count, sizeof(*slots));
	int failures;

	if (!tests || !slots) {
		fprintf(stderr, "badinput: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < api->count; i++) {
		slots[i] = (struct bi_slot){ .api = api, .c = &api->cases[i] };
		tests[i] = (struct CMUnitTest){
			.name = api->cases[i].label,
			.test_func = bi_test,
			.setup_func = bi_setup,
			.teardown_func = bi_teardown,
			.initial_state = &slots[i],
		};
	}
	failures = _cmocka_run_group_tests(api->name, tests, api->count, NULL, NULL);
	free(slots);
	free(tests);
	return failures;
}
