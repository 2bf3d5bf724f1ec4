/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_api.c: the 17 PXImc entry points of xrma's vendor library. Each
 * finds the calling thread's instance (pximc_instance.c) and hands over; the Dispatcher
 * (pximc_dispatcher.c) resolves these names with dlsym, so nothing here calls them itself.
 */
#include "personalities/pximc/pximc_vendor.h"
#include "common/errno_keep.h"

/* Resolve the instance or return the status that says why there is none. */
#define XRMA_PXIMC_INSTANCE(px)                                    \
	tPXIMC_Status px##_status = PXIMC_SUCCESS;                 \
	struct xrma_pximc *px = xrma_pximc_current(&px##_status); \
	if (!px)                                                   \
		return px##_status

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_findInterfaces(uint32_t maxNumberOfInterfaces,
								 uint32_t *interfaceIDs,
								 uint32_t *actualNumberOfInterfaces)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_find_interfaces(px, maxNumberOfInterfaces, interfaceIDs,
					  actualNumberOfInterfaces);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_queryInterfaceInformation(
	uint32_t interfaceID, uint32_t attributeID, uint32_t maxSizeOfAttributeValue,
	void *attributeValue, uint32_t *actualSizeOfAttributeValue)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_query_interface(px, interfaceID, attributeID, maxSizeOfAttributeValue,
					  attributeValue, actualSizeOfAttributeValue);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_waitForInterfaceEvent(uint32_t interfaceID,
									uint32_t timeoutInMilliseconds,
									uint32_t *reasonCode)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_wait_interface_event(px, interfaceID, timeoutInMilliseconds, reasonCode);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_findWindows(uint32_t interfaceID,
							      uint32_t maxNumberOfWindowIDs,
							      uint32_t *windowIDs,
							      uint32_t *actualNumberOfWindowIDs)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_find_windows(px, interfaceID, maxNumberOfWindowIDs, windowIDs,
				       actualNumberOfWindowIDs);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_queryWindowInformation(
	uint32_t interfaceID, uint32_t windowID, uint32_t attributeID,
	uint32_t maxSizeOfAttributeValue, void *attributeValue, uint32_t *actualSizeOfAttributeValue)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_query_window(px, interfaceID, windowID, attributeID,
				       maxSizeOfAttributeValue, attributeValue,
				       actualSizeOfAttributeValue);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowLogicalAsServer(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxLocalSize, uint64_t minLocalSize,
	uint64_t maxRemoteSize, uint64_t minRemoteSize, uint32_t uniqueIdentifier,
	const uint8_t *windowData, uint32_t windowDataSize, uint32_t *sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_request_server(px, interfaceID, protocolNumber, maxLocalSize,
					 minLocalSize, maxRemoteSize, minRemoteSize,
					 uniqueIdentifier, windowData, windowDataSize,
					 sessionNumber);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowLogicalAsClient(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxLocalSize, uint64_t minLocalSize,
	uint64_t maxRemoteSize, uint64_t minRemoteSize, uint32_t uniqueIdentifier,
	uint32_t *sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_request_client(px, interfaceID, protocolNumber, maxLocalSize,
					 minLocalSize, maxRemoteSize, minRemoteSize,
					 uniqueIdentifier, sessionNumber);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowLogicalAsPeer(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxLocalSize, uint64_t minLocalSize,
	uint64_t maxRemoteSize, uint64_t minRemoteSize, uint32_t uniqueIdentifier,
	const uint8_t *windowData, uint32_t windowDataSize, uint32_t *sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_request_peer(px, interfaceID, protocolNumber, maxLocalSize, minLocalSize,
				       maxRemoteSize, minRemoteSize, uniqueIdentifier, windowData,
				       windowDataSize, sessionNumber);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowPhysicalAsServer(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t localSize, uint32_t uniqueIdentifier,
	uint64_t physicalAddress, const uint8_t *windowData, uint32_t windowDataSize,
	uint32_t *sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_request_physical_server(px, interfaceID, protocolNumber, localSize,
						  uniqueIdentifier, physicalAddress, windowData,
						  windowDataSize, sessionNumber);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowPhysicalAsClient(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxRemoteSize,
	uint64_t minRemoteSize, uint32_t uniqueIdentifier, uint32_t *sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_request_physical_client(px, interfaceID, protocolNumber, maxRemoteSize,
						  minRemoteSize, uniqueIdentifier, sessionNumber);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_waitForConnection(
	uint32_t sessionNumber, uint32_t timeoutInMilliseconds, void **mappedRemoteAddress,
	uint64_t *remoteSizeInBytes, void **mappedLocalAddress, uint64_t *localSizeInBytes)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_wait_connection(px, sessionNumber, timeoutInMilliseconds,
					  mappedRemoteAddress, remoteSizeInBytes,
					  mappedLocalAddress, localSizeInBytes);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_getPhysicalAddress(uint32_t sessionNumber,
								     uint64_t *physicalAddress)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_physical_address(px, sessionNumber, physicalAddress);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_enableDeviceAccess(uint32_t sessionNumber,
								     uint32_t accessMode,
								     uint32_t deviceBusNumber,
								     uint32_t deviceDevNumber,
								     uint32_t deviceFuncNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_device_access(px, sessionNumber, accessMode, deviceBusNumber,
					deviceDevNumber, deviceFuncNumber);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_assertEvent(uint32_t sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_assert_event(px, sessionNumber);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_waitForSessionEvent(uint32_t sessionNumber,
								      uint32_t timeoutInMilliseconds,
								      uint32_t *reasonCode)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_wait_session_event(px, sessionNumber, timeoutInMilliseconds, reasonCode);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_closeWindow(uint32_t sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_close_window(px, sessionNumber);
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_cleanup(void)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_INSTANCE(px);
	return xrma_pximc_cleanup(px);
}
