/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/badinput/test_badinput_pximc.c: the PXImc rows of the bad-input matrix
 * (matrix.def) through xrma's vendor library, on two systems in one process: A
 * (where every case runs) holds a client session paired with B's server window,
 * a posted window of its own and a closed session. The check after a case reads
 * both windows, looks for stray session events and re-polls the connection;
 * teardown fails when a failing request opened a session.
 */
#include "tests/conformance/pximc/pximc_test.h"
#include "tests/badinput/badinput.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BI_PX_PROTO PXT_PROTO
#define BI_PX_SIZE ((uint64_t)PXT_SIZE)
#define BI_PX_MAX PXIMC_MAXIMUM_WINDOW_SIZE
/* Above any per-window limit (docs/pximc.md decision 30). */
#define BI_PX_HUGE ((uint64_t)1 << 40)
#define BI_PX_DATA_MAX 1024u
/* B's server window, which A's session is paired with; a window A posted itself. */
#define BI_PX_UID 3001u
#define BI_PX_UID_OWN 3002u
/* A physical address no device memory covers: a valid request gets no resource. */
#define BI_PX_PHYS ((uint64_t)0x7ff0000000ull)
#define BI_A_SEED 0x11
#define BI_B_SEED 0x22

struct bi_fx {
	uint32_t iface;                 /* B, seen from A */
	uint32_t session;               /* A's client, paired with B's server */
	uint32_t own_session;           /* A's posted, unpaired server window */
	uint32_t stale_session;
	uint32_t b_session;             /* B's server */
	uint8_t *local, *remote;        /* A's two windows */
	uint8_t window_data[8];
	uint32_t ids[8];
	uint64_t raw[2];
	struct {
		uint32_t count, u32, actual, reason, session;
		void *remote, *local;
		uint64_t remote_size, local_size, physical;
	} out;
};

#include "matrix_pximc.inc"

static struct pxt_pair pair;

static int pximc_down(struct bi_fx *F);

#define UP(call)                                                                                \
	do {                                                                                    \
		tPXIMC_Status s_ = (call);                                                      \
		if (s_ != PXIMC_SUCCESS) {                                                      \
			fprintf(stderr, "badinput fixture: %s: %s\n", #call,                    \
				pxt_status_name(s_));                                           \
			pximc_down(F);                                                          \
			return NULL;                                                            \
		}                                                                               \
	} while (0)

static struct bi_fx *pximc_up(void)
{
	struct bi_fx *F = calloc(1, sizeof(*F));
	uint64_t rsize, lsize;
	void *ra, *la;
	uint32_t reason;

	if (!F)
		return NULL;
	F->iface = pair.if_ab;
	xrma_pximc_use(pair.b);
	UP(PXIMC_requestWindowLogicalAsServer(pair.if_ba, BI_PX_PROTO, BI_PX_SIZE, BI_PX_SIZE,
					      BI_PX_SIZE, BI_PX_SIZE, BI_PX_UID, NULL, 0,
					      &F->b_session));
	xrma_pximc_use(pair.a);
	UP(PXIMC_requestWindowLogicalAsClient(pair.if_ab, BI_PX_PROTO, BI_PX_SIZE, BI_PX_SIZE,
					      BI_PX_SIZE, BI_PX_SIZE, BI_PX_UID, &F->session));
	UP(PXIMC_waitForConnection(F->session, FIXTURE_TIMEOUT_MS, &ra, &rsize, &la, &lsize));
	F->remote = ra;
	F->local = la;
	xrma_pximc_use(pair.b);
	UP(PXIMC_waitForConnection(F->b_session, FIXTURE_TIMEOUT_MS, &ra, &rsize, &la, &lsize));
	xrma_pximc_use(pair.a);
	UP(PXIMC_requestWindowLogicalAsServer(pair.if_ab, BI_PX_PROTO, BI_PX_SIZE, BI_PX_SIZE,
					      BI_PX_SIZE, BI_PX_SIZE, BI_PX_UID_OWN, NULL, 0,
					      &F->own_session));
	UP(PXIMC_requestWindowLogicalAsServer(pair.if_ab, BI_PX_PROTO, BI_PX_SIZE, BI_PX_SIZE,
					      BI_PX_SIZE, BI_PX_SIZE, 0, NULL, 0, &F->stale_session));
	UP(PXIMC_closeWindow(F->stale_session));
	fixture_pattern(F->local, BI_PX_SIZE, BI_A_SEED, 0);
	fixture_pattern(F->remote, BI_PX_SIZE, BI_B_SEED, 0);
	/* Take the interface events the set-up caused (bounded: the latch empties). */
	for (int i = 0; i < 16 && PXIMC_waitForInterfaceEvent(F->iface, 0, &reason) == PXIMC_SUCCESS;
	     i++)
		;
	memcpy(F->window_data, "badinput", 8);
	return F;
}

static void pximc_check(struct bi_fx *F)
{
	uint64_t rsize = 0, lsize = 0;
	void *ra = NULL, *la = NULL;
	uint32_t reason, count = 0;

	xrma_pximc_use(pair.a);
	assert_int_equal(fixture_pattern_check(F->local, BI_PX_SIZE, BI_A_SEED, 0), FIXTURE_MATCH);
	assert_int_equal(fixture_pattern_check(F->remote, BI_PX_SIZE, BI_B_SEED, 0), FIXTURE_MATCH);
	assert_px(PXIMC_waitForConnection(F->session, 0, &ra, &rsize, &la, &lsize), PXIMC_SUCCESS);
	assert_ptr_equal(ra, F->remote);
	assert_ptr_equal(la, F->local);
	assert_px(PXIMC_waitForSessionEvent(F->session, 0, &reason), PXIMC_TIMEOUT);
	assert_px(PXIMC_findWindows(F->iface, 8, F->ids, &count), PXIMC_SUCCESS);
	assert_int_equal(count, 1);
	xrma_pximc_use(pair.b);
	assert_px(PXIMC_waitForSessionEvent(F->b_session, 0, &reason), PXIMC_TIMEOUT);
	xrma_pximc_use(pair.a);
}

static int pximc_down(struct bi_fx *F)
{
	int rc = 0;

	if (!F)
		return -1;
	xrma_pximc_use(pair.a);
	if (F->out.session) {
		fprintf(stderr, "badinput: a failing request opened session %u\n", F->out.session);
		rc = -1;
	}
	PXIMC_cleanup();
	xrma_pximc_use(pair.b);
	PXIMC_cleanup();
	xrma_pximc_use(pair.a);
	free(F);
	return rc;
}

static const char *pximc_describe(long code)
{
	return pxt_status_name((tPXIMC_Status)code);
}

int main(void)
{
	const struct bi_api api = {
		.name = "badinput_pximc",
		.cases = bi_cases,
		.count = sizeof(bi_cases) / sizeof(bi_cases[0]),
		.up = pximc_up,
		.check = pximc_check,
		.down = pximc_down,
		.describe = pximc_describe,
	};
	int failures;

	if (pxt_pair_open(&pair, "bi-pximc")) {
		fprintf(stderr, "badinput: cannot open two PXImc systems\n");
		return 1;
	}
	failures = bi_run(&api);
	pxt_pair_close(&pair);
	return failures ? 1 : 0;
}
