/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/prov_call.h: the only way the core calls a provider. One wrapper per op
 * of providers/provider.h, each built on XRMA_PROV_CALL, so the op tested is
 * the op called and a NULL optional op answers -XRMA_ENOTSUP (or does nothing,
 * for ops that return void) instead of crashing.
 */
#ifndef XRMA_CORE_PROV_CALL_H
#define XRMA_CORE_PROV_CALL_H

#include <xrma/errors.h>
#include "core/ctx.h"

#define XRMA_PROV_CALL(ctx, op, ...)                                                       \
	((ctx)->prov->ops->op ? (ctx)->prov->ops->op((ctx)->prov_state, ##__VA_ARGS__)     \
			      : -XRMA_ENOTSUP)
#define XRMA_PROV_CALL_VOID(ctx, op, ...)                                                  \
	((ctx)->prov->ops->op ? (ctx)->prov->ops->op((ctx)->prov_state, ##__VA_ARGS__)     \
			      : (void)0)
/* Whether the provider has an optional op with no capability bit. */
#define XRMA_PROV_HAS(ctx, op) ((ctx)->prov->ops->op != NULL)

/* --- lifetime (open runs before the context has provider state) --- */
static inline int xrma_core_call_open(struct xrma_core_ctx *ctx, const struct xrma_prov_open_args *args)
{
	return ctx->prov->ops->open ? ctx->prov->ops->open(args, &ctx->prov_state, &ctx->self)
				    : -XRMA_ENOTSUP;
}
static inline void xrma_core_call_close(struct xrma_core_ctx *ctx)
{
	XRMA_PROV_CALL_VOID(ctx, close);
}
static inline void xrma_core_call_depart(struct xrma_core_ctx *ctx)
{
	XRMA_PROV_CALL_VOID(ctx, depart);
}

/* --- progress: the contract is in providers/provider.h --- */
static inline int xrma_core_call_progress_fd(struct xrma_core_ctx *ctx)
{
	return XRMA_PROV_CALL(ctx, progress_fd);
}
static inline int xrma_core_call_progress(struct xrma_core_ctx *ctx)
{
	return XRMA_PROV_CALL(ctx, progress);
}
static inline int xrma_core_call_poll(struct xrma_core_ctx *ctx)
{
	return XRMA_PROV_CALL(ctx, poll);
}
static inline int xrma_core_call_rma_poll(struct xrma_core_ctx *ctx)
{
	return XRMA_PROV_CALL(ctx, rma_poll);
}
static inline void xrma_core_call_rma_polling(struct xrma_core_ctx *ctx, bool on)
{
	XRMA_PROV_CALL_VOID(ctx, rma_polling, on);
}

/* --- nodes and names --- */
static inline int xrma_core_call_node_list(struct xrma_core_ctx *ctx, uint32_t *ids, size_t max,
					   size_t *count)
{
	return XRMA_PROV_CALL(ctx, node_list, ids, max, count);
}
static inline int xrma_core_call_node_probe(struct xrma_core_ctx *ctx, uint32_t node, int timeout_ms)
{
	return XRMA_PROV_CALL(ctx, node_probe, node, timeout_ms);
}
static inline int xrma_core_call_node_objects(struct xrma_core_ctx *ctx, uint32_t node,
					      int (*report)(void *arg, const struct xrma_node_object *obj),
					      void *arg)
{
	return XRMA_PROV_CALL(ctx, node_objects, node, report, arg);
}
static inline int xrma_core_call_link_set(struct xrma_core_ctx *ctx, uint32_t node, bool up)
{
	return XRMA_PROV_CALL(ctx, link_set, node, up);
}
static inline int xrma_core_call_name_bind(struct xrma_core_ctx *ctx, enum xrma_ns ns, uint64_t *id,
					   uint64_t min, uint64_t max)
{
	return XRMA_PROV_CALL(ctx, name_bind, ns, id, min, max);
}
static inline int xrma_core_call_name_unbind(struct xrma_core_ctx *ctx, enum xrma_ns ns, uint64_t id)
{
	return XRMA_PROV_CALL(ctx, name_unbind, ns, id);
}
static inline bool xrma_core_call_node_legal(struct xrma_core_ctx *ctx, uint32_t node)
{
	/* A provider without node rules accepts every id up to its max_node_id. */
	return XRMA_PROV_HAS(ctx, node_legal) ? ctx->prov->ops->node_legal(ctx->prov_state, node) : true;
}
static inline int xrma_core_call_name_wait(struct xrma_core_ctx *ctx, uint32_t node, uint64_t *seen,
					   int timeout_ms)
{
	return XRMA_PROV_CALL(ctx, name_wait, node, seen, timeout_ms);
}
static inline void xrma_core_call_name_changed(struct xrma_core_ctx *ctx)
{
	XRMA_PROV_CALL_VOID(ctx, name_changed);
}
static inline int xrma_core_call_name_lookup(struct xrma_core_ctx *ctx, uint32_t node, enum xrma_ns ns,
					     uint64_t id, struct xrma_prov_addr *owner)
{
	return XRMA_PROV_CALL(ctx, name_lookup, node, ns, id, owner);
}
static inline int xrma_core_call_ctrl_send(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *dst,
					   const void *msg, size_t len)
{
	return XRMA_PROV_CALL(ctx, ctrl_send, dst, msg, len);
}

/* --- memory --- */
static inline int xrma_core_call_mem_alloc(struct xrma_core_ctx *ctx, size_t len,
					   struct xrma_prov_mem **mem, void **addr)
{
	return XRMA_PROV_CALL(ctx, mem_alloc, len, mem, addr);
}
static inline int xrma_core_call_mem_register(struct xrma_core_ctx *ctx, void *addr, size_t len,
					      uint32_t flags, struct xrma_prov_mem **mem)
{
	return XRMA_PROV_CALL(ctx, mem_register, addr, len, flags, mem);
}
static inline void xrma_core_call_mem_free(struct xrma_core_ctx *ctx, struct xrma_prov_mem *mem)
{
	XRMA_PROV_CALL_VOID(ctx, mem_free, mem);
}
static inline int xrma_core_call_mem_export(struct xrma_core_ctx *ctx, struct xrma_prov_mem *mem,
					    uint32_t access, struct xrma_prov_key *key)
{
	return XRMA_PROV_CALL(ctx, mem_export, mem, access, key);
}
static inline void xrma_core_call_mem_unexport(struct xrma_core_ctx *ctx, struct xrma_prov_mem *mem)
{
	XRMA_PROV_CALL_VOID(ctx, mem_unexport, mem);
}
static inline int xrma_core_call_mem_import(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *owner,
					    const struct xrma_prov_key *key, size_t len, uint32_t access,
					    struct xrma_prov_rmem **rmem)
{
	return XRMA_PROV_CALL(ctx, mem_import, owner, key, len, access, rmem);
}
static inline void xrma_core_call_mem_unimport(struct xrma_core_ctx *ctx, struct xrma_prov_rmem *rmem)
{
	XRMA_PROV_CALL_VOID(ctx, mem_unimport, rmem);
}
static inline int xrma_core_call_mem_bus_addr(struct xrma_core_ctx *ctx, struct xrma_prov_mem *mem,
					      uint64_t *bus)
{
	return XRMA_PROV_CALL(ctx, mem_bus_addr, mem, bus);
}
static inline int xrma_core_call_bus_owner(struct xrma_core_ctx *ctx, uint32_t node, uint64_t bus,
					   struct xrma_prov_addr *owner)
{
	return XRMA_PROV_CALL(ctx, bus_owner, node, bus, owner);
}
static inline int xrma_core_call_bus_permit(struct xrma_core_ctx *ctx, const struct xrma_prov_addr *src)
{
	return XRMA_PROV_CALL(ctx, bus_permit, src);
}

/* --- remote access --- */
static inline int xrma_core_call_map(struct xrma_core_ctx *ctx, struct xrma_prov_rmem *rmem,
				     size_t offset, size_t len, uint32_t prot, void **addr)
{
	return XRMA_PROV_CALL(ctx, map, rmem, offset, len, prot, addr);
}
static inline void xrma_core_call_unmap(struct xrma_core_ctx *ctx, struct xrma_prov_rmem *rmem,
					void *addr, size_t len)
{
	XRMA_PROV_CALL_VOID(ctx, unmap, rmem, addr, len);
}
static inline int xrma_core_call_rma(struct xrma_core_ctx *ctx, enum xrma_rma_op op,
				     struct xrma_prov_rmem *rmem, size_t offset,
				     const struct iovec *iov, size_t count, uint32_t flags)
{
	return XRMA_PROV_CALL(ctx, rma, op, rmem, offset, iov, count, flags);
}
static inline int xrma_core_call_rma_try(struct xrma_core_ctx *ctx, enum xrma_rma_op op,
					 struct xrma_prov_rmem *rmem, size_t offset,
					 const struct iovec *iov, size_t count, uint32_t flags)
{
	return XRMA_PROV_CALL(ctx, rma_try, op, rmem, offset, iov, count, flags);
}
static inline int xrma_core_call_rma_post(struct xrma_core_ctx *ctx, enum xrma_rma_op op,
					  struct xrma_prov_rmem *rmem, size_t offset,
					  const struct iovec *iov, size_t count, uint32_t flags,
					  void (*done)(void *arg, int status), void *arg)
{
	return XRMA_PROV_CALL(ctx, rma_post, op, rmem, offset, iov, count, flags, done, arg);
}
static inline int xrma_core_call_atomic(struct xrma_core_ctx *ctx, struct xrma_prov_rmem *rmem,
					size_t offset, enum xrma_atomic_op op, uint64_t operand,
					uint64_t compare, uint64_t *old)
{
	return XRMA_PROV_CALL(ctx, atomic, rmem, offset, op, operand, compare, old);
}
static inline int xrma_core_call_rmem_errors(struct xrma_core_ctx *ctx, struct xrma_prov_rmem *rmem,
					     uint32_t flags, struct xrma_rseg_errors *errors)
{
	return XRMA_PROV_CALL(ctx, rmem_errors, rmem, flags, errors);
}

/* --- doorbells, scratchpads and control registers --- */
static inline int xrma_core_call_doorbell_raise(struct xrma_core_ctx *ctx, uint32_t node,
						uint64_t bits)
{
	return XRMA_PROV_CALL(ctx, doorbell_raise, node, bits);
}
static inline int xrma_core_call_doorbell_wait(struct xrma_core_ctx *ctx, uint64_t mask,
					       int timeout_ms, uint64_t *fired)
{
	return XRMA_PROV_CALL(ctx, doorbell_wait, mask, timeout_ms, fired);
}
static inline int xrma_core_call_scratchpad_read(struct xrma_core_ctx *ctx, uint32_t node,
						 uint32_t index, uint32_t *value)
{
	return XRMA_PROV_CALL(ctx, scratchpad_read, node, index, value);
}
static inline int xrma_core_call_scratchpad_write(struct xrma_core_ctx *ctx, uint32_t node,
						  uint32_t index, uint32_t value)
{
	return XRMA_PROV_CALL(ctx, scratchpad_write, node, index, value);
}
static inline int xrma_core_call_csr_read(struct xrma_core_ctx *ctx, uint32_t node, uint32_t offset,
					  uint32_t *value)
{
	return XRMA_PROV_CALL(ctx, csr_read, node, offset, value);
}
static inline int xrma_core_call_csr_write(struct xrma_core_ctx *ctx, uint32_t node, uint32_t offset,
					   uint32_t value)
{
	return XRMA_PROV_CALL(ctx, csr_write, node, offset, value);
}

#endif
