/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/test_signal_handlers.c: linking one of our libraries changes nothing
 * in a program's signal handling, and libfabric is loaded only into a program that
 * chooses the ofi provider. Built once per face (TEST_FACE_SCIF, _SISCI, _PXIMC, or
 * the core API alone, which also holds the ofi module cases); each program uses its
 * face on the default provider, in itself and in a second process, and checks that
 * the fatal signals still have their default action and that neither libfabric nor
 * its dependencies were loaded. cmocka installs handlers of its own while it runs
 * tests, so the test process checks for the default action in main(), before cmocka
 * starts, and later that using the face changed no action; the second processes,
 * which run no cmocka, check for the default action throughout.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xrma/xrma.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"
#if defined(TEST_FACE_SCIF)
#include <scif.h>
#define TEST_FACE "scif"
#elif defined(TEST_FACE_SISCI)
#include <sisci_api.h>
#define TEST_FACE "sisci"
#elif defined(TEST_FACE_PXIMC)
#include <pximc.h>
#define TEST_FACE "pximc"
#else
#define TEST_FACE "core"
#endif

#define WAIT_MS 20000
#define PARENT_NODE 1u
#define CHILD_NODE 2u

/* The signals a library's handler would turn from a crash into something else. */
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGTERM, SIGINT, SIGILL, SIGFPE, SIGABRT };

/* Objects that must not be in a process that never chose ofi: libfabric, the libraries
 * it pulls in that install handlers (PSM, infinipath), and our module. */
static const char *const fabric_objects[] = { "libfabric", "libpsm", "libinfinipath",
					      "libxrma-ofi" };

static char fabric[XRMA_NAME_MAX];
/* handler_installed() in main(), before cmocka installed its own. */
static int handler_at_start = -1;

#define FATAL_COUNT (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

/*
 * Whether a handler belongs to a sanitizer runtime this test was built with
 * (ASan, UBSan and TSan catch SIGSEGV, SIGBUS and SIGFPE themselves): part of
 * the program as its builder chose, not something a library of ours added.
 */
static bool sanitizer_handler(void *fn)
{
	Dl_info info;

	return dladdr(fn, &info) && info.dli_fname &&
	       (strstr(info.dli_fname, "libasan") || strstr(info.dli_fname, "libtsan") ||
		strstr(info.dli_fname, "libubsan"));
}

/* The first fatal signal whose action is not the default, or 0. */
static int handler_installed(void)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old;
		void *fn;

		if (sigaction(fatal_signals[i], NULL, &old))
			return fatal_signals[i];
		fn = (old.sa_flags & SA_SIGINFO) ? (void *)old.sa_sigaction : (void *)old.sa_handler;
		if (fn != (void *)SIG_DFL && !sanitizer_handler(fn))
			return fatal_signals[i];
	}
	return 0;
}

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	return info->dlpi_name && strstr(info->dlpi_name, (const char *)arg) ? 1 : 0;
}

static void actions_get(struct sigaction *actions)
{
	for (size_t i = 0; i < FATAL_COUNT; i++)
		assert_int_equal(sigaction(fatal_signals[i], NULL, &actions[i]), 0);
}

/* The first fatal signal whose action differs from before, or 0. */
static int actions_changed(const struct sigaction *before)
{
	struct sigaction now[FATAL_COUNT];

	actions_get(now);
	for (size_t i = 0; i < FATAL_COUNT; i++)
		if (now[i].sa_handler != before[i].sa_handler ||
		    (now[i].sa_flags & SA_SIGINFO) != (before[i].sa_flags & SA_SIGINFO))
			return fatal_signals[i];
	return 0;
}

/* Whether a loaded object's path contains name. */
static bool object_loaded(const char *name)
{
	return dl_iterate_phdr(find_object, (void *)name) != 0;
}

/* The first of fabric_objects that is loaded, or NULL. */
static const char *fabric_loaded(void)
{
	for (size_t i = 0; i < sizeof(fabric_objects) / sizeof(fabric_objects[0]); i++)
		if (object_loaded(fabric_objects[i]))
			return fabric_objects[i];
	return NULL;
}

/* Open the face on the default provider (XRMA_NODE_ID and XRMA_FABRIC say which node
 * on which fabric), use it a little and close it: 0, or the line that failed. */
static int face_use(uint32_t node)
{
	(void)node;
#if defined(TEST_FACE_SCIF)
	{
		uint16_t nodes[16], self = 0;
		scif_epd_t epd = scif_open();

		if (epd == SCIF_OPEN_FAILED)
			return __LINE__;
		if (scif_bind(epd, 0) <= 0 || scif_get_nodeIDs(nodes, 16, &self) < 1) {
			scif_close(epd);
			return __LINE__;
		}
		if (scif_close(epd))
			return __LINE__;
	}
#elif defined(TEST_FACE_SISCI)
	{
		sci_desc_t sd;
		sci_error_t err;

		SCIInitialize(0, &err);
		if (err != SCI_ERR_OK)
			return __LINE__;
		SCIOpen(&sd, 0, &err);
		if (err != SCI_ERR_OK)
			return __LINE__;
		SCIClose(sd, 0, &err);
		if (err != SCI_ERR_OK)
			return __LINE__;
		SCITerminate();
	}
#elif defined(TEST_FACE_PXIMC)
	{
		uint32_t ids[16], actual = 0;

		if (PXIMC_findInterfaces(16, ids, &actual) != PXIMC_SUCCESS)
			return __LINE__;
		if (PXIMC_cleanup() != PXIMC_SUCCESS)
			return __LINE__;
	}
#else
	{
		struct xrma_ctx *ctx;
		struct xrma_ctx_info info;

		if (xrma_ctx_open(NULL, &ctx))
			return __LINE__;
		if (xrma_ctx_query(ctx, &info) || strcmp(info.provider, xrma_provider_default()) ||
		    info.node_id != node) {
			xrma_ctx_close(ctx);
			return __LINE__;
		}
		if (xrma_ctx_close(ctx))
			return __LINE__;
	}
#endif
	return 0;
}

/* ------------------------------------------------------------------ child roles */

/* A second program of the same face: checks before and after using it, reports 0. */
static int role_face(int sock, const char *arg)
{
	(void)arg;
	PROC_CHECK(handler_installed() == 0);
	PROC_CHECK(fabric_loaded() == NULL);
	PROC_CHECK(face_use(CHILD_NODE) == 0);
	PROC_CHECK(handler_installed() == 0);
	PROC_CHECK(fabric_loaded() == NULL);
	PROC_CHECK(proc_send(sock, 1) == 0);
	return 0;
}

#if XRMA_PROV_OFI && !defined(TEST_FACE_SCIF) && !defined(TEST_FACE_SISCI) && \
	!defined(TEST_FACE_PXIMC)
/* A program that chooses ofi: the module (and libfabric with it) is loaded then, not
 * before. arg is the node file. */
static int role_ofi(int sock, const char *arg)
{
	const struct xrma_ctx_attr attr = { .provider = "ofi", .node_id = XRMA_NODE_ANY };
	struct xrma_provider_info pinfo;
	struct xrma_ctx_info info;
	struct xrma_ctx *ctx;
	bool listed = false;

	setenv("XRMA_OFI_NODES", arg, 1);
	/* Listing the providers, ofi among them, loads nothing. */
	for (int i = 0; xrma_provider_get(i, &pinfo) == 0; i++)
		listed |= !strcmp(pinfo.name, "ofi");
	PROC_CHECK(listed);
	PROC_CHECK(fabric_loaded() == NULL);
	PROC_CHECK_RC(xrma_ctx_open(&attr, &ctx), 0);
	PROC_CHECK(object_loaded("libxrma-ofi.so"));
	PROC_CHECK(object_loaded("libfabric"));
	PROC_CHECK_RC(xrma_ctx_query(ctx, &info), 0);
	PROC_CHECK(!strcmp(info.provider, "ofi"));
	PROC_CHECK(info.node_id == CHILD_NODE);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	PROC_CHECK(proc_send(sock, 1) == 0);
	return 0;
}

/* The module is not where it is looked for (arg: the only directory named), or is not
 * a module: XRMA_ENOPROV with a sentence that says so, nothing loaded, nothing changed. */
static int role_ofi_missing(int sock, const char *arg)
{
	const struct xrma_ctx_attr attr = { .provider = "ofi", .node_id = XRMA_NODE_ANY };
	char fake[512];
	struct xrma_ctx *ctx = NULL;
	int fd;

	setenv("XRMA_PROVIDER_PATH", arg, 1);
	PROC_CHECK_RC(xrma_ctx_open(&attr, &ctx), XRMA_ENOPROV);
	PROC_CHECK(ctx == NULL);
	PROC_CHECK(strstr(xrma_error_detail(), "libxrma-ofi.so") != NULL);
	PROC_CHECK(strstr(xrma_error_detail(), arg) != NULL);
	PROC_CHECK(fabric_loaded() == NULL);
	/* A file of that name that is no shared object. */
	snprintf(fake, sizeof(fake), "%s/libxrma-ofi.so", arg);
	fd = open(fake, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	PROC_CHECK(fd >= 0);
	PROC_CHECK(write(fd, "not a module\n", 13) == 13);
	close(fd);
	PROC_CHECK_RC(xrma_ctx_open(&attr, &ctx), XRMA_ENOPROV);
	PROC_CHECK(strstr(xrma_error_detail(), "cannot be loaded") != NULL);
	PROC_CHECK(strstr(xrma_error_detail(), fake) != NULL);
	unlink(fake);
	PROC_CHECK(fabric_loaded() == NULL);
	PROC_CHECK(handler_installed() == 0);
	/* The default provider still opens. */
	PROC_CHECK_RC(xrma_ctx_open(NULL, &ctx), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	PROC_CHECK(proc_send(sock, 1) == 0);
	return 0;
}
#define OFI_CASES 1
#else
#define OFI_CASES 0
#endif

static const struct proc_role roles[] = {
	{ "face", role_face },
#if OFI_CASES
	{ "ofi", role_ofi },
	{ "ofi_missing", role_ofi_missing },
#endif
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ tests */

/* Our libraries' constructors ran at load: they installed nothing. */
static void test_loading_the_library_installs_no_handler(void **state)
{
	(void)state;
	assert_int_equal(handler_at_start, 0);
	assert_null(fabric_loaded());
}

/* Using the face on the default provider installs none and loads no libfabric. */
static void test_using_the_face_installs_no_handler(void **state)
{
	struct sigaction before[FATAL_COUNT];

	(void)state;
	actions_get(before);
	assert_int_equal(face_use(PARENT_NODE), 0);
	assert_int_equal(actions_changed(before), 0);
	assert_null(fabric_loaded());
}

/* The same in a second process using the face at the same time as this one. */
static void test_second_process_installs_no_handler(void **state)
{
	struct sigaction before[FATAL_COUNT];
	struct proc child;

	(void)state;
	actions_get(before);
	assert_int_equal(proc_spawn(&child, fabric, CHILD_NODE, "face", NULL), 0);
	assert_int_equal(face_use(PARENT_NODE), 0);
	assert_int_equal(proc_expect(child.sock, 1, WAIT_MS), 0);
	assert_int_equal(proc_join(&child, WAIT_MS), 0);
	assert_int_equal(actions_changed(before), 0);
	assert_null(fabric_loaded());
}

#if OFI_CASES
/* Choosing ofi loads the module there only: this process still has no libfabric. */
static void test_choosing_ofi_loads_the_module(void **state)
{
	char nodes[] = "/tmp/xrma-handlers-XXXXXX", line[64];
	struct proc child;
	int fd;

	(void)state;
	fd = mkstemp(nodes);
	assert_true(fd >= 0);
	snprintf(line, sizeof(line), "%u 127.0.0.1:%d\n", CHILD_NODE, fixture_free_tcp_port());
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	close(fd);
	assert_int_equal(proc_spawn(&child, fabric, CHILD_NODE, "ofi", nodes), 0);
	assert_int_equal(proc_expect(child.sock, 1, WAIT_MS), 0);
	assert_int_equal(proc_join(&child, WAIT_MS), 0);
	unlink(nodes);
	assert_null(fabric_loaded());
}

static void test_missing_module_is_a_clear_error(void **state)
{
	char dir[] = "/tmp/xrma-no-module-XXXXXX";
	struct proc child;

	(void)state;
	/* An installed xrma's module would be found after the directory named. */
	if (!access(XRMA_PROVIDER_DIR "/libxrma-ofi.so", F_OK)) {
		print_message("an installed ofi module is in " XRMA_PROVIDER_DIR ": skipped\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	assert_int_equal(proc_spawn(&child, fabric, CHILD_NODE, "ofi_missing", dir), 0);
	assert_int_equal(proc_expect(child.sock, 1, WAIT_MS), 0);
	assert_int_equal(proc_join(&child, WAIT_MS), 0);
	assert_int_equal(rmdir(dir), 0);
}
#endif

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loading_the_library_installs_no_handler),
		cmocka_unit_test(test_using_the_face_installs_no_handler),
		cmocka_unit_test_teardown(test_second_process_installs_no_handler, proc_teardown),
#if OFI_CASES
		cmocka_unit_test_teardown(test_choosing_ofi_loads_the_module, proc_teardown),
		cmocka_unit_test_teardown(test_missing_module_is_a_clear_error, proc_teardown),
#endif
	};
	int rc;

	/* The default provider, whatever the environment of the run chose. */
	unsetenv("XRMA_PROVIDER");
	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	handler_at_start = handler_installed();
	fixture_fabric_name(fabric, sizeof(fabric), "handlers-" TEST_FACE);
	setenv("XRMA_FABRIC", fabric, 1);
	setenv("XRMA_NODE_ID", "1", 1);
	return cmocka_run_group_tests_name("signal_handlers_" TEST_FACE, tests, NULL, NULL);
}
