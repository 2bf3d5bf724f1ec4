/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/sisci_types.h: the SISCI types (spec §2.1.2, §2.5, §2.6): opaque
 * handles, sci_address_t, the enums, the callback types and the query
 * structures (typedef names as Dolphin spells them), plus the types of
 * Dolphin's later additions that real programs use (data interrupts, DMA
 * vectors, adapter-name lookups, bus addresses, broadcast group ids).
 *
 * Callback types: the 1999 specification gives callbacks returning int with
 * fewer arguments; SISCI API 2.0 returns sci_callback_action_t (an int here)
 * and adds a status argument. So that programs of both eras compile unchanged,
 * C before C23 sees callback types without a parameter list; C++, C23 and
 * programs defining SISCI_STRICT_CALLBACKS see the API 2.0 prototypes. The
 * library always calls callbacks with the API 2.0 arguments (docs/sisci.md).
 */
#ifndef SISCI_TYPES_H
#define SISCI_TYPES_H

#include <stddef.h>
#include <sisci_error.h>

/* Parameter directions, as printed in the specification's prototypes. */
#ifndef IN
#define IN
#endif
#ifndef OUT
#define OUT
#endif
#ifndef INOUT
#define INOUT
#endif

typedef struct sci_desc *sci_desc_t;
typedef struct sci_local_segment *sci_local_segment_t;
typedef struct sci_remote_segment *sci_remote_segment_t;
typedef struct sci_map *sci_map_t;
typedef struct sci_sequence *sci_sequence_t;
typedef struct sci_dma_queue *sci_dma_queue_t;
typedef struct sci_local_interrupt *sci_local_interrupt_t;
typedef struct sci_remote_interrupt *sci_remote_interrupt_t;
typedef struct sci_block_transfer *sci_block_transfer_t;
/* Dolphin additions. */
typedef struct sci_local_data_interrupt *sci_local_data_interrupt_t;
typedef struct sci_remote_data_interrupt *sci_remote_data_interrupt_t;

typedef struct {
	unsigned int hi;
	unsigned short lo;
	unsigned short nodeId;
} sci_address_t;

typedef enum {
	SCI_DMAQUEUE_IDLE,
	SCI_DMAQUEUE_GATHER,
	SCI_DMAQUEUE_POSTED,
	SCI_DMAQUEUE_DONE,
	SCI_DMAQUEUE_ABORTED,
	SCI_DMAQUEUE_ERROR
} sci_dma_queue_state_t;

typedef enum {
	SCI_CB_CONNECT = 1,
	SCI_CB_DISCONNECT,
	SCI_CB_NOT_OPERATIONAL,
	SCI_CB_OPERATIONAL,
	SCI_CB_LOST
} sci_segment_cb_reason_t;

typedef enum {
	SCI_SEQ_OK,
	SCI_SEQ_RETRIABLE,
	SCI_SEQ_NOT_RETRIABLE,
	SCI_SEQ_PENDING
} sci_sequence_status_t;

/* What a callback returns: keep it registered, or cancel it (API 2.0). */
enum {
	SCI_CALLBACK_CANCEL = 1,
	SCI_CALLBACK_CONTINUE
};
/* An int, so that 1999 callbacks returning int have a compatible type. */
typedef int sci_callback_action_t;

#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L) || \
	defined(SISCI_STRICT_CALLBACKS)
#define SISCI_CB_ARGS(args) args
#else
#define SISCI_CB_ARGS(args) ()
#endif

/* The parameter-less form is deliberate; keep -Wstrict-prototypes quiet about it. */
#if defined(__GNUC__) && !defined(__cplusplus)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#endif
typedef sci_callback_action_t (*sci_cb_local_segment_t)
	SISCI_CB_ARGS((void *arg, sci_local_segment_t segment, sci_segment_cb_reason_t reason,
		       unsigned int nodeId, unsigned int localAdapterNo, sci_error_t error));
typedef sci_callback_action_t (*sci_cb_remote_segment_t)
	SISCI_CB_ARGS((void *arg, sci_remote_segment_t segment, sci_segment_cb_reason_t reason,
		       sci_error_t status));
typedef sci_callback_action_t (*sci_cb_dma_t)
	SISCI_CB_ARGS((void *arg, sci_dma_queue_t queue, sci_error_t status));
typedef sci_callback_action_t (*sci_cb_interrupt_t)
	SISCI_CB_ARGS((void *arg, sci_local_interrupt_t interrupt, sci_error_t status));
typedef sci_callback_action_t (*sci_cb_block_transfer_t)
	SISCI_CB_ARGS((void *arg, sci_block_transfer_t block, sci_error_t status));
typedef sci_callback_action_t (*sci_cb_data_interrupt_t)
	SISCI_CB_ARGS((void *arg, sci_local_data_interrupt_t interrupt, void *data,
		       unsigned int length, sci_error_t status));
#if defined(__GNUC__) && !defined(__cplusplus)
#pragma GCC diagnostic pop
#endif

/* A bus (I/O) address as a device on the adapter's bus uses it: 64 bits. */
typedef unsigned long long sci_ioaddr_t;

/* SCIQuery's argument for each major command (SCI_Q_* in sisci_api.h). */
typedef struct sci_query_string {
	char *str;
	unsigned int length;
} sci_query_string_t;

typedef struct sci_query_adapter {
	unsigned int localAdapterNo;
	unsigned int subcommand;
	void *data;
	unsigned int portNo;            /* Dolphin's link port; one port here, ignored */
} sci_query_adapter_t;

typedef struct sci_query_system {
	unsigned int subcommand;
	void *data;                     /* an unsigned int */
} sci_query_system_t;

typedef struct sci_query_local_segment {
	sci_local_segment_t segment;
	unsigned int subcommand;
	union {
		sci_ioaddr_t ioaddr;
	} data;
} sci_query_local_segment_t;

typedef struct sci_query_remote_segment {
	sci_remote_segment_t segment;
	unsigned int subcommand;
	union {
		sci_ioaddr_t ioaddr;
	} data;
} sci_query_remote_segment_t;

typedef struct sci_query_map {
	sci_map_t map;
	unsigned int subcommand;
	unsigned int data;
} sci_query_map_t;

/*
 * Remote node ids that name a broadcast group instead of one node
 * (SCIConnectSegment with SCI_FLAG_BROADCAST). Dolphin publishes 252 for the
 * group of all nodes; the numbered groups below it are our choice.
 */
#define DIS_BROADCAST_NODEID_GROUP_ALL 252u
#define DIS_BROADCAST_NODEID_GROUP_1   251u
#define DIS_BROADCAST_NODEID_GROUP_2   250u
#define DIS_BROADCAST_NODEID_GROUP_3   249u

/* One element of SCIStartDmaTransferVec. */
#define DIS_DMA_MAX_VECLEN 256
typedef struct {
	size_t size;
	size_t local_offset;
	size_t remote_offset;
	unsigned int flags;
} dis_dma_vec_t;

/* SCIGetNodeIdByAdapterName: node ids found, 0-terminated. */
#define DIS_MAX_NODEIDS 8
typedef unsigned int dis_nodeId_list_t[DIS_MAX_NODEIDS];

typedef enum {
	DIS_VIRT_ADAPTER_UNKNOWN = 0,
	DIS_VIRT_ADAPTER_XRMA = 1
} dis_virt_adapter_t;

#endif
