/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/fuzz/fuzz_config.c: fuzz target of the configuration-file parser
 * (core/config.c over inih). The input is the file, handed over as a memfd so the
 * parser reads it by path exactly as it reads a user's file; then every key's
 * value goes through the size and node-id parsers. Either the file is refused
 * (XRMA_ECONFIG) or every value is a NUL-terminated string that fits its entry.
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xrma/errors.h>
#include "core/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xrma_config cfg;
	char path[64];
	uint64_t value;
	uint32_t node;
	int fd = memfd_create("xrma-fuzz-config", MFD_CLOEXEC);
	int rc;

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&cfg, 0, sizeof(cfg));
	rc = xrma_config_load_file(&cfg, path);
	close(fd);
	if (rc && rc != -XRMA_ECONFIG)
		abort();
	for (int k = 0; k < XRMA_CONFIG_KEY_COUNT; k++) {
		const char *v = xrma_config_value(&cfg, (enum xrma_config_key)k);

		if (!v || !memchr(v, '\0', sizeof(cfg.entries[k].value)))
			abort();
		rc = xrma_config_size(&cfg, (enum xrma_config_key)k, UINT64_MAX, &value);
		if (rc && rc != -XRMA_ECONFIG)
			abort();
		rc = xrma_config_size(&cfg, (enum xrma_config_key)k, 4096, &value);
		if (!rc && value > 4096)
			abort();
	}
	rc = xrma_config_node_id(&cfg, &node);
	if (rc && rc != -XRMA_ECONFIG)
		abort();
	return 0;
}
