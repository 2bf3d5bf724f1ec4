/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/badinput/test_badinput_sisci.c: the SISCI rows of the bad-input matrix
 * (matrix.def) on a fixture holding one object of every handle type, plus a
 * stale handle of each. The check after a case reads the segment's bytes through
 * both maps, the user buffers, every handle's answers, the queue's state and the
 * pending events and interrupts; teardown must then close the descriptor cleanly.
 */
#include "tests/conformance/sisci/sisci_test.h"
#include "tests/badinput/badinput.h"

#include <string.h>

/* The flags each call accepts (docs/sisci.md): everything else is illegal. */
#define BI_SISCI_CREATE_FLAGS                                                                    \
	(SCI_FLAG_USE_CALLBACK | SCI_FLAG_EMPTY | SCI_FLAG_PRIVATE | SCI_FLAG_AUTO_ID |           \
	 SCI_FLAG_DMA_SOURCE_ONLY | SCI_FLAG_BROADCAST | SCI_FLAG_SHARED)
#define BI_SISCI_MAP_FLAGS                                                                       \
	(SCI_FLAG_FIXED_MAP_ADDR | SCI_FLAG_READONLY_MAP | SCI_FLAG_IO_MAP_IOSPACE |              \
	 SCI_FLAG_READ_PREFETCH_AGGR_HOLD_MAP | SCI_FLAG_READ_PREFETCH_NO_HOLD_MAP |              \
	 SCI_FLAG_DMOVE_MAP | SCI_FLAG_WRITES_DISABLE_GATHER_MAP |                                \
	 SCI_FLAG_DISABLE_128_BYTES_PACKETS | SCI_FLAG_CONDITIONAL_INTERRUPT_MAP |                \
	 SCI_FLAG_UNCONDITIONAL_DATA_INTERRUPT_MAP | SCI_FLAG_NO_MEMORY_LOOPBACK_MAP)
#define BI_SISCI_WAIT_FLAGS                                                                      \
	(SCI_FLAG_DMA_READ | SCI_FLAG_DMA_WAIT | SCI_FLAG_DMA_GLOBAL | SCI_FLAG_DMA_SYSDMA |     \
	 SCI_FLAG_DMA_SOURCE_ONLY | SCI_FLAG_BROADCAST | SCI_FLAG_USE_CALLBACK)
#define BI_SISCI_START_FLAGS                                                                     \
	(SCI_FLAG_USE_CALLBACK | SCI_FLAG_DMA_READ | SCI_FLAG_DMA_WAIT | SCI_FLAG_DMA_GLOBAL |  \
	 SCI_FLAG_DMA_SYSDMA | SCI_FLAG_DMA_SOURCE_ONLY | SCI_FLAG_BROADCAST)

/* Adapters are 0..7; ids and numbers nobody uses; the data interrupt limit. */
#define BI_SISCI_NO_ADAPTER 8u
#define BI_SISCI_NEW_ID 0x7777u
#define BI_SISCI_NO_INTNO 0x7777u
#define BI_SISCI_DATA_MAX 1024u
/* What a call that never set *error leaves there. */
#define BI_SISCI_UNSET ((sci_error_t)0x7fff0000)

#define BI_SEG_ID 40u
#define BI_EMPTY_ID 41u
#define BI_SIZE (2 * FIXTURE_PAGE)
#define BI_SEED 0x5a
#define BI_USER_SEED 0x33

struct bi_handles {
	sci_desc_t sd;
	sci_local_segment_t lseg;
	sci_remote_segment_t rseg;
	sci_map_t map;
	sci_sequence_t seq;
	sci_dma_queue_t dq;
	sci_local_interrupt_t lintr;
	sci_remote_interrupt_t rintr;
	sci_local_data_interrupt_t ldintr;
	sci_remote_data_interrupt_t rdintr;
	sci_block_transfer_t block;
};

struct bi_fx {
	sci_desc_t sd;
	unsigned int node;
	unsigned int seg_id;
	size_t size;
	sci_local_segment_t lseg, empty_lseg;
	sci_remote_segment_t rseg;
	sci_map_t lmap, rmap;
	void *lmap_addr;
	volatile void *rmap_addr;
	sci_sequence_t seq;
	sci_dma_queue_t dq;
	sci_local_interrupt_t lintr;
	sci_remote_interrupt_t rintr;
	unsigned int intno;
	sci_local_data_interrupt_t ldintr;
	sci_remote_data_interrupt_t rdintr;
	unsigned int dintno;
	sci_block_transfer_t block;
	struct bi_handles stale;
	/* Outputs of calls that must fail: anything written here is checked at teardown. */
	struct {
		sci_desc_t sd;
		sci_local_segment_t lseg;
		sci_remote_segment_t rseg;
		sci_map_t map;
		sci_sequence_t seq;
		sci_dma_queue_t dq;
		sci_local_interrupt_t lintr;
		sci_remote_interrupt_t rintr;
		sci_local_data_interrupt_t ldintr;
		sci_remote_data_interrupt_t rdintr;
		sci_block_transfer_t block;
		unsigned int node, adapter, intno, length;
		dis_nodeId_list_t node_list;
		dis_virt_adapter_t adapter_type;
		sci_error_t status;
	} out;
	struct sci_query_string query;
	char query_buf[64];
	char adapter_name[16];
	sci_address_t sci_address;
	dis_dma_vec_t vec[1];
	unsigned char buf[BI_SIZE];
	unsigned char scratch[BI_SIZE];
	void *user_mem;
};

#include "matrix_sisci.inc"

static int sisci_down(struct bi_fx *F);

#define OK_OR_FAIL(call)                                                                        \
	do {                                                                                    \
		sci_error_t e_ = BI_SISCI_UNSET;                                                \
		call;                                                                           \
		if (e_ != SCI_ERR_OK) {                                                         \
			fprintf(stderr, "badinput fixture: %s: %s\n", #call,                    \
				SCIGetErrorString(e_));                                         \
			sisci_down(F);                                                          \
			return NULL;                                                            \
		}                                                                               \
	} while (0)

/* Take every queued event of the fixture's segments, so the check sees only new ones. */
static void drain_events(struct bi_fx *F)
{
	sci_error_t err = SCI_ERR_OK, status;
	unsigned int node, adapter;

	for (int i = 0; i < 64 && err == SCI_ERR_OK; i++)
		SCIWaitForLocalSegmentEvent(F->lseg, &node, &adapter, 0, 0, &err);
	err = SCI_ERR_OK;
	for (int i = 0; i < 64 && err == SCI_ERR_OK; i++)
		SCIWaitForRemoteSegmentEvent(F->rseg, &status, 0, 0, &err);
}

/* One handle of each type that was valid once and is gone now. */
static int make_stale(struct bi_fx *F)
{
	struct bi_handles *s = &F->stale;
	unsigned int intno = 0;
	sci_error_t e_ = SCI_ERR_OK;

#define STEP(call)                                                                              \
	do {                                                                                    \
		call;                                                                           \
		if (e_ != SCI_ERR_OK) {                                                         \
			fprintf(stderr, "badinput stale: %s: %s\n", #call, SCIGetErrorString(e_)); \
			return -1;                                                              \
		}                                                                               \
	} while (0)
	STEP(SCIOpen(&s->sd, 0, &e_));
	STEP(SCIClose(s->sd, 0, &e_));
	STEP(SCICreateSegment(F->sd, &s->lseg, BI_SISCI_NEW_ID, FIXTURE_PAGE, NULL, NULL, 0, &e_));
	STEP(SCIRemoveSegment(s->lseg, 0, &e_));
	STEP(SCIConnectSegment(F->sd, &s->rseg, F->node, F->seg_id, 0, NULL, NULL, SISCI_TIMEOUT, 0,
			       &e_));
	STEP(SCIDisconnectSegment(s->rseg, 0, &e_));
	STEP(SCIMapLocalSegment(F->lseg, &s->map, 0, FIXTURE_PAGE, NULL, 0, &e_));
	STEP(SCIUnmapSegment(s->map, 0, &e_));
	STEP(SCICreateMapSequence(F->rmap, &s->seq, 0, &e_));
	STEP(SCIRemoveSequence(s->seq, 0, &e_));
	STEP(SCICreateDMAQueue(F->sd, &s->dq, 0, 4, 0, &e_));
	STEP(SCIRemoveDMAQueue(s->dq, 0, &e_));
	STEP(SCICreateInterrupt(F->sd, &s->lintr, 0, &intno, NULL, NULL, 0, &e_));
	STEP(SCIConnectInterrupt(F->sd, &s->rintr, F->node, 0, intno, SISCI_TIMEOUT, 0, &e_));
	STEP(SCIDisconnectInterrupt(s->rintr, 0, &e_));
	STEP(SCIRemoveInterrupt(s->lintr, 0, &e_));
	STEP(SCICreateDataInterrupt(F->sd, &s->ldintr, 0, &intno, NULL, NULL, 0, &e_));
	STEP(SCIConnectDataInterrupt(F->sd, &s->rdintr, F->node, 0, intno, SISCI_TIMEOUT, 0, &e_));
	STEP(SCIDisconnectDataInterrupt(s->rdintr, 0, &e_));
	STEP(SCIRemoveDataInterrupt(s->ldintr, 0, &e_));
	/* A block transfer's handle dies once it was waited for. */
	STEP(SCITransferBlockAsync(F->lmap, 0, F->lmap, 0, 8, &s->block, NULL, NULL, 0, &e_));
	/* Waiting for it is OK, or ILLEGAL_OPERATION once it already ended; dead either way. */
	SCIWaitForBlockTransfer(s->block, SISCI_TIMEOUT, 0, &e_);
	if (e_ == SCI_ERR_ILLEGAL_OPERATION)
		e_ = SCI_ERR_OK;
	STEP((void)0);
#undef STEP
	return 0;
}

static struct bi_fx *sisci_up(void)
{
	struct bi_fx *F = calloc(1, sizeof(*F));

	if (!F || posix_memalign(&F->user_mem, FIXTURE_PAGE, BI_SIZE)) {
		free(F);
		return NULL;
	}
	F->node = sisci_node(1);
	F->seg_id = BI_SEG_ID;
	F->size = BI_SIZE;
	F->sd = sisci_test_open(F->node);
	OK_OR_FAIL(SCICreateSegment(F->sd, &F->lseg, F->seg_id, F->size, NULL, NULL, 0, &e_));
	OK_OR_FAIL(SCIPrepareSegment(F->lseg, 0, 0, &e_));
	OK_OR_FAIL(SCISetSegmentAvailable(F->lseg, 0, 0, &e_));
	OK_OR_FAIL(SCICreateSegment(F->sd, &F->empty_lseg, BI_EMPTY_ID, F->size, NULL, NULL,
				    SCI_FLAG_EMPTY, &e_));
	OK_OR_FAIL(F->lmap_addr = SCIMapLocalSegment(F->lseg, &F->lmap, 0, F->size, NULL, 0, &e_));
	fixture_pattern(F->lmap_addr, F->size, BI_SEED, 0);
	OK_OR_FAIL(SCIConnectSegment(F->sd, &F->rseg, F->node, F->seg_id, 0, NULL, NULL,
				     SISCI_TIMEOUT, 0, &e_));
	OK_OR_FAIL(F->rmap_addr = SCIMapRemoteSegment(F->rseg, &F->rmap, 0, F->size, NULL, 0, &e_));
	OK_OR_FAIL(SCICreateMapSequence(F->rmap, &F->seq, 0, &e_));
	OK_OR_FAIL(SCIStartSequence(F->seq, 0, &e_));
	OK_OR_FAIL(SCICreateDMAQueue(F->sd, &F->dq, 0, 16, 0, &e_));
	OK_OR_FAIL(SCICreateInterrupt(F->sd, &F->lintr, 0, &F->intno, NULL, NULL, 0, &e_));
	OK_OR_FAIL(SCIConnectInterrupt(F->sd, &F->rintr, F->node, 0, F->intno, SISCI_TIMEOUT, 0, &e_));
	OK_OR_FAIL(SCICreateDataInterrupt(F->sd, &F->ldintr, 0, &F->dintno, NULL, NULL, 0, &e_));
	OK_OR_FAIL(SCIConnectDataInterrupt(F->sd, &F->rdintr, F->node, 0, F->dintno, SISCI_TIMEOUT, 0,
					   &e_));
	if (make_stale(F)) {
		sisci_down(F);
		return NULL;
	}
	F->block = F->stale.block;
	drain_events(F);
	F->query = (struct sci_query_string){ .str = F->query_buf, .length = sizeof(F->query_buf) };
	snprintf(F->adapter_name, sizeof(F->adapter_name), "%u", F->node);
	F->sci_address.nodeId = (unsigned short)F->node;
	F->vec[0] = (dis_dma_vec_t){ .size = F->size };
	/* A data interrupt wait given a NULL buffer with a length must refuse it. */
	F->out.length = 8;
	fixture_pattern(F->user_mem, F->size, BI_USER_SEED, 0);
	return F;
}

static void sisci_check(struct bi_fx *F)
{
	sci_error_t err = BI_SISCI_UNSET, status;
	unsigned char seen[BI_SIZE];
	unsigned int length = sizeof(seen);

	assert_int_equal(fixture_pattern_check(F->lmap_addr, F->size, BI_SEED, 0), FIXTURE_MATCH);
	memcpy(seen, (const void *)F->rmap_addr, F->size);
	assert_int_equal(fixture_pattern_check(seen, F->size, BI_SEED, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(F->user_mem, F->size, BI_USER_SEED, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_check(F->buf, sizeof(F->buf), 0), FIXTURE_MATCH);
	assert_int_equal(SCIGetLocalSegmentId(F->lseg), F->seg_id);
	assert_int_equal(SCIGetLocalSegmentSize(F->lseg), F->size);
	assert_int_equal(SCIGetRemoteSegmentId(F->rseg), F->seg_id);
	assert_int_equal(SCIGetRemoteSegmentSize(F->rseg), F->size);
	assert_int_equal(SCIGetLocalSegmentId(F->empty_lseg), BI_EMPTY_ID);
	assert_int_equal(SCIDMAQueueState(F->dq), SCI_DMAQUEUE_IDLE);
	assert_int_equal(SCICheckSequence(F->seq, 0, &err), SCI_SEQ_OK);
	assert_sci(err, SCI_ERR_OK);
	/*
	 * Nothing pending: no remote segment event, no interrupt, no data interrupt. (The local
	 * segment's events come from connects, which arrive late; the teardown catches those.)
	 */
	SCIWaitForRemoteSegmentEvent(F->rseg, &status, 0, 0, &err);
	assert_sci(err, SCI_ERR_TIMEOUT);
	SCIWaitForInterrupt(F->lintr, 0, 0, &err);
	assert_sci(err, SCI_ERR_TIMEOUT);
	SCIWaitForDataInterrupt(F->ldintr, seen, &length, 0, 0, &err);
	assert_sci(err, SCI_ERR_TIMEOUT);
}

/* What a failing call must not have made: report and release it. */
#define LEAK(field, release)                                                                    \
	do {                                                                                    \
		if (F->out.field) {                                                             \
			sci_error_t e_;                                                         \
			fprintf(stderr, "badinput: a failing call made a " #field "\n");        \
			release(F->out.field, 0, &e_);                                          \
			rc = -1;                                                                \
		}                                                                               \
	} while (0)

static int sisci_down(struct bi_fx *F)
{
	sci_error_t err;
	int rc = 0;

	if (!F)
		return -1;
	LEAK(block, SCIAbortBlockTransfer);
	LEAK(seq, SCIRemoveSequence);
	LEAK(map, SCIUnmapSegment);
	LEAK(rseg, SCIDisconnectSegment);
	LEAK(lseg, SCIRemoveSegment);
	LEAK(dq, SCIRemoveDMAQueue);
	LEAK(rintr, SCIDisconnectInterrupt);
	LEAK(lintr, SCIRemoveInterrupt);
	LEAK(rdintr, SCIDisconnectDataInterrupt);
	LEAK(ldintr, SCIRemoveDataInterrupt);
	LEAK(sd, SCIClose);
/* Only what up made (it may have stopped half-way). */
#define DOWN(handle, call)                                                                      \
	do {                                                                                    \
		if (!(handle))                                                                  \
			break;                                                                  \
		err = BI_SISCI_UNSET;                                                           \
		call;                                                                           \
		if (err != SCI_ERR_OK) {                                                        \
			fprintf(stderr, "badinput teardown: %s: %s\n", #call,                   \
				SCIGetErrorString(err));                                        \
			rc = -1;                                                                \
		}                                                                               \
	} while (0)
	DOWN(F->rdintr, SCIDisconnectDataInterrupt(F->rdintr, 0, &err));
	DOWN(F->ldintr, SCIRemoveDataInterrupt(F->ldintr, 0, &err));
	DOWN(F->rintr, SCIDisconnectInterrupt(F->rintr, 0, &err));
	DOWN(F->lintr, SCIRemoveInterrupt(F->lintr, 0, &err));
	DOWN(F->dq, SCIRemoveDMAQueue(F->dq, 0, &err));
	DOWN(F->seq, SCIRemoveSequence(F->seq, 0, &err));
	DOWN(F->rmap, SCIUnmapSegment(F->rmap, 0, &err));
	DOWN(F->rseg, SCIDisconnectSegment(F->rseg, 0, &err));
	DOWN(F->lmap, SCIUnmapSegment(F->lmap, 0, &err));
	DOWN(F->empty_lseg, SCIRemoveSegment(F->empty_lseg, 0, &err));
	DOWN(F->lseg, SCIRemoveSegment(F->lseg, 0, &err));
	/* SCI_ERR_BUSY here: a failing call left an object behind. */
	DOWN(F->sd, SCIClose(F->sd, 0, &err));
#undef DOWN
	free(F->user_mem);
	free(F);
	return rc;
}

static const char *sisci_describe(long code)
{
	return SCIGetErrorString((sci_error_t)code);
}

int main(void)
{
	const struct bi_api api = {
		.name = "badinput_sisci",
		.cases = bi_cases,
		.count = sizeof(bi_cases) / sizeof(bi_cases[0]),
		.up = sisci_up,
		.check = sisci_check,
		.down = sisci_down,
		.describe = sisci_describe,
	};

	sisci_test_fabric("bi-sisci");
	if (!sisci_test_provider_has(XRMA_CAP_MAP)) {
		printf("SKIP: the provider cannot map remote segments\n");
		return 77;
	}
	return bi_run(&api) ? 1 : 0;
}
