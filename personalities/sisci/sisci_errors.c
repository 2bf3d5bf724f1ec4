/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_errors.c: the one place where core codes (XRMA_E*)
 * meet SISCI codes (sci_error_t, spec §4.1), the flag check every call makes
 * (§2.1.3: flags not accepted are SCI_ERR_ILLEGAL_FLAG), and SCIGetErrorString.
 * Ids mean segments or interrupt numbers depending on the call, hence two
 * columns; docs/sisci.md lists the table.
 */
#include "personalities/sisci/sisci.h"

#include <limits.h>
#include "common/errno_keep.h"

static const struct {
	int core;
	sci_error_t segment;
	sci_error_t interrupt;
} errors[] = {
	{ XRMA_OK, SCI_ERR_OK, SCI_ERR_OK },
	{ XRMA_EPERM, SCI_ERR_ACCESS, SCI_ERR_ACCESS },
	{ XRMA_ENOENT, SCI_ERR_NO_SUCH_SEGMENT, SCI_ERR_NO_SUCH_INTNO },
	{ XRMA_EINTR, SCI_ERR_SYSTEM, SCI_ERR_SYSTEM },
	{ XRMA_EIO, SCI_ERR_SYSTEM, SCI_ERR_SYSTEM },
	{ XRMA_ENXIO, SCI_ERR_OUT_OF_RANGE, SCI_ERR_OUT_OF_RANGE },
	{ XRMA_EAGAIN, SCI_ERR_BUSY, SCI_ERR_BUSY },
	{ XRMA_ENOMEM, SCI_ERR_NOSPC, SCI_ERR_NOSPC },
	{ XRMA_EACCES, SCI_ERR_CONNECTION_REFUSED, SCI_ERR_CONNECTION_REFUSED },
	{ XRMA_EFAULT, SCI_ERR_ILLEGAL_ADDRESS, SCI_ERR_ILLEGAL_ADDRESS },
	{ XRMA_EBUSY, SCI_ERR_BUSY, SCI_ERR_BUSY },
	{ XRMA_EEXIST, SCI_ERR_SEGMENTID_USED, SCI_ERR_INTNO_USED },
	{ XRMA_ENODEV, SCI_ERR_NO_SUCH_NODEID, SCI_ERR_NO_SUCH_NODEID },
	{ XRMA_EINVAL, SCI_ERR_ILLEGAL_PARAMETER, SCI_ERR_ILLEGAL_PARAMETER },
	{ XRMA_ENOSPC, SCI_ERR_HW_NOSPC, SCI_ERR_HW_NOSPC },
	{ XRMA_ERANGE, SCI_ERR_OUT_OF_RANGE, SCI_ERR_OUT_OF_RANGE },
	{ XRMA_EPROTO, SCI_ERR_SYSTEM, SCI_ERR_SYSTEM },
	{ XRMA_EOVERFLOW, SCI_ERR_OVERFLOW, SCI_ERR_OVERFLOW },
	{ XRMA_EMSGSIZE, SCI_ERR_OVERFLOW, SCI_ERR_OVERFLOW },
	{ XRMA_ENOTSUP, SCI_ERR_NOT_IMPLEMENTED, SCI_ERR_NOT_IMPLEMENTED },
	{ XRMA_EADDRINUSE, SCI_ERR_SEGMENTID_USED, SCI_ERR_INTNO_USED },
	{ XRMA_ENETDOWN, SCI_ERR_NO_LINK_ACCESS, SCI_ERR_NO_LINK_ACCESS },
	{ XRMA_ECONNABORTED, SCI_ERR_CONNECTION_REFUSED, SCI_ERR_CONNECTION_REFUSED },
	{ XRMA_ECONNRESET, SCI_ERR_NOT_CONNECTED, SCI_ERR_NOT_CONNECTED },
	{ XRMA_EISCONN, SCI_ERR_ILLEGAL_OPERATION, SCI_ERR_ILLEGAL_OPERATION },
	{ XRMA_ENOTCONN, SCI_ERR_NOT_CONNECTED, SCI_ERR_NOT_CONNECTED },
	{ XRMA_ETIMEDOUT, SCI_ERR_TIMEOUT, SCI_ERR_TIMEOUT },
	{ XRMA_ECONNREFUSED, SCI_ERR_CONNECTION_REFUSED, SCI_ERR_CONNECTION_REFUSED },
	{ XRMA_EHOSTUNREACH, SCI_ERR_NODE_NOT_RESPONDING, SCI_ERR_NODE_NOT_RESPONDING },
	{ XRMA_ECANCELED, SCI_ERR_CANCELLED, SCI_ERR_CANCELLED },
	{ XRMA_EHANDLE, SCI_ERR_ILLEGAL_PARAMETER, SCI_ERR_ILLEGAL_PARAMETER },
	{ XRMA_EALIGN_OFFSET, SCI_ERR_OFFSET_ALIGNMENT, SCI_ERR_OFFSET_ALIGNMENT },
	{ XRMA_EALIGN_SIZE, SCI_ERR_SIZE_ALIGNMENT, SCI_ERR_SIZE_ALIGNMENT },
	{ XRMA_ESTATE, SCI_ERR_ILLEGAL_OPERATION, SCI_ERR_ILLEGAL_OPERATION },
	{ XRMA_ELENGTH, SCI_ERR_OUT_OF_RANGE, SCI_ERR_OUT_OF_RANGE },
	/* Exists but not available: Dolphin programs retry on "no such segment". */
	{ XRMA_ENOTAVAIL, SCI_ERR_NO_SUCH_SEGMENT, SCI_ERR_NO_SUCH_INTNO },
	{ XRMA_ETRANSFER, SCI_ERR_TRANSFER_FAILED, SCI_ERR_TRANSFER_FAILED },
	{ XRMA_ELOST, SCI_ERR_NOT_CONNECTED, SCI_ERR_NOT_CONNECTED },
	{ XRMA_ENOPROV, SCI_ERR_NO_SUCH_ADAPTERNO, SCI_ERR_NO_SUCH_ADAPTERNO },
	{ XRMA_ECONFIG, SCI_ERR_NOT_INITIALIZED, SCI_ERR_NOT_INITIALIZED },
};

static int find(int core)
{
	int code = core < 0 ? -core : core;

	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].core == code)
			return (int)i;
	return -1;
}

sci_error_t xrma_sisci_error(int core, enum xrma_sisci_domain domain)
{
	int i = find(core);

	if (i < 0)
		return SCI_ERR_SYSTEM;
	return domain == XRMA_SISCI_DOMAIN_INTERRUPT ? errors[i].interrupt : errors[i].segment;
}

bool xrma_sisci_error_known(int core)
{
	return find(core) >= 0;
}

sci_error_t xrma_sisci_flags(unsigned int flags, unsigned int accepted, unsigned int unimplemented)
{
	if (flags & ~accepted)
		return SCI_ERR_ILLEGAL_FLAG;
	if (flags & unimplemented)
		return SCI_ERR_FLAG_NOT_IMPLEMENTED;
	return SCI_ERR_OK;
}

int xrma_sisci_timeout(unsigned int timeout)
{
	if (timeout == SCI_INFINITE_TIMEOUT)
		return XRMA_TIMEOUT_INFINITE;
	return timeout > INT_MAX ? INT_MAX : (int)timeout;
}

int xrma_sisci_connect_timeout(unsigned int timeout)
{
	return timeout ? xrma_sisci_timeout(timeout) : XRMA_TIMEOUT_INFINITE;
}

static const struct {
	sci_error_t code;
	const char *text;
} texts[] = {
	{ SCI_ERR_OK, "no error" },
	{ SCI_ERR_BUSY, "resource busy: dependent resources still exist" },
	{ SCI_ERR_FLAG_NOT_IMPLEMENTED, "flag is legal but not implemented" },
	{ SCI_ERR_ILLEGAL_FLAG, "illegal flag" },
	{ SCI_ERR_NOSPC, "out of operating system resources" },
	{ SCI_ERR_API_NOSPC, "out of API resources" },
	{ SCI_ERR_HW_NOSPC, "out of hardware resources" },
	{ SCI_ERR_NOT_IMPLEMENTED, "not implemented" },
	{ SCI_ERR_ILLEGAL_ADAPTERNO, "illegal adapter number" },
	{ SCI_ERR_NO_SUCH_ADAPTERNO, "no such adapter" },
	{ SCI_ERR_TIMEOUT, "timed out" },
	{ SCI_ERR_OUT_OF_RANGE, "out of range" },
	{ SCI_ERR_NO_SUCH_SEGMENT, "no such segment" },
	{ SCI_ERR_ILLEGAL_NODEID, "illegal node id" },
	{ SCI_ERR_CONNECTION_REFUSED, "connection refused" },
	{ SCI_ERR_SEGMENT_NOT_CONNECTED, "segment not connected" },
	{ SCI_ERR_SIZE_ALIGNMENT, "size not aligned" },
	{ SCI_ERR_OFFSET_ALIGNMENT, "offset not aligned" },
	{ SCI_ERR_ILLEGAL_PARAMETER, "illegal parameter" },
	{ SCI_ERR_MAX_ENTRIES, "DMA queue full" },
	{ SCI_ERR_SEGMENT_NOT_PREPARED, "segment not prepared" },
	{ SCI_ERR_ILLEGAL_ADDRESS, "illegal address" },
	{ SCI_ERR_ILLEGAL_OPERATION, "illegal operation in this state" },
	{ SCI_ERR_ILLEGAL_QUERY, "illegal query" },
	{ SCI_ERR_SEGMENTID_USED, "segment id already used" },
	{ SCI_ERR_SYSTEM, "system error" },
	{ SCI_ERR_CANCELLED, "cancelled" },
	{ SCI_ERR_NOT_CONNECTED, "not connected" },
	{ SCI_ERR_NOT_AVAILABLE, "not available" },
	{ SCI_ERR_INCONSISTENT_VERSIONS, "inconsistent versions" },
	{ SCI_ERR_COND_INT_RACE_PROBLEM, "conditional interrupt race" },
	{ SCI_ERR_OVERFLOW, "overflow" },
	{ SCI_ERR_NOT_INITIALIZED, "not initialized" },
	{ SCI_ERR_ACCESS, "access denied" },
	{ SCI_ERR_NOT_SUPPORTED, "not supported by this provider" },
	{ SCI_ERR_DEPRECATED, "deprecated function or flag" },
	{ SCI_ERR_DMA_NOT_AVAILABLE, "the DMA mode wanted is not available" },
	{ SCI_ERR_DMA_DISABLED, "the DMA mode wanted is disabled" },
	{ SCI_ERR_INTNO_USED, "interrupt number already used" },
	{ SCI_ERR_NO_SUCH_INTNO, "no such interrupt number" },
	{ SCI_ERR_NO_SUCH_NODEID, "no such node" },
	{ SCI_ERR_NODE_NOT_RESPONDING, "node not responding" },
	{ SCI_ERR_NO_REMOTE_LINK_ACCESS, "no remote link access" },
	{ SCI_ERR_NO_LINK_ACCESS, "no link access" },
	{ SCI_ERR_TRANSFER_FAILED, "transfer failed" },
	/* One value for two names in Dolphin's header (sisci_error.h): one text for both. */
	{ SCI_ERR_EWOULD_BLOCK, "operation would block, or the remote node is busy" },
	{ SCI_ERR_SEMAPHORE_COUNT_EXCEEDED, "semaphore count exceeded" },
	{ SCI_ERR_IRQL_ILLEGAL, "illegal interrupt request level" },
	{ SCI_ERR_LOCAL_BUSY, "the local node is busy" },
	{ SCI_ERR_ALL_BUSY, "all nodes are busy" },
};

const char *SCIGetErrorString(sci_error_t error)
{
	XRMA_ERRNO_KEEP(NULL);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (texts[i].code == error)
			return texts[i].text;
	return "unknown SISCI error";
}
