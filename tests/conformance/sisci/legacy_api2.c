/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/legacy_api2.c: written as current Dolphin programs
 * are (SCIInitialize, an error-or-exit macro, sci_callback_action_t callbacks
 * with status, size_t sizes, automatic segment ids, SCIStartDmaTransfer with
 * DMA flags, data interrupts, SCIMemCpy with a sequence, flags in constant
 * expressions). It only has to compile and link unchanged; it is not run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sisci_types.h>
#include <sisci_error.h>
#include <sisci_api.h>

#define NO_FLAGS 0
#define NO_CALLBACK NULL
#define NO_ARG NULL
#define ADAPTER_NO 0
#define CHECK(call, ...)                                                                   \
	do {                                                                               \
		sci_error_t e_;                                                            \
		call(__VA_ARGS__, &e_);                                                    \
		if (e_ != SCI_ERR_OK) {                                                    \
			fprintf(stderr, "%s: %s (0x%x)\n", #call, SCIGetErrorString(e_), e_); \
			exit(EXIT_FAILURE);                                                \
		}                                                                          \
	} while (0)

static const unsigned int dma_flags = SCI_FLAG_DMA_READ | SCI_FLAG_DMA_WAIT;
static unsigned int switch_flags(unsigned int f)
{
	switch (f) {
	case SCI_FLAG_DMA_GLOBAL:
		return 1;
	case SCI_FLAG_BROADCAST:
		return 2;
	default:
		return 0;
	}
}

static sci_callback_action_t on_dma(void *arg, sci_dma_queue_t queue, sci_error_t status)
{
	(void)arg; (void)queue;
	return status == SCI_ERR_OK ? SCI_CALLBACK_CONTINUE : SCI_CALLBACK_CANCEL;
}

static sci_callback_action_t on_data(void *arg, sci_local_data_interrupt_t interrupt, void *data,
				     unsigned int length, sci_error_t status)
{
	(void)arg; (void)interrupt; (void)data; (void)length; (void)status;
	return SCI_CALLBACK_CONTINUE;
}

static sci_callback_action_t on_segment(void *arg, sci_local_segment_t segment,
					sci_segment_cb_reason_t reason, unsigned int node,
					unsigned int adapter, sci_error_t error)
{
	(void)arg; (void)segment; (void)node; (void)adapter; (void)error;
	return reason == SCI_CB_CONNECT ? SCI_CALLBACK_CONTINUE : SCI_CALLBACK_CONTINUE;
}

int main(void)
{
	sci_desc_t sd;
	sci_local_segment_t local;
	sci_remote_segment_t remote;
	sci_map_t lmap, rmap;
	sci_sequence_t seq;
	sci_dma_queue_t dq;
	sci_local_data_interrupt_t din;
	sci_remote_data_interrupt_t dout;
	dis_dma_vec_t vec[2];
	unsigned int node_id, intno = 0, len;
	size_t size;
	char msg[16] = "hello";
	volatile char *remote_addr;
	char *local_addr;

	CHECK(SCIInitialize, NO_FLAGS);
	CHECK(SCIOpen, &sd, NO_FLAGS);
	CHECK(SCIGetLocalNodeId, ADAPTER_NO, &node_id, NO_FLAGS);
	CHECK(SCICreateSegment, sd, &local, 0, 1 << 20, on_segment, NO_ARG,
	      SCI_FLAG_AUTO_ID | SCI_FLAG_USE_CALLBACK);
	CHECK(SCIPrepareSegment, local, ADAPTER_NO, NO_FLAGS);
	local_addr = SCIMapLocalSegment(local, &lmap, 0, SCIGetLocalSegmentSize(local), NULL, NO_FLAGS,
					&(sci_error_t){ 0 });
	CHECK(SCISetSegmentAvailable, local, ADAPTER_NO, NO_FLAGS);
	CHECK(SCICreateDataInterrupt, sd, &din, ADAPTER_NO, &intno, on_data, NO_ARG, SCI_FLAG_USE_CALLBACK);
	CHECK(SCIConnectDataInterrupt, sd, &dout, node_id, ADAPTER_NO, intno, SCI_INFINITE_TIMEOUT, NO_FLAGS);
	CHECK(SCITriggerDataInterrupt, dout, msg, sizeof(msg), NO_FLAGS);
	CHECK(SCIConnectSegment, sd, &remote, node_id, SCIGetLocalSegmentId(local), ADAPTER_NO, NO_CALLBACK,
	      NO_ARG, SCI_INFINITE_TIMEOUT, NO_FLAGS);
	size = SCIGetRemoteSegmentSize(remote);
	remote_addr = SCIMapRemoteSegment(remote, &rmap, 0, size, NULL, NO_FLAGS, &(sci_error_t){ 0 });
	CHECK(SCICreateMapSequence, rmap, &seq, NO_FLAGS);
	CHECK(SCIMemCpy, seq, msg, rmap, 0, sizeof(msg), SCI_FLAG_ERROR_CHECK);
	SCIFlush(seq, NO_FLAGS);
	CHECK(SCIMemWrite, msg, remote_addr, sizeof(msg), NO_FLAGS);
	CHECK(SCICreateDMAQueue, sd, &dq, ADAPTER_NO, 1, NO_FLAGS);
	CHECK(SCIStartDmaTransfer, dq, local, remote, 0, 4096, 0, NO_CALLBACK, NO_ARG, SCI_FLAG_DMA_WAIT);
	CHECK(SCIStartDmaTransfer, dq, local, remote, 0, 4096, 0, on_dma, NO_ARG, SCI_FLAG_USE_CALLBACK);
	CHECK(SCIWaitForDMAQueue, dq, SCI_INFINITE_TIMEOUT, dma_flags);
	vec[0] = (dis_dma_vec_t){ .size = 64, .local_offset = 0, .remote_offset = 64 };
	vec[1] = (dis_dma_vec_t){ .size = 64, .local_offset = 128, .remote_offset = 256 };
	CHECK(SCIStartDmaTransferVec, dq, local, remote, 2, vec, NO_CALLBACK, NO_ARG, SCI_FLAG_DMA_WAIT);
	CHECK(SCICacheSync, lmap, local_addr, 64, SCI_FLAG_CACHE_FLUSH | SCI_FLAG_CACHE_INVALIDATE);
	len = sizeof(msg);
	(void)len;
	(void)switch_flags(SCI_FLAG_BROADCAST);
	CHECK(SCIRemoveDMAQueue, dq, NO_FLAGS);
	CHECK(SCIRemoveSequence, seq, NO_FLAGS);
	CHECK(SCIUnmapSegment, rmap, NO_FLAGS);
	CHECK(SCIUnmapSegment, lmap, NO_FLAGS);
	CHECK(SCIDisconnectSegment, remote, NO_FLAGS);
	CHECK(SCIDisconnectDataInterrupt, dout, NO_FLAGS);
	CHECK(SCIRemoveDataInterrupt, din, NO_FLAGS);
	CHECK(SCISetSegmentUnavailable, local, ADAPTER_NO, NO_FLAGS);
	CHECK(SCIRemoveSegment, local, NO_FLAGS);
	CHECK(SCIClose, sd, NO_FLAGS);
	SCITerminate();
	return 0;
}
