/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/test_sisci_errno.c: SISCI reports through its
 * error argument, so a call that succeeds leaves the program's errno as it
 * was. A whole program's life (the first call of the process included, which
 * opens a context and looks for a configuration file) runs with errno set to
 * a sentinel before each call: descriptors acting as two nodes, a segment
 * created, prepared, made available, connected, mapped both ways, written
 * through a sequence and by DMA, and everything closed again.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "tests/conformance/sisci/sisci_test.h"

#define SENTINEL 12345
#define SEG_ID 610
#define SEG_SIZE 8192u

/* Run one SISCI call with errno at the sentinel; it must succeed and leave errno alone. */
#define assert_sci_keeps_errno(call)                                                       \
	do {                                                                               \
		err = SCI_ERR_OK;                                                          \
		errno = SENTINEL;                                                          \
		call;                                                                      \
		if (errno != SENTINEL)                                                     \
			print_error("%s changed errno to %d\n", #call, errno);             \
		assert_sci(err, SCI_ERR_OK);                                               \
		assert_int_equal(errno, SENTINEL);                                         \
	} while (0)

static sci_desc_t open_as(unsigned int node)
{
	char id[16];
	sci_desc_t sd = NULL;
	sci_error_t err;

	snprintf(id, sizeof(id), "%u", node);
	setenv("XRMA_NODE_ID", id, 1);
	assert_sci_keeps_errno(SCIOpen(&sd, 0, &err));
	return sd;
}

static void test_sisci_successful_calls_leave_errno_alone(void **state)
{
	sci_local_segment_t target, source;
	sci_remote_segment_t remote;
	sci_map_t local_map, remote_map, source_map;
	sci_sequence_t seq;
	sci_dma_queue_t dq;
	volatile uint8_t *remote_mem;
	uint8_t *target_mem, *source_mem;
	unsigned char line[64];
	sci_desc_t sd1, sd2;
	sci_error_t err;

	(void)state;
	assert_sci_keeps_errno(SCIInitialize(0, &err));
	sd1 = open_as(sisci_node(1));
	sd2 = open_as(sisci_node(2));
	assert_sci_keeps_errno(SCICreateSegment(sd1, &target, SEG_ID, SEG_SIZE, NULL, NULL, 0, &err));
	assert_sci_keeps_errno(SCIPrepareSegment(target, 0, 0, &err));
	assert_sci_keeps_errno(SCISetSegmentAvailable(target, 0, 0, &err));
	assert_sci_keeps_errno(target_mem = SCIMapLocalSegment(target, &local_map, 0, SEG_SIZE, NULL, 0, &err));
	assert_sci_keeps_errno(SCICreateSegment(sd2, &source, 0, SEG_SIZE, NULL, NULL, SCI_FLAG_PRIVATE, &err));
	assert_sci_keeps_errno(SCIPrepareSegment(source, 0, 0, &err));
	assert_sci_keeps_errno(source_mem = SCIMapLocalSegment(source, &source_map, 0, SEG_SIZE, NULL, 0, &err));
	assert_sci_keeps_errno(SCIConnectSegment(sd2, &remote, sisci_node(1), SEG_ID, 0, NULL, NULL,
						 SISCI_TIMEOUT, 0, &err));

	/* Mapped stores through a sequence. */
	assert_sci_keeps_errno(remote_mem = SCIMapRemoteSegment(remote, &remote_map, 0, SEG_SIZE, NULL, 0, &err));
	assert_sci_keeps_errno(SCICreateMapSequence(remote_map, &seq, 0, &err));
	assert_sci_keeps_errno(SCIStartSequence(seq, 0, &err));
	memset(line, 0x6b, sizeof(line));
	assert_sci_keeps_errno(SCIMemCpy(seq, line, remote_map, 64, sizeof(line), 0, &err));
	assert_sci_keeps_errno(SCICheckSequence(seq, 0, &err));
	assert_int_equal(target_mem[64], 0x6b);
	assert_int_equal(remote_mem[64 + 63], 0x6b);
	assert_sci_keeps_errno(SCIRemoveSequence(seq, 0, &err));
	assert_sci_keeps_errno(SCIUnmapSegment(remote_map, 0, &err));

	/* DMA, waited for in the call and after it. */
	fixture_pattern(source_mem, SEG_SIZE, 0x19, 0);
	assert_sci_keeps_errno(SCICreateDMAQueue(sd2, &dq, 0, 4, 0, &err));
	assert_sci_keeps_errno(SCIStartDmaTransfer(dq, source, remote, 0, SEG_SIZE, 0, NULL, NULL,
						   SCI_FLAG_DMA_WAIT, &err));
	assert_int_equal(fixture_pattern_check(target_mem, SEG_SIZE, 0x19, 0), FIXTURE_MATCH);
	assert_sci_keeps_errno(SCIStartDmaTransfer(dq, source, remote, 0, SEG_SIZE, 0, NULL, NULL, 0, &err));
	assert_sci_keeps_errno(SCIWaitForDMAQueue(dq, SCI_INFINITE_TIMEOUT, 0, &err));
	assert_sci_keeps_errno(SCIRemoveDMAQueue(dq, 0, &err));

	assert_sci_keeps_errno(SCIDisconnectSegment(remote, 0, &err));
	assert_sci_keeps_errno(SCIUnmapSegment(source_map, 0, &err));
	assert_sci_keeps_errno(SCIUnmapSegment(local_map, 0, &err));
	assert_sci_keeps_errno(SCISetSegmentUnavailable(target, 0, 0, &err));
	assert_sci_keeps_errno(SCIRemoveSegment(source, 0, &err));
	assert_sci_keeps_errno(SCIRemoveSegment(target, 0, &err));
	assert_sci_keeps_errno(SCIClose(sd2, 0, &err));
	assert_sci_keeps_errno(SCIClose(sd1, 0, &err));
	errno = SENTINEL;
	SCITerminate();
	assert_int_equal(errno, SENTINEL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sisci_successful_calls_leave_errno_alone),
	};

	sisci_test_fabric("sisci-errno");
	return cmocka_run_group_tests_name("sisci_errno", tests, NULL, NULL);
}
