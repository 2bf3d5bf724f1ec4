/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/security/test_ofi_keys.c: the ofi provider's remote keys are not guessable.
 * An import is only the owner's address and the key, so a key that follows from the
 * previous one would open the next segment to anyone who saw one. The test drives the
 * provider's ops table directly (one node on 127.0.0.1 over tcp;ofi_rxm), exports many
 * registrations and checks the keys are distinct, not a sequence and use their high
 * bits. Skipped where the ofi provider was compiled out or libfabric offers no tcp.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "tests/helpers/fixture.h"
#include "core/config.h"
#include "core/registry.h"
#include "providers/provider.h"

#define KEYS 64
#define LEN 4096u

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nothing reaches us: one node alone sends no messages. */
static void no_ctrl(void *core, const struct xrma_prov_addr *src, const void *msg, size_t len)
{
	(void)core, (void)src, (void)msg, (void)len;
}

static void no_peer(void *core, const struct xrma_prov_addr *peer, int status)
{
	(void)core, (void)peer, (void)status;
}

static void no_link(void *core, uint32_t node, bool up)
{
	(void)core, (void)node, (void)up;
}

static void test_ofi_keys_are_distinct_and_not_a_sequence(void **state)
{
	const struct xrma_prov_upcalls upcalls = { .ctrl_recv = no_ctrl, .peer_down = no_peer,
						   .link_event = no_link };
	const struct xrma_provider *prov = xrma_registry_find("ofi");
	char nodes[] = "/tmp/xrma-ofi-keys-XXXXXX", line[64], fabric[XRMA_NAME_MAX];
	struct xrma_prov_mem *mem[KEYS];
	struct xrma_prov_addr self;
	struct xrma_config cfg;
	struct xrma_caps caps;
	uint64_t keys[KEYS], sorted[KEYS], high = 0;
	void *addr, *st = NULL;
	int fd, ret;

	(void)state;
	if (!prov) {
		print_message("ofi provider not built: skipped\n");
		skip();
	}
	fd = mkstemp(nodes);
	assert_true(fd >= 0);
	snprintf(line, sizeof(line), "1 127.0.0.1:%d\n", fixture_free_tcp_port());
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	close(fd);
	setenv("XRMA_OFI_NODES", nodes, 1);
	assert_rc(xrma_config_load(&cfg), 0);
	caps = *prov->caps;
	fixture_fabric_name(fabric, sizeof(fabric), "ofi-keys");
	{
		const struct xrma_prov_open_args args = { .fabric = fabric, .node_id = 1, .config = &cfg,
							  .caps = &caps, .upcalls = &upcalls };

		ret = prov->ops->open(&args, &st, &self);
	}
	unlink(nodes);
	if (ret) {
		print_message("ofi provider cannot open here (%s): skipped\n", xrma_strerror(ret));
		skip();
	}
	for (int i = 0; i < KEYS; i++) {
		struct xrma_prov_key key;

		assert_rc(prov->ops->mem_alloc(st, LEN, &mem[i], &addr), 0);
		assert_rc(prov->ops->mem_export(st, mem[i], XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE,
						&key), 0);
		/* The key's first 8 bytes are libfabric's memory-region key. */
		assert_true(key.len >= sizeof(uint64_t));
		memcpy(&keys[i], key.bytes, sizeof(uint64_t));
		high |= keys[i] >> 32;
	}
	memcpy(sorted, keys, sizeof(keys));
	qsort(sorted, KEYS, sizeof(sorted[0]), cmp_u64);
	for (int i = 1; i < KEYS; i++)
		assert_true(sorted[i] != sorted[i - 1]);
	/* Not a counter: no key is its predecessor plus a small step. */
	for (int i = 1; i < KEYS; i++) {
		uint64_t step = keys[i] - keys[i - 1];

		assert_true(step > 0xffff && step < UINT64_MAX - 0xffff);
	}
	/* 64 random keys leave no high half unused (unless libfabric's keys are narrower). */
	assert_true(high != 0);
	for (int i = KEYS - 1; i >= 0; i--) {
		prov->ops->mem_unexport(st, mem[i]);
		prov->ops->mem_free(st, mem[i]);
	}
	prov->ops->close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ofi_keys_are_distinct_and_not_a_sequence),
	};

	return cmocka_run_group_tests_name("ofi_keys", tests, NULL, NULL);
}
