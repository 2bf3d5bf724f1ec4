/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/test_node_objects.c: xrma_node_objects on the ntb provider
 * (the host fabric's directory) across real processes. Node 2 is a child
 * process owning an exported segment, a listening port and an accepted
 * connection; node 1 (this program) lists node 2's objects and finds each with
 * the child's pid, then sees them go when the child exits. Also the call's
 * argument checks and a provider without a directory (loopback).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#define MP_TIMEOUT_MS 20000
#define SEG_ID 91
#define SEG_LEN (64 * 1024)
#define PORT 4711

enum { MSG_READY = 1, MSG_GO };

static char fabric[XRMA_NAME_MAX];

static int ctx_open_node(const char *fab, uint32_t node, struct xrma_ctx **ctx)
{
	struct xrma_ctx_attr attr = { .provider = "ntb", .fabric = fab, .node_id = node };

	return xrma_ctx_open(&attr, ctx);
}

/* Export a segment, listen, accept node 1's connection, then wait to be told to go. */
static int child_owner(int sock, const char *arg)
{
	struct xrma_seg_attr sa = { .len = SEG_LEN, .id = SEG_ID, .access = XRMA_ACCESS_ALL };
	struct xrma_conn *listener, *conn;
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	uint32_t port = PORT;

	(void)arg;
	PROC_CHECK_RC(ctx_open_node(NULL, XRMA_NODE_ANY, &ctx), 0);
	PROC_CHECK_RC(xrma_seg_open(ctx, &sa, &seg), 0);
	PROC_CHECK_RC(xrma_seg_export(seg, 0), 0);
	PROC_CHECK_RC(xrma_conn_open(ctx, 0, &listener), 0);
	PROC_CHECK_RC(xrma_conn_bind(listener, &port, 0, 0), 0);
	PROC_CHECK_RC(xrma_conn_listen(listener, 1), 0);
	PROC_CHECK(proc_send(sock, (uint64_t)getpid()) == 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK_RC(xrma_conn_accept(listener, MP_TIMEOUT_MS, &conn), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, MP_TIMEOUT_MS) == 0);
	PROC_CHECK_RC(xrma_conn_close(conn), 0);
	PROC_CHECK_RC(xrma_conn_close(listener), 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

static const struct proc_role roles[] = { { "owner", child_owner }, { NULL, NULL } };

/* What a listing found of one process. */
struct seen {
	int32_t pid;
	unsigned contexts, segments, ports, memory, others;
	uint64_t memory_len;
};

static int count_objects(void *arg, const struct xrma_node_object *obj)
{
	struct seen *s = arg;

	if (obj->pid != s->pid || obj->node != 2)
		return 0;
	if (obj->kind == XRMA_OBJECT_CONTEXT)
		s->contexts++;
	else if (obj->kind == XRMA_OBJECT_SEGMENT && obj->id == SEG_ID)
		s->segments++;
	else if (obj->kind == XRMA_OBJECT_PORT && obj->id == PORT)
		s->ports++;
	else if (obj->kind == XRMA_OBJECT_MEMORY && obj->access)
		s->memory++, s->memory_len = obj->len;
	else
		s->others++;
	return 0;
}

static int stop_at_first(void *arg, const struct xrma_node_object *obj)
{
	(*(unsigned *)arg)++;
	return obj->kind == XRMA_OBJECT_CONTEXT ? 42 : 0;
}

static int group_up(void **state)
{
	(void)state;
	fixture_fabric_name(fabric, sizeof(fabric), "objects");
	return 0;
}

static void test_node_objects_lists_child_process_objects(void **state)
{
	struct xrma_ctx *ctx;
	struct xrma_conn *conn;
	struct proc child;
	struct seen s = { 0 };
	uint64_t pid;
	int ret;

	(void)state;
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	assert_int_equal(proc_spawn(&child, fabric, 2, "owner", NULL), 0);
	assert_int_equal(proc_recv(child.sock, &pid, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_expect(child.sock, MSG_READY, MP_TIMEOUT_MS), 0);
	assert_rc(xrma_conn_open(ctx, 0, &conn), 0);
	assert_rc(xrma_conn_connect(conn, 2, PORT, MP_TIMEOUT_MS), 0);
	assert_int_equal(proc_expect(child.sock, MSG_READY, MP_TIMEOUT_MS), 0);

	s.pid = (int32_t)pid;
	assert_rc(xrma_node_objects(ctx, 2, 0, count_objects, &s), 0);
	assert_int_equal(s.contexts, 1);
	assert_int_equal(s.segments, 1);
	assert_true(s.ports >= 1);   /* the listener's port; the accepted endpoint shares it */
	assert_int_equal(s.memory, 1);
	assert_true(s.memory_len >= SEG_LEN);

	assert_int_equal(proc_send(child.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&child, MP_TIMEOUT_MS), 0);
	/* Gone with its process: the node has no directory left, or nothing of that pid. */
	memset(&s, 0, sizeof(s));
	s.pid = (int32_t)pid;
	ret = xrma_node_objects(ctx, 2, 0, count_objects, &s);
	assert_true(ret == 0 || ret == -XRMA_ENODEV);
	assert_int_equal(s.contexts + s.segments + s.ports + s.memory + s.others, 0);
	assert_rc(xrma_conn_close(conn), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_node_objects_own_node_and_errors(void **state)
{
	struct xrma_ctx *ctx, *loop;
	unsigned calls = 0;

	(void)state;
	assert_rc(ctx_open_node(fabric, 1, &ctx), 0);
	/* The first object reported is our own context; its non-zero answer is returned. */
	assert_int_equal(xrma_node_objects(ctx, 1, 0, stop_at_first, &calls), 42);
	assert_int_equal(calls, 1);
	assert_rc(xrma_node_objects(ctx, 1, 0, NULL, NULL), XRMA_EINVAL);
	assert_rc(xrma_node_objects(ctx, 1, 1, stop_at_first, &calls), XRMA_EINVAL);
	assert_rc(xrma_node_objects(ctx, 9, 0, stop_at_first, &calls), XRMA_ENODEV);
	assert_rc(xrma_node_objects(FIXTURE_FORGED(struct xrma_ctx), 1, 0, stop_at_first, &calls),
		  XRMA_EHANDLE);
	assert_int_equal(calls, 1);
	assert_rc(fixture_ctx_open(fabric, 3, &loop), 0);
	assert_rc(xrma_node_objects(loop, 3, 0, stop_at_first, &calls), XRMA_ENOTSUP);
	assert_rc(xrma_ctx_close(loop), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_node_objects_lists_child_process_objects, proc_teardown),
		cmocka_unit_test_teardown(test_node_objects_own_node_and_errors, proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	setenv("XRMA_PROVIDER", "ntb", 1);
	return cmocka_run_group_tests_name("node_objects", tests, group_up, NULL);
}
