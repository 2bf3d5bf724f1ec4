/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/multiproc/test_sci_sisci.c: each fault of the sci provider reaches
 * the SISCI result the specification documents: transaction errors make
 * SCICheckSequence RETRIABLE (or NOT_RETRIABLE when fatal) and DMA and block
 * transfers SCI_ERR_TRANSFER_FAILED; a link fault (of a node, or of the link
 * between two nodes) gives SCI_CB_NOT_OPERATIONAL then SCI_CB_OPERATIONAL; CSR and probe calls answer in link terms. Then a
 * writer that follows the specification's retry pattern (start the sequence
 * until OK, write, check, repeat what a RETRIABLE check reports; retry a DMA
 * that failed) under a fault rate delivers every message exactly once, by
 * DMA and by PIO. Node 4 owns the memory, node 8 writes, both in this process;
 * faults are configured for node 8's descriptor only.
 */
#include "tests/conformance/sisci/sisci_test.h"

#include <string.h>

#define OWNER 4u
#define WRITER 8u
#define SEG_ID 77u
#define MSG_SIZE 256u                    /* four SCI transactions */
#define SLOTS 16u
#define MESSAGES 600u
#define MSG_WORDS (MSG_SIZE / 8u)

static const char *const fault_vars[] = {
	"XRMA_SCI_FAULT_RATE", "XRMA_SCI_FAULT_FATAL", "XRMA_SCI_FAULT_LINK", "XRMA_SCI_FAULT_LOST",
	"XRMA_SCI_FAULT_SEED",
};

struct pair {
	sci_desc_t owner, writer;
	sci_local_segment_t seg;
	volatile uint64_t *mem;          /* the owner's view of the segment */
	sci_map_t owner_map;
	sci_remote_segment_t r;
};

/* Node 4 plainly, node 8 with the faults given (NULL: none). */
static void pair_open(struct pair *p, const char *rate, const char *fatal, const char *link)
{
	sci_error_t err;

	for (size_t i = 0; i < sizeof(fault_vars) / sizeof(fault_vars[0]); i++)
		unsetenv(fault_vars[i]);
	sisci_test_fabric("scisisci");
	p->owner = sisci_test_open(OWNER);
	p->seg = sisci_test_segment(p->owner, SEG_ID, SLOTS * MSG_SIZE);
	p->mem = SCIMapLocalSegment(p->seg, &p->owner_map, 0, SLOTS * MSG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	memset((void *)p->mem, 0, SLOTS * MSG_SIZE);
	if (rate)
		setenv("XRMA_SCI_FAULT_RATE", rate, 1);
	if (fatal)
		setenv("XRMA_SCI_FAULT_FATAL", fatal, 1);
	if (link)
		setenv("XRMA_SCI_FAULT_LINK", link, 1);
	setenv("XRMA_SCI_FAULT_SEED", "11", 1);
	p->writer = sisci_test_open(WRITER);
	p->r = sisci_test_connect(p->writer, OWNER, SEG_ID);
}

static void pair_close(struct pair *p)
{
	sci_error_t err;

	sisci_test_disconnect(p->r);
	SCIUnmapSegment(p->owner_map, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_remove(p->seg);
	sisci_test_close(p->writer);
	sisci_test_close(p->owner);
	for (size_t i = 0; i < sizeof(fault_vars) / sizeof(fault_vars[0]); i++)
		unsetenv(fault_vars[i]);
}

static void test_sequence_check_reports_retriable_then_not_retriable(void **state)
{
	struct pair p;
	sci_sequence_t seq;
	sci_map_t map;
	volatile uint8_t *m;
	sci_error_t err;

	(void)state;
	pair_open(&p, "1", NULL, NULL);
	m = SCIMapRemoteSegment(p.r, &map, 0, MSG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateMapSequence(map, &seq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);
	assert_sci(err, SCI_ERR_OK);
	m[0] = 1;
	/* Every check point fails at rate 1: retriable, and reported once per check. */
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_RETRIABLE);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_RETRIABLE);
	/* Posted writes: a store barrier is a check point that reports their errors, and the
	 * next check still sees them. */
	m[1] = 2;
	SCIStoreBarrier(seq, 0, &err);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	assert_int_equal(SCICheckSequence(seq, SCI_FLAG_NO_STORE_BARRIER, &err), SCI_SEQ_RETRIABLE);
	SCIStoreBarrier(seq, SCI_FLAG_FLUSH_CPU_BUFFERS_ONLY, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRemoveSequence(seq, 0, &err);
	SCIUnmapSegment(map, 0, &err);
	pair_close(&p);

	pair_open(&p, "1", "1", NULL);
	(void)SCIMapRemoteSegment(p.r, &map, 0, MSG_SIZE, NULL, 0, &err);
	SCICreateMapSequence(map, &seq, 0, &err);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);
	/* A fatal error: not retriable until the sequence is started again. */
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_NOT_RETRIABLE);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	assert_int_equal(SCICheckSequence(seq, SCI_FLAG_NO_FLUSH, &err), SCI_SEQ_NOT_RETRIABLE);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);
	assert_sci(err, SCI_ERR_OK);
	SCIRemoveSequence(seq, 0, &err);
	SCIUnmapSegment(map, 0, &err);
	pair_close(&p);

	/* No faults: checks pass. */
	pair_open(&p, NULL, NULL, NULL);
	(void)SCIMapRemoteSegment(p.r, &map, 0, MSG_SIZE, NULL, 0, &err);
	SCICreateMapSequence(map, &seq, 0, &err);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);
	for (int i = 0; i < 50; i++) {
		assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_OK);
		SCIStoreBarrier(seq, 0, &err);
		assert_sci(err, SCI_ERR_OK);
	}
	SCIRemoveSequence(seq, 0, &err);
	SCIUnmapSegment(map, 0, &err);
	pair_close(&p);
}

static void test_dma_and_block_transfers_fail_with_transfer_failed(void **state)
{
	struct pair p;
	sci_local_segment_t local;
	sci_dma_queue_t dq;
	sci_map_t rmap, lmap;
	volatile uint8_t *lbytes;
	uint8_t buf[100];
	sci_error_t err;

	(void)state;
	pair_open(&p, "1", NULL, NULL);
	SCICreateSegment(p.writer, &local, 0, MSG_SIZE, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(local, 0, 0, &err);
	SCICreateDMAQueue(p.writer, &dq, 0, 4, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIStartDmaTransfer(dq, local, p.r, 0, MSG_SIZE, 0, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_ERROR);
	SCIStartDmaTransfer(dq, local, p.r, 0, MSG_SIZE, 0, NULL, NULL,
			    SCI_FLAG_DMA_WAIT | SCI_FLAG_DMA_READ, &err);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	(void)SCIMapRemoteSegment(p.r, &rmap, 0, MSG_SIZE, NULL, 0, &err);
	lbytes = SCIMapLocalSegment(local, &lmap, 0, MSG_SIZE, NULL, 0, &err);
	SCITransferBlock(lmap, 0, rmap, 0, MSG_SIZE, 0, &err);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	SCIMemCpy(NULL, (void *)"abcd", rmap, 0, 4, SCI_FLAG_ERROR_CHECK, &err);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	/* Failed checked reads leave no good-looking bytes behind. */
	memset(buf, 0x11, sizeof(buf));
	SCIMemCpy(NULL, buf, rmap, 0, sizeof(buf), SCI_FLAG_ERROR_CHECK | SCI_FLAG_BLOCK_READ, &err);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xee);
	lbytes[0] = 0x11;
	SCITransferBlock(rmap, 0, lmap, 0, MSG_SIZE, 0, &err);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	for (size_t i = 0; i < MSG_SIZE; i++)
		assert_int_equal(lbytes[i], 0xee);
	SCIUnmapSegment(lmap, 0, &err);
	SCIUnmapSegment(rmap, 0, &err);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_remove(local);
	pair_close(&p);
}

static void test_link_fault_gives_not_operational_then_operational(void **state)
{
	/* The owner's link (every peer loses it), then only the link between the two nodes. */
	static const char *const links[] = { "4@4+100", "8-4@4+100" };

	(void)state;
	for (size_t k = 0; k < sizeof(links) / sizeof(links[0]); k++) {
		sci_segment_cb_reason_t reason;
		sci_local_segment_t local;
		sci_dma_queue_t dq;
		sci_error_t err, status;
		struct pair p;
		int failures = 0;

		pair_open(&p, NULL, NULL, links[k]);
		SCICreateSegment(p.writer, &local, 0, 64, NULL, NULL, SCI_FLAG_PRIVATE, &err);
		SCIPrepareSegment(local, 0, 0, &err);
		SCICreateDMAQueue(p.writer, &dq, 0, 4, 0, &err);
		for (int i = 0; i < 6; i++) {
			SCIStartDmaTransfer(dq, local, p.r, 0, 64, 0, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
			failures += err != SCI_ERR_OK;
		}
		assert_true(failures >= 1);
		reason = SCIWaitForRemoteSegmentEvent(p.r, &status, SISCI_TIMEOUT, 0, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_int_equal(reason, SCI_CB_NOT_OPERATIONAL);
		reason = SCIWaitForRemoteSegmentEvent(p.r, &status, SISCI_TIMEOUT, 0, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_int_equal(reason, SCI_CB_OPERATIONAL);
		SCIStartDmaTransfer(dq, local, p.r, 0, 64, 0, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
		assert_sci(err, SCI_ERR_OK);
		SCIRemoveDMAQueue(dq, 0, &err);
		sisci_test_remove(local);
		pair_close(&p);
	}
}

static void test_csr_and_probe_answer_in_link_terms(void **state)
{
	struct pair p;
	sci_error_t err;
	unsigned int v;

	(void)state;
	pair_open(&p, NULL, NULL, NULL);
	v = SCIGetCSRRegister(p.writer, 0, OWNER, 0x008, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(v, OWNER << 16);
	SCISetCSRRegister(p.writer, 0, OWNER, 0x080, 0x1234, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIGetCSRRegister(p.owner, 0, OWNER, 0x080, 0, &err), 0x1234);
	SCISetCSRRegister(p.writer, 0, OWNER, 0x008, 1, 0, &err);
	assert_sci(err, SCI_ERR_ACCESS);
	(void)SCIGetCSRRegister(p.writer, 0, OWNER, 0x200, 0, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	(void)SCIGetCSRRegister(p.writer, 0, OWNER, 0x002, 0, &err);
	assert_sci(err, SCI_ERR_OFFSET_ALIGNMENT);
	(void)SCIGetCSRRegister(p.writer, 0, 40, 0, 0, &err);
	assert_sci(err, SCI_ERR_NO_REMOTE_LINK_ACCESS);
	assert_int_equal(SCIProbeNode(p.writer, 0, 5, 0, &err), 0);
	assert_sci(err, SCI_ERR_ILLEGAL_NODEID);
	assert_int_equal(SCIProbeNode(p.writer, 0, 40, 0, &err), 0);
	assert_sci(err, SCI_ERR_NO_REMOTE_LINK_ACCESS);
	/* The owner takes its own link down through STATE_SET: remote CSR access and
	 * probes fail in the owner's link terms, local access still works. */
	SCISetCSRRegister(p.owner, 0, OWNER, 0x004, 1, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIProbeNode(p.writer, 0, OWNER, 0, &err), 0);
	assert_sci(err, SCI_ERR_NO_REMOTE_LINK_ACCESS);
	(void)SCIGetCSRRegister(p.writer, 0, OWNER, 0x008, 0, &err);
	assert_sci(err, SCI_ERR_NO_REMOTE_LINK_ACCESS);
	(void)SCIGetCSRRegister(p.owner, 0, WRITER, 0x008, 0, &err);
	assert_sci(err, SCI_ERR_NO_LINK_ACCESS);
	assert_int_equal(SCIProbeNode(p.owner, 0, WRITER, 0, &err), 0);
	assert_sci(err, SCI_ERR_NO_LINK_ACCESS);
	SCISetCSRRegister(p.owner, 0, OWNER, 0x000, 1, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIProbeNode(p.writer, 0, OWNER, 0, &err), 1);
	/* Events of the link went to the importer; drain them. */
	(void)SCIWaitForRemoteSegmentEvent(p.r, &err, SISCI_TIMEOUT, 0, &err);
	(void)SCIWaitForRemoteSegmentEvent(p.r, &err, SISCI_TIMEOUT, 0, &err);
	pair_close(&p);
}

/* ---- the retry pattern ---- */

/* Message n: words 0..MSG_WORDS-2 a pattern of n, the last word n + 1 (0 means empty). */
static void message(uint64_t n, uint64_t *words)
{
	for (unsigned int i = 0; i < MSG_WORDS - 1; i++)
		words[i] = n * 1000003u + i;
	words[MSG_WORDS - 1] = n + 1;
}

struct receiver {
	uint64_t next;                  /* next message expected */
	unsigned int seen[MESSAGES];    /* deliveries per message */
	unsigned int stale;             /* repeats of delivered messages, ignored */
};

/* Take every complete message in the ring, in order; check each byte. */
static void receive(struct pair *p, struct receiver *rx)
{
	for (;;) {
		volatile uint64_t *slot = p->mem + (rx->next % SLOTS) * MSG_WORDS;
		uint64_t tag = __atomic_load_n(&slot[MSG_WORDS - 1], __ATOMIC_ACQUIRE);
		uint64_t want[MSG_WORDS];

		if (tag != rx->next + 1) {
			rx->stale += tag && tag < rx->next + 1;
			return;
		}
		message(rx->next, want);
		for (unsigned int i = 0; i < MSG_WORDS; i++)
			assert_int_equal(slot[i], want[i]);
		rx->seen[rx->next]++;
		__atomic_store_n(&slot[MSG_WORDS - 1], 0, __ATOMIC_RELEASE);
		rx->next++;
	}
}

static void assert_exactly_once(const struct receiver *rx)
{
	assert_int_equal(rx->next, MESSAGES);
	for (unsigned int i = 0; i < MESSAGES; i++)
		assert_int_equal(rx->seen[i], 1);
}

static void test_retry_pattern_delivers_every_byte_exactly_once_by_dma(void **state)
{
	static struct receiver rx;
	sci_local_segment_t local;
	uint64_t *words;
	sci_dma_queue_t dq;
	sci_map_t lmap;
	sci_error_t err;
	unsigned int failed = 0;
	struct pair p;

	(void)state;
	memset(&rx, 0, sizeof(rx));
	pair_open(&p, "0.02", NULL, NULL);
	SCICreateSegment(p.writer, &local, 0, MSG_SIZE, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	SCIPrepareSegment(local, 0, 0, &err);
	words = SCIMapLocalSegment(local, &lmap, 0, MSG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateDMAQueue(p.writer, &dq, 0, 4, 0, &err);
	for (uint64_t n = 0; n < MESSAGES; n++) {
		message(n, words);
		/* A failed transfer is repeated whole; the tag is in its last transaction,
		 * so a message is never published half written. */
		for (;;) {
			SCIStartDmaTransfer(dq, local, p.r, 0, MSG_SIZE, (n % SLOTS) * MSG_SIZE, NULL, NULL,
					    SCI_FLAG_DMA_WAIT, &err);
			if (err == SCI_ERR_OK)
				break;
			assert_sci(err, SCI_ERR_TRANSFER_FAILED);
			failed++;
		}
		if (n % SLOTS == SLOTS - 1)
			receive(&p, &rx);
	}
	receive(&p, &rx);
	/* At 2% per transaction, about 8% of the 4-transaction messages needed a retry. */
	assert_true(failed > MESSAGES / 50);
	assert_exactly_once(&rx);
	assert_int_equal(rx.stale, 0);
	SCIRemoveDMAQueue(dq, 0, &err);
	SCIUnmapSegment(lmap, 0, &err);
	sisci_test_remove(local);
	pair_close(&p);
}

static void test_retry_pattern_delivers_every_byte_exactly_once_by_pio(void **state)
{
	static struct receiver rx;
	volatile uint64_t *m;
	uint64_t words[MSG_WORDS];
	sci_sequence_t seq;
	sci_map_t map;
	sci_error_t err;
	unsigned int retried = 0;
	struct pair p;

	(void)state;
	memset(&rx, 0, sizeof(rx));
	pair_open(&p, "0.05", NULL, NULL);
	m = SCIMapRemoteSegment(p.r, &map, 0, SLOTS * MSG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateMapSequence(map, &seq, 0, &err);
	for (uint64_t n = 0; n < MESSAGES; n++) {
		volatile uint64_t *slot = m + (n % SLOTS) * MSG_WORDS;
		sci_sequence_status_t st;

		message(n, words);
		while (SCIStartSequence(seq, 0, &err) != SCI_SEQ_OK)
			;
		/* Body, checked (and rewritten while RETRIABLE), then the tag, likewise. */
		do {
			for (unsigned int i = 0; i < MSG_WORDS - 1; i++)
				slot[i] = words[i];
			st = SCICheckSequence(seq, 0, &err);
			retried += st == SCI_SEQ_RETRIABLE;
		} while (st == SCI_SEQ_RETRIABLE);
		assert_int_equal(st, SCI_SEQ_OK);
		do {
			slot[MSG_WORDS - 1] = words[MSG_WORDS - 1];
			st = SCICheckSequence(seq, 0, &err);
			retried += st == SCI_SEQ_RETRIABLE;
		} while (st == SCI_SEQ_RETRIABLE);
		assert_int_equal(st, SCI_SEQ_OK);
		if (n % SLOTS == SLOTS - 1)
			receive(&p, &rx);
	}
	receive(&p, &rx);
	assert_true(retried > MESSAGES / 50);
	assert_exactly_once(&rx);
	SCIRemoveSequence(seq, 0, &err);
	SCIUnmapSegment(map, 0, &err);
	pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence_check_reports_retriable_then_not_retriable),
		cmocka_unit_test(test_dma_and_block_transfers_fail_with_transfer_failed),
		cmocka_unit_test(test_link_fault_gives_not_operational_then_operational),
		cmocka_unit_test(test_csr_and_probe_answer_in_link_terms),
		cmocka_unit_test(test_retry_pattern_delivers_every_byte_exactly_once_by_dma),
		cmocka_unit_test(test_retry_pattern_delivers_every_byte_exactly_once_by_pio),
	};

	/* Only the sci provider models these faults. */
	setenv("XRMA_PROVIDER", "sci", 1);
	unsetenv("XRMA_TEST_NODE_STEP");
	return cmocka_run_group_tests_name("sci_sisci", tests, NULL, NULL);
}
