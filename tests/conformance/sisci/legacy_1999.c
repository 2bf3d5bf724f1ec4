/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/legacy_1999.c: written as a program of the 1999 API
 * would be (no SCIInitialize, int-returning callbacks with the spec's argument
 * lists, unsigned int sizes, IN/OUT in its own prototypes). It only has to
 * compile and link against our headers unchanged; it is not run.
 */
#include <stdio.h>
#include "sisci_api.h"

#define SEGMENT_ID 0x100
#define SEGMENT_SIZE 65536u

static int segment_event(void *arg, sci_local_segment_t segment, sci_segment_cb_reason_t reason,
			 unsigned int nodeId, unsigned int localAdapterNo)
{
	(void)arg; (void)segment; (void)localAdapterNo;
	printf("segment event %d from node %u\n", (int)reason, nodeId);
	return 0;
}

static int dma_done(IN void *arg, IN sci_dma_queue_t queue)
{
	(void)arg;
	return SCIDMAQueueState(queue) == SCI_DMAQUEUE_DONE;
}

static int interrupt_event(void *arg, sci_local_interrupt_t interrupt, sci_error_t status)
{
	(void)arg; (void)interrupt;
	return status == SCI_ERR_OK;
}

int main(int argc, char **argv)
{
	sci_desc_t sd;
	sci_local_segment_t segment;
	sci_remote_segment_t remote;
	sci_dma_queue_t dq;
	sci_local_interrupt_t intr;
	sci_map_t map;
	sci_sequence_t seq;
	sci_error_t error;
	unsigned int size, intno = 3, remote_node = argc > 1 ? (unsigned int)argv[1][0] : 2;
	volatile int *p;

	SCIOpen(&sd, 0, &error);
	if (error != SCI_ERR_OK)
		return 1;
	SCICreateSegment(sd, &segment, SEGMENT_ID, SEGMENT_SIZE, segment_event, NULL,
			 SCI_FLAG_USE_CALLBACK, &error);
	SCIPrepareSegment(segment, 0, 0, &error);
	SCISetSegmentAvailable(segment, 0, 0, &error);
	SCICreateInterrupt(sd, &intr, 0, &intno, interrupt_event, NULL, SCI_FLAG_USE_CALLBACK, &error);
	SCIConnectSegment(sd, &remote, remote_node, SEGMENT_ID, 0, NULL, NULL, SCI_INFINITE_TIMEOUT, 0,
			  &error);
	size = SCIGetRemoteSegmentSize(remote);
	p = SCIMapRemoteSegment(remote, &map, 0, size, NULL, 0, &error);
	SCICreateMapSequence(map, &seq, 0, &error);
	while (SCIStartSequence(seq, 0, &error) != SCI_SEQ_OK)
		;
	p[0] = 1;
	if (SCICheckSequence(seq, 0, &error) != SCI_SEQ_OK)
		return 2;
	SCICreateDMAQueue(sd, &dq, 0, 16, 0, &error);
	SCIEnqueueDMATransfer(dq, segment, remote, 0, 0, size, 0, &error);
	SCIPostDMAQueue(dq, dma_done, NULL, SCI_FLAG_USE_CALLBACK, &error);
	SCIRemoveDMAQueue(dq, 0, &error);
	SCIRemoveSequence(seq, 0, &error);
	SCIUnmapSegment(map, 0, &error);
	SCIDisconnectSegment(remote, 0, &error);
	SCIRemoveInterrupt(intr, 0, &error);
	SCISetSegmentUnavailable(segment, 0, SCI_FLAG_NOTIFY, &error);
	SCIRemoveSegment(segment, 0, &error);
	SCIClose(sd, 0, &error);
	return error == SCI_ERR_OK ? 0 : 3;
}
