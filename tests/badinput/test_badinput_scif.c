/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/badinput/test_badinput_scif.c: the SCIF rows of the bad-input matrix
 * (matrix.def) on a connected pair with a registered window on each side, a
 * listener, a bound and a spare endpoint, a closed one and a pipe (a descriptor
 * that is no endpoint). The check after a case reads both windows through RMA,
 * looks for stray messages, and teardown counts the process's descriptors and
 * probes for windows or mappings a failing call should not have made.
 */
#include "tests/conformance/scif/scif_test.h"
#include "tests/helpers/fixture.h"
#include "tests/badinput/badinput.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BI_SCIF_LEN ((size_t)SCIF_TEST_PAGE)
/* A window: one page of data (checked), one page where signals would land (zero). */
#define BI_SCIF_WINDOW (2 * BI_SCIF_LEN)
#define BI_SCIF_OFF_HUGE ((off_t)1 << 61)
#define BI_SCIF_RMA_FLAGS (SCIF_RMA_USECPU | SCIF_RMA_USECACHE | SCIF_RMA_SYNC | SCIF_RMA_ORDERED)
#define BI_LOCAL_SEED 0x21
#define BI_REMOTE_SEED 0x42

struct bi_fx {
	scif_epd_t ep, peer, listener, bound, spare, stale_epd;
	int pipe_fd, pipe_other;
	int fds_before;
	uint16_t port;
	struct scif_portID nobody;        /* a port nobody listens on */
	unsigned char *mem, *rmem, *spare_mem;
	off_t loff, roff, spare_off, signal_off, rsignal_off;
	uint64_t signal_value;
	int mark;
	unsigned char *munmap_addr;               /* a scif_mmap of the peer's window */
	unsigned char buf[BI_SCIF_LEN];
	uint16_t nodes[4];
	struct scif_pollepd pollepd[1];
	struct {
		struct scif_portID peer;
		scif_epd_t epd;
		uint16_t self;
		int mark;
	} out;
};

static long bi_scif_result(long ret)
{
	return ret == -1 ? errno : 0;
}

#include "matrix_scif.inc"

static int scif_down(struct bi_fx *F);

#define UP(cond)                                                                                \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "badinput fixture: %s failed: %s\n", #cond,             \
				strerror(errno));                                               \
			scif_down(F);                                                           \
			return NULL;                                                            \
		}                                                                               \
	} while (0)

static struct bi_fx *scif_up(void)
{
	struct bi_fx *F = calloc(1, sizeof(*F));
	struct scif_test_pair pair;
	int fds[2];

	if (!F)
		return NULL;
	F->ep = F->peer = F->listener = F->bound = F->spare = F->stale_epd = -1;
	F->pipe_fd = F->pipe_other = -1;
	F->out.epd = -1;
	F->munmap_addr = (unsigned char *)SCIF_MMAP_FAILED;
	F->fds_before = fixture_open_fds();
	scif_test_pair_open(&pair);
	F->ep = pair.client;
	F->peer = pair.server;
	F->listener = pair.listener;
	F->port = pair.port;
	UP((F->bound = scif_open()) >= 0);
	UP(scif_bind(F->bound, 0) > 0);
	UP((F->spare = scif_open()) >= 0);
	UP((F->stale_epd = scif_open()) >= 0);
	UP(scif_close(F->stale_epd) == 0);
	UP(pipe(fds) == 0);
	F->pipe_fd = fds[0];
	F->pipe_other = fds[1];
	F->nobody = (struct scif_portID){ .node = scif_test_self(), .port = (uint16_t)(F->port + 7) };

	UP((F->mem = scif_test_pages(BI_SCIF_WINDOW / SCIF_TEST_PAGE)) != NULL);
	UP((F->rmem = scif_test_pages(BI_SCIF_WINDOW / SCIF_TEST_PAGE)) != NULL);
	UP((F->spare_mem = scif_test_pages(1)) != NULL);
	fixture_pattern(F->mem, BI_SCIF_LEN, BI_LOCAL_SEED, 0);
	fixture_pattern(F->rmem, BI_SCIF_LEN, BI_REMOTE_SEED, 0);
	UP((F->loff = scif_register(F->ep, F->mem, BI_SCIF_WINDOW, 0,
				    SCIF_PROT_READ | SCIF_PROT_WRITE, 0)) != SCIF_REGISTER_FAILED);
	UP((F->roff = scif_register(F->peer, F->rmem, BI_SCIF_WINDOW, 0,
				    SCIF_PROT_READ | SCIF_PROT_WRITE, 0)) != SCIF_REGISTER_FAILED);
	F->spare_off = F->loff + (off_t)(64 * BI_SCIF_LEN);
	F->signal_off = F->loff + (off_t)BI_SCIF_LEN;
	F->rsignal_off = F->roff + (off_t)BI_SCIF_LEN;
	F->signal_value = 0x1111;
	UP(scif_fence_mark(F->ep, SCIF_FENCE_INIT_SELF, &F->mark) == 0);
	UP((F->munmap_addr = (unsigned char *)scif_mmap(NULL, BI_SCIF_LEN, SCIF_PROT_READ | SCIF_PROT_WRITE, 0, F->ep,
				       F->roff)) != (unsigned char *)SCIF_MMAP_FAILED);
	F->nodes[0] = 0;
	F->pollepd[0] = (struct scif_pollepd){ .epd = F->ep, .events = SCIF_POLLIN };
	return F;
}

/* Read len bytes at off of the window the other side of epd registered. */
static void rma_peek(scif_epd_t epd, off_t off, void *dst, size_t len)
{
	assert_int_equal(scif_vreadfrom(epd, dst, len, off, SCIF_RMA_SYNC), 0);
}

static void scif_check(struct bi_fx *F)
{
	unsigned char seen[BI_SCIF_LEN];
	struct scif_pollepd p[2] = { { .epd = F->ep, .events = SCIF_POLLIN },
				     { .epd = F->peer, .events = SCIF_POLLIN } };

	assert_int_equal(fixture_pattern_check(F->mem, BI_SCIF_LEN, BI_LOCAL_SEED, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(F->rmem, BI_SCIF_LEN, BI_REMOTE_SEED, 0),
			 FIXTURE_MATCH);
	assert_int_equal(fixture_check((unsigned char *)F->mem + BI_SCIF_LEN, BI_SCIF_LEN, 0),
			 FIXTURE_MATCH);
	assert_int_equal(fixture_check((unsigned char *)F->rmem + BI_SCIF_LEN, BI_SCIF_LEN, 0),
			 FIXTURE_MATCH);
	assert_int_equal(fixture_check(F->buf, sizeof(F->buf), 0), FIXTURE_MATCH);
	/* Both windows are still there, seen from the other side. */
	rma_peek(F->ep, F->roff, seen, sizeof(seen));
	assert_int_equal(fixture_pattern_check(seen, sizeof(seen), BI_REMOTE_SEED, 0), FIXTURE_MATCH);
	rma_peek(F->peer, F->loff, seen, sizeof(seen));
	assert_int_equal(fixture_pattern_check(seen, sizeof(seen), BI_LOCAL_SEED, 0), FIXTURE_MATCH);
	/* No stray message either way, no connection waiting at the listener. */
	assert_int_equal(scif_poll(p, 2, 0), 0);
	p[0] = (struct scif_pollepd){ .epd = F->listener, .events = SCIF_POLLIN };
	assert_int_equal(scif_poll(p, 1, 0), 0);
}

static int scif_down(struct bi_fx *F)
{
	int rc = 0;

	if (!F)
		return -1;
	if (F->out.epd >= 0) {
		fprintf(stderr, "badinput: a failing scif_accept made an endpoint\n");
		scif_close(F->out.epd);
		rc = -1;
	}
	/* A window registered by a failing call would be found at its offset. */
	if (F->ep >= 0 && scif_unregister(F->ep, F->spare_off, BI_SCIF_LEN) != -1) {
		fprintf(stderr, "badinput: a failing scif_register made a window\n");
		rc = -1;
	}
	if ((void *)F->munmap_addr != SCIF_MMAP_FAILED && scif_munmap(F->munmap_addr, BI_SCIF_LEN)) {
		fprintf(stderr, "badinput teardown: scif_munmap: %s\n", strerror(errno));
		rc = -1;
	}
	scif_epd_t *eps[] = { &F->ep, &F->peer, &F->listener, &F->bound, &F->spare };

	for (size_t i = 0; i < sizeof(eps) / sizeof(eps[0]); i++)
		if (*eps[i] >= 0 && scif_close(*eps[i])) {
			fprintf(stderr, "badinput teardown: scif_close: %s\n", strerror(errno));
			rc = -1;
		}
	if (F->pipe_fd >= 0) {
		close(F->pipe_fd);
		close(F->pipe_other);
	}
	scif_test_free(F->mem);
	scif_test_free(F->rmem);
	scif_test_free(F->spare_mem);
	/* Endpoints are descriptors: one more than before is an endpoint a failing call made. */
	if (fixture_open_fds() != F->fds_before) {
		fprintf(stderr, "badinput: %d descriptors open, %d before the case\n", fixture_open_fds(),
			F->fds_before);
		rc = -1;
	}
	free(F);
	return rc;
}

static const char *scif_describe(long code)
{
	return code ? strerror((int)code) : "success";
}

int main(void)
{
	const struct bi_api api = {
		.name = "badinput_scif",
		.cases = bi_cases,
		.count = sizeof(bi_cases) / sizeof(bi_cases[0]),
		.up = scif_up,
		.check = scif_check,
		.down = scif_down,
		.describe = scif_describe,
	};

	scif_test_env("bi-scif");
	/*
	 * The first pair opens the process's context and its connections (descriptors kept
	 * for good): one warm-up fixture, so every case starts from the same count.
	 */
	(void)scif_down(scif_up());
	return bi_run(&api) ? 1 : 0;
}
