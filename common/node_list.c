/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/node_list.c: parsing the node file (common/node_list.h) and looking its
 * entries up by id or host name. One parser for the whole library, so the
 * file the ofi provider reads for addresses is the file the core reads for
 * the cluster's ids and SISCI reads for host names.
 */
#include "common/node_list.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xrma/errors.h>
#include "common/detail.h"

/* One line, blanks at both ends already trimmed to one trailing blank; -1 if malformed. */
static int parse_line(char *line, struct xrma_node_entry *entry)
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
	entry->node = (uint32_t)id;
	entry->port[0] = '\0';
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
		snprintf(entry->port, sizeof(entry->port), "%lu", port);
	}
	if (!*host || strlen(host) >= sizeof(entry->host))
		return -1;
	snprintf(entry->host, sizeof(entry->host), "%s", host);
	return 0;
}

int xrma_node_list_load(const char *path, const char *key, struct xrma_node_list *list)
{
	FILE *f = fopen(path, "re");
	char line[512];
	size_t cap = 0;
	int lineno = 0, ret = 0;

	list->entries = NULL;
	list->count = 0;
	if (!f) {
		xrma_detail_set("%s: cannot read the node file %s: %s", key, path, strerror(errno));
		return -XRMA_ECONFIG;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash, *p = line;
		struct xrma_node_entry entry;
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
		if (parse_line(p, &entry) || xrma_node_list_find(list, entry.node)) {
			xrma_detail_set("%s: node file %s:%d: expected a new 'id host[:port]' (id 0..65535)",
					key, path, lineno);
			ret = -XRMA_ECONFIG;
			break;
		}
		if (list->count == cap) {
			struct xrma_node_entry *grown;

			cap = cap ? cap * 2 : 16;
			if (cap > XRMA_NODE_LIST_MAX ||
			    !(grown = realloc(list->entries, cap * sizeof(*grown)))) {
				ret = -XRMA_ENOMEM;
				break;
			}
			list->entries = grown;
		}
		list->entries[list->count++] = entry;
	}
	fclose(f);
	if (ret)
		xrma_node_list_free(list);
	return ret;
}

void xrma_node_list_free(struct xrma_node_list *list)
{
	free(list->entries);
	list->entries = NULL;
	list->count = 0;
}

const struct xrma_node_entry *xrma_node_list_find(const struct xrma_node_list *list,
							uint32_t node)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->entries[i].node == node)
			return &list->entries[i];
	return NULL;
}

const struct xrma_node_entry *xrma_node_list_find_host(const struct xrma_node_list *list,
							     const char *name)
{
	const struct xrma_node_entry *label = NULL;
	size_t len = strlen(name);
	int labels = 0;

	if (!len)
		return NULL;
	for (size_t i = 0; i < list->count; i++) {
		const char *host = list->entries[i].host;

		if (!strcasecmp(host, name))
			return &list->entries[i];
		/* "node1" for "node1.example.org", as short host names go. */
		if (!strncasecmp(host, name, len) && host[len] == '.') {
			label = &list->entries[i];
			labels++;
		}
	}
	return labels == 1 ? label : NULL;
}
