/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_chan.c: the control channel between endpoints.
 *
 * Every endpoint listens on an abstract SOCK_SEQPACKET socket named after its
 * fabric, node and endpoint number: packets keep their boundaries, arrive
 * reliably and in order, can carry descriptors, and the kernel tells the
 * other end the moment a process dies. Messages from A to B always travel on
 * A's one outgoing connection to B, so order per source holds without
 * sequence numbers. Both ends check SO_PEERCRED: an acceptor refuses users it
 * does not allow, a dialler refuses a listener squatting on the name.
 *
 * Sends never block the sender on a slow peer: a packet that does not fit is
 * queued and the service thread flushes it when the socket drains. A peer that
 * closes says BYE first (XRMA_ECONNRESET); one whose sockets hang up without it
 * died (XRMA_ELOST). Either way its remaining packets are delivered first.
 */
#include "providers/util/hostfab.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>


void hostfab_sockname(const struct hostfab_ep *ep, uint32_t node, uint32_t epno, char *buf,
		      size_t len, socklen_t *addrlen)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)buf;
	int n;

	memset(buf, 0, len);
	sun->sun_family = AF_UNIX;
	/* Abstract: sun_path[0] is NUL; nothing to clean up on the file system. */
	n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1, "xrma.%s.%u.%u", ep->ns, node, epno);
	*addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

bool hostfab_cred_ok(const struct hostfab_ep *ep, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return false;
	if (cred.uid == ep->uid || ep->allow_any)
		return true;
	for (uint32_t i = 0; i < ep->allow_count; i++)
		if (ep->allow[i] == cred.uid)
			return true;
	return false;
}

int hostfab_chan_listen(struct hostfab_ep *ep)
{
	char sa[sizeof(struct sockaddr_un)];
	socklen_t alen;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	ep->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (ep->listen_fd < 0)
		return -XRMA_EIO;
	hostfab_sockname(ep, ep->self.node, ep->self.ep, sa, sizeof(sa), &alen);
	if (bind(ep->listen_fd, (struct sockaddr *)sa, alen) != 0) {
		hostfab_detail("%s: cannot bind the control socket of node %u: %s", ep->model->name,
			       ep->self.node, strerror(errno));
		return errno == EADDRINUSE ? -XRMA_EADDRINUSE : -XRMA_EIO;
	}
	if (listen(ep->listen_fd, 128) != 0)
		return -XRMA_EIO;
	ep->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ep->epfd < 0 || epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->listen_fd, &ev) != 0)
		return -XRMA_EIO;
	ep->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (ep->reserve_fd < 0)
		return errno == EMFILE || errno == ENFILE ? -XRMA_ENOMEM : -XRMA_EIO;
	return 0;
}

int hostfab_chan_dial(struct hostfab_ep *ep, const struct xrma_prov_addr *dst)
{
	char sa[sizeof(struct sockaddr_un)];
	socklen_t alen;
	int fd, r;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -XRMA_EIO;
	hostfab_sockname(ep, dst->node, dst->ep, sa, sizeof(sa), &alen);
	do
		r = connect(fd, (struct sockaddr *)sa, alen);
	while (r != 0 && errno == EINTR);
	if (r != 0) {
		int err = errno;

		close(fd);
		/* Nobody listens: the endpoint closed or died. */
		return err == ECONNREFUSED || err == ENOENT ? -XRMA_ECONNRESET : -XRMA_EIO;
	}
	if (!hostfab_cred_ok(ep, fd)) {
		close(fd);
		hostfab_detail("%s: the endpoint %u.%u is run by a user this endpoint does not allow",
			       ep->model->name, dst->node, dst->ep);
		return -XRMA_EACCES;
	}
	return fd;
}

/* ---- packets ---- */

int hostfab_pkt_send(int fd, const void *buf, size_t len, int pass_fd)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	union {
		struct cmsghdr hdr;
		char space[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (pass_fd >= 0) {
		struct cmsghdr *c;

		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.space;
		msg.msg_controllen = sizeof(cm.space);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	do
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EPIPE || errno == ECONNRESET ? -XRMA_ELOST : -XRMA_EIO;
	return 0;
}

int hostfab_pkt_recv(int fd, void *buf, size_t len, int *got_fd, int timeout_ms)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	union {
		struct cmsghdr hdr;
		char space[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int r;

	if (got_fd)
		*got_fd = -1;
	do
		r = poll(&pfd, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return -XRMA_ETIMEDOUT;
	if (r < 0)
		return -XRMA_EIO;
	msg.msg_control = cm.space;
	msg.msg_controllen = sizeof(cm.space);
	do
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n == 0 || (n < 0 && errno == ECONNRESET))
		return -XRMA_ELOST;
	if (n < 0)
		return -XRMA_EIO;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int passed;

			memcpy(&passed, CMSG_DATA(c), sizeof(int));
			if (got_fd && *got_fd < 0)
				*got_fd = passed;
			else
				close(passed);
		}
	}
	return (int)n;
}

/* ---- connections ---- */

static struct hostfab_gone *gone_of(struct hostfab_ep *ep)
{
	return &ep->gone;
}

static bool addr_eq(const struct xrma_prov_addr *a, const struct xrma_prov_addr *b)
{
	return a->node == b->node && a->ep == b->ep;
}

static bool gone_has_locked(struct hostfab_ep *ep, const struct xrma_prov_addr *a)
{
	struct hostfab_gone *g = gone_of(ep);

	for (size_t i = 0; i < g->n; i++)
		if (addr_eq(&g->addr[i], a))
			return true;
	return false;
}

static void gone_add_locked(struct hostfab_ep *ep, const struct xrma_prov_addr *a)
{
	struct hostfab_gone *g = gone_of(ep);

	g->addr[g->next] = *a;
	g->next = (g->next + 1) % HOSTFAB_GONE_MAX;
	if (g->n < HOSTFAB_GONE_MAX)
		g->n++;
}

static struct hostfab_conn *conn_new(int fd, enum hostfab_conn_kind kind)
{
	struct hostfab_conn *c = calloc(1, sizeof(*c));

	if (c) {
		c->fd = fd;
		c->kind = kind;
	}
	return c;
}

static void conn_unlink_locked(struct hostfab_ep *ep, struct hostfab_conn *c)
{
	for (struct hostfab_conn **pp = &ep->conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			return;
		}
	}
}

static void conn_free(struct hostfab_ep *ep, struct hostfab_conn *c)
{
	struct hostfab_qpkt *q, *qn;

	epoll_ctl(ep->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	for (q = c->q_head; q; q = qn) {
		qn = q->next;
		free(q);
	}
	if (c->stage_buf)
		hostfab_stage_release(c);
	free(c);
}

static int conn_watch(struct hostfab_ep *ep, struct hostfab_conn *c, bool out)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLRDHUP | (out ? EPOLLOUT : 0),
		.data.ptr = c,
	};

	return epoll_ctl(ep->epfd, EPOLL_CTL_ADD, c->fd, &ev) ? -XRMA_EIO : 0;
}

static void conn_want_out_locked(struct hostfab_ep *ep, struct hostfab_conn *c, bool want)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLRDHUP | (want ? EPOLLOUT : 0),
		.data.ptr = c,
	};

	if (c->want_out == want)
		return;
	c->want_out = want;
	epoll_ctl(ep->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Send header + payload without blocking: 0 sent, 1 no room, or a negative code. */
static int conn_try_send(int fd, const struct hostfab_hdr *hdr, const void *msg, size_t len)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)hdr, .iov_len = sizeof(*hdr) },
		{ .iov_base = (void *)msg, .iov_len = len },
	};
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	do
		n = sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		return 0;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
		return 1;
	return errno == EPIPE || errno == ECONNRESET ? -XRMA_ECONNRESET : -XRMA_EIO;
}

static int conn_queue_locked(struct hostfab_ep *ep, struct hostfab_conn *c,
			     const struct hostfab_hdr *hdr, const void *msg, size_t len)
{
	struct hostfab_qpkt *q = malloc(sizeof(*q) + sizeof(*hdr) + len);

	if (!q)
		return -XRMA_ENOMEM;
	q->next = NULL;
	q->len = sizeof(*hdr) + len;
	memcpy(q->data, hdr, sizeof(*hdr));
	if (len)
		memcpy(q->data + sizeof(*hdr), msg, len);
	if (c->q_tail)
		c->q_tail->next = q;
	else
		c->q_head = q;
	c->q_tail = q;
	conn_want_out_locked(ep, c, true);
	return 0;
}

/* Send in order: straight out if nothing waits, else behind the queue. */
static int conn_send_locked(struct hostfab_ep *ep, struct hostfab_conn *c, uint32_t kind,
			    const void *msg, size_t len)
{
	struct hostfab_hdr hdr = { .kind = kind, .node = ep->self.node, .ep = ep->self.ep };
	int r;

	if (c->q_head)
		return conn_queue_locked(ep, c, &hdr, msg, len);
	r = conn_try_send(c->fd, &hdr, msg, len);
	if (r == 1)
		return conn_queue_locked(ep, c, &hdr, msg, len);
	return r;
}

static void conn_flush_locked(struct hostfab_ep *ep, struct hostfab_conn *c)
{
	while (c->q_head) {
		struct hostfab_qpkt *q = c->q_head;
		ssize_t n = send(c->fd, q->data, q->len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS || errno == EINTR)
				return;
			break;   /* the hang-up is handled as the connection's death */
		}
		c->q_head = q->next;
		if (!c->q_head)
			c->q_tail = NULL;
		free(q);
	}
	if (!c->q_head)
		conn_want_out_locked(ep, c, false);
}

static struct hostfab_conn *out_conn_find_locked(struct hostfab_ep *ep,
						 const struct xrma_prov_addr *dst)
{
	for (struct hostfab_conn *c = ep->conns; c; c = c->next)
		if (c->kind == HOSTFAB_CONN_OUT && addr_eq(&c->peer, dst))
			return c;
	return NULL;
}

int hostfab_ctrl_send(void *state, const struct xrma_prov_addr *dst, const void *msg, size_t len)
{
	struct hostfab_ep *ep = state;
	struct hostfab_conn *c;
	int fd, ret;

	if (!ep || !dst || !msg || !len)
		return -XRMA_EINVAL;
	if (len > 65536)
		return -XRMA_EMSGSIZE;
	pthread_mutex_lock(&ep->lock);
	if (gone_has_locked(ep, dst)) {
		pthread_mutex_unlock(&ep->lock);
		return -XRMA_ECONNRESET;
	}
	c = out_conn_find_locked(ep, dst);
	if (c) {
		ret = conn_send_locked(ep, c, HOSTFAB_MSG_CTRL, msg, len);
		pthread_mutex_unlock(&ep->lock);
		return ret;
	}
	pthread_mutex_unlock(&ep->lock);

	/* Dial without the lock: connect may wait for the peer's backlog. */
	fd = hostfab_chan_dial(ep, dst);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&ep->lock);
	c = out_conn_find_locked(ep, dst);
	if (c || ep->closing || gone_has_locked(ep, dst)) {
		close(fd);   /* another sender won the race (or we are going away) */
		ret = c ? conn_send_locked(ep, c, HOSTFAB_MSG_CTRL, msg, len) : -XRMA_ECONNRESET;
		pthread_mutex_unlock(&ep->lock);
		return ret;
	}
	c = conn_new(fd, HOSTFAB_CONN_OUT);
	if (!c) {
		pthread_mutex_unlock(&ep->lock);
		close(fd);
		return -XRMA_ENOMEM;
	}
	c->peer = *dst;
	c->peer_known = true;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ret = conn_watch(ep, c, false);
	if (!ret)
		ret = conn_send_locked(ep, c, HOSTFAB_MSG_HELLO, NULL, 0);
	if (ret) {
		pthread_mutex_unlock(&ep->lock);
		conn_free(ep, c);
		return ret;
	}
	c->next = ep->conns;
	ep->conns = c;
	ret = conn_send_locked(ep, c, HOSTFAB_MSG_CTRL, msg, len);
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

/* ---- receiving ---- */

/* The service thread's receive buffer (one per endpoint). */
struct hostfab_rx {
	unsigned char buf[HOSTFAB_PKT_MAX];
};

/* Deliver one packet that arrived on c. Returns false if c was consumed. */
static bool rx_packet(struct hostfab_ep *ep, struct hostfab_conn *c, const unsigned char *pkt,
		      size_t n, struct xrma_prov_addr *bye_from)
{
	struct hostfab_hdr hdr;
	struct xrma_prov_addr src;

	if (n < sizeof(hdr))
		return true;
	memcpy(&hdr, pkt, sizeof(hdr));
	src.node = hdr.node;
	src.ep = hdr.ep;
	switch (hdr.kind) {
	case HOSTFAB_MSG_HELLO:
		if (c->kind == HOSTFAB_CONN_IN && !c->peer_known) {
			pthread_mutex_lock(&ep->lock);
			c->peer = src;
			c->peer_known = true;
			pthread_mutex_unlock(&ep->lock);
		}
		return true;
	case HOSTFAB_MSG_CTRL:
		if (c->peer_known && ep->upcalls.ctrl_recv)
			ep->upcalls.ctrl_recv(ep->core, &c->peer, pkt + sizeof(hdr), n - sizeof(hdr));
		return true;
	case HOSTFAB_MSG_BYE:
		if (c->peer_known)
			*bye_from = c->peer;
		return true;
	case HOSTFAB_MSG_LINK:
		if (ep->upcalls.link_event && n >= sizeof(hdr) + 2 * sizeof(uint32_t)) {
			uint32_t v[2];

			memcpy(v, pkt + sizeof(hdr), sizeof(v));
			ep->upcalls.link_event(ep->core, v[0], v[1] != 0);
		}
		return true;
	case HOSTFAB_MSG_FETCH:
	case HOSTFAB_MSG_STAGE:
		if (c->kind == HOSTFAB_CONN_IN && !c->peer_known)
			hostfab_mem_serve(ep, c, pkt, n);
		return true;
	case HOSTFAB_MSG_STAGE_OP:
		if (c->kind == HOSTFAB_CONN_STAGE)
			hostfab_stage_serve(ep, c, pkt, n);
		return true;
	default:
		return true;
	}
}

/*
 * Read what c holds. Returns 1 if c hung up (EOF or error), 0 otherwise.
 * max bounds the packets taken per call so one busy peer cannot starve others.
 */
static int rx_drain(struct hostfab_ep *ep, struct hostfab_conn *c, struct hostfab_rx *rx, int max,
		    struct xrma_prov_addr *bye_from, bool *bye)
{
	for (int i = 0; i < max; i++) {
		ssize_t n = recv(c->fd, rx->buf, sizeof(rx->buf), MSG_DONTWAIT);

		if (n > 0) {
			struct xrma_prov_addr from = { UINT32_MAX, UINT32_MAX };

			rx_packet(ep, c, rx->buf, (size_t)n, &from);
			if (from.node != UINT32_MAX) {
				*bye_from = from;
				*bye = true;
			}
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		return 1;
	}
	return 0;
}

/*
 * peer is gone: deliver what its connections still hold, close them, tell the
 * core once. Runs on the service thread only.
 */
static void peer_gone(struct hostfab_ep *ep, const struct xrma_prov_addr *peer, int status,
		      struct hostfab_rx *rx)
{
	struct hostfab_conn *doomed = NULL, **pp, *c;
	struct xrma_prov_addr dummy;
	bool bye = false, told;

	pthread_mutex_lock(&ep->lock);
	told = gone_has_locked(ep, peer);
	if (!told)
		gone_add_locked(ep, peer);
	for (pp = &ep->conns; (c = *pp);) {
		if (c->peer_known && addr_eq(&c->peer, peer) &&
		    (c->kind == HOSTFAB_CONN_OUT || c->kind == HOSTFAB_CONN_IN)) {
			*pp = c->next;
			c->next = doomed;
			doomed = c;
		} else {
			pp = &c->next;
		}
	}
	pthread_mutex_unlock(&ep->lock);
	for (c = doomed; c; c = c->next)
		if (c->kind == HOSTFAB_CONN_IN)
			rx_drain(ep, c, rx, 1 << 20, &dummy, &bye);
	while ((c = doomed)) {
		doomed = c->next;
		conn_free(ep, c);
	}
	/* A death leaves its entries in its node's directory: clear them now. */
	if (!told && !bye && status == -XRMA_ELOST)
		hostfab_dir_sweep(ep, peer->node);
	if (!told && ep->upcalls.peer_down)
		ep->upcalls.peer_down(ep->core, peer, bye ? -XRMA_ECONNRESET : status);
}

/*
 * A peer's replies come in on connections it dials to us. A process out of
 * descriptors could not take them and would wait for its answers for ever, so
 * one descriptor is held in reserve and given up for the connection; it is
 * taken back once descriptors are free again.
 */
static int accept_one(struct hostfab_ep *ep)
{
	int fd = accept4(ep->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && ep->reserve_fd >= 0) {
		close(ep->reserve_fd);
		ep->reserve_fd = -1;
		fd = accept4(ep->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	}
	return fd;
}

static void accept_all(struct hostfab_ep *ep)
{
	if (ep->reserve_fd < 0)
		ep->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	for (;;) {
		int fd = accept_one(ep);
		struct hostfab_conn *c;

		if (fd < 0)
			return;
		if (!hostfab_cred_ok(ep, fd)) {
			close(fd);   /* a user we do not allow: not a word */
			continue;
		}
		c = conn_new(fd, HOSTFAB_CONN_IN);
		if (!c || conn_watch(ep, c, false)) {
			free(c);
			close(fd);
			continue;
		}
		pthread_mutex_lock(&ep->lock);
		c->next = ep->conns;
		ep->conns = c;
		pthread_mutex_unlock(&ep->lock);
	}
}

/* Close a connection that carried no peer (a one-shot, or a refused dial). */
static void conn_drop(struct hostfab_ep *ep, struct hostfab_conn *c)
{
	pthread_mutex_lock(&ep->lock);
	conn_unlink_locked(ep, c);
	pthread_mutex_unlock(&ep->lock);
	conn_free(ep, c);
}

int hostfab_progress_fd(void *state)
{
	struct hostfab_ep *ep = state;

	return ep ? ep->epfd : -XRMA_EINVAL;
}

/*
 * Serialised by progress_lock: two threads draining one socket would hand its
 * packets to the core out of order.
 */
static int progress_locked(struct hostfab_ep *ep)
{
	struct epoll_event evs[32];
	struct hostfab_rx *rx = (struct hostfab_rx *)ep->rxbuf;
	int n;

	n = epoll_wait(ep->epfd, evs, 32, 0);
	for (int i = 0; i < n; i++) {
		struct hostfab_conn *c = evs[i].data.ptr;
		struct xrma_prov_addr bye_from, peer;
		bool bye = false, hup = false;

		if (!c) {
			accept_all(ep);
			continue;
		}
		/* An earlier event of this round may have freed c (peer_gone). */
		pthread_mutex_lock(&ep->lock);
		{
			struct hostfab_conn *k;

			for (k = ep->conns; k && k != c; k = k->next)
				;
			if (!k) {
				pthread_mutex_unlock(&ep->lock);
				continue;
			}
			if (evs[i].events & EPOLLOUT)
				conn_flush_locked(ep, c);
		}
		pthread_mutex_unlock(&ep->lock);
		if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			hup = rx_drain(ep, c, rx, 64, &bye_from, &bye) != 0;
		if (bye) {
			peer_gone(ep, &bye_from, -XRMA_ECONNRESET, rx);
			continue;
		}
		if (!hup && !(evs[i].events & (EPOLLHUP | EPOLLERR)))
			continue;
		if (c->peer_known && c->kind != HOSTFAB_CONN_STAGE) {
			peer = c->peer;
			peer_gone(ep, &peer, -XRMA_ELOST, rx);
		} else {
			conn_drop(ep, c);
		}
	}
	return n > 0 ? n : 0;
}

int hostfab_progress(void *state)
{
	struct hostfab_ep *ep = state;

	if (!ep)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&ep->progress_lock);
	progress_locked(ep);
	pthread_mutex_unlock(&ep->progress_lock);
	return 0;
}

int hostfab_poll(void *state)
{
	struct hostfab_ep *ep = state;
	int n;

	if (!ep)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&ep->progress_lock);
	n = progress_locked(ep);
	pthread_mutex_unlock(&ep->progress_lock);
	return n;
}

/* ---- leaving ---- */

void hostfab_chan_goodbye(struct hostfab_ep *ep)
{
	/* A peer that stopped reading holds a closing endpoint up for a bounded time only. */
	const struct timeval bound = { .tv_sec = 1 };

	pthread_mutex_lock(&ep->lock);
	ep->closing = true;
	for (struct hostfab_conn *c = ep->conns; c; c = c->next) {
		struct hostfab_hdr hdr = { .kind = HOSTFAB_MSG_BYE, .node = ep->self.node,
					   .ep = ep->self.ep };

		if (c->kind != HOSTFAB_CONN_OUT && c->kind != HOSTFAB_CONN_IN)
			continue;
		/* Queued packets go first, blocking if need be; then the goodbye. */
		setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &bound, sizeof(bound));
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) & ~O_NONBLOCK);
		for (struct hostfab_qpkt *q = c->q_head; q; q = q->next)
			if (send(c->fd, q->data, q->len, MSG_NOSIGNAL) < 0)
				break;
		send(c->fd, &hdr, sizeof(hdr), MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	pthread_mutex_unlock(&ep->lock);
}

void hostfab_chan_unlisten(struct hostfab_ep *ep)
{
	if (ep->listen_fd >= 0)
		close(ep->listen_fd);
	ep->listen_fd = -1;
}

void hostfab_chan_destroy(struct hostfab_ep *ep)
{
	struct hostfab_conn *c;

	if (ep->listen_fd >= 0)
		close(ep->listen_fd);
	ep->listen_fd = -1;
	if (ep->reserve_fd >= 0)
		close(ep->reserve_fd);
	ep->reserve_fd = -1;
	while ((c = ep->conns)) {
		ep->conns = c->next;
		conn_free(ep, c);
	}
	if (ep->epfd >= 0)
		close(ep->epfd);
	ep->epfd = -1;
}

void hostfab_chan_send_link(struct hostfab_ep *ep, uint32_t to, uint32_t about, bool up)
{
	struct hostfab_dirmap *map;

	if (hostfab_dir_peer(ep, to, &map))
		return;
	for (int s = 0; s < HOSTFAB_EP_MAX; s++) {
		struct xrma_prov_addr dst = { to, 0 };
		unsigned char pkt[sizeof(struct hostfab_hdr) + 2 * sizeof(uint32_t)];
		struct hostfab_hdr hdr = { .kind = HOSTFAB_MSG_LINK, .node = ep->self.node,
					   .ep = ep->self.ep };
		uint32_t v[2] = { about, up };
		int fd;

		if (__atomic_load_n(&map->dir->slots[s].state, __ATOMIC_ACQUIRE) != HOSTFAB_SLOT_LIVE)
			continue;
		dst.ep = __atomic_load_n(&map->dir->slots[s].ep, __ATOMIC_RELAXED);
		fd = hostfab_chan_dial(ep, &dst);
		if (fd < 0)
			continue;
		memcpy(pkt, &hdr, sizeof(hdr));
		memcpy(pkt + sizeof(hdr), v, sizeof(v));
		hostfab_pkt_send(fd, pkt, sizeof(pkt), -1);
		close(fd);
	}
	hostfab_dir_put(ep, map);
}

void hostfab_chan_broadcast_link(struct hostfab_ep *ep, uint32_t node, bool up)
{
	uint32_t ids[1024];
	size_t count = 0;

	if (hostfab_node_list(ep, ids, 1024, &count))
		return;
	for (size_t i = 0; i < count && i < 1024; i++)
		hostfab_chan_send_link(ep, ids[i], node, up);
}
