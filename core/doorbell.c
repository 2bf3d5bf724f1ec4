/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/doorbell.c: doorbells and scratchpads (xrma/doorbell.h). The core
 * checks handles and limits; the register lives in the provider.
 */
#include <xrma/doorbell.h>
#include <xrma/errors.h>
#include "core/ctx.h"
#include "common/detail.h"
#include "core/prov_call.h"

static int doorbell_bits_ok(const struct xrma_core_ctx *ctx, uint64_t bits)
{
	uint32_t n = ctx->caps.doorbell_count;

	if (!bits || (n < 64 && bits >> n)) {
		xrma_detail_set("doorbell bits 0x%llx: the provider has %u doorbell bits",
				(unsigned long long)bits, n);
		return -XRMA_EINVAL;
	}
	return 0;
}

static int doorbell_ctx(struct xrma_ctx *handle, struct xrma_core_ctx **ctx)
{
	int ret = xrma_core_ctx_acquire(handle, ctx);

	if (ret)
		return ret;
	if (!((*ctx)->caps.flags & XRMA_CAP_DOORBELL)) {
		xrma_handle_put(&(*ctx)->obj);
		return -XRMA_ENOTSUP;
	}
	return 0;
}

int xrma_doorbell_ring(struct xrma_ctx *handle, uint32_t node, uint64_t bits)
{
	struct xrma_core_ctx *ctx;
	int ret = doorbell_ctx(handle, &ctx);

	if (ret)
		return ret;
	ret = doorbell_bits_ok(ctx, bits);
	if (!ret)
		ret = xrma_core_call_doorbell_raise(ctx, node, bits);
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_doorbell_wait(struct xrma_ctx *handle, uint64_t mask, int timeout_ms, uint64_t *fired)
{
	struct xrma_core_ctx *ctx;
	int ret;

	if (!fired)
		return -XRMA_EINVAL;
	ret = doorbell_ctx(handle, &ctx);
	if (ret)
		return ret;
	ret = doorbell_bits_ok(ctx, mask);
	if (!ret)
		ret = xrma_core_call_doorbell_wait(ctx, mask, timeout_ms, fired);
	xrma_handle_put(&ctx->obj);
	return ret;
}

static int scratchpad_index_ok(const struct xrma_core_ctx *ctx, uint32_t index)
{
	if (index >= ctx->caps.spad_count) {
		xrma_detail_set("scratchpad %u: the provider has %u scratchpads", index,
				ctx->caps.spad_count);
		return -XRMA_ERANGE;
	}
	return 0;
}

int xrma_scratchpad_read(struct xrma_ctx *handle, uint32_t node, uint32_t index, uint32_t *value)
{
	struct xrma_core_ctx *ctx;
	int ret;

	if (!value)
		return -XRMA_EINVAL;
	ret = doorbell_ctx(handle, &ctx);
	if (ret)
		return ret;
	ret = scratchpad_index_ok(ctx, index);
	if (!ret)
		ret = xrma_core_call_scratchpad_read(ctx, node, index, value);
	xrma_handle_put(&ctx->obj);
	return ret;
}

int xrma_scratchpad_write(struct xrma_ctx *handle, uint32_t node, uint32_t index, uint32_t value)
{
	struct xrma_core_ctx *ctx;
	int ret = doorbell_ctx(handle, &ctx);

	if (ret)
		return ret;
	ret = scratchpad_index_ok(ctx, index);
	if (!ret)
		ret = xrma_core_call_scratchpad_write(ctx, node, index, value);
	xrma_handle_put(&ctx->obj);
	return ret;
}
