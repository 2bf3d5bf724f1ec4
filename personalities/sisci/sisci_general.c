/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_general.c: virtual devices and general calls
 * (spec §2.2): SCIOpen/SCIClose, SCIQuery, SCIProbeNode, the privileged CSR
 * calls (real where the provider models CSR space), and Dolphin's
 * SCIInitialize/SCITerminate/SCIGetLocalNodeId/SCIGetNodeIdByAdapterName. A descriptor is not a context: every descriptor
 * of a process acting as one node shares that node's xrma_ctx (a provider
 * allows one context per node id). The node comes from the environment
 * (XRMA_PROVIDER, XRMA_FABRIC, XRMA_NODE_ID) as read at SCIOpen, so a test may
 * act as several nodes. SCIInitialize is optional (the 1999 API has none).
 */
#include "personalities/sisci/sisci.h"
#include "common/detail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/errno_keep.h"

#define VENDOR_STRING "xrma (SISCI personality)"
#define API_STRING "SISCI 2.1.1 (API 2.0 sizes)"
#define PROBE_TIMEOUT_MS 1000

static struct {
	pthread_mutex_t lock;           /* guards the list and users counts */
	struct xrma_sisci_node *head;
} nodes = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * Adapter 0 is the node of the environment (XRMA_PROVIDER, XRMA_FABRIC,
 * XRMA_NODE_ID, else the configuration file); adapter n (1..7) exists when
 * XRMA_SISCI_ADAPTER<n> names its node as "NODE" or "PROVIDER:NODE", on the
 * same fabric. false: no such adapter.
 */
static bool adapter_attr(unsigned int adapter, char *provider, size_t plen, uint32_t *node_id)
{
	char name[32];
	const char *spec, *colon;
	char *end;
	unsigned long id;

	provider[0] = '\0';
	*node_id = XRMA_NODE_ANY;
	if (adapter == 0)
		return true;
	if (adapter >= XRMA_SISCI_ADAPTER_MAX)
		return false;
	snprintf(name, sizeof(name), "XRMA_SISCI_ADAPTER%u", adapter);
	spec = getenv(name);
	if (!spec || !*spec)
		return false;
	colon = strchr(spec, ':');
	if (colon) {
		snprintf(provider, plen, "%.*s", (int)(colon - spec), spec);
		spec = colon + 1;
	}
	id = strtoul(spec, &end, 0);
	if (end == spec || *end || id > 0xffffffffUL)
		return false;
	*node_id = (uint32_t)id;
	return true;
}

static void node_key(unsigned int adapter, char *key, size_t len)
{
	const char *p = getenv("XRMA_PROVIDER"), *f = getenv("XRMA_FABRIC"), *n = getenv("XRMA_NODE_ID");
	char provider[XRMA_NAME_MAX];
	uint32_t id;

	if (adapter && adapter_attr(adapter, provider, sizeof(provider), &id)) {
		snprintf(key, len, "%s/%s/#%u", provider, f ? f : "", id);
		return;
	}
	snprintf(key, len, "%s/%s/%s", p ? p : "", f ? f : "", n ? n : "");
}

/* The node of adapter as this process sees it now, opened or shared. */
static sci_error_t node_acquire(unsigned int adapter, struct xrma_sisci_node **out)
{
	struct xrma_ctx_attr attr = { .node_id = XRMA_NODE_ANY };
	char provider[XRMA_NAME_MAX];
	struct xrma_ctx_info info;
	struct xrma_sisci_node *n;
	char key[sizeof(n->key)];
	int ret;

	if (!adapter_attr(adapter, provider, sizeof(provider), &attr.node_id))
		return SCI_ERR_NO_SUCH_ADAPTERNO;
	attr.provider = provider[0] ? provider : NULL;
	node_key(adapter, key, sizeof(key));
	pthread_mutex_lock(&nodes.lock);
	for (n = nodes.head; n; n = n->next)
		if (!strcmp(n->key, key))
			break;
	if (n) {
		n->users++;
		pthread_mutex_unlock(&nodes.lock);
		*out = n;
		return SCI_ERR_OK;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		pthread_mutex_unlock(&nodes.lock);
		return SCI_ERR_NOSPC;
	}
	ret = xrma_ctx_open(&attr, &n->ctx);
	if (!ret)
		ret = xrma_ctx_query(n->ctx, &info);
	if (ret) {
		if (n->ctx)
			(void)xrma_ctx_close(n->ctx);
		free(n);
		pthread_mutex_unlock(&nodes.lock);
		return xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
	}
	memcpy(n->key, key, sizeof(key));
	n->node_id = info.node_id;
	n->caps = info.caps;
	n->users = 1;
	n->next = nodes.head;
	nodes.head = n;
	pthread_mutex_unlock(&nodes.lock);
	*out = n;
	return SCI_ERR_OK;
}

static void node_release(struct xrma_sisci_node *n)
{
	struct xrma_sisci_node **pp;

	pthread_mutex_lock(&nodes.lock);
	if (--n->users) {
		pthread_mutex_unlock(&nodes.lock);
		return;
	}
	for (pp = &nodes.head; *pp != n; pp = &(*pp)->next)
		;
	*pp = n->next;
	pthread_mutex_unlock(&nodes.lock);
	/*
	 * Every object was closed before its descriptor, so the context is empty.
	 * From one of its callbacks the core finishes the close once it returned.
	 */
	(void)xrma_ctx_close(n->ctx);
	free(n);
}

void SCIInitialize(unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	xrma_sisci_set(error, xrma_sisci_flags(flags, 0, 0));
}

void SCITerminate(void)
{
	XRMA_ERRNO_KEEP(NULL);
	/* Nothing global to undo: contexts live exactly as long as their descriptors. */
}

static void desc_destroy(struct xrma_sisci_obj *obj)
{
	struct xrma_sisci_desc *d = (struct xrma_sisci_desc *)obj;

	for (unsigned int i = 0; i < XRMA_SISCI_ADAPTER_MAX; i++)
		if (d->adapters[i])
			node_release(d->adapters[i]);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

void SCIOpen(sci_desc_t *sd, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_desc *d;
	sci_error_t err;

	if (!sd) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, SCI_FLAG_THREAD_SAFE, 0);
	if (err != SCI_ERR_OK) {
		xrma_sisci_set(error, err);
		return;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		xrma_sisci_set(error, SCI_ERR_NOSPC);
		return;
	}
	d->flags = flags;
	err = node_acquire(0, &d->node);
	if (err != SCI_ERR_OK) {
		free(d);
		xrma_sisci_set(error, err);
		return;
	}
	d->adapters[0] = d->node;
	pthread_mutex_init(&d->lock, NULL);
	err = xrma_sisci_obj_publish(&d->obj, XRMA_SISCI_DESC, desc_destroy);
	if (err != SCI_ERR_OK) {
		node_release(d->node);
		pthread_mutex_destroy(&d->lock);
		free(d);
		xrma_sisci_set(error, err);
		return;
	}
	*sd = d->obj.handle;
	xrma_sisci_set(error, SCI_ERR_OK);
}

void SCIClose(sci_desc_t sd, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_desc *d = XRMA_SISCI_GET(sd, XRMA_SISCI_DESC, struct xrma_sisci_desc);
	sci_error_t err;

	if (!d) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, 0, 0);
	if (err == SCI_ERR_OK && __atomic_load_n(&d->children, __ATOMIC_ACQUIRE))
		err = SCI_ERR_BUSY;
	if (err == SCI_ERR_OK && !xrma_sisci_obj_kill(&d->obj))
		err = SCI_ERR_ILLEGAL_PARAMETER;
	xrma_sisci_obj_put(&d->obj);
	xrma_sisci_set(error, err);
}

void *xrma_sisci_open_begin(sci_desc_t sd, size_t size, const struct xrma_sisci_open_args *a,
			    struct xrma_sisci_desc **desc, struct xrma_sisci_node **node, sci_error_t *err)
{
	struct xrma_sisci_desc *d = XRMA_SISCI_GET(sd, XRMA_SISCI_DESC, struct xrma_sisci_desc);
	unsigned int unimplemented = a->unimplemented;
	void *obj = NULL;

	if (!d) {
		*err = SCI_ERR_ILLEGAL_PARAMETER;
		return NULL;
	}
	if (!(d->node->caps.flags & XRMA_CAP_BROADCAST))
		unimplemented |= SCI_FLAG_BROADCAST;
	*err = xrma_sisci_flags(a->flags, a->accepted, unimplemented);
	if (*err == SCI_ERR_OK && !a->args_ok)
		*err = SCI_ERR_ILLEGAL_PARAMETER;
	if (*err == SCI_ERR_OK)
		*err = xrma_sisci_adapter(d, a->adapter, node);
	if (*err == SCI_ERR_OK && !(obj = calloc(1, size)))
		*err = SCI_ERR_NOSPC;
	if (!obj) {
		xrma_sisci_obj_put(&d->obj);
		return NULL;
	}
	*desc = d;
	return obj;
}

void xrma_sisci_desc_child_add(struct xrma_sisci_desc *desc)
{
	__atomic_add_fetch(&desc->children, 1, __ATOMIC_ACQ_REL);
}

void xrma_sisci_desc_child_del(struct xrma_sisci_desc *desc)
{
	__atomic_sub_fetch(&desc->children, 1, __ATOMIC_ACQ_REL);
}

sci_error_t xrma_sisci_adapter(struct xrma_sisci_desc *desc, unsigned int adapter,
			       struct xrma_sisci_node **node)
{
	sci_error_t err = SCI_ERR_OK;

	if (adapter >= XRMA_SISCI_ADAPTER_MAX)
		return SCI_ERR_NO_SUCH_ADAPTERNO;
	/* Opened on first use and kept until SCIClose, so its objects keep their context. */
	pthread_mutex_lock(&desc->lock);
	if (!desc->adapters[adapter])
		err = node_acquire(adapter, &desc->adapters[adapter]);
	*node = desc->adapters[adapter];
	pthread_mutex_unlock(&desc->lock);
	return err;
}

/* ------------------------------------------------------------ SCIQuery */

static sci_error_t query_string(void *data, const char *text)
{
	struct sci_query_string *q = data;
	size_t len = strlen(text);

	if (!q || !q->str)
		return SCI_ERR_ILLEGAL_PARAMETER;
	/* length is the capacity; the answer is NUL-terminated and never cut. */
	if (q->length < len + 1)
		return SCI_ERR_OVERFLOW;
	memcpy(q->str, text, len + 1);
	return SCI_ERR_OK;
}

/* Count of NUMA nodes or CPUs of the host adapter, from the core's topology. */
static unsigned int host_count(bool numa)
{
	struct xrma_adapter_info host;
	int count = xrma_adapter_count();

	if (count < 1 || xrma_adapter_get(count - 1, &host))
		return 1;
	return numa ? (host.numa_count ? host.numa_count : 1) : (host.cpu_count ? host.cpu_count : 1);
}

/* Adapter facts that come from the topology; false if sub is not one of them. */
static bool query_topology(struct xrma_ctx *ctx, unsigned int sub, unsigned int *out)
{
	struct xrma_adapter_info a;
	bool pci;

	switch (sub) {
	case SCI_Q_ADAPTER_NUMA_NODES:
		*out = host_count(true);
		return true;
	case SCI_Q_ADAPTER_CPU_COUNT:
		*out = host_count(false);
		return true;
	case SCI_Q_ADAPTER_CARD_TYPE:
	case SCI_Q_ADAPTER_NUMA_NODE:
	case SCI_Q_ADAPTER_LOCAL_CPU_COUNT:
	case SCI_Q_ADAPTER_PCI_DOMAIN:
	case SCI_Q_ADAPTER_PCI_BUS:
	case SCI_Q_ADAPTER_PCI_DEVICE:
	case SCI_Q_ADAPTER_PCI_FUNCTION:
	case SCI_Q_ADAPTER_PCI_VENDOR_ID:
	case SCI_Q_ADAPTER_PCI_DEVICE_ID:
		break;
	default:
		return false;
	}
	if (xrma_ctx_adapter(ctx, &a))
		memset(&a, 0, sizeof(a));
	pci = a.kind != XRMA_ADAPTER_HOST;
	switch (sub) {
	case SCI_Q_ADAPTER_CARD_TYPE:
		*out = a.kind;
		break;
	case SCI_Q_ADAPTER_NUMA_NODE:
		*out = a.numa_node;
		break;
	case SCI_Q_ADAPTER_LOCAL_CPU_COUNT:
		*out = a.cpu_count;
		break;
	case SCI_Q_ADAPTER_PCI_DOMAIN:
		*out = pci ? a.pci_domain : 0xffffffffu;
		break;
	case SCI_Q_ADAPTER_PCI_BUS:
		*out = pci ? a.pci_bus : 0xffffffffu;
		break;
	case SCI_Q_ADAPTER_PCI_DEVICE:
		*out = pci ? a.pci_dev : 0xffffffffu;
		break;
	case SCI_Q_ADAPTER_PCI_FUNCTION:
		*out = pci ? a.pci_func : 0xffffffffu;
		break;
	case SCI_Q_ADAPTER_PCI_VENDOR_ID:
		*out = pci ? a.vendor_id : 0xffffffffu;
		break;
	default:
		*out = pci ? a.device_id : 0xffffffffu;
		break;
	}
	return true;
}

/*
 * The adapter's PCI location as Dolphin packs it: bus << 8 | device << 3 |
 * function, in an unsigned short (what programs pass). The host is no PCI
 * device: NOT_SUPPORTED, as on a Dolphin system without the query.
 */
static sci_error_t query_bdf(struct xrma_ctx *ctx, unsigned short *out)
{
	struct xrma_adapter_info a;

	if (xrma_ctx_adapter(ctx, &a) || a.kind == XRMA_ADAPTER_HOST) {
		xrma_detail_set("SCIQuery: the adapter is the host, which has no PCI address");
		return SCI_ERR_NOT_SUPPORTED;
	}
	*out = (unsigned short)(a.pci_bus << 8 | (a.pci_dev & 0x1f) << 3 | (a.pci_func & 0x7));
	return SCI_ERR_OK;
}

static unsigned int clamp_uint(size_t v)
{
	return v > 0xffffffffu ? 0xffffffffu : (unsigned int)v;
}

static sci_error_t query_adapter(struct sci_query_adapter *q)
{
	struct xrma_sisci_node *node;
	unsigned int *out;
	sci_error_t err;

	if (!q || !q->data)
		return SCI_ERR_ILLEGAL_PARAMETER;
	out = q->data;
	err = node_acquire(q->localAdapterNo, &node);
	if (err == SCI_ERR_NO_SUCH_ADAPTERNO && q->subcommand == SCI_Q_ADAPTER_CONFIGURED) {
		*out = 0;
		return SCI_ERR_OK;
	}
	if (err != SCI_ERR_OK)
		return err;
	switch (q->subcommand) {
	case SCI_Q_ADAPTER_NODEID:
		*out = node->node_id;
		break;
	case SCI_Q_ADAPTER_DMA_SIZE_ALIGNMENT:
		*out = clamp_uint(node->caps.rma_size_align ? node->caps.rma_size_align : 1);
		break;
	case SCI_Q_ADAPTER_DMA_OFFSET_ALIGNMENT:
		*out = clamp_uint(node->caps.rma_offset_align ? node->caps.rma_offset_align : 1);
		break;
	case SCI_Q_ADAPTER_DMA_MTU:
		*out = clamp_uint(node->caps.max_seg_size);
		break;
	case SCI_Q_ADAPTER_SUGGESTED_MIN_DMA_SIZE:
	case SCI_Q_ADAPTER_SUGGESTED_MIN_BLOCK_SIZE:
		/* Below a page a PIO copy beats a transfer on every provider we have. */
		*out = clamp_uint(node->caps.page_size);
		break;
	case SCI_Q_ADAPTER_CONFIGURED:
	case SCI_Q_ADAPTER_LINK_OPERATIONAL:
		*out = 1;
		break;
	case SCI_Q_ADAPTER_MAX_SEGMENT_SIZE_MB:
		*out = clamp_uint(node->caps.max_seg_size >> 20);
		break;
	case SCI_Q_ADAPTER_PAGE_SIZE:
		*out = clamp_uint(node->caps.page_size);
		break;
	case SCI_Q_ADAPTER_MAX_NODES:
		*out = node->caps.max_nodes;
		break;
	case SCI_Q_ADAPTER_BDF:
		err = query_bdf(node->ctx, q->data);
		break;
	default:
		if (!query_topology(node->ctx, q->subcommand, out))
			err = SCI_ERR_ILLEGAL_QUERY;
	}
	node_release(node);
	return err;
}

/*
 * Facts of the host as adapter 0's provider sees them. Stores through a map
 * are CPU stores to memory shared with the owner: they complete without
 * waiting for it (posted) and merge in the cache (combined). A provider that
 * cannot map remote memory has no such stores, so both answers are 0 there.
 */
static sci_error_t query_system(struct sci_query_system *q)
{
	struct xrma_sisci_node *node;
	unsigned int *out;
	bool maps;
	long line;
	sci_error_t err;

	if (!q || !q->data)
		return SCI_ERR_ILLEGAL_PARAMETER;
	out = q->data;
	switch (q->subcommand) {
	case SCI_Q_SYSTEM_HOSTBRIDGE:
		/* Dolphin's list ends with chipsets of 2002; no current host bridge is in it. */
		*out = HOSTBRIDGE_UNKNOWN;
		return SCI_ERR_OK;
	case SCI_Q_SYSTEM_CPU_CACHE_LINE_SIZE:
		line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
		*out = line > 0 ? (unsigned int)line : 64u;
		return SCI_ERR_OK;
	case SCI_Q_SYSTEM_WRITE_POSTING_ENABLED:
	case SCI_Q_SYSTEM_WRITE_COMBINING_ENABLED:
		break;
	default:
		return SCI_ERR_ILLEGAL_QUERY;
	}
	err = node_acquire(0, &node);
	if (err != SCI_ERR_OK)
		return err;
	maps = (node->caps.flags & XRMA_CAP_MAP) != 0;
	node_release(node);
	if (q->subcommand == SCI_Q_SYSTEM_WRITE_POSTING_ENABLED)
		*out = maps ? HOSTBRIDGE_WRITE_POSTING_ENABLED : HOSTBRIDGE_WRITE_POSTING_DISABLED;
	else
		*out = maps ? 1u : 0u;
	return SCI_ERR_OK;
}

void SCIQuery(unsigned int command, void *data, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	sci_error_t err = xrma_sisci_flags(flags, 0, 0);

	if (err == SCI_ERR_OK) {
		switch (command) {
		case SCI_Q_VENDORID:
			err = query_string(data, VENDOR_STRING);
			break;
		case SCI_Q_API:
			err = query_string(data, API_STRING);
			break;
		case SCI_Q_ADAPTER:
			err = query_adapter(data);
			break;
		case SCI_Q_LOCAL_SEGMENT:
			err = xrma_sisci_query_local_segment(data);
			break;
		case SCI_Q_REMOTE_SEGMENT:
			err = xrma_sisci_query_remote_segment(data);
			break;
		case SCI_Q_SYSTEM:
			err = query_system(data);
			break;
		case SCI_Q_MAP:
			err = xrma_sisci_query_map(data);
			break;
		default:
			err = SCI_ERR_ILLEGAL_QUERY;
		}
	}
	xrma_sisci_set(error, err);
}

void SCIGetLocalNodeId(unsigned int adapterNo, unsigned int *nodeId, unsigned int flags,
		       sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct sci_query_adapter q = {
		.localAdapterNo = adapterNo, .subcommand = SCI_Q_ADAPTER_NODEID, .data = nodeId
	};
	sci_error_t err = xrma_sisci_flags(flags, 0, 0);

	if (err == SCI_ERR_OK)
		err = nodeId ? query_adapter(&q) : SCI_ERR_ILLEGAL_PARAMETER;
	xrma_sisci_set(error, err);
}

/*
 * Adapter names are host names in Dolphin's tools: a host of the node file
 * ([xrma] nodes, xrma_node_by_name) names its node. Without a file, or for a
 * name the file lacks, a node id in decimal ("4") or "node4" still works.
 * A bad configuration is SCI_ERR_NOT_INITIALIZED, as at SCIOpen.
 */
void SCIGetNodeIdByAdapterName(char *adapterName, dis_nodeId_list_t *nodeIdList,
			       dis_virt_adapter_t *type, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	const char *digits;
	char *end = NULL;
	unsigned long id;
	uint32_t named = 0;
	int ret;
	sci_error_t err = xrma_sisci_flags(flags, 0, 0);

	if (err == SCI_ERR_OK && (!adapterName || !nodeIdList))
		err = SCI_ERR_ILLEGAL_PARAMETER;
	if (err != SCI_ERR_OK) {
		xrma_sisci_set(error, err);
		return;
	}
	memset(*nodeIdList, 0, sizeof(*nodeIdList));
	ret = xrma_node_by_name(adapterName, &named);
	if (ret == -XRMA_ECONFIG) {
		xrma_sisci_set(error, SCI_ERR_NOT_INITIALIZED);
		return;
	}
	digits = strncmp(adapterName, "node", 4) ? adapterName : adapterName + 4;
	id = ret ? strtoul(digits, &end, 10) : named;
	if (ret && (end == digits || *end || id == 0 || id > 0xffffffffu)) {
		xrma_sisci_set(error, SCI_ERR_NO_SUCH_NODEID);
		return;
	}
	(*nodeIdList)[0] = (unsigned int)id;
	if (type)
		*type = DIS_VIRT_ADAPTER_XRMA;
	xrma_sisci_set(error, SCI_ERR_OK);
}

int SCIProbeNode(sci_desc_t sd, unsigned int localAdapterNo, unsigned int nodeId, unsigned int flags,
		 sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_desc *d = XRMA_SISCI_GET(sd, XRMA_SISCI_DESC, struct xrma_sisci_desc);
	struct xrma_sisci_node *node;
	sci_error_t err;
	int ret;

	if (!d) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return 0;
	}
	err = xrma_sisci_flags(flags, 0, 0);
	if (err == SCI_ERR_OK)
		err = xrma_sisci_adapter(d, localAdapterNo, &node);
	if (err == SCI_ERR_OK) {
		ret = xrma_node_probe(node->ctx, nodeId, PROBE_TIMEOUT_MS);
		/* Reachability, in the spec's link terms (§3 SCIProbeNode). */
		if (ret == -XRMA_EINVAL)
			err = SCI_ERR_ILLEGAL_NODEID;
		else if (ret == -XRMA_ENETDOWN)
			err = SCI_ERR_NO_LINK_ACCESS;
		else if (ret)
			err = SCI_ERR_NO_REMOTE_LINK_ACCESS;
	}
	xrma_sisci_obj_put(&d->obj);
	xrma_sisci_set(error, err);
	return err == SCI_ERR_OK;
}

/*
 * CSR space: the registers of a node where the provider models them (the sci
 * provider documents its file in docs/providers.md); elsewhere, after the
 * argument checks, SCI_ERR_NOT_IMPLEMENTED. Failures are told in the spec's
 * link terms, as for SCIProbeNode.
 */
static sci_error_t csr_call(sci_desc_t sd, unsigned int adapter, unsigned int node_id,
			    unsigned int offset, unsigned int flags, bool write, unsigned int *value)
{
	struct xrma_sisci_desc *d = XRMA_SISCI_GET(sd, XRMA_SISCI_DESC, struct xrma_sisci_desc);
	struct xrma_sisci_node *node;
	uint32_t v = write ? *value : 0;
	sci_error_t err;
	int ret = 0;

	if (!d)
		return SCI_ERR_ILLEGAL_PARAMETER;
	err = xrma_sisci_flags(flags, 0, 0);
	if (err == SCI_ERR_OK)
		err = xrma_sisci_adapter(d, adapter, &node);
	if (err == SCI_ERR_OK) {
		ret = write ? xrma_node_csr_write(node->ctx, node_id, offset, v)
			    : xrma_node_csr_read(node->ctx, node_id, offset, &v);
		if (ret == -XRMA_ENETDOWN)
			err = SCI_ERR_NO_LINK_ACCESS;
		else if (ret == -XRMA_EHOSTUNREACH || ret == -XRMA_ENODEV)
			err = SCI_ERR_NO_REMOTE_LINK_ACCESS;
		else if (ret == -XRMA_EACCES)
			err = SCI_ERR_ACCESS;
		else
			err = xrma_sisci_error(ret, XRMA_SISCI_DOMAIN_SEGMENT);
	}
	if (err == SCI_ERR_OK && !write)
		*value = v;
	xrma_sisci_obj_put(&d->obj);
	return err;
}

unsigned int SCIGetCSRRegister(sci_desc_t sd, unsigned int localAdapterNo, unsigned int SCINodeId,
			       unsigned int CSROffset, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	unsigned int value = 0;

	xrma_sisci_set(error, csr_call(sd, localAdapterNo, SCINodeId, CSROffset, flags, false, &value));
	return value;
}

void SCISetCSRRegister(sci_desc_t sd, unsigned int localAdapterNo, unsigned int SCINodeId,
		       unsigned int CSROffset, unsigned int CSRValue, unsigned int flags,
		       sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	xrma_sisci_set(error, csr_call(sd, localAdapterNo, SCINodeId, CSROffset, flags, true, &CSRValue));
}
