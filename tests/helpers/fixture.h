/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/helpers/fixture.h: resource builders shared by the cmocka unit tests:
 * loopback contexts on a fabric unique to the test binary, live-object checks
 * (per test and per group), patterned segments, canary buffers, a barrier and
 * bounded waits. Uses only the public API, so it links with libxrma and with
 * libxrma_internal alike. STYLE.md habit 9 describes the suite layout.
 */
#ifndef XRMA_TEST_FIXTURE_H
#define XRMA_TEST_FIXTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <pthread.h>
#include <sys/types.h>
#include <cmocka.h>
#include <xrma/xrma.h>

#define FIXTURE_CTX_MAX 4
/* Every blocking call in the tests is bounded by this, so a broken core fails, not hangs. */
#define FIXTURE_TIMEOUT_MS 2000
/* A wait that is expected to time out. */
#define FIXTURE_SHORT_MS 50
/* The loopback provider's page size (its caps say so; test_info checks it). */
#define FIXTURE_PAGE 4096u
/* check helpers return this when every byte matched. */
#define FIXTURE_MATCH SIZE_MAX

/* A handle value the core never handed out. */
#define FIXTURE_FORGED(type) ((type *)(uintptr_t)0x12345678u)

/*
 * Assert an xrma return code, printing both codes by name on mismatch.
 * expected is 0 or an XRMA_E* name; calls return error codes negated
 * (errors.h), so the comparison is against -expected. Counts are checked with
 * assert_int_equal, never with this macro.
 */
#define assert_rc(actual, expected) \
	fixture_assert_rc((long)(actual), -(long)(expected), #actual, __FILE__, __LINE__)
/* Assert a count (bytes moved, completions taken, 0/1 answers) or a negative code. */
#define assert_count(actual, expected) \
	fixture_assert_rc((long)(actual), (long)(expected), #actual, __FILE__, __LINE__)
/*
 * A NULL handle is neither a live handle nor a bad argument in errors.h's terms;
 * the tests accept XRMA_EHANDLE or XRMA_EINVAL for it (see the report).
 */
#define assert_null_handle_rc(actual) \
	fixture_assert_rc2((long)(actual), -XRMA_EHANDLE, -XRMA_EINVAL, #actual, __FILE__, __LINE__)

void fixture_assert_rc(long actual, long expected, const char *expr, const char *file, int line);
void fixture_assert_rc2(long actual, long expected1, long expected2, const char *expr,
			const char *file, int line);

/* ------------------------------------------------------------------ contexts */

struct fixture {
	char fabric[XRMA_NAME_MAX];
	size_t count;
	struct xrma_ctx *ctx[FIXTURE_CTX_MAX];
	uint32_t node[FIXTURE_CTX_MAX];
	size_t baseline[FIXTURE_CTX_MAX];   /* object counts when the current test began */
};

/* "t-<tag>-<pid>", then "t-<tag>-<pid>-<n>" for later calls in the same process. */
void fixture_fabric_name(char *buf, size_t len, const char *tag);

/* A TCP port free right now on 127.0.0.1 (the kernel's pick), or -1. */
int fixture_free_tcp_port(void);

/* One loopback context on fabric as node. */
int fixture_ctx_open(const char *fabric, uint32_t node, struct xrma_ctx **ctx);

/* The object count of ctx, or SIZE_MAX if the call failed. */
size_t fixture_count(struct xrma_ctx *ctx);

/*
 * Open count contexts (nodes 1..count) on a fresh fabric named after tag and make
 * fx the fixture that fixture_test_up/down check. Returns 0 or -1 (printed).
 */
int fixture_open(struct fixture *fx, const char *tag, size_t count);

/* Check every context has no live object, then close them all. 0 or -1 (printed). */
int fixture_close(struct fixture *fx);

/* Per-test setup/teardown: a test must leave the object counts as it found them. */
int fixture_test_up(void **state);
int fixture_test_down(void **state);

/* Assert every context of fx has exactly the objects it had at test start. */
void fixture_assert_baseline(const struct fixture *fx);

/* ------------------------------------------------------------------ memory */

/* The byte at position i of pattern seed. */
uint8_t fixture_pattern_byte(uint8_t seed, size_t i);
/* Write positions first .. first+len-1 of pattern seed. */
void fixture_pattern(void *buf, size_t len, uint8_t seed, size_t first);
/*
 * FIXTURE_MATCH, or the index of the first byte that differs from the pattern.
 * The checks, and fixture_peer_copy, read memory that peers wrote: another
 * process, or a provider's thread of ours on a peer's behalf (ofi, ntb
 * staging). The test orders that by a message between processes, which
 * ThreadSanitizer cannot see, so they read out of its view (common/peer_shared.h).
 */
size_t fixture_pattern_check(const void *buf, size_t len, uint8_t seed, size_t first);

/* Canaries: fill with one byte; FIXTURE_MATCH or the first index that differs. */
void fixture_fill(void *buf, size_t len, uint8_t byte);
size_t fixture_check(const void *buf, size_t len, uint8_t byte);
/* memcpy from memory a peer wrote (see fixture_pattern_check). */
void fixture_peer_copy(void *dst, const void *src, size_t len);

struct fixture_seg {
	struct xrma_seg *seg;
	uint64_t id;
	void *addr;
	size_t len;
};

/*
 * A provider-allocated segment with an id chosen by the core, filled with
 * pattern seed (or with 0 when seed is 0), exported when export is set.
 * Returns the xrma code of the failing step (the segment is closed again).
 */
int fixture_seg_make(struct xrma_ctx *ctx, size_t len, uint32_t access, bool exported, uint8_t seed,
		     struct fixture_seg *out);
int fixture_seg_close(struct fixture_seg *seg);

/* One XRMA_RMA_SYNC transfer through a queue of its own; the transfer's result. */
int fixture_rma_sync(struct xrma_ctx *ctx, enum xrma_rma_op op, struct xrma_seg *local,
		     size_t local_offset, struct xrma_rseg *remote, size_t remote_offset, size_t len);

/* ------------------------------------------------------------------ threads and time */

struct fixture_barrier {
	pthread_mutex_t lock;
	pthread_cond_t cond;     /* CLOCK_MONOTONIC */
	unsigned parties;
	unsigned waiting;
	unsigned long phase;
};

void fixture_barrier_init(struct fixture_barrier *b, unsigned parties);
void fixture_barrier_destroy(struct fixture_barrier *b);
/* 0 once all parties arrived; ETIMEDOUT (positive) after timeout_ms. */
int fixture_barrier_wait(struct fixture_barrier *b, int timeout_ms);

/* Join with a deadline: 0, or ETIMEDOUT (the thread is detached and left running). */
int fixture_join(pthread_t thread, int timeout_ms, void **ret);

pid_t fixture_gettid(void);
/* 0 once thread tid is asleep in the kernel (blocked), ETIMEDOUT otherwise. */
int fixture_wait_blocked(pid_t tid, int timeout_ms);

uint64_t fixture_now_ms(void);

/* Descriptors this process has open now (entries of /proc/self/fd); -1 if unreadable. */
int fixture_open_fds(void);

/* Spin (yielding) until the segment has want importers; 0 or ETIMEDOUT. */
int fixture_wait_importers(struct xrma_seg *seg, size_t want, int timeout_ms);

/* Spin (yielding) until the remote segment is in state want; 0 or ETIMEDOUT. */
int fixture_wait_rseg_state(struct xrma_rseg *rseg, enum xrma_rseg_state want, int timeout_ms);

/* Spin (yielding) until *word == want; 0 or ETIMEDOUT. */
int fixture_wait_u64(const volatile void *word, uint64_t want, int timeout_ms);

/* poll(2) fd for POLLIN: 1 readable, 0 timed out, -1 error. */
int fixture_fd_readable(int fd, int timeout_ms);

/* ------------------------------------------------------------------ events */

#define FIXTURE_EVENTS_MAX 128

/* A callback sink: records events (and the thread that delivered them). */
struct fixture_events {
	pthread_mutex_t lock;
	pthread_cond_t cond;     /* CLOCK_MONOTONIC */
	size_t count;
	struct xrma_event ev[FIXTURE_EVENTS_MAX];
	pthread_t thread[FIXTURE_EVENTS_MAX];
};

void fixture_events_init(struct fixture_events *e);
void fixture_events_destroy(struct fixture_events *e);
void fixture_events_cb(void *arg, const struct xrma_event *event);
/* Wait until at least count events were recorded: 0 or ETIMEDOUT. */
int fixture_events_wait(struct fixture_events *e, size_t count, int timeout_ms);
size_t fixture_events_count(struct fixture_events *e);

/* ------------------------------------------------------------------ files */

/* Write contents to a fresh temporary file; its name goes to path. 0 or -1. */
int fixture_write_file(char *path, size_t len, const char *contents);

#endif
