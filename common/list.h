/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/list.h: an intrusive list with a one-pointer head and removal in O(1)
 * given the entry (each link points at the pointer that points at it). The
 * caller holds the list's lock for every call, reads of a link included: a
 * neighbour's removal rewrites it.
 */
#ifndef XRMA_COMMON_LIST_H
#define XRMA_COMMON_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct xrma_list_link {
	struct xrma_list_link *next;
	struct xrma_list_link **pprev;   /* NULL while not listed */
};

/* The structure of type that holds link as its member. */
#define XRMA_LIST_ENTRY(link, type, member) ((type *)((char *)(link) - offsetof(type, member)))

static inline bool xrma_list_linked(const struct xrma_list_link *link)
{
	return link->pprev != NULL;
}

static inline void xrma_list_push(struct xrma_list_link **head, struct xrma_list_link *link)
{
	link->next = *head;
	link->pprev = head;
	if (link->next)
		link->next->pprev = &link->next;
	*head = link;
}

static inline void xrma_list_unlink(struct xrma_list_link *link)
{
	*link->pprev = link->next;
	if (link->next)
		link->next->pprev = link->pprev;
	link->next = NULL;
	link->pprev = NULL;
}

#endif
