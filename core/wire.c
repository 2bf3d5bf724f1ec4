/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/wire.c: encoding and validating control messages (format in wire.h).
 * Fields are written byte by byte in little-endian order so that the format
 * does not depend on the host or on struct padding.
 */
#include "core/wire.h"

#include <string.h>
#include <xrma/errors.h>

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

size_t xrma_wire_size(const struct xrma_wire_msg *msg)
{
	return XRMA_WIRE_HEADER_LEN + msg->payload_len;
}

/* Layout: magic 2 | version 1 | type 1 | status 4 | req 8 | arg 4x8 | payload_len 4 */
int xrma_wire_encode(const struct xrma_wire_msg *msg, void *buf, size_t len)
{
	uint8_t *p = buf;

	if (!msg || !buf || msg->type == 0 || msg->type >= XRMA_WIRE_TYPE_MAX_ ||
	    (msg->payload_len && !msg->payload))
		return -XRMA_EINVAL;
	if (len < xrma_wire_size(msg))
		return -XRMA_EMSGSIZE;
	put16(p, XRMA_WIRE_MAGIC);
	p[2] = XRMA_WIRE_VERSION;
	p[3] = (uint8_t)msg->type;
	put32(p + 4, (uint32_t)msg->status);
	put64(p + 8, msg->req);
	for (int i = 0; i < 4; i++)
		put64(p + 16 + 8 * i, msg->arg[i]);
	put32(p + 48, msg->payload_len);
	if (msg->payload_len)
		memcpy(p + XRMA_WIRE_HEADER_LEN, msg->payload, msg->payload_len);
	return (int)xrma_wire_size(msg);
}

int xrma_wire_decode(const void *buf, size_t len, struct xrma_wire_msg *msg)
{
	const uint8_t *p = buf;
	int32_t status;

	if (!buf || !msg || len < XRMA_WIRE_HEADER_LEN)
		return -XRMA_EPROTO;
	if (get16(p) != XRMA_WIRE_MAGIC || p[2] != XRMA_WIRE_VERSION || p[3] == 0 ||
	    p[3] >= XRMA_WIRE_TYPE_MAX_)
		return -XRMA_EPROTO;
	memset(msg, 0, sizeof(*msg));
	msg->type = p[3];
	status = (int32_t)get32(p + 4);
	/* A status is 0 or a negated code the core knows. */
	if (status > 0 || status < -(int32_t)XRMA_EMAX_)
		return -XRMA_EPROTO;
	msg->status = status;
	msg->req = get64(p + 8);
	for (int i = 0; i < 4; i++)
		msg->arg[i] = get64(p + 16 + 8 * i);
	msg->payload_len = get32(p + 48);
	if ((size_t)msg->payload_len != len - XRMA_WIRE_HEADER_LEN)
		return -XRMA_EPROTO;
	msg->payload = msg->payload_len ? p + XRMA_WIRE_HEADER_LEN : NULL;
	return 0;
}
