/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/pximc.h: the PXImc API (PXISA PXImc Software Specification 1.1, Appendix B).
 * Names, prototypes and values are the specification's. Constants whose values do not fit
 * in an int (status codes, the two UINT*_MAX sentinels, CLEAR_ALL) are macros with explicit
 * types instead of enum constants, so the header is clean ISO C11 and C++; the in-range
 * value sets keep their enum tags. The Dispatcher (libpximc) and every vendor library
 * export exactly these 17 functions. docs/pximc.md records the choices made here.
 */
#ifndef __pximc_h__
#define __pximc_h__

#include <limits.h>
#include <stdint.h>

#if defined(__cplusplus) || defined(__cplusplus__)
extern "C" {
#endif

/*
 * The system calling convention (spec 3.3): stdcall on 32-bit Windows, the default
 * everywhere else (GCC and Clang on Linux, 64-bit Windows).
 */
#ifndef _PXIMC_FUNC
#if defined(_WIN32) && !defined(_WIN64)
#define _PXIMC_FUNC __stdcall
#else
#define _PXIMC_FUNC
#endif
#endif

#ifndef UINT64_MAX
#define UINT64_MAX 18446744073709551615ULL
#endif
#ifndef UINT32_MAX
#define UINT32_MAX 4294967295UL
#endif

typedef int32_t tPXIMC_Status;

/* ------------------------------------------------------------------ versions and bases */

enum { PXIMC_SPEC_VERSION = 0x00010000 };

#define _PXIMC_STR_BASE ((uint32_t)0x10000000u)
#define _PXIMC_U8_BASE  ((uint32_t)0x20000000u)
#define _PXIMC_U32_BASE ((uint32_t)0x30000000u)
#define _PXIMC_U64_BASE ((uint32_t)0x40000000u)

/* ------------------------------------------------------------------ interface attributes */

enum ePXIMC_QueryInterfaceInformation_StrAttribute {
	PXIMC_STR_MANF_NAME = 0x10000001,
	PXIMC_STR_MODEL_NAME = 0x10000002,
	PXIMC_STR_SERIAL_NUM = 0x10000003,
	PXIMC_STR_LOG_DATA = 0x10000004,
	PXIMC_STR_INTERFACE_NAME = 0x10000005,
	PXIMC_STR_REMOTE_OS = 0x10000006
};

enum ePXIMC_QueryInterfaceInformation_U32Attribute {
	PXIMC_U32_PROTOCOL_VERSION = 0x30000001,
	PXIMC_U32_MANF_ID = 0x30000002,
	PXIMC_U32_INTERFACE_STATE = 0x30000003,
	PXIMC_U32_INTERFACE_DEVICE_ID = 0x30000004,
	PXIMC_U32_INTERFACE_VENDOR_ID = 0x30000005,
	PXIMC_U32_INTERFACE_SS_ID = 0x30000006,
	PXIMC_U32_INTERFACE_SS_VENDOR_ID = 0x30000007,
	PXIMC_U32_INTERFACE_BUS = 0x30000008,
	PXIMC_U32_INTERFACE_DEV = 0x30000009,
	PXIMC_U32_INTERFACE_FUNC = 0x3000000A,
	PXIMC_U32_INTERFACE_LOCAL = 0x3000000B,
	PXIMC_U32_REMOTE_ENDIANNESS = 0x3000000C,
	PXIMC_U32_REMOTE_WORD_SIZE = 0x3000000D
};

enum ePXIMC_QueryInterfaceInformation_InterfaceState {
	PXIMC_STATE_UP = 1,
	PXIMC_STATE_DOWN = 2
};

enum ePXIMC_QueryInterfaceInformation_InterfaceLocal {
	PXIMC_LOCAL = 1,
	PXIMC_REMOTE = 2
};

/* A bitmap. */
enum ePXIMC_WaitForInterfaceEvent_ReasonCode {
	PXIMC_EVENT_INTERFACE_STATE_CHANGE = 1,
	PXIMC_EVENT_WINDOW_STATE_CHANGE = 2
};

/* ------------------------------------------------------------------ window attributes */

enum ePXIMC_QueryWindowInformation_U8Attribute {
	PXIMC_U8_WINDOW_DATA = 0x20000001
};

/* The same numbers as the interface U32 attributes: a separate namespace. */
enum ePXIMC_QueryWindowInformation_U32Attribute {
	PXIMC_U32_WINDOW_CONNECTION_TYPE = 0x30000001,
	PXIMC_U32_WINDOW_LOCATION_TYPE = 0x30000002,
	PXIMC_U32_WINDOW_PROTOCOL_NUMBER = 0x30000003,
	PXIMC_U32_WINDOW_PAIRING_STATE = 0x30000004,
	PXIMC_U32_SESSION_EVENT_STATUS = 0x30000005
};

enum ePXIMC_QueryWindowInformation_U64Attribute {
	PXIMC_U64_WINDOW_MIN_REMOTE_SIZE = 0x40000001,
	PXIMC_U64_WINDOW_MAX_REMOTE_SIZE = 0x40000002,
	PXIMC_U64_WINDOW_MIN_LOCAL_SIZE = 0x40000003,
	PXIMC_U64_WINDOW_MAX_LOCAL_SIZE = 0x40000004
};

enum ePXIMC_QueryWindowInformation_WindowConnectionType {
	PXIMC_CONNECTION_SERVER = 1,
	PXIMC_CONNECTION_CLIENT = 2,
	PXIMC_CONNECTION_PEER = 3
};

enum ePXIMC_QueryWindowInformation_WindowLocationType {
	PXIMC_LOCATION_LOGICAL = 1,
	PXIMC_LOCATION_PHYSICAL = 2
};

enum ePXIMC_QueryWindowInformation_WindowPairingState {
	PXIMC_WINDOW_PAIRED = 1,
	PXIMC_WINDOW_UNPAIRED = 2
};

/* Values of PXIMC_U32_SESSION_EVENT_STATUS (a bitmap). */
enum ePXIMC_QueryWindowInformation_WindowEventStatus {
	PXIMC_WINDOW_REMOTE_EVENT_PENDING = 1,
	PXIMC_WINDOW_REMOTE_SESSION_WAITING = 2,
	PXIMC_WINDOW_LOCAL_EVENT_PENDING = 4,
	PXIMC_WINDOW_LOCAL_SESSION_WAITING = 8
};

/* ------------------------------------------------------------------ requests and waits */

#define PXIMC_MAXIMUM_WINDOW_SIZE ((uint64_t)UINT64_MAX)
#define PXIMC_TIMEOUT_INFINITE    ((uint32_t)0xFFFFFFFFu)

/* enum ePXINTB_EnableDeviceAccess_AccessMode (the specification's spelling). */
#define PXIMC_DEVICE_ACCESS_READ      ((uint32_t)0x00000001u)
#define PXIMC_DEVICE_ACCESS_WRITE     ((uint32_t)0x00000002u)
#define PXIMC_DEVICE_ACCESS_CLEAR_ALL ((uint32_t)0x80000000u)

/* One value, not a bitmap. */
enum ePXIMC_WaitForSessionEvent_ReasonCode {
	PXIMC_EVENT_ASSERTED = 1,
	PXIMC_EVENT_CONNECTION_CLOSED = 2,
	PXIMC_EVENT_INTERFACE_DOWN = 3
};

/* ------------------------------------------------------------------ status codes */

/* Errors are 0x80000000 + n as an int32_t, warnings 0x10000000 + n. */
#define _PXIMC_ERROR_BASE   ((tPXIMC_Status)INT32_MIN)
#define _PXIMC_WARNING_BASE ((tPXIMC_Status)0x10000000)

#define PXIMC_SUCCESS                    ((tPXIMC_Status)0)
#define PXIMC_INSUFFICIENT_SPACE         ((tPXIMC_Status)(INT32_MIN + 0x1000)) /* 0x80001000 */
#define PXIMC_INVALID_INTERFACE          ((tPXIMC_Status)(INT32_MIN + 0x1001)) /* 0x80001001 */
#define PXIMC_INTERFACE_DOWN             ((tPXIMC_Status)(INT32_MIN + 0x1002)) /* 0x80001002 */
#define PXIMC_NSUP_ATTRIBUTE             ((tPXIMC_Status)(INT32_MIN + 0x1003)) /* 0x80001003 */
#define PXIMC_INVALID_ARGUMENT           ((tPXIMC_Status)(INT32_MIN + 0x1004)) /* 0x80001004 */
#define PXIMC_SPACE_NOT_AVAILABLE        ((tPXIMC_Status)(INT32_MIN + 0x1005)) /* 0x80001005 */
#define PXIMC_UID_CONFLICT               ((tPXIMC_Status)(INT32_MIN + 0x1006)) /* 0x80001006 */
#define PXIMC_NO_PAIRING                 ((tPXIMC_Status)(INT32_MIN + 0x1007)) /* 0x80001007 */
#define PXIMC_PHY_RESOURCE_NOT_AVAILABLE ((tPXIMC_Status)(INT32_MIN + 0x1008)) /* 0x80001008 */
#define PXIMC_INVALID_SESSION            ((tPXIMC_Status)(INT32_MIN + 0x1009)) /* 0x80001009 */
#define PXIMC_NO_WINDOW                  ((tPXIMC_Status)(INT32_MIN + 0x100A)) /* 0x8000100A */
#define PXIMC_SESSION_CLOSED             ((tPXIMC_Status)(INT32_MIN + 0x100B)) /* 0x8000100B */
#define PXIMC_INVALID_WINDOW             ((tPXIMC_Status)(INT32_MIN + 0x100C)) /* 0x8000100C */
#define PXIMC_INVALID_RESOURCE           ((tPXIMC_Status)(INT32_MIN + 0x100D)) /* 0x8000100D */
#define PXIMC_ALIGNMENT_ERROR            ((tPXIMC_Status)(INT32_MIN + 0x100E)) /* 0x8000100E */
#define PXIMC_NO_PROVIDER                ((tPXIMC_Status)0x10001000)
#define PXIMC_TIMEOUT                    ((tPXIMC_Status)0x10001001)

/* ------------------------------------------------------------------ functions */

tPXIMC_Status _PXIMC_FUNC PXIMC_findInterfaces(uint32_t maxNumberOfInterfaces,
					       uint32_t *interfaceIDs,
					       uint32_t *actualNumberOfInterfaces);

tPXIMC_Status _PXIMC_FUNC PXIMC_queryInterfaceInformation(uint32_t interfaceID,
							  uint32_t attributeID,
							  uint32_t maxSizeOfAttributeValue,
							  void *attributeValue,
							  uint32_t *actualSizeOfAttributeValue);

tPXIMC_Status _PXIMC_FUNC PXIMC_waitForInterfaceEvent(uint32_t interfaceID,
						      uint32_t timeoutInMilliseconds,
						      uint32_t *reasonCode);

tPXIMC_Status _PXIMC_FUNC PXIMC_findWindows(uint32_t interfaceID, uint32_t maxNumberOfWindowIDs,
					    uint32_t *windowIDs, uint32_t *actualNumberOfWindowIDs);

tPXIMC_Status _PXIMC_FUNC PXIMC_queryWindowInformation(uint32_t interfaceID, uint32_t windowID,
						       uint32_t attributeID,
						       uint32_t maxSizeOfAttributeValue,
						       void *attributeValue,
						       uint32_t *actualSizeOfAttributeValue);

tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowLogicalAsServer(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxLocalSize, uint64_t minLocalSize,
	uint64_t maxRemoteSize, uint64_t minRemoteSize, uint32_t uniqueIdentifier,
	const uint8_t *windowData, uint32_t windowDataSize, uint32_t *sessionNumber);

tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowLogicalAsClient(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxLocalSize, uint64_t minLocalSize,
	uint64_t maxRemoteSize, uint64_t minRemoteSize, uint32_t uniqueIdentifier,
	uint32_t *sessionNumber);

tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowLogicalAsPeer(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxLocalSize, uint64_t minLocalSize,
	uint64_t maxRemoteSize, uint64_t minRemoteSize, uint32_t uniqueIdentifier,
	const uint8_t *windowData, uint32_t windowDataSize, uint32_t *sessionNumber);

tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowPhysicalAsServer(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t localSize, uint32_t uniqueIdentifier,
	uint64_t physicalAddress, const uint8_t *windowData, uint32_t windowDataSize,
	uint32_t *sessionNumber);

tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowPhysicalAsClient(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxRemoteSize,
	uint64_t minRemoteSize, uint32_t uniqueIdentifier, uint32_t *sessionNumber);

tPXIMC_Status _PXIMC_FUNC PXIMC_waitForConnection(uint32_t sessionNumber,
						  uint32_t timeoutInMilliseconds,
						  void **mappedRemoteAddress,
						  uint64_t *remoteSizeInBytes,
						  void **mappedLocalAddress, uint64_t *localSizeInBytes);

tPXIMC_Status _PXIMC_FUNC PXIMC_getPhysicalAddress(uint32_t sessionNumber,
						   uint64_t *physicalAddress);

tPXIMC_Status _PXIMC_FUNC PXIMC_enableDeviceAccess(uint32_t sessionNumber, uint32_t accessMode,
						   uint32_t deviceBusNumber,
						   uint32_t deviceDevNumber,
						   uint32_t deviceFuncNumber);

tPXIMC_Status _PXIMC_FUNC PXIMC_assertEvent(uint32_t sessionNumber);

tPXIMC_Status _PXIMC_FUNC PXIMC_waitForSessionEvent(uint32_t sessionNumber,
						    uint32_t timeoutInMilliseconds,
						    uint32_t *reasonCode);

tPXIMC_Status _PXIMC_FUNC PXIMC_closeWindow(uint32_t sessionNumber);

tPXIMC_Status _PXIMC_FUNC PXIMC_cleanup(void);

#if defined(__cplusplus) || defined(__cplusplus__)
}
#endif

#endif /* __pximc_h__ */
