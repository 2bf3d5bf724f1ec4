/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/test_sisci_behaviour.c: SISCI as Dolphin's library
 * behaves on hardware, where the 1999 specification is silent or stricter.
 * Start order: a node of the cluster that has not started is a node without
 * the segment, and a connect with a timeout waits for the segment or
 * interrupt of a process started after it. SCIRemoveSegment with importers
 * cuts them off (or is SCI_ERR_BUSY under [sisci] remove_connected = busy).
 * Host names of the node file name nodes. Fabric names up to 255 characters.
 * The start-order and remove cases fork real processes (tests/helpers/proc.h).
 */
#include "tests/conformance/sisci/sisci_test.h"
#include "tests/helpers/watchdog.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define ME sisci_node(1)
#define LATE sisci_node(2)
#define REMOVER sisci_node(3)
#define SEG_ID 4711
#define INTR_NO 41
#define DATA_INTR_NO 42
#define SEG_SIZE 65536
#define READY 0x5eadu
#define DONE 0xd0u
#define GO 0x60u
#define LIMIT_MS 20000

static char fabric[XRMA_NAME_MAX];

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ------------------------------------------------------------ start order */

/* The providers whose connects can wait for a name (the host fabric's directory). */
static bool provider_waits_for_names(void)
{
	struct xrma_provider_info info;

	return proc_provider_info(&info) && (!strcmp(info.name, "ntb") || !strcmp(info.name, "sci"));
}

/*
 * Child, started after the parent is already connecting: a segment, an
 * interrupt and a data interrupt with fixed numbers; reports READY once the
 * parent's trigger arrived, then waits for DONE.
 */
static int late_owner_main(int sock, const char *arg)
{
	unsigned int no = INTR_NO, data_no = DATA_INTR_NO;
	sci_local_data_interrupt_t data_intr;
	sci_local_interrupt_t intr;
	sci_local_segment_t seg;
	sci_desc_t sd;
	sci_error_t err;
	uint64_t v;

	(void)arg;
	SCIOpen(&sd, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCICreateInterrupt(sd, &intr, 0, &no, NULL, NULL, SCI_FLAG_FIXED_INTNO, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCICreateDataInterrupt(sd, &data_intr, 0, &data_no, NULL, NULL, SCI_FLAG_FIXED_INTNO, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCICreateSegment(sd, &seg, SEG_ID, SEG_SIZE, NULL, NULL, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIPrepareSegment(seg, 0, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIWaitForInterrupt(intr, LIMIT_MS, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	PROC_CHECK(proc_send(sock, READY) == 0);
	PROC_CHECK(proc_recv(sock, &v, LIMIT_MS) == 0);
	SCIRemoveDataInterrupt(data_intr, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIRemoveInterrupt(intr, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIRemoveSegment(seg, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIClose(sd, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	return 0;
}

struct connector {
	sci_desc_t sd;
	int kind;                      /* 0 segment, 1 interrupt, 2 data interrupt */
	unsigned int timeout;
	sci_remote_segment_t seg;
	sci_remote_interrupt_t intr;
	sci_remote_data_interrupt_t data_intr;
	sci_error_t err;
	pthread_mutex_t *lock;
	pthread_cond_t *cond;
	unsigned *started;
};

static void *connector_main(void *arg)
{
	struct connector *c = arg;

	pthread_mutex_lock(c->lock);
	(*c->started)++;
	pthread_cond_broadcast(c->cond);
	pthread_mutex_unlock(c->lock);
	if (c->kind == 0)
		SCIConnectSegment(c->sd, &c->seg, LATE, SEG_ID, 0, NULL, NULL, c->timeout, 0, &c->err);
	else if (c->kind == 1)
		SCIConnectInterrupt(c->sd, &c->intr, LATE, 0, INTR_NO, c->timeout, 0, &c->err);
	else
		SCIConnectDataInterrupt(c->sd, &c->data_intr, LATE, 0, DATA_INTR_NO, c->timeout, 0,
					&c->err);
	return NULL;
}

/* Before the node runs: it is a node of the cluster without the segment, at once or after the timeout. */
static void test_node_not_started_has_no_segment_yet(void **state)
{
	sci_remote_interrupt_t ri;
	sci_remote_segment_t r;
	sci_desc_t sd;
	sci_error_t err;
	uint64_t t0;

	(void)state;
	sd = sisci_test_open(ME);
	SCIConnectSegment(sd, &r, LATE, SEG_ID, 0, NULL, NULL, 0, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_SEGMENT);
	SCIConnectInterrupt(sd, &ri, LATE, 0, INTR_NO, 0, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_INTNO);
	if (provider_waits_for_names()) {
		/* Providers that can wait for names wait out a finite timeout. */
		t0 = now_ms();
		SCIConnectSegment(sd, &r, LATE, SEG_ID, 0, NULL, NULL, 300, 0, &err);
		assert_sci(err, SCI_ERR_NO_SUCH_SEGMENT);
		assert_true(now_ms() - t0 >= 250);
	}
	/* Ids outside the cluster are no nodes, whatever the timeout. */
	t0 = now_ms();
	SCIConnectSegment(sd, &r, 70000, SEG_ID, 0, NULL, NULL, SCI_INFINITE_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_NODEID);
	if (sisci_node(1) > 1) {
		/* A model with id steps (sci: multiples of 4): the ids between are no nodes. */
		SCIConnectSegment(sd, &r, ME + 1, SEG_ID, 0, NULL, NULL, SCI_INFINITE_TIMEOUT, 0, &err);
		assert_sci(err, SCI_ERR_NO_SUCH_NODEID);
		SCIConnectInterrupt(sd, &ri, ME + 1, 0, INTR_NO, SCI_INFINITE_TIMEOUT, 0, &err);
		assert_sci(err, SCI_ERR_NO_SUCH_NODEID);
	}
	assert_true(now_ms() - t0 < 5000);
	sisci_test_close(sd);
}

/*
 * Connects with SCI_INFINITE_TIMEOUT (segment, data interrupt) and a finite
 * one (interrupt) start before the owner's process exists; each returns once
 * the owner created its object, and the connections work.
 */
static void test_connect_waits_for_owner_started_later(void **state)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct connector c[3];
	pthread_t threads[3];
	unsigned started = 0;
	struct proc owner;
	sci_desc_t sd;
	sci_error_t err;
	char data[8] = "start";

	(void)state;
	if (!proc_provider_multiproc())
		skip();
	sd = sisci_test_open(ME);
	for (int i = 0; i < 3; i++) {
		c[i] = (struct connector){ .sd = sd, .kind = i, .lock = &lock, .cond = &cond,
					   .started = &started, .err = SCI_ERR_SYSTEM,
					   .timeout = i == 1 ? LIMIT_MS : SCI_INFINITE_TIMEOUT };
		assert_int_equal(pthread_create(&threads[i], NULL, connector_main, &c[i]), 0);
	}
	pthread_mutex_lock(&lock);
	while (started < 3)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	/* The owner's process starts only now: the connects are already under way. */
	watchdog_arm(60, "connect waits for owner started later", "connect");
	assert_int_equal(proc_spawn(&owner, NULL, LATE, "late_owner", NULL), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_join(threads[i], NULL), 0);
	watchdog_disarm();
	for (int i = 0; i < 3; i++)
		assert_sci(c[i].err, SCI_ERR_OK);
	SCITriggerDataInterrupt(c[2].data_intr, data, sizeof(data), 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCITriggerInterrupt(c[1].intr, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(proc_expect(owner.sock, READY, LIMIT_MS), 0);
	assert_int_equal(SCIGetRemoteSegmentSize(c[0].seg), SEG_SIZE);
	sisci_test_disconnect(c[0].seg);
	SCIDisconnectInterrupt(c[1].intr, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIDisconnectDataInterrupt(c[2].data_intr, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(proc_send(owner.sock, DONE), 0);
	assert_int_equal(proc_join(&owner, LIMIT_MS), 0);
	sisci_test_close(sd);
}

/* ------------------------------------------------------------ node file */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* The node file is the cluster: listed nodes not up have no segment yet, others are no nodes. */
static void test_node_file_is_the_cluster_and_names_hosts(void **state)
{
	char path[64], text[256];
	dis_nodeId_list_t ids;
	dis_virt_adapter_t type;
	sci_remote_segment_t r;
	sci_remote_interrupt_t ri;
	sci_desc_t sd;
	sci_error_t err;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/xrma-nodes-%ld", (long)getpid());
	snprintf(text, sizeof(text),
		 "# the cluster\n%u alpha.example.org\n%u beta   # short name\n%u [fd00::3]:7471\n",
		 ME, LATE, sisci_node(4));
	write_file(path, text);
	setenv("XRMA_NODES", path, 1);

	sd = sisci_test_open(ME);
	SCIConnectSegment(sd, &r, LATE, SEG_ID, 0, NULL, NULL, 0, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_SEGMENT);
	/* A legal id of the provider that the file does not list: no such node, at once. */
	SCIConnectSegment(sd, &r, sisci_node(5), SEG_ID, 0, NULL, NULL, SCI_INFINITE_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_NODEID);
	SCIConnectInterrupt(sd, &ri, sisci_node(5), 0, INTR_NO, SCI_INFINITE_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_NODEID);
	sisci_test_close(sd);

	SCIGetNodeIdByAdapterName("alpha", &ids, &type, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(ids[0], ME);
	SCIGetNodeIdByAdapterName("ALPHA.example.org", &ids, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(ids[0], ME);
	SCIGetNodeIdByAdapterName("beta", &ids, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(ids[0], LATE);
	assert_int_equal(ids[1], 0);
	SCIGetNodeIdByAdapterName("fd00::3", &ids, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(ids[0], sisci_node(4));
	SCIGetNodeIdByAdapterName("gamma", &ids, NULL, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_NODEID);
	/* Node ids still name themselves. */
	SCIGetNodeIdByAdapterName("node7", &ids, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(ids[0], 7);
	SCIGetNodeIdByAdapterName(NULL, &ids, NULL, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);

	/* This node missing from the file: the descriptor cannot be opened. */
	snprintf(text, sizeof(text), "%u beta\n", LATE);
	write_file(path, text);
	{
		char id[16];
		sci_desc_t bad = NULL;

		snprintf(id, sizeof(id), "%u", ME);
		setenv("XRMA_NODE_ID", id, 1);
		SCIOpen(&bad, 0, &err);
		assert_sci(err, SCI_ERR_NOT_INITIALIZED);
	}
	/* A malformed file: an error, for names and descriptors alike. */
	write_file(path, "1 alpha extra-word\n");
	SCIGetNodeIdByAdapterName("alpha", &ids, NULL, 0, &err);
	assert_sci(err, SCI_ERR_NOT_INITIALIZED);
	unlink(path);
	SCIGetNodeIdByAdapterName("alpha", &ids, NULL, 0, &err);
	assert_sci(err, SCI_ERR_NOT_INITIALIZED);
	unsetenv("XRMA_NODES");
	SCIGetNodeIdByAdapterName("alpha", &ids, NULL, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_NODEID);
}

/* ------------------------------------------------------------ remove */

/* Child: export a segment, wait for an importer, remove the segment on GO and report the result. */
static int remover_main(int sock, const char *arg)
{
	sci_segment_cb_reason_t reason;
	sci_local_segment_t seg;
	unsigned int node, adapter;
	sci_desc_t sd;
	sci_error_t err;
	uint64_t v;

	(void)arg;
	PROC_CHECK_EQ(sisci_child_owner(&sd, SEG_ID, SEG_SIZE, 0, &seg), SCI_ERR_OK);
	PROC_CHECK(proc_send(sock, READY) == 0);
	reason = SCIWaitForLocalSegmentEvent(seg, &node, &adapter, LIMIT_MS, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	PROC_CHECK_EQ(reason, SCI_CB_CONNECT);
	PROC_CHECK(proc_expect(sock, GO, LIMIT_MS) == 0);
	SCIRemoveSegment(seg, 0, &err);
	PROC_CHECK(proc_send(sock, err) == 0);
	if (err != SCI_ERR_OK)
		return 1;
	PROC_CHECK(proc_recv(sock, &v, LIMIT_MS) == 0);
	SCIClose(sd, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	return 0;
}

/*
 * The owner removes a segment this process is connected to (not mapped):
 * the remove succeeds, this process sees SCI_CB_DISCONNECT then SCI_CB_LOST,
 * and mapping or connecting again fails cleanly.
 */
static void test_remove_cuts_off_connected_importer(void **state)
{
	sci_segment_cb_reason_t reason;
	sci_remote_segment_t r, again;
	struct proc owner;
	sci_error_t err, status;
	sci_map_t map;
	uint64_t v;

	(void)state;
	if (!proc_provider_multiproc())
		skip();
	unsetenv("XRMA_SISCI_REMOVE_CONNECTED");   /* Dolphin's rule, the default */
	assert_int_equal(proc_spawn(&owner, NULL, REMOVER, "remover", NULL), 0);
	assert_int_equal(proc_expect(owner.sock, READY, LIMIT_MS), 0);
	sci_desc_t sd = sisci_test_open(ME);
	SCIConnectSegment(sd, &r, REMOVER, SEG_ID, 0, NULL, NULL, LIMIT_MS, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(proc_send(owner.sock, GO), 0);
	assert_int_equal(proc_recv(owner.sock, &v, LIMIT_MS), 0);
	assert_sci((sci_error_t)v, SCI_ERR_OK);
	reason = SCIWaitForRemoteSegmentEvent(r, &status, LIMIT_MS, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_DISCONNECT);
	reason = SCIWaitForRemoteSegmentEvent(r, &status, LIMIT_MS, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(reason, SCI_CB_LOST);
	(void)SCIMapRemoteSegment(r, &map, 0, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_NOT_CONNECTED);
	SCIConnectSegment(sd, &again, REMOVER, SEG_ID, 0, NULL, NULL, 0, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_SEGMENT);
	sisci_test_disconnect(r);
	assert_int_equal(proc_send(owner.sock, DONE), 0);
	assert_int_equal(proc_join(&owner, LIMIT_MS), 0);
	sisci_test_close(sd);
}

/* An importer that has the segment mapped: the remove succeeds, its sequence and checked copies fail. */
static void test_remove_under_mapped_importer_fails_its_accesses(void **state)
{
	sci_desc_t owner_sd, sd;
	sci_local_segment_t seg;
	sci_remote_segment_t r;
	sci_sequence_t seq;
	sci_map_t map;
	sci_error_t err, status;
	char buf[64] = { 0 };
	volatile uint32_t *p;

	(void)state;
	unsetenv("XRMA_SISCI_REMOVE_CONNECTED");
	owner_sd = sisci_test_open(REMOVER);
	seg = sisci_test_segment(owner_sd, SEG_ID + 1, SEG_SIZE);
	sd = sisci_test_open(ME);
	r = sisci_test_connect(sd, REMOVER, SEG_ID + 1);
	p = SCIMapRemoteSegment(r, &map, 0, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	p[0] = 7;
	SCICreateMapSequence(map, &seq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIStartSequence(seq, 0, &err), SCI_SEQ_OK);

	SCIRemoveSegment(seg, 0, &err);
	assert_sci(err, SCI_ERR_OK);

	assert_int_equal(SCIWaitForRemoteSegmentEvent(r, &status, LIMIT_MS, 0, &err), SCI_CB_DISCONNECT);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCIWaitForRemoteSegmentEvent(r, &status, LIMIT_MS, 0, &err), SCI_CB_LOST);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(SCICheckSequence(seq, 0, &err), SCI_SEQ_NOT_RETRIABLE);
	SCIMemCpy(seq, buf, map, 0, sizeof(buf), SCI_FLAG_ERROR_CHECK, &err);
	assert_sci(err, SCI_ERR_TRANSFER_FAILED);
	SCIRemoveSequence(seq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIUnmapSegment(map, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_disconnect(r);
	sisci_test_close(sd);
	sisci_test_close(owner_sd);
}

/* [sisci] remove_connected = busy: the 1999 rule; a value that is neither is refused. */
static void test_remove_busy_rule_by_configuration(void **state)
{
	sci_desc_t owner_sd, sd;
	sci_local_segment_t seg;
	sci_remote_segment_t r, r2;
	sci_error_t err, status;

	(void)state;
	owner_sd = sisci_test_open(REMOVER);
	seg = sisci_test_segment(owner_sd, SEG_ID + 2, SEG_SIZE);
	sd = sisci_test_open(ME);
	r = sisci_test_connect(sd, REMOVER, SEG_ID + 2);

	setenv("XRMA_SISCI_REMOVE_CONNECTED", "sometimes", 1);
	SCIRemoveSegment(seg, 0, &err);
	assert_sci(err, SCI_ERR_NOT_INITIALIZED);
	setenv("XRMA_SISCI_REMOVE_CONNECTED", "busy", 1);
	SCIRemoveSegment(seg, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	/* Nothing changed: the importer saw no event, and the segment still takes importers. */
	(void)SCIWaitForRemoteSegmentEvent(r, &status, 0, 0, &err);
	assert_sci(err, SCI_ERR_TIMEOUT);
	r2 = sisci_test_connect(sd, REMOVER, SEG_ID + 2);
	sisci_test_disconnect(r2);
	SCIRemoveSegment(seg, 0, &err);
	assert_sci(err, SCI_ERR_BUSY);
	sisci_test_disconnect(r);
	sisci_test_remove(seg);
	unsetenv("XRMA_SISCI_REMOVE_CONNECTED");
	sisci_test_close(sd);
	sisci_test_close(owner_sd);
}

/* ------------------------------------------------------------ fabric names */

/* Child on a fabric with a 255-character name: connect to the parent's segment, store a word. */
static int long_fabric_peer_main(int sock, const char *arg)
{
	sci_remote_segment_t r;
	sci_map_t map;
	volatile uint32_t *p;
	sci_desc_t sd;
	sci_error_t err;

	(void)arg;
	SCIOpen(&sd, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIConnectSegment(sd, &r, ME, SEG_ID + 3, 0, NULL, NULL, LIMIT_MS, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	p = SCIMapRemoteSegment(r, &map, 0, 4096, NULL, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	p[0] = 0xfab;
	SCIUnmapSegment(map, 0, &err);
	SCIDisconnectSegment(r, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIClose(sd, 0, &err);
	PROC_CHECK(proc_send(sock, READY) == 0);
	return 0;
}

/* A name of len characters: the program's fabric, padded with last. */
static void long_name(char *buf, size_t len, char last)
{
	size_t base = strlen(fabric);

	memcpy(buf, fabric, base);
	memset(buf + base, 'x', len - base);
	buf[len - 1] = last;
	buf[len] = '\0';
}

static void test_fabric_name_limit(void **state)
{
	char name[XRMA_FABRIC_MAX + 2], other[XRMA_FABRIC_MAX + 2];
	struct xrma_ctx_attr attr = { .node_id = XRMA_NODE_ANY };
	struct xrma_ctx *ctx = NULL;
	sci_local_segment_t seg;
	sci_remote_segment_t r;
	sci_desc_t sd, sd2;
	sci_map_t map;
	sci_error_t err;
	volatile uint32_t *p;

	(void)state;
	/* At the limit: descriptors open and nodes meet, within and across processes. */
	long_name(name, XRMA_FABRIC_MAX, 'a');
	long_name(other, XRMA_FABRIC_MAX, 'b');
	setenv("XRMA_FABRIC", name, 1);
	sd = sisci_test_open(ME);
	seg = sisci_test_segment(sd, SEG_ID + 3, SEG_SIZE);
	p = SCIMapLocalSegment(seg, &map, 0, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	if (proc_provider_multiproc()) {
		struct proc peer;

		assert_int_equal(proc_spawn(&peer, name, LATE, "long_fabric_peer", NULL), 0);
		assert_int_equal(proc_expect(peer.sock, READY, LIMIT_MS), 0);
		assert_int_equal(proc_join(&peer, LIMIT_MS), 0);
		assert_int_equal(p[0], 0xfab);
	}
	/* A fabric differing only in its last character is another fabric. */
	setenv("XRMA_FABRIC", other, 1);
	sd2 = sisci_test_open(LATE);
	SCIConnectSegment(sd2, &r, ME, SEG_ID + 3, 0, NULL, NULL, 0, 0, &err);
	assert_sci(err, SCI_ERR_NO_SUCH_SEGMENT);
	sisci_test_close(sd2);
	SCIUnmapSegment(map, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_remove(seg);
	sisci_test_close(sd);

	/* One over: refused, and the reason names the limit. */
	long_name(name, XRMA_FABRIC_MAX + 1, 'a');
	setenv("XRMA_FABRIC", name, 1);
	SCIOpen(&sd, 0, &err);
	assert_sci(err, SCI_ERR_NOT_INITIALIZED);
	assert_non_null(strstr(xrma_error_detail(), "255"));
	attr.fabric = name;
	assert_int_equal(xrma_ctx_open(&attr, &ctx), -XRMA_EINVAL);
	assert_null(ctx);
	assert_non_null(strstr(xrma_error_detail(), "255"));
	setenv("XRMA_FABRIC", fabric, 1);
}

static const struct proc_role roles[] = {
	{ "late_owner", late_owner_main },
	{ "remover", remover_main },
	{ "long_fabric_peer", long_fabric_peer_main },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_node_not_started_has_no_segment_yet, proc_teardown),
		cmocka_unit_test_teardown(test_connect_waits_for_owner_started_later, proc_teardown),
		cmocka_unit_test_teardown(test_node_file_is_the_cluster_and_names_hosts, proc_teardown),
		cmocka_unit_test_teardown(test_remove_cuts_off_connected_importer, proc_teardown),
		cmocka_unit_test_teardown(test_remove_under_mapped_importer_fails_its_accesses,
					  proc_teardown),
		cmocka_unit_test_teardown(test_remove_busy_rule_by_configuration, proc_teardown),
		cmocka_unit_test_teardown(test_fabric_name_limit, proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	fixture_fabric_name(fabric, sizeof(fabric), "sisci-beh");
	setenv("XRMA_FABRIC", fabric, 1);
	return cmocka_run_group_tests_name("sisci_behaviour", tests, NULL, NULL);
}
