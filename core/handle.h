/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/handle.h: validated handles. Public handles are not pointers but
 * (slot index, generation, type) packed into a pointer-sized value, looked up in
 * a process-wide slot table. A stale, closed, forged or wrong-type handle fails
 * the lookup with XRMA_EHANDLE and is never dereferenced. Each slot counts the
 * references taken through it, so an object closed while another thread uses it
 * is destroyed only when the last user lets go.
 */
#ifndef XRMA_CORE_HANDLE_H
#define XRMA_CORE_HANDLE_H

#include <stddef.h>
#include <stdint.h>

enum xrma_obj_type {
	XRMA_OBJ_CTX = 1,
	XRMA_OBJ_SEG,
	XRMA_OBJ_RSEG,
	XRMA_OBJ_WIN,
	XRMA_OBJ_WIN_HOLD,
	XRMA_OBJ_CONN,
	XRMA_OBJ_DMAQ,
	XRMA_OBJ_INTR,
	XRMA_OBJ_RINTR,
	XRMA_OBJ_BCAST,
	XRMA_OBJ_TEST,          /* for tests of this file */
	XRMA_OBJ_TYPE_COUNT
};

/* Embedded first in every core object. */
struct xrma_obj {
	void *handle;                              /* the public value; fixed at alloc */
	uint32_t slot;                             /* fixed at alloc */
	enum xrma_obj_type type;                   /* fixed at alloc */
	void (*destroy)(struct xrma_obj *obj);     /* runs once, after the last put of a killed object */
};

/*
 * Give obj a handle. The table holds one reference until xrma_handle_kill.
 * XRMA_ENOSPC when the table is full, XRMA_EINVAL for a bad type.
 */
int xrma_handle_alloc(struct xrma_obj *obj, enum xrma_obj_type type,
		      void (*destroy)(struct xrma_obj *obj));

/* Take a reference through handle; XRMA_EHANDLE unless live and of type. */
int xrma_handle_acquire(const void *handle, enum xrma_obj_type type, struct xrma_obj **obj);

/* Take another reference on an object the caller already holds. */
void xrma_handle_ref(struct xrma_obj *obj);

/* Drop a reference; the last drop of a killed object destroys it. */
void xrma_handle_put(struct xrma_obj *obj);

/*
 * Close the handle: later acquires fail, and the table's reference is dropped.
 * The caller must hold its own reference (and put it afterwards).
 * XRMA_EHANDLE if another thread killed it first.
 */
int xrma_handle_kill(struct xrma_obj *obj);

/* Live handles of a type (0: all types); for tests and xrma_info. */
size_t xrma_handle_live(enum xrma_obj_type type);

/* Convenience: acquire and convert to the containing struct. */
#define XRMA_HANDLE_GET(h, objtype, ctype, out)                                            \
	({                                                                                 \
		struct xrma_obj *xrma_o_;                                                  \
		int xrma_r_ = xrma_handle_acquire((h), (objtype), &xrma_o_);               \
		(out) = xrma_r_ ? NULL : (ctype *)xrma_o_;                                 \
		xrma_r_;                                                                   \
	})

#endif
