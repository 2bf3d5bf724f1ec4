/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/node_list.h: the node file, the one list of a cluster's nodes: one line
 * "id host[:port]" per node ('#' starts a comment, an IPv6 host in brackets).
 * The core reads it for the cluster's ids and host names ([xrma] nodes); the
 * ofi provider for the addresses of its peers. docs/config.md has the format.
 */
#ifndef XRMA_COMMON_NODE_LIST_H
#define XRMA_COMMON_NODE_LIST_H

#include <stddef.h>
#include <stdint.h>

#define XRMA_NODE_LIST_MAX 65536   /* lines; ids are 0..65535 */

struct xrma_node_entry {
	uint32_t node;
	char host[256];
	char port[16];   /* "" when the line gives none */
};

struct xrma_node_list {
	struct xrma_node_entry *entries;
	size_t count;
};

/*
 * Read the node file at path into list (empty on failure). XRMA_ECONFIG when
 * it cannot be read, has a line that is not "id host[:port]" or repeats an id;
 * xrma_error_detail() then names key (the setting that named the file), the
 * file and the line. XRMA_ENOMEM.
 */
int xrma_node_list_load(const char *path, const char *key, struct xrma_node_list *list);

void xrma_node_list_free(struct xrma_node_list *list);

/* The entry of node, or NULL. */
const struct xrma_node_entry *xrma_node_list_find(const struct xrma_node_list *list,
							uint32_t node);

/*
 * The entry whose host is name, ignoring case; else the one whose host's
 * first label (up to the first '.') is name, when exactly one is. NULL if none.
 */
const struct xrma_node_entry *xrma_node_list_find_host(const struct xrma_node_list *list,
							     const char *name);

#endif
