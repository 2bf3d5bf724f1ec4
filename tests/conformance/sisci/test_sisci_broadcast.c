/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/test_sisci_broadcast.c: SCI_FLAG_BROADCAST as
 * Dolphin programs use it: every node creates a broadcast segment of one id,
 * a writer connects to DIS_BROADCAST_NODEID_GROUP_ALL and maps the group.
 * Stores (at a barrier, and with no barrier at all) and DMA land in every
 * member's segment, never in a plain segment of the same id; a member killed
 * is reported as a lost owner is; bad flag combinations get their errors.
 * Member processes are real (tests/helpers/proc.h); the in-process tests also
 * run on loopback.
 */
#include "tests/conformance/sisci/sisci_test.h"
#include "tests/helpers/proc.h"

#include <sched.h>
#include <time.h>

#define SEG_ID 777
#define OTHER_ID 778
#define SEG_SIZE (64u * 1024)
#define PIO_WORDS 1024u           /* stored through the map from offset 0 */
#define DMA_OFFSET 16384u
#define DMA_LEN 8192u
#define POSTED_OFFSET 32768u
#define LAZY_OFFSET 61440u        /* stored with no barrier after it */
#define READY 0x5eadu
#define OK 0x0cu

enum member_cmd { CMD_CHECK_PIO = 1, CMD_CHECK_DMA, CMD_AWAIT_WORD, CMD_QUIT };

static char fabric[XRMA_NAME_MAX];

static uint8_t dma_byte(size_t i, unsigned int seed)
{
	return (uint8_t)(i * 7 + seed);
}

/* Wait (bounded by time, yielding) until *word == want. */
static bool await_word(volatile uint32_t *word, uint32_t want, unsigned int ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (*word == want)
			return true;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 > ms)
			return false;
		sched_yield();
	}
}

/*
 * Child: a member. Creates its broadcast segment, says READY, then answers
 * commands (each followed by a value) by checking its own memory: OK or exit.
 */
static int member_main(int sock, const char *arg)
{
	sci_desc_t sd;
	sci_local_segment_t seg;
	sci_map_t map;
	volatile uint32_t *mem;
	uint64_t cmd, v;
	sci_error_t err;

	(void)arg;
	PROC_CHECK_EQ(sisci_child_owner(&sd, SEG_ID, SEG_SIZE, SCI_FLAG_BROADCAST, &seg), SCI_ERR_OK);
	mem = SCIMapLocalSegment(seg, &map, 0, SEG_SIZE, NULL, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	PROC_CHECK(proc_send(sock, READY) == 0);
	for (;;) {
		PROC_CHECK(proc_recv(sock, &cmd, 20000) == 0);
		PROC_CHECK(proc_recv(sock, &v, 20000) == 0);
		if (cmd == CMD_QUIT)
			break;
		if (cmd == CMD_CHECK_PIO) {
			for (uint32_t i = 0; i < PIO_WORDS; i++)
				PROC_CHECK_EQ(mem[i], (uint32_t)v + i);
		} else if (cmd == CMD_CHECK_DMA) {
			const volatile uint8_t *b = (const volatile uint8_t *)mem;
			size_t at = v >> 8;

			for (size_t i = 0; i < DMA_LEN; i++)
				PROC_CHECK_EQ(b[at + i], dma_byte(i, (unsigned int)(v & 0xff)));
		} else {
			PROC_CHECK(await_word(&mem[LAZY_OFFSET / 4], (uint32_t)v, 10000));
		}
		PROC_CHECK(proc_send(sock, OK) == 0);
	}
	SCIUnmapSegment(map, 0, &err);
	SCISetSegmentUnavailable(seg, 0, 0, &err);
	SCIRemoveSegment(seg, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIClose(sd, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	return 0;
}

static const struct proc_role roles[] = {
	{ "member", member_main },
	{ NULL, NULL },
};

static void skip_unless_broadcast(bool multiproc)
{
	if (!sisci_test_provider_has(XRMA_CAP_BROADCAST | XRMA_CAP_MAP) ||
	    (multiproc && !proc_provider_multiproc()))
		skip();
}

/* Send cmd and value to every member and require OK from each. */
static void ask_all(struct proc *members, size_t n, uint64_t cmd, uint64_t v)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(proc_send(members[i].sock, cmd), 0);
		assert_int_equal(proc_send(members[i].sock, v), 0);
	}
	for (size_t i = 0; i < n; i++)
		assert_int_equal(proc_expect(members[i].sock, OK, 20000), 0);
}

static void spawn_members(struct proc *members, const unsigned int *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(proc_spawn(&members[i], fabric, nodes[i], "member", NULL), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(proc_expect(members[i].sock, READY, 20000), 0);
}

static sci_remote_segment_t connect_group(sci_desc_t sd, unsigned int id)
{
	sci_remote_segment_t r = NULL;
	sci_error_t err;

	SCIConnectSegment(sd, &r, DIS_BROADCAST_NODEID_GROUP_ALL, id, 0, NULL, NULL, SISCI_TIMEOUT,
			  SCI_FLAG_BROADCAST, &err);
	assert_sci(err, SCI_ERR_OK);
	return r;
}

/* A private segment whose bytes are dma_byte(i, seed). */
static sci_local_segment_t dma_source(sci_desc_t sd, unsigned int seed)
{
	sci_local_segment_t src;
	sci_map_t map;
	uint8_t *p;
	sci_error_t err;

	SCICreateSegment(sd, &src, 0, DMA_LEN, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(src, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	p = SCIMapLocalSegment(src, &map, 0, DMA_LEN, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	for (size_t i = 0; i < DMA_LEN; i++)
		p[i] = dma_byte(i, seed);
	SCIUnmapSegment(map, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	return src;
}

static void test_broadcast_stores_and_dma_reach_every_member_process(void **state)
{
	const unsigned int nodes[] = { sisci_node(1), sisci_node(3), sisci_node(4) };
	struct proc members[3];
	sci_desc_t sd;
	sci_local_segment_t mine, src;
	sci_remote_segment_t group;
	sci_dma_queue_t dq;
	sci_map_t map, local_map;
	sci_sequence_t seq;
	volatile uint32_t *p, *own;
	sci_error_t err;

	(void)state;
	skip_unless_broadcast(true);
	spawn_members(members, nodes, 3);
	/* The writer's node is a member too: its own segment gets every store. */
	sd = sisci_test_open(sisci_node(2));
	SCICreateSegment(sd, &mine, SEG_ID, SEG_SIZE, NULL, NULL, SCI_FLAG_BROADCAST, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(mine, 0, 0, &err);
	SCISetSegmentAvailable(mine, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	own = SCIMapLocalSegment(mine, &local_map, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);

	group = connect_group(sd, SEG_ID);
	assert_int_equal(SCIGetRemoteSegmentSize(group), SEG_SIZE);
	p = SCIMapRemoteSegment(group, &map, 0, SEG_SIZE, NULL, SCI_FLAG_BROADCAST, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateMapSequence(map, &seq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);

	/* Stores, then the barrier: on return they are in every member. */
	for (uint32_t i = 0; i < PIO_WORDS; i++)
		p[i] = 0x1000u + i;
	SCIStoreBarrier(seq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	for (uint32_t i = 0; i < PIO_WORDS; i++)
		assert_int_equal(own[i], 0x1000u + i);
	ask_all(members, 3, CMD_CHECK_PIO, 0x1000u);
	/* A sequence check is a release point as well. */
	for (uint32_t i = 0; i < PIO_WORDS; i++)
		p[i] = 0x7000u + i;
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_OK);
	ask_all(members, 3, CMD_CHECK_PIO, 0x7000u);

	/* DMA with SCI_FLAG_BROADCAST, synchronous and posted, fans out to each member. */
	src = dma_source(sd, 5);
	SCICreateDMAQueue(sd, &dq, 0, 4, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIStartDmaTransfer(dq, src, group, 0, DMA_LEN, DMA_OFFSET, NULL, NULL,
			    SCI_FLAG_BROADCAST | SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_OK);
	ask_all(members, 3, CMD_CHECK_DMA, (uint64_t)DMA_OFFSET << 8 | 5);
	SCIResetDMAQueue(dq, 0, &err);
	SCIEnqueueDMATransfer(dq, src, group, 0, POSTED_OFFSET, DMA_LEN, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPostDMAQueue(dq, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIWaitForDMAQueue(dq, 10000, 0, &err), SCI_DMAQUEUE_DONE);
	assert_sci(err, SCI_ERR_OK);
	ask_all(members, 3, CMD_CHECK_DMA, (uint64_t)POSTED_OFFSET << 8 | 5);
	for (size_t i = 0; i < DMA_LEN; i++)
		assert_int_equal(((volatile uint8_t *)own)[POSTED_OFFSET + i], dma_byte(i, 5));

	/* A store with no barrier after it (as real programs do) still arrives, in bounded time. */
	p[LAZY_OFFSET / 4] = 0xfeedf00du;
	ask_all(members, 3, CMD_AWAIT_WORD, 0xfeedf00du);

	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRemoveSequence(seq, 0, &err);
	SCIUnmapSegment(map, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	/* Left before the members remove their segments (an importer would keep them BUSY). */
	sisci_test_disconnect(group);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(proc_send(members[i].sock, CMD_QUIT), 0);
		assert_int_equal(proc_send(members[i].sock, 0), 0);
	}
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(proc_join(&members[i], 20000), 0);
	SCIUnmapSegment(local_map, 0, &err);
	sisci_test_remove(src);
	sisci_test_remove(mine);
	sisci_test_close(sd);
}

static void test_broadcast_member_killed_is_reported_and_others_still_written(void **state)
{
	const unsigned int nodes[] = { sisci_node(1), sisci_node(3), sisci_node(4) };
	struct proc members[3];
	sci_desc_t sd;
	sci_remote_segment_t group;
	sci_local_segment_t src;
	sci_dma_queue_t dq;
	sci_map_t map, map2;
	sci_sequence_t seq;
	volatile uint32_t *p;
	sci_segment_cb_reason_t reason;
	sci_error_t err, status;

	(void)state;
	skip_unless_broadcast(true);
	spawn_members(members, nodes, 3);
	sd = sisci_test_open(sisci_node(2));
	group = connect_group(sd, SEG_ID);
	p = SCIMapRemoteSegment(group, &map, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateMapSequence(map, &seq, 0, &err);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);

	proc_kill(&members[1]);
	reason = SCIWaitForRemoteSegmentEvent(group, &status, 10000, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_LOST);
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_NOT_RETRIABLE);
	assert_sci(err, SCI_ERR_NOT_CONNECTED);

	/* Stores still reach the survivors; the barrier says one member missed them. */
	for (uint32_t i = 0; i < PIO_WORDS; i++)
		p[i] = 0x3000u + i;
	SCIStoreBarrier(seq, 0, &err);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	ask_all(&members[0], 1, CMD_CHECK_PIO, 0x3000u);
	ask_all(&members[2], 1, CMD_CHECK_PIO, 0x3000u);

	/* New work on the group fails as on a lost segment. */
	(void)SCIMapRemoteSegment(group, &map2, 0, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_NOT_CONNECTED);
	src = dma_source(sd, 9);
	SCICreateDMAQueue(sd, &dq, 0, 1, 0, &err);
	SCIStartDmaTransfer(dq, src, group, 0, DMA_LEN, DMA_OFFSET, NULL, NULL,
			    SCI_FLAG_BROADCAST | SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_NOT_CONNECTED);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_ERROR);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);

	/* Leaving works; a new group is the survivors. */
	SCIRemoveSequence(seq, 0, &err);
	SCIUnmapSegment(map, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_disconnect(group);
	group = connect_group(sd, SEG_ID);
	p = SCIMapRemoteSegment(group, &map, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	for (uint32_t i = 0; i < PIO_WORDS; i++)
		p[i] = 0x4000u + i;
	SCIUnmapSegment(map, 0, &err);   /* unmapping pushes too */
	assert_sci(err, SCI_ERR_OK);
	ask_all(&members[0], 1, CMD_CHECK_PIO, 0x4000u);
	ask_all(&members[2], 1, CMD_CHECK_PIO, 0x4000u);
	sisci_test_disconnect(group);
	for (size_t i = 0; i < 3; i += 2) {
		assert_int_equal(proc_send(members[i].sock, CMD_QUIT), 0);
		assert_int_equal(proc_send(members[i].sock, 0), 0);
		assert_int_equal(proc_join(&members[i], 20000), 0);
	}
	sisci_test_remove(src);
	sisci_test_close(sd);
}

/* Nodes 1 and 3 hold broadcast segments, node 2 a plain one of the same id; node 3 writes. */
static void test_broadcast_group_is_only_broadcast_segments_in_process(void **state)
{
	sci_desc_t sd1, sd2, sd3;
	sci_local_segment_t s1, s2, s3, src;
	sci_remote_segment_t group;
	sci_dma_queue_t dq;
	sci_map_t map, m1, m2, m3;
	sci_sequence_t seq;
	volatile uint32_t *p, *l1, *l2, *l3;
	sci_error_t err;

	(void)state;
	skip_unless_broadcast(false);
	sd1 = sisci_test_open(sisci_node(1));
	sd2 = sisci_test_open(sisci_node(2));
	sd3 = sisci_test_open(sisci_node(3));
	SCICreateSegment(sd1, &s1, SEG_ID, SEG_SIZE, NULL, NULL, SCI_FLAG_BROADCAST, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateSegment(sd3, &s3, SEG_ID, SEG_SIZE, NULL, NULL, SCI_FLAG_BROADCAST, &err);
	assert_sci(err, SCI_ERR_OK);
	s2 = sisci_test_segment(sd2, SEG_ID, SEG_SIZE);
	/* Created but not yet available: not a member either, so no group yet. */
	SCIConnectSegment(sd3, &group, DIS_BROADCAST_NODEID_GROUP_ALL, SEG_ID, 0, NULL, NULL,
			  SISCI_TIMEOUT, SCI_FLAG_BROADCAST, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_SEGMENT);
	SCIPrepareSegment(s1, 0, 0, &err);
	SCISetSegmentAvailable(s1, 0, 0, &err);
	SCIPrepareSegment(s3, 0, 0, &err);
	SCISetSegmentAvailable(s3, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	l1 = SCIMapLocalSegment(s1, &m1, 0, SEG_SIZE, NULL, 0, &err);
	l2 = SCIMapLocalSegment(s2, &m2, 0, SEG_SIZE, NULL, 0, &err);
	l3 = SCIMapLocalSegment(s3, &m3, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	l2[0] = 0;

	group = connect_group(sd3, SEG_ID);
	p = SCIMapRemoteSegment(group, &map, 0, SEG_SIZE, NULL, SCI_FLAG_BROADCAST, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateMapSequence(map, &seq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	p[0] = 0xc0ffee01u;
	p[1] = 0xc0ffee02u;
	SCIFlush(seq, 0);
	assert_int_equal(l1[0], 0xc0ffee01u);
	assert_int_equal(l3[1], 0xc0ffee02u);
	assert_int_equal(l2[0], 0);
	assert_int_equal(p[1], 0xc0ffee02u);   /* loads see this node's own stores */

	/* SCIMemCpy through the map pushes before it returns. */
	{
		uint32_t words[4] = { 1, 2, 3, 4 };

		SCIMemCpy(seq, words, map, 64, sizeof(words), SCI_FLAG_ERROR_CHECK, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_int_equal(l1[16 + 3], 4);
		assert_int_equal(l3[16], 1);
	}
	/* So does a block transfer into it, by the time it ends. */
	l2[40] = 0xb10cu;
	SCITransferBlock(m2, 160, map, 128, 4, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(l1[32], 0xb10cu);
	assert_int_equal(l3[32], 0xb10cu);
	l2[40] = 0;

	src = dma_source(sd3, 11);
	SCICreateDMAQueue(sd3, &dq, 0, 1, 0, &err);
	SCIStartDmaTransfer(dq, src, group, 0, DMA_LEN, DMA_OFFSET, NULL, NULL,
			    SCI_FLAG_BROADCAST | SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_OK);
	for (size_t i = 0; i < DMA_LEN; i++) {
		assert_int_equal(((volatile uint8_t *)l1)[DMA_OFFSET + i], dma_byte(i, 11));
		assert_int_equal(((volatile uint8_t *)l3)[DMA_OFFSET + i], dma_byte(i, 11));
	}
	assert_int_equal(((volatile uint8_t *)l2)[DMA_OFFSET], 0);

	/* Bad combinations. */
	SCIStartDmaTransfer(dq, src, group, 0, DMA_LEN, 0, NULL, NULL,
			    SCI_FLAG_BROADCAST | SCI_FLAG_DMA_READ | SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIResetDMAQueue(dq, 0, &err);
	SCIEnqueueDMATransfer(dq, src, group, 0, 0, DMA_LEN, SCI_FLAG_DMA_READ, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	{
		sci_remote_segment_t plain = sisci_test_connect(sd3, sisci_node(2), SEG_ID);
		sci_map_t bad;

		(void)SCIMapRemoteSegment(plain, &bad, 0, 4096, NULL, SCI_FLAG_BROADCAST, &err);
		assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
		SCIStartDmaTransfer(dq, src, plain, 0, DMA_LEN, 0, NULL, NULL,
				    SCI_FLAG_BROADCAST | SCI_FLAG_DMA_WAIT, &err);
		assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
		sisci_test_disconnect(plain);
	}
	{
		sci_map_t bad;
		sci_remote_segment_t r;
		sci_local_segment_t b;

		(void)SCIMapRemoteSegment(group, &bad, 0, 4096, NULL, SCI_FLAG_READONLY_MAP, &err);
		assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
		SCIConnectSegment(sd3, &r, sisci_node(1), SEG_ID, 0, NULL, NULL, SISCI_TIMEOUT,
				  SCI_FLAG_BROADCAST, &err);
		assert_sci(err, SCI_ERR_ILLEGAL_NODEID);
		SCIConnectSegment(sd3, &r, DIS_BROADCAST_NODEID_GROUP_ALL, OTHER_ID, 0, NULL, NULL,
				  SISCI_TIMEOUT, SCI_FLAG_BROADCAST, &err);
		assert_sci(err, SCI_ERR_NO_SUCH_SEGMENT);
		SCICreateSegment(sd1, &b, OTHER_ID, 4096, NULL, NULL,
				 SCI_FLAG_BROADCAST | SCI_FLAG_PRIVATE, &err);
		assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	}
	/* A mapped group cannot be left; an unmapped one can. */
	SCIDisconnectSegment(group, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRemoveSequence(seq, 0, &err);
	SCIUnmapSegment(map, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_disconnect(group);
	SCIUnmapSegment(m1, 0, &err);
	SCIUnmapSegment(m2, 0, &err);
	SCIUnmapSegment(m3, 0, &err);
	sisci_test_remove(src);
	sisci_test_remove(s1);
	sisci_test_remove(s2);
	sisci_test_remove(s3);
	sisci_test_close(sd1);
	sisci_test_close(sd2);
	sisci_test_close(sd3);
}

/* Without the capability every broadcast flag says so. */
static void test_broadcast_without_capability_is_not_implemented(void **state)
{
	sci_desc_t sd;
	sci_remote_segment_t r;
	sci_local_segment_t s;
	sci_error_t err;

	(void)state;
	if (sisci_test_provider_has(XRMA_CAP_BROADCAST))
		skip();
	sd = sisci_test_open(sisci_node(1));
	SCICreateSegment(sd, &s, SEG_ID, 4096, NULL, NULL, SCI_FLAG_BROADCAST, &err);
	assert_sci(err, SCI_ERR_FLAG_NOT_IMPLEMENTED);
	SCIConnectSegment(sd, &r, DIS_BROADCAST_NODEID_GROUP_ALL, SEG_ID, 0, NULL, NULL, SISCI_TIMEOUT,
			  SCI_FLAG_BROADCAST, &err);
	assert_sci(err, SCI_ERR_FLAG_NOT_IMPLEMENTED);
	sisci_test_close(sd);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_broadcast_stores_and_dma_reach_every_member_process,
					  proc_teardown),
		cmocka_unit_test_teardown(test_broadcast_member_killed_is_reported_and_others_still_written,
					  proc_teardown),
		cmocka_unit_test(test_broadcast_group_is_only_broadcast_segments_in_process),
		cmocka_unit_test(test_broadcast_without_capability_is_not_implemented),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	fixture_fabric_name(fabric, sizeof(fabric), "sisci-bc");
	setenv("XRMA_FABRIC", fabric, 1);
	return cmocka_run_group_tests_name("sisci_broadcast", tests, NULL, NULL);
}
