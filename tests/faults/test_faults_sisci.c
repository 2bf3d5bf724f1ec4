/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/test_faults_sisci.c: SISCI peers killed at the named points of libsisci.
 * An importer killed while connecting, mapped, checking a sequence, after posting or
 * before waiting for a DMA queue, after triggering an interrupt or while disconnecting
 * leaves the owner (the survivor) with SCI_CB_LOST on its segment, every interrupt sent
 * before the death delivered, and a segment a fresh importer uses again and that can be
 * removed (nobody left counted). An owner killed in its interrupt callback leaves the
 * importer (the survivor) with SCI_CB_LOST, failing triggers, a NOT_RETRIABLE sequence
 * and a DMA queue in ERROR, all of which it closes before it imports from a fresh owner
 * (docs/sisci.md, docs/reliability.md).
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#define SISCI_STRICT_CALLBACKS 1
#include <sisci_api.h>
#include "tests/faults/faults.h"
#include "tests/helpers/fixture.h"

#define SURVIVOR_NODE 1
#define VICTIM_NODE 2
#define SEG_ID 4711
#define SEG_SIZE (64u * 1024)
#define HALF (SEG_SIZE / 2)
#define WAIT_MS 10000u
#define MAP_SEED 0x17
#define DMA_SEED 0x29
#define IMPORTER_STEPS 7

enum scenario {
	SC_IMPORTER,  /* the victim imports the survivor's segment and walks seven steps */
	SC_OWNER,     /* the victim owns a segment and an interrupt with a callback */
};

static const struct faults_case cases[] = {
	{ "sisci.connect.after_import", SC_IMPORTER, 1 },
	{ "sisci.map.after_map", SC_IMPORTER, 2 },
	{ "sisci.sequence.after_check", SC_IMPORTER, 3 },
	{ "sisci.dma.after_post", SC_IMPORTER, 4 },
	{ "sisci.dma.before_wait", SC_IMPORTER, 5 },
	{ "sisci.interrupt.after_trigger", SC_IMPORTER, 6 },
	{ "sisci.disconnect.before_leave", SC_IMPORTER, 7 },
	{ "sisci.interrupt.callback", SC_OWNER, 2 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

#define CHECK_OK(err) PROC_CHECK((err) == SCI_ERR_OK)

/* ------------------------------------------------------------------ victims */

/* arg "point|interrupt number": import node 1's segment and walk the steps. */
static int importer_main(int sock, const char *arg)
{
	unsigned int intno = (unsigned int)atoi(faults_child_arm(arg));
	sci_desc_t sd;
	sci_remote_segment_t r;
	sci_local_segment_t local;
	sci_remote_interrupt_t ri;
	sci_dma_queue_t dq;
	sci_sequence_t seq;
	sci_map_t map, lmap;
	volatile uint8_t *p;
	void *lp;
	sci_error_t err;

	SCIOpen(&sd, 0, &err);
	CHECK_OK(err);
	SCIConnectSegment(sd, &r, SURVIVOR_NODE, SEG_ID, 0, NULL, NULL, WAIT_MS, 0, &err);
	CHECK_OK(err);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	p = SCIMapRemoteSegment(r, &map, 0, SEG_SIZE, NULL, 0, &err);
	CHECK_OK(err);
	fixture_pattern((void *)p, HALF, MAP_SEED, 0);
	PROC_CHECK(faults_step_done(sock, 2) == 0);
	SCICreateMapSequence(map, &seq, 0, &err);
	CHECK_OK(err);
	PROC_CHECK(SCIStartSequence(seq, 0, &err) == SCI_SEQ_OK);
	PROC_CHECK(SCICheckSequence(seq, 0, &err) == SCI_SEQ_OK);
	PROC_CHECK(faults_step_done(sock, 3) == 0);
	SCICreateSegment(sd, &local, 0, HALF, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	CHECK_OK(err);
	SCIPrepareSegment(local, 0, 0, &err);
	lp = SCIMapLocalSegment(local, &lmap, 0, HALF, NULL, 0, &err);
	CHECK_OK(err);
	fixture_pattern(lp, HALF, DMA_SEED, 0);
	SCICreateDMAQueue(sd, &dq, 0, 4, 0, &err);
	SCIEnqueueDMATransfer(dq, local, r, 0, HALF, HALF, 0, &err);
	CHECK_OK(err);
	SCIPostDMAQueue(dq, NULL, NULL, 0, &err);
	CHECK_OK(err);
	PROC_CHECK(faults_step_done(sock, 4) == 0);
	PROC_CHECK(SCIWaitForDMAQueue(dq, WAIT_MS, 0, &err) == SCI_DMAQUEUE_DONE);
	CHECK_OK(err);
	PROC_CHECK(faults_step_done(sock, 5) == 0);
	SCIConnectInterrupt(sd, &ri, SURVIVOR_NODE, 0, intno, WAIT_MS, 0, &err);
	CHECK_OK(err);
	SCITriggerInterrupt(ri, 0, &err);
	CHECK_OK(err);
	PROC_CHECK(faults_step_done(sock, 6) == 0);
	SCIDisconnectInterrupt(ri, 0, &err);
	SCIRemoveSequence(seq, 0, &err);
	SCIUnmapSegment(map, 0, &err);
	SCIRemoveDMAQueue(dq, 0, &err);
	SCIUnmapSegment(lmap, 0, &err);
	SCIRemoveSegment(local, 0, &err);
	CHECK_OK(err);
	SCIDisconnectSegment(r, 0, &err);
	CHECK_OK(err);
	PROC_CHECK(faults_step_done(sock, 7) == 0);
	SCIClose(sd, 0, &err);
	CHECK_OK(err);
	return 0;
}

static int owner_sock = -1;

static sci_callback_action_t owner_on_interrupt(void *arg, sci_local_interrupt_t intr, sci_error_t status)
{
	(void)arg;
	(void)intr;
	if (status == SCI_ERR_OK)
		(void)faults_step_done(owner_sock, 2);
	return SCI_CALLBACK_CONTINUE;
}

/* arg "point|": export a segment and an interrupt with a callback; step 2 is the callback. */
static int owner_main(int sock, const char *arg)
{
	sci_desc_t sd;
	sci_local_segment_t seg;
	sci_local_interrupt_t intr;
	unsigned int no = 0;
	uint64_t v;
	sci_error_t err;

	faults_child_arm(arg);
	owner_sock = sock;
	SCIOpen(&sd, 0, &err);
	CHECK_OK(err);
	SCICreateSegment(sd, &seg, SEG_ID, SEG_SIZE, NULL, NULL, 0, &err);
	CHECK_OK(err);
	SCIPrepareSegment(seg, 0, 0, &err);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	CHECK_OK(err);
	SCICreateInterrupt(sd, &intr, 0, &no, owner_on_interrupt, NULL, SCI_FLAG_USE_CALLBACK, &err);
	CHECK_OK(err);
	PROC_CHECK(faults_step_done(sock, 1) == 0);
	PROC_CHECK(proc_send(sock, no) == 0);
	/* Until the survivor is done with us. */
	PROC_CHECK(proc_recv(sock, &v, 2 * FAULTS_WAIT_MS) == 0);
	SCIRemoveInterrupt(intr, 0, &err);
	CHECK_OK(err);
	SCISetSegmentUnavailable(seg, 0, SCI_FLAG_FORCE_DISCONNECT, &err);
	SCIRemoveSegment(seg, 0, &err);
	CHECK_OK(err);
	SCIClose(sd, 0, &err);
	CHECK_OK(err);
	return 0;
}

/* ------------------------------------------------------------------ survivor: owner */

struct owned {
	sci_desc_t sd;
	sci_local_segment_t seg;
	sci_local_interrupt_t intr;
	unsigned int intno;
	sci_map_t map;
	uint8_t *mem;
};

/* Follow an importer: 0..IMPORTER_STEPS, the last step it acknowledged. */
static unsigned owner_follow(struct owned *o, int sock)
{
	sci_error_t err;

	for (unsigned step = 1; step <= IMPORTER_STEPS; step++) {
		/* Step 6 triggers our interrupt; a trigger sent before a death still arrives. */
		if (step == 6) {
			SCIWaitForInterrupt(o->intr, WAIT_MS, 0, &err);
			if (err != SCI_ERR_OK)
				return 0;
		}
		if (faults_step_wait(sock, step))
			return step - 1;
	}
	return IMPORTER_STEPS;
}

/* Wait for the segment's events until reason (bounded): 0 or -1. */
static int owner_wait_reason(struct owned *o, sci_segment_cb_reason_t want)
{
	uint64_t end = fixture_now_ms() + FAULTS_WAIT_MS;
	unsigned int node, adapter;
	sci_error_t err;

	while (fixture_now_ms() < end) {
		sci_segment_cb_reason_t got = SCIWaitForLocalSegmentEvent(o->seg, &node, &adapter, 100, 0, &err);

		if (err == SCI_ERR_OK && got == want)
			return 0;
	}
	return -1;
}

static int survivor_owner(const struct faults_case *c, const char *fabric)
{
	struct owned o = { 0 };
	char intno[16];
	struct proc victim;
	size_t fds, maps;
	sci_error_t err;

	SCIOpen(&o.sd, 0, &err);
	CHECK_OK(err);
	SCICreateSegment(o.sd, &o.seg, SEG_ID, SEG_SIZE, NULL, NULL, 0, &err);
	CHECK_OK(err);
	SCIPrepareSegment(o.seg, 0, 0, &err);
	SCISetSegmentAvailable(o.seg, 0, 0, &err);
	CHECK_OK(err);
	o.mem = SCIMapLocalSegment(o.seg, &o.map, 0, SEG_SIZE, NULL, 0, &err);
	CHECK_OK(err);
	SCICreateInterrupt(o.sd, &o.intr, 0, &o.intno, NULL, NULL, 0, &err);
	CHECK_OK(err);
	snprintf(intno, sizeof(intno), "%u", o.intno);
	fds = faults_fd_count();
	maps = faults_map_count();

	PROC_CHECK(faults_spawn(&victim, fabric, VICTIM_NODE, "importer", c->point, intno) == 0);
	PROC_CHECK(owner_follow(&o, victim.sock) == c->step - 1);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == FAULTS_KILLED);
	/* Died without a goodbye: lost, not disconnected. */
	PROC_CHECK(owner_wait_reason(&o, SCI_CB_LOST) == 0);

	/* A fresh importer on the same node id does everything. */
	memset(o.mem, 0, SEG_SIZE);
	PROC_CHECK(faults_spawn(&victim, fabric, VICTIM_NODE, "importer", NULL, intno) == 0);
	PROC_CHECK(owner_follow(&o, victim.sock) == IMPORTER_STEPS);
	PROC_CHECK(proc_join(&victim, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(fixture_pattern_check(o.mem, HALF, MAP_SEED, 0) == FIXTURE_MATCH);
	PROC_CHECK(fixture_pattern_check(o.mem + HALF, HALF, DMA_SEED, 0) == FIXTURE_MATCH);
	PROC_CHECK(faults_counts_back(fds, maps) == 0);

	/* Nobody is counted any more: everything can go. */
	SCIRemoveInterrupt(o.intr, 0, &err);
	CHECK_OK(err);
	SCIUnmapSegment(o.map, 0, &err);
	CHECK_OK(err);
	SCIRemoveSegment(o.seg, 0, &err);
	CHECK_OK(err);
	SCIClose(o.sd, 0, &err);
	CHECK_OK(err);
	return 0;
}

/* ------------------------------------------------------------------ survivor: importer */

struct imported {
	sci_remote_segment_t r;
	sci_remote_interrupt_t ri;
	sci_map_t map;
	sci_sequence_t seq;
	volatile uint8_t *p;
};

static int import_from(sci_desc_t sd, struct proc *owner, struct imported *im)
{
	uint64_t no;
	sci_error_t err;

	PROC_CHECK(faults_step_wait(owner->sock, 1) == 0);
	PROC_CHECK(proc_recv(owner->sock, &no, FAULTS_WAIT_MS) == 0);
	SCIConnectSegment(sd, &im->r, VICTIM_NODE, SEG_ID, 0, NULL, NULL, WAIT_MS, 0, &err);
	CHECK_OK(err);
	im->p = SCIMapRemoteSegment(im->r, &im->map, 0, SEG_SIZE, NULL, 0, &err);
	CHECK_OK(err);
	SCICreateMapSequence(im->map, &im->seq, 0, &err);
	CHECK_OK(err);
	PROC_CHECK(SCIStartSequence(im->seq, 0, &err) == SCI_SEQ_OK);
	SCIConnectInterrupt(sd, &im->ri, VICTIM_NODE, 0, (unsigned int)no, WAIT_MS, 0, &err);
	CHECK_OK(err);
	return 0;
}

static int import_close(struct imported *im)
{
	sci_error_t err;

	SCIDisconnectInterrupt(im->ri, 0, &err);
	CHECK_OK(err);
	SCIRemoveSequence(im->seq, 0, &err);
	CHECK_OK(err);
	SCIUnmapSegment(im->map, 0, &err);
	CHECK_OK(err);
	SCIDisconnectSegment(im->r, 0, &err);
	CHECK_OK(err);
	return 0;
}

static int survivor_importer(const struct faults_case *c, const char *fabric)
{
	struct imported im;
	struct proc owner;
	sci_desc_t sd;
	sci_local_segment_t local;
	sci_dma_queue_t dq;
	sci_error_t err, status;
	size_t fds, maps;

	SCIOpen(&sd, 0, &err);
	CHECK_OK(err);
	SCICreateSegment(sd, &local, 0, HALF, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	CHECK_OK(err);
	SCIPrepareSegment(local, 0, 0, &err);
	fds = faults_fd_count();
	maps = faults_map_count();

	PROC_CHECK(faults_spawn(&owner, fabric, VICTIM_NODE, "owner", c->point, NULL) == 0);
	PROC_CHECK(import_from(sd, &owner, &im) == 0);
	im.p[0] = 1;
	SCITriggerInterrupt(im.ri, 0, &err);
	CHECK_OK(err);
	/* The owner dies in its callback: no acknowledgement of step 2. */
	PROC_CHECK(faults_step_wait(owner.sock, c->step) == EPIPE);
	PROC_CHECK(proc_join(&owner, FAULTS_WAIT_MS) == FAULTS_KILLED);
	PROC_CHECK(SCIWaitForRemoteSegmentEvent(im.r, &status, WAIT_MS, 0, &err) == SCI_CB_LOST);
	CHECK_OK(err);
	SCITriggerInterrupt(im.ri, 0, &err);
	PROC_CHECK(err == SCI_ERR_NOT_CONNECTED);
	PROC_CHECK(SCICheckSequence(im.seq, 0, &err) == SCI_SEQ_NOT_RETRIABLE);
	PROC_CHECK(err == SCI_ERR_NOT_CONNECTED);
	SCICreateDMAQueue(sd, &dq, 0, 4, 0, &err);
	CHECK_OK(err);
	SCIStartDmaTransfer(dq, local, im.r, 0, HALF, 0, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	PROC_CHECK(err != SCI_ERR_OK);
	SCIRemoveDMAQueue(dq, 0, &err);
	CHECK_OK(err);
	PROC_CHECK(import_close(&im) == 0);

	/* A fresh owner on the same node id. */
	PROC_CHECK(faults_spawn(&owner, fabric, VICTIM_NODE, "owner", NULL, NULL) == 0);
	PROC_CHECK(import_from(sd, &owner, &im) == 0);
	SCITriggerInterrupt(im.ri, 0, &err);
	CHECK_OK(err);
	PROC_CHECK(faults_step_wait(owner.sock, 2) == 0);
	PROC_CHECK(import_close(&im) == 0);
	PROC_CHECK(proc_send(owner.sock, 1) == 0);
	PROC_CHECK(proc_join(&owner, FAULTS_WAIT_MS) == 0);
	PROC_CHECK(faults_counts_back(fds, maps) == 0);
	SCIRemoveSegment(local, 0, &err);
	CHECK_OK(err);
	SCIClose(sd, 0, &err);
	CHECK_OK(err);
	return 0;
}

static int survivor_main(int sock, const char *arg)
{
	const struct faults_case *c = faults_case_of(arg, cases, NCASES);
	const char *fabric = getenv("XRMA_FABRIC");

	(void)sock;
	PROC_CHECK(c != NULL);
	if (c->scenario == SC_IMPORTER)
		return survivor_owner(c, fabric);
	return survivor_importer(c, fabric);
}

static const struct proc_role roles[] = {
	{ "survivor", survivor_main },
	{ "importer", importer_main },
	{ "owner", owner_main },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return faults_main(argc, argv, roles, true,
			   "faults_sisci", "fsisci", cases, NCASES, SURVIVOR_NODE);
}
