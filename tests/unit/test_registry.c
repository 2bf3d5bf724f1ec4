/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_registry.c: the provider registry (core/registry.h,
 * internal): lookup, the ops-table rules checked at registration (mandatory
 * ops, optional op <=> capability bit, map and unmap as a pair), run-time mock
 * providers copied from the loopback table with one capability removed
 * (XRMA_ENOTSUP from the public call), and the choice rule (asked name, then
 * XRMA_PROVIDER, then config, then default) as seen through xrma_ctx_open.
 */
#include "tests/helpers/fixture.h"
#include "core/registry.h"
#include "providers/loopback/loopback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RW (XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE)

static struct fixture fx;

static int registry_group_up(void **state)
{
	(void)state;
	unsetenv("XRMA_PROVIDER");
	unsetenv("XRMA_FABRIC");
	unsetenv("XRMA_NODE_ID");
	unsetenv("XRMA_CONF");
	setenv("HOME", "/nonexistent-xrma-test-home", 1);
	return fixture_open(&fx, "registry", 1);
}

static int registry_group_down(void **state)
{
	(void)state;
	unsetenv("XRMA_PROVIDER");
	return fixture_close(&fx);
}

/* A provider table copied from loopback, for one test to break or trim. */
struct mock {
	char name[XRMA_NAME_MAX];
	struct xrma_caps caps;
	struct xrma_provider_ops ops;
	struct xrma_provider prov;
};

static void mock_init(struct mock *m, const char *tag)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "mock-%s-%ld", tag, (long)getpid() % 100000);
	m->caps = *xrma_prov_loopback.caps;
	m->ops = *xrma_prov_loopback.ops;
	m->prov.name = m->name;
	m->prov.description = "loopback copy for tests";
	m->prov.caps = &m->caps;
	m->prov.ops = &m->ops;
}

static void assert_refused(struct mock *m)
{
	int count = xrma_provider_count();

	assert_false(xrma_provider_ops_valid(&m->prov));
	assert_rc(xrma_registry_add(&m->prov), XRMA_EINVAL);
	assert_int_equal(xrma_provider_count(), count);
	assert_null(xrma_registry_find(m->name));
}

/* Two contexts (nodes 1 and 2) on provider name, on a fresh fabric. */
static void open_pair(const char *name, struct xrma_ctx **a, struct xrma_ctx **b)
{
	struct xrma_ctx_attr attr = { .provider = name, .node_id = 1 };
	char fabric[XRMA_NAME_MAX];

	fixture_fabric_name(fabric, sizeof(fabric), "registry");
	attr.fabric = fabric;
	assert_rc(xrma_ctx_open(&attr, a), 0);
	attr.node_id = 2;
	assert_rc(xrma_ctx_open(&attr, b), 0);
}

static void test_registry_find_loopback_returns_table(void **state)
{
	const struct xrma_provider *p;

	(void)state;
	p = xrma_registry_find("loopback");
	assert_non_null(p);
	assert_ptr_equal(p, &xrma_prov_loopback);
	assert_string_equal(p->name, "loopback");
	assert_null(xrma_registry_find("no-such-provider"));
	assert_null(xrma_registry_find("loop"));
	assert_null(xrma_registry_find("loopback2"));
}

static void test_registry_ops_valid_loopback_accepted(void **state)
{
	(void)state;
	assert_true(xrma_provider_ops_valid(&xrma_prov_loopback));
	assert_int_equal(xrma_prov_loopback.caps->flags & (XRMA_CAP_MAP | XRMA_CAP_ATOMIC | XRMA_CAP_REGISTER),
			 XRMA_CAP_MAP | XRMA_CAP_ATOMIC | XRMA_CAP_REGISTER);
}

static void test_registry_add_mandatory_op_null_returns_einval(void **state)
{
	static struct mock m;
	int which;

	(void)state;
	for (which = 0; which < 10; which++) {
		mock_init(&m, "mand");
		switch (which) {
		case 0: m.ops.open = NULL; break;
		case 1: m.ops.close = NULL; break;
		case 2: m.ops.progress_fd = NULL; break;
		case 3: m.ops.progress = NULL; break;
		case 4: m.ops.name_lookup = NULL; break;
		case 5: m.ops.ctrl_send = NULL; break;
		case 6: m.ops.mem_alloc = NULL; break;
		case 7: m.ops.mem_import = NULL; break;
		case 8: m.ops.rma = NULL; break;
		default: m.ops.node_probe = NULL; break;
		}
		assert_refused(&m);
	}
}

static void test_registry_add_optional_op_without_cap_returns_einval(void **state)
{
	static struct mock m;

	(void)state;
	mock_init(&m, "opt");
	m.caps.flags &= ~XRMA_CAP_ATOMIC;
	assert_refused(&m);
	mock_init(&m, "opt");
	m.caps.flags &= ~XRMA_CAP_REGISTER;
	assert_refused(&m);
	mock_init(&m, "opt");
	m.caps.flags &= ~XRMA_CAP_MAP;
	assert_refused(&m);
}

static void test_registry_add_cap_without_op_returns_einval(void **state)
{
	static struct mock m;

	(void)state;
	mock_init(&m, "cap");
	m.ops.atomic = NULL;
	assert_refused(&m);
	mock_init(&m, "cap");
	m.ops.mem_register = NULL;
	assert_refused(&m);
	mock_init(&m, "cap");
	m.ops.map = NULL;
	m.ops.unmap = NULL;
	assert_refused(&m);
}

static void test_registry_add_map_without_unmap_returns_einval(void **state)
{
	static struct mock m;

	(void)state;
	mock_init(&m, "pair");
	m.ops.unmap = NULL;
	assert_refused(&m);
	/* Neither way round, even with the bit clear. */
	mock_init(&m, "pair");
	m.ops.map = NULL;
	m.caps.flags &= ~XRMA_CAP_MAP;
	assert_refused(&m);
	mock_init(&m, "pair");
	m.ops.unmap = NULL;
	m.caps.flags &= ~XRMA_CAP_MAP;
	assert_refused(&m);
}

static void test_registry_add_taken_name_returns_eexist(void **state)
{
	static struct mock m;
	int count = xrma_provider_count();

	(void)state;
	mock_init(&m, "dup");
	m.prov.name = "loopback";
	assert_true(xrma_provider_ops_valid(&m.prov));
	assert_rc(xrma_registry_add(&m.prov), XRMA_EEXIST);
	assert_int_equal(xrma_provider_count(), count);
	assert_ptr_equal(xrma_registry_find("loopback"), &xrma_prov_loopback);
}

static void test_registry_add_mock_listed_until_removed(void **state)
{
	struct xrma_provider_info info;
	struct xrma_ctx_attr attr = { .fabric = fx.fabric, .node_id = 9 };
	struct xrma_ctx *ctx;
	static struct mock m;
	int count = xrma_provider_count(), i, found = -1;

	(void)state;
	mock_init(&m, "list");
	assert_rc(xrma_registry_add(&m.prov), 0);
	assert_int_equal(xrma_provider_count(), count + 1);
	assert_ptr_equal(xrma_registry_find(m.name), &m.prov);
	for (i = 0; i < count + 1; i++) {
		assert_rc(xrma_provider_get(i, &info), 0);
		if (strcmp(info.name, m.name) == 0)
			found = i;
	}
	assert_true(found >= 0);
	assert_rc(xrma_registry_add(&m.prov), XRMA_EEXIST);
	assert_rc(xrma_registry_remove(&m.prov), 0);
	assert_int_equal(xrma_provider_count(), count);
	assert_null(xrma_registry_find(m.name));
	attr.provider = m.name;
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_ENOPROV);
}

static void test_registry_mock_without_map_rseg_map_returns_enotsup(void **state)
{
	struct xrma_ctx *a, *b;
	struct xrma_ctx_info info;
	struct fixture_seg s;
	struct xrma_rseg *r;
	static struct mock m;
	uint64_t old = 0;
	void *addr = NULL;

	(void)state;
	mock_init(&m, "nomap");
	m.ops.map = NULL;
	m.ops.unmap = NULL;
	m.caps.flags &= ~XRMA_CAP_MAP;
	assert_true(xrma_provider_ops_valid(&m.prov));
	assert_rc(xrma_registry_add(&m.prov), 0);
	open_pair(m.name, &a, &b);
	assert_rc(xrma_ctx_query(a, &info), 0);
	assert_string_equal(info.provider, m.name);
	assert_int_equal(info.caps.flags & XRMA_CAP_MAP, 0);
	assert_rc(fixture_seg_make(a, FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 5, &s), 0);
	assert_rc(xrma_rseg_open(b, 1, s.id, RW, 0, FIXTURE_TIMEOUT_MS, &r), 0);
	assert_rc(xrma_rseg_map(r, 0, FIXTURE_PAGE, XRMA_MAP_READ, &addr), XRMA_ENOTSUP);
	assert_null(addr);
	/* What the mock can do still works. */
	assert_rc(xrma_rseg_atomic(r, 0, XRMA_ATOMIC_READ, 0, 0, &old), 0);
	assert_rc(xrma_rseg_close(r), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
	assert_rc(xrma_registry_remove(&m.prov), 0);
}

static void test_registry_mock_without_atomic_returns_enotsup(void **state)
{
	struct xrma_ctx *a, *b;
	struct fixture_seg s;
	struct xrma_rseg *r;
	static struct mock m;
	uint64_t old = 0x99;

	(void)state;
	mock_init(&m, "noatom");
	m.ops.atomic = NULL;
	m.caps.flags &= ~XRMA_CAP_ATOMIC;
	assert_rc(xrma_registry_add(&m.prov), 0);
	open_pair(m.name, &a, &b);
	assert_rc(fixture_seg_make(a, FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 5, &s), 0);
	assert_rc(xrma_rseg_open(b, 1, s.id, RW, 0, FIXTURE_TIMEOUT_MS, &r), 0);
	assert_rc(xrma_rseg_atomic(r, 0, XRMA_ATOMIC_FETCH_ADD, 1, 0, &old), XRMA_ENOTSUP);
	assert_int_equal(old, 0x99);
	assert_int_equal(fixture_pattern_check(s.addr, s.len, 5, 0), FIXTURE_MATCH);
	assert_rc(xrma_rseg_close(r), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
	assert_rc(xrma_registry_remove(&m.prov), 0);
}

static void test_registry_mock_without_register_shared_user_memory_enotsup_private_opens(void **state)
{
	struct xrma_seg_attr attr = { .len = FIXTURE_PAGE, .id = XRMA_ID_ANY, .access = XRMA_ACCESS_ALL };
	struct xrma_ctx *a, *b;
	struct xrma_seg *seg = NULL;
	static struct mock m;
	void *buf;

	(void)state;
	mock_init(&m, "noreg");
	m.ops.mem_register = NULL;
	m.caps.flags &= ~XRMA_CAP_REGISTER;
	assert_rc(xrma_registry_add(&m.prov), 0);
	open_pair(m.name, &a, &b);
	buf = aligned_alloc(FIXTURE_PAGE, FIXTURE_PAGE);
	assert_non_null(buf);
	attr.addr = buf;
	assert_rc(xrma_seg_open(a, &attr, &seg), XRMA_ENOTSUP);
	assert_int_equal(fixture_count(a), 0);
	attr.addr = NULL;
	assert_rc(xrma_seg_open(a, &attr, &seg), 0);
	assert_rc(xrma_seg_close(seg), 0);
	/* A private segment over user memory is only a transfer's local side: no registration. */
	attr.addr = buf;
	attr.flags = XRMA_SEG_PRIVATE;
	assert_rc(xrma_seg_open(a, &attr, &seg), 0);
	assert_int_equal(fixture_count(a), 1);
	{
		void *addr = NULL;

		assert_rc(xrma_seg_addr(seg, &addr), 0);
		assert_ptr_equal(addr, buf);
	}
	assert_rc(xrma_seg_export(seg, 0), XRMA_EINVAL);
	assert_rc(xrma_seg_close(seg), 0);
	assert_int_equal(fixture_count(a), 0);
	free(buf);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
	assert_rc(xrma_registry_remove(&m.prov), 0);
}

/* A register file and error counts for the mock with the optional CSR and error ops. */
static uint32_t mock_csr[4];
static uint32_t mock_csr_node;
static uint64_t mock_errors_calls;
static uint32_t mock_errors_flags;

static int mock_csr_read(void *state, uint32_t node, uint32_t offset, uint32_t *value)
{
	(void)state;
	if (offset / 4 >= 4)
		return -XRMA_ERANGE;
	mock_csr_node = node;
	*value = mock_csr[offset / 4];
	return 0;
}

static int mock_csr_write(void *state, uint32_t node, uint32_t offset, uint32_t value)
{
	(void)state;
	if (offset / 4 >= 4)
		return -XRMA_ERANGE;
	mock_csr_node = node;
	mock_csr[offset / 4] = value;
	return 0;
}

static int mock_rmem_errors(void *state, struct xrma_prov_rmem *rmem, uint32_t flags,
			    struct xrma_rseg_errors *errors)
{
	(void)state;
	(void)rmem;
	mock_errors_calls++;
	mock_errors_flags = flags;
	errors->retriable = 3;
	errors->fatal = 1;
	return 0;
}

static void test_registry_add_csr_and_errors_ops_match_caps(void **state)
{
	static struct mock m;

	(void)state;
	mock_init(&m, "csrop");
	m.ops.csr_read = mock_csr_read;
	m.ops.csr_write = mock_csr_write;
	assert_refused(&m);                        /* ops without the bit */
	m.caps.flags |= XRMA_CAP_CSR;
	m.ops.csr_write = NULL;
	assert_refused(&m);                        /* half the pair */
	m.ops.csr_write = mock_csr_write;
	assert_true(xrma_provider_ops_valid(&m.prov));
	m.caps.flags |= XRMA_CAP_RSEG_ERRORS;
	assert_refused(&m);                        /* the bit without the op */
	m.ops.rmem_errors = mock_rmem_errors;
	assert_true(xrma_provider_ops_valid(&m.prov));
}

static int mock_bus_owner(void *state, uint32_t node, uint64_t bus, struct xrma_prov_addr *owner)
{
	(void)state;
	(void)bus;
	owner->node = node;
	owner->ep = 0;
	return 0;
}

static int mock_bus_permit(void *state, const struct xrma_prov_addr *src)
{
	(void)state;
	(void)src;
	return -XRMA_EPERM;
}

static void test_registry_add_bus_import_ops_match_cap(void **state)
{
	static struct mock m;

	(void)state;
	mock_init(&m, "busop");
	m.ops.bus_owner = mock_bus_owner;
	m.ops.bus_permit = mock_bus_permit;
	assert_refused(&m);                        /* ops without the bit */
	m.caps.flags |= XRMA_CAP_BUS_IMPORT;
	m.ops.bus_permit = NULL;
	assert_refused(&m);                        /* half the pair */
	m.ops.bus_permit = mock_bus_permit;
	assert_true(xrma_provider_ops_valid(&m.prov));
	m.ops.bus_owner = NULL;
	m.ops.bus_permit = NULL;
	assert_refused(&m);                        /* the bit without the ops */
}

static int mock_rma_post(void *state, enum xrma_rma_op op, struct xrma_prov_rmem *rmem,
			 size_t offset, const struct iovec *iov, size_t count, uint32_t flags,
			 void (*done)(void *arg, int status), void *arg)
{
	(void)state, (void)op, (void)rmem, (void)offset, (void)iov, (void)count, (void)flags;
	done(arg, 0);
	return 0;
}

static int mock_rma_progress(void *state)
{
	(void)state;
	return 0;
}

static void mock_rma_driving(void *state, bool on)
{
	(void)state, (void)on;
}

static void test_registry_add_posting_ops_need_the_one_before(void **state)
{
	static struct mock m;

	(void)state;
	mock_init(&m, "postop");
	m.ops.rma_polling = mock_rma_driving;
	assert_refused(&m);                        /* driving without progress */
	m.ops.rma_poll = mock_rma_progress;
	assert_refused(&m);                        /* progress without post */
	m.ops.rma_post = mock_rma_post;
	assert_true(xrma_provider_ops_valid(&m.prov));
	m.ops.rma_polling = NULL;
	assert_true(xrma_provider_ops_valid(&m.prov));
	m.ops.rma_poll = NULL;
	assert_true(xrma_provider_ops_valid(&m.prov));
}

static void test_registry_loopback_csr_and_errors_return_enotsup(void **state)
{
	struct xrma_ctx *a, *b;
	struct xrma_rseg_errors e = { 7, 7 };
	struct fixture_seg s;
	struct xrma_rseg *r;
	uint32_t v = 42;

	(void)state;
	open_pair("loopback", &a, &b);
	assert_rc(xrma_node_csr_read(a, 2, 0, &v), XRMA_ENOTSUP);
	assert_int_equal(v, 42);
	assert_rc(xrma_node_csr_write(a, 2, 0, 1), XRMA_ENOTSUP);
	assert_rc(xrma_node_csr_read(a, 2, 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_node_csr_read(NULL, 2, 0, &v), XRMA_EHANDLE);
	assert_rc(fixture_seg_make(a, FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 5, &s), 0);
	assert_rc(xrma_rseg_open(b, 1, s.id, RW, 0, FIXTURE_TIMEOUT_MS, &r), 0);
	assert_rc(xrma_rseg_errors(r, 0, &e), XRMA_ENOTSUP);
	assert_int_equal(e.retriable, 7);
	assert_rc(xrma_rseg_errors(r, 0, NULL), XRMA_EINVAL);
	assert_rc(xrma_rseg_errors(r, 0x80, &e), XRMA_EINVAL);
	assert_rc(xrma_rseg_errors(NULL, 0, &e), XRMA_EHANDLE);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(xrma_rseg_errors(r, 0, &e), XRMA_EHANDLE);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
}

static void test_registry_mock_csr_and_errors_reach_provider(void **state)
{
	struct xrma_rseg_errors e = { 0, 0 };
	struct xrma_ctx *a, *b;
	struct fixture_seg s;
	struct xrma_rseg *r;
	static struct mock m;
	uint32_t v = 0;

	(void)state;
	mock_init(&m, "csr");
	m.caps.flags |= XRMA_CAP_CSR | XRMA_CAP_RSEG_ERRORS;
	m.ops.csr_read = mock_csr_read;
	m.ops.csr_write = mock_csr_write;
	m.ops.rmem_errors = mock_rmem_errors;
	assert_rc(xrma_registry_add(&m.prov), 0);
	open_pair(m.name, &a, &b);
	assert_rc(xrma_node_csr_write(a, 2, 8, 0xabcd), 0);
	assert_int_equal(mock_csr[2], 0xabcd);
	assert_int_equal(mock_csr_node, 2);
	assert_rc(xrma_node_csr_read(b, 1, 8, &v), 0);
	assert_int_equal(v, 0xabcd);
	assert_int_equal(mock_csr_node, 1);
	/* The core checks alignment and node ids before the provider sees anything. */
	mock_csr_node = 99;
	assert_rc(xrma_node_csr_read(a, 2, 6, &v), XRMA_EALIGN_OFFSET);
	assert_rc(xrma_node_csr_write(a, 2, 3, 1), XRMA_EALIGN_OFFSET);
	assert_rc(xrma_node_csr_write(a, UINT32_MAX, 0, 1), XRMA_EINVAL);
	assert_int_equal(mock_csr_node, 99);
	assert_rc(xrma_node_csr_read(a, 2, 64, &v), XRMA_ERANGE);
	assert_rc(fixture_seg_make(a, FIXTURE_PAGE, XRMA_ACCESS_ALL, true, 5, &s), 0);
	assert_rc(xrma_rseg_open(b, 1, s.id, RW, 0, FIXTURE_TIMEOUT_MS, &r), 0);
	mock_errors_calls = 0;
	assert_rc(xrma_rseg_errors(r, XRMA_RSEG_ERRORS_MAPPED, &e), 0);
	assert_int_equal(mock_errors_calls, 1);
	assert_int_equal(mock_errors_flags, XRMA_RSEG_ERRORS_MAPPED);
	assert_int_equal(e.retriable, 3);
	assert_int_equal(e.fatal, 1);
	assert_rc(xrma_rseg_errors(r, 2, &e), XRMA_EINVAL);
	assert_int_equal(mock_errors_calls, 1);
	assert_rc(xrma_rseg_close(r), 0);
	assert_int_equal(fixture_wait_importers(s.seg, 0, FIXTURE_TIMEOUT_MS), 0);
	assert_rc(fixture_seg_close(&s), 0);
	assert_rc(xrma_ctx_close(b), 0);
	assert_rc(xrma_ctx_close(a), 0);
	assert_rc(xrma_registry_remove(&m.prov), 0);
}

static void test_registry_ctx_open_unknown_name_returns_enoprov(void **state)
{
	struct xrma_ctx_attr attr = { .provider = "no-such-provider", .fabric = fx.fabric, .node_id = 5 };
	struct xrma_ctx *ctx;

	(void)state;
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_ENOPROV);
}

static void test_registry_ctx_open_env_provider_respected(void **state)
{
	struct xrma_ctx_attr attr = { .provider = NULL, .fabric = fx.fabric, .node_id = 6 };
	struct xrma_ctx_info info;
	struct xrma_ctx *ctx;
	static struct mock m;

	(void)state;
	mock_init(&m, "env");
	assert_rc(xrma_registry_add(&m.prov), 0);
	setenv("XRMA_PROVIDER", m.name, 1);
	assert_rc(xrma_ctx_open(&attr, &ctx), 0);
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_string_equal(info.provider, m.name);
	assert_rc(xrma_ctx_close(ctx), 0);
	setenv("XRMA_PROVIDER", "no-such-provider", 1);
	assert_rc(xrma_ctx_open(&attr, &ctx), XRMA_ENOPROV);
	/* A name in attr wins over the environment. */
	attr.provider = "loopback";
	assert_rc(xrma_ctx_open(&attr, &ctx), 0);
	assert_rc(xrma_ctx_query(ctx, &info), 0);
	assert_string_equal(info.provider, "loopback");
	assert_rc(xrma_ctx_close(ctx), 0);
	unsetenv("XRMA_PROVIDER");
	assert_rc(xrma_registry_remove(&m.prov), 0);
}

static void test_registry_choose_follows_rule(void **state)
{
	const struct xrma_provider *p = NULL;
	struct xrma_config cfg;
	static struct mock m;

	(void)state;
	mock_init(&m, "choose");
	assert_rc(xrma_registry_add(&m.prov), 0);
	assert_rc(xrma_config_load(&cfg), 0);
	/* Nothing asked, nothing configured: the default. */
	assert_rc(xrma_registry_choose(NULL, &cfg, &p), 0);
	assert_non_null(p);
	assert_string_equal(p->name, xrma_provider_default());
	/* Configured. */
	snprintf(cfg.entries[XRMA_CONFIG_PROVIDER].value, sizeof(cfg.entries[0].value), "%s", m.name);
	assert_rc(xrma_registry_choose(NULL, &cfg, &p), 0);
	assert_ptr_equal(p, &m.prov);
	/* Asked for, over the configuration. */
	assert_rc(xrma_registry_choose("loopback", &cfg, &p), 0);
	assert_ptr_equal(p, &xrma_prov_loopback);
	assert_rc(xrma_registry_choose("no-such-provider", &cfg, &p), XRMA_ENOPROV);
	snprintf(cfg.entries[XRMA_CONFIG_PROVIDER].value, sizeof(cfg.entries[0].value), "nope");
	assert_rc(xrma_registry_choose(NULL, &cfg, &p), XRMA_ENOPROV);
	assert_rc(xrma_registry_remove(&m.prov), 0);
}

#define REG_THREADS 4

struct reg_worker {
	struct mock m;
	struct fixture_barrier *barrier;
	int rc;
	int lost;   /* loopback could not be found while others changed the list */
};

static void *reg_worker_main(void *arg)
{
	struct reg_worker *w = arg;
	int i;

	if ((w->rc = fixture_barrier_wait(w->barrier, FIXTURE_TIMEOUT_MS)))
		return NULL;
	for (i = 0; i < 200; i++) {
		if ((w->rc = xrma_registry_add(&w->m.prov)))
			return NULL;
		if (xrma_registry_find(w->m.name) != &w->m.prov || !xrma_registry_find("loopback"))
			w->lost = 1;
		if ((w->rc = xrma_registry_remove(&w->m.prov)))
			return NULL;
		if (xrma_registry_find(w->m.name))
			w->lost = 1;
	}
	return NULL;
}

static void test_registry_add_remove_concurrent_threads_consistent(void **state)
{
	static struct reg_worker w[REG_THREADS];
	struct fixture_barrier barrier;
	pthread_t threads[REG_THREADS];
	int count = xrma_provider_count();
	char tag[8];
	size_t i;

	(void)state;
	fixture_barrier_init(&barrier, REG_THREADS);
	for (i = 0; i < REG_THREADS; i++) {
		snprintf(tag, sizeof(tag), "t%zu", i);
		mock_init(&w[i].m, tag);
		w[i].barrier = &barrier;
		w[i].rc = 0;
		w[i].lost = 0;
		assert_int_equal(pthread_create(&threads[i], NULL, reg_worker_main, &w[i]), 0);
	}
	for (i = 0; i < REG_THREADS; i++)
		assert_int_equal(fixture_join(threads[i], FIXTURE_TIMEOUT_MS * 2, NULL), 0);
	fixture_barrier_destroy(&barrier);
	for (i = 0; i < REG_THREADS; i++) {
		assert_rc(w[i].rc, 0);
		assert_int_equal(w[i].lost, 0);
	}
	assert_int_equal(xrma_provider_count(), count);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_test_up, fixture_test_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_registry_find_loopback_returns_table),
		T(test_registry_ops_valid_loopback_accepted),
		T(test_registry_add_mandatory_op_null_returns_einval),
		T(test_registry_add_optional_op_without_cap_returns_einval),
		T(test_registry_add_cap_without_op_returns_einval),
		T(test_registry_add_map_without_unmap_returns_einval),
		T(test_registry_add_taken_name_returns_eexist),
		T(test_registry_add_mock_listed_until_removed),
		T(test_registry_mock_without_map_rseg_map_returns_enotsup),
		T(test_registry_mock_without_atomic_returns_enotsup),
		T(test_registry_mock_without_register_shared_user_memory_enotsup_private_opens),
		T(test_registry_add_csr_and_errors_ops_match_caps),
		T(test_registry_add_bus_import_ops_match_cap),
		T(test_registry_add_posting_ops_need_the_one_before),
		T(test_registry_loopback_csr_and_errors_return_enotsup),
		T(test_registry_mock_csr_and_errors_reach_provider),
		T(test_registry_ctx_open_unknown_name_returns_enoprov),
		T(test_registry_ctx_open_env_provider_respected),
		T(test_registry_choose_follows_rule),
		T(test_registry_add_remove_concurrent_threads_consistent),
	};

	return cmocka_run_group_tests_name("registry", tests, registry_group_up, registry_group_down);
}
