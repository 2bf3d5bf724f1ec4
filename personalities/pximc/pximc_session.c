/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_session.c: what a process does with a session it holds (spec 3.3.2.4
 * to 3.3.5): wait for the connection, physical address and device access, events, close and
 * cleanup. Session events are a one-deep flag per session, set by the service thread from the
 * link; CONNECTION_CLOSED is sticky (docs/pximc.md).
 */
#include "personalities/pximc/pximc_vendor.h"

/* How often a blocked waitForConnection re-checks that its interface is still there. */
#define XRMA_PXIMC_LIVENESS_MS 100u

/* Lock px and find session number; NULL, and px unlocked, when there is none. */
static struct xrma_pximc_session *xrma_pximc_session_lock(struct xrma_pximc *px, uint32_t number)
{
	struct xrma_pximc_session *s;

	pthread_mutex_lock(&px->lock);
	s = xrma_pximc_session_find(px, number);
	if (!s)
		pthread_mutex_unlock(&px->lock);
	return s;
}

static bool xrma_pximc_is_paired(const struct xrma_pximc_session *s)
{
	return s->state == XRMA_PXIMC_PAIRING || s->state == XRMA_PXIMC_PAIRED;
}

tPXIMC_Status xrma_pximc_wait_connection(struct xrma_pximc *px, uint32_t number,
					 uint32_t timeout_ms, void **remote_addr,
					 uint64_t *remote_size, void **local_addr,
					 uint64_t *local_size)
{
	uint64_t deadline = xrma_pximc_deadline(timeout_ms);
	tPXIMC_Status status = PXIMC_TIMEOUT;
	struct xrma_pximc_session *s;
	uint32_t iface;

	s = xrma_pximc_session_lock(px, number);
	if (!s)
		return PXIMC_INVALID_SESSION;
	/* Outputs for a window that was not requested may be NULL (3.3.2.4.1-O7). */
	if ((s->max_remote && (!remote_addr || !remote_size)) ||
	    (s->max_local && (!local_addr || !local_size))) {
		pthread_mutex_unlock(&px->lock);
		return PXIMC_INVALID_ARGUMENT;
	}
	s->waiters++;
	for (;;) {
		uint64_t slice = xrma_pximc_now_ms() + XRMA_PXIMC_LIVENESS_MS;

		if (s->closed) {
			status = PXIMC_INVALID_SESSION;
			break;
		}
		if (s->state == XRMA_PXIMC_PAIRED && s->loc_type == PXIMC_LOCATION_PHYSICAL &&
		    s->conn_type == PXIMC_CONNECTION_SERVER) {
			/* It cannot reach either window: NULL and 0/0 (3.3.2.4.1-R8, A.2). */
			if (remote_addr)
				*remote_addr = NULL;
			if (remote_size)
				*remote_size = 0;
			*local_addr = NULL;
			*local_size = 0;
			status = PXIMC_SUCCESS;
			break;
		}
		if (s->state == XRMA_PXIMC_PAIRED) {
			if (remote_addr)
				*remote_addr = s->remote_size ? s->remote_addr : NULL;
			if (remote_size)
				*remote_size = s->remote_size;
			if (local_addr)
				*local_addr = s->local_size ? s->local_addr : NULL;
			if (local_size)
				*local_size = s->local_size;
			status = PXIMC_SUCCESS;
			break;
		}
		if (s->state == XRMA_PXIMC_REMOTE_CLOSED) {
			status = PXIMC_SESSION_CLOSED;
			break;
		}
		if (xrma_pximc_now_ms() >= deadline)
			break;
		xrma_pximc_cond_wait(px, slice < deadline ? slice : deadline);
		/* An interface that went away ends the wait at once (3.3.2.4.1-R7). */
		if (!s->closed && xrma_pximc_iface_node(px, s->node + 1, &iface)) {
			status = PXIMC_INTERFACE_DOWN;
			break;
		}
	}
	xrma_pximc_session_release(px, s);
	pthread_mutex_unlock(&px->lock);
	if (status == PXIMC_SUCCESS)
		XRMA_KILL_POINT("pximc.wait_connection.after_pairing");
	return status;
}

tPXIMC_Status xrma_pximc_assert_event(struct xrma_pximc *px, uint32_t number)
{
	struct xrma_pximc_session *s;
	struct xrma_rintr *partner;
	struct xrma_conn *link;
	uint32_t node;
	int ret;

	s = xrma_pximc_session_lock(px, number);
	if (!s)
		return PXIMC_INVALID_SESSION;
	if (s->state == XRMA_PXIMC_REMOTE_CLOSED) {
		pthread_mutex_unlock(&px->lock);
		return PXIMC_SESSION_CLOSED;
	}
	if (!xrma_pximc_is_paired(s)) {
		pthread_mutex_unlock(&px->lock);
		return PXIMC_NO_PAIRING;
	}
	partner = s->partner_intr;
	link = s->link;
	node = s->node;
	pthread_mutex_unlock(&px->lock);
	if (!xrma_pximc_link_up(px, node)) {
		pthread_mutex_lock(&px->lock);
		xrma_pximc_iface_link(px, node, false);
		pthread_mutex_unlock(&px->lock);
		return PXIMC_INTERFACE_DOWN;
	}
	/* Stores to the remote window must be visible before the event (3.3.4.1-R1). */
	atomic_thread_fence(memory_order_seq_cst);
	XRMA_KILL_POINT("pximc.assert_event.before_trigger");
	/* The partner's interrupt once we know it; until then (owner still pairing) the link. */
	if (partner)
		ret = xrma_rintr_trigger(partner, NULL, 0);
	else
		ret = xrma_pximc_send_msg(link, XRMA_PXIMC_MSG_ASSERT, 0, false, NULL, 0, XRMA_PXIMC_CALL_MS);
	/* A full queue means the flag is set already: that is the one-deep flag's answer. */
	if (!ret || ret == -XRMA_EAGAIN)
		return PXIMC_SUCCESS;
	if (ret == -XRMA_EHANDLE)
		return PXIMC_INVALID_SESSION;
	return PXIMC_SESSION_CLOSED;
}

/* Take the flag: CONNECTION_CLOSED stays set for every later wait. */
static unsigned xrma_pximc_take_event(struct xrma_pximc_session *s)
{
	unsigned event = atomic_load(&s->event);

	while (event && event != PXIMC_EVENT_CONNECTION_CLOSED &&
	       !atomic_compare_exchange_weak(&s->event, &event, 0))
		;
	return event;
}

bool xrma_pximc_event_pending(struct xrma_pximc_session *s)
{
	unsigned expected = 0;

	if (atomic_load(&s->event))
		return true;
	if (!s->intr || xrma_intr_wait(s->intr, 0, NULL, NULL))
		return false;
	/* A trigger nobody took yet: keep it as the flag (one-deep), and knock for a waiter. */
	while (xrma_intr_wait(s->intr, 0, NULL, NULL) == 0)
		;
	atomic_compare_exchange_strong(&s->event, &expected, PXIMC_EVENT_ASSERTED);
	if (s->local_waiting && s->wake)
		(void)xrma_rintr_trigger(s->wake, NULL, 0);
	return true;
}

/* Milliseconds left until deadline, as the core's int timeout (-1: for ever). */
static int xrma_pximc_left_ms(uint64_t deadline)
{
	uint64_t now = xrma_pximc_now_ms();

	if (deadline == UINT64_MAX)
		return -1;
	if (now >= deadline)
		return 0;
	return deadline - now > INT32_MAX ? INT32_MAX : (int)(deadline - now);
}

/* A blocked wait looks at the link this often: no core event tells us our own went down. */
#define XRMA_PXIMC_LINK_POLL_MS 100

static int xrma_pximc_slice_ms(uint64_t deadline)
{
	int left = xrma_pximc_left_ms(deadline);

	return left < 0 || left > XRMA_PXIMC_LINK_POLL_MS ? XRMA_PXIMC_LINK_POLL_MS : left;
}

static void xrma_pximc_session_watch_link(struct xrma_pximc *px, uint32_t node)
{
	bool up = xrma_pximc_link_up(px, node);

	pthread_mutex_lock(&px->lock);
	xrma_pximc_iface_link(px, node, up);
	pthread_mutex_unlock(&px->lock);
}

tPXIMC_Status xrma_pximc_wait_session_event(struct xrma_pximc *px, uint32_t number,
					    uint32_t timeout_ms, uint32_t *reason)
{
	uint64_t deadline = xrma_pximc_deadline(timeout_ms);
	tPXIMC_Status status = PXIMC_TIMEOUT;
	struct xrma_pximc_session *s;
	struct xrma_intr *intr;
	unsigned event;
	int ret;

	s = xrma_pximc_session_lock(px, number);
	if (!s)
		return PXIMC_INVALID_SESSION;
	if (!reason) {
		pthread_mutex_unlock(&px->lock);
		return PXIMC_INVALID_ARGUMENT;
	}
	if (!xrma_pximc_is_paired(s) && s->state != XRMA_PXIMC_REMOTE_CLOSED) {
		pthread_mutex_unlock(&px->lock);
		return PXIMC_NO_PAIRING;
	}
	s->waiters++;
	s->local_waiting = true;
	intr = s->intr;
	pthread_mutex_unlock(&px->lock);
	/*
	 * Each assert is one trigger of our interrupt; flag events (closed, or an assert that
	 * came over the link while pairing) also knock on it. The session stays allocated while
	 * we count as a waiter, so its flag is safe to read without the lock.
	 */
	for (;;) {
		event = xrma_pximc_take_event(s);
		ret = event ? 0 : xrma_intr_wait(intr, xrma_pximc_slice_ms(deadline), NULL, NULL);
		if (ret != -XRMA_ETIMEDOUT || !xrma_pximc_left_ms(deadline))
			break;
		xrma_pximc_session_watch_link(px, s->node);
	}
	if (!ret) {
		/* One-deep: triggers that piled up while nobody waited are this one event. */
		while (xrma_intr_wait(intr, 0, NULL, NULL) == 0)
			;
		if (!event)
			event = xrma_pximc_take_event(s);
		*reason = event ? event : PXIMC_EVENT_ASSERTED;
		status = PXIMC_SUCCESS;
	} else if (ret != -XRMA_ETIMEDOUT) {
		status = PXIMC_INVALID_SESSION;  /* closed by another thread meanwhile */
	}
	pthread_mutex_lock(&px->lock);
	s->local_waiting = false;
	xrma_pximc_session_release(px, s);
	pthread_mutex_unlock(&px->lock);
	return status;
}

tPXIMC_Status xrma_pximc_close_window(struct xrma_pximc *px, uint32_t number)
{
	struct xrma_pximc_session *s;

	pthread_mutex_lock(&px->lock);
	s = xrma_pximc_session_find(px, number);
	/* A session still being requested has no number its caller knows yet. */
	if (!s || s->state == XRMA_PXIMC_CLAIMING) {
		pthread_mutex_unlock(&px->lock);
		return PXIMC_INVALID_SESSION;
	}
	xrma_pximc_session_free_resources(px, s);
	XRMA_KILL_POINT("pximc.close_session.mid");
	xrma_pximc_session_drop(px, s);
	pthread_mutex_unlock(&px->lock);
	return PXIMC_SUCCESS;
}

tPXIMC_Status xrma_pximc_cleanup(struct xrma_pximc *px)
{
	pthread_mutex_lock(&px->lock);
	xrma_pximc_cleanup_sessions(px);
	pthread_mutex_unlock(&px->lock);
	return PXIMC_SUCCESS;
}

/* Common state checks of getPhysicalAddress and enableDeviceAccess. Under lock. */
static tPXIMC_Status xrma_pximc_check_physical(struct xrma_pximc *px,
					       const struct xrma_pximc_session *s)
{
	struct xrma_ctx_info info;

	if (s->state == XRMA_PXIMC_REMOTE_CLOSED)
		return PXIMC_SESSION_CLOSED;
	if (s->state != XRMA_PXIMC_PAIRED)
		return PXIMC_NO_PAIRING;
	if (!s->remote_size)
		return PXIMC_NO_WINDOW;
	/* Only a provider that models bus addresses has them (XRMA_CAP_BUS_ADDR). */
	if (xrma_ctx_query(px->ctx, &info) || !(info.caps.flags & XRMA_CAP_BUS_ADDR))
		return PXIMC_PHY_RESOURCE_NOT_AVAILABLE;
	return PXIMC_SUCCESS;
}

tPXIMC_Status xrma_pximc_physical_address(struct xrma_pximc *px, uint32_t number, uint64_t *address)
{
	struct xrma_pximc_session *s;
	tPXIMC_Status status;

	pthread_mutex_lock(&px->lock);
	s = xrma_pximc_session_find(px, number);
	if (!s)
		status = PXIMC_INVALID_SESSION;
	else if (!address)
		status = PXIMC_INVALID_ARGUMENT;
	else
		status = xrma_pximc_check_physical(px, s);
	/* A window the provider gave no single bus range has no physical address (3.3.3.1-R1). */
	if (!status && s->remote_bus == UINT64_MAX)
		status = PXIMC_PHY_RESOURCE_NOT_AVAILABLE;
	if (!status)
		*address = s->remote_bus;
	pthread_mutex_unlock(&px->lock);
	return status;
}

tPXIMC_Status xrma_pximc_device_access(struct xrma_pximc *px, uint32_t number, uint32_t mode,
				       uint32_t bus, uint32_t dev, uint32_t func)
{
	const uint32_t rw = PXIMC_DEVICE_ACCESS_READ | PXIMC_DEVICE_ACCESS_WRITE;
	struct xrma_pximc_session *s;
	tPXIMC_Status status;
	uint32_t bdf = bus << 8 | dev << 3 | func;

	pthread_mutex_lock(&px->lock);
	s = xrma_pximc_session_find(px, number);
	if (!s)
		status = PXIMC_INVALID_SESSION;
	else if ((mode != PXIMC_DEVICE_ACCESS_CLEAR_ALL && (!mode || (mode & ~rw))) || bus > 255 ||
		 dev > 31 || func > 7)
		status = PXIMC_INVALID_ARGUMENT;
	else
		status = xrma_pximc_check_physical(px, s);
	if (status) {
		pthread_mutex_unlock(&px->lock);
		return status;
	}
	/* Grants accumulate per device; CLEAR_ALL forgets the device (docs/pximc.md). */
	for (unsigned i = 0; i < s->device_count; i++) {
		if (s->device_access[i][0] != bdf)
			continue;
		if (mode == PXIMC_DEVICE_ACCESS_CLEAR_ALL)
			s->device_access[i][0] = s->device_access[--s->device_count][0],
			s->device_access[i][1] = s->device_access[s->device_count][1];
		else
			s->device_access[i][1] |= mode;
		pthread_mutex_unlock(&px->lock);
		return PXIMC_SUCCESS;
	}
	if (mode != PXIMC_DEVICE_ACCESS_CLEAR_ALL) {
		if (s->device_count == sizeof(s->device_access) / sizeof(s->device_access[0])) {
			status = PXIMC_PHY_RESOURCE_NOT_AVAILABLE;
		} else {
			s->device_access[s->device_count][0] = bdf;
			s->device_access[s->device_count++][1] = mode;
		}
	}
	pthread_mutex_unlock(&px->lock);
	return status;
}
