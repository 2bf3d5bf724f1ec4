/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/sisci/sisci_intr_bench.c: interrupt latency through SISCI, like
 * Dolphin's intr_bench: a ping-pong of SCITriggerInterrupt /
 * SCIWaitForInterrupt between client and server, then of data interrupts
 * (SCITriggerDataInterrupt / SCIWaitForDataInterrupt) carrying 4 B to 1 KiB.
 * The raw baseline is the operating system's blocking wake-up between the
 * same two processes: a futex ping-pong on a shared page.
 *   sisci_intr_bench | sisci_intr_bench -server -rn 1 | sisci_intr_bench -client -rn 2
 */
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sisci_bench.h"

enum { CMD_FUTEX = 1, CMD_INTR, CMD_DATA, CMD_QUIT, CMD_CREATE, CMD_CONNECT };

#define SEGMENT_ID 0x1a7b
#define CLIENT_INTNO 0x1a70
#define SERVER_INTNO 0x1a71
#define DATA_MAX 1024u

struct lines {
	sci_local_interrupt_t in;
	sci_remote_interrupt_t out;
	sci_local_data_interrupt_t din;
	sci_remote_data_interrupt_t dout;
};

static void lines_create(struct sb_node *n, struct lines *l, bool server)
{
	unsigned int mine = server ? SERVER_INTNO : CLIENT_INTNO, dmine = mine + 2;
	sci_error_t err;

	SCICreateInterrupt(n->sd, &l->in, 0, &mine, NULL, NULL, SCI_FLAG_FIXED_INTNO, &err);
	sb_check(err, "SCICreateInterrupt");
	SCICreateDataInterrupt(n->sd, &l->din, 0, &dmine, NULL, NULL, SCI_FLAG_FIXED_INTNO, &err);
	sb_check(err, "SCICreateDataInterrupt");
}

static void lines_connect(struct sb_node *n, struct lines *l, bool server)
{
	unsigned int theirs = server ? CLIENT_INTNO : SERVER_INTNO;
	sci_error_t err;

	SCIConnectInterrupt(n->sd, &l->out, n->peer, 0, theirs, 5000, 0, &err);
	sb_check(err, "SCIConnectInterrupt");
	SCIConnectDataInterrupt(n->sd, &l->dout, n->peer, 0, theirs + 2, 5000, 0, &err);
	sb_check(err, "SCIConnectDataInterrupt");
}

static void lines_close(struct lines *l)
{
	sci_error_t err;

	SCIDisconnectInterrupt(l->out, 0, &err);
	SCIDisconnectDataInterrupt(l->dout, 0, &err);
	SCIRemoveInterrupt(l->in, 0, &err);
	SCIRemoveDataInterrupt(l->din, 0, &err);
	sb_check(err, "SCIRemoveDataInterrupt");
}

static void futex_op(volatile _Atomic uint32_t *word, int op, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)word, op, val, NULL, NULL, 0);
}

/* One side of the futex ping-pong: mine is my word, theirs the peer's. */
static double futex_pingpong(volatile _Atomic uint32_t *mine, volatile _Atomic uint32_t *theirs, int iters,
			     bool initiator)
{
	uint64_t t0 = bench_now_ns();
	uint32_t seen;

	for (uint32_t i = 1; i <= (uint32_t)iters; i++) {
		if (initiator) {
			atomic_store(theirs, i);
			futex_op(theirs, FUTEX_WAKE, 1);
		}
		/* Sleep only on the value just seen, or a wake between load and wait is lost. */
		while ((seen = atomic_load(mine)) != i)
			futex_op(mine, FUTEX_WAIT, seen);
		if (!initiator) {
			atomic_store(theirs, i);
			futex_op(theirs, FUTEX_WAKE, 1);
		}
	}
	return (double)(bench_now_ns() - t0) / iters / 2;
}

static double intr_pingpong(struct lines *l, int iters, bool initiator, size_t size)
{
	static uint8_t buf[DATA_MAX];
	uint64_t t0 = bench_now_ns();
	sci_error_t err;

	for (int i = 0; i < iters; i++) {
		unsigned int len = sizeof(buf);

		if (initiator) {
			if (size)
				SCITriggerDataInterrupt(l->dout, buf, (unsigned int)size, 0, &err);
			else
				SCITriggerInterrupt(l->out, 0, &err);
			sb_check(err, "trigger");
		}
		if (size)
			SCIWaitForDataInterrupt(l->din, buf, &len, 10000, 0, &err);
		else
			SCIWaitForInterrupt(l->in, 10000, 0, &err);
		sb_check(err, "wait");
		if (!initiator) {
			if (size)
				SCITriggerDataInterrupt(l->dout, buf, (unsigned int)size, 0, &err);
			else
				SCITriggerInterrupt(l->out, 0, &err);
			sb_check(err, "trigger");
		}
	}
	return (double)(bench_now_ns() - t0) / iters / 2;
}

static volatile _Atomic uint32_t *futex_word(volatile uint8_t *half)
{
	return (volatile _Atomic uint32_t *)(void *)(half + SB_CTRL_BYTES);
}

static void server(struct sb_node *n, struct lines *l)
{
	uint64_t cmd, a0, a1;

	while ((cmd = sb_next_command(n, &a0, &a1)) != CMD_QUIT) {
		if (cmd == CMD_FUTEX) {
			atomic_store(futex_word(n->raw_mine), 0);
			sb_ack(n);
			futex_pingpong(futex_word(n->raw_mine), futex_word(n->raw_peer), (int)a1, false);
		} else {
			sb_ack(n);
			intr_pingpong(l, (int)a1, false, cmd == CMD_DATA ? a0 : 0);
		}
	}
	sb_ack(n);
}

static void client(struct sb_node *n, struct lines *l, const struct sb_opts *o)
{
	const struct bench_opts *b = &o->bench;
	double ours[64], base[64];
	int reps = b->repetitions > 64 ? 64 : b->repetitions, iters = b->iterations;

	bench_header(b, "interrupt", "one-way latency; size 0: SCITriggerInterrupt, else data interrupt",
		     "sisci_ns", "futex_ns");
	for (size_t size = 0; size <= DATA_MAX; size = size ? size * 4 : 4) {
		for (int r = 0; r < reps; r++) {
			atomic_store(futex_word(n->raw_mine), 0);
			sb_command(n, CMD_FUTEX, 0, (uint64_t)iters);
			base[r] = futex_pingpong(futex_word(n->raw_mine), futex_word(n->raw_peer), iters, true);
			sb_command(n, size ? CMD_DATA : CMD_INTR, size, (uint64_t)iters);
			ours[r] = intr_pingpong(l, iters, true, size);
		}
		bench_row_samples(b, size, iters, ours, base, reps);
	}
	sb_command(n, CMD_QUIT, 0, 0);
}

int main(int argc, char **argv)
{
	struct sb_opts o = { .bench = { .iterations = 2000, .repetitions = 3, .max_size = 4096 },
			     .segment_id = SEGMENT_ID };
	struct sb_node n = { 0 };
	struct lines l;
	uint64_t a0, a1;

	sb_parse(argc, argv, &o, "Interrupt and data-interrupt latency.\n");
	bench_pin_thread(o.server ? 1 : 0);
	sb_node_open(&n, &o);
	/* Each side creates its interrupts before the other connects to them. */
	if (o.server) {
		(void)sb_next_command(&n, &a0, &a1);      /* CMD_CREATE */
		lines_create(&n, &l, true);
		sb_ack(&n);
		(void)sb_next_command(&n, &a0, &a1);      /* CMD_CONNECT */
		lines_connect(&n, &l, true);
		sb_ack(&n);
		server(&n, &l);
	} else {
		if (!o.bench.csv)
			printf("# sisci_intr_bench node %u <-> node %u\n", n.self, n.peer);
		lines_create(&n, &l, false);
		sb_command(&n, CMD_CREATE, 0, 0);
		lines_connect(&n, &l, false);
		sb_command(&n, CMD_CONNECT, 0, 0);
		client(&n, &l, &o);
	}
	lines_close(&l);
	sb_node_close(&n);
	return sb_finish(&o);
}
