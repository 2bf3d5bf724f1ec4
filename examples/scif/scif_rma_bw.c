/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/scif/scif_rma_bw.c: SCIF RMA time per transfer, by size, for
 * scif_writeto, scif_readfrom, scif_vwriteto and scif_vreadfrom, each with
 * SCIF_RMA_SYNC on the DMA path, on the CPU path (SCIF_RMA_USECPU), ordered
 * (SCIF_RMA_ORDERED), keeping registrations (SCIF_RMA_USECACHE, which matters
 * to the v-calls), and asynchronously (a batch, then one fence). The
 * baseline is memcpy of the same size between two local buffers in the same
 * run; ratio = SCIF time / memcpy time (1.11 is 0.9x memcpy bandwidth).
 * On the ofi provider (XRMA_PROVIDER=ofi; a node file for nodes 0 and 1 on
 * 127.0.0.1 is made unless XRMA_OFI_NODES names one) the baseline is raw
 * libfabric instead (examples/common/bench_fabric.h): fi_writemsg (delivery complete)
 * or fi_readmsg of the same size to a raw target process, one at a time for
 * the synchronous modes, 64 in flight for async+fence: the depth at which
 * xrma's poster starts reading completions itself (core/engine.c), so both
 * read them in batches of the same size.
 * Data is checked once per table, outside the timed loops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scif_bench.h"
#include "../common/bench_fabric.h"

#define HOST_WIN 0
#define RAW_ASYNC_WINDOW 64   /* the raw baseline's writes in flight for async+fence (see above) */

enum op { OP_WRITETO, OP_READFROM, OP_VWRITETO, OP_VREADFROM };

static const char *const op_names[] = { "scif_writeto", "scif_readfrom", "scif_vwriteto", "scif_vreadfrom" };

struct mode {
	const char *name;
	int flags;
	bool async;
};

static const struct mode modes[] = {
	{ "sync", SCIF_RMA_SYNC, false },
	{ "sync,usecpu", SCIF_RMA_SYNC | SCIF_RMA_USECPU, false },
	{ "sync,ordered", SCIF_RMA_SYNC | SCIF_RMA_ORDERED, false },
	{ "sync,usecache", SCIF_RMA_SYNC | SCIF_RMA_USECACHE, false },
	{ "async+fence", 0, true },
};

struct rma {
	scif_epd_t epd;
	enum op op;
	int flags;
	bool async;
	size_t len;
	char *local;        /* the host's registered window at HOST_WIN */
	char *plain;        /* unregistered memory for the v-calls */
	char *copy;         /* memcpy baseline destination */
	struct bench_fabric_link *raw;   /* on ofi: the raw libfabric baseline */
};

static int rma_one(struct rma *r)
{
	switch (r->op) {
	case OP_WRITETO:
		return scif_writeto(r->epd, HOST_WIN, r->len, 0, r->flags);
	case OP_READFROM:
		return scif_readfrom(r->epd, HOST_WIN, r->len, 0, r->flags);
	case OP_VWRITETO:
		return scif_vwriteto(r->epd, r->plain, r->len, 0, r->flags);
	case OP_VREADFROM:
		return scif_vreadfrom(r->epd, r->plain, r->len, 0, r->flags);
	}
	return -1;
}

static void rma_round(void *arg, int iterations)
{
	struct rma *r = arg;
	int mark;

	for (int i = 0; i < iterations; i++)
		if (rma_one(r))
			scif_bench_die(op_names[r->op]);
	if (r->async && (scif_fence_mark(r->epd, SCIF_FENCE_INIT_SELF, &mark) ||
			 scif_fence_wait(r->epd, mark)))
		scif_bench_die("fence");
}

static void memcpy_round(void *arg, int iterations)
{
	struct rma *r = arg;

	for (int i = 0; i < iterations; i++) {
		memcpy(r->copy, r->local, r->len);
		/* Keep the copy from being optimised away or merged across iterations. */
		__asm__ __volatile__("" : : "r"(r->copy) : "memory");
	}
}

static void raw_round(void *arg, int iterations)
{
	struct rma *r = arg;
	bool read = r->op == OP_READFROM || r->op == OP_VREADFROM;

	bench_fabric_link_round(r->raw, read, r->len, iterations, r->async ? RAW_ASYNC_WINDOW : 1);
}

/* Write a pattern, move it with the op, read it back the other way: must match. */
static void rma_verify(struct rma *r)
{
	size_t len = r->len;
	char *src = r->op == OP_VWRITETO || r->op == OP_VREADFROM ? r->plain : r->local;

	for (size_t i = 0; i < len; i++)
		src[i] = (char)(i * 7 + 3);
	if (r->op == OP_READFROM || r->op == OP_VREADFROM) {
		/* Put the pattern on the card first, then read it back over a cleared buffer. */
		if (scif_vwriteto(r->epd, src, len, 0, SCIF_RMA_SYNC))
			scif_bench_die("verify: scif_vwriteto");
		memset(src, 0, len);
		if (rma_one(&(struct rma){ .epd = r->epd, .op = r->op, .flags = SCIF_RMA_SYNC, .len = len,
					   .local = r->local, .plain = r->plain }))
			scif_bench_die("verify: read");
	} else {
		if (rma_one(&(struct rma){ .epd = r->epd, .op = r->op, .flags = SCIF_RMA_SYNC, .len = len,
					   .local = r->local, .plain = r->plain }))
			scif_bench_die("verify: write");
		memset(r->copy, 0, len);
		if (scif_vreadfrom(r->epd, r->copy, len, 0, SCIF_RMA_SYNC))
			scif_bench_die("verify: scif_vreadfrom");
		src = r->copy;
	}
	for (size_t i = 0; i < len; i++) {
		if (src[i] != (char)(i * 7 + 3)) {
			fprintf(stderr, "scif_rma_bw: %s moved wrong data at byte %zu of %zu\n", op_names[r->op],
				i, len);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .iterations = 200, .repetitions = 5, .max_size = 1 << 20,
				   .selectable = true };
	struct scif_bench b;
	struct bench_fabric_link raw = { 0 };
	struct rma r;
	char name[64];
	bool ofi;

	scif_bench_card_dispatch(argc, argv, "scif_rma_bw");
	bench_parse(argc, argv, &opts,
		    "  SCIF RMA time per transfer against memcpy (raw libfabric on ofi)\n"
		    "  --only=TEXT  the tables whose name holds TEXT, e.g. --only='scif_writeto[async'\n");
	opts.max_size = scif_bench_round(opts.max_size);
	/* Before any xrma thread: the raw target is a process of its own. */
	ofi = bench_fabric_ofi_selected(0, 1);
	if (ofi)
		bench_fabric_link_start(&raw, opts.max_size, 1);
	scif_bench_start(argv, opts.max_size, &b);
	r = (struct rma){ .epd = b.epd, .local = scif_bench_pages(opts.max_size),
			  .plain = scif_bench_pages(opts.max_size), .copy = scif_bench_pages(opts.max_size),
			  .raw = &raw };
	if (scif_register(b.epd, r.local, opts.max_size, HOST_WIN, SCIF_PROT_READ | SCIF_PROT_WRITE,
			  SCIF_MAP_FIXED) != HOST_WIN)
		scif_bench_die("scif_register");
	for (int op = OP_WRITETO; op <= OP_VREADFROM; op++) {
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			r.op = (enum op)op;
			r.flags = modes[m].flags;
			r.async = modes[m].async;
			snprintf(name, sizeof(name), "%s[%s]", op_names[op], modes[m].name);
			if (!bench_selected(&opts, name))
				continue;
			bench_header(&opts, name, scif_bench_setup(&b), "scif_us",
				     ofi ? (op == OP_READFROM || op == OP_VREADFROM ? "fi_read_us" : "fi_write_us")
					 : "memcpy_us");
			for (size_t len = 8; len <= opts.max_size; len *= 8) {
				int iters = len >= (256u << 10) ? (opts.iterations + 9) / 10 : opts.iterations;

				r.len = len;
				rma_verify(&r);
				scif_bench_row_vs(&opts, len, rma_round, ofi ? raw_round : memcpy_round, &r,
						  iters);
				if (len < opts.max_size && len * 8 > opts.max_size)
					len = opts.max_size / 8;   /* end on max_size */
			}
		}
	}
	scif_unregister(b.epd, HOST_WIN, opts.max_size);
	scif_bench_stop(&b);
	bench_fabric_link_stop(&raw);
	scif_bench_free(r.local);
	scif_bench_free(r.plain);
	scif_bench_free(r.copy);
	return 0;
}
