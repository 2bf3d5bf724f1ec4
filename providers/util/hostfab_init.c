/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_init.c: opening and closing a host-fabric endpoint,
 * node discovery, and the modelled link. An endpoint joins its node's
 * directory, listens on its control socket, and reads its settings from the
 * configuration snapshot: the runtime directory, whose fabric it joins (a
 * user's own by default), which other users may connect, and whether
 * cross-memory attach may be used.
 */
#include "providers/util/hostfab.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/config.h"
#include "common/detail.h"

void hostfab_detail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xrma_detail_vset(fmt, ap);
	va_end(ap);
}

/* Fabric names become part of file and socket names: keep [A-Za-z0-9_-], escape
 * the rest, and hash names that would grow too long (up to XRMA_FABRIC_MAX
 * bytes; '~' is always escaped, so no plain name looks like a hashed one). */
static void fabric_token(const char *fabric, char *out, size_t len)
{
	size_t o = 0;
	uint64_t h = 1469598103934665603ull;

	for (const char *p = fabric; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	for (const char *p = fabric; *p && o + 4 < len; p++) {
		unsigned char c = (unsigned char)*p;

		if (isalnum(c) || c == '_' || c == '-')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, len - o, "%%%02x", c);
	}
	out[o] = '\0';
	if (o > 48 || strlen(fabric) * 3 + 1 > len)
		snprintf(out, len, "~h%016llx", (unsigned long long)h);
}

static int parse_uid(const char *v, uint32_t *uid)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || (*end && *end != ',') || n > UINT32_MAX - 1)
		return -XRMA_ECONFIG;
	*uid = (uint32_t)n;
	return 0;
}

/* This provider's keys (its table in hostfab_config.c). */
static const char *hostfab_config_value(const struct xrma_config *cfg, enum hostfab_config_key key)
{
	return xrma_config_table_value(cfg, &xrma_util_host_config, key);
}

static int read_settings(struct hostfab_ep *ep, const struct xrma_prov_open_args *args)
{
	const struct xrma_config *cfg = args->config;
	const char *dir = cfg ? hostfab_config_value(cfg, HOSTFAB_CONFIG_RUNTIME_DIR) : NULL;
	const char *fuid = cfg ? hostfab_config_value(cfg, HOSTFAB_CONFIG_FABRIC_UID) : NULL;
	const char *allow = cfg ? hostfab_config_value(cfg, HOSTFAB_CONFIG_ALLOW_UIDS) : NULL;
	const char *cma = cfg ? hostfab_config_value(cfg, HOSTFAB_CONFIG_CMA) : NULL;
	char token[128];
	uint32_t owner;
	struct stat st;

	ep->uid = getuid();
	ep->pid = getpid();
	snprintf(ep->dirpath, sizeof(ep->dirpath), "%s", dir && *dir ? dir : "/dev/shm");
	if (stat(ep->dirpath, &st) != 0 || !S_ISDIR(st.st_mode)) {
		hostfab_detail("%s: host.runtime_dir %s is not a directory", ep->model->name, ep->dirpath);
		return -XRMA_ECONFIG;
	}
	owner = ep->uid;
	if (fuid && *fuid && parse_uid(fuid, &owner)) {
		hostfab_detail("%s: host.fabric_uid '%s' is not a user id", ep->model->name, fuid);
		return -XRMA_ECONFIG;
	}
	if (allow && !strcmp(allow, "any")) {
		ep->allow_any = true;
	} else if (allow && *allow) {
		for (const char *p = allow; *p;) {
			if (ep->allow_count == HOSTFAB_ALLOW_MAX || parse_uid(p, &ep->allow[ep->allow_count])) {
				hostfab_detail("%s: host.allow_uids '%s' is not 'any' or up to %d uids",
					       ep->model->name, allow, HOSTFAB_ALLOW_MAX);
				return -XRMA_ECONFIG;
			}
			ep->allow_count++;
			p = strchr(p, ',');
			p = p ? p + 1 : "";
		}
	}
	if (!cma || !strcmp(cma, "auto") || !strcmp(cma, "on")) {
		ep->cma = true;
	} else if (!strcmp(cma, "off")) {
		ep->cma = false;
	} else {
		hostfab_detail("%s: host.cma '%s' is not auto, on or off", ep->model->name, cma);
		return -XRMA_ECONFIG;
	}
	fabric_token(args->fabric, token, sizeof(token));
	snprintf(ep->ns, sizeof(ep->ns), "%u.%s", owner, token);
	return 0;
}

/* Refuse a node that would exceed the model's peer count. */
static int check_peers(struct hostfab_ep *ep)
{
	uint32_t ids[256];
	size_t count = 0, others = 0;

	if (!ep->model->max_peers)
		return 0;
	if (hostfab_node_list(ep, ids, 256, &count))
		return 0;
	for (size_t i = 0; i < count && i < 256; i++)
		if (ids[i] != ep->self.node)
			others++;
	if (others > ep->model->max_peers) {
		hostfab_detail("%s: the fabric already has %zu other nodes; max_peers=%u",
			       ep->model->name, others, ep->model->max_peers);
		return -XRMA_ENOSPC;
	}
	return 0;
}

int hostfab_open(const struct hostfab_model *model, const struct xrma_prov_open_args *args,
		 void **state, struct xrma_prov_addr *self)
{
	struct hostfab_ep *ep;
	int ret;

	if (!model || !args || !args->fabric || !state || !self)
		return -XRMA_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -XRMA_ENOMEM;
	ep->model = model;
	ep->self.node = args->node_id;
	ep->upcalls = *args->upcalls;
	ep->core = args->core;
	ep->slot_fd = ep->listen_fd = ep->reserve_fd = ep->epfd = -1;
	ep->slot = -1;
	pthread_mutex_init(&ep->lock, NULL);
	pthread_mutex_init(&ep->progress_lock, NULL);
	ep->rxbuf = malloc(HOSTFAB_PKT_MAX);
	ret = ep->rxbuf ? read_settings(ep, args) : -XRMA_ENOMEM;
	if (!ret)
		hostfab_dir_sweep_runtime(ep);   /* what crashed programs left behind */
	if (!ret)
		ret = hostfab_dir_join(ep);
	if (!ret)
		ret = check_peers(ep);
	if (!ret)
		ret = hostfab_chan_listen(ep);
	if (ret) {
		hostfab_close(ep);
		return ret;
	}
	*state = ep;
	*self = ep->self;
	return 0;
}

void hostfab_close(void *state)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dirmap *map;

	if (!ep)
		return;
	/* Peers hear the goodbye before our names vanish, and see a reset, not a death. */
	hostfab_chan_goodbye(ep);
	hostfab_mem_release_all(ep);
	/* A listener outliving its node's file would read as a live node whose file was removed. */
	hostfab_chan_unlisten(ep);
	hostfab_dir_leave(ep);
	hostfab_chan_destroy(ep);
	while ((map = ep->dirs)) {
		ep->dirs = map->next;
		hostfab_dir_close(map);
	}
	pthread_mutex_destroy(&ep->lock);
	pthread_mutex_destroy(&ep->progress_lock);
	free(ep->rxbuf);
	free(ep);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int hostfab_node_list(void *state, uint32_t *ids, size_t max, size_t *count)
{
	struct hostfab_ep *ep = state;
	char prefix[200];
	size_t plen, n = 0, cap = 64;
	uint32_t *found;
	struct dirent *de;
	DIR *d;

	if (!ep || !count || (!ids && max))
		return -XRMA_EINVAL;
	snprintf(prefix, sizeof(prefix), "xrma.%s.", ep->ns);
	plen = strlen(prefix);
	d = opendir(ep->dirpath);
	if (!d)
		return -XRMA_EIO;
	found = malloc(cap * sizeof(*found));
	if (!found) {
		closedir(d);
		return -XRMA_ENOMEM;
	}
	while ((de = readdir(d))) {
		struct hostfab_dirmap *map;
		unsigned long node;
		char *end;

		if (strncmp(de->d_name, prefix, plen) || !isdigit((unsigned char)de->d_name[plen]))
			continue;
		errno = 0;
		node = strtoul(de->d_name + plen, &end, 10);
		if (errno || *end || node > UINT32_MAX)
			continue;   /* a temporary file, or not ours */
		if (hostfab_dir_peer(ep, (uint32_t)node, &map))
			continue;
		if (!hostfab_dir_node_live(ep, map)) {
			/* Every process of that node died: clear its file away. */
			hostfab_dir_remove_if_dead(ep, map);
			hostfab_dir_put(ep, map);
			continue;
		}
		hostfab_dir_put(ep, map);
		if (n == cap) {
			uint32_t *more = realloc(found, 2 * cap * sizeof(*found));

			if (!more)
				break;
			found = more;
			cap *= 2;
		}
		found[n++] = (uint32_t)node;
	}
	closedir(d);
	qsort(found, n, sizeof(*found), cmp_u32);
	for (size_t i = 0; i < n && i < max; i++)
		ids[i] = found[i];
	*count = n;
	free(found);
	return 0;
}

int hostfab_node_probe(void *state, uint32_t node, int timeout_ms)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dirmap *map;
	int ret;

	(void)timeout_ms;   /* the directory answers at once */
	if (!ep)
		return -XRMA_EINVAL;
	if (hostfab_dir_peer(ep, node, &map))
		return -XRMA_ENODEV;
	ret = !hostfab_dir_node_live(ep, map) ||
	      __atomic_load_n(&map->dir->link_down, __ATOMIC_ACQUIRE) ? -XRMA_ENODEV : 0;
	hostfab_dir_put(ep, map);
	return ret;
}

int hostfab_link_set(void *state, uint32_t node, bool up)
{
	struct hostfab_ep *ep = state;
	struct hostfab_dirmap *map;
	int ret;

	if (!ep)
		return -XRMA_EINVAL;
	ret = hostfab_dir_peer(ep, node, &map);
	if (ret)
		return ret;
	if (!map->writable) {
		hostfab_dir_put(ep, map);
		return -XRMA_EACCES;
	}
	__atomic_store_n(&map->dir->link_down, up ? 0u : 1u, __ATOMIC_RELEASE);
	hostfab_dir_put(ep, map);
	hostfab_chan_broadcast_link(ep, node, up);
	return 0;
}
