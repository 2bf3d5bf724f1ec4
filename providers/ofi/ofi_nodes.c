/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/ofi/ofi_nodes.c: the node file (one line per node: "id host[:port]",
 * '#' starts a comment; an IPv6 host is written in brackets) and the libfabric
 * address of each peer, resolved on first use with fi_getinfo and inserted
 * into the address vector; the address of a peer's target endpoint is its
 * control address with the port its keys name. docs/config.md documents the
 * format.
 */
#include "providers/ofi/ofi.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_domain.h>
#include <xrma/errors.h>

#define OFI_NODES_MAX 65536

static int parse_line(char *line, struct ofi_peer *peer)
{
	char *p = line, *end, *host, *colon;
	unsigned long id;

	errno = 0;
	id = strtoul(p, &end, 0);
	if (end == p || errno || id > 65535 || !isspace((unsigned char)*end))
		return -1;
	p = end;
	while (isspace((unsigned char)*p))
		p++;
	host = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	if (p == host)
		return -1;
	*p++ = '\0';
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return -1;   /* trailing words */
	peer->node = (uint32_t)id;
	snprintf(peer->port, sizeof(peer->port), "%s", OFI_DEFAULT_PORT);
	if (*host == '[') {          /* [v6]:port */
		char *close = strchr(host, ']');

		if (!close)
			return -1;
		*close = '\0';
		colon = close[1] == ':' ? close + 1 : NULL;
		if (close[1] && !colon)
			return -1;
		host++;
	} else {
		colon = strchr(host, ':');
		if (colon && strchr(colon + 1, ':'))
			return -1;   /* bare IPv6: needs brackets */
	}
	if (colon) {
		unsigned long port;

		*colon = '\0';
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (end == colon + 1 || *end || errno || port == 0 || port > 65535)
			return -1;
		snprintf(peer->port, sizeof(peer->port), "%lu", port);
	}
	if (!*host || strlen(host) >= sizeof(peer->host))
		return -1;
	snprintf(peer->host, sizeof(peer->host), "%s", host);
	peer->addr = FI_ADDR_NOTAVAIL;
	peer->rma_addr = FI_ADDR_NOTAVAIL;
	return 0;
}

int ofi_nodes_load(struct ofi_ep *ep, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[512];
	size_t cap = 0;
	int lineno = 0, ret = 0;

	if (!f) {
		ofi_detail("ofi: cannot read the node file %s: %s", path, strerror(errno));
		return -XRMA_ECONFIG;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash, *p = line;
		struct ofi_peer peer = { 0 };
		size_t end = strcspn(line, "\n");

		lineno++;
		/* A blank ends the id and host words the same way on every line. */
		if (end + 1 < sizeof(line)) {
			line[end] = ' ';
			line[end + 1] = '\0';
		}
		hash = strchr(line, '#');
		if (hash) {
			hash[0] = ' ';
			hash[1] = '\0';
		}
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			continue;
		if (parse_line(p, &peer) || ofi_peer_find(ep, peer.node)) {
			ofi_detail("ofi: node file %s:%d: expected a new 'id host[:port]' (id 0..65535)",
				   path, lineno);
			ret = -XRMA_ECONFIG;
			break;
		}
		if (ep->peer_count == cap) {
			struct ofi_peer *grown;

			cap = cap ? cap * 2 : 16;
			if (cap > OFI_NODES_MAX || !(grown = realloc(ep->peers, cap * sizeof(*grown)))) {
				ret = -XRMA_ENOMEM;
				break;
			}
			ep->peers = grown;
		}
		ep->peers[ep->peer_count++] = peer;
	}
	fclose(f);
	return ret;
}

struct ofi_peer *ofi_peer_find(struct ofi_ep *ep, uint32_t node)
{
	for (size_t i = 0; i < ep->peer_count; i++)
		if (ep->peers[i].node == node)
			return &ep->peers[i];
	return NULL;
}

int ofi_peer_addr_locked(struct ofi_ep *ep, struct ofi_peer *peer, fi_addr_t *addr)
{
	struct fi_info *hints, *info = NULL;
	int ret;

	if (peer->addr != FI_ADDR_NOTAVAIL) {
		*addr = peer->addr;
		return 0;
	}
	hints = fi_dupinfo(ep->info);
	if (!hints)
		return -XRMA_ENOMEM;
	free(hints->src_addr);
	hints->src_addr = NULL;
	hints->src_addrlen = 0;
	free(hints->dest_addr);
	hints->dest_addr = NULL;
	hints->dest_addrlen = 0;
	ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), peer->host, peer->port, 0,
			 hints, &info);
	fi_freeinfo(hints);
	if (ret || !info->dest_addr) {
		if (info)
			fi_freeinfo(info);
		ofi_detail("ofi: cannot resolve node %u at %s:%s", peer->node, peer->host, peer->port);
		return -XRMA_EHOSTUNREACH;
	}
	ret = fi_av_insert(ep->av, info->dest_addr, 1, &peer->addr, 0, NULL);
	fi_freeinfo(info);
	if (ret != 1) {
		peer->addr = FI_ADDR_NOTAVAIL;
		ofi_detail("ofi: cannot add node %u (%s:%s) to the address vector", peer->node,
			   peer->host, peer->port);
		return -XRMA_EHOSTUNREACH;
	}
	*addr = peer->addr;
	return 0;
}

int ofi_peer_rma_addr_locked(struct ofi_ep *ep, struct ofi_peer *peer, uint32_t port,
			     fi_addr_t *addr)
{
	union ofi_sockaddr name;
	size_t len = sizeof(name);
	fi_addr_t control;
	int ret;

	if (peer->rma_port == port && peer->rma_addr != FI_ADDR_NOTAVAIL) {
		*addr = peer->rma_addr;
		return 0;
	}
	if ((ret = ofi_peer_addr_locked(ep, peer, &control)))
		return ret;
	memset(&name, 0, sizeof(name));
	if (port > 65535 || fi_av_lookup(ep->av, control, &name, &len) || len > sizeof(name) ||
	    !ofi_sockaddr_set_port(&name, (uint16_t)port)) {
		ofi_detail("ofi: node %u's target endpoint has no socket address", peer->node);
		return -XRMA_EHOSTUNREACH;
	}
	/*
	 * A new incarnation's port replaces the cached one; the old entry stays in
	 * the AV (one per incarnation met), where a transfer still in flight to it
	 * may need it.
	 */
	if (fi_av_insert(ep->av, &name, 1, &peer->rma_addr, 0, NULL) != 1) {
		peer->rma_addr = FI_ADDR_NOTAVAIL;
		ofi_detail("ofi: cannot add node %u's target endpoint to the address vector",
			   peer->node);
		return -XRMA_EHOSTUNREACH;
	}
	peer->rma_port = port;
	*addr = peer->rma_addr;
	return 0;
}
