/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_errors.c: the error enum, xrma_strerror and xrma_error_name
 * (include/xrma/errors.h): every code has a static description and its own
 * name, in either sign; unknown codes give "unknown error" and no name.
 */
#include "tests/helpers/fixture.h"

#include <limits.h>
#include <string.h>

#define CODE(c) { c, #c }

static const struct {
	int code;
	const char *name;
} codes[] = {
	CODE(XRMA_EPERM), CODE(XRMA_ENOENT), CODE(XRMA_EINTR), CODE(XRMA_ENXIO),
	CODE(XRMA_EAGAIN), CODE(XRMA_ENOMEM), CODE(XRMA_EACCES), CODE(XRMA_EFAULT),
	CODE(XRMA_EBUSY), CODE(XRMA_EEXIST), CODE(XRMA_ENODEV), CODE(XRMA_EINVAL),
	CODE(XRMA_ENOSPC), CODE(XRMA_ERANGE), CODE(XRMA_EPROTO), CODE(XRMA_EOVERFLOW),
	CODE(XRMA_EMSGSIZE), CODE(XRMA_ENOTSUP), CODE(XRMA_EADDRINUSE), CODE(XRMA_ENETDOWN),
	CODE(XRMA_ECONNABORTED), CODE(XRMA_ECONNRESET), CODE(XRMA_EISCONN), CODE(XRMA_ENOTCONN),
	CODE(XRMA_ETIMEDOUT), CODE(XRMA_ECONNREFUSED), CODE(XRMA_EHOSTUNREACH),
	CODE(XRMA_ECANCELED), CODE(XRMA_EHANDLE), CODE(XRMA_EALIGN_OFFSET),
	CODE(XRMA_EALIGN_SIZE), CODE(XRMA_ESTATE), CODE(XRMA_ELENGTH), CODE(XRMA_ENOTAVAIL),
	CODE(XRMA_ETRANSFER), CODE(XRMA_ELOST), CODE(XRMA_ENOPROV), CODE(XRMA_ECONFIG),
};
#define NCODES (sizeof(codes) / sizeof(codes[0]))

/* Codes no enum member has: past the end, inside the errno range but unused, extremes. */
static const int unknown_codes[] = { XRMA_EMAX_, -XRMA_EMAX_, 300, -300, 200, -200, 100000,
				     INT_MAX, INT_MIN + 1 };
#define NUNKNOWN (sizeof(unknown_codes) / sizeof(unknown_codes[0]))

static struct fixture fx;

static int errors_group_up(void **state)
{
	(void)state;
	return fixture_open(&fx, "errors", 1);
}

static int errors_group_down(void **state)
{
	(void)state;
	return fixture_close(&fx);
}

static void test_errors_strerror_every_code_returns_description(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NCODES; i++) {
		const char *pos = xrma_strerror(codes[i].code);
		const char *neg = xrma_strerror(-codes[i].code);

		assert_non_null(pos);
		assert_non_null(neg);
		assert_true(strlen(pos) > 0);
		if (strcmp(pos, "unknown error") == 0)
			fail_msg("%s has no description", codes[i].name);
		assert_string_equal(pos, neg);
	}
}

static void test_errors_strerror_zero_returns_description(void **state)
{
	const char *s = xrma_strerror(XRMA_OK);

	(void)state;
	assert_non_null(s);
	assert_true(strlen(s) > 0);
}

static void test_errors_strerror_unknown_code_returns_unknown_error(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NUNKNOWN; i++) {
		const char *s = xrma_strerror(unknown_codes[i]);

		assert_non_null(s);
		if (strcmp(s, "unknown error") != 0)
			fail_msg("xrma_strerror(%d) = \"%s\", expected \"unknown error\"",
				 unknown_codes[i], s);
	}
	assert_non_null(xrma_strerror(INT_MIN));
}

static void test_errors_strerror_codes_distinct_descriptions(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < NCODES; i++)
		for (j = i + 1; j < NCODES; j++)
			if (strcmp(xrma_strerror(codes[i].code), xrma_strerror(codes[j].code)) == 0)
				fail_msg("%s and %s share the description \"%s\"", codes[i].name,
					 codes[j].name, xrma_strerror(codes[i].code));
}

static void test_errors_error_name_every_code_returns_symbol(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NCODES; i++) {
		const char *pos = xrma_error_name(codes[i].code);
		const char *neg = xrma_error_name(-codes[i].code);

		if (!pos || strcmp(pos, codes[i].name) != 0)
			fail_msg("xrma_error_name(%d) = %s, expected %s", codes[i].code,
				 pos ? pos : "NULL", codes[i].name);
		if (!neg || strcmp(neg, codes[i].name) != 0)
			fail_msg("xrma_error_name(%d) = %s, expected %s", -codes[i].code,
				 neg ? neg : "NULL", codes[i].name);
	}
}

static void test_errors_error_name_unknown_code_returns_null(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NUNKNOWN; i++)
		if (xrma_error_name(unknown_codes[i]) != NULL)
			fail_msg("xrma_error_name(%d) = %s, expected NULL", unknown_codes[i],
				 xrma_error_name(unknown_codes[i]));
	assert_null(xrma_error_name(INT_MIN));
}

static void test_errors_enum_values_match_errno_and_own_range(void **state)
{
	size_t i;

	(void)state;
	/* errno-valued codes stay below 256; xrma's own codes are 256, 257, ... in order. */
	for (i = 0; i < NCODES; i++) {
		if (codes[i].code >= XRMA_EHANDLE)
			assert_int_equal(codes[i].code, XRMA_EHANDLE + (int)(i - (NCODES - 10)));
		else
			assert_true(codes[i].code > 0 && codes[i].code <= XRMA_ERRNO_MAX);
	}
	assert_int_equal(XRMA_EHANDLE, 256);
	assert_int_equal(XRMA_EMAX_, XRMA_ECONFIG + 1);
	assert_int_equal(XRMA_EBUSY, EBUSY);
	assert_int_equal(XRMA_ENOTSUP, EOPNOTSUPP);
}

#define STRERROR_THREADS 4
#define STRERROR_ROUNDS 2000

static void *strerror_worker(void *arg)
{
	const char **first = arg;
	size_t i, r;

	for (r = 0; r < STRERROR_ROUNDS; r++)
		for (i = 0; i < NCODES; i++)
			if (xrma_strerror(-codes[i].code) != first[i] ||
			    xrma_error_name(-codes[i].code) != xrma_error_name(codes[i].code))
				return (void *)1;
	return NULL;
}

static void test_errors_strerror_concurrent_threads_same_static_text(void **state)
{
	const char *first[NCODES];
	pthread_t threads[STRERROR_THREADS];
	void *ret;
	size_t i;

	(void)state;
	for (i = 0; i < NCODES; i++)
		first[i] = xrma_strerror(-codes[i].code);
	for (i = 0; i < STRERROR_THREADS; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, strerror_worker, first), 0);
	for (i = 0; i < STRERROR_THREADS; i++) {
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 5, &ret), 0);
		assert_null(ret);
	}
}

static void test_errors_real_failure_code_has_name(void **state)
{
	int rc;

	(void)state;
	rc = xrma_ctx_close(FIXTURE_FORGED(struct xrma_ctx));
	assert_true(rc < 0);
	assert_non_null(xrma_error_name(rc));
	assert_string_equal(xrma_error_name(rc), "XRMA_EHANDLE");
	assert_int_equal(fixture_count(fx.ctx[0]), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_errors_strerror_every_code_returns_description),
		T(test_errors_strerror_zero_returns_description),
		T(test_errors_strerror_unknown_code_returns_unknown_error),
		T(test_errors_strerror_codes_distinct_descriptions),
		T(test_errors_error_name_every_code_returns_symbol),
		T(test_errors_error_name_unknown_code_returns_null),
		T(test_errors_enum_values_match_errno_and_own_range),
		T(test_errors_strerror_concurrent_threads_same_static_text),
		T(test_errors_real_failure_code_has_name),
	};

	return cmocka_run_group_tests_name("errors", tests, errors_group_up, errors_group_down);
}
