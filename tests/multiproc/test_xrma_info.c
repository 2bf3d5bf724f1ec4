/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/test_xrma_info.c: the xrma_info tool as a user runs it, on
 * the ntb provider while a child process (node 2) owns an exported segment
 * and a listening port: plain text and --json name the topology, the live
 * nodes and the child's objects with its pid, and --json is valid JSON (a
 * small RFC 8259 checker here, since CI machines have no JSON tool to trust).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#define MP_TIMEOUT_MS 20000
#define SEG_ID 93
#define PORT 4713
#define OUTPUT_MAX (1u << 20)

enum { MSG_READY = 1, MSG_GO };

static char fabric[XRMA_NAME_MAX];

/* ------------------------------------------------------------------ JSON checker */

static const char *json_value(const char *p, int depth);

static const char *json_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *json_string_end(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p[i]))
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *json_number_end(const char *p)
{
	const char *start;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (isdigit((unsigned char)*p))
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		start = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == start)
			return NULL;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		start = p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == start)
			return NULL;
	}
	return p;
}

/* An object or array: members (or elements) separated by commas. */
static const char *json_container(const char *p, int depth, char close, bool members)
{
	p = json_space(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (members) {
			p = json_string_end(json_space(p));
			if (!p || *(p = json_space(p)) != ':')
				return NULL;
			p++;
		}
		p = json_value(p, depth + 1);
		if (!p)
			return NULL;
		p = json_space(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p, int depth)
{
	if (depth > 64)
		return NULL;
	p = json_space(p);
	switch (*p) {
	case '{':
		return json_container(p, depth, '}', true);
	case '[':
		return json_container(p, depth, ']', false);
	case '"':
		return json_string_end(p);
	case 't':
		return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f':
		return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n':
		return strncmp(p, "null", 4) ? NULL : p + 4;
	default:
		return json_number_end(p);
	}
}

static bool json_valid(const char *text)
{
	const char *end = json_value(text, 0);

	return end && *json_space(end) == '\0';
}

/* ------------------------------------------------------------------ running the tool */

/* Run xrma_info with args as node 1 of our fabric on ntb; its stdout, or NULL. */
static char *run_info(const char *args, int *status)
{
	const char *builddir = getenv("XRMA_TEST_BUILDDIR");
	char cmd[4096];
	char *out = calloc(1, OUTPUT_MAX);
	size_t len = 0, got;
	FILE *p;

	if (!out)
		return NULL;
	snprintf(cmd, sizeof(cmd),
		 "XRMA_PROVIDER=ntb XRMA_NODE_ID=1 XRMA_FABRIC='%s' '%s/tools/xrma_info' %s", fabric,
		 builddir ? builddir : ".", args);
	p = popen(cmd, "r");
	if (!p) {
		free(out);
		return NULL;
	}
	while (len < OUTPUT_MAX - 1 && (got = fread(out + len, 1, OUTPUT_MAX - 1 - len, p)) > 0)
		len += got;
	*status = pclose(p);
	return out;
}

/* Export a segment and listen on a port, then wait to be told to go. */
static int child_owner(int sock, const char *arg)
{
	struct xrma_ctx_attr ca = { .provider = "ntb", .node_id = XRMA_NODE_ANY };
	struct xrma_seg_attr sa = { .len = 8192, .id = SEG_ID, .access = XRMA_ACCESS_ALL };
	struct xrma_conn *listener;
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	uint32_t port = PORT;

	(void)arg;
	PROC_CHECK_RC(xrma_ctx_open(&ca, &ctx), 0);
	PROC_CHECK_RC(xrma_seg_open(ctx, &sa, &seg), 0);
	PROC_CHECK_RC(xrma_seg_export(seg, 0), 0);
	PROC_CHECK_RC(xrma_conn_open(ctx, 0, &listener), 0);
	PROC_CHECK_RC(xrma_conn_bind(listener, &port, 0, 0), 0);
	PROC_CHECK_RC(xrma_conn_listen(listener, 1), 0);
	PROC_CHECK(proc_send(sock, (uint64_t)getpid()) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_conn_close(listener), 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

static const struct proc_role roles[] = { { "owner", child_owner }, { NULL, NULL } };

static int group_up(void **state)
{
	(void)state;
	fixture_fabric_name(fabric, sizeof(fabric), "info");
	return 0;
}

static void test_json_checker_refuses_broken_documents(void **state)
{
	(void)state;
	assert_true(json_valid("{\"a\": [1, -2.5e3, true, null, \"x\\n\\u00e9\"], \"b\": {}}"));
	assert_false(json_valid("{\"a\": 1,}"));
	assert_false(json_valid("{\"a\" 1}"));
	assert_false(json_valid("[1, 2"));
	assert_false(json_valid("{\"a\": \"tab\there\"}"));
	assert_false(json_valid("{} {}"));
	assert_false(json_valid("01"));
}

static void test_xrma_info_shows_child_objects_in_text_and_json(void **state)
{
	char want[96], *text, *json;
	struct proc child;
	uint64_t pid;
	int status = -1;

	(void)state;
	assert_int_equal(proc_spawn(&child, fabric, 2, "owner", NULL), 0);
	assert_int_equal(proc_recv(child.sock, &pid, MP_TIMEOUT_MS), 0);

	json = run_info("--json", &status);
	assert_non_null(json);
	assert_int_equal(status, 0);
	assert_true(json_valid(json));
	assert_non_null(strstr(json, "\"adapters\": ["));
	assert_non_null(strstr(json, "\"numa_nodes\": ["));
	assert_non_null(strstr(json, "\"objects_listed\": true"));
	/* A provider's limit on importers: pximc's windows have one partner, ntb has none. */
	assert_non_null(strstr(json, "\"max_importers\": 1"));
	assert_non_null(strstr(json, "\"max_importers\": 0"));
	assert_non_null(strstr(json, "\"kind\": \"segment\""));
	snprintf(want, sizeof(want), "\"id\": %d,", SEG_ID);
	assert_non_null(strstr(json, want));
	snprintf(want, sizeof(want), "\"pid\": %llu", (unsigned long long)pid);
	assert_non_null(strstr(json, want));

	text = run_info("", &status);
	assert_non_null(text);
	assert_int_equal(status, 0);
	assert_non_null(strstr(text, "topology:"));
	assert_non_null(strstr(text, "live nodes: 1 2"));
	assert_non_null(strstr(text, "max_importers      1\n"));
	assert_non_null(strstr(text, "max_importers      unlimited\n"));
	snprintf(want, sizeof(want), "port      id %-8d ep", PORT);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want), "pid %llu", (unsigned long long)pid);
	assert_non_null(strstr(text, want));

	assert_int_equal(proc_send(child.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	free(text);
	free(json);
}

static void test_xrma_info_topology_and_config_json_are_valid(void **state)
{
	static const struct {
		const char *args, *needle;
	} runs[] = {
		{ "--topology --json", "\"name\": \"host\"" },
		{ "--config --json", "\"key\": \"core.adapter\"" },
	};
	char *json;
	int status = -1;

	(void)state;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		json = run_info(runs[i].args, &status);
		assert_non_null(json);
		assert_int_equal(status, 0);
		assert_true(json_valid(json));
		assert_non_null(strstr(json, runs[i].needle));
		free(json);
	}
	json = run_info("--config --topology", &status);
	assert_non_null(json);
	assert_int_not_equal(status, 0);
	free(json);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_json_checker_refuses_broken_documents, proc_teardown),
		cmocka_unit_test_teardown(test_xrma_info_shows_child_objects_in_text_and_json, proc_teardown),
		cmocka_unit_test_teardown(test_xrma_info_topology_and_config_json_are_valid, proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	setenv("XRMA_PROVIDER", "ntb", 1);
	return cmocka_run_group_tests_name("xrma_info", tests, group_up, NULL);
}
