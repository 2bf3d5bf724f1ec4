/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/test_sisci_segment.c: the SISCI virtual device,
 * queries, local and remote segments with their state machines and events
 * (spec §2.2-§2.3, digest §5.1-§5.2, test ideas 1-58), maps, PIO copies and
 * sequences. Node 1 owns segments, node 2 imports them, both in this process.
 */
#include "tests/conformance/sisci/sisci_test.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static sci_desc_t sd1, sd2;

static int group_up(void **state)
{
	(void)state;
	sd1 = sisci_test_open(sisci_node(1));
	sd2 = sisci_test_open(sisci_node(2));
	return 0;
}

static int group_down(void **state)
{
	(void)state;
	sisci_test_close(sd2);
	sisci_test_close(sd1);
	return 0;
}

static void test_error_values_are_dolphins(void **state)
{
	(void)state;
	assert_int_equal(SCI_ERR_OK, 0);
	assert_int_equal(SCI_ERR_BUSY, 0x40000900);
	assert_int_equal(SCI_ERR_NO_SUCH_SEGMENT, 0x4000090C);
	assert_int_equal(SCI_ERR_TRANSFER_FAILED, 0x40000A06);
	assert_int_equal(SCI_CB_CONNECT, 1);
	assert_string_equal(SCIGetErrorString(SCI_ERR_OK), "no error");
	assert_string_equal(SCIGetErrorString((sci_error_t)0x7777), "unknown SISCI error");
}

static void test_open_bad_args_and_close_rules(void **state)
{
	sci_desc_t a = NULL, b = NULL;
	sci_local_segment_t seg;
	sci_error_t err;

	(void)state;
	SCIOpen(NULL, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCIOpen(&a, SCI_FLAG_DMA_READ, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIOpen(&a, SCI_FLAG_THREAD_SAFE, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIOpen(&b, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_ptr_not_equal(a, b);
	SCIClose(a, 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCICreateSegment(a, &seg, 0, 4096, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIClose(a, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	sisci_test_remove(seg);
	sisci_test_close(a);
	SCIClose(a, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCIClose((sci_desc_t)seg, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	sisci_test_close(b);
	SCIInitialize(0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIInitialize(4, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
}

static void test_query_commands(void **state)
{
	char buf[64], tiny[2];
	struct sci_query_string s = { buf, sizeof(buf) }, small = { tiny, sizeof(tiny) };
	unsigned int value = 0;
	struct sci_query_adapter q = { .subcommand = SCI_Q_ADAPTER_NODEID, .data = &value };
	unsigned int subs[] = { SCI_Q_ADAPTER_DMA_SIZE_ALIGNMENT, SCI_Q_ADAPTER_DMA_OFFSET_ALIGNMENT,
				SCI_Q_ADAPTER_DMA_MTU, SCI_Q_ADAPTER_SUGGESTED_MIN_DMA_SIZE,
				SCI_Q_ADAPTER_SUGGESTED_MIN_BLOCK_SIZE, SCI_Q_ADAPTER_CPU_COUNT,
				SCI_Q_ADAPTER_NUMA_NODES, SCI_Q_ADAPTER_PAGE_SIZE };
	sci_error_t err;

	(void)state;
	SCIQuery(SCI_Q_VENDORID, &s, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_true(strlen(buf) > 0);
	SCIQuery(SCI_Q_API, &s, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIQuery(SCI_Q_API, &small, 0, &err);
	assert_sci(err, SCI_ERR_OVERFLOW);
	sisci_test_setenv_node("XRMA_NODE_ID", 2);
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(value, sisci_node(2));
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		value = 0;
		q.subcommand = subs[i];
		SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_true(value >= 1);
	}
	q.subcommand = 999;
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_QUERY);
	q.subcommand = SCI_Q_ADAPTER_NODEID;
	q.localAdapterNo = 5;
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_ADAPTERNO);
	SCIQuery(12345, &s, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_QUERY);
	SCIQuery(SCI_Q_API, &s, 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIGetLocalNodeId(0, &value, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(value, sisci_node(2));
}

/* The adapter's card type, locality and PCI facts are the core topology's adapter 0. */
static void test_query_adapter_topology_matches_core(void **state)
{
	struct xrma_adapter_info a;
	unsigned int value = 0;
	struct sci_query_adapter q = { .subcommand = SCI_Q_ADAPTER_CARD_TYPE, .data = &value };
	bool pci;
	sci_error_t err;

	(void)state;
	unsetenv("XRMA_ADAPTER");
	assert_int_equal(xrma_adapter_get(0, &a), 0);
	pci = a.kind != XRMA_ADAPTER_HOST;
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(value, a.kind);
	q.subcommand = SCI_Q_ADAPTER_NUMA_NODE;
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(value, a.numa_node);
	q.subcommand = SCI_Q_ADAPTER_LOCAL_CPU_COUNT;
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(value, a.cpu_count);
	q.subcommand = SCI_Q_ADAPTER_PCI_BUS;
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(value, pci ? a.pci_bus : 0xffffffffu);
	q.subcommand = SCI_Q_ADAPTER_PCI_VENDOR_ID;
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(value, pci ? a.vendor_id : 0xffffffffu);
	q.data = NULL;
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
}

static void test_probe_node_reachable_and_not(void **state)
{
	sci_error_t err;
	dis_nodeId_list_t list;
	dis_virt_adapter_t type;

	(void)state;
	assert_int_equal(SCIProbeNode(sd2, 0, sisci_node(1), 0, &err), 1);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIProbeNode(sd2, 0, sisci_node(77), 0, &err), 0);
	assert_sci(err, SCI_ERR_NO_REMOTE_LINK_ACCESS);
	assert_int_equal(SCIProbeNode(sd2, 3, sisci_node(1), 0, &err), 0);
	assert_sci(err, SCI_ERR_NO_SUCH_ADAPTERNO);
	assert_int_equal(SCIProbeNode(sd2, 0, sisci_node(1), 8, &err), 0);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIGetNodeIdByAdapterName("node4", &list, &type, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(list[0], 4);
	SCIGetNodeIdByAdapterName("nonsense", &list, &type, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_NODEID);
	/* CSR space is real where the provider models it (sci), else not implemented. */
	(void)SCIGetCSRRegister(sd1, 0, sisci_node(1), 0, 0, &err);
	assert_sci(err, sisci_test_provider_has(XRMA_CAP_CSR) ? SCI_ERR_OK : SCI_ERR_NOT_IMPLEMENTED);
	SCISetCSRRegister(sd1, 0, sisci_node(1), 0, 0, 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
}

static void test_create_segment_ids_and_args(void **state)
{
	sci_local_segment_t a, b, p1, p2, autoseg;
	sci_desc_t other;
	sci_error_t err;

	(void)state;
	SCICreateSegment(sd1, &a, 10, 4096, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIGetLocalSegmentId(a), 10);
	assert_int_equal(SCIGetLocalSegmentSize(a), 4096);
	/* Ids are per node, whatever the descriptor. */
	other = sisci_test_open(sisci_node(1));
	SCICreateSegment(other, &b, 10, 4096, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_SEGMENTID_USED);
	SCICreateSegment(sd2, &b, 10, 4096, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_remove(b);
	sisci_test_close(other);
	/* Private segments never collide. */
	SCICreateSegment(sd1, &p1, 10, 4096, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateSegment(sd1, &p2, 10, 4096, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateSegment(sd1, &autoseg, 0, 100, NULL, NULL, SCI_FLAG_AUTO_ID, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_not_equal(SCIGetLocalSegmentId(autoseg), 0);
	SCICreateSegment(sd1, &b, 11, 0, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCICreateSegment(sd1, &b, 11, 4096, NULL, NULL, SCI_FLAG_NOTIFY, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCICreateSegment(sd1, &b, 11, 4096, NULL, NULL, SCI_FLAG_USE_CALLBACK, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCICreateSegment(sd1, &b, 11, 4096, NULL, NULL, SCI_FLAG_BROADCAST, &err);
	if (sisci_test_provider_has(XRMA_CAP_BROADCAST)) {
		/* Broadcast groups are tested in test_sisci_broadcast. */
		assert_sci(err, SCI_ERR_OK);
		sisci_test_remove(b);
	} else {
		assert_sci(err, SCI_ERR_FLAG_NOT_IMPLEMENTED);
	}
	SCIRemoveSegment(a, 2, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	sisci_test_remove(a);
	sisci_test_remove(p1);
	sisci_test_remove(p2);
	sisci_test_remove(autoseg);
	SCIRemoveSegment(a, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	assert_int_equal(SCIGetLocalSegmentId(a), 0);
}

static void test_availability_state_machine(void **state)
{
	sci_local_segment_t seg, priv;
	sci_remote_segment_t r;
	sci_error_t err;

	(void)state;
	SCICreateSegment(sd1, &seg, 20, 4096, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_SEGMENT_NOT_PREPARED);
	SCISetSegmentUnavailable(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	/* Not available yet: connecting fails (once the short timeout has passed). */
	SCIConnectSegment(sd2, &r, sisci_node(1), 20, 0, NULL, NULL, SISCI_SHORT, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_SEGMENT);
	SCIPrepareSegment(seg, 1, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_ADAPTERNO);
	SCIPrepareSegment(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCISetSegmentAvailable(seg, 0, 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	r = sisci_test_connect(sd2, sisci_node(1), 20);
	assert_int_equal(SCIGetRemoteSegmentSize(r), 4096);
	assert_int_equal(SCIGetRemoteSegmentId(r), 20);
	/* Unavailable without flags: the importer stays, newcomers are refused. */
	SCISetSegmentUnavailable(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIConnectSegment(sd2, &r, sisci_node(1), 20, 0, NULL, NULL, SISCI_SHORT, 0, NULL);
	/* The 1999 rule, by configuration (Dolphin's library cuts the importer off). */
	setenv("XRMA_SISCI_REMOVE_CONNECTED", "busy", 1);
	SCIRemoveSegment(seg, 0, &err);
	unsetenv("XRMA_SISCI_REMOVE_CONNECTED");
	assert_sci(err, SCI_ERR_BUSY);
	sisci_test_disconnect(r);
	sisci_test_remove(seg);
	SCICreateSegment(sd1, &priv, 21, 4096, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(priv, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCISetSegmentAvailable(priv, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	sisci_test_remove(priv);
	SCIConnectSegment(sd2, &r, sisci_node(1), 424242, 0, NULL, NULL, SISCI_SHORT, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_SEGMENT);
	SCIConnectSegment(sd2, &r, sisci_node(1), 20, 0, NULL, NULL, SISCI_TIMEOUT, SCI_FLAG_NOTIFY, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
}

static void test_connect_disconnect_events_by_wait(void **state)
{
	sci_local_segment_t seg = sisci_test_segment(sd1, 30, 8192);
	sci_remote_segment_t r;
	unsigned int node = 0, adapter = 9;
	sci_segment_cb_reason_t reason;
	sci_error_t err;
	uint64_t start;

	(void)state;
	start = fixture_now_ms();
	(void)SCIWaitForLocalSegmentEvent(seg, &node, &adapter, SISCI_SHORT, 0, &err);
	assert_sci(err, SCI_ERR_TIMEOUT);
	assert_true(fixture_now_ms() - start >= SISCI_SHORT - 5);
	r = sisci_test_connect(sd2, sisci_node(1), 30);
	reason = SCIWaitForLocalSegmentEvent(seg, &node, &adapter, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_CONNECT);
	assert_int_equal(node, sisci_node(2));
	assert_int_equal(adapter, 0);
	(void)SCIWaitForLocalSegmentEvent(seg, &node, &adapter, 0, 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	sisci_test_disconnect(r);
	reason = SCIWaitForLocalSegmentEvent(seg, &node, &adapter, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_DISCONNECT);
	sisci_test_remove(seg);
}

struct cb_log {
	pthread_mutex_t lock;
	int count;
	sci_segment_cb_reason_t last;
	unsigned int node;
	sci_error_t status;
};

static sci_callback_action_t local_cb(void *arg, sci_local_segment_t segment, sci_segment_cb_reason_t reason,
				      unsigned int nodeId, unsigned int adapter, sci_error_t error)
{
	struct cb_log *log = arg;

	(void)segment;
	(void)adapter;
	pthread_mutex_lock(&log->lock);
	log->count++;
	log->last = reason;
	log->node = nodeId;
	log->status = error;
	pthread_mutex_unlock(&log->lock);
	return SCI_CALLBACK_CONTINUE;
}

static sci_callback_action_t remote_cb(void *arg, sci_remote_segment_t segment, sci_segment_cb_reason_t reason,
				       sci_error_t status)
{
	struct cb_log *log = arg;

	(void)segment;
	pthread_mutex_lock(&log->lock);
	log->count++;
	log->last = reason;
	log->status = status;
	pthread_mutex_unlock(&log->lock);
	return SCI_CALLBACK_CONTINUE;
}

static int log_count(struct cb_log *log)
{
	int n;

	pthread_mutex_lock(&log->lock);
	n = log->count;
	pthread_mutex_unlock(&log->lock);
	return n;
}

static void log_wait(struct cb_log *log, int want)
{
	uint64_t end = fixture_now_ms() + SISCI_TIMEOUT;

	while (log_count(log) < want && fixture_now_ms() < end)
		sched_yield();
	assert_int_equal(log_count(log), want);
}

static void test_connect_callbacks_owner_and_async_importer(void **state)
{
	struct cb_log owner = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct cb_log importer = { .lock = PTHREAD_MUTEX_INITIALIZER };
	sci_local_segment_t seg;
	sci_remote_segment_t r;
	unsigned int node, adapter;
	sci_error_t err;

	(void)state;
	SCICreateSegment(sd1, &seg, 31, 4096, local_cb, &owner, SCI_FLAG_USE_CALLBACK, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(seg, 0, 0, &err);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	(void)SCIWaitForLocalSegmentEvent(seg, &node, &adapter, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIConnectSegment(sd2, &r, sisci_node(1), 31, 0, remote_cb, &importer,
			  SISCI_TIMEOUT, SCI_FLAG_ASYNCHRONOUS_CONNECT | SCI_FLAG_USE_CALLBACK, &err);
	assert_sci(err, SCI_ERR_OK);
	log_wait(&importer, 1);
	assert_int_equal(importer.last, SCI_CB_CONNECT);
	assert_sci(importer.status, SCI_ERR_OK);
	log_wait(&owner, 1);
	assert_int_equal(owner.last, SCI_CB_CONNECT);
	assert_int_equal(owner.node, sisci_node(2));
	/* NOTIFY: an invitation to leave. */
	SCISetSegmentUnavailable(seg, 0, SCI_FLAG_NOTIFY, &err);
	assert_sci(err, SCI_ERR_OK);
	log_wait(&importer, 2);
	assert_int_equal(importer.last, SCI_CB_DISCONNECT);
	/* Under the 1999 rule an importer only asked to leave still holds the segment. */
	setenv("XRMA_SISCI_REMOVE_CONNECTED", "busy", 1);
	SCIRemoveSegment(seg, 0, &err);
	unsetenv("XRMA_SISCI_REMOVE_CONNECTED");
	assert_sci(err, SCI_ERR_BUSY);
	sisci_test_disconnect(r);
	log_wait(&owner, 2);
	assert_int_equal(owner.last, SCI_CB_DISCONNECT);
	sisci_test_remove(seg);
}

static void test_async_connect_failure_and_wait(void **state)
{
	sci_local_segment_t seg = sisci_test_segment(sd1, 32, 4096);
	sci_remote_segment_t r;
	sci_segment_cb_reason_t reason;
	sci_error_t err, status = SCI_ERR_OK;

	(void)state;
	/* The connect waits its timeout for the segment to appear, then reports the failure. */
	SCIConnectSegment(sd2, &r, sisci_node(1), 99999, 0, NULL, NULL, SISCI_SHORT, SCI_FLAG_ASYNCHRONOUS_CONNECT, &err);
	assert_sci(err, SCI_ERR_OK);
	reason = SCIWaitForRemoteSegmentEvent(r, &status, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_LOST);
	assert_sci(status, SCI_ERR_NO_SUCH_SEGMENT);
	sisci_test_disconnect(r);
	SCIConnectSegment(sd2, &r, sisci_node(1), 32, 0, NULL, NULL, SISCI_TIMEOUT, SCI_FLAG_ASYNCHRONOUS_CONNECT, &err);
	assert_sci(err, SCI_ERR_OK);
	reason = SCIWaitForRemoteSegmentEvent(r, &status, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_CONNECT);
	assert_int_equal(SCIGetRemoteSegmentSize(r), 4096);
	/* FORCE_DISCONNECT: the importer is lost, the owner may remove at once. */
	SCISetSegmentUnavailable(seg, 0, SCI_FLAG_FORCE_DISCONNECT, &err);
	assert_sci(err, SCI_ERR_OK);
	reason = SCIWaitForRemoteSegmentEvent(r, &status, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_LOST);
	sisci_test_remove(seg);
	sisci_test_disconnect(r);
}

struct waiter {
	sci_local_segment_t lseg;
	sci_remote_segment_t rseg;
	pid_t tid;
	sci_error_t err;
};

static void *local_waiter(void *arg)
{
	struct waiter *w = arg;
	unsigned int node, adapter;

	__atomic_store_n(&w->tid, fixture_gettid(), __ATOMIC_RELEASE);
	(void)SCIWaitForLocalSegmentEvent(w->lseg, &node, &adapter, SISCI_TIMEOUT, 0, &w->err);
	return NULL;
}

static void *remote_waiter(void *arg)
{
	struct waiter *w = arg;
	sci_error_t status;

	__atomic_store_n(&w->tid, fixture_gettid(), __ATOMIC_RELEASE);
	(void)SCIWaitForRemoteSegmentEvent(w->rseg, &status, SISCI_TIMEOUT, 0, &w->err);
	return NULL;
}

static void wait_started(struct waiter *w)
{
	uint64_t end = fixture_now_ms() + SISCI_TIMEOUT;

	while (!__atomic_load_n(&w->tid, __ATOMIC_ACQUIRE) && fixture_now_ms() < end)
		sched_yield();
	assert_int_equal(fixture_wait_blocked(w->tid, SISCI_TIMEOUT), 0);
}

static void test_remove_and_disconnect_cancel_waiters(void **state)
{
	struct waiter w = { 0 }, v = { 0 };
	sci_local_segment_t seg = sisci_test_segment(sd1, 33, 4096);
	pthread_t t;

	(void)state;
	w.lseg = seg;
	w.err = SCI_ERR_OK;
	assert_int_equal(pthread_create(&t, NULL, local_waiter, &w), 0);
	wait_started(&w);
	sisci_test_remove(seg);
	assert_int_equal(fixture_join(t, SISCI_TIMEOUT, NULL), 0);
	assert_sci(w.err, SCI_ERR_CANCELLED);

	seg = sisci_test_segment(sd1, 33, 4096);
	v.rseg = sisci_test_connect(sd2, sisci_node(1), 33);
	assert_int_equal(pthread_create(&t, NULL, remote_waiter, &v), 0);
	wait_started(&v);
	sisci_test_disconnect(v.rseg);
	assert_int_equal(fixture_join(t, SISCI_TIMEOUT, NULL), 0);
	assert_sci(v.err, SCI_ERR_CANCELLED);
	sisci_test_remove(seg);
}

static void test_maps_pio_and_busy_rules(void **state)
{
	sci_local_segment_t seg = sisci_test_segment(sd1, 40, 8192);
	sci_remote_segment_t r = sisci_test_connect(sd2, sisci_node(1), 40);
	sci_map_t lmap, rmap, romap, bad;
	volatile uint32_t *remote;
	uint32_t *local;
	char buf[64];
	sci_error_t err;

	(void)state;
	local = SCIMapLocalSegment(seg, &lmap, 0, 8192, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	remote = SCIMapRemoteSegment(r, &rmap, 4096, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	remote[0] = 0xfeedf00d;
	remote[1023] = 42;
	assert_int_equal(local[1024], 0xfeedf00d);
	assert_int_equal(local[2047], 42);
	assert_null(SCIMapRemoteSegment(r, &bad, 4096, 4097, NULL, 0, &err));
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	assert_null(SCIMapLocalSegment(seg, &bad, 8192, 1, NULL, 0, &err));
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	assert_null(SCIMapLocalSegment(seg, &bad, 0, 16, NULL, SCI_FLAG_NOTIFY, &err));
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	assert_non_null(SCIMapRemoteSegment(r, &romap, 0, 64, NULL, SCI_FLAG_READONLY_MAP, &err));
	assert_sci(err, SCI_ERR_OK);
	/* SCIMemCopy both ways, range and read-only checks. */
	memset(buf, 0x5a, sizeof(buf));
	SCIMemCopy(buf, rmap, 64, sizeof(buf), SCI_FLAG_ERROR_CHECK, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(((uint8_t *)local)[4096 + 64], 0x5a);
	memset(buf, 0, sizeof(buf));
	SCIMemCpy(NULL, buf, rmap, 64, sizeof(buf), SCI_FLAG_BLOCK_READ, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(fixture_check(buf, sizeof(buf), 0x5a), FIXTURE_MATCH);
	SCIMemCopy(buf, rmap, 4090, sizeof(buf), 0, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	SCIMemCopy(buf, romap, 0, 8, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIMemWrite(buf, remote, 8, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICacheSync(lmap, local, 64, SCI_FLAG_CACHE_FLUSH, &err);
	assert_sci(err, SCI_ERR_OK);
	/* Busy while mapped. */
	SCIDisconnectSegment(r, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	SCIRemoveSegment(seg, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	SCIUnmapSegment(rmap, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIUnmapSegment(rmap, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCIUnmapSegment(romap, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_disconnect(r);
	SCIRemoveSegment(seg, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	SCIUnmapSegment(lmap, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_remove(seg);
}

static void test_sequences_report_peer_loss(void **state)
{
	sci_local_segment_t seg = sisci_test_segment(sd1, 41, 4096);
	sci_remote_segment_t r = sisci_test_connect(sd2, sisci_node(1), 41);
	sci_segment_cb_reason_t reason;
	sci_sequence_t seq, fast;
	sci_map_t map;
	volatile uint8_t *p;
	sci_error_t err, status;

	(void)state;
	p = SCIMapRemoteSegment(r, &map, 0, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateMapSequence(map, &seq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateMapSequence(map, &fast, SCI_FLAG_FAST_BARRIER, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateMapSequence(map, &fast, SCI_FLAG_NOTIFY, NULL);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);
	assert_sci(err, SCI_ERR_OK);
	p[0] = 1;
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_OK);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCICheckSequence(seq, SCI_FLAG_NO_FLUSH | SCI_FLAG_NO_STORE_BARRIER, &err), SCI_SEQ_OK);
	(void)SCICheckSequence(seq, SCI_FLAG_DMA_READ, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIStoreBarrier(seq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIFlush(seq, 0);
	SCIFlushReadBuffers(seq);
	SCIUnmapSegment(map, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	/* The owner forces us off: checks fail until the segment is usable again. */
	SCISetSegmentUnavailable(seg, 0, SCI_FLAG_FORCE_DISCONNECT, &err);
	assert_sci(err, SCI_ERR_OK);
	reason = SCIWaitForRemoteSegmentEvent(r, &status, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_LOST);
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_NOT_RETRIABLE);
	assert_sci(err, SCI_ERR_NOT_CONNECTED);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_PENDING);
	assert_sci(err, SCI_ERR_NOT_CONNECTED);
	SCIMemCopy((void *)"x", map, 0, 1, SCI_FLAG_ERROR_CHECK, &err);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	SCIRemoveSequence(seq, 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIRemoveSequence(seq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRemoveSequence(fast, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_PENDING);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCIUnmapSegment(map, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_disconnect(r);
	sisci_test_remove(seg);
}

/*
 * SCIUnmapSegment against a call that starts using the same remote map in another
 * thread: a sequence, a block transfer, a PIO copy. The unmap is BUSY while the
 * map is in use and the other call fails once the unmap has begun; a sequence
 * never survives on an unmapped map, and no copy touches unmapped memory.
 */
enum map_use { USE_SEQUENCE, USE_BLOCK, USE_PIO, USE_KINDS };

struct map_racer {
	struct fixture_barrier *start;
	enum map_use use;
	sci_map_t map, local;
	sci_sequence_t seq;
	sci_error_t err;
	unsigned char buf[4096];
};

static void *map_racer_main(void *arg)
{
	struct map_racer *r = arg;

	if (fixture_barrier_wait(r->start, SISCI_TIMEOUT)) {
		r->err = SCI_ERR_TIMEOUT;
		return NULL;
	}
	switch (r->use) {
	case USE_SEQUENCE:
		SCICreateMapSequence(r->map, &r->seq, 0, &r->err);
		break;
	case USE_BLOCK:
		SCITransferBlock(r->map, 0, r->local, 0, sizeof(r->buf), 0, &r->err);
		break;
	default:
		SCIMemCopy(r->buf, r->map, 0, sizeof(r->buf), SCI_FLAG_BLOCK_READ, &r->err);
		break;
	}
	return NULL;
}

static void test_unmap_against_a_starting_user(void **state)
{
	sci_local_segment_t seg = sisci_test_segment(sd1, 43, 4096);
	sci_local_segment_t dst = sisci_test_segment(sd2, 44, 4096);
	sci_remote_segment_t r = sisci_test_connect(sd2, sisci_node(1), 43);
	struct map_racer *racer = calloc(1, sizeof(*racer));
	struct fixture_barrier start;
	unsigned int busy = 0, refused = 0;
	sci_error_t err;
	pthread_t t;

	(void)state;
	assert_non_null(racer);
	fixture_barrier_init(&start, 2);
	(void)SCIMapLocalSegment(dst, &racer->local, 0, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	for (unsigned int round = 0; round < 300 * USE_KINDS; round++) {
		sci_error_t unmapped;

		racer->use = (enum map_use)(round % USE_KINDS);
		racer->start = &start;
		(void)SCIMapRemoteSegment(r, &racer->map, 0, 4096, NULL, 0, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_int_equal(pthread_create(&t, NULL, map_racer_main, racer), 0);
		assert_int_equal(fixture_barrier_wait(&start, SISCI_TIMEOUT), 0);
		SCIUnmapSegment(racer->map, 0, &unmapped);
		assert_int_equal(fixture_join(t, SISCI_TIMEOUT, NULL), 0);
		assert_true(unmapped == SCI_ERR_OK || unmapped == SCI_ERR_BUSY);
		if (unmapped == SCI_ERR_BUSY) {
			/* A use made it busy, and that use succeeded. */
			busy++;
			assert_sci(racer->err, SCI_ERR_OK);
			if (racer->use == USE_SEQUENCE) {
				SCIRemoveSequence(racer->seq, 0, &err);
				assert_sci(err, SCI_ERR_OK);
			}
			SCIUnmapSegment(racer->map, 0, &err);
			assert_sci(err, SCI_ERR_OK);
		} else if (racer->use == USE_SEQUENCE) {
			/* Unmapped: the sequence came too late, it must not exist. */
			assert_sci(racer->err, SCI_ERR_ILLEGAL_PARAMETER);
			refused++;
		} else {
			/* A copy either ended before the unmap or was refused. */
			assert_true(racer->err == SCI_ERR_OK || racer->err == SCI_ERR_ILLEGAL_PARAMETER);
		}
	}
	print_message("the use first %u times, a sequence refused %u times\n", busy, refused);
	SCIUnmapSegment(racer->local, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	fixture_barrier_destroy(&start);
	free(racer);
	sisci_test_disconnect(r);
	sisci_test_remove(dst);
	sisci_test_remove(seg);
}

static void test_register_user_memory(void **state)
{
	/* Page aligned: providers that re-back registered memory need whole pages. */
	static uint8_t buffer[8192] __attribute__((aligned(4096)));
	sci_local_segment_t seg, named;
	sci_remote_segment_t r;
	sci_map_t map;
	uint8_t *p;
	sci_error_t err;

	(void)state;
	SCICreateSegment(sd1, &seg, 0, 4096, NULL, NULL, SCI_FLAG_EMPTY | SCI_FLAG_PRIVATE, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_null(SCIMapLocalSegment(seg, &map, 0, 16, NULL, 0, &err));
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIRegisterSegmentMemory(buffer, 8192, seg, 0, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	SCIRegisterSegmentMemory(NULL, 4096, seg, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_ADDRESS);
	SCIRegisterSegmentMemory(buffer, 4096, seg, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRegisterSegmentMemory(buffer, 4096, seg, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	p = SCIMapLocalSegment(seg, &map, 0, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	p[10] = 0x77;
	assert_int_equal(buffer[10], 0x77);
	SCIUnmapSegment(map, 0, &err);
	sisci_test_remove(seg);
	assert_int_equal(buffer[10], 0x77); /* user memory survives the segment */
	/* An EMPTY segment with an id owns it before registration and exports after. */
	SCICreateSegment(sd1, &named, 42, 8192, NULL, NULL, SCI_FLAG_EMPTY, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICreateSegment(sd1, &seg, 42, 4096, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_SEGMENTID_USED);
	SCIPrepareSegment(named, 0, 0, &err);
	SCISetSegmentAvailable(named, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIRegisterSegmentMemory(buffer, 8192, named, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCISetSegmentAvailable(named, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	r = sisci_test_connect(sd2, sisci_node(1), 42);
	assert_int_equal(SCIGetRemoteSegmentSize(r), 8192);
	sisci_test_disconnect(r);
	sisci_test_remove(named);
}

static void test_second_adapter_from_environment(void **state)
{
	sci_local_segment_t seg = sisci_test_segment(sd1, 60, 4096);
	struct sci_query_adapter q;
	sci_remote_segment_t r;
	unsigned int id = 0, configured = 9, node, adapter;
	sci_desc_t sd;
	sci_error_t err;

	(void)state;
	sisci_test_setenv_node("XRMA_SISCI_ADAPTER1", 5);
	sd = sisci_test_open(sisci_node(2));
	SCIGetLocalNodeId(1, &id, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(id, sisci_node(5));
	q = (struct sci_query_adapter){ .localAdapterNo = 2, .subcommand = SCI_Q_ADAPTER_CONFIGURED,
				       .data = &configured };
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(configured, 0);
	/* Through adapter 1 this process is node 5. */
	SCIConnectSegment(sd, &r, sisci_node(1), 60, 1, NULL, NULL, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	(void)SCIWaitForLocalSegmentEvent(seg, &node, &adapter, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(node, sisci_node(5));
	SCIConnectSegment(sd, &r, sisci_node(1), 60, 2, NULL, NULL, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_ADAPTERNO);
	SCIPrepareSegment(seg, 1, 0, &err);
	assert_sci(err, SCI_ERR_NOT_IMPLEMENTED);
	SCIClose(sd, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	SCIDisconnectSegment(r, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_close(sd);
	unsetenv("XRMA_SISCI_ADAPTER1");
	sisci_test_remove(seg);
}

static void test_privileged_and_misc_errors(void **state)
{
	/* An offset far beyond any node's exports: no segment there. */
	sci_address_t addr = { 0xffffffffu, 0, (unsigned short)sisci_node(1) };
	sci_remote_segment_t r;
	sci_local_segment_t seg = sisci_test_segment(sd1, 70, 4096);
	sci_map_t map;
	uint8_t *p, buf[8] = { 0 };
	sci_error_t err;

	(void)state;
	SCIConnectSCISpace(sd2, &r, addr, 4096, 0, 0, &err);
	assert_sci(err, sisci_test_provider_has(XRMA_CAP_BUS_IMPORT) ? SCI_ERR_NO_SUCH_SEGMENT
								    : SCI_ERR_NOT_IMPLEMENTED);
	SCIConnectSCISpace(sd2, &r, addr, 100, 0, 0, &err);
	assert_sci(err, SCI_ERR_SIZE_ALIGNMENT);
	SCIConnectSCISpace(sd2, &r, addr, 4096, 0, 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIConnectSCISpace(sd2, &r, addr, 4096, 4, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_ADAPTERNO);
	SCIConnectSCISpace((sci_desc_t)seg, &r, addr, 4096, 0, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCISetCSRRegister(sd1, 0, sisci_node(1), 0, 0, 0, &err);
	assert_sci(err, sisci_test_provider_has(XRMA_CAP_CSR) ? SCI_ERR_OK : SCI_ERR_NOT_IMPLEMENTED);
	p = SCIMapLocalSegment(seg, &map, 0, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCICacheSync(map, p + 4000, 200, 0, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	SCICacheSync(map, p, 8, SCI_FLAG_NOTIFY, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIMemWrite(buf, NULL, sizeof(buf), 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_ADDRESS);
	SCIMemWrite(buf, p, sizeof(buf), 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIMemCopy(NULL, map, 0, 8, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_ADDRESS);
	SCIMemCopy(buf, map, 0, 0, 0, &err);
	assert_sci(err, SCI_ERR_SIZE_ALIGNMENT);
	SCIMemCopy(buf, (sci_map_t)seg, 0, 8, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	assert_int_equal(SCIGetRemoteSegmentSize((sci_remote_segment_t)seg), 0);
	assert_int_equal(SCIGetLocalSegmentSize((sci_local_segment_t)map), 0);
	SCIUnmapSegment(map, 0, &err);
	sisci_test_remove(seg);
}

static void test_link_down_and_up_reach_importer_and_sequences(void **state)
{
	struct xrma_ctx_attr attr = { .node_id = sisci_node(9) };
	sci_local_segment_t seg = sisci_test_segment(sd1, 71, 4096);
	sci_local_segment_t local;
	sci_remote_segment_t r = sisci_test_connect(sd2, sisci_node(1), 71);
	sci_segment_cb_reason_t reason;
	sci_dma_queue_t dq;
	struct xrma_ctx *ctx;
	sci_sequence_t seq;
	sci_map_t map;
	sci_error_t err, status;
	int ret;

	(void)state;
	(void)SCIMapRemoteSegment(r, &map, 0, 4096, NULL, 0, &err);
	SCICreateMapSequence(map, &seq, 0, &err);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);
	/* A third context of the fabric injects the fault (links are modelled on ntb). */
	assert_rc(xrma_ctx_open(&attr, &ctx), 0);
	ret = xrma_node_set_link(ctx, sisci_node(1), false);
	if (ret == -XRMA_ENOTSUP) {
		assert_rc(xrma_ctx_close(ctx), 0);
		SCIRemoveSequence(seq, 0, &err);
		SCIUnmapSegment(map, 0, &err);
		sisci_test_disconnect(r);
		sisci_test_remove(seg);
		skip();
	}
	assert_rc(ret, 0);
	reason = SCIWaitForRemoteSegmentEvent(r, &status, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_NOT_OPERATIONAL);
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_NOT_RETRIABLE);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_PENDING);
	/* Transfers touching the node fail while the link is down. */
	SCICreateSegment(sd2, &local, 0, 4096, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	SCIPrepareSegment(local, 0, 0, &err);
	SCICreateDMAQueue(sd2, &dq, 0, 1, 0, &err);
	SCIStartDmaTransfer(dq, local, r, 0, 64, 0, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	assert_true(err != SCI_ERR_OK);
	assert_int_equal(SCIDMAQueueState(dq), SCI_DMAQUEUE_ERROR);
	assert_rc(xrma_node_set_link(ctx, sisci_node(1), true), 0);
	reason = SCIWaitForRemoteSegmentEvent(r, &status, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_OPERATIONAL);
	/* A fault happened since the start: checks fail until the sequence starts again. */
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_NOT_RETRIABLE);
	assert_sci(err, SCI_ERR_NO_REMOTE_LINK_ACCESS);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_OK);
	SCIStartDmaTransfer(dq, local, r, 0, 64, 0, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_rc(xrma_ctx_close(ctx), 0);
	SCIRemoveDMAQueue(dq, 0, &err);
	sisci_test_remove(local);
	SCIRemoveSequence(seq, 0, &err);
	SCIUnmapSegment(map, 0, &err);
	sisci_test_disconnect(r);
	sisci_test_remove(seg);
}

#define WORKERS 4
#define ROUNDS 25

struct worker {
	sci_desc_t sd;
	unsigned int id;
	struct fixture_barrier *start;
	int failures;
};

/* Each thread creates, exports, imports, maps, writes and removes its own segments. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	sci_local_segment_t seg;
	sci_remote_segment_t r;
	sci_map_t map;
	volatile uint32_t *p;
	sci_error_t err;

	if (fixture_barrier_wait(w->start, SISCI_TIMEOUT))
		return NULL;
	for (int i = 0; i < ROUNDS; i++) {
		unsigned int id = 1000 + w->id * 100 + (unsigned int)i;

		SCICreateSegment(sd1, &seg, id, 4096, NULL, NULL, 0, &err);
		w->failures += err != SCI_ERR_OK;
		SCIPrepareSegment(seg, 0, 0, &err);
		SCISetSegmentAvailable(seg, 0, 0, &err);
		w->failures += err != SCI_ERR_OK;
		SCIConnectSegment(w->sd, &r, sisci_node(1), id, 0, NULL, NULL, SISCI_TIMEOUT, 0, &err);
		w->failures += err != SCI_ERR_OK;
		p = SCIMapRemoteSegment(r, &map, 0, 4096, NULL, 0, &err);
		w->failures += err != SCI_ERR_OK;
		if (p)
			p[0] = id;
		SCIUnmapSegment(map, 0, &err);
		SCIDisconnectSegment(r, 0, &err);
		w->failures += err != SCI_ERR_OK;
		SCIRemoveSegment(seg, 0, &err);
		w->failures += err != SCI_ERR_OK;
	}
	return NULL;
}

static void test_threads_share_descriptors(void **state)
{
	struct worker w[WORKERS];
	pthread_t t[WORKERS];
	struct fixture_barrier start;

	(void)state;
	fixture_barrier_init(&start, WORKERS);
	for (unsigned int i = 0; i < WORKERS; i++) {
		/* Half share sd2, half have a descriptor of their own (same node). */
		w[i] = (struct worker){ .sd = i % 2 ? sd2 : sisci_test_open(sisci_node(2)), .id = i, .start = &start };
		assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
	}
	for (unsigned int i = 0; i < WORKERS; i++) {
		assert_int_equal(fixture_join(t[i], SISCI_TIMEOUT * 5, NULL), 0);
		assert_int_equal(w[i].failures, 0);
		if (w[i].sd != sd2)
			sisci_test_close(w[i].sd);
	}
	fixture_barrier_destroy(&start);
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_error_values_are_dolphins),
		T(test_open_bad_args_and_close_rules),
		T(test_query_commands),
		T(test_query_adapter_topology_matches_core),
		T(test_probe_node_reachable_and_not),
		T(test_create_segment_ids_and_args),
		T(test_availability_state_machine),
		T(test_connect_disconnect_events_by_wait),
		T(test_connect_callbacks_owner_and_async_importer),
		T(test_async_connect_failure_and_wait),
		T(test_remove_and_disconnect_cancel_waiters),
		T(test_maps_pio_and_busy_rules),
		T(test_sequences_report_peer_loss),
		T(test_unmap_against_a_starting_user),
		T(test_register_user_memory),
		T(test_second_adapter_from_environment),
		T(test_privileged_and_misc_errors),
		T(test_threads_share_descriptors),
		T(test_link_down_and_up_reach_importer_and_sequences),
	};

	sisci_test_fabric("sisci-seg");
	return cmocka_run_group_tests_name("sisci_segment", tests, group_up, group_down);
}
