/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_query.c: attribute queries (spec 3.3.1.2, 3.3.1.5). The value type is
 * the attribute id's top nibble; checks go: interface, interface down, window, attribute
 * known, alignment, space (docs/pximc.md, ambiguity 21). Nothing is written on an error.
 */
#include <stdio.h>
#include <string.h>
#include "personalities/pximc/pximc_vendor.h"

static tPXIMC_Status xrma_pximc_put(const void *value, uint32_t len, uint32_t align, uint32_t max,
				    void *out, uint32_t *actual)
{
	if (!actual || (max && !out))
		return PXIMC_INVALID_ARGUMENT;
	if (align > 1 && out && (uintptr_t)out % align)
		return PXIMC_ALIGNMENT_ERROR;
	*actual = len;
	if (max < len)
		return PXIMC_INSUFFICIENT_SPACE;
	if (len)
		memcpy(out, value, len);
	return PXIMC_SUCCESS;
}

static tPXIMC_Status xrma_pximc_put_u32(uint32_t value, uint32_t max, void *out, uint32_t *actual)
{
	return xrma_pximc_put(&value, sizeof(value), sizeof(value), max, out, actual);
}

static tPXIMC_Status xrma_pximc_put_u64(uint64_t value, uint32_t max, void *out, uint32_t *actual)
{
	return xrma_pximc_put(&value, sizeof(value), sizeof(value), max, out, actual);
}

/* Strings carry printable ASCII only, NUL included in the size (3.3.1.2-R10..R13). */
static tPXIMC_Status xrma_pximc_put_str(const char *value, uint32_t max, void *out, uint32_t *actual)
{
	char clean[192];
	size_t n = 0;

	for (; value[n] && n < sizeof(clean) - 1; n++)
		clean[n] = value[n] >= 0x20 && value[n] <= 0x7e ? value[n] : '?';
	clean[n] = '\0';
	return xrma_pximc_put(clean, (uint32_t)n + 1, 1, max, out, actual);
}

static bool xrma_pximc_remote_facts(struct xrma_pximc *px, uint32_t node,
				    struct xrma_pximc_hello *hello)
{
	struct xrma_pximc_hdr hdr;

	return !xrma_pximc_call(px, node, XRMA_PXIMC_MSG_HELLO, 0, NULL, 0, &hdr, hello,
				sizeof(*hello), NULL) &&
	       hdr.len == sizeof(*hello);
}

/*
 * The PCI facts of the adapter under the interface (xrma/topo.h). The host
 * adapter is no PCI function: those optional attributes are then unsupported.
 */
static tPXIMC_Status xrma_pximc_put_pci(struct xrma_pximc *px, uint32_t attribute, uint32_t max,
					void *out, uint32_t *actual)
{
	struct xrma_adapter_info a;
	uint32_t value;

	if (xrma_ctx_adapter(px->ctx, &a) || a.kind == XRMA_ADAPTER_HOST)
		return PXIMC_NSUP_ATTRIBUTE;
	switch (attribute) {
	case PXIMC_U32_INTERFACE_DEVICE_ID:
		value = a.device_id;
		break;
	case PXIMC_U32_INTERFACE_VENDOR_ID:
		value = a.vendor_id;
		break;
	case PXIMC_U32_INTERFACE_SS_ID:
		value = a.subdevice_id;
		break;
	case PXIMC_U32_INTERFACE_SS_VENDOR_ID:
		value = a.subvendor_id;
		break;
	case PXIMC_U32_INTERFACE_BUS:
		value = a.pci_bus;
		break;
	case PXIMC_U32_INTERFACE_DEV:
		value = a.pci_dev;
		break;
	default:
		value = a.pci_func;
		break;
	}
	return xrma_pximc_put_u32(value, max, out, actual);
}

tPXIMC_Status xrma_pximc_query_interface(struct xrma_pximc *px, uint32_t interface_id,
					 uint32_t attribute, uint32_t max, void *out,
					 uint32_t *actual)
{
	struct xrma_pximc_hello hello = { 0 };
	struct xrma_ctx_info info;
	char text[XRMA_FABRIC_MAX + 64];
	uint32_t node;

	if (xrma_pximc_iface_node(px, interface_id, &node))
		return PXIMC_INVALID_INTERFACE;
	switch (attribute) {
	case PXIMC_STR_MANF_NAME:
		return xrma_pximc_put_str("xrma", max, out, actual);
	case PXIMC_STR_MODEL_NAME:
		if (xrma_ctx_query(px->ctx, &info))
			return PXIMC_NSUP_ATTRIBUTE;
		snprintf(text, sizeof(text), "xrma %s provider", info.provider);
		return xrma_pximc_put_str(text, max, out, actual);
	case PXIMC_STR_SERIAL_NUM:
	case PXIMC_STR_INTERFACE_NAME:
		if (xrma_ctx_query(px->ctx, &info))
			return PXIMC_NSUP_ATTRIBUTE;
		snprintf(text, sizeof(text), "%s node %u to node %u", info.fabric, px->self, node);
		return xrma_pximc_put_str(text, max, out, actual);
	case PXIMC_STR_REMOTE_OS:
		if (!xrma_pximc_remote_facts(px, node, &hello))
			return PXIMC_NSUP_ATTRIBUTE;
		return xrma_pximc_put_str(hello.os, max, out, actual);
	case PXIMC_U32_PROTOCOL_VERSION:
		return xrma_pximc_put_u32(PXIMC_SPEC_VERSION, max, out, actual);
	case PXIMC_U32_MANF_ID: {
		struct xrma_adapter_info a;

		/* The adapter's vendor; on the host xrma has no PCI-SIG id: 0xFFFF, PCI's "no vendor". */
		if (xrma_ctx_adapter(px->ctx, &a) || a.kind == XRMA_ADAPTER_HOST)
			a.vendor_id = 0xFFFFu;
		return xrma_pximc_put_u32(a.vendor_id, max, out, actual);
	}
	case PXIMC_U32_INTERFACE_DEVICE_ID:
	case PXIMC_U32_INTERFACE_VENDOR_ID:
	case PXIMC_U32_INTERFACE_SS_ID:
	case PXIMC_U32_INTERFACE_SS_VENDOR_ID:
	case PXIMC_U32_INTERFACE_BUS:
	case PXIMC_U32_INTERFACE_DEV:
	case PXIMC_U32_INTERFACE_FUNC:
		return xrma_pximc_put_pci(px, attribute, max, out, actual);
	case PXIMC_U32_INTERFACE_STATE:
		return xrma_pximc_put_u32(xrma_pximc_remote_facts(px, node, &hello) ? PXIMC_STATE_UP
										    : PXIMC_STATE_DOWN,
					  max, out, actual);
	case PXIMC_U32_INTERFACE_LOCAL:
		/* In a tree the logic block (the NTB) sits in the device, so it is local there
		 * and remote on the host (docs/pximc.md); without a tree every node holds its own
		 * bridge (or the host fabric that models it). */
		if (px->tree_host == UINT32_MAX)
			return xrma_pximc_put_u32(PXIMC_LOCAL, max, out, actual);
		return xrma_pximc_put_u32(px->self == px->tree_host ? PXIMC_REMOTE : PXIMC_LOCAL, max,
					  out, actual);
	case PXIMC_U32_REMOTE_ENDIANNESS:
		if (!xrma_pximc_remote_facts(px, node, &hello))
			return PXIMC_NSUP_ATTRIBUTE;
		return xrma_pximc_put_u32(hello.endianness, max, out, actual);
	case PXIMC_U32_REMOTE_WORD_SIZE:
		if (!xrma_pximc_remote_facts(px, node, &hello))
			return PXIMC_NSUP_ATTRIBUTE;
		return xrma_pximc_put_u32(hello.word_size, max, out, actual);
	default:
		return PXIMC_NSUP_ATTRIBUTE;
	}
}

void xrma_pximc_window_info(struct xrma_pximc_session *s, struct xrma_pximc_window_info *info)
{
	bool paired = s->state >= XRMA_PXIMC_PAIRING;

	memset(info, 0, sizeof(*info));
	info->uid = s->uid;
	info->conn_type = s->conn_type;
	info->loc_type = s->loc_type;
	info->protocol = s->protocol;
	info->pairing = paired ? PXIMC_WINDOW_PAIRED : PXIMC_WINDOW_UNPAIRED;
	/* Seen from the querying side, this session's flag is the remote one. */
	info->event_status = (xrma_pximc_event_pending(s) ? PXIMC_WINDOW_REMOTE_EVENT_PENDING : 0) |
			     (s->local_waiting ? PXIMC_WINDOW_REMOTE_SESSION_WAITING : 0);
	info->min_local = paired ? s->local_size : s->min_local;
	info->max_local = paired ? s->local_size : s->max_local;
	info->min_remote = paired ? s->remote_size : s->min_remote;
	info->max_remote = paired ? s->remote_size : s->max_remote;
	info->data_len = s->data_len;
	memcpy(info->data, s->data, s->data_len);
}

/*
 * The local half of SESSION_EVENT_STATUS: our session paired with window uid of node (its
 * partner), if any: its flag is pending, a thread of ours waits on it.
 */
static uint32_t xrma_pximc_local_event_status(struct xrma_pximc *px, uint32_t node, uint32_t uid)
{
	uint32_t bits = 0;

	pthread_mutex_lock(&px->lock);
	for (size_t i = 0; i < px->session_count; i++) {
		struct xrma_pximc_session *s = px->sessions[i];

		if (s->node != node || !s->partner_uid || s->partner_uid != uid || s->closed ||
		    s->state < XRMA_PXIMC_PAIRING)
			continue;
		bits = (xrma_pximc_event_pending(s) ? PXIMC_WINDOW_LOCAL_EVENT_PENDING : 0) |
		       (s->local_waiting ? PXIMC_WINDOW_LOCAL_SESSION_WAITING : 0);
		break;
	}
	pthread_mutex_unlock(&px->lock);
	return bits;
}

tPXIMC_Status xrma_pximc_query_window(struct xrma_pximc *px, uint32_t interface_id,
				      uint32_t window_id, uint32_t attribute, uint32_t max,
				      void *out, uint32_t *actual)
{
	struct xrma_pximc_window_info info;
	struct xrma_pximc_hdr hdr;
	uint32_t node;
	int ret;

	if (xrma_pximc_iface_node(px, interface_id, &node))
		return PXIMC_INVALID_INTERFACE;
	ret = xrma_pximc_call(px, node, XRMA_PXIMC_MSG_QUERY, 0, &window_id, sizeof(window_id),
			      &hdr, &info, sizeof(info), NULL);
	if (ret)
		return xrma_pximc_status(ret, PXIMC_INTERFACE_DOWN);
	if (!hdr.arg || hdr.len != sizeof(info) || info.data_len > XRMA_PXIMC_DATA_MAX)
		return PXIMC_INVALID_WINDOW;
	info.event_status |= xrma_pximc_local_event_status(px, node, window_id);
	switch (attribute) {
	case PXIMC_U8_WINDOW_DATA:
		return xrma_pximc_put(info.data, info.data_len, 1, max, out, actual);
	case PXIMC_U32_WINDOW_CONNECTION_TYPE:
		return xrma_pximc_put_u32(info.conn_type, max, out, actual);
	case PXIMC_U32_WINDOW_LOCATION_TYPE:
		return xrma_pximc_put_u32(info.loc_type, max, out, actual);
	case PXIMC_U32_WINDOW_PROTOCOL_NUMBER:
		return xrma_pximc_put_u32(info.protocol, max, out, actual);
	case PXIMC_U32_WINDOW_PAIRING_STATE:
		return xrma_pximc_put_u32(info.pairing, max, out, actual);
	case PXIMC_U32_SESSION_EVENT_STATUS:
		return xrma_pximc_put_u32(info.event_status, max, out, actual);
	case PXIMC_U64_WINDOW_MIN_REMOTE_SIZE:
		return xrma_pximc_put_u64(info.min_remote, max, out, actual);
	case PXIMC_U64_WINDOW_MAX_REMOTE_SIZE:
		return xrma_pximc_put_u64(info.max_remote, max, out, actual);
	case PXIMC_U64_WINDOW_MIN_LOCAL_SIZE:
		return xrma_pximc_put_u64(info.min_local, max, out, actual);
	case PXIMC_U64_WINDOW_MAX_LOCAL_SIZE:
		return xrma_pximc_put_u64(info.max_local, max, out, actual);
	default:
		return PXIMC_NSUP_ATTRIBUTE;
	}
}
