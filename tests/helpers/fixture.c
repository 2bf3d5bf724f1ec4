/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/helpers/fixture.c: the builders declared in fixture.h. Everything that
 * waits has a deadline (FIXTURE_TIMEOUT_MS at most), and nothing sleeps to
 * synchronise: waits use condition variables, joins, or yield-spins on state
 * the tests can observe, so a broken core fails a test instead of hanging it.
 */
#include "tests/helpers/fixture.h"
#include "examples/common/local_port.h"
#include "common/peer_shared.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The fixture whose counts fixture_test_up/down check (set by fixture_open). */
static struct fixture *fixture_active;

static const char *fixture_name(long code)
{
	const char *name;

	if (code > INT_MAX || code < INT_MIN)
		return "?";
	name = xrma_error_name((int)code);
	return name ? name : "?";
}

void fixture_assert_rc(long actual, long expected, const char *expr, const char *file, int line)
{
	if (actual == expected)
		return;
	print_error("%s returned %ld (%s), expected %ld (%s)\n", expr, actual, fixture_name(actual),
		    expected, fixture_name(expected));
	_fail(file, line);
}

void fixture_assert_rc2(long actual, long expected1, long expected2, const char *expr,
			const char *file, int line)
{
	if (actual == expected1 || actual == expected2)
		return;
	print_error("%s returned %ld (%s), expected %ld (%s) or %ld (%s)\n", expr, actual,
		    fixture_name(actual), expected1, fixture_name(expected1), expected2,
		    fixture_name(expected2));
	_fail(file, line);
}

/* ------------------------------------------------------------------ contexts */

void fixture_fabric_name(char *buf, size_t len, const char *tag)
{
	static unsigned seq;
	unsigned n = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);

	if (n == 0)
		snprintf(buf, len, "t-%s-%ld", tag, (long)getpid());
	else
		snprintf(buf, len, "t-%s-%ld-%u", tag, (long)getpid(), n);
}

int fixture_ctx_open(const char *fabric, uint32_t node, struct xrma_ctx **ctx)
{
	/* A suite may run over a variant of loopback that it registered itself. */
	const char *variant = getenv("XRMA_TEST_PROVIDER");
	struct xrma_ctx_attr attr = {
		.provider = variant && *variant ? variant : "loopback",
		.fabric = fabric,
		.node_id = node,
		.flags = 0,
	};

	return xrma_ctx_open(&attr, ctx);
}

size_t fixture_count(struct xrma_ctx *ctx)
{
	size_t count = SIZE_MAX;

	if (xrma_ctx_object_count(ctx, &count))
		return SIZE_MAX;
	return count;
}

int fixture_open(struct fixture *fx, const char *tag, size_t count)
{
	size_t i;
	int rc;

	memset(fx, 0, sizeof(*fx));
	if (count > FIXTURE_CTX_MAX) {
		print_error("fixture_open: %zu contexts asked, %d at most\n", count, FIXTURE_CTX_MAX);
		return -1;
	}
	fixture_fabric_name(fx->fabric, sizeof(fx->fabric), tag);
	for (i = 0; i < count; i++) {
		fx->node[i] = (uint32_t)(i + 1);
		rc = fixture_ctx_open(fx->fabric, fx->node[i], &fx->ctx[i]);
		if (rc) {
			print_error("fixture_open: context for node %" PRIu32 " on %s: %d (%s)\n",
				    fx->node[i], fx->fabric, rc, fixture_name(rc));
			while (i-- > 0)
				xrma_ctx_close(fx->ctx[i]);
			memset(fx, 0, sizeof(*fx));
			return -1;
		}
		fx->count = i + 1;
	}
	fixture_active = fx;
	return 0;
}

int fixture_close(struct fixture *fx)
{
	int ret = 0;
	size_t i, n;
	int rc;

	for (i = fx->count; i-- > 0;) {
		n = fixture_count(fx->ctx[i]);
		if (n != 0) {
			print_error("fixture_close: node %" PRIu32 " still has %zu live objects\n",
				    fx->node[i], n);
			ret = -1;
		}
		rc = xrma_ctx_close(fx->ctx[i]);
		if (rc) {
			print_error("fixture_close: closing node %" PRIu32 ": %d (%s)\n", fx->node[i],
				    rc, fixture_name(rc));
			ret = -1;
		}
		fx->ctx[i] = NULL;
	}
	fx->count = 0;
	if (fixture_active == fx)
		fixture_active = NULL;
	return ret;
}

int fixture_test_up(void **state)
{
	size_t i;

	(void)state;
	if (!fixture_active)
		return 0;
	for (i = 0; i < fixture_active->count; i++)
		fixture_active->baseline[i] = fixture_count(fixture_active->ctx[i]);
	return 0;
}

int fixture_test_down(void **state)
{
	size_t i, n;
	int ret = 0;

	(void)state;
	if (!fixture_active)
		return 0;
	for (i = 0; i < fixture_active->count; i++) {
		n = fixture_count(fixture_active->ctx[i]);
		if (n != fixture_active->baseline[i]) {
			print_error("test left node %" PRIu32 " with %zu live objects (%zu before)\n",
				    fixture_active->node[i], n, fixture_active->baseline[i]);
			ret = -1;
		}
	}
	return ret;
}

void fixture_assert_baseline(const struct fixture *fx)
{
	size_t i;

	for (i = 0; i < fx->count; i++)
		assert_int_equal(fixture_count(fx->ctx[i]), fx->baseline[i]);
}

/* ------------------------------------------------------------------ memory */

uint8_t fixture_pattern_byte(uint8_t seed, size_t i)
{
	/* Position-dependent and not periodic at any power of two, so shifted or
	 * reordered copies show up. */
	return (uint8_t)(seed * 31u + i * 7u + (i >> 8) * 13u + (i >> 16) + 1u);
}

void fixture_pattern(void *buf, size_t len, uint8_t seed, size_t first)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = fixture_pattern_byte(seed, first + i);
}

size_t fixture_pattern_check(const void *buf, size_t len, uint8_t seed, size_t first)
{
	const uint8_t *p = buf;
	size_t i;

	XRMA_PEER_SHARED_BEGIN();
	for (i = 0; i < len; i++)
		if (p[i] != fixture_pattern_byte(seed, first + i))
			break;
	XRMA_PEER_SHARED_END();
	return i < len ? i : FIXTURE_MATCH;
}

void fixture_fill(void *buf, size_t len, uint8_t byte)
{
	memset(buf, byte, len);
}

size_t fixture_check(const void *buf, size_t len, uint8_t byte)
{
	const uint8_t *p = buf;
	size_t i;

	XRMA_PEER_SHARED_BEGIN();
	for (i = 0; i < len; i++)
		if (p[i] != byte)
			break;
	XRMA_PEER_SHARED_END();
	return i < len ? i : FIXTURE_MATCH;
}

void fixture_peer_copy(void *dst, const void *src, size_t len)
{
	XRMA_PEER_SHARED_BEGIN();
	memcpy(dst, src, len);
	XRMA_PEER_SHARED_END();
}

int fixture_seg_make(struct xrma_ctx *ctx, size_t len, uint32_t access, bool exported, uint8_t seed,
		     struct fixture_seg *out)
{
	struct xrma_seg_attr attr = {
		.len = len,
		.addr = NULL,
		.id = XRMA_ID_ANY,
		.id_min = 0,
		.id_max = 0,
		.access = access,
		.flags = 0,
	};
	int rc;

	memset(out, 0, sizeof(*out));
	rc = xrma_seg_open(ctx, &attr, &out->seg);
	if (rc)
		return rc;
	if ((rc = xrma_seg_id(out->seg, &out->id)) || (rc = xrma_seg_addr(out->seg, &out->addr)) ||
	    (rc = xrma_seg_size(out->seg, &out->len)))
		goto err_close;
	if (!out->addr) {
		rc = -XRMA_EFAULT;
		goto err_close;
	}
	if (seed)
		fixture_pattern(out->addr, out->len, seed, 0);
	else
		memset(out->addr, 0, out->len);
	if (exported && (rc = xrma_seg_export(out->seg, 0)))
		goto err_close;
	return 0;
err_close:
	xrma_seg_close(out->seg);
	memset(out, 0, sizeof(*out));
	return rc;
}

int fixture_seg_close(struct fixture_seg *seg)
{
	int rc = xrma_seg_close(seg->seg);

	if (!rc)
		memset(seg, 0, sizeof(*seg));
	return rc;
}

int fixture_rma_sync(struct xrma_ctx *ctx, enum xrma_rma_op op, struct xrma_seg *local,
		     size_t local_offset, struct xrma_rseg *remote, size_t remote_offset, size_t len)
{
	struct xrma_iov iov = { .seg = local, .offset = local_offset, .len = len };
	struct xrma_dmaq *q;
	int ret = xrma_dmaq_open(ctx, 4, 0, &q);

	if (ret)
		return ret;
	ret = xrma_dmaq_post(q, op, &iov, 1, remote, remote_offset, len, 1, XRMA_RMA_SYNC);
	xrma_dmaq_close(q);
	return ret;
}

/* ------------------------------------------------------------------ threads and time */

static void fixture_deadline(struct timespec *ts, int timeout_ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += timeout_ms / 1000;
	ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void fixture_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
}

uint64_t fixture_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int fixture_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

void fixture_barrier_init(struct fixture_barrier *b, unsigned parties)
{
	pthread_mutex_init(&b->lock, NULL);
	fixture_cond_init(&b->cond);
	b->parties = parties;
	b->waiting = 0;
	b->phase = 0;
}

void fixture_barrier_destroy(struct fixture_barrier *b)
{
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
}

int fixture_barrier_wait(struct fixture_barrier *b, int timeout_ms)
{
	struct timespec deadline;
	unsigned long phase;
	int ret = 0;

	fixture_deadline(&deadline, timeout_ms);
	pthread_mutex_lock(&b->lock);
	phase = b->phase;
	if (++b->waiting == b->parties) {
		b->waiting = 0;
		b->phase++;
		pthread_cond_broadcast(&b->cond);
	} else {
		while (b->phase == phase && ret == 0)
			ret = pthread_cond_timedwait(&b->cond, &b->lock, &deadline);
		if (b->phase != phase)
			ret = 0;
		else
			b->waiting--;
	}
	pthread_mutex_unlock(&b->lock);
	return ret;
}

int fixture_join(pthread_t thread, int timeout_ms, void **ret)
{
	struct timespec deadline;
	int rc;

	/* pthread_timedjoin_np measures against CLOCK_REALTIME. */
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	rc = pthread_timedjoin_np(thread, ret, &deadline);
	if (rc == ETIMEDOUT) {
		print_error("fixture_join: thread still running after %d ms\n", timeout_ms);
		pthread_detach(thread);
	}
	return rc;
}

pid_t fixture_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The state letter of /proc/self/task/<tid>/stat, or 0. */
static char fixture_task_state(pid_t tid)
{
	char path[64], buf[512];
	const char *close_paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", (long)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	close_paren = strrchr(buf, ')');
	if (!close_paren || close_paren[1] != ' ')
		return 0;
	return close_paren[2];
}

int fixture_wait_blocked(pid_t tid, int timeout_ms)
{
	uint64_t end = fixture_now_ms() + (uint64_t)timeout_ms;
	char state;

	do {
		state = fixture_task_state(tid);
		if (state == 'S' || state == 'D')
			return 0;
		sched_yield();
	} while (fixture_now_ms() < end);
	return ETIMEDOUT;
}

int fixture_wait_importers(struct xrma_seg *seg, size_t want, int timeout_ms)
{
	uint64_t end = fixture_now_ms() + (uint64_t)timeout_ms;
	size_t count;

	do {
		if (xrma_seg_importers(seg, &count) == 0 && count == want)
			return 0;
		sched_yield();
	} while (fixture_now_ms() < end);
	return ETIMEDOUT;
}

int fixture_wait_rseg_state(struct xrma_rseg *rseg, enum xrma_rseg_state want, int timeout_ms)
{
	uint64_t end = fixture_now_ms() + (uint64_t)timeout_ms;
	enum xrma_rseg_state state;

	do {
		if (xrma_rseg_state(rseg, &state) == 0 && state == want)
			return 0;
		sched_yield();
	} while (fixture_now_ms() < end);
	return ETIMEDOUT;
}

int fixture_wait_u64(const volatile void *word, uint64_t want, int timeout_ms)
{
	uint64_t end = fixture_now_ms() + (uint64_t)timeout_ms;

	do {
		if (__atomic_load_n((const volatile uint64_t *)word, __ATOMIC_ACQUIRE) == want)
			return 0;
		sched_yield();
	} while (fixture_now_ms() < end);
	return ETIMEDOUT;
}

int fixture_fd_readable(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int rc;

	do
		rc = poll(&pfd, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -1;
	return rc > 0 && (pfd.revents & POLLIN) ? 1 : 0;
}

/* ------------------------------------------------------------------ events */

void fixture_events_init(struct fixture_events *e)
{
	memset(e, 0, sizeof(*e));
	pthread_mutex_init(&e->lock, NULL);
	fixture_cond_init(&e->cond);
}

void fixture_events_destroy(struct fixture_events *e)
{
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->lock);
}

void fixture_events_cb(void *arg, const struct xrma_event *event)
{
	struct fixture_events *e = arg;

	pthread_mutex_lock(&e->lock);
	if (e->count < FIXTURE_EVENTS_MAX) {
		e->ev[e->count] = *event;
		e->thread[e->count] = pthread_self();
	}
	e->count++;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

int fixture_events_wait(struct fixture_events *e, size_t count, int timeout_ms)
{
	struct timespec deadline;
	int rc = 0;

	fixture_deadline(&deadline, timeout_ms);
	pthread_mutex_lock(&e->lock);
	while (e->count < count && rc == 0)
		rc = pthread_cond_timedwait(&e->cond, &e->lock, &deadline);
	rc = e->count >= count ? 0 : ETIMEDOUT;
	pthread_mutex_unlock(&e->lock);
	return rc;
}

size_t fixture_events_count(struct fixture_events *e)
{
	size_t n;

	pthread_mutex_lock(&e->lock);
	n = e->count;
	pthread_mutex_unlock(&e->lock);
	return n;
}

/* ------------------------------------------------------------------ files */

int fixture_write_file(char *path, size_t len, const char *contents)
{
	const char *dir = getenv("TMPDIR");
	size_t left = strlen(contents);
	ssize_t n;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(path, len, "%s/xrma-test-XXXXXX", dir) >= len)
		return -1;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	while (left > 0) {
		n = write(fd, contents, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			unlink(path);
			return -1;
		}
		contents += n;
		left -= (size_t)n;
	}
	close(fd);
	return 0;
}

int fixture_free_tcp_port(void)
{
	int port, fd = local_port_hold(&port);

	if (fd < 0)
		return -1;
	close(fd);
	return port;
}
