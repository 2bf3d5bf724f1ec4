/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/xrma/info.h: capability bits, limits and the provider list.
 * A provider's capabilities are data (providers/<p>/<p>_caps.c); the core tests
 * a bit before it touches any state and answers XRMA_ENOTSUP when it is clear.
 * Personalities turn that into their documented "not supported" error.
 */
#ifndef XRMA_INFO_H
#define XRMA_INFO_H

#include <stddef.h>
#include <stdint.h>
#include <xrma/api.h>

XRMA_BEGIN_DECLS

#define XRMA_CAP_MAP        (1ull << 0)  /* load/store mapping of remote memory */
#define XRMA_CAP_ATOMIC     (1ull << 1)  /* 64-bit remote atomics */
#define XRMA_CAP_DOORBELL   (1ull << 2)  /* remote wake without a control message */
#define XRMA_CAP_REGISTER   (1ull << 3)  /* user memory can back a segment */
#define XRMA_CAP_MULTIPROC  (1ull << 4)  /* nodes live in other processes */
#define XRMA_CAP_BUS_ADDR   (1ull << 5)  /* memory has modelled bus addresses */
#define XRMA_CAP_BROADCAST  (1ull << 6)  /* broadcast groups (xrma/bcast.h) */
#define XRMA_CAP_CSR        (1ull << 7)  /* per-node control and status registers */
#define XRMA_CAP_RSEG_ERRORS (1ull << 8) /* transaction errors counted per import */
#define XRMA_CAP_BUS_IMPORT (1ull << 9)  /* import a window by bus address (xrma_rseg_open_bus) */
/* Transfers reach local memory by its virtual address at the time they run: a
 * private segment over user memory pins nothing (clear: it holds the pages it
 * was opened over, as an FI_MR_LOCAL registration does). */
#define XRMA_CAP_LOCAL_VIRTUAL (1ull << 10)

#define XRMA_NAME_MAX 32

/* Limits a provider imposes; 0 in a count means "no limit of its own". */
struct xrma_caps {
	uint64_t flags;          /* XRMA_CAP_* */
	size_t page_size;        /* granularity of mappings and windows */
	size_t max_seg_size;     /* largest exportable segment, bytes */
	size_t rma_offset_align; /* RMA offsets must be multiples of this */
	size_t rma_size_align;   /* RMA lengths must be multiples of this */
	uint32_t max_segs;       /* exported segments per node */
	uint32_t max_maps;       /* concurrent remote mappings per context */
	uint32_t doorbell_count; /* doorbells per context (XRMA_CAP_DOORBELL) */
	uint32_t max_nodes;      /* nodes per fabric */
	uint32_t max_node_id;    /* largest valid node id */
	uint32_t ctrl_msg_max;   /* largest control message, bytes */
	uint32_t spad_count;     /* scratchpad registers per node (XRMA_CAP_DOORBELL) */
	uint32_t mw_count;       /* inbound memory windows per node (0: no window model) */
	uint64_t mw_size;        /* bytes per memory window */
	uint64_t xlat_align;     /* window translation alignment, bytes */
	uint32_t max_importers;  /* nodes importing one segment at once (0: no limit) */
};

struct xrma_provider_info {
	char name[XRMA_NAME_MAX];
	char description[96];
	struct xrma_caps caps;
};

/* Number of providers compiled in. */
XRMA_API int xrma_provider_count(void);

/* Describe provider number index (0 .. count-1); XRMA_ERANGE past the end. */
XRMA_API int xrma_provider_get(int index, struct xrma_provider_info *info);

/* Name of the provider a context opens when it names none (registry rule). */
XRMA_API const char *xrma_provider_default(void);

/* The configuration in force: entry index, XRMA_ERANGE past the end. */
struct xrma_config_entry {
	char key[XRMA_NAME_MAX];
	char value[256];
	char source[288];   /* "default", "environment XRMA_X", or "file PATH:LINE" */
};
XRMA_API int xrma_config_get(int index, struct xrma_config_entry *entry);

/* The entry of key as xrma_config_get names it ("sisci.remove_connected"); XRMA_ENOENT if none. */
XRMA_API int xrma_config_find(const char *key, struct xrma_config_entry *entry);

XRMA_END_DECLS

#endif
