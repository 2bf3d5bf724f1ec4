/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/test_sci_space.c: SCIConnectSCISpace on the sci provider,
 * between two processes. A child (node 4) exports a segment through the core
 * API and reports its 64-bit SCI address; this process (node 8) connects to a
 * window inside it by address with SISCI, then maps, copies by DMA, checks a
 * sequence and disconnects, while the owner sees no importer and no event.
 * Every refusal has its documented code: an address no export covers, a
 * window past the segment's end, misaligned addresses and sizes, an absent
 * node, and an owner whose [sci] raw_space forbids raw access.
 */
#include "tests/conformance/sisci/sisci_test.h"

#include <stdint.h>
#include <string.h>

#define OWNER 4u
#define IMPORTER 8u
#define PAGE 4096u
#define SEG_LEN (4 * PAGE)
#define OWNER_SEED 3
#define DMA_SEED 9
#define STORE_AT (PAGE + 100)   /* segment offset of the byte stored through the map */
#define STORE_BYTE 0x5a
#define CHECK 1u                /* parent to owner: check what arrived, then leave */

static char fabric[XRMA_NAME_MAX];

/* ---- the owner (child) ---- */

static int owner_main(int sock, const char *arg)
{
	struct xrma_ctx_attr attr = { .provider = "sci", .node_id = XRMA_NODE_ANY };
	struct xrma_event ev;
	struct xrma_ctx *ctx;
	struct fixture_seg s;
	size_t importers = 1;
	uint64_t bus, cmd;

	(void)arg;
	PROC_CHECK_RC(xrma_ctx_open(&attr, &ctx), 0);
	PROC_CHECK_RC(fixture_seg_make(ctx, SEG_LEN, XRMA_ACCESS_ALL, true, OWNER_SEED, &s), 0);
	PROC_CHECK_RC(xrma_seg_bus_addr(s.seg, &bus), 0);
	PROC_CHECK(proc_send(sock, bus) == 0);
	PROC_CHECK(proc_recv(sock, &cmd, 15000) == 0 && cmd == CHECK);
	/* A raw window has no handshake: no importer counted, no event. */
	PROC_CHECK_RC(xrma_seg_importers(s.seg, &importers), 0);
	PROC_CHECK(importers == 0);
	PROC_CHECK_RC(xrma_seg_wait_event(s.seg, 0, &ev), XRMA_ETIMEDOUT);
	PROC_CHECK(((uint8_t *)s.addr)[STORE_AT] == STORE_BYTE);
	PROC_CHECK(fixture_pattern_check((uint8_t *)s.addr + 2 * PAGE, 64, DMA_SEED, 0) == FIXTURE_MATCH);
	PROC_CHECK_RC(fixture_seg_close(&s), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* ---- the importer (this process) ---- */

struct owner {
	struct proc p;
	uint64_t bus;       /* of the segment's first byte */
};

/* Start the owner (raw_space as given, NULL: the default) and learn its address. */
static void owner_start(struct owner *o, const char *raw_space)
{
	if (raw_space)
		setenv("XRMA_SCI_RAW_SPACE", raw_space, 1);
	assert_int_equal(proc_spawn(&o->p, fabric, OWNER, "owner", NULL), 0);
	unsetenv("XRMA_SCI_RAW_SPACE");
	assert_int_equal(proc_recv(o->p.sock, &o->bus, 10000), 0);
	assert_int_equal(o->bus >> 48, OWNER);
}

/* Let the owner check and leave; its exit code is the verdict. */
static void owner_finish(struct owner *o)
{
	assert_int_equal(proc_send(o->p.sock, CHECK), 0);
	assert_int_equal(proc_join(&o->p, 10000), 0);
}

static sci_address_t sci_address(uint64_t bus)
{
	return (sci_address_t){
		.hi = (unsigned int)(bus >> 16),
		.lo = (unsigned short)bus,
		.nodeId = (unsigned short)(bus >> 48),
	};
}

static sci_error_t connect_space(sci_desc_t sd, uint64_t bus, size_t size, sci_remote_segment_t *r)
{
	sci_error_t err = SCI_ERR_OK;

	SCIConnectSCISpace(sd, r, sci_address(bus), size, 0, 0, &err);
	return err;
}

static void test_sci_space_connects_to_a_window_of_an_exported_segment(void **state)
{
	sci_local_segment_t local;
	sci_remote_segment_t r;
	sci_sequence_t seq;
	sci_dma_queue_t dq;
	sci_map_t map, lmap;
	volatile uint8_t *m;
	struct owner o;
	uint8_t *words;
	sci_desc_t sd;
	sci_error_t err;

	(void)state;
	owner_start(&o, NULL);
	sd = sisci_test_open(IMPORTER);
	/* The window starts one page into the segment and ends a page before its end. */
	assert_sci(connect_space(sd, o.bus + PAGE, 2 * PAGE, &r), SCI_ERR_OK);
	assert_int_equal(SCIGetRemoteSegmentSize(r), 2 * PAGE);
	m = SCIMapRemoteSegment(r, &map, 0, 2 * PAGE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(fixture_pattern_check((const void *)m, 2 * PAGE, OWNER_SEED, PAGE),
			 FIXTURE_MATCH);
	SCICreateMapSequence(map, &seq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);
	m[STORE_AT - PAGE] = STORE_BYTE;
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_OK);
	assert_sci(err, SCI_ERR_OK);
	/* DMA to window offset PAGE: segment offset 2 * PAGE. */
	SCICreateSegment(sd, &local, 0, PAGE, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(local, 0, 0, &err);
	words = SCIMapLocalSegment(local, &lmap, 0, PAGE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	fixture_pattern(words, 64, DMA_SEED, 0);
	SCICreateDMAQueue(sd, &dq, 0, 4, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIStartDmaTransfer(dq, local, r, 0, 64, PAGE, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_OK);
	/* Beyond the window's end is out of range, as for any remote segment. */
	SCIStartDmaTransfer(dq, local, r, 0, 64, 2 * PAGE - 32, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIUnmapSegment(lmap, 0, &err);
	sisci_test_remove(local);
	SCIRemoveSequence(seq, 0, &err);
	/* Mapped: busy, as any remote segment. */
	SCIDisconnectSegment(r, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	SCIUnmapSegment(map, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_disconnect(r);
	owner_finish(&o);
	sisci_test_close(sd);
}

static void test_sci_space_refusals_have_their_documented_codes(void **state)
{
	sci_remote_segment_t r = NULL;
	struct owner o;
	sci_desc_t sd;
	sci_error_t err;

	(void)state;
	owner_start(&o, NULL);
	sd = sisci_test_open(IMPORTER);
	/* Past the export, and below it at the start of the node's space when it does not start there. */
	assert_sci(connect_space(sd, o.bus + SEG_LEN, PAGE, &r), SCI_ERR_NO_SUCH_SEGMENT);
	assert_sci(connect_space(sd, o.bus + PAGE, SEG_LEN, &r), SCI_ERR_OUT_OF_RANGE);
	assert_sci(connect_space(sd, o.bus + 8, PAGE, &r), SCI_ERR_OFFSET_ALIGNMENT);
	assert_sci(connect_space(sd, o.bus, PAGE + 8, &r), SCI_ERR_SIZE_ALIGNMENT);
	assert_sci(connect_space(sd, o.bus, 0, &r), SCI_ERR_SIZE_ALIGNMENT);
	/* Node 12 does not exist. */
	assert_sci(connect_space(sd, (uint64_t)12 << 48 | (o.bus & 0xffffffffffffull), PAGE, &r),
		   SCI_ERR_NO_SUCH_NODEID);
	SCIConnectSCISpace(sd, NULL, sci_address(o.bus), PAGE, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCIConnectSCISpace(sd, &r, sci_address(o.bus), PAGE, 0, 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIConnectSCISpace(NULL, &r, sci_address(o.bus), PAGE, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	assert_null(r);
	/* Nothing was left behind: the descriptor closes. */
	sisci_test_close(sd);
	assert_int_equal(proc_kill(&o.p), 128 + 9);
}

static void test_sci_space_refused_where_the_owner_forbids_raw_access(void **state)
{
	/* "none" refuses everyone; "all" lets in every endpoint the fabric admits. */
	static const struct { const char *raw_space; sci_error_t want; } cases[] = {
		{ "none", SCI_ERR_ACCESS },
		{ "all", SCI_ERR_OK },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sci_remote_segment_t r = NULL;
		struct owner o;
		sci_desc_t sd;

		owner_start(&o, cases[i].raw_space);
		sd = sisci_test_open(IMPORTER);
		assert_sci(connect_space(sd, o.bus, PAGE, &r), cases[i].want);
		if (cases[i].want == SCI_ERR_OK)
			sisci_test_disconnect(r);
		else
			assert_null(r);
		sisci_test_close(sd);
		assert_int_equal(proc_kill(&o.p), 128 + 9);
	}
}

static int space_test_up(void **state)
{
	(void)state;
	fixture_fabric_name(fabric, sizeof(fabric), "scispace");
	setenv("XRMA_FABRIC", fabric, 1);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct proc_role roles[] = { { "owner", owner_main }, { NULL, NULL } };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_sci_space_connects_to_a_window_of_an_exported_segment,
				       space_test_up),
		cmocka_unit_test_setup(test_sci_space_refusals_have_their_documented_codes, space_test_up),
		cmocka_unit_test_setup(test_sci_space_refused_where_the_owner_forbids_raw_access,
				       space_test_up),
	};
	int rc;

	/* Raw SCI space is the sci provider's. Children keep the settings they were given. */
	setenv("XRMA_PROVIDER", "sci", 1);
	unsetenv("XRMA_TEST_NODE_STEP");
	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	unsetenv("XRMA_SCI_RAW_SPACE");
	return cmocka_run_group_tests_name("sci_space", tests, NULL, NULL);
}
