/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/registry.c: the providers compiled in (the list in providers/providers.h),
 * plus any added at run time (mock providers in tests), and the rule that picks
 * one. The core names no concrete provider: the list and the default name come
 * from providers/. A provider built as a module is listed by its entry in
 * libxrma (name, description, caps) and loaded when it is first looked up by
 * name (core/prov_module.c), so listing the providers loads none.
 */
#include "core/registry.h"
#include "core/fork.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/prov_module.h"
#include "providers/providers.h"

#define REGISTRY_MAX 16

static const char registry_default_name[] = XRMA_PROVIDERS_DEFAULT;

static struct {
	pthread_mutex_t lock;       /* guards loaded, count and list */
	bool loaded;                /* the compiled-in list has been copied into list */
	int count;
	const struct xrma_provider *list[REGISTRY_MAX];
} registry = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

pthread_mutex_t *xrma_core_registry_fork_lock(void)
{
	return &registry.lock;
}

/* The compiled-in providers first, once, so providers added later come after them. */
static void load_locked(void)
{
	if (registry.loaded)
		return;
	registry.loaded = true;
	for (size_t i = 0; i < xrma_providers_count && registry.count < REGISTRY_MAX; i++)
		registry.list[registry.count++] = xrma_providers[i];
}

bool xrma_provider_ops_valid(const struct xrma_provider *prov)
{
	const struct xrma_provider_ops *o;
	uint64_t caps;

	if (!prov || !prov->name || !*prov->name || strlen(prov->name) >= XRMA_NAME_MAX ||
	    !prov->caps || !prov->ops)
		return false;
	o = prov->ops;
	caps = prov->caps->flags;
	if (!o->open || !o->close || !o->progress_fd || !o->progress || !o->node_list ||
	    !o->node_probe || !o->name_bind || !o->name_unbind || !o->name_lookup || !o->ctrl_send ||
	    !o->mem_alloc || !o->mem_free || !o->mem_export || !o->mem_unexport || !o->mem_import ||
	    !o->mem_unimport || !o->rma)
		return false;
	/* Optional ops: present exactly when the capability is claimed. */
	if (!!o->mem_register != !!(caps & XRMA_CAP_REGISTER))
		return false;
	if (!!o->map != !!(caps & XRMA_CAP_MAP) || !!o->unmap != !!(caps & XRMA_CAP_MAP))
		return false;
	if (!!o->atomic != !!(caps & XRMA_CAP_ATOMIC))
		return false;
	if (!!o->doorbell_raise != !!(caps & XRMA_CAP_DOORBELL) ||
	    !!o->doorbell_wait != !!o->doorbell_raise || !!o->scratchpad_read != !!o->doorbell_raise ||
	    !!o->scratchpad_write != !!o->doorbell_raise)
		return false;
	if (!!o->mem_bus_addr != !!(caps & XRMA_CAP_BUS_ADDR))
		return false;
	if (!!o->bus_owner != !!(caps & XRMA_CAP_BUS_IMPORT) || !!o->bus_permit != !!o->bus_owner)
		return false;
	if (!!o->csr_read != !!(caps & XRMA_CAP_CSR) || !!o->csr_write != !!o->csr_read)
		return false;
	if (!!o->rmem_errors != !!(caps & XRMA_CAP_RSEG_ERRORS))
		return false;
	if (!!o->name_wait != !!o->name_changed)
		return false;
	/* Each posting op builds on the one before: rma_post, then rma_poll, then rma_polling. */
	if ((o->rma_poll && !o->rma_post) || (o->rma_polling && !o->rma_poll))
		return false;
	if (!prov->caps->page_size || (prov->caps->page_size & (prov->caps->page_size - 1)) ||
	    !prov->caps->rma_offset_align || !prov->caps->rma_size_align || !prov->caps->ctrl_msg_max)
		return false;
	return true;
}

static int find_locked(const char *name)
{
	for (int i = 0; i < registry.count; i++)
		if (!strcmp(registry.list[i]->name, name))
			return i;
	return -1;
}

int xrma_registry_add(const struct xrma_provider *prov)
{
	int ret = 0;

	if (!xrma_provider_ops_valid(prov))
		return -XRMA_EINVAL;
	pthread_mutex_lock(&registry.lock);
	load_locked();
	if (find_locked(prov->name) >= 0)
		ret = -XRMA_EEXIST;
	else if (registry.count == REGISTRY_MAX)
		ret = -XRMA_ENOSPC;
	else
		registry.list[registry.count++] = prov;
	pthread_mutex_unlock(&registry.lock);
	return ret;
}

int xrma_registry_remove(const struct xrma_provider *prov)
{
	int ret = -XRMA_ENOENT;

	if (!prov)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&registry.lock);
	load_locked();
	for (int i = 0; i < registry.count; i++) {
		if (registry.list[i] != prov)
			continue;
		memmove(&registry.list[i], &registry.list[i + 1],
			(size_t)(registry.count - i - 1) * sizeof(registry.list[0]));
		registry.count--;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&registry.lock);
	return ret;
}

/* The provider called name, its module loaded first if it is one; under the lock, so
 * two threads choosing it at once load it once. */
static int lookup(const char *name, const struct xrma_provider **prov)
{
	int i, ret = 0;

	*prov = NULL;
	if (!name)
		return -XRMA_ENOPROV;
	pthread_mutex_lock(&registry.lock);
	load_locked();
	i = find_locked(name);
	if (i < 0) {
		ret = -XRMA_ENOPROV;
	} else if (!registry.list[i]->ops) {
		ret = xrma_prov_module_load(registry.list[i], prov);
		if (!ret)
			registry.list[i] = *prov;
	} else {
		*prov = registry.list[i];
	}
	pthread_mutex_unlock(&registry.lock);
	return ret;
}

const struct xrma_provider *xrma_registry_find(const char *name)
{
	const struct xrma_provider *prov;

	lookup(name, &prov);
	return prov;
}

int xrma_registry_choose(const char *requested, const struct xrma_config *cfg,
			 const struct xrma_provider **prov)
{
	const char *name = requested;

	if (!prov)
		return -XRMA_EINVAL;
	/* A name the program gives must match exactly; only absent values default. */
	if (!name) {
		name = cfg ? xrma_config_value(cfg, XRMA_CONFIG_PROVIDER) : NULL;
		if (!name || !*name)
			name = registry_default_name;
	}
	return lookup(name, prov);
}

const char *xrma_provider_default(void)
{
	return registry_default_name;
}

int xrma_registry_count(void)
{
	int n;

	pthread_mutex_lock(&registry.lock);
	load_locked();
	n = registry.count;
	pthread_mutex_unlock(&registry.lock);
	return n;
}

const struct xrma_provider *xrma_registry_at(int index)
{
	const struct xrma_provider *prov = NULL;

	pthread_mutex_lock(&registry.lock);
	load_locked();
	if (index >= 0 && index < registry.count)
		prov = registry.list[index];
	pthread_mutex_unlock(&registry.lock);
	return prov;
}
