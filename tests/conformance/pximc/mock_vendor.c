/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/pximc/mock_vendor.c: a scripted PXImc vendor library for the Dispatcher
 * tests, built twice (MOCK_TAG 1 and 2) and once without PXIMC_cleanup (MOCK_BROKEN) as a
 * vendor the Dispatcher must refuse. The test scripts it through mock_pximc_script(), found
 * with dlsym; every answer carries MOCK_TAG so the test can tell which vendor served a call.
 */
#include <string.h>
#include <pximc.h>

#define MOCK_EXPORT __attribute__((visibility("default")))

struct mock_pximc_state {
	uint32_t ids[16];
	uint32_t count;
	tPXIMC_Status find_status;   /* forced findInterfaces result (0: normal) */
	uint32_t cleanups;
	uint32_t last_device;        /* bus of the last enableDeviceAccess */
};

static struct mock_pximc_state mock;

MOCK_EXPORT struct mock_pximc_state *mock_pximc_script(void);
MOCK_EXPORT struct mock_pximc_state *mock_pximc_script(void)
{
	return &mock;
}

static int mock_known(uint32_t id)
{
	for (uint32_t i = 0; i < mock.count; i++)
		if (mock.ids[i] == id)
			return 1;
	return 0;
}

MOCK_EXPORT tPXIMC_Status PXIMC_findInterfaces(uint32_t max, uint32_t *ids, uint32_t *actual)
{
	if (mock.find_status)
		return mock.find_status;
	*actual = mock.count;
	if (max < mock.count)
		return PXIMC_INSUFFICIENT_SPACE;
	memcpy(ids, mock.ids, mock.count * sizeof(uint32_t));
	return PXIMC_SUCCESS;
}

/* The value says who answered: tag * 1000 + the vendor's interface id. */
MOCK_EXPORT tPXIMC_Status PXIMC_queryInterfaceInformation(uint32_t id, uint32_t attr, uint32_t max,
							  void *value, uint32_t *actual)
{
	uint32_t v = MOCK_TAG * 1000u + id;

	(void)attr;
	if (!mock_known(id))
		return PXIMC_INVALID_INTERFACE;
	*actual = 4;
	if (max < 4)
		return PXIMC_INSUFFICIENT_SPACE;
	memcpy(value, &v, 4);
	return PXIMC_SUCCESS;
}

MOCK_EXPORT tPXIMC_Status PXIMC_waitForInterfaceEvent(uint32_t id, uint32_t timeout, uint32_t *reason)
{
	(void)timeout;
	*reason = MOCK_TAG;
	return mock_known(id) ? PXIMC_SUCCESS : PXIMC_INVALID_INTERFACE;
}

MOCK_EXPORT tPXIMC_Status PXIMC_findWindows(uint32_t id, uint32_t max, uint32_t *ids, uint32_t *actual)
{
	(void)max;
	(void)ids;
	*actual = MOCK_TAG;
	return mock_known(id) ? PXIMC_SUCCESS : PXIMC_INVALID_INTERFACE;
}

MOCK_EXPORT tPXIMC_Status PXIMC_queryWindowInformation(uint32_t id, uint32_t window, uint32_t attr,
						       uint32_t max, void *value, uint32_t *actual)
{
	(void)window;
	(void)attr;
	(void)max;
	(void)value;
	*actual = MOCK_TAG;
	return mock_known(id) ? PXIMC_NSUP_ATTRIBUTE : PXIMC_INVALID_INTERFACE;
}

/*
 * Every request gets vendor session 7, as in spec test idea 99. (A vendor must not call its
 * own PXIMC_* names: inside a process that links the Dispatcher they resolve to it.)
 */
static tPXIMC_Status mock_request(uint32_t id, uint32_t *session)
{
	if (!session)
		return PXIMC_INVALID_ARGUMENT;
	*session = 7;
	return mock_known(id) ? PXIMC_SUCCESS : PXIMC_INVALID_INTERFACE;
}

MOCK_EXPORT tPXIMC_Status PXIMC_requestWindowLogicalAsServer(uint32_t id, uint32_t proto, uint64_t a,
							     uint64_t b, uint64_t c, uint64_t d,
							     uint32_t uid, const uint8_t *data,
							     uint32_t len, uint32_t *session)
{
	(void)proto, (void)a, (void)b, (void)c, (void)d, (void)uid, (void)data, (void)len;
	return mock_request(id, session);
}

MOCK_EXPORT tPXIMC_Status PXIMC_requestWindowLogicalAsClient(uint32_t id, uint32_t proto, uint64_t a,
							     uint64_t b, uint64_t c, uint64_t d,
							     uint32_t uid, uint32_t *session)
{
	(void)id, (void)proto, (void)a, (void)b, (void)c, (void)d, (void)uid, (void)session;
	return PXIMC_NO_PAIRING;
}

MOCK_EXPORT tPXIMC_Status PXIMC_requestWindowLogicalAsPeer(uint32_t id, uint32_t proto, uint64_t a,
							   uint64_t b, uint64_t c, uint64_t d,
							   uint32_t uid, const uint8_t *data,
							   uint32_t len, uint32_t *session)
{
	(void)proto, (void)a, (void)b, (void)c, (void)d, (void)uid, (void)data, (void)len;
	return mock_request(id, session);
}

MOCK_EXPORT tPXIMC_Status PXIMC_requestWindowPhysicalAsServer(uint32_t id, uint32_t proto,
							      uint64_t size, uint32_t uid,
							      uint64_t address, const uint8_t *data,
							      uint32_t len, uint32_t *session)
{
	(void)id, (void)proto, (void)size, (void)uid, (void)address, (void)data, (void)len;
	(void)session;
	return PXIMC_PHY_RESOURCE_NOT_AVAILABLE;
}

MOCK_EXPORT tPXIMC_Status PXIMC_requestWindowPhysicalAsClient(uint32_t id, uint32_t proto,
							      uint64_t max, uint64_t min,
							      uint32_t uid, uint32_t *session)
{
	(void)id, (void)proto, (void)max, (void)min, (void)uid, (void)session;
	return PXIMC_NO_PAIRING;
}

MOCK_EXPORT tPXIMC_Status PXIMC_waitForConnection(uint32_t session, uint32_t timeout, void **remote,
						  uint64_t *remote_size, void **local,
						  uint64_t *local_size)
{
	(void)timeout;
	*remote = NULL;
	*local = NULL;
	*remote_size = MOCK_TAG * 100u + session;
	*local_size = 0;
	return session == 7 ? PXIMC_SUCCESS : PXIMC_INVALID_SESSION;
}

MOCK_EXPORT tPXIMC_Status PXIMC_getPhysicalAddress(uint32_t session, uint64_t *address)
{
	*address = (uint64_t)MOCK_TAG << 32 | session;
	return PXIMC_SUCCESS;
}

MOCK_EXPORT tPXIMC_Status PXIMC_enableDeviceAccess(uint32_t session, uint32_t mode, uint32_t bus,
						   uint32_t dev, uint32_t func)
{
	(void)session, (void)mode, (void)dev, (void)func;
	mock.last_device = bus;
	return PXIMC_SUCCESS;
}

MOCK_EXPORT tPXIMC_Status PXIMC_assertEvent(uint32_t session)
{
	return session == 7 ? PXIMC_SUCCESS : PXIMC_INVALID_SESSION;
}

/* A warning, passed through untouched. */
MOCK_EXPORT tPXIMC_Status PXIMC_waitForSessionEvent(uint32_t session, uint32_t timeout, uint32_t *reason)
{
	(void)session, (void)timeout, (void)reason;
	return PXIMC_TIMEOUT;
}

MOCK_EXPORT tPXIMC_Status PXIMC_closeWindow(uint32_t session)
{
	return session == 7 ? PXIMC_SUCCESS : PXIMC_INVALID_SESSION;
}

#ifndef MOCK_BROKEN
MOCK_EXPORT tPXIMC_Status PXIMC_cleanup(void)
{
	mock.cleanups++;
	return PXIMC_SUCCESS;
}
#endif
