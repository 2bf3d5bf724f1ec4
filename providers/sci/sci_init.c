/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/sci/sci_init.c: the sci provider: the node-id rule, how the [sci]
 * configuration becomes the model and the context's caps, the progress fd
 * (the host fabric's, plus the timer that brings modelled links back), node
 * probes and look-ups that know SCI node ids, and the ops table.
 */
#include "providers/sci/sci.h"

#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "core/config.h"

/* This provider's keys (its table in sci_config.c). */
static const char *sci_config_value(const struct xrma_config *cfg, enum sci_config_key key)
{
	return xrma_config_table_value(cfg, &xrma_prov_sci_config, key);
}

static int sci_config_size(const struct xrma_config *cfg, enum sci_config_key key, uint64_t max,
			   uint64_t *value)
{
	return xrma_config_table_size(cfg, &xrma_prov_sci_config, key, max, value);
}

static int sci_read_limits(const struct xrma_config *cfg, struct sci_model *model)
{
	uint64_t entries, page;
	const char *raw;

	if (sci_config_size(cfg, SCI_CONFIG_ATT_ENTRIES, 1u << 20, &entries) || !entries) {
		hostfab_detail("sci: sci.att_entries must be 1..1048576");
		return -XRMA_ECONFIG;
	}
	if (sci_config_size(cfg, SCI_CONFIG_ATT_PAGE_SIZE, 1u << 30, &page) || page < 4096 ||
	    (page & (page - 1))) {
		hostfab_detail("sci: sci.att_page_size must be a power of two from 4096 to 1G");
		return -XRMA_ECONFIG;
	}
	model->att_entries = (uint32_t)entries;
	model->att_page_size = page;
	raw = sci_config_value(cfg, SCI_CONFIG_RAW_SPACE);
	if (!raw || !*raw || !strcmp(raw, "user")) {
		model->raw_space = SCI_RAW_USER;
	} else if (!strcmp(raw, "all")) {
		model->raw_space = SCI_RAW_ALL;
	} else if (!strcmp(raw, "none")) {
		model->raw_space = SCI_RAW_NONE;
	} else {
		hostfab_detail("sci: sci.raw_space '%s' is not user, all or none", raw);
		return -XRMA_ECONFIG;
	}
	return xrma_prov_sci_fault_parse(cfg, &model->faults);
}

static void sci_model_free(struct sci_model *model)
{
	xrma_prov_sci_post_fini(&model->posted);
	xrma_prov_sci_fault_release(model);
	if (model->poll_fd >= 0)
		close(model->poll_fd);
	if (model->timer_fd >= 0)
		close(model->timer_fd);
	pthread_mutex_destroy(&model->lock);
	free(model);
}

/* One fd for the service thread: the host fabric's and the link timer. */
static int sci_poll_open(struct sci_model *model, struct hostfab_ep *ep)
{
	struct epoll_event ev = { .events = EPOLLIN };

	model->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	model->poll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (model->timer_fd < 0 || model->poll_fd < 0)
		return -XRMA_EIO;
	if (epoll_ctl(model->poll_fd, EPOLL_CTL_ADD, hostfab_progress_fd(ep), &ev) ||
	    epoll_ctl(model->poll_fd, EPOLL_CTL_ADD, model->timer_fd, &ev))
		return -XRMA_EIO;
	return 0;
}

static int sci_open(const struct xrma_prov_open_args *args, void **state, struct xrma_prov_addr *self)
{
	struct sci_model *model;
	struct hostfab_ep *ep;
	int ret;

	if (!args || !args->config)
		return -XRMA_EINVAL;
	if (!sci_node_valid(args->node_id)) {
		hostfab_detail("sci: node id %u is not an SCI node id: multiples of 4 from 4 to 0x%x",
			       args->node_id, SCI_NODE_MAX);
		return -XRMA_EINVAL;
	}
	model = calloc(1, sizeof(*model));
	if (!model)
		return -XRMA_ENOMEM;
	pthread_mutex_init(&model->lock, NULL);
	xrma_prov_sci_post_init(&model->posted);
	model->timer_fd = model->poll_fd = -1;
	ret = sci_read_limits(args->config, model);
	if (ret) {
		sci_model_free(model);
		return ret;
	}
	model->m = (struct hostfab_model){
		.name = "sci",
		.mw_count = 1,
		.mw_size = (uint64_t)model->att_entries * model->att_page_size,
		.xlat_align = model->att_page_size,
		.bus_base = sci_global_addr(args->node_id, 0),
		.bus_node_shift = SCI_OFFSET_BITS,
	};
	ret = hostfab_open(&model->m, args, state, self);
	if (ret) {
		sci_model_free(model);
		return ret;
	}
	ep = *state;
	ret = sci_poll_open(model, ep);
	if (ret) {
		hostfab_close(ep);
		sci_model_free(model);
		return ret;
	}
	xrma_prov_sci_csr_init(ep);
	if (args->caps) {
		args->caps->mw_count = 1;
		args->caps->mw_size = model->m.mw_size;
		args->caps->xlat_align = model->att_page_size;
		args->caps->max_seg_size = model->m.mw_size;
	}
	return 0;
}

static void sci_close(void *state)
{
	struct hostfab_ep *ep = state;
	struct sci_model *model = ep ? sci_model_of(ep) : NULL;

	/* The engine thread uses the endpoint: it goes first. */
	if (model)
		xrma_prov_sci_post_stop(&model->posted);
	hostfab_close(state);
	if (model)
		sci_model_free(model);
}

static int sci_progress_fd(void *state)
{
	return sci_model_of(state)->poll_fd;
}

static int sci_progress(void *state)
{
	xrma_prov_sci_fault_progress(state);
	return hostfab_progress(state);
}

/* Ids that are no SCI node ids are never probed: SISCI calls them illegal. */
static int sci_node_probe(void *state, uint32_t node, int timeout_ms)
{
	struct hostfab_ep *ep = state;

	if (!sci_node_valid(node))
		return -XRMA_EINVAL;
	if (node != ep->self.node && __atomic_load_n(&ep->own->dir->link_down, __ATOMIC_ACQUIRE))
		return -XRMA_ENETDOWN;
	if (xrma_prov_sci_fault_lost(ep, node))
		return -XRMA_ENODEV;
	if (node != ep->self.node && xrma_prov_sci_link_pair_down(ep, node))
		return -XRMA_EHOSTUNREACH;
	return hostfab_node_probe(state, node, timeout_ms);
}

/* SCI's node ids: multiples of 4 (sci.h), whether the node is up or not. */
static bool sci_node_legal(void *state, uint32_t node)
{
	(void)state;
	return sci_node_valid(node);
}

static int sci_name_lookup(void *state, uint32_t node, enum xrma_ns ns, uint64_t id,
			   struct xrma_prov_addr *owner)
{
	if (!sci_node_valid(node)) {
		hostfab_detail("sci: %u is not an SCI node id (multiples of 4, 4..0x%x)", node,
			       SCI_NODE_MAX);
		return -XRMA_ENODEV;
	}
	return hostfab_name_lookup(state, node, ns, id, owner);
}

static const struct xrma_provider_ops sci_ops = {
	.open = sci_open,
	.close = sci_close,
	.progress_fd = sci_progress_fd,
	.progress = sci_progress,
	.poll = hostfab_poll,
	.node_list = hostfab_node_list,
	.node_probe = sci_node_probe,
	.name_bind = hostfab_name_bind,
	.name_unbind = hostfab_name_unbind,
	.name_lookup = sci_name_lookup,
	.name_wait = hostfab_name_wait,
	.name_changed = hostfab_name_changed,
	.node_legal = sci_node_legal,
	.ctrl_send = hostfab_ctrl_send,
	.mem_alloc = hostfab_mem_alloc,
	.mem_free = hostfab_mem_free,
	.mem_export = xrma_prov_sci_mem_export,
	.mem_unexport = hostfab_mem_unexport,
	.mem_import = xrma_prov_sci_mem_import,
	.mem_unimport = xrma_prov_sci_mem_unimport,
	.rma = xrma_prov_sci_rma,
	.rma_post = xrma_prov_sci_rma_post,
	.mem_register = hostfab_mem_register,
	.map = xrma_prov_sci_map,
	.unmap = xrma_prov_sci_unmap,
	.atomic = xrma_prov_sci_atomic,
	.link_set = hostfab_link_set,
	.node_objects = hostfab_node_objects,
	.mem_bus_addr = hostfab_mem_bus_addr,
	.bus_owner = xrma_prov_sci_bus_owner,
	.bus_permit = xrma_prov_sci_bus_permit,
	.csr_read = xrma_prov_sci_csr_read,
	.csr_write = xrma_prov_sci_csr_write,
	.rmem_errors = xrma_prov_sci_rmem_errors,
};

const struct xrma_provider xrma_prov_sci = {
	.name = "sci",
	.description = "SCI model: 16-bit node ids, ATT, CSR space, fault injection",
	.caps = &xrma_prov_sci_caps,
	.ops = &sci_ops,
};
