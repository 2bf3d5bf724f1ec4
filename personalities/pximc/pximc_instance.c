/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_instance.c: a PXImc instance (one per PXImc "system"): its core
 * context, listener, service thread and session table, the process default instance and
 * the per-thread binding (include/pximc_xrma.h). State is per instance and locked; the only
 * process-wide state is the default instance pointer, itself under a lock (DESIGN: contexts
 * share no hidden state).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "personalities/pximc/pximc_vendor.h"
#include "common/errno_keep.h"

static pthread_mutex_t xrma_pximc_default_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xrma_pximc *xrma_pximc_default;     /* under xrma_pximc_default_lock */
/*
 * Initial-exec: the Dispatcher dlopens this library, and its threads' dynamic TLS blocks are
 * what LeakSanitizer misreads at exit while they still run (a client that exits without
 * closing); a pointer fits in the static TLS glibc keeps for libraries loaded later.
 */
static _Thread_local struct xrma_pximc *xrma_pximc_bound __attribute__((tls_model("initial-exec")));

/* epoll tags: sessions are looked up by number, so a stale event finds nothing. */
#define XRMA_PXIMC_TAG_LISTENER 0ull
#define XRMA_PXIMC_TAG_WAKE 1ull
#define XRMA_PXIMC_TAG_LINK (1ull << 32)

uint64_t xrma_pximc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t xrma_pximc_deadline(uint32_t timeout_ms)
{
	return timeout_ms == PXIMC_TIMEOUT_INFINITE ? UINT64_MAX : xrma_pximc_now_ms() + timeout_ms;
}

int xrma_pximc_cond_wait(struct xrma_pximc *px, uint64_t deadline_ms)
{
	struct timespec ts;
	uint64_t now = xrma_pximc_now_ms();

	if (deadline_ms == UINT64_MAX)
		return pthread_cond_wait(&px->cond, &px->lock);
	if (now >= deadline_ms)
		return ETIMEDOUT;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)((deadline_ms - now) / 1000u);
	ts.tv_nsec += (long)((deadline_ms - now) % 1000u) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_cond_timedwait(&px->cond, &px->lock, &ts);
}

int xrma_pximc_grow(void **array, size_t *cap, size_t want, size_t elem)
{
	size_t n = *cap ? *cap : 8;
	void *p;

	if (want <= *cap)
		return 0;
	while (n < want)
		n *= 2;
	p = realloc(*array, n * elem);
	if (!p)
		return -XRMA_ENOMEM;
	*array = p;
	*cap = n;
	return 0;
}

void xrma_pximc_kick(struct xrma_pximc *px)
{
	uint64_t one = 1;

	if (write(px->wake_fd, &one, sizeof(one)) < 0) {
		/* The counter is saturated: the service thread is already due to wake. */
	}
}

/* ------------------------------------------------------------------ sessions */

struct xrma_pximc_session *xrma_pximc_session_find(struct xrma_pximc *px, uint32_t number)
{
	if (!number)
		return NULL;
	for (size_t i = 0; i < px->session_count; i++)
		if (px->sessions[i]->number == number)
			return px->sessions[i];
	return NULL;
}

int xrma_pximc_session_add(struct xrma_pximc *px, struct xrma_pximc_session *s)
{
	int ret = xrma_pximc_grow((void **)&px->sessions, &px->session_cap, px->session_count + 1,
				  sizeof(*px->sessions));

	if (ret)
		return ret;
	/* Numbers are never 0 and not reused while the instance lives (wrap skips live ones). */
	do {
		s->number = px->next_session++;
	} while (!s->number || xrma_pximc_session_find(px, s->number));
	px->sessions[px->session_count++] = s;
	return 0;
}

/* Unlist s; its memory goes when the last waiter leaves (xrma_pximc_session_release). */
void xrma_pximc_session_drop(struct xrma_pximc *px, struct xrma_pximc_session *s)
{
	for (size_t i = 0; i < px->session_count; i++) {
		if (px->sessions[i] == s) {
			px->sessions[i] = px->sessions[--px->session_count];
			break;
		}
	}
	s->closed = true;
	pthread_cond_broadcast(&px->cond);
	if (!s->waiters)
		free(s);
}

void xrma_pximc_session_release(struct xrma_pximc *px, struct xrma_pximc_session *s)
{
	(void)px;
	if (!--s->waiters && s->closed)
		free(s);
}

int xrma_pximc_link_watch(struct xrma_pximc *px, struct xrma_pximc_session *s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = XRMA_PXIMC_TAG_LINK | s->number };
	int fd = xrma_conn_fd(s->link);

	if (fd < 0)
		return fd;
	/* The partner's link events reach us through the windows it shares with us. */
	if (s->remote_rseg)
		(void)xrma_rseg_set_callback(s->remote_rseg, xrma_pximc_window_event, px);
	if (s->local_seg)
		(void)xrma_seg_set_callback(s->local_seg, xrma_pximc_window_event, px);
	return epoll_ctl(px->epfd, EPOLL_CTL_ADD, fd, &ev) ? -XRMA_ENOMEM : 0;
}

/* Windows the partner still imports close once it lets go (or dies). Under px->lock. */
void xrma_pximc_reap_zombies(struct xrma_pximc *px)
{
	for (size_t i = 0; i < px->zombie_count;) {
		size_t importers = 1;

		xrma_seg_importers(px->zombies[i], &importers);
		if (!importers && !xrma_seg_close(px->zombies[i])) {
			px->zombies[i] = px->zombies[--px->zombie_count];
			continue;
		}
		i++;
	}
}

void xrma_pximc_cleanup_sessions(struct xrma_pximc *px)
{
	while (px->session_count) {
		struct xrma_pximc_session *s = px->sessions[0];

		xrma_pximc_session_free_resources(px, s);
		xrma_pximc_session_drop(px, s);
	}
}

/* ------------------------------------------------------------------ service thread */

static void xrma_pximc_accept_all(struct xrma_pximc *px)
{
	struct xrma_conn *conn;

	while (xrma_conn_accept(px->listener, 0, &conn) == 0)
		xrma_pximc_serve(px, conn);
}

/*
 * The notice thread sends queued window notices. It is not the service thread: a connect
 * completes only when the other side's service thread accepts, so two service threads
 * telling each other would wait on each other.
 */
static void *xrma_pximc_notice_main(void *arg)
{
	struct xrma_pximc *px = arg;

	pthread_mutex_lock(&px->lock);
	while (!px->stopping) {
		struct xrma_pximc_notice notice;
		struct xrma_conn *conn;

		if (!px->notice_count) {
			pthread_cond_wait(&px->cond, &px->lock);
			continue;
		}
		notice = px->notices[--px->notice_count];
		pthread_mutex_unlock(&px->lock);
		if (!xrma_conn_open(px->ctx, 0, &conn)) {
			if (!xrma_conn_connect(conn, notice.node, XRMA_PXIMC_PORT, XRMA_PXIMC_CALL_MS))
				(void)xrma_pximc_send_msg(conn, XRMA_PXIMC_MSG_NOTICE, notice.bits, false,
							  NULL, 0, XRMA_PXIMC_CALL_MS);
			xrma_conn_close(conn);
		}
		pthread_mutex_lock(&px->lock);
	}
	pthread_mutex_unlock(&px->lock);
	return NULL;
}

static void *xrma_pximc_service_main(void *arg)
{
	struct xrma_pximc *px = arg;
	struct epoll_event events[16];

	for (;;) {
		int n, timeout;

		pthread_mutex_lock(&px->lock);
		if (px->stopping) {
			pthread_mutex_unlock(&px->lock);
			return NULL;
		}
		xrma_pximc_reap_zombies(px);
		/* Zombies have no event of their own to wake us: look again soon. */
		timeout = px->zombie_count ? 20 : -1;
		pthread_mutex_unlock(&px->lock);
		n = epoll_wait(px->epfd, events, 16, timeout);
		for (int i = 0; i < n; i++) {
			uint64_t tag = events[i].data.u64;

			if (tag == XRMA_PXIMC_TAG_WAKE) {
				uint64_t count;

				if (read(px->wake_fd, &count, sizeof(count)) < 0) {
					/* Nothing pending: another read took it. */
				}
			} else if (tag == XRMA_PXIMC_TAG_LISTENER) {
				xrma_pximc_accept_all(px);
			} else {
				struct xrma_pximc_session *s;

				pthread_mutex_lock(&px->lock);
				s = xrma_pximc_session_find(px, (uint32_t)tag);
				if (s && s->link)
					xrma_pximc_link_input(px, s);
				pthread_mutex_unlock(&px->lock);
			}
		}
	}
}

/* ------------------------------------------------------------------ open / close */

static int xrma_pximc_listen(struct xrma_pximc *px)
{
	uint32_t port = XRMA_PXIMC_PORT;
	int ret = xrma_conn_open(px->ctx, 0, &px->listener);

	if (ret)
		return ret;
	ret = xrma_conn_bind(px->listener, &port, 0, 0);
	if (!ret)
		ret = xrma_conn_listen(px->listener, 64);
	if (ret) {
		xrma_conn_close(px->listener);
		px->listener = NULL;
	}
	return ret;
}

/* pximc.tree_host as a node id; UINT32_MAX (no tree: every node an interface) if unset or bad. */
static uint32_t xrma_pximc_tree_host(void)
{
	struct xrma_config_entry e;
	unsigned long host = UINT32_MAX;
	char *end;

	for (int i = 0; xrma_config_get(i, &e) == 0; i++) {
		if (strcmp(e.key, "pximc.tree_host") || !e.value[0])
			continue;
		host = strtoul(e.value, &end, 0);
		if (*end || host >= UINT32_MAX)
			host = UINT32_MAX;
	}
	return (uint32_t)host;
}

XRMA_PXIMC_EXPORT int xrma_pximc_open(const struct xrma_ctx_attr *attr, struct xrma_pximc **out)
{
	XRMA_ERRNO_KEEP(NULL);
	struct epoll_event ev = { .events = EPOLLIN };
	struct xrma_ctx_info info;
	pthread_condattr_t cattr;
	struct xrma_pximc *px;
	int ret;

	if (!out)
		return -XRMA_EINVAL;
	px = calloc(1, sizeof(*px));
	if (!px)
		return -XRMA_ENOMEM;
	ret = xrma_ctx_open(attr, &px->ctx);
	if (ret)
		goto err_free;
	ret = xrma_ctx_query(px->ctx, &info);
	if (ret)
		goto err_ctx;
	px->self = info.node_id;
	px->win_limit = XRMA_PXIMC_WINDOW_LIMIT;
	if (info.caps.max_seg_size && info.caps.max_seg_size < px->win_limit)
		px->win_limit = info.caps.max_seg_size;
	px->tree_host = xrma_pximc_tree_host();
	/* Windows are used by load and store: without mapping no session can be made. */
	px->can_map = (info.caps.flags & XRMA_CAP_MAP) != 0;
	px->next_session = 1;
	px->next_uid = 1;
	ret = xrma_pximc_listen(px);
	if (ret)
		goto err_ctx;
	ret = -XRMA_ENOMEM;
	px->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (px->epfd < 0)
		goto err_listener;
	px->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (px->wake_fd < 0)
		goto err_epoll;
	ev.data.u64 = XRMA_PXIMC_TAG_WAKE;
	if (epoll_ctl(px->epfd, EPOLL_CTL_ADD, px->wake_fd, &ev))
		goto err_wake;
	ev.data.u64 = XRMA_PXIMC_TAG_LISTENER;
	if (epoll_ctl(px->epfd, EPOLL_CTL_ADD, xrma_conn_fd(px->listener), &ev))
		goto err_wake;
	pthread_mutex_init(&px->lock, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&px->cond, &cattr);
	pthread_condattr_destroy(&cattr);
	if (pthread_create(&px->service, NULL, xrma_pximc_service_main, px))
		goto err_sync;
	if (pthread_create(&px->notifier, NULL, xrma_pximc_notice_main, px)) {
		pthread_mutex_lock(&px->lock);
		px->stopping = true;
		pthread_mutex_unlock(&px->lock);
		xrma_pximc_kick(px);
		pthread_join(px->service, NULL);
		goto err_sync;
	}
	*out = px;
	return 0;
err_sync:
	pthread_cond_destroy(&px->cond);
	pthread_mutex_destroy(&px->lock);
err_wake:
	close(px->wake_fd);
err_epoll:
	close(px->epfd);
err_listener:
	xrma_conn_close(px->listener);
err_ctx:
	xrma_ctx_close(px->ctx);
err_free:
	free(px);
	return ret;
}

/* Close every session and stop the service thread; the context stays open. */
static void xrma_pximc_shutdown(struct xrma_pximc *px)
{
	pthread_mutex_lock(&px->lock);
	xrma_pximc_cleanup_sessions(px);
	px->stopping = true;
	pthread_cond_broadcast(&px->cond);
	pthread_mutex_unlock(&px->lock);
	xrma_pximc_kick(px);
	pthread_join(px->service, NULL);
	pthread_join(px->notifier, NULL);
}

XRMA_PXIMC_EXPORT int xrma_pximc_close(struct xrma_pximc *px)
{
	XRMA_ERRNO_KEEP(NULL);
	if (!px)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&xrma_pximc_default_lock);
	if (px == xrma_pximc_default)
		xrma_pximc_default = NULL;
	pthread_mutex_unlock(&xrma_pximc_default_lock);
	if (xrma_pximc_bound == px)
		xrma_pximc_bound = NULL;
	xrma_pximc_shutdown(px);
	/* Windows still imported by a partner are cut off: this system is going away. */
	for (size_t i = 0; i < px->zombie_count; i++) {
		xrma_seg_unexport(px->zombies[i], XRMA_UNEXPORT_FORCE);
		xrma_seg_close(px->zombies[i]);
	}
	xrma_pximc_device_memory_free(px);
	xrma_conn_close(px->listener);
	close(px->wake_fd);
	close(px->epfd);
	xrma_ctx_close(px->ctx);
	pthread_cond_destroy(&px->cond);
	pthread_mutex_destroy(&px->lock);
	free(px->sessions);
	free(px->ifaces);
	free(px->subscribers);
	free(px->notices);
	free(px->zombies);
	free(px);
	return 0;
}

XRMA_PXIMC_EXPORT int xrma_pximc_use(struct xrma_pximc *px)
{
	XRMA_ERRNO_KEEP(NULL);
	xrma_pximc_bound = px;
	return 0;
}

XRMA_PXIMC_EXPORT int xrma_pximc_node(struct xrma_pximc *px, uint32_t *node)
{
	XRMA_ERRNO_KEEP(NULL);
	if (!px || !node)
		return -XRMA_EINVAL;
	*node = px->self;
	return 0;
}

/*
 * The provider of the default instance: pximc.vendor_provider, else xrma.provider unless that
 * is pximc (the pximc provider runs on this library: a system cannot carry itself), then ntb.
 * "" leaves the choice to the core.
 */
static void xrma_pximc_default_provider(char *name, size_t len)
{
	struct xrma_config_entry e;
	char provider[sizeof(e.value)] = "", vendor[sizeof(e.value)] = "";

	for (int i = 0; xrma_config_get(i, &e) == 0; i++) {
		if (!strcmp(e.key, "provider"))
			snprintf(provider, sizeof(provider), "%s", e.value);
		else if (!strcmp(e.key, "pximc.vendor_provider"))
			snprintf(vendor, sizeof(vendor), "%s", e.value);
	}
	if (vendor[0])
		snprintf(name, len, "%s", vendor);
	else if (!strcmp(provider, "pximc"))
		snprintf(name, len, "ntb");
	else
		name[0] = '\0';
}

/* The calling thread's instance; the default one is opened on first use. */
struct xrma_pximc *xrma_pximc_current(tPXIMC_Status *status)
{
	struct xrma_pximc *px = xrma_pximc_bound;
	struct xrma_ctx_attr attr = { .node_id = XRMA_NODE_ANY };
	char provider[XRMA_NAME_MAX];
	int ret = 0;

	if (px)
		return px;
	pthread_mutex_lock(&xrma_pximc_default_lock);
	if (!xrma_pximc_default) {
		xrma_pximc_default_provider(provider, sizeof(provider));
		attr.provider = provider[0] ? provider : NULL;
		ret = xrma_pximc_open(&attr, &xrma_pximc_default);
	}
	px = xrma_pximc_default;
	pthread_mutex_unlock(&xrma_pximc_default_lock);
	if (ret)
		*status = PXIMC_NO_PROVIDER;
	return px;
}

/* The implicit close of spec 3.3.5.1-O5: sessions end when the library unloads. */
__attribute__((destructor)) static void xrma_pximc_unload(void)
{
	struct xrma_pximc *px;

	pthread_mutex_lock(&xrma_pximc_default_lock);
	px = xrma_pximc_default;
	xrma_pximc_default = NULL;
	pthread_mutex_unlock(&xrma_pximc_default_lock);
	if (px)
		xrma_pximc_close(px);
}
