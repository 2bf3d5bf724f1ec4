/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/test_sisci_multiproc.c: SISCI between processes
 * (tests/helpers/proc.h): an owner process exports a segment and an interrupt,
 * this process connects, stores, DMAs and triggers; a third process imports
 * too (where the provider allows one importer per segment, caps.max_importers,
 * its connect is refused until this process disconnects); and an owner killed
 * in the middle of a DMA leaves this process with an ERROR queue, SCI_CB_LOST
 * and a failing sequence, and still working. An owner that forces its
 * importer off (or asks it to leave) right as the import completes: the
 * importer's callback still gets SCI_CB_LOST (SCI_CB_DISCONNECT), once. A
 * callback that disconnects and closes the process's last descriptor of a
 * node: the node's threads and descriptors go once it returns.
 * Skipped when the provider keeps all nodes in one process (loopback).
 */
#include "tests/conformance/sisci/sisci_test.h"
#include "tests/helpers/proc.h"
#include "tests/helpers/watchdog.h"

#include <dirent.h>
#include <sched.h>
#include <string.h>

#define OWNER_NODE sisci_node(1)
#define PEER_NODE sisci_node(3)
#define SEG_ID 900
#define SEG_SIZE (4u << 20)
#define READY 0x5eadu
#define REFUSED 0x5efu
#define GO 0x60u
#define DONE 0xd0u
#define EV_SEG_ID 1000
#define EV_ROUNDS 20
#define CLOSE_ROUNDS 3
#define CLOSE_NODE sisci_node(4)

static char fabric[XRMA_NAME_MAX];

/* Child: export a segment and an interrupt, report the interrupt, wait for "done". */
static int owner_main(int sock, const char *arg)
{
	sci_desc_t sd;
	sci_local_segment_t seg;
	sci_local_interrupt_t intr;
	unsigned int no = 0;
	uint64_t v;
	sci_error_t err;

	(void)arg;
	PROC_CHECK_EQ(sisci_child_owner(&sd, SEG_ID, SEG_SIZE, 0, &seg), SCI_ERR_OK);
	SCICreateInterrupt(sd, &intr, 0, &no, NULL, NULL, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	PROC_CHECK(proc_send(sock, no) == 0);
	SCIWaitForInterrupt(intr, proc_scaled_ms(10000), 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	PROC_CHECK(proc_send(sock, READY) == 0);
	PROC_CHECK(proc_recv(sock, &v, 10000) == 0);
	SCIRemoveInterrupt(intr, 0, &err);
	SCISetSegmentUnavailable(seg, 0, SCI_FLAG_FORCE_DISCONNECT, &err);
	SCIRemoveSegment(seg, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIClose(sd, 0, &err);
	return err == SCI_ERR_OK ? 0 : 1;
}

/*
 * Child: a third node importing the owner's segment and checking the first word.
 * arg "nomap": the provider has no load/store mapping (ofi); only the connection is checked.
 * arg "one": one importer per segment (caps.max_importers 1) while the parent holds it: the
 * first connect is refused, and the next one, once the parent said GO, succeeds.
 */
static int peer_main(int sock, const char *arg)
{
	sci_desc_t sd;
	sci_remote_segment_t r;
	sci_map_t map;
	volatile uint32_t *p;
	sci_error_t err;

	SCIOpen(&sd, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	if (arg && strstr(arg, "one")) {
		SCIConnectSegment(sd, &r, OWNER_NODE, SEG_ID, 0, NULL, NULL, 5000, 0, &err);
		PROC_CHECK_EQ(err, SCI_ERR_CONNECTION_REFUSED);
		PROC_CHECK(proc_send(sock, REFUSED) == 0);
		PROC_CHECK(proc_expect(sock, GO, 10000) == 0);
	}
	SCIConnectSegment(sd, &r, OWNER_NODE, SEG_ID, 0, NULL, NULL, 5000, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	if (!arg || !strstr(arg, "nomap")) {
		p = SCIMapRemoteSegment(r, &map, 0, 4096, NULL, 0, &err);
		PROC_CHECK_EQ(err, SCI_ERR_OK);
		PROC_CHECK(p[0] == 0xabcd1234u);
		SCIUnmapSegment(map, 0, &err);
	}
	SCIDisconnectSegment(r, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIClose(sd, 0, &err);
	PROC_CHECK(proc_send(sock, READY) == 0);
	return 0;
}

/*
 * Child: per round, export segment EV_SEG_ID + round, send READY, then end the
 * import: arg "force,N" / "notify,N" as soon as SCI_CB_CONNECT arrives (the
 * importer is then still inside SCIConnectSegment, or just out of it), or
 * "force-on-go,N" once the parent says GO; then remove it when the parent says DONE.
 */
static int evowner_main(int sock, const char *arg)
{
	bool notify = !strncmp(arg, "notify", 6), on_go = !strncmp(arg, "force-on-go", 11);
	unsigned int rounds = (unsigned int)strtoul(strchr(arg, ',') + 1, NULL, 10);
	sci_desc_t sd;
	sci_local_segment_t seg;
	sci_segment_cb_reason_t reason;
	unsigned int node, adapter;
	sci_error_t err;

	SCIOpen(&sd, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	for (unsigned int i = 0; i < rounds; i++) {
		SCICreateSegment(sd, &seg, EV_SEG_ID + i, 65536, NULL, NULL, 0, &err);
		PROC_CHECK_EQ(err, SCI_ERR_OK);
		SCIPrepareSegment(seg, 0, 0, &err);
		PROC_CHECK_EQ(err, SCI_ERR_OK);
		SCISetSegmentAvailable(seg, 0, 0, &err);
		PROC_CHECK_EQ(err, SCI_ERR_OK);
		PROC_CHECK(proc_send(sock, READY) == 0);
		if (on_go) {
			PROC_CHECK(proc_expect(sock, GO, 10000) == 0);
		} else {
			reason = SCIWaitForLocalSegmentEvent(seg, &node, &adapter, proc_scaled_ms(10000), 0, &err);
			PROC_CHECK(err == SCI_ERR_OK && reason == SCI_CB_CONNECT);
		}
		SCISetSegmentUnavailable(seg, 0, notify ? SCI_FLAG_NOTIFY : SCI_FLAG_FORCE_DISCONNECT,
					 &err);
		PROC_CHECK_EQ(err, SCI_ERR_OK);
		PROC_CHECK(proc_expect(sock, DONE, 10000) == 0);
		SCIRemoveSegment(seg, 0, &err);
		PROC_CHECK_EQ(err, SCI_ERR_OK);
	}
	SCIClose(sd, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	return 0;
}

static const struct proc_role roles[] = {
	{ "owner", owner_main },
	{ "peer", peer_main },
	{ "evowner", evowner_main },
	{ NULL, NULL },
};

static void skip_unless_multiproc(void)
{
	if (!proc_provider_multiproc())
		skip();
}

static void test_three_processes_pio_dma_interrupt(void **state)
{
	struct proc owner, peer;
	sci_desc_t sd;
	sci_remote_segment_t r;
	sci_local_segment_t local;
	sci_remote_interrupt_t ri;
	sci_dma_queue_t dq;
	sci_map_t map;
	volatile uint32_t *p;
	uint64_t no;
	struct xrma_provider_info info;
	sci_error_t err;
	bool mapped, one_importer;

	(void)state;
	skip_unless_multiproc();
	one_importer = proc_provider_info(&info) && info.caps.max_importers == 1;
	sisci_test_spawn(&owner, fabric, OWNER_NODE, "owner", NULL, &no);
	sd = sisci_test_open(sisci_node(2));
	r = sisci_test_connect(sd, OWNER_NODE, SEG_ID);
	p = SCIMapRemoteSegment(r, &map, 0, 4096, NULL, 0, &err);
	/* Providers without load/store mapping (ofi) refuse it: the PIO part is skipped there. */
	mapped = err == SCI_ERR_OK;
	if (mapped)
		p[0] = 0xabcd1234u;
	else
		assert_sci(err, SCI_ERR_NOT_IMPLEMENTED);
	SCICreateSegment(sd, &local, 0, 65536, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	SCIPrepareSegment(local, 0, 0, &err);
	SCICreateDMAQueue(sd, &dq, 0, 1, 0, &err);
	SCIStartDmaTransfer(dq, local, r, 0, 65536, 65536, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(proc_spawn(&peer, fabric, PEER_NODE, "peer",
				    one_importer ? (mapped ? "one" : "one,nomap") : (mapped ? NULL : "nomap")),
			 0);
	if (one_importer) {
		/* The peer was refused while we hold the segment; it is its turn once we leave. */
		assert_int_equal(proc_expect(peer.sock, REFUSED, 10000), 0);
		if (mapped) {
			SCIUnmapSegment(map, 0, &err);
			assert_sci(err, SCI_ERR_OK);
		}
		sisci_test_disconnect(r);
		assert_int_equal(proc_send(peer.sock, GO), 0);
	}
	assert_int_equal(proc_expect(peer.sock, READY, 10000), 0);
	assert_int_equal(proc_join(&peer, 10000), 0);
	if (one_importer) {
		/* Free again: connect and see the data the peer checked. */
		r = sisci_test_connect(sd, OWNER_NODE, SEG_ID);
		if (mapped) {
			p = SCIMapRemoteSegment(r, &map, 0, 4096, NULL, 0, &err);
			assert_sci(err, SCI_ERR_OK);
			assert_int_equal(p[0], 0xabcd1234u);
		}
	}
	SCIConnectInterrupt(sd, &ri, OWNER_NODE, 0, (unsigned int)no, 5000, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCITriggerInterrupt(ri, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(proc_expect(owner.sock, READY, 10000), 0);
	SCIDisconnectInterrupt(ri, 0, &err);
	if (mapped)
		SCIUnmapSegment(map, 0, &err);
	sisci_test_disconnect(r);
	sisci_test_remove(local);
	assert_int_equal(proc_send(owner.sock, 1), 0);
	assert_int_equal(proc_join(&owner, 10000), 0);
	sisci_test_close(sd);
}

static void test_owner_killed_mid_dma(void **state)
{
	struct proc owner;
	sci_desc_t sd;
	sci_remote_segment_t r;
	sci_local_segment_t local;
	sci_dma_queue_t dq;
	sci_map_t map;
	sci_sequence_t seq;
	sci_dma_queue_state_t s;
	sci_segment_cb_reason_t reason;
	uint64_t no;
	sci_error_t err, status;
	bool mapped;

	(void)state;
	skip_unless_multiproc();
	sisci_test_spawn(&owner, fabric, OWNER_NODE, "owner", NULL, &no);
	sd = sisci_test_open(sisci_node(2));
	r = sisci_test_connect(sd, OWNER_NODE, SEG_ID);
	(void)SCIMapRemoteSegment(r, &map, 0, 4096, NULL, 0, &err);
	/* Sequences belong to a mapping: without one (ofi) that part is skipped. */
	mapped = err == SCI_ERR_OK;
	if (mapped) {
		SCICreateMapSequence(map, &seq, 0, &err);
		assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);
	}
	SCICreateSegment(sd, &local, 0, SEG_SIZE, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	SCIPrepareSegment(local, 0, 0, &err);
	SCICreateDMAQueue(sd, &dq, 0, 256, 0, &err);
	for (int i = 0; i < 256; i++)
		SCIEnqueueDMATransfer(dq, local, r, 0, 0, SEG_SIZE, 0, &err);
	SCIPostDMAQueue(dq, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	proc_kill(&owner);
	s = SCIWaitForDMAQueue(dq, proc_scaled_ms(10000), 0, &err);
	assert_sci(err, SCI_ERR_OK);
	/* Killed before the last transfer: ERROR; a very fast engine may have finished. */
	assert_true(s == SCI_DMAQUEUE_ERROR || s == SCI_DMAQUEUE_DONE);
	reason = SCIWaitForRemoteSegmentEvent(r, &status, proc_scaled_ms(10000), 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_LOST);
	if (mapped)
		assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_NOT_RETRIABLE);
	/* The survivor keeps working. */
	SCIResetDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRemoveDMAQueue(dq, 0, &err);
	if (mapped) {
		SCIRemoveSequence(seq, 0, &err);
		SCIUnmapSegment(map, 0, &err);
	}
	sisci_test_disconnect(r);
	sisci_test_remove(local);
	sisci_test_close(sd);
}

/*
 * What a remote segment callback saw. With close_sd set, the callback
 * disconnects its segment and closes close_sd (the last descriptor of its node)
 * on the first event, and records both errors.
 */
struct ev_sink {
	pthread_mutex_t lock;
	unsigned int count;
	sci_segment_cb_reason_t reason;
	sci_error_t status;
	sci_desc_t close_sd;
	bool closed;
	sci_error_t disconnect_err, close_err;
};

static sci_callback_action_t ev_sink_cb(void *arg, sci_remote_segment_t segment,
					sci_segment_cb_reason_t reason, sci_error_t status)
{
	struct ev_sink *sink = arg;
	sci_desc_t sd;
	sci_error_t derr = SCI_ERR_OK, cerr = SCI_ERR_OK;

	pthread_mutex_lock(&sink->lock);
	if (!sink->count++) {
		sink->reason = reason;
		sink->status = status;
	}
	sd = sink->close_sd;
	sink->close_sd = NULL;
	pthread_mutex_unlock(&sink->lock);
	if (!sd)
		return SCI_CALLBACK_CONTINUE;
	SCIDisconnectSegment(segment, 0, &derr);
	SCIClose(sd, 0, &cerr);
	pthread_mutex_lock(&sink->lock);
	sink->disconnect_err = derr;
	sink->close_err = cerr;
	sink->closed = true;
	pthread_mutex_unlock(&sink->lock);
	return SCI_CALLBACK_CONTINUE;
}

static unsigned int ev_sink_count(struct ev_sink *sink)
{
	unsigned int n;

	pthread_mutex_lock(&sink->lock);
	n = sink->count;
	pthread_mutex_unlock(&sink->lock);
	return n;
}

/* Spin (yielding) until the callback ran at least once: true, or false after timeout_ms. */
static bool ev_sink_wait(struct ev_sink *sink, uint64_t timeout_ms)
{
	uint64_t end = fixture_now_ms() + timeout_ms;

	while (!ev_sink_count(sink))
		if (fixture_now_ms() >= end)
			return false;
		else
			sched_yield();
	return true;
}

/*
 * Per round the owner ends the import as it completes; the callback passed to
 * SCIConnectSegment must get that event exactly once even when it was posted
 * before the personality set its callback.
 */
static void run_events_at_connect(const char *mode, sci_segment_cb_reason_t want)
{
	char arg[32];
	struct proc owner;
	unsigned int missed = 0, first_missed = 0;
	sci_desc_t sd;
	sci_error_t err;

	skip_unless_multiproc();
	watchdog_arm(120, "sisci events at connect", mode);
	snprintf(arg, sizeof(arg), "%s,%u", mode, EV_ROUNDS);
	assert_int_equal(proc_spawn(&owner, fabric, OWNER_NODE, "evowner", arg), 0);
	sd = sisci_test_open(sisci_node(2));
	for (unsigned int i = 0; i < EV_ROUNDS; i++) {
		struct ev_sink sink = { .lock = PTHREAD_MUTEX_INITIALIZER };
		sci_remote_segment_t r;

		assert_int_equal(proc_expect(owner.sock, READY, 10000), 0);
		SCIConnectSegment(sd, &r, OWNER_NODE, EV_SEG_ID + i, 0, ev_sink_cb, &sink, SISCI_TIMEOUT,
				  SCI_FLAG_USE_CALLBACK, &err);
		assert_sci(err, SCI_ERR_OK);
		if (!ev_sink_wait(&sink, SISCI_TIMEOUT)) {
			if (!missed++)
				first_missed = i;
		} else {
			assert_int_equal(ev_sink_count(&sink), 1);
			assert_int_equal(sink.reason, want);
		}
		sisci_test_disconnect(r);
		assert_int_equal(proc_send(owner.sock, DONE), 0);
		pthread_mutex_destroy(&sink.lock);
	}
	sisci_test_close(sd);
	assert_int_equal(proc_join(&owner, 10000), 0);
	watchdog_disarm();
	if (missed)
		fail_msg("%u of %u rounds got no callback (first: round %u)", missed, EV_ROUNDS,
			 first_missed);
}

static void test_rseg_callback_gets_lost_forced_at_connect(void **state)
{
	(void)state;
	run_events_at_connect("force", SCI_CB_LOST);
}

static void test_rseg_callback_gets_disconnect_requested_at_connect(void **state)
{
	(void)state;
	run_events_at_connect("notify", SCI_CB_DISCONNECT);
}

/* Threads of this process now (entries of /proc/self/task); -1 if unreadable. */
static int task_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Spin (yielding) until this process is down to at most tasks threads and fds descriptors. */
static bool wait_baseline(int tasks, int fds, uint64_t timeout_ms)
{
	uint64_t end = fixture_now_ms() + timeout_ms;

	while (task_count() > tasks || fixture_open_fds() > fds)
		if (fixture_now_ms() >= end)
			return false;
		else
			sched_yield();
	return true;
}

/*
 * The callback disconnects its segment and closes the descriptor that is the
 * process's last one for its node: both succeed, an SCIOpen of the node right
 * after the callback succeeds too, and once the callback has returned the
 * node's context goes (its threads and descriptors with it), round after round. Round 0 does the same from this thread, and the counts it leaves
 * are the bound: a provider may keep some per process after a node's first use
 * (pximc keeps two descriptors, and a closed peer's may linger a moment).
 */
static void test_close_last_descriptor_from_callback_releases_node(void **state)
{
	char arg[32];
	struct proc owner;
	int tasks = 0, fds = 0;

	(void)state;
	skip_unless_multiproc();
	watchdog_arm(120, "sisci close from callback", "rounds");
	snprintf(arg, sizeof(arg), "force-on-go,%u", CLOSE_ROUNDS + 1);
	assert_int_equal(proc_spawn(&owner, fabric, OWNER_NODE, "evowner", arg), 0);
	for (unsigned int i = 0; i <= CLOSE_ROUNDS; i++) {
		struct ev_sink sink = { .lock = PTHREAD_MUTEX_INITIALIZER };
		sci_remote_segment_t r;
		sci_desc_t sd;
		sci_error_t err;
		bool closed = false;

		assert_int_equal(proc_expect(owner.sock, READY, 10000), 0);
		sd = sisci_test_open(CLOSE_NODE);
		sink.close_sd = i ? sd : NULL;
		SCIConnectSegment(sd, &r, OWNER_NODE, EV_SEG_ID + i, 0, ev_sink_cb, &sink, SISCI_TIMEOUT,
				  SCI_FLAG_USE_CALLBACK, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_int_equal(proc_send(owner.sock, GO), 0);
		assert_true(ev_sink_wait(&sink, SISCI_TIMEOUT));
		assert_int_equal(sink.reason, SCI_CB_LOST);
		if (!i) {
			sisci_test_disconnect(r);
			sisci_test_close(sd);
			tasks = task_count();
			fds = fixture_open_fds();
			assert_true(tasks > 0 && fds > 0);
			assert_int_equal(proc_send(owner.sock, DONE), 0);
			pthread_mutex_destroy(&sink.lock);
			continue;
		}
		for (uint64_t end = fixture_now_ms() + SISCI_TIMEOUT;;) {
			pthread_mutex_lock(&sink.lock);
			closed = sink.closed;
			pthread_mutex_unlock(&sink.lock);
			if (closed || fixture_now_ms() >= end)
				break;
			sched_yield();
		}
		assert_true(closed);
		assert_sci(sink.disconnect_err, SCI_ERR_OK);
		assert_sci(sink.close_err, SCI_ERR_OK);
		/* The node is ours again at once: the open waits for that close to finish. */
		sisci_test_close(sisci_test_open(CLOSE_NODE));
		if (!wait_baseline(tasks, fds, SISCI_TIMEOUT))
			fail_msg("round %u: %d threads and %d descriptors, %d and %d after round 0", i,
				 task_count(), fixture_open_fds(), tasks, fds);
		assert_int_equal(proc_send(owner.sock, DONE), 0);
		pthread_mutex_destroy(&sink.lock);
	}
	assert_int_equal(proc_join(&owner, 10000), 0);
	watchdog_disarm();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_three_processes_pio_dma_interrupt, proc_teardown),
		cmocka_unit_test_teardown(test_owner_killed_mid_dma, proc_teardown),
		cmocka_unit_test_teardown(test_rseg_callback_gets_lost_forced_at_connect, proc_teardown),
		cmocka_unit_test_teardown(test_rseg_callback_gets_disconnect_requested_at_connect, proc_teardown),
		cmocka_unit_test_teardown(test_close_last_descriptor_from_callback_releases_node, proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	fixture_fabric_name(fabric, sizeof(fabric), "sisci-mp");
	setenv("XRMA_FABRIC", fabric, 1);
	return cmocka_run_group_tests_name("sisci_multiproc", tests, NULL, NULL);
}
