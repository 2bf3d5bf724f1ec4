/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ntb/ntb_init.c: the ntb provider: its capabilities, how the
 * configured limits become the model and the context's caps, and its ops
 * table (the host fabric's functions).
 */
#include "providers/ntb/ntb.h"

#include <stdlib.h>
#include <string.h>
#include "core/config.h"
#include "providers/util/hostfab.h"

/* The bus address Intel's B2B set-up gives the first window (XEON_B2B_BAR2_ADDR64). */
/*
 * Windows default to 64 GiB, a 64-bit BAR's size on current bridges: SCIF
 * programs register windows of a GiB and more, which a smaller default would
 * refuse (each segment lies in one window).
 */
#define NTB_BUS_BASE 0x2000000000000000ull

static const struct xrma_caps ntb_caps = {
	.flags = XRMA_CAP_MAP | XRMA_CAP_BROADCAST | XRMA_CAP_ATOMIC | XRMA_CAP_REGISTER | XRMA_CAP_DOORBELL |
		 XRMA_CAP_MULTIPROC | XRMA_CAP_BUS_ADDR | XRMA_CAP_BUS_IMPORT | XRMA_CAP_LOCAL_VIRTUAL,
	.page_size = 4096,
	.max_seg_size = (size_t)64 << 30,
	.rma_offset_align = 1,
	.rma_size_align = 1,
	.max_segs = HOSTFAB_EXPORT_MAX,
	.max_maps = 0,
	.doorbell_count = 15,
	.max_nodes = 0,
	.max_node_id = 65535,
	.ctrl_msg_max = 65536,
	.spad_count = 16,
	.mw_count = 2,
	.mw_size = (uint64_t)64 << 30,
	.xlat_align = 4096,
};

/* The per-endpoint model: limits read from the configuration at open. */
struct ntb_model {
	struct hostfab_model m;
};

/* This provider's keys (its table in ntb_config.c). */
static int ntb_config_size(const struct xrma_config *cfg, enum ntb_config_key key, uint64_t max,
			   uint64_t *value)
{
	return xrma_config_table_size(cfg, &xrma_prov_ntb_config, key, max, value);
}

static int ntb_read_limits(const struct xrma_config *cfg, struct hostfab_model *m)
{
	uint64_t v;
	int ret;

	m->name = "ntb";
	m->bus_base = NTB_BUS_BASE;
	if ((ret = ntb_config_size(cfg, NTB_CONFIG_MW_COUNT, 64, &v)) || !v)
		return ret ? ret : -XRMA_ECONFIG;
	m->mw_count = (uint32_t)v;
	if ((ret = ntb_config_size(cfg, NTB_CONFIG_MW_SIZE_MAX, (uint64_t)1 << 51, &v)) || !v)
		return ret ? ret : -XRMA_ECONFIG;
	m->mw_size = v;
	if ((ret = ntb_config_size(cfg, NTB_CONFIG_XLAT_ALIGN, (uint64_t)1 << 30, &v)) || !v ||
	    (v & (v - 1)) || v < 4096)
		return ret ? ret : -XRMA_ECONFIG;   /* a power of two, at least a page */
	m->xlat_align = v;
	if ((ret = ntb_config_size(cfg, NTB_CONFIG_DB_COUNT, 64, &v)))
		return ret;
	m->db_count = (uint32_t)v;
	if ((ret = ntb_config_size(cfg, NTB_CONFIG_SPAD_COUNT, HOSTFAB_SPAD_MAX, &v)))
		return ret;
	m->spad_count = (uint32_t)v;
	if ((ret = ntb_config_size(cfg, NTB_CONFIG_MAX_PEERS, 65535, &v)))
		return ret;
	m->max_peers = (uint32_t)v;
	return 0;
}

static int ntb_open(const struct xrma_prov_open_args *args, void **state, struct xrma_prov_addr *self)
{
	struct ntb_model *model;
	int ret;

	if (!args || !args->config)
		return -XRMA_EINVAL;
	model = calloc(1, sizeof(*model));
	if (!model)
		return -XRMA_ENOMEM;
	ret = ntb_read_limits(args->config, &model->m);
	if (ret) {
		hostfab_detail("ntb: a value in the [ntb] configuration is out of range");
		free(model);
		return ret;
	}
	ret = hostfab_open(&model->m, args, state, self);
	if (ret) {
		free(model);
		return ret;
	}
	if (args->caps) {
		args->caps->doorbell_count = model->m.db_count;
		args->caps->spad_count = model->m.spad_count;
		args->caps->mw_count = model->m.mw_count;
		args->caps->mw_size = model->m.mw_size;
		args->caps->xlat_align = model->m.xlat_align;
		args->caps->max_seg_size = model->m.mw_size;
		args->caps->max_nodes = model->m.max_peers ? model->m.max_peers + 1 : 0;
		if (!model->m.db_count)
			args->caps->flags &= ~XRMA_CAP_DOORBELL;
	}
	return 0;
}

static void ntb_close(void *state)
{
	struct hostfab_ep *ep = state;
	const struct hostfab_model *model = ep ? ep->model : NULL;

	hostfab_close(state);
	free((void *)model);
}

static const struct xrma_provider_ops ntb_ops = {
	.open = ntb_open,
	.close = ntb_close,
	.progress_fd = hostfab_progress_fd,
	.progress = hostfab_progress,
	.poll = hostfab_poll,
	.node_list = hostfab_node_list,
	.node_probe = hostfab_node_probe,
	.name_bind = hostfab_name_bind,
	.name_unbind = hostfab_name_unbind,
	.name_lookup = hostfab_name_lookup,
	.name_wait = hostfab_name_wait,
	.name_changed = hostfab_name_changed,
	.ctrl_send = hostfab_ctrl_send,
	.mem_alloc = hostfab_mem_alloc,
	.mem_free = hostfab_mem_free,
	.mem_export = hostfab_mem_export,
	.mem_unexport = hostfab_mem_unexport,
	.mem_import = hostfab_mem_import,
	.mem_unimport = hostfab_mem_unimport,
	.rma = hostfab_rma,
	.rma_try = hostfab_rma_try,
	.mem_register = hostfab_mem_register,
	.map = hostfab_map,
	.unmap = hostfab_unmap,
	.atomic = hostfab_atomic,
	.doorbell_raise = hostfab_doorbell_raise,
	.doorbell_wait = hostfab_doorbell_wait,
	.scratchpad_read = hostfab_scratchpad_read,
	.scratchpad_write = hostfab_scratchpad_write,
	.mem_bus_addr = hostfab_mem_bus_addr,
	.bus_owner = hostfab_bus_owner,
	.bus_permit = hostfab_bus_permit,
	.link_set = hostfab_link_set,
	.node_objects = hostfab_node_objects,
};

const struct xrma_provider xrma_prov_ntb = {
	.name = "ntb",
	.description = "NTB device model: processes on this host as nodes",
	.caps = &ntb_caps,
	.ops = &ntb_ops,
};
