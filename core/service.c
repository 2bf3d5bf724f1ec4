/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/service.c: the service thread (provider progress) and the callback
 * thread (deferred user code) of a context; see service.h for the split.
 */
#include "core/service.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <xrma/errors.h>
#include "core/ctx.h"
#include "core/prov_call.h"
#include "common/wait.h"

struct xrma_work {
	void (*fn)(void *arg);
	void *arg;
	struct xrma_work *next;
};

static void *service_main(void *arg)
{
	struct xrma_core_ctx *ctx = arg;
	struct xrma_service *svc = &ctx->service;
	struct epoll_event ev[4];

	while (!atomic_load(&svc->stop)) {
		int n = epoll_wait(svc->epfd, ev, 4, -1);

		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++)
			if (ev[i].data.u32 == 1)
				xrma_core_call_progress(ctx);
	}
	return NULL;
}

/* On a callback thread, for its lifetime: the context whose callbacks it runs. */
static _Thread_local const struct xrma_core_ctx *callback_ctx;

static void *callback_main(void *arg)
{
	struct xrma_core_ctx *ctx = arg;
	struct xrma_service *svc = &ctx->service;
	struct xrma_deadline forever;

	callback_ctx = ctx;
	xrma_deadline_set(&forever, -1);
	xrma_lock(&svc->lock);
	for (;;) {
		struct xrma_work *w = svc->head;

		if (!w) {
			if (svc->cb_stop)
				break;
			xrma_cond_wait(&svc->cond, &svc->lock, &forever);
			continue;
		}
		svc->head = w->next;
		if (!svc->head)
			svc->tail = NULL;
		svc->cb_running++;
		xrma_unlock(&svc->lock);
		w->fn(w->arg);
		free(w);
		xrma_lock(&svc->lock);
		svc->cb_running--;
	}
	xrma_unlock(&svc->lock);
	return NULL;
}

int xrma_service_start(struct xrma_core_ctx *ctx)
{
	struct xrma_service *svc = &ctx->service;
	struct epoll_event ev = { .events = EPOLLIN };
	int pfd, ret;

	atomic_init(&svc->stop, false);
	xrma_lock_init(&svc->lock);
	xrma_cond_init(&svc->cond);
	svc->head = svc->tail = NULL;
	svc->cb_started = svc->cb_stop = false;
	svc->cb_running = 0;
	svc->epfd = epoll_create1(EPOLL_CLOEXEC);
	svc->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (svc->epfd < 0 || svc->wakefd < 0)
		goto err_close_fds;
	pfd = xrma_core_call_progress_fd(ctx);
	ev.data.u32 = 1;
	if (pfd < 0 || epoll_ctl(svc->epfd, EPOLL_CTL_ADD, pfd, &ev))
		goto err_close_fds;
	ev.data.u32 = 2;
	if (epoll_ctl(svc->epfd, EPOLL_CTL_ADD, svc->wakefd, &ev))
		goto err_close_fds;
	ret = pthread_create(&svc->thread, NULL, service_main, ctx);
	if (ret)
		goto err_close_fds;
	xrma_core_placement_start_thread(&ctx->placement, svc->thread, "xrma-service");
	return 0;

err_close_fds:
	if (svc->epfd >= 0)
		close(svc->epfd);
	if (svc->wakefd >= 0)
		close(svc->wakefd);
	xrma_cond_destroy(&svc->cond);
	xrma_lock_destroy(&svc->lock);
	return -XRMA_ENOMEM;
}

void xrma_service_stop(struct xrma_core_ctx *ctx)
{
	struct xrma_service *svc = &ctx->service;
	uint64_t one = 1;
	bool joined_cb;

	atomic_store(&svc->stop, true);
	if (write(svc->wakefd, &one, sizeof(one)) < 0) {
		/* An eventfd write only fails on overflow, which still wakes epoll. */
	}
	pthread_join(svc->thread, NULL);
	xrma_lock(&svc->lock);
	svc->cb_stop = true;
	joined_cb = svc->cb_started;
	xrma_cond_broadcast(&svc->cond);
	xrma_unlock(&svc->lock);
	if (joined_cb)
		pthread_join(svc->cb_thread, NULL);
	close(svc->epfd);
	close(svc->wakefd);
	xrma_cond_destroy(&svc->cond);
	xrma_lock_destroy(&svc->lock);
}

int xrma_service_defer(struct xrma_core_ctx *ctx, void (*fn)(void *arg), void *arg)
{
	struct xrma_service *svc = &ctx->service;
	struct xrma_work *w = malloc(sizeof(*w));
	int ret = 0;

	if (!w)
		return -XRMA_ENOMEM;
	w->fn = fn;
	w->arg = arg;
	w->next = NULL;
	xrma_lock(&svc->lock);
	if (!svc->cb_started) {
		if (pthread_create(&svc->cb_thread, NULL, callback_main, ctx)) {
			ret = -XRMA_ENOMEM;
			goto out_unlock;
		}
		svc->cb_started = true;
	}
	if (svc->tail)
		svc->tail->next = w;
	else
		svc->head = w;
	svc->tail = w;
	w = NULL;
	xrma_cond_broadcast(&svc->cond);
out_unlock:
	xrma_unlock(&svc->lock);
	free(w);
	return ret;
}

bool xrma_service_on_service_thread(struct xrma_core_ctx *ctx)
{
	return pthread_equal(pthread_self(), ctx->service.thread);
}

bool xrma_service_on_callback_thread(struct xrma_core_ctx *ctx)
{
	return callback_ctx == ctx;
}

bool xrma_service_in_callback(void)
{
	return callback_ctx != NULL;
}
