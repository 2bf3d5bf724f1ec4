/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/test_sisci_register_map.c: a segment over memory
 * the program registered (SCIRegisterSegmentMemory) is mapped by a remote
 * process like any other: here a block of the brk heap, whose owner sees the
 * importer's stores at its own addresses and keeps allocating around it.
 * Skipped where nodes share one process or the provider cannot map.
 */
#include "tests/conformance/sisci/sisci_test.h"
#include "tests/helpers/proc.h"

#include <stdlib.h>
#include <string.h>

#define OWNER_NODE sisci_node(1)
#define PEER_NODE sisci_node(2)
#define SEG_ID 930
#define SEG_SIZE 8192u
#define READY 0x5eadu

/* Child: map the owner's registered segment, check its first word, store the second. */
static int peer_main(int sock, const char *arg)
{
	sci_desc_t sd;
	sci_remote_segment_t r;
	sci_map_t map;
	volatile uint32_t *p;
	sci_error_t err;

	(void)arg;
	SCIOpen(&sd, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIConnectSegment(sd, &r, OWNER_NODE, SEG_ID, 0, NULL, NULL, 5000, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	p = SCIMapRemoteSegment(r, &map, 0, SEG_SIZE, NULL, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	PROC_CHECK(p[0] == 0xfeed0001u);
	p[1] = 0xbeef0002u;
	p[SEG_SIZE / 4 - 1] = 0xbeef0003u;
	SCIUnmapSegment(map, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIDisconnectSegment(r, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIClose(sd, 0, &err);
	PROC_CHECK(proc_send(sock, READY) == 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "peer", peer_main },
	{ NULL, NULL },
};

static void test_sisci_registered_heap_block_is_mapped_by_a_peer(void **state)
{
	uint32_t *block = NULL;
	char *before, *after;
	sci_local_segment_t seg;
	struct proc peer;
	sci_desc_t sd;
	sci_error_t err;

	(void)state;
	if (!proc_provider_multiproc() || !sisci_test_provider_has(XRMA_CAP_MAP))
		skip();
	/* Small blocks come from the brk heap, with neighbours in the same pages. */
	before = malloc(32);
	assert_int_equal(posix_memalign((void **)&block, 4096, SEG_SIZE), 0);
	after = malloc(32);
	assert_non_null(before);
	assert_non_null(after);
	memset(before, 0x3b, 32);
	memset(after, 0x3a, 32);
	memset(block, 0, SEG_SIZE);
	block[0] = 0xfeed0001u;
	sd = sisci_test_open(OWNER_NODE);
	SCICreateSegment(sd, &seg, SEG_ID, SEG_SIZE, NULL, NULL, SCI_FLAG_EMPTY, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRegisterSegmentMemory(block, SEG_SIZE, seg, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(proc_spawn(&peer, NULL, PEER_NODE, "peer", NULL), 0);
	assert_int_equal(proc_expect(peer.sock, READY, 10000), 0);
	assert_int_equal(proc_join(&peer, 10000), 0);
	/* The peer's stores are in our own block; the neighbours are untouched. */
	assert_int_equal(block[1], 0xbeef0002u);
	assert_int_equal(block[SEG_SIZE / 4 - 1], 0xbeef0003u);
	assert_int_equal(fixture_check(before, 32, 0x3b), FIXTURE_MATCH);
	assert_int_equal(fixture_check(after, 32, 0x3a), FIXTURE_MATCH);
	sisci_test_remove(seg);
	sisci_test_close(sd);
	/* The allocator goes on with the same pages. */
	free(before);
	free(after);
	for (int i = 0; i < 64; i++) {
		char *p = malloc(48);

		assert_non_null(p);
		memset(p, i, 48);
		free(p);
	}
	assert_int_equal(block[1], 0xbeef0002u);
	free(block);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sisci_registered_heap_block_is_mapped_by_a_peer, proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	sisci_test_fabric("sisci-regmap");
	return cmocka_run_group_tests_name("sisci_register_map", tests, NULL, NULL);
}
