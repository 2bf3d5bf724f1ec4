/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/pximc/pximc_names.c: node-wide names (segment ids, ports, interrupt numbers).
 * A PXImc system is one process, so a node is one process on pximc and its name tables are
 * this provider's; other nodes ask over the control session (LOOKUP).
 */
#include "providers/pximc/pximc.h"

#include <stdlib.h>
#include <xrma/errors.h>

/* Under p->lock. */
static struct pxp_name *pxp_name_find_locked(struct pxp_prov *p, uint32_t ns, uint64_t id)
{
	for (size_t i = 0; i < p->name_count; i++)
		if (p->names[i].ns == ns && p->names[i].id == id)
			return &p->names[i];
	return NULL;
}

int pxp_name_bind(void *state, enum xrma_ns ns, uint64_t *id, uint64_t min, uint64_t max)
{
	struct pxp_prov *p = state;
	uint64_t want;
	int ret = 0;

	if (!p || !id || (unsigned)ns >= XRMA_NS_COUNT || (*id == XRMA_ID_ANY && min > max))
		return -XRMA_EINVAL;
	pthread_mutex_lock(&p->lock);
	want = *id;
	if (want == XRMA_ID_ANY) {
		uint64_t span = max - min, start = p->name_hint[ns];

		ret = -XRMA_ENOSPC;
		if (start < min || start > max)
			start = min;
		for (uint64_t i = 0; i <= span && i < p->name_count + 1; i++) {
			uint64_t cand = min + (start - min + i) % (span + 1 ? span + 1 : UINT64_MAX);

			if (!pxp_name_find_locked(p, ns, cand)) {
				want = cand;
				ret = 0;
				break;
			}
		}
	} else if (pxp_name_find_locked(p, ns, want)) {
		ret = -XRMA_EADDRINUSE;
	}
	if (!ret && p->name_count == p->name_cap) {
		size_t cap = p->name_cap ? p->name_cap * 2 : 64;
		struct pxp_name *n = realloc(p->names, cap * sizeof(*n));

		if (n) {
			p->names = n;
			p->name_cap = cap;
		} else {
			ret = -XRMA_ENOMEM;
		}
	}
	if (!ret) {
		p->names[p->name_count++] = (struct pxp_name){ .ns = ns, .id = want };
		if (*id == XRMA_ID_ANY)
			p->name_hint[ns] = want + 1;
		*id = want;
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

int pxp_name_unbind(void *state, enum xrma_ns ns, uint64_t id)
{
	struct pxp_prov *p = state;
	struct pxp_name *n;

	if (!p || (unsigned)ns >= XRMA_NS_COUNT)
		return -XRMA_EINVAL;
	pthread_mutex_lock(&p->lock);
	n = pxp_name_find_locked(p, ns, id);
	if (n)
		*n = p->names[--p->name_count];
	pthread_mutex_unlock(&p->lock);
	return n ? 0 : -XRMA_ENOENT;
}

int pxp_name_lookup(void *state, uint32_t node, enum xrma_ns ns, uint64_t id,
		    struct xrma_prov_addr *owner)
{
	struct pxp_prov *p = state;
	struct pxp_msg msg = { .ns = ns, .id = id }, reply;
	struct pxp_peer *peer;
	struct pxp_req *req;
	int ret = 0;

	if (!p || !owner || (unsigned)ns >= XRMA_NS_COUNT)
		return -XRMA_EINVAL;
	if (node == p->self.node) {
		pthread_mutex_lock(&p->lock);
		if (!pxp_name_find_locked(p, ns, id))
			ret = -XRMA_ENOENT;
		pthread_mutex_unlock(&p->lock);
		if (!ret)
			*owner = p->self;
		return ret;
	}
	peer = pxp_peer_get(p, node, PXP_PEER_WAIT_MS, false, NULL, &ret);
	if (!peer)
		return ret;
	req = pxp_req_open(peer);
	if (!req)
		return -XRMA_ENOMEM;
	msg.req = req->id;
	ret = pxp_send(peer, PXP_MSG_LOOKUP, &msg, sizeof(msg));
	if (!ret)
		ret = pxp_req_wait(req, 1, &reply);
	pxp_req_close(req);
	if (ret == -XRMA_ELOST)
		pxp_detail("pximc: the control session to node %u ended during a name lookup", node);
	if (ret)
		return ret == -XRMA_ELOST ? -XRMA_ENODEV : ret;
	if (reply.status)
		return reply.status;
	owner->node = node;
	owner->ep = reply.value;
	return 0;
}

void pxp_names_on_lookup(struct pxp_peer *peer, const struct pxp_msg *msg)
{
	struct pxp_prov *p = peer->prov;
	struct pxp_msg reply = { .req = msg->req, .ns = msg->ns, .id = msg->id };

	pthread_mutex_lock(&p->lock);
	if (msg->ns >= XRMA_NS_COUNT || !pxp_name_find_locked(p, msg->ns, msg->id))
		reply.status = -XRMA_ENOENT;
	pthread_mutex_unlock(&p->lock);
	reply.value = p->self.ep;
	(void)pxp_send(peer, PXP_MSG_LOOKUP_REPLY, &reply, sizeof(reply));
}
