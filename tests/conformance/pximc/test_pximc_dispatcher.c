/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/test_pximc_dispatcher.c: the Dispatcher (libpximc) over two scripted
 * mock vendors (mock_vendor.c) linked into a vendor directory made here, beside a vendor
 * without PXIMC_cleanup, a file that is no library, and a link named like the Dispatcher:
 * discovery, id translation, aggregation and INSUFFICIENT_SPACE counting, first-error rule,
 * rescans, removed ids never reused, session routing and pass-through, cleanup. Spec test
 * ideas 95-100.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/conformance/pximc/pximc_test.h"
#include "tests/helpers/proc.h"

struct mock_pximc_state {
	uint32_t ids[16];
	uint32_t count;
	tPXIMC_Status find_status;
	uint32_t cleanups;
	uint32_t last_device;
};

static char vendor_dir[64];
static struct mock_pximc_state *mock_a, *mock_b;

static const char *const links[][2] = {
	{ "a-mock.so", "tests/conformance/pximc/.libs/libpximc_mock_a.so" },
	{ "b-mock.so", "tests/conformance/pximc/.libs/libpximc_mock_b.so" },
	{ "c-broken.so", "tests/conformance/pximc/.libs/libpximc_mock_broken.so" },
	{ "d-not-a-library.so", "Makefile" },
	{ "libpximc64.so", ".libs/libpximc.so" },
};

static struct mock_pximc_state *mock_state(const char *rel)
{
	char path[4096];
	struct mock_pximc_state *(*script)(void);
	void *dl;

	snprintf(path, sizeof(path), "%s/%s", getenv("XRMA_TEST_BUILDDIR"), rel);
	dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!dl)
		return NULL;
	*(void **)&script = dlsym(dl, "mock_pximc_script");
	dlclose(dl);
	return script ? script() : NULL;
}

static int group_up(void **state)
{
	const char *build = getenv("XRMA_TEST_BUILDDIR");
	uint32_t actual;

	(void)state;
	if (!build)
		build = ".";
	setenv("XRMA_TEST_BUILDDIR", build, 0);
	snprintf(vendor_dir, sizeof(vendor_dir), "/tmp/pximc-vendors-XXXXXX");
	if (!mkdtemp(vendor_dir))
		return -1;
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		char from[4096], to[4096];

		snprintf(from, sizeof(from), "%s/%s", vendor_dir, links[i][0]);
		if (links[i][1][0] == '/')
			snprintf(to, sizeof(to), "%s", links[i][1]);
		else if (!realpath(build, to) || strlen(to) + strlen(links[i][1]) + 2 > sizeof(to))
			return -1;
		else
			strcat(strcat(to, "/"), links[i][1]);
		if (symlink(to, from))
			return -1;
	}
	setenv("PXIMC_VENDOR_PATH", vendor_dir, 1);
	/* The first call loads the vendors; the mocks start with no interface. */
	if (PXIMC_findInterfaces(0, NULL, &actual) != PXIMC_SUCCESS)
		return -1;
	mock_a = mock_state(links[0][1]);
	mock_b = mock_state(links[1][1]);
	return mock_a && mock_b ? 0 : -1;
}

static int group_down(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		char from[128];

		snprintf(from, sizeof(from), "%s/%s", vendor_dir, links[i][0]);
		unlink(from);
	}
	rmdir(vendor_dir);
	return 0;
}

static int test_up(void **state)
{
	(void)state;
	memset(mock_a, 0, sizeof(*mock_a));
	memset(mock_b, 0, sizeof(*mock_b));
	return 0;
}

static void script(struct mock_pximc_state *m, uint32_t count, uint32_t first)
{
	m->count = count;
	for (uint32_t i = 0; i < count; i++)
		m->ids[i] = first + i;
}

/* Which mock served interface id: 1 or 2 (from its answer), 0 if none. */
static uint32_t served_by(uint32_t id, uint32_t *vendor_id)
{
	uint32_t value = 0, actual = 0;

	if (PXIMC_queryInterfaceInformation(id, PXIMC_U32_MANF_ID, 4, &value, &actual))
		return 0;
	*vendor_id = value % 1000;
	return value / 1000;
}

/* [idea 95] Both vendors say interface 1; the Dispatcher shows two ids, each routed. */
static void test_same_vendor_ids_get_distinct_routed_ids(void **state)
{
	uint32_t ids[4] = { 0 }, actual = 0, vid = 0;

	(void)state;
	script(mock_a, 1, 1);
	script(mock_b, 1, 1);
	assert_px(PXIMC_findInterfaces(4, ids, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 2);
	assert_true(ids[0] && ids[1] && ids[0] != ids[1]);
	assert_int_equal(served_by(ids[0], &vid), 1);
	assert_int_equal(vid, 1);
	assert_int_equal(served_by(ids[1], &vid), 2);
	assert_int_equal(vid, 1);
	/* Pure pass-through of another interface call. */
	assert_px(PXIMC_findWindows(ids[1], 0, NULL, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 2);
}

/* [idea 96] 2 + 3 interfaces: counting, space, and the first vendor's error. */
static void test_aggregation_counts_and_first_error(void **state)
{
	uint32_t ids[8] = { 0 }, actual = 0;

	(void)state;
	script(mock_a, 2, 10);
	script(mock_b, 3, 20);
	assert_px(PXIMC_findInterfaces(4, ids, &actual), PXIMC_INSUFFICIENT_SPACE);
	assert_int_equal(actual, 5);
	assert_px(PXIMC_findInterfaces(5, ids, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 5);
	mock_a->find_status = PXIMC_INVALID_ARGUMENT;
	mock_b->find_status = PXIMC_INTERFACE_DOWN;
	assert_px(PXIMC_findInterfaces(8, ids, &actual), PXIMC_INVALID_ARGUMENT);
	mock_a->find_status = 0;
	assert_px(PXIMC_findInterfaces(8, ids, &actual), PXIMC_INTERFACE_DOWN);
	assert_px(PXIMC_findInterfaces(8, NULL, &actual), PXIMC_INVALID_ARGUMENT);
}

/* [ideas 97, 98] Unknown ids rescan; removed ids are never given to new interfaces. */
static void test_unknown_interface_rescans_and_ids_are_never_reused(void **state)
{
	uint32_t ids[4] = { 0 }, actual = 0, vid = 0, newest = 0, removed;

	(void)state;
	script(mock_a, 1, 30);
	assert_px(PXIMC_findInterfaces(4, ids, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 1);
	removed = ids[0];
	/* Hot-add 31: its id is the next one handed out, usable without findInterfaces. */
	script(mock_a, 2, 30);
	for (uint32_t probe = removed + 1; probe < removed + 64 && !newest; probe++)
		if (served_by(probe, &vid) == 1 && vid == 31)
			newest = probe;
	assert_true(newest > removed);
	/* Remove 30, add 32: 32 gets a new id, and 30's id is dead. */
	mock_a->ids[0] = 32;
	assert_px(PXIMC_findInterfaces(4, ids, &actual), PXIMC_SUCCESS);
	assert_int_equal(actual, 2);
	for (uint32_t i = 0; i < actual; i++)
		assert_true(ids[i] != removed);
	assert_px(PXIMC_queryInterfaceInformation(removed, PXIMC_U32_MANF_ID, 4, &vid, &actual),
		  PXIMC_INVALID_INTERFACE);
	assert_px(PXIMC_waitForInterfaceEvent(0, 0, &vid), PXIMC_INVALID_INTERFACE);
}

/* [idea 99] Sessions: same vendor number 7 twice, distinct numbers, routed, passed through. */
static void test_sessions_are_renumbered_and_routed(void **state)
{
	uint32_t ids[4] = { 0 }, actual = 0, sa = 0, sb = 0, reason = 55, vid;
	uint64_t size = 0, address = 0;
	void *remote, *local;

	(void)state;
	script(mock_a, 1, 40);
	script(mock_b, 1, 40);
	assert_px(PXIMC_findInterfaces(4, ids, &actual), PXIMC_SUCCESS);
	if (served_by(ids[0], &vid) != 1) {
		uint32_t t = ids[0];

		ids[0] = ids[1];
		ids[1] = t;
	}
	assert_px(PXIMC_requestWindowLogicalAsServer(ids[0], 1, 16, 0, 16, 0, 0, NULL, 0, &sa),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_requestWindowLogicalAsPeer(ids[1], 1, 16, 0, 16, 0, 0, NULL, 0, &sb),
		  PXIMC_SUCCESS);
	assert_true(sa && sb && sa != sb);
	assert_px(PXIMC_waitForConnection(sa, 0, &remote, &size, &local, &address), PXIMC_SUCCESS);
	assert_int_equal(size, 107);
	assert_px(PXIMC_waitForConnection(sb, 0, &remote, &size, &local, &address), PXIMC_SUCCESS);
	assert_int_equal(size, 207);
	assert_px(PXIMC_getPhysicalAddress(sb, &address), PXIMC_SUCCESS);
	assert_int_equal(address, (2ull << 32) | 7);
	assert_px(PXIMC_enableDeviceAccess(sb, 1, 42, 0, 0), PXIMC_SUCCESS);
	assert_int_equal(mock_b->last_device, 42);
	assert_int_equal(mock_a->last_device, 0);
	assert_px(PXIMC_waitForSessionEvent(sa, 0, &reason), PXIMC_TIMEOUT);
	assert_int_equal(reason, 55);
	assert_px(PXIMC_assertEvent(sa), PXIMC_SUCCESS);
	/* Unknown numbers never reach a vendor; a failed request hands out none. */
	assert_px(PXIMC_assertEvent(0), PXIMC_INVALID_SESSION);
	assert_px(PXIMC_assertEvent(sb + 100), PXIMC_INVALID_SESSION);
	assert_px(PXIMC_requestWindowLogicalAsClient(ids[0], 1, 16, 0, 16, 0, 0, &reason),
		  PXIMC_NO_PAIRING);
	assert_int_equal(reason, 55);
	assert_px(PXIMC_requestWindowLogicalAsServer(ids[0], 1, 16, 0, 16, 0, 0, NULL, 0, NULL),
		  PXIMC_INVALID_ARGUMENT);
	assert_px(PXIMC_requestWindowLogicalAsServer(0, 1, 16, 0, 16, 0, 0, NULL, 0, &reason),
		  PXIMC_INVALID_INTERFACE);
	assert_px(PXIMC_closeWindow(sa), PXIMC_SUCCESS);
	assert_px(PXIMC_closeWindow(sa), PXIMC_INVALID_SESSION);
	assert_px(PXIMC_closeWindow(sb), PXIMC_SUCCESS);
}

/* [idea 100] Only the two complete mocks loaded; cleanup reaches each exactly once. */
static void test_cleanup_calls_each_vendor_once(void **state)
{
	uint32_t ids[4], actual = 0, session = 0;

	(void)state;
	script(mock_a, 1, 50);
	assert_px(PXIMC_findInterfaces(4, ids, &actual), PXIMC_SUCCESS);
	assert_px(PXIMC_requestWindowLogicalAsServer(ids[0], 1, 16, 0, 16, 0, 0, NULL, 0, &session),
		  PXIMC_SUCCESS);
	assert_px(PXIMC_cleanup(), PXIMC_SUCCESS);
	assert_int_equal(mock_a->cleanups, 1);
	assert_int_equal(mock_b->cleanups, 1);
	assert_px(PXIMC_closeWindow(session), PXIMC_INVALID_SESSION);
	assert_null(mock_state("tests/conformance/pximc/.libs/libpximc_mock_broken.so"));
}

/* Child: a Dispatcher whose vendor directory is empty. Returns 0 when it says NO_PROVIDER. */
static int role_no_vendor(int sock, const char *dir)
{
	uint32_t ids[2], actual = 7, reason = 0;

	(void)sock;
	setenv("PXIMC_VENDOR_PATH", dir, 1);
	PROC_CHECK(PXIMC_findInterfaces(2, ids, &actual) == PXIMC_NO_PROVIDER);
	PROC_CHECK(actual == 0);
	PROC_CHECK(PXIMC_waitForInterfaceEvent(1, 0, &reason) == PXIMC_INVALID_INTERFACE);
	PROC_CHECK(PXIMC_closeWindow(1) == PXIMC_INVALID_SESSION);
	PROC_CHECK(PXIMC_cleanup() == PXIMC_SUCCESS);
	return 0;
}

static const struct proc_role roles[] = {
	{ "no-vendor", role_no_vendor },
	{ NULL, NULL },
};

/* [idea 100] No vendor library at all: the warning, and nothing else answers. */
static void test_no_vendor_gives_no_provider(void **state)
{
	char empty[64];
	struct proc child;

	(void)state;
	snprintf(empty, sizeof(empty), "/tmp/pximc-empty-XXXXXX");
	assert_non_null(mkdtemp(empty));
	assert_int_equal(proc_spawn(&child, NULL, 1, "no-vendor", empty), 0);
	assert_int_equal(proc_join(&child, FIXTURE_TIMEOUT_MS), 0);
	rmdir(empty);
}

int main(int argc, char **argv)
{
#define T(f) cmocka_unit_test_setup(f, test_up)
	const struct CMUnitTest tests[] = {
		T(test_same_vendor_ids_get_distinct_routed_ids),
		T(test_aggregation_counts_and_first_error),
		T(test_unknown_interface_rescans_and_ids_are_never_reused),
		T(test_sessions_are_renumbered_and_routed),
		T(test_cleanup_calls_each_vendor_once),
		T(test_no_vendor_gives_no_provider),
	};
#undef T
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	return cmocka_run_group_tests_name("pximc_dispatcher", tests, group_up, group_down);
}
