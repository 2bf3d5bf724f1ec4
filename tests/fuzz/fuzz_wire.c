/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/fuzz/fuzz_wire.c: fuzz target of the control-message decoder (core/wire.c),
 * the first code a hostile or broken peer reaches. Any input either fails with
 * XRMA_EPROTO or decodes to a message that encodes back to the very same bytes,
 * with its payload inside the input.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <xrma/errors.h>
#include "core/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xrma_wire_msg msg;
	uint8_t *again;
	int rc = xrma_wire_decode(data, size, &msg);

	if (rc) {
		if (rc != -XRMA_EPROTO)
			abort();
		return 0;
	}
	if (msg.type == 0 || msg.type >= XRMA_WIRE_TYPE_MAX_ || msg.status > 0 ||
	    xrma_wire_size(&msg) != size)
		abort();
	if (msg.payload_len && ((const uint8_t *)msg.payload < data ||
				(const uint8_t *)msg.payload + msg.payload_len > data + size))
		abort();
	again = malloc(size);
	if (!again)
		return 0;
	if (xrma_wire_encode(&msg, again, size) != (int)size || memcmp(again, data, size))
		abort();
	/* One byte short must be refused, not overrun. */
	if (xrma_wire_encode(&msg, again, size - 1) != -XRMA_EMSGSIZE)
		abort();
	free(again);
	return 0;
}
