/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/rwin.h: the inside of a shared registered address space (core/rwin.c)
 * and the layout of the table each end publishes to its peer.
 */
#ifndef XRMA_CORE_RWIN_H
#define XRMA_CORE_RWIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xrma/rwin.h>

#define XRMA_RWIN_PAGE ((size_t)4096)
#define XRMA_RWIN_TABLE_MAGIC 0x4e495752414d5258ull   /* "XRMARWIN" */
#define XRMA_RWIN_MAGIC_OPEN 0x7277696eu
/* A 32-bit word of a table as a futex word. */
#define XRMA_RWIN_WORD32(p) ((_Atomic uint32_t *)(void *)(p))
#define XRMA_RWIN_OK(r) ((r) && (r)->magic == XRMA_RWIN_MAGIC_OPEN)

/*
 * The table an end shares with its peer (an exported segment the peer maps or
 * reads). Every field is accessed with atomic builtins: the owner writes under
 * the sequence lock, the peer reads without.
 */
struct xrma_rwin_entry {
	uint64_t offset;
	uint64_t len;
	uint64_t seg_id;       /* the exported segment behind the window ... */
	uint64_t seg_offset;   /* ... from this offset */
	uint64_t prot;         /* XRMA_RWIN_PROT_* */
};

struct xrma_rwin_table {
	uint64_t magic;
	uint64_t seq;          /* odd while the owner rewrites the entries */
	uint64_t count;        /* live entries, sorted by offset */
	/* Kept by the owner's queue (xrma_fence_publish, xrma_core_fence_publish_wake): */
	uint64_t posted;       /* the mark of the last transfer the owner posted */
	uint64_t done;         /* the highest mark whose transfers all completed */
	uint32_t done_changes; /* raised with every new done: the futex peers sleep on */
	uint32_t sleepers;     /* the owner's threads asleep on its peer's done_changes */
	/* 1 + the id of the owner's seq box, where its peer writes its seq (0: it maps ours). */
	uint64_t seq_box;
	struct xrma_rwin_entry win[XRMA_RWIN_MAX];
};

#define XRMA_RWIN_TABLE_SIZE ((sizeof(struct xrma_rwin_table) + XRMA_RWIN_PAGE - 1) & ~(XRMA_RWIN_PAGE - 1))

/* One of our windows (live, or removed and waiting for its pages to be let go). */
struct xrma_rwin_window {
	uint64_t offset;
	size_t len;
	struct xrma_seg *seg;
	size_t seg_offset;
	uint64_t seg_id;
	uint32_t prot;
	void *pages;       /* the owner's, handed to release */
	bool live;         /* false: removed; the range stays taken until release says so */
	bool leaving;      /* out of the table while a remove tells the peer */
};

/* One of the peer's segments we imported (a cache). */
struct xrma_rwin_import {
	uint64_t seg_id;
	struct xrma_rseg *rseg;
};

/* Not locked: the owner serialises its calls (SCIF: the endpoint's lock). */
struct xrma_rwin {
	uint32_t magic;
	struct xrma_ctx *ctx;
	struct xrma_dmaq *dmaq;              /* the owner's: its marks are published */
	struct xrma_dmaq *ctl;               /* ours: table reads and seq pushes, opened on need */
	xrma_rwin_release_fn release;
	int timeout_ms;
	/* Ours. */
	struct xrma_win *win;
	struct xrma_seg *table_seg;
	struct xrma_rwin_table *table;
	struct xrma_rwin_window *windows;    /* sorted by offset */
	size_t nwindows, windows_cap;
	/* The peer's. */
	struct xrma_conn *conn;              /* set by attach */
	uint32_t peer_node;
	struct xrma_rseg *peer_rseg;
	struct xrma_rwin_table *peer;        /* mapped; read only */
	/* Where the peer's table cannot be mapped: read by RMA into a private copy. */
	struct xrma_rwin_table *copy;        /* XRMA_RWIN_TABLE_SIZE, then a scratch word */
	struct xrma_seg *copy_seg;
	bool copy_valid;                     /* the copy holds the table at copy_seq */
	bool copy_current;                   /* this call read the peer's seq and it matched */
	uint64_t copy_seq;
	uint64_t seq_seen;                   /* imports were checked against this table */
	/* The peer's seq as it last pushed it to us (the copy path). */
	struct xrma_seg *box_seg;
	uint64_t *box;
	/* The peer's seq box, where we push our seq (opened once the peer announced one). */
	struct xrma_rseg *peer_box_rseg;
	struct xrma_rwin_import *imports;
	size_t nimports, imports_cap;
};

/* One 64-bit word of the peer's table: a load where mapped, else a synchronous read. */
int xrma_core_rwin_word(struct xrma_rwin *rwin, size_t offset, uint64_t *value);

#endif
