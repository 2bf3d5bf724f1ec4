/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_init.c: opening and closing an ofi endpoint (the libfabric
 * objects, chosen by [ofi] provider and iface, bound to this node's address
 * from the node file) and the provider's ops table. Messages, memory and
 * transfers are in their own files (ofi.h lists them).
 */
#include "providers/ofi/ofi.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <xrma/errors.h>
#include "core/config.h"

/* Where the kernel would wait for longer than any test or user would. */
#define OFI_LIVENESS_MAX_MS 600000u
#define OFI_PROGRESS_SPIN_MAX_US 1000000u
#define OFI_SERVE_MAX_MS 60000u

void ofi_detail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ofi_core->detail_vset(fmt, ap);
	va_end(ap);
}

int ofi_error(int fi_ret)
{
	switch (-fi_ret) {
	case 0: return 0;
	case FI_EAGAIN: return -XRMA_EAGAIN;
	case FI_ENOMEM: return -XRMA_ENOMEM;
	case FI_EACCES: case FI_EPERM: case FI_EKEYREJECTED: return -XRMA_EACCES;
	case FI_EADDRINUSE: return -XRMA_EADDRINUSE;
	case FI_ECONNREFUSED: case FI_EHOSTUNREACH: case FI_ENETUNREACH: return -XRMA_EHOSTUNREACH;
	case FI_ECONNRESET: case FI_ECONNABORTED: case FI_ENOTCONN: case FI_ESHUTDOWN:
		return -XRMA_ELOST;
	case FI_ETIMEDOUT: return -XRMA_ETIMEDOUT;
	case FI_ENOSYS: case FI_EOPNOTSUPP: return -XRMA_ENOTSUP;
	case FI_EINVAL: return -XRMA_EINVAL;
	case FI_ENODATA: return -XRMA_ENODEV;
	default: return -XRMA_EIO;
	}
}

uint64_t ofi_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ofi_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* How far the coarse clock may lag: its resolution (a tick); unusable, too far to matter. */
static uint64_t coarse_slack_ns(void)
{
	struct timespec res;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) || res.tv_sec)
		return UINT64_MAX / 4;
	return (uint64_t)res.tv_nsec;
}

/* FNV-1a: only needs to tell fabric names apart, not to resist anyone. */
static uint32_t fabric_hash(const char *name)
{
	uint32_t h = 2166136261u;

	for (; name && *name; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return h;
}

static struct fi_info *ofi_hints(const char *prov, const char *iface, bool atomics, bool waw)
{
	struct fi_info *hints = fi_allocinfo();

	if (!hints)
		return NULL;
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_RMA | (atomics ? FI_ATOMIC : 0);
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	/* Every registration mode we can honour; the provider keeps what it needs. */
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
				      FI_MR_PROV_KEY | FI_MR_ENDPOINT;
	hints->domain_attr->threading = FI_THREAD_SAFE;
	/* Control messages must arrive in the order they were sent. */
	hints->tx_attr->msg_order = FI_ORDER_SAS | (waw ? FI_ORDER_WAW : 0);
	hints->rx_attr->msg_order = FI_ORDER_SAS | (waw ? FI_ORDER_WAW : 0);
	hints->fabric_attr->prov_name = strdup(prov);
	if (iface && *iface)
		hints->domain_attr->name = strdup(iface);
	return hints;
}

/* This provider's keys (its table in ofi_config.c). */
static const char *ofi_config_value(const struct xrma_config *cfg, enum ofi_config_key key)
{
	return ofi_core->config_table_value(cfg, ofi_core->keys, key);
}

static int ofi_config_size(const struct xrma_config *cfg, enum ofi_config_key key, uint64_t max,
			   uint64_t *value)
{
	return ofi_core->config_table_size(cfg, ofi_core->keys, key, max, value);
}

static int ofi_read_config(struct ofi_ep *ep, const struct xrma_config *cfg, const char **nodes,
			   const char **iface, enum ofi_transfer_eps *transfer_eps)
{
	const char *prov = ofi_config_value(cfg, OFI_CONFIG_PROVIDER), *rma_endpoint, *wait;
	uint64_t ms;

	if (!prov || !*prov || strlen(prov) >= sizeof(ep->prov_name)) {
		ofi_detail("ofi: ofi.provider is empty or too long");
		return -XRMA_ECONFIG;
	}
	snprintf(ep->prov_name, sizeof(ep->prov_name), "%s", prov);
	if (ofi_config_size(cfg, OFI_CONFIG_LIVENESS_MS, OFI_LIVENESS_MAX_MS, &ms) || ms < 20) {
		ofi_detail("ofi: ofi.liveness_ms must be 20..%u milliseconds", OFI_LIVENESS_MAX_MS);
		return -XRMA_ECONFIG;
	}
	ep->liveness_ms = (int)ms;
	if (ofi_config_size(cfg, OFI_CONFIG_PROGRESS_SPIN_US, OFI_PROGRESS_SPIN_MAX_US, &ms)) {
		ofi_detail("ofi: ofi.progress_spin_us must be 0..%u microseconds", OFI_PROGRESS_SPIN_MAX_US);
		return -XRMA_ECONFIG;
	}
	ep->progress_spin_ns = ms * 1000;
	rma_endpoint = ofi_config_value(cfg, OFI_CONFIG_RMA_ENDPOINT);
	if (rma_endpoint && !strcmp(rma_endpoint, "separate"))
		*transfer_eps = OFI_TRANSFER_SEPARATE;
	else if (rma_endpoint && !strcmp(rma_endpoint, "single"))
		*transfer_eps = OFI_TRANSFER_SINGLE;
	else if (rma_endpoint && !strcmp(rma_endpoint, "shared"))
		*transfer_eps = OFI_TRANSFER_SHARED;
	else {
		ofi_detail("ofi: ofi.rma_endpoint must be 'single', 'separate' or 'shared'");
		return -XRMA_ECONFIG;
	}
	wait = ofi_config_value(cfg, OFI_CONFIG_PROGRESS_WAIT);
	if (!wait || (strcmp(wait, "fd") && strcmp(wait, "busy"))) {
		ofi_detail("ofi: ofi.progress_wait must be 'fd' or 'busy'");
		return -XRMA_ECONFIG;
	}
	ep->progress_busy = !strcmp(wait, "busy");
	if (ofi_config_size(cfg, OFI_CONFIG_SERVE_MS, OFI_SERVE_MAX_MS, &ms) || ms < 1) {
		ofi_detail("ofi: ofi.serve_ms must be 1..%u milliseconds", OFI_SERVE_MAX_MS);
		return -XRMA_ECONFIG;
	}
	ep->serve_ns = ms * 1000000ull;
	/* The cluster's node file, unless ofi is given one of its own. */
	*nodes = ofi_config_value(cfg, OFI_CONFIG_NODES);
	if (!*nodes || !**nodes)
		*nodes = ofi_core->config_value(cfg, XRMA_CONFIG_NODES);
	*iface = ofi_config_value(cfg, OFI_CONFIG_IFACE);
	if (!*nodes || !**nodes) {
		ofi_detail("ofi: no node file: set xrma.nodes (XRMA_NODES) or ofi.nodes (XRMA_OFI_NODES) "
			   "to a file of 'id host[:port]' lines");
		return -XRMA_ECONFIG;
	}
	return 0;
}

/* The libfabric provider and our own address: fi_getinfo with the node file's host:port. */
static int ofi_getinfo(struct ofi_ep *ep, const char *iface, const struct ofi_peer *me)
{
	struct fi_info *hints;
	int ret;

	for (int atomics = 1; atomics >= 0; atomics--) {
		hints = ofi_hints(ep->prov_name, iface, atomics, false);
		if (!hints)
			return -XRMA_ENOMEM;
		ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), me->host, me->port,
				 FI_SOURCE, hints, &ep->info);
		fi_freeinfo(hints);
		if (!ret)
			return 0;
	}
	ofi_detail("ofi: libfabric offers no RDM endpoint of provider '%s'%s%s at %s:%s (%s)",
		   ep->prov_name, iface && *iface ? " on interface " : "", iface ? iface : "", me->host,
		   me->port, fi_strerror(-ret));
	return -XRMA_ENODEV;
}

static void ofi_probe_atomics(struct ofi_ep *ep)
{
	size_t count = 0;

	ep->atomics = false;
	if (!(ep->info->caps & FI_ATOMIC))
		return;
	if (fi_fetch_atomicvalid(ep->ep, FI_UINT64, FI_SUM, &count) || !count)
		return;
	if (fi_fetch_atomicvalid(ep->ep, FI_UINT64, FI_ATOMIC_WRITE, &count) || !count)
		return;
	if (fi_fetch_atomicvalid(ep->ep, FI_UINT64, FI_ATOMIC_READ, &count) || !count)
		return;
	if (fi_compare_atomicvalid(ep->ep, FI_UINT64, FI_CSWAP, &count) || !count)
		return;
	ep->atomics = true;
}

static int ofi_open_objects(struct ofi_ep *ep)
{
	struct fi_av_attr av_attr = { .type = FI_AV_UNSPEC };
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA, .size = 1024,
				      .wait_obj = ep->progress_busy ? FI_WAIT_NONE : FI_WAIT_FD };
	int ret;

	if ((ret = fi_fabric(ep->info->fabric_attr, &ep->fabric, NULL)))
		goto fail;
	if ((ret = fi_domain(ep->fabric, ep->info, &ep->domain, NULL)))
		goto fail;
	if ((ret = fi_av_open(ep->domain, &av_attr, &ep->av, NULL)))
		goto fail;
	/*
	 * A CQ whose fd we can sleep on; a provider without one is polled with a
	 * back-off. tcp;ofi_rxm serves remote reads and writes about 0.5-1 us slower
	 * on an endpoint whose CQ has a wait object; progress_wait = busy opens it
	 * without one and keeps the progress thread polling for good.
	 */
	ep->cq_fd = -1;
	if (!fi_cq_open(ep->domain, &cq_attr, &ep->cq, NULL)) {
		if (!ep->progress_busy && fi_control(&ep->cq->fid, FI_GETWAIT, &ep->cq_fd))
			ep->cq_fd = -1;
	} else {
		cq_attr.wait_obj = FI_WAIT_NONE;
		if ((ret = fi_cq_open(ep->domain, &cq_attr, &ep->cq, NULL)))
			goto fail;
	}
	if ((ret = fi_endpoint(ep->domain, ep->info, &ep->ep, NULL)))
		goto fail;
	if ((ret = fi_ep_bind(ep->ep, &ep->av->fid, 0)))
		goto fail;
	if ((ret = fi_ep_bind(ep->ep, &ep->cq->fid, FI_TRANSMIT | FI_RECV)))
		goto fail;
	if ((ret = fi_enable(ep->ep)))
		goto fail;
	return 0;
fail:
	return ofi_error(ret);
}

/* ep's fi_info with the port left to the system: keys name the target endpoint's port. */
static struct fi_info *info_any_port(const struct fi_info *info)
{
	struct fi_info *dup;

	if (!info->src_addr || (info->addr_format != FI_SOCKADDR_IN &&
				info->addr_format != FI_SOCKADDR_IN6 && info->addr_format != FI_SOCKADDR))
		return NULL;
	dup = fi_dupinfo(info);
	if (!dup)
		return NULL;
	if (ofi_sockaddr_set_port(dup->src_addr, 0))
		return dup;
	fi_freeinfo(dup);
	return NULL;
}

/* The port an endpoint listens at, for keys to name; 0 (transfers come to ep) if it has none. */
static uint32_t endpoint_port(struct fid_ep *fep)
{
	union ofi_sockaddr name;
	size_t len = sizeof(name);

	memset(&name, 0, sizeof(name));
	if (fi_getname(&fep->fid, &name, &len) || len > sizeof(name))
		return 0;
	return ofi_sockaddr_port(&name);
}

static void ofi_close_transfer_ep(struct ofi_ep *ep)
{
	if (ep->serve_ep && ep->serve_ep != ep->rma_ep) {
		fi_close(&ep->serve_ep->fid);
		fi_close(&ep->serve_cq->fid);
	}
	if (ep->rma_separate) {
		fi_close(&ep->rma_ep->fid);
		fi_close(&ep->rma_cq->fid);
	}
	if (ep->rma_info)
		fi_freeinfo(ep->rma_info);
	ep->rma_info = NULL;
	ep->rma_ep = ep->ep;
	ep->rma_cq = ep->cq;
	ep->serve_ep = NULL;
	ep->serve_cq = NULL;
	ep->rma_separate = false;
	ep->atomics_on_control = false;
	ep->rma_port = 0;
}

static bool same_domain(const struct fi_info *a, const struct fi_info *b)
{
	return a->fabric_attr->name && b->fabric_attr->name && a->domain_attr->name &&
	       b->domain_attr->name && !strcmp(a->fabric_attr->name, b->fabric_attr->name) &&
	       !strcmp(a->domain_attr->name, b->domain_attr->name) &&
	       a->domain_attr->mr_mode == b->domain_attr->mr_mode;
}

/*
 * The initiator and target endpoints' fi_info: one that keeps write-after-write
 * order without atomics (ofi_rxm promises the order only then) where the
 * provider offers it in this domain, else ep's own; the port left to the system.
 */
static struct fi_info *transfer_info(struct ofi_ep *ep, const char *host, const char *iface)
{
	struct fi_info *hints, *waw = NULL, *info = NULL;

	if (!(ep->info->tx_attr->msg_order & FI_ORDER_WAW) &&
	    (hints = ofi_hints(ep->prov_name, iface, false, true))) {
		if (fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), host, NULL, FI_SOURCE,
			       hints, &waw))
			waw = NULL;
		fi_freeinfo(hints);
	}
	if (waw && same_domain(waw, ep->info))
		info = info_any_port(waw);
	if (waw)
		fi_freeinfo(waw);
	return info ? info : info_any_port(ep->info);
}

/* An endpoint of rma_info whose CQ has no wait object, enabled; both closed again on failure. */
static int quiet_endpoint(struct ofi_ep *ep, struct fid_ep **qep, struct fid_cq **qcq)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA, .size = 1024,
				      .wait_obj = FI_WAIT_NONE };
	int ret;

	*qep = NULL;
	*qcq = NULL;
	if ((ret = fi_cq_open(ep->domain, &cq_attr, qcq, NULL)) ||
	    (ret = fi_endpoint(ep->domain, ep->rma_info, qep, NULL)) ||
	    (ret = fi_ep_bind(*qep, &ep->av->fid, 0)) ||
	    (ret = fi_ep_bind(*qep, &(*qcq)->fid, FI_TRANSMIT | FI_RECV)) || (ret = fi_enable(*qep))) {
		if (*qep)
			fi_close(&(*qep)->fid);
		if (*qcq)
			fi_close(&(*qcq)->fid);
		*qep = NULL;
		*qcq = NULL;
	}
	return ret;
}

/*
 * The transfer endpoints (ofi.h says why), as many as wanted, where possible;
 * else transfers share the control endpoint. Never an error: it only saves time.
 */
static void ofi_open_transfer_ep(struct ofi_ep *ep, enum ofi_transfer_eps wanted, const char *host,
				 const char *iface)
{
	struct fid_ep *rma_ep = NULL;
	struct fid_cq *rma_cq = NULL;

	ep->rma_ep = ep->ep;
	ep->rma_cq = ep->cq;
	ep->rma_separate = false;
	/*
	 * Without a wait fd there is no signal to save, unless the fd was declined
	 * (progress_wait = busy: the endpoint still orders writes, see ofi.h);
	 * FI_MR_ENDPOINT would bind memory twice.
	 */
	if (wanted == OFI_TRANSFER_SHARED || (ep->cq_fd < 0 && !ep->progress_busy) ||
	    (ep->mr_mode & FI_MR_ENDPOINT))
		return;
	ep->rma_info = transfer_info(ep, host, iface);
	if (!ep->rma_info)
		return;
	if (quiet_endpoint(ep, &rma_ep, &rma_cq)) {
		fi_freeinfo(ep->rma_info);
		ep->rma_info = NULL;
		return;
	}
	ep->rma_ep = rma_ep;
	ep->rma_cq = rma_cq;
	ep->rma_separate = true;
	if (wanted == OFI_TRANSFER_SINGLE) {
		/* One endpoint both ways: a peer's writes arrive where ours leave. */
		ep->serve_ep = rma_ep;
		ep->serve_cq = rma_cq;
		ep->rma_port = endpoint_port(rma_ep);
	} else if (!quiet_endpoint(ep, &ep->serve_ep, &ep->serve_cq)) {
		/* Without the target endpoint, peers' transfers come to the control endpoint. */
		ep->rma_port = endpoint_port(ep->serve_ep);
	}
	if (ep->rma_info->tx_attr->msg_order & FI_ORDER_WAW)
		ep->waw_ordered = true;
	ep->atomics_on_control = !(ep->rma_info->caps & FI_ATOMIC);
}

/* Close what ofi_open_objects, the transfer endpoints and the control plane opened, in order. */
static void ofi_close_objects(struct ofi_ep *ep)
{
	/* Transfers' endpoint first: what it still has in flight is cancelled, not completed. */
	ofi_close_transfer_ep(ep);
	/* Then the control endpoint: once it is closed no completion can come for what
	 * ofi_control_release frees. */
	if (ep->ep) {
		fi_close(&ep->ep->fid);
		ep->ep = NULL;
	}
	ofi_control_release(ep);
	if (ep->cq)
		fi_close(&ep->cq->fid);
	if (ep->av)
		fi_close(&ep->av->fid);
	if (ep->domain)
		fi_close(&ep->domain->fid);
	if (ep->fabric)
		fi_close(&ep->fabric->fid);
	if (ep->info)
		fi_freeinfo(ep->info);
}

/* Writers first: a purge waits for the posts under way, not for every later one. */
static void av_lock_init(pthread_rwlock_t *lock)
{
	pthread_rwlockattr_t attr;

	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(lock, &attr);
	pthread_rwlockattr_destroy(&attr);
}

static void ofi_free(struct ofi_ep *ep)
{
	ofi_names_fini(ep);
	pthread_cond_destroy(&ep->req_cond);
	pthread_mutex_destroy(&ep->lock);
	pthread_mutex_destroy(&ep->names_lock);
	pthread_mutex_destroy(&ep->mem_lock);
	pthread_mutex_destroy(&ep->poll_lock);
	pthread_mutex_destroy(&ep->rma_poll_lock);
	pthread_rwlock_destroy(&ep->av_lock);
	free(ep->av_doomed);
	free(ep->peers);
	free(ep);
}

/*
 * libfabric reads FI_AV_REMOVE_CLEANUP once, when the process first calls it;
 * only with it does ofi_rxm close a removed address's connections and hand
 * back the operations posted on them, which ofi_av_purge relies on. So it is
 * set before our first call, unless the user chose a value. A process that
 * used libfabric before opening us keeps what it had (docs/providers-ofi.md).
 */
static pthread_once_t av_cleanup_once = PTHREAD_ONCE_INIT;

static void av_cleanup_ask(void)
{
	setenv("FI_AV_REMOVE_CLEANUP", "1", 0);
}

static int ofi_open(const struct xrma_prov_open_args *args, void **state, struct xrma_prov_addr *self)
{
	const char *nodes, *iface;
	bool own_nodes;
	struct ofi_peer *me;
	struct ofi_ep *ep;
	uint32_t incarnation = 0;
	enum ofi_transfer_eps transfer_eps;
	int ret;

	if (!args || !args->config || !args->upcalls || !state || !self)
		return -XRMA_EINVAL;
	pthread_once(&av_cleanup_once, av_cleanup_ask);
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -XRMA_ENOMEM;
	pthread_mutex_init(&ep->lock, NULL);
	pthread_mutex_init(&ep->names_lock, NULL);
	pthread_mutex_init(&ep->mem_lock, NULL);
	ofi_names_init(ep);
	ep->upcalls = *args->upcalls;
	ep->core = args->core;
	ep->fabric_hash = fabric_hash(args->fabric);
	ep->next_req = 1;
	ep->event_fd = -1;
	ep->wake_fd = -1;
	ep->epfd = -1;
	ep->cq_fd = -1;
	pthread_mutex_init(&ep->poll_lock, NULL);
	pthread_mutex_init(&ep->rma_poll_lock, NULL);
	av_lock_init(&ep->av_lock);
	atomic_init(&ep->av_epoch, 0);
	atomic_init(&ep->driving, 0);
	atomic_init(&ep->driven_ns, 0);
	atomic_init(&ep->rma_posted, 0);
	atomic_init(&ep->rma_ended, 0);
	atomic_init(&ep->rma_moved_ns, 0);
	ep->coarse_slack_ns = coarse_slack_ns();
	atomic_init(&ep->progress_asleep, false);
	atomic_init(&ep->rma_departed_ns, 0);
	atomic_init(&ep->serve_until_ns, 0);
	{
		pthread_condattr_t ca;

		/* Request deadlines are monotonic. */
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&ep->req_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	if ((ret = ofi_read_config(ep, args->config, &nodes, &iface, &transfer_eps)))
		goto err_free;
	own_nodes = nodes == ofi_config_value(args->config, OFI_CONFIG_NODES);
	if ((ret = ofi_nodes_load(ep, nodes, own_nodes ? "ofi.nodes" : "xrma.nodes")))
		goto err_free;
	me = ofi_peer_find(ep, args->node_id);
	if (!me) {
		ofi_detail("ofi: node %u has no line in the node file %s", args->node_id, nodes);
		ret = -XRMA_ENODEV;
		goto err_free;
	}
	/* A fresh incarnation number, so peers tell a restarted node from the one that died. */
	while (!incarnation)
		if (getrandom(&incarnation, sizeof(incarnation), 0) != sizeof(incarnation))
			incarnation = (uint32_t)ofi_now_ns() | 1u;
	ep->self = (struct xrma_prov_addr){ .node = args->node_id, .ep = incarnation };
	if ((ret = ofi_getinfo(ep, iface, me)))
		goto err_free;
	ep->mr_mode = ep->info->domain_attr->mr_mode;
	ep->iov_limit = ep->info->tx_attr->iov_limit ? ep->info->tx_attr->iov_limit : 1;
	if (ep->info->tx_attr->rma_iov_limit && ep->info->tx_attr->rma_iov_limit < ep->iov_limit)
		ep->iov_limit = ep->info->tx_attr->rma_iov_limit;
	ep->max_chunk = ep->info->ep_attr->max_msg_size;
	if (!ep->max_chunk || ep->max_chunk > ((size_t)1 << 30))
		ep->max_chunk = (size_t)1 << 30;
	ep->waw_ordered = (ep->info->tx_attr->msg_order & FI_ORDER_WAW) != 0;
	if ((ret = ofi_open_objects(ep))) {
		if (ret == -XRMA_EADDRINUSE)
			ofi_detail("ofi: %s:%s (node %u) is taken: another context already is node %u",
				   me->host, me->port, args->node_id, args->node_id);
		else
			ofi_detail("ofi: cannot open a '%s' endpoint at %s:%s: %s", ep->prov_name,
				   me->host, me->port, ofi_core->strerror(ret));
		goto err_objects;
	}
	ofi_open_transfer_ep(ep, transfer_eps, me->host, iface);
	ofi_probe_atomics(ep);
	if ((ret = ofi_control_start(ep)))
		goto err_objects;
	if (args->caps && !ep->atomics)
		args->caps->flags &= ~XRMA_CAP_ATOMIC;
	/* FI_MR_LOCAL: transfers name local memory by its registration, which pins the pages. */
	if (args->caps && (ep->mr_mode & FI_MR_LOCAL))
		args->caps->flags &= ~XRMA_CAP_LOCAL_VIRTUAL;
	*state = ep;
	*self = ep->self;
	return 0;

err_objects:
	ofi_close_objects(ep);
err_free:
	ofi_free(ep);
	return ret;
}

static void ofi_close(void *state)
{
	struct ofi_ep *ep = state;

	if (!ep)
		return;
	ofi_control_stop(ep);
	/* Memory the core left registered (it frees everything first; this is a backstop). */
	while (ep->mems)
		ofi_mem_free(ep, (struct xrma_prov_mem *)ep->mems);
	ofi_close_objects(ep);
	ofi_free(ep);
}

static const struct xrma_provider_ops ofi_ops = {
	.open = ofi_open,
	.close = ofi_close,
	.progress_fd = ofi_progress_fd,
	.progress = ofi_progress,
	.poll = ofi_app_progress,
	.node_list = ofi_node_list,
	.node_probe = ofi_node_probe,
	.name_bind = ofi_name_bind,
	.name_unbind = ofi_name_unbind,
	.name_lookup = ofi_name_lookup,
	.ctrl_send = ofi_ctrl_send,
	.mem_alloc = ofi_mem_alloc,
	.mem_free = ofi_mem_free,
	.mem_export = ofi_mem_export,
	.mem_unexport = ofi_mem_unexport,
	.mem_import = ofi_mem_import,
	.mem_unimport = ofi_mem_unimport,
	.rma = ofi_rma,
	.rma_post = ofi_rma_post,
	.rma_poll = ofi_rma_progress,
	.rma_polling = ofi_drive,
	.depart = ofi_depart,
	.mem_register = ofi_mem_register,
	.atomic = ofi_atomic,
};

const struct xrma_provider ofi_provider = {
	.name = "ofi",
	.description = OFI_DESCRIPTION,
	.caps = &xrma_prov_ofi_caps,
	.ops = &ofi_ops,
};
