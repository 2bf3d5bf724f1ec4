/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/scif/scif_pingpong.c: SCIF message latency. The host sends a
 * message with scif_send(SCIF_SEND_BLOCK), the card echoes it, the host
 * receives it with scif_recv(SCIF_RECV_BLOCK); one-way latency is half the
 * round trip. The baseline is the same ping-pong between the same two
 * processes over a Unix socket pair, measured in the same run.
 * Run without arguments; the card is started by the program itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include "scif_bench.h"

struct pp {
	struct scif_bench *b;
	char *buf;
	size_t len;
};

static void scif_round(void *arg, int iterations)
{
	struct pp *p = arg;

	for (int i = 0; i < iterations; i++) {
		if (scif_send(p->b->epd, p->buf, (int)p->len, SCIF_SEND_BLOCK) != (int)p->len ||
		    scif_recv(p->b->epd, p->buf, (int)p->len, SCIF_RECV_BLOCK) != (int)p->len)
			scif_bench_die("scif ping-pong");
	}
}

static void raw_round(void *arg, int iterations)
{
	struct pp *p = arg;
	int sock = scif_bench_link(p->b);

	for (int i = 0; i < iterations; i++) {
		if (send(sock, p->buf, p->len, MSG_NOSIGNAL) != (ssize_t)p->len ||
		    recv(sock, p->buf, p->len, MSG_WAITALL) != (ssize_t)p->len)
			scif_bench_die("socket ping-pong");
	}
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .iterations = 2000, .repetitions = 5, .max_size = 64 * 1024 };
	struct scif_bench b;
	struct pp p = { .b = &b };

	scif_bench_card_dispatch(argc, argv, "scif_pingpong");
	bench_parse(argc, argv, &opts, "  one-way SCIF message latency against a socket pair\n");
	opts.max_size = scif_bench_round(opts.max_size);
	/* The card's echo buffer is as large as its window. */
	scif_bench_start(argv, opts.max_size, &b);
	p.buf = scif_bench_pages(opts.max_size);
	bench_header(&opts, "scif_pingpong", scif_bench_setup(&b), "scif_us", "socket_us");
	for (size_t len = 8; len <= opts.max_size; len *= 4) {
		int warm = opts.iterations < 10 ? opts.iterations : 10;
		int total = warm + opts.iterations * opts.repetitions;
		double med, min, bmed, bmin;

		p.len = len;
		scif_bench_card_echo(&b, len, total);
		scif_bench_measure(scif_round, &p, opts.iterations, opts.repetitions, &med, &min);
		scif_bench_card_raw_echo(&b, len, total);
		scif_bench_measure(raw_round, &p, opts.iterations, opts.repetitions, &bmed, &bmin);
		bench_row(&opts, len, opts.iterations, med / 2, min / 2, bmed / 2, bmin / 2);
	}
	scif_bench_stop(&b);
	scif_bench_free(p.buf);
	return 0;
}
