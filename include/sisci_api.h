/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/sisci_api.h: the SISCI API (CERN/Dolphin specification 2.1.1, 1999)
 * as implemented by libsisci over the xrma core, with sizes and offsets as
 * size_t (SISCI API 2.0) and the Dolphin additions real programs call, marked
 * "extension" below. Link with -lsisci. Every function, flag and error, and
 * each choice made where the specification is silent, is in docs/sisci.md.
 * Flags are plain integer constants, usable in constant expressions.
 */
#ifndef SISCI_API_H
#define SISCI_API_H

#include <stddef.h>
#include <sisci_types.h>
#include <sisci_error.h>

#if defined(__GNUC__) || defined(__clang__)
#define SISCI_API __attribute__((visibility("default")))
#else
#define SISCI_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_INFINITE_TIMEOUT 0xffffffffu

/* ---- flags of the specification (one bit each) ---- */
#define SCI_FLAG_THREAD_SAFE            0x00000001u
#define SCI_FLAG_USE_CALLBACK           0x00000002u
#define SCI_FLAG_ASYNCHRONOUS_CONNECT   0x00000004u
#define SCI_FLAG_FIXED_INTNO            0x00000008u
#define SCI_FLAG_FAST_BARRIER           0x00000010u
#define SCI_FLAG_EMPTY                  0x00000020u
#define SCI_FLAG_PRIVATE                0x00000040u
#define SCI_FLAG_DMA_READ               0x00000080u
#define SCI_FLAG_FIXED_MAP_ADDR         0x00000100u
#define SCI_FLAG_READONLY_MAP           0x00000200u
#define SCI_FLAG_ERROR_CHECK            0x00000400u
#define SCI_FLAG_BLOCK_READ             0x00000800u
#define SCI_FLAG_NO_FLUSH               0x00001000u
#define SCI_FLAG_NO_STORE_BARRIER       0x00002000u
#define SCI_FLAG_NOTIFY                 0x00004000u
#define SCI_FLAG_FORCE_DISCONNECT       0x00008000u

/*
 * ---- Dolphin flags real programs pass (extensions) ----
 * Bits 16..31. Flags that no function accepts together may share a bit.
 */
#define SCI_FLAG_AUTO_ID                0x00010000u  /* SCICreateSegment: the library picks the id */
#define SCI_FLAG_BROADCAST              0x00020000u  /* multicast segments / DMA */
#define SCI_FLAG_DMA_WAIT               0x00040000u  /* SCIStartDmaTransfer*: return when done */
#define SCI_FLAG_DMA_SOURCE_ONLY        0x00080000u  /* SCICreateSegment: a segment only read by DMA */
#define SCI_FLAG_DMA_GLOBAL             0x00100000u  /* DMA without a remote mapping */
#define SCI_FLAG_DMA_SYSDMA             0x00200000u  /* the system DMA engine */
#define SCI_FLAG_DMA_POST               0x00400000u
#define SCI_FLAG_DMA_RESET              0x00800000u
#define SCI_FLAG_SHARED                 0x01000000u  /* SCICreateSegment */
#define SCI_FLAG_SHARED_INT             0x01000000u  /* SCICreateInterrupt */
#define SCI_FLAG_IO_MAP_IOSPACE         0x02000000u  /* map hint */
#define SCI_FLAG_CACHE_FLUSH            0x04000000u  /* SCICacheSync */
#define SCI_FLAG_CACHE_INVALIDATE       0x08000000u  /* SCICacheSync */
#define SCI_FLAG_LOCK_USER_MEM          0x10000000u  /* SCIRegisterSegmentMemory */
#define SCI_FLAG_FLUSH_CPU_BUFFERS_ONLY 0x20000000u  /* SCIFlush, SCIStoreBarrier */
#define SCI_FLAG_LOCK_OPERATION         0x40000000u
#define SCI_FLAG_CONDITIONAL_INTERRUPT  0x80000000u  /* SCITriggerInterrupt */
/* SCIAttachPhysicalMemory: the address is CUDA device memory (Dolphin's value). */
#define SCI_FLAG_CUDA_BUFFER            0x00002000u
/* Map hints: the mapping is plain memory here, so they change nothing. */
#define SCI_FLAG_READ_PREFETCH_AGGR_HOLD_MAP     0x00040000u
#define SCI_FLAG_READ_PREFETCH_NO_HOLD_MAP       0x00080000u
#define SCI_FLAG_DMOVE_MAP                       0x00200000u
#define SCI_FLAG_WRITES_DISABLE_GATHER_MAP       0x00400000u
#define SCI_FLAG_DISABLE_128_BYTES_PACKETS       0x00800000u
#define SCI_FLAG_CONDITIONAL_INTERRUPT_MAP       0x04000000u
#define SCI_FLAG_UNCONDITIONAL_DATA_INTERRUPT_MAP 0x08000000u
#define SCI_FLAG_NO_MEMORY_LOOPBACK_MAP          0x10000000u

/* ---- SCIQuery ---- */
#define SCI_Q_VENDORID 1u         /* sci_query_string_t */
#define SCI_Q_API      2u         /* sci_query_string_t */
#define SCI_Q_ADAPTER  3u         /* sci_query_adapter_t */
/*
 * Dolphin's later commands. Its header gives no values (they are constants of
 * its library); ours follow the order of its list: SCI_Q_SYSTEM between
 * SCI_Q_ADAPTER and the segment commands, SCI_Q_MAP after them.
 */
#define SCI_Q_SYSTEM         4u   /* sci_query_system_t */
#define SCI_Q_LOCAL_SEGMENT  5u   /* sci_query_local_segment_t */
#define SCI_Q_REMOTE_SEGMENT 6u   /* sci_query_remote_segment_t */
#define SCI_Q_MAP            7u   /* sci_query_map_t */

/* SCI_Q_SYSTEM: answers in the unsigned int data points to. */
#define SCI_Q_SYSTEM_HOSTBRIDGE              1u  /* HOSTBRIDGE_* below */
#define SCI_Q_SYSTEM_WRITE_POSTING_ENABLED   2u  /* HOSTBRIDGE_WRITE_POSTING_* below */
#define SCI_Q_SYSTEM_WRITE_COMBINING_ENABLED 3u  /* 1 if stores through a map are combined */
#define SCI_Q_SYSTEM_CPU_CACHE_LINE_SIZE     4u  /* bytes */

/* SCI_Q_MAP: 1 or 0 in data. */
#define SCI_Q_MAP_MAPPED_TO_LOCAL_TARGET              1u  /* the map's memory is this node's */
#define SCI_Q_MAP_QUERY_REMOTE_MAPPED_TO_LOCAL_TARGET 2u  /* the same, asked of a remote map only */

/* SCI_Q_SYSTEM_HOSTBRIDGE answers: the chipsets Dolphin's list names. */
#define HOSTBRIDGE_NOT_AVAILABLE       0u
#define HOSTBRIDGE_UNKNOWN             1u  /* a host bridge not in the list (every current one) */
#define HOSTBRIDGE_440FX               2u
#define HOSTBRIDGE_440LX               3u
#define HOSTBRIDGE_440BX_A             4u
#define HOSTBRIDGE_440BX_B             5u
#define HOSTBRIDGE_440GX               6u
#define HOSTBRIDGE_450KX               7u
#define HOSTBRIDGE_430NX               8u
#define HOSTBRIDGE_450NX               9u
#define HOSTBRIDGE_450NX_MICO          10u
#define HOSTBRIDGE_450NX_PXB           11u
#define HOSTBRIDGE_I810                12u
#define HOSTBRIDGE_I810_DC100          13u
#define HOSTBRIDGE_I810E               14u
#define HOSTBRIDGE_I815                15u
#define HOSTBRIDGE_I840                16u
#define HOSTBRIDGE_I850                17u
#define HOSTBRIDGE_I860                18u
#define HOSTBRIDGE_VIA_KT133           19u
#define HOSTBRIDGE_VIA_KX133           20u
#define HOSTBRIDGE_VIA_APOLLO_PRO_133A 21u
#define HOSTBRIDGE_VIA_APOLLO_PRO_266  22u
#define HOSTBRIDGE_AMD_760_MP          23u
#define HOSTBRIDGE_SERVERWORKS_HE      24u
#define HOSTBRIDGE_SERVERWORKS_HE_B    25u
#define HOSTBRIDGE_SERVERWORKS_LE      26u

/* SCI_Q_SYSTEM_WRITE_POSTING_ENABLED answers. */
#define HOSTBRIDGE_WRITE_POSTING_DISABLED 0u
#define HOSTBRIDGE_WRITE_POSTING_ENABLED  1u

#define SCI_Q_LOCAL_SEGMENT_IOADDR    1u  /* bus address a device uses to reach the segment */
#define SCI_Q_LOCAL_SEGMENT_PHYS_ADDR 2u  /* physical address (the bus address: no IOMMU here) */
#define SCI_Q_REMOTE_SEGMENT_IOADDR   1u  /* bus address of the remote segment's window */

#define SCI_Q_ADAPTER_NODEID                   1u
#define SCI_Q_ADAPTER_DMA_SIZE_ALIGNMENT       2u
#define SCI_Q_ADAPTER_DMA_OFFSET_ALIGNMENT     3u
#define SCI_Q_ADAPTER_DMA_MTU                  4u
#define SCI_Q_ADAPTER_SUGGESTED_MIN_DMA_SIZE   5u
#define SCI_Q_ADAPTER_SUGGESTED_MIN_BLOCK_SIZE 6u
/* Extensions: from the provider's capabilities and from hwloc. */
#define SCI_Q_ADAPTER_CONFIGURED               16u  /* 1 if the adapter exists */
#define SCI_Q_ADAPTER_LINK_OPERATIONAL         17u  /* 1 if the provider is up */
#define SCI_Q_ADAPTER_MAX_SEGMENT_SIZE_MB      18u  /* largest segment, MiB */
#define SCI_Q_ADAPTER_PAGE_SIZE                19u  /* mapping granularity, bytes */
#define SCI_Q_ADAPTER_MAX_NODES                20u  /* nodes per fabric (0: no limit) */
#define SCI_Q_ADAPTER_NUMA_NODES               21u  /* NUMA nodes of this host (hwloc) */
#define SCI_Q_ADAPTER_CPU_COUNT                22u  /* processing units of this host (hwloc) */
/* Extensions: the adapter's device as xrma_ctx_adapter describes it (xrma/topo.h). */
#define SCI_Q_ADAPTER_CARD_TYPE                23u  /* enum xrma_adapter_kind: 0 host, 1 NTB, 2 Dolphin, 3 PXImc */
#define SCI_Q_ADAPTER_NUMA_NODE                24u  /* NUMA node near the adapter, 0xffffffff if none */
#define SCI_Q_ADAPTER_LOCAL_CPU_COUNT          25u  /* processing units near the adapter */
#define SCI_Q_ADAPTER_PCI_DOMAIN               26u  /* PCI location; 0xffffffff for the host */
#define SCI_Q_ADAPTER_PCI_BUS                  27u
#define SCI_Q_ADAPTER_PCI_DEVICE               28u
#define SCI_Q_ADAPTER_PCI_FUNCTION             29u
#define SCI_Q_ADAPTER_PCI_VENDOR_ID            30u  /* PCI ids; 0xffffffff for the host */
#define SCI_Q_ADAPTER_PCI_DEVICE_ID            31u
/* Dolphin's: the adapter's PCI bus, device and function, an unsigned short (bus << 8 | devfn). */
#define SCI_Q_ADAPTER_BDF                      32u

/* ---- General (spec §2.2) ---- */
SISCI_API void SCIOpen(OUT sci_desc_t *sd, IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIClose(IN sci_desc_t sd, IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIQuery(IN unsigned int command, INOUT void *data, IN unsigned int flags,
			OUT sci_error_t *error);
SISCI_API int SCIProbeNode(IN sci_desc_t sd, IN unsigned int localAdapterNo, IN unsigned int nodeId,
			   IN unsigned int flags, OUT sci_error_t *error);

/* ---- Shared memory (spec §2.3) ---- */
SISCI_API void SCICreateSegment(IN sci_desc_t sd, OUT sci_local_segment_t *segment,
				IN unsigned int segmentId, IN size_t size,
				IN sci_cb_local_segment_t callback, IN void *callbackArg,
				IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIRegisterSegmentMemory(IN void *address, IN size_t size,
					IN sci_local_segment_t segment, IN unsigned int flags,
					OUT sci_error_t *error);
/* Extension: give an empty segment memory named by bus address (or CPU address). */
SISCI_API void SCIAttachPhysicalMemory(IN sci_ioaddr_t ioaddress, IN void *address,
				       IN unsigned int busNo, IN size_t size,
				       IN sci_local_segment_t segment, IN unsigned int flags,
				       OUT sci_error_t *error);
SISCI_API void SCIRemoveSegment(IN sci_local_segment_t segment, IN unsigned int flags,
				OUT sci_error_t *error);
SISCI_API void SCIPrepareSegment(IN sci_local_segment_t segment, IN unsigned int localAdapterNo,
				 IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCISetSegmentAvailable(IN sci_local_segment_t segment, IN unsigned int localAdapterNo,
				      IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCISetSegmentUnavailable(IN sci_local_segment_t segment,
					IN unsigned int localAdapterNo, IN unsigned int flags,
					OUT sci_error_t *error);
SISCI_API void SCIConnectSegment(IN sci_desc_t sd, OUT sci_remote_segment_t *segment,
				 IN unsigned int nodeId, IN unsigned int segmentId,
				 IN unsigned int localAdapterNo, IN sci_cb_remote_segment_t callback,
				 IN void *callbackArg, IN unsigned int timeout, IN unsigned int flags,
				 OUT sci_error_t *error);
SISCI_API void SCIConnectSCISpace(IN sci_desc_t sd, OUT sci_remote_segment_t *segment,
				  IN sci_address_t address, IN size_t size,
				  IN unsigned int localAdapterNo, IN unsigned int flags,
				  OUT sci_error_t *error);
SISCI_API void SCIDisconnectSegment(IN sci_remote_segment_t segment, IN unsigned int flags,
				    OUT sci_error_t *error);
SISCI_API size_t SCIGetRemoteSegmentSize(IN sci_remote_segment_t segment);
SISCI_API sci_segment_cb_reason_t SCIWaitForLocalSegmentEvent(IN sci_local_segment_t segment,
							      OUT unsigned int *sourceNodeId,
							      OUT unsigned int *localAdapterNo,
							      IN unsigned int timeout,
							      IN unsigned int flags,
							      OUT sci_error_t *error);
SISCI_API sci_segment_cb_reason_t SCIWaitForRemoteSegmentEvent(IN sci_remote_segment_t segment,
							       OUT sci_error_t *status,
							       IN unsigned int timeout,
							       IN unsigned int flags,
							       OUT sci_error_t *error);
SISCI_API void *SCIMapLocalSegment(IN sci_local_segment_t segment, OUT sci_map_t *map,
				   IN size_t offset, IN size_t size, IN void *addr,
				   IN unsigned int flags, OUT sci_error_t *error);
SISCI_API volatile void *SCIMapRemoteSegment(IN sci_remote_segment_t segment, OUT sci_map_t *map,
					     IN size_t offset, IN size_t size, IN void *addr,
					     IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIUnmapSegment(IN sci_map_t map, IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIMemCopy(IN void *memAddr, IN sci_map_t remoteMap, IN size_t remoteOffset,
			  IN size_t size, IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCICreateMapSequence(IN sci_map_t map, OUT sci_sequence_t *sequence,
				    IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIRemoveSequence(IN sci_sequence_t sequence, IN unsigned int flags,
				 OUT sci_error_t *error);
SISCI_API sci_sequence_status_t SCIStartSequence(IN sci_sequence_t sequence, IN unsigned int flags,
						 OUT sci_error_t *error);
SISCI_API sci_sequence_status_t SCICheckSequence(IN sci_sequence_t sequence, IN unsigned int flags,
						 OUT sci_error_t *error);
SISCI_API void SCIFlushReadBuffers(IN sci_sequence_t sequence);
SISCI_API void SCIStoreBarrier(IN sci_sequence_t sequence, IN unsigned int flags,
			       OUT sci_error_t *error);

/* ---- DMA (spec §2.4) ---- */
SISCI_API void SCICreateDMAQueue(IN sci_desc_t sd, OUT sci_dma_queue_t *dq,
				 IN unsigned int localAdapterNo, IN unsigned int maxEntries,
				 IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIRemoveDMAQueue(IN sci_dma_queue_t dq, IN unsigned int flags,
				 OUT sci_error_t *error);
SISCI_API void SCIEnqueueDMATransfer(IN sci_dma_queue_t dq, IN sci_local_segment_t localSegment,
				     IN sci_remote_segment_t remoteSegment, IN size_t localOffset,
				     IN size_t remoteOffset, IN size_t size, IN unsigned int flags,
				     OUT sci_error_t *error);
SISCI_API void SCIPostDMAQueue(IN sci_dma_queue_t dq, IN sci_cb_dma_t callback,
			       IN void *callbackArg, IN unsigned int flags, OUT sci_error_t *error);
SISCI_API sci_dma_queue_state_t SCIWaitForDMAQueue(IN sci_dma_queue_t dq, IN unsigned int timeout,
						   IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIAbortDMAQueue(IN sci_dma_queue_t dq, IN unsigned int flags,
				OUT sci_error_t *error);
SISCI_API void SCIResetDMAQueue(IN sci_dma_queue_t dq, IN unsigned int flags,
				OUT sci_error_t *error);
SISCI_API sci_dma_queue_state_t SCIDMAQueueState(IN sci_dma_queue_t dq);

/* ---- Block transfers (spec §2.5) ---- */
SISCI_API void SCITransferBlock(IN sci_map_t sourceMap, IN size_t sourceOffset,
				IN sci_map_t destinationMap, IN size_t destinationOffset,
				IN size_t size, IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCITransferBlockAsync(IN sci_map_t sourceMap, IN size_t sourceOffset,
				     IN sci_map_t destinationMap, IN size_t destinationOffset,
				     IN size_t size, OUT sci_block_transfer_t *block,
				     IN sci_cb_block_transfer_t callback, IN void *callbackArg,
				     IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIWaitForBlockTransfer(IN sci_block_transfer_t block, IN unsigned int timeout,
				       IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIAbortBlockTransfer(IN sci_block_transfer_t block, IN unsigned int flags,
				     OUT sci_error_t *error);

/* ---- Interrupts (spec §2.6) ---- */
SISCI_API void SCICreateInterrupt(IN sci_desc_t sd, OUT sci_local_interrupt_t *interrupt,
				  IN unsigned int localAdapterNo, INOUT unsigned int *interruptNo,
				  IN sci_cb_interrupt_t callback, IN void *callbackArg,
				  IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIRemoveInterrupt(IN sci_local_interrupt_t interrupt, IN unsigned int flags,
				  OUT sci_error_t *error);
SISCI_API void SCIConnectInterrupt(IN sci_desc_t sd, OUT sci_remote_interrupt_t *interrupt,
				   IN unsigned int nodeId, IN unsigned int localAdapterNo,
				   IN unsigned int interruptNo, IN unsigned int timeout,
				   IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIDisconnectInterrupt(IN sci_remote_interrupt_t interrupt, IN unsigned int flags,
				      OUT sci_error_t *error);
SISCI_API void SCITriggerInterrupt(IN sci_remote_interrupt_t interrupt, IN unsigned int flags,
				   OUT sci_error_t *error);
SISCI_API void SCIWaitForInterrupt(IN sci_local_interrupt_t interrupt, IN unsigned int timeout,
				   IN unsigned int flags, OUT sci_error_t *error);

/* ---- Privileged (spec §2.7) ---- */
SISCI_API unsigned int SCIGetCSRRegister(IN sci_desc_t sd, IN unsigned int localAdapterNo,
					 IN unsigned int SCINodeId, IN unsigned int CSROffset,
					 IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCISetCSRRegister(IN sci_desc_t sd, IN unsigned int localAdapterNo,
				 IN unsigned int SCINodeId, IN unsigned int CSROffset,
				 IN unsigned int CSRValue, IN unsigned int flags,
				 OUT sci_error_t *error);

/* ---- Extensions: Dolphin additions used by real programs ---- */
SISCI_API void SCIInitialize(IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCITerminate(void);
SISCI_API const char *SCIGetErrorString(IN sci_error_t error);
SISCI_API void SCIStartDmaTransfer(IN sci_dma_queue_t dq, IN sci_local_segment_t localSegment,
				   IN sci_remote_segment_t remoteSegment, IN size_t localOffset,
				   IN size_t size, IN size_t remoteOffset, IN sci_cb_dma_t callback,
				   IN void *callbackArg, IN unsigned int flags,
				   OUT sci_error_t *error);
SISCI_API void SCIStartDmaTransferVec(IN sci_dma_queue_t dq, IN sci_local_segment_t localSegment,
				      IN sci_remote_segment_t remoteSegment, IN size_t vecLength,
				      IN dis_dma_vec_t *disDmaVec, IN sci_cb_dma_t callback,
				      IN void *callbackArg, IN unsigned int flags,
				      OUT sci_error_t *error);
SISCI_API void SCIMemCpy(IN sci_sequence_t sequence, IN void *memAddr, IN sci_map_t remoteMap,
			 IN size_t remoteOffset, IN size_t size, IN unsigned int flags,
			 OUT sci_error_t *error);
/*
 * Extension: choose the routine SCIMemCpy and SCIMemCopy copy with, by number
 * (SCI_MEMCOPY_*; others select the default), for the whole process.
 */
#define SCI_MEMCOPY_DEFAULT 0u  /* the C library's memcpy */
#define SCI_MEMCOPY_BYTES   1u  /* one byte per store */
#define SCI_MEMCOPY_WORD16  2u  /* 16-bit stores where aligned */
#define SCI_MEMCOPY_WORD32  3u  /* 32-bit stores where aligned */
#define SCI_MEMCOPY_WORD64  4u  /* 64-bit stores where aligned */
#define SCI_MEMCOPY_BLOCK64 5u  /* 64-byte blocks of 64-bit stores, each block then fenced */
SISCI_API void SetSciMemCopyFunction(IN unsigned int function);
SISCI_API unsigned int GetSciMemCopyFunction(void);
SISCI_API void SCIMemWrite(IN void *memAddr, OUT volatile void *remoteAddr, IN size_t size,
			   IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIFlush(IN sci_sequence_t sequence, IN unsigned int flags);
SISCI_API void SCICacheSync(IN sci_map_t map, IN void *addr, IN size_t length,
			    IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIGetLocalNodeId(IN unsigned int adapterNo, OUT unsigned int *nodeId,
				 IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIGetNodeIdByAdapterName(IN char *adapterName, OUT dis_nodeId_list_t *nodeIdList,
					 OUT dis_virt_adapter_t *type, IN unsigned int flags,
					 OUT sci_error_t *error);
SISCI_API unsigned int SCIGetLocalSegmentId(IN sci_local_segment_t segment);
SISCI_API unsigned int SCIGetRemoteSegmentId(IN sci_remote_segment_t segment);
SISCI_API size_t SCIGetLocalSegmentSize(IN sci_local_segment_t segment);
SISCI_API void SCICreateDataInterrupt(IN sci_desc_t sd, OUT sci_local_data_interrupt_t *interrupt,
				      IN unsigned int localAdapterNo, INOUT unsigned int *interruptNo,
				      IN sci_cb_data_interrupt_t callback, IN void *callbackArg,
				      IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIRemoveDataInterrupt(IN sci_local_data_interrupt_t interrupt,
				      IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIConnectDataInterrupt(IN sci_desc_t sd, OUT sci_remote_data_interrupt_t *interrupt,
				       IN unsigned int nodeId, IN unsigned int localAdapterNo,
				       IN unsigned int interruptNo, IN unsigned int timeout,
				       IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCIDisconnectDataInterrupt(IN sci_remote_data_interrupt_t interrupt,
					  IN unsigned int flags, OUT sci_error_t *error);
SISCI_API void SCITriggerDataInterrupt(IN sci_remote_data_interrupt_t interrupt, IN void *data,
				       IN unsigned int length, IN unsigned int flags,
				       OUT sci_error_t *error);
SISCI_API void SCIWaitForDataInterrupt(IN sci_local_data_interrupt_t interrupt, OUT void *data,
				       INOUT unsigned int *length, IN unsigned int timeout,
				       IN unsigned int flags, OUT sci_error_t *error);

#ifdef __cplusplus
}
#endif

#endif
