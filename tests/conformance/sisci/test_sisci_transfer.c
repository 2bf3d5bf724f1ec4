/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/test_sisci_transfer.c: DMA queues (the state
 * machine of digest §5.3 and its legality matrix, test ideas 59-70), Dolphin's
 * SCIStartDmaTransfer[Vec], block transfers (§5.5, idea 71) and interrupts
 * with data interrupts (§5.4, idea 72). Node 1 owns, node 2 transfers.
 */
#include "tests/conformance/sisci/sisci_test.h"

#include <string.h>

#define SEG_SIZE (64u * 1024u)

static sci_desc_t sd1, sd2;
static sci_local_segment_t target, source;   /* node 1's exported, node 2's private */
static sci_remote_segment_t remote;          /* node 2's import of target */
static uint8_t *target_mem, *source_mem;
static sci_map_t target_map, source_map;

static int group_up(void **state)
{
	sci_error_t err;

	(void)state;
	sd1 = sisci_test_open(sisci_node(1));
	sd2 = sisci_test_open(sisci_node(2));
	target = sisci_test_segment(sd1, 500, SEG_SIZE);
	SCICreateSegment(sd2, &source, 0, SEG_SIZE, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	SCIPrepareSegment(source, 0, 0, &err);
	remote = sisci_test_connect(sd2, sisci_node(1), 500);
	target_mem = SCIMapLocalSegment(target, &target_map, 0, SEG_SIZE, NULL, 0, &err);
	source_mem = SCIMapLocalSegment(source, &source_map, 0, SEG_SIZE, NULL, 0, &err);
	return err == SCI_ERR_OK ? 0 : -1;
}

static int group_down(void **state)
{
	(void)state;
	SCIUnmapSegment(target_map, 0, NULL);
	SCIUnmapSegment(source_map, 0, NULL);
	sisci_test_disconnect(remote);
	sisci_test_remove(source);
	sisci_test_remove(target);
	sisci_test_close(sd2);
	sisci_test_close(sd1);
	return 0;
}

static sci_dma_queue_t queue(unsigned int max)
{
	sci_dma_queue_t dq;
	sci_error_t err;

	SCICreateDMAQueue(sd2, &dq, 0, max, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	return dq;
}

static void test_dma_state_machine_legality(void **state)
{
	sci_dma_queue_t dq = queue(2);
	sci_error_t err;

	(void)state;
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_IDLE);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_IDLE);
	SCIPostDMAQueue(dq, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIAbortDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	(void)SCIWaitForDMAQueue(dq, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIEnqueueDMATransfer(dq, source, remote, 0, 0, 4096, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_GATHER);
	SCIEnqueueDMATransfer(dq, source, remote, 0, 0, 4096, SCI_FLAG_DMA_READ, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIEnqueueDMATransfer(dq, source, remote, 0, 0, 4096, 0, &err);
	assert_sci(err, SCI_ERR_MAX_ENTRIES);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_GATHER);
	SCIAbortDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	/* Segments in a queue are in use. */
	SCIRemoveSegment(source, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	SCIDisconnectSegment(remote, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	SCIResetDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_IDLE);
	SCIResetDMAQueue(dq, 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_ERROR); /* stale handle */
}

static void test_dma_enqueue_checks_change_nothing(void **state)
{
	sci_dma_queue_t dq = queue(4);
	sci_local_segment_t unprepared;
	sci_error_t err;

	(void)state;
	SCIEnqueueDMATransfer(dq, source, remote, SEG_SIZE - 8, 0, 16, 0, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	SCIEnqueueDMATransfer(dq, source, remote, 0, SEG_SIZE, 1, 0, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	SCIEnqueueDMATransfer(dq, source, remote, 0, 0, 16, SCI_FLAG_NOTIFY, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIEnqueueDMATransfer(dq, (sci_local_segment_t)remote, remote, 0, 0, 16, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCICreateSegment(sd2, &unprepared, 0, 4096, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	SCIEnqueueDMATransfer(dq, unprepared, remote, 0, 0, 16, 0, &err);
	assert_sci(err, SCI_ERR_SEGMENT_NOT_PREPARED);
	sisci_test_remove(unprepared);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_IDLE);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateDMAQueue(sd2, &dq, 0, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCICreateDMAQueue(sd2, &dq, 1, 4, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_ADAPTERNO);
}

static void test_dma_write_and_read_move_data(void **state)
{
	sci_dma_queue_t dq = queue(4);
	sci_error_t err;

	(void)state;
	fixture_pattern(source_mem, 4096, 11, 0);
	fixture_pattern(target_mem + 8192, 4096, 12, 0);
	SCIEnqueueDMATransfer(dq, source, remote, 0, 0, 4096, 0, &err);
	SCIEnqueueDMATransfer(dq, source, remote, 4096, 8192, 4096, SCI_FLAG_DMA_READ, &err);
	SCIPostDMAQueue(dq, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPostDMAQueue(dq, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIEnqueueDMATransfer(dq, source, remote, 0, 0, 16, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	assert_int_equal(SCIWaitForDMAQueue(dq, SCI_INFINITE_TIMEOUT, 0, &err), SCI_DMAQUEUE_DONE);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(fixture_pattern_check(target_mem, 4096, 11, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(source_mem + 4096, 4096, 12, 0), FIXTURE_MATCH);
	/* DONE: wait and abort are no-ops; the queue is reusable after reset. */
	assert_int_equal(SCIWaitForDMAQueue(dq, 0, 0, &err), SCI_DMAQUEUE_DONE);
	assert_sci(err, SCI_ERR_OK);
	SCIAbortDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_DONE);
	SCIEnqueueDMATransfer(dq, source, remote, 0, 0, 16, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIResetDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIEnqueueDMATransfer(dq, source, remote, 0, 100, 200, 0, &err);
	SCIPostDMAQueue(dq, NULL, NULL, 0, &err);
	assert_int_equal(SCIWaitForDMAQueue(dq, SISCI_TIMEOUT, 0, &err), SCI_DMAQUEUE_DONE);
	assert_int_equal(fixture_pattern_check(target_mem + 100, 200, 11, 0), FIXTURE_MATCH);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
}

struct dma_log {
	pthread_mutex_t lock;
	int calls;
	sci_dma_queue_state_t state;
	sci_error_t status;
};

static sci_callback_action_t dma_cb(void *arg, sci_dma_queue_t q, sci_error_t status)
{
	struct dma_log *log = arg;
	sci_dma_queue_state_t s = SCIDMAQueueState(q);

	pthread_mutex_lock(&log->lock);
	log->calls++;
	log->state = s;
	log->status = status;
	pthread_mutex_unlock(&log->lock);
	return SCI_CALLBACK_CONTINUE;
}

static int dma_calls(struct dma_log *log)
{
	int n;

	pthread_mutex_lock(&log->lock);
	n = log->calls;
	pthread_mutex_unlock(&log->lock);
	return n;
}

static void test_dma_callback_once_and_wait_refused(void **state)
{
	struct dma_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	sci_dma_queue_t dq = queue(2);
	uint64_t end;
	sci_error_t err;

	(void)state;
	fixture_pattern(source_mem, SEG_SIZE, 13, 0);
	SCIEnqueueDMATransfer(dq, source, remote, 0, 0, SEG_SIZE, 0, &err);
	SCIPostDMAQueue(dq, NULL, NULL, SCI_FLAG_USE_CALLBACK, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCIPostDMAQueue(dq, dma_cb, &log, SCI_FLAG_USE_CALLBACK, &err);
	assert_sci(err, SCI_ERR_OK);
	(void)SCIWaitForDMAQueue(dq, 0, 0, &err);
	/* Refused while the callback is pending, or a no-op once the queue is final. */
	assert_true(err == SCI_ERR_ILLEGAL_OPERATION || err == SCI_ERR_OK);
	end = fixture_now_ms() + SISCI_TIMEOUT;
	while (dma_calls(&log) < 1 && fixture_now_ms() < end)
		sched_yield();
	assert_int_equal(dma_calls(&log), 1);
	assert_int_equal(log.state, SCI_DMAQUEUE_DONE);
	assert_sci(log.status, SCI_ERR_OK);
	assert_int_equal(fixture_pattern_check(target_mem, SEG_SIZE, 13, 0), FIXTURE_MATCH);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(dma_calls(&log), 1);
}

struct chain {
	sci_dma_queue_t dq;
	int left;
	int done;      /* 1 when the last callback ran, 2 on an error */
};

/* Each completion starts the next transfer from inside the callback, as streaming code does. */
static sci_callback_action_t chain_cb(void *arg, sci_dma_queue_t q, sci_error_t status)
{
	struct chain *c = arg;
	sci_error_t err;

	if (status != SCI_ERR_OK) {
		__atomic_store_n(&c->done, 2, __ATOMIC_RELEASE);
		return SCI_CALLBACK_CANCEL;
	}
	if (--c->left == 0) {
		__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
		return SCI_CALLBACK_CONTINUE;
	}
	SCIStartDmaTransfer(q, source, remote, 0, 256, (size_t)c->left * 256, chain_cb, c,
			    SCI_FLAG_USE_CALLBACK, &err);
	if (err != SCI_ERR_OK)
		__atomic_store_n(&c->done, 2, __ATOMIC_RELEASE);
	return SCI_CALLBACK_CONTINUE;
}

static void test_dma_callback_starts_next_transfer(void **state)
{
	struct chain c = { .dq = queue(1), .left = 10 };
	uint64_t end;
	sci_error_t err;

	(void)state;
	fixture_pattern(source_mem, 256, 17, 0);
	SCIStartDmaTransfer(c.dq, source, remote, 0, 256, 10 * 256, chain_cb, &c, SCI_FLAG_USE_CALLBACK, &err);
	assert_sci(err, SCI_ERR_OK);
	end = fixture_now_ms() + SISCI_TIMEOUT;
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) && fixture_now_ms() < end)
		sched_yield();
	assert_int_equal(__atomic_load_n(&c.done, __ATOMIC_ACQUIRE), 1);
	for (int i = 1; i <= 10; i++)
		assert_int_equal(fixture_pattern_check(target_mem + i * 256, 256, 17, 0), FIXTURE_MATCH);
	SCIRemoveDMAQueue(c.dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
}

static void test_start_dma_transfer_and_vector(void **state)
{
	sci_dma_queue_t dq = queue(1);
	dis_dma_vec_t vec[3] = {
		{ .size = 64, .local_offset = 0, .remote_offset = 1000 },
		{ .size = 64, .local_offset = 64, .remote_offset = 2000 },
		{ .size = 64, .local_offset = 128, .remote_offset = SEG_SIZE },
	};
	sci_error_t err;

	(void)state;
	fixture_pattern(source_mem, 4096, 14, 0);
	/* Repeated starts on one queue: a final state is reset implicitly. */
	for (int i = 0; i < 3; i++) {
		SCIStartDmaTransfer(dq, source, remote, 0, 4096, 4096, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_DONE);
	}
	assert_int_equal(fixture_pattern_check(target_mem + 4096, 4096, 14, 0), FIXTURE_MATCH);
	SCIStartDmaTransfer(dq, source, remote, 0, 4096, 4096, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIWaitForDMAQueue(dq, SCI_INFINITE_TIMEOUT, SCI_FLAG_DMA_READ, &err),
			 SCI_DMAQUEUE_DONE);
	/* A vector with one bad element is refused whole. */
	SCIStartDmaTransferVec(dq, source, remote, 3, vec, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_IDLE);
	SCIStartDmaTransferVec(dq, source, remote, 2, vec, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(fixture_pattern_check(target_mem + 1000, 64, 14, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(target_mem + 2000, 64, 14, 64), FIXTURE_MATCH);
	SCIStartDmaTransferVec(dq, source, remote, 0, vec, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	/* Broadcast DMA goes to a group (test_sisci_broadcast), never to one node. */
	SCIStartDmaTransfer(dq, source, remote, 0, 64, 0, NULL, NULL, SCI_FLAG_BROADCAST, &err);
	assert_sci(err, sisci_test_provider_has(XRMA_CAP_BROADCAST) ? SCI_ERR_ILLEGAL_FLAG
								    : SCI_ERR_FLAG_NOT_IMPLEMENTED);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
}

static void test_dma_abort_posted_queue(void **state)
{
	sci_dma_queue_t dq = queue(64);
	sci_dma_queue_state_t s;
	sci_error_t err;

	(void)state;
	for (int i = 0; i < 64; i++)
		SCIEnqueueDMATransfer(dq, source, remote, 0, 0, SEG_SIZE, 0, &err);
	SCIPostDMAQueue(dq, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIAbortDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	s = SCIDMAQueueState(dq);
	assert_true(s == SCI_DMAQUEUE_ABORTED || s == SCI_DMAQUEUE_DONE);
	assert_int_equal(SCIWaitForDMAQueue(dq, SISCI_TIMEOUT, 0, &err), s);
	SCIResetDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
}

/* A block transfer's callback that unmaps the transfer's destination map. */
struct block_done {
	sci_map_t map;
	sci_error_t unmapped;
	int done;     /* 1 ok, 2 failed */
};

static sci_callback_action_t block_cb(void *arg, sci_block_transfer_t block, sci_error_t status)
{
	struct block_done *d = arg;

	(void)block;
	/* The transfer no longer uses its maps when its callback runs. */
	SCIUnmapSegment(d->map, 0, &d->unmapped);
	__atomic_store_n(&d->done, status == SCI_ERR_OK ? 1 : 2, __ATOMIC_RELEASE);
	return SCI_CALLBACK_CONTINUE;
}

static void test_block_transfers(void **state)
{
	sci_block_transfer_t block;
	sci_map_t rmap;
	volatile uint8_t *r;
	struct block_done done = { .unmapped = SCI_ERR_OK };
	uint64_t end;
	sci_error_t err;

	(void)state;
	r = SCIMapRemoteSegment(remote, &rmap, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	(void)r;
	fixture_pattern(source_mem, SEG_SIZE, 15, 0);
	SCITransferBlock(source_map, 0, rmap, 0, 8192, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(fixture_pattern_check(target_mem, 8192, 15, 0), FIXTURE_MATCH);
	SCITransferBlock(source_map, 1, rmap, 0, SEG_SIZE, 0, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	SCITransferBlock(source_map, 0, rmap, 0, 16, 4, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	fixture_pattern(source_mem, SEG_SIZE, 16, 0);
	done.map = rmap;
	SCITransferBlockAsync(source_map, 0, rmap, 0, SEG_SIZE, &block, block_cb, &done,
			      SCI_FLAG_USE_CALLBACK, &err);
	assert_sci(err, SCI_ERR_OK);
	end = fixture_now_ms() + SISCI_TIMEOUT;
	while (!__atomic_load_n(&done.done, __ATOMIC_ACQUIRE) && fixture_now_ms() < end)
		sched_yield();
	assert_int_equal(done.done, 1);
	assert_sci(done.unmapped, SCI_ERR_OK);
	assert_int_equal(fixture_pattern_check(target_mem, SEG_SIZE, 16, 0), FIXTURE_MATCH);
	/* The handle died with the callback. */
	end = fixture_now_ms() + SISCI_TIMEOUT;
	do
		SCIAbortBlockTransfer(block, 0, &err);
	while (err == SCI_ERR_OK && fixture_now_ms() < end);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	/*
	 * Without callback: waiting either sees it finish or finds it finished; either way
	 * the handle is dead and the maps are free when the wait returns: waiting again or
	 * aborting is ILLEGAL_OPERATION, and unmapping succeeds at once (every round).
	 */
	for (int round = 0; round < 200; round++) {
		SCIMapRemoteSegment(remote, &rmap, 0, SEG_SIZE, NULL, 0, &err);
		assert_sci(err, SCI_ERR_OK);
		SCITransferBlockAsync(rmap, 0, source_map, 0, 4096, &block, NULL, NULL, 0, &err);
		assert_sci(err, SCI_ERR_OK);
		SCIWaitForBlockTransfer(block, SISCI_TIMEOUT, 0, &err);
		assert_true(err == SCI_ERR_OK || err == SCI_ERR_ILLEGAL_OPERATION);
		SCIWaitForBlockTransfer(block, SISCI_TIMEOUT, 0, &err);
		assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
		SCIAbortBlockTransfer(block, 0, &err);
		assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
		SCIUnmapSegment(rmap, 0, &err);
		assert_sci(err, SCI_ERR_OK);
	}
}

static sci_callback_action_t intr_cb(void *arg, sci_local_interrupt_t i, sci_error_t status)
{
	(void)i;
	if (status == SCI_ERR_OK)
		__atomic_add_fetch((int *)arg, 1, __ATOMIC_ACQ_REL);
	return SCI_CALLBACK_CONTINUE;
}

struct intr_waiter {
	sci_local_interrupt_t intr;
	pid_t tid;
	sci_error_t err;
};

static void *intr_waiter_main(void *arg)
{
	struct intr_waiter *w = arg;

	__atomic_store_n(&w->tid, fixture_gettid(), __ATOMIC_RELEASE);
	SCIWaitForInterrupt(w->intr, SISCI_TIMEOUT, 0, &w->err);
	return NULL;
}

static void test_interrupts(void **state)
{
	sci_local_interrupt_t intr, fixed, dup, cbi;
	sci_remote_interrupt_t rintr;
	unsigned int no = 0, fixed_no = 77, cb_no = 0;
	struct intr_waiter w = { 0 };
	pthread_t t;
	int calls = 0;
	uint64_t end, start;
	sci_error_t err;

	(void)state;
	SCICreateInterrupt(sd1, &intr, 0, &no, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateInterrupt(sd1, &fixed, 0, &fixed_no, NULL, NULL, SCI_FLAG_FIXED_INTNO, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(fixed_no, 77);
	SCICreateInterrupt(sd1, &dup, 0, &fixed_no, NULL, NULL, SCI_FLAG_FIXED_INTNO, &err);
	assert_sci(err, SCI_ERR_INTNO_USED);
	SCIConnectInterrupt(sd2, &rintr, sisci_node(1), 0, 123456, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_INTNO);
	SCIConnectInterrupt(sd2, &rintr, sisci_node(1), 0, no, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCITriggerInterrupt(rintr, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIWaitForInterrupt(intr, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	start = fixture_now_ms();
	SCIWaitForInterrupt(intr, SISCI_SHORT, 0, &err);
	assert_sci(err, SCI_ERR_TIMEOUT);
	assert_true(fixture_now_ms() - start >= SISCI_SHORT - 5);
	SCITriggerInterrupt(rintr, SCI_FLAG_NOTIFY, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIDisconnectInterrupt(rintr, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCITriggerInterrupt(rintr, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	/* Remove cancels a waiter. */
	w.intr = fixed;
	assert_int_equal(pthread_create(&t, NULL, intr_waiter_main, &w), 0);
	end = fixture_now_ms() + SISCI_TIMEOUT;
	while (!__atomic_load_n(&w.tid, __ATOMIC_ACQUIRE) && fixture_now_ms() < end)
		sched_yield();
	assert_int_equal(fixture_wait_blocked(w.tid, SISCI_TIMEOUT), 0);
	SCIRemoveInterrupt(fixed, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(fixture_join(t, SISCI_TIMEOUT, NULL), 0);
	assert_sci(w.err, SCI_ERR_CANCELLED);
	SCIRemoveInterrupt(intr, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	/* Callback mode. */
	SCICreateInterrupt(sd1, &cbi, 0, &cb_no, intr_cb, &calls, SCI_FLAG_USE_CALLBACK, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIWaitForInterrupt(cbi, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIConnectInterrupt(sd2, &rintr, sisci_node(1), 0, cb_no, SISCI_TIMEOUT, 0, &err);
	SCITriggerInterrupt(rintr, 0, &err);
	SCITriggerInterrupt(rintr, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	end = fixture_now_ms() + SISCI_TIMEOUT;
	while (__atomic_load_n(&calls, __ATOMIC_ACQUIRE) < 2 && fixture_now_ms() < end)
		sched_yield();
	assert_int_equal(__atomic_load_n(&calls, __ATOMIC_ACQUIRE), 2);
	SCIDisconnectInterrupt(rintr, 0, &err);
	SCIRemoveInterrupt(cbi, 0, &err);
	assert_sci(err, SCI_ERR_OK);
}

static void test_data_interrupts(void **state)
{
	sci_local_data_interrupt_t in;
	sci_remote_data_interrupt_t out;
	unsigned int no = 0, len;
	char buf[32], small[2];
	static char big[XRMA_INTR_DATA_MAX + 1];
	sci_error_t err;

	(void)state;
	SCICreateDataInterrupt(sd1, &in, 0, &no, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIConnectDataInterrupt(sd2, &out, sisci_node(1), 0, no, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCITriggerDataInterrupt(out, "ping", 5, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	len = sizeof(buf);
	SCIWaitForDataInterrupt(in, buf, &len, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(len, 5);
	assert_string_equal(buf, "ping");
	SCITriggerDataInterrupt(out, big, sizeof(big), 0, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	SCITriggerDataInterrupt(out, "toolong", 8, 0, &err);
	len = sizeof(small);
	SCIWaitForDataInterrupt(in, small, &len, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OVERFLOW);
	len = sizeof(buf);
	SCIWaitForDataInterrupt(in, buf, &len, SISCI_SHORT, 0, &err);
	assert_sci(err, SCI_ERR_TIMEOUT);
	/* A plain-interrupt handle is not a data-interrupt handle. */
	SCIWaitForInterrupt((sci_local_interrupt_t)in, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCIDisconnectDataInterrupt(out, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRemoveDataInterrupt(in, 0, &err);
	assert_sci(err, SCI_ERR_OK);
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_dma_state_machine_legality),
		T(test_dma_enqueue_checks_change_nothing),
		T(test_dma_write_and_read_move_data),
		T(test_dma_callback_once_and_wait_refused),
		T(test_start_dma_transfer_and_vector),
		T(test_dma_callback_starts_next_transfer),
		T(test_dma_abort_posted_queue),
		T(test_block_transfers),
		T(test_interrupts),
		T(test_data_interrupts),
	};

	sisci_test_fabric("sisci-xfer");
	return cmocka_run_group_tests_name("sisci_transfer", tests, group_up, group_down);
}
