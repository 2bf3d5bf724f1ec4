/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/util/hostfab_objects.c: a node's live objects read from its
 * directory (hostfab_dir.c): contexts (endpoint slots with pid and uid), bound
 * names (segment ids, ports, interrupt numbers) and exported memory, each with
 * its owner. The directory is read lock-free under its sequence counter, copied
 * out, checked for dead owners, then reported with no lock held.
 */
#include <stdlib.h>
#include "providers/util/hostfab.h"

/* An object copied out of the directory, with the slot that owns it. */
struct object_entry {
	struct xrma_node_object obj;
	uint16_t slot;
};

struct objects_copy {
	struct object_entry *v;
	size_t n, cap;
};

/* Append obj owned by slot s, filling the owner fields from the slot table. */
static int copy_push(struct objects_copy *c, const struct hostfab_dir *dir, uint32_t node,
		     unsigned s, struct xrma_node_object obj)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct object_entry *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -XRMA_ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	obj.node = node;
	obj.ep = __atomic_load_n(&dir->slots[s].ep, __ATOMIC_RELAXED);
	obj.pid = __atomic_load_n(&dir->slots[s].pid, __ATOMIC_RELAXED);
	obj.uid = __atomic_load_n(&dir->slots[s].uid, __ATOMIC_RELAXED);
	c->v[c->n++] = (struct object_entry){ .obj = obj, .slot = (uint16_t)s };
	return 0;
}

static const uint32_t kind_of_ns[XRMA_NS_COUNT] = {
	[XRMA_NS_SEG] = XRMA_OBJECT_SEGMENT,
	[XRMA_NS_PORT] = XRMA_OBJECT_PORT,
	[XRMA_NS_INTR] = XRMA_OBJECT_INTERRUPT,
};

/* One pass over the slot, name and export tables (contexts first). */
static int copy_once(const struct hostfab_dir *dir, uint32_t node, struct objects_copy *c)
{
	int ret = 0;

	c->n = 0;
	for (unsigned s = 0; !ret && s < HOSTFAB_EP_MAX; s++)
		if (__atomic_load_n(&dir->slots[s].state, __ATOMIC_ACQUIRE) == HOSTFAB_SLOT_LIVE)
			ret = copy_push(c, dir, node, s,
					(struct xrma_node_object){ .kind = XRMA_OBJECT_CONTEXT });
	for (size_t i = 0; !ret && i < HOSTFAB_NAME_MAX; i++) {
		const struct hostfab_dir_name *name = &dir->names[i];
		uint16_t ns, slot;

		if (__atomic_load_n(&name->used, __ATOMIC_ACQUIRE) != 1)
			continue;
		ns = __atomic_load_n(&name->ns, __ATOMIC_RELAXED);
		slot = __atomic_load_n(&name->slot, __ATOMIC_RELAXED);
		if (ns < XRMA_NS_COUNT && slot < HOSTFAB_EP_MAX)
			ret = copy_push(c, dir, node, slot,
					(struct xrma_node_object){
						.kind = kind_of_ns[ns],
						.id = __atomic_load_n(&name->id, __ATOMIC_RELAXED),
					});
	}
	for (size_t i = 0; !ret && i < HOSTFAB_EXPORT_MAX; i++) {
		const struct hostfab_dir_export *x = &dir->exports[i];
		uint16_t slot;

		if (__atomic_load_n(&x->state, __ATOMIC_ACQUIRE) != HOSTFAB_EXPORT_LIVE)
			continue;
		slot = __atomic_load_n(&x->slot, __ATOMIC_RELAXED);
		if (slot < HOSTFAB_EP_MAX)
			ret = copy_push(c, dir, node, slot,
					(struct xrma_node_object){
						.kind = XRMA_OBJECT_MEMORY,
						.id = i,
						.len = __atomic_load_n(&x->len, __ATOMIC_RELAXED),
						.access = __atomic_load_n(&x->access,
									  __ATOMIC_RELAXED),
					});
	}
	return ret;
}

int hostfab_node_objects(void *state, uint32_t node,
			 int (*report)(void *arg, const struct xrma_node_object *obj), void *arg)
{
	struct hostfab_ep *ep = state;
	struct objects_copy c = { 0 };
	struct hostfab_dirmap *map;
	struct hostfab_dir *dir;
	bool alive[HOSTFAB_EP_MAX];
	int ret;

	if (!ep || !report)
		return -XRMA_EINVAL;
	ret = hostfab_dir_reader(ep, node, &map);
	if (ret)
		return ret;
	dir = map->dir;
	/* A torn copy is taken again. */
	for (;;) {
		uint32_t seq = hostfab_dir_read_begin(map);

		ret = copy_once(dir, node, &c);
		if (ret || !hostfab_dir_read_retry(dir, seq))
			break;
	}
	if (!ret && !hostfab_dir_node_live(ep, map))
		ret = -XRMA_ENODEV;
	/* A dead process's entries stay until someone reclaims them: not live objects. */
	for (unsigned s = 0; !ret && s < HOSTFAB_EP_MAX; s++)
		alive[s] = __atomic_load_n(&dir->slots[s].state, __ATOMIC_ACQUIRE) ==
				   HOSTFAB_SLOT_LIVE &&
			   hostfab_dir_ep_live(ep, map, __atomic_load_n(&dir->slots[s].ep,
									__ATOMIC_RELAXED));
	for (size_t i = 0; !ret && i < c.n; i++)
		if (alive[c.v[i].slot])
			ret = report(arg, &c.v[i].obj);
	hostfab_dir_put(ep, map);
	free(c.v);
	return ret;
}
