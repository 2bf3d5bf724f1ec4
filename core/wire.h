/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/wire.h: the control-message format spoken between cores over a
 * provider's control channel. One fixed little-endian header (type, status,
 * request id, four 64-bit arguments) and an optional payload. Decoding checks
 * everything (magic, version, type, lengths) before any handler sees a field:
 * it is the first thing a hostile or broken peer reaches.
 */
#ifndef XRMA_CORE_WIRE_H
#define XRMA_CORE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define XRMA_WIRE_MAGIC 0x5852u   /* "XR" */
#define XRMA_WIRE_VERSION 1u
#define XRMA_WIRE_HEADER_LEN 52u

enum xrma_wire_type {
	XRMA_WIRE_REPLY = 1,      /* answer to a request: req, status, args, payload */
	XRMA_WIRE_PING,           /* liveness probe; answered by a REPLY */
	XRMA_WIRE_SEG_IMPORT,     /* a0 seg id, a1 access, a2 importer's import id,
				   * a3 XRMA_WIRE_IMPORT_* flags; answered with a0 len,
				   * a1 access, a2 bus address if a3 has
				   * XRMA_WIRE_IMPORT_REPLY_BUS, key */
	XRMA_WIRE_SEG_RELEASE,    /* a0 seg id, a1 import id; answered when req != 0 */
	XRMA_WIRE_SEG_NOTICE,     /* a0 seg id, a1 import id, a2 event type */
	XRMA_WIRE_INTR_CONNECT,   /* a0 number; answered with a0 = instance id */
	XRMA_WIRE_INTR_DISCONNECT,/* a0 number, a1 instance id */
	XRMA_WIRE_INTR_TRIGGER,   /* a0 number, a1 instance id; payload data; answered when req != 0 */
	XRMA_WIRE_INTR_GONE,      /* a0 number, a1 instance id: the interrupt was removed */
	XRMA_WIRE_CONN_REQUEST,   /* a0 dst port, a1 src port, a2 src conn id, a3 window */
	XRMA_WIRE_CONN_DATA,      /* a0 dst conn id; payload bytes */
	XRMA_WIRE_CONN_CREDIT,    /* a0 dst conn id, a1 bytes freed */
	XRMA_WIRE_CONN_CLOSE,     /* a0 dst conn id */
	XRMA_WIRE_SEG_IMPORT_BUS, /* a0 bus address, a1 access, a2 import id, a3 len; answered
				   * with a0 segment len, a1 access, a2 seg id, a3 offset, key */
	XRMA_WIRE_TYPE_MAX_
};

/* XRMA_WIRE_SEG_IMPORT a3: only a segment opened with XRMA_SEG_BROADCAST will do. */
#define XRMA_WIRE_IMPORT_BROADCAST 1u

/*
 * XRMA_WIRE_SEG_IMPORT reply a3: a2 holds the segment's bus address. A flag,
 * not a non-zero a2, because 0 can be a bus address; an owner that predates
 * it sends a3 = 0 and the importer then knows no address.
 */
#define XRMA_WIRE_IMPORT_REPLY_BUS 1u

struct xrma_wire_msg {
	uint16_t type;            /* enum xrma_wire_type */
	int32_t status;           /* 0 or a negative XRMA_E* (replies) */
	uint64_t req;             /* request id (0: no answer wanted) */
	uint64_t arg[4];
	uint32_t payload_len;
	const void *payload;      /* decode: points into the buffer decoded */
};

/* Encoded size of msg. */
size_t xrma_wire_size(const struct xrma_wire_msg *msg);

/* Encode into buf (len bytes); returns the size or -XRMA_EMSGSIZE / -XRMA_EINVAL. */
int xrma_wire_encode(const struct xrma_wire_msg *msg, void *buf, size_t len);

/* Decode buf; -XRMA_EPROTO for anything malformed. msg->payload aliases buf. */
int xrma_wire_decode(const void *buf, size_t len, struct xrma_wire_msg *msg);

#endif
