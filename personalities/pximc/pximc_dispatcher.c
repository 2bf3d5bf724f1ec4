/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/pximc/pximc_dispatcher.c: the PXImc Dispatcher (spec 4), libpximc. On first use
 * it loads every vendor library linked into the library directory (PXIMC_VENDOR_PATH, else
 * /opt/pximc/lib64 or /opt/pximc/lib), in name order, keeping those that resolve all 17 entry
 * points. It merges their interfaces, renumbers interfaces and sessions (process-unique,
 * non-zero, never reused) and passes every call through to the owning vendor. The tables are
 * process-wide by nature and guarded by one lock, never held across a vendor's blocking call.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pximc.h>
#include "common/errno_keep.h"

#define XRMA_PXIMC_EXPORT __attribute__((visibility("default")))
#define XRMA_PXIMC_VENDORS_MAX 32
/* Retries of a vendor's findInterfaces whose count grew between two calls. */
#define XRMA_PXIMC_FIND_TRIES 4

struct xrma_pximc_vendor_fns {
	__typeof__(&PXIMC_findInterfaces) find_interfaces;
	__typeof__(&PXIMC_queryInterfaceInformation) query_interface;
	__typeof__(&PXIMC_waitForInterfaceEvent) wait_interface_event;
	__typeof__(&PXIMC_findWindows) find_windows;
	__typeof__(&PXIMC_queryWindowInformation) query_window;
	__typeof__(&PXIMC_requestWindowLogicalAsServer) logical_server;
	__typeof__(&PXIMC_requestWindowLogicalAsClient) logical_client;
	__typeof__(&PXIMC_requestWindowLogicalAsPeer) logical_peer;
	__typeof__(&PXIMC_requestWindowPhysicalAsServer) physical_server;
	__typeof__(&PXIMC_requestWindowPhysicalAsClient) physical_client;
	__typeof__(&PXIMC_waitForConnection) wait_connection;
	__typeof__(&PXIMC_getPhysicalAddress) physical_address;
	__typeof__(&PXIMC_enableDeviceAccess) device_access;
	__typeof__(&PXIMC_assertEvent) assert_event;
	__typeof__(&PXIMC_waitForSessionEvent) wait_session_event;
	__typeof__(&PXIMC_closeWindow) close_window;
	__typeof__(&PXIMC_cleanup) cleanup;
};

/* The entry points in the order of struct xrma_pximc_vendor_fns. */
static const char *const xrma_pximc_entry_names[] = {
	"PXIMC_findInterfaces", "PXIMC_queryInterfaceInformation", "PXIMC_waitForInterfaceEvent",
	"PXIMC_findWindows", "PXIMC_queryWindowInformation", "PXIMC_requestWindowLogicalAsServer",
	"PXIMC_requestWindowLogicalAsClient", "PXIMC_requestWindowLogicalAsPeer",
	"PXIMC_requestWindowPhysicalAsServer", "PXIMC_requestWindowPhysicalAsClient",
	"PXIMC_waitForConnection", "PXIMC_getPhysicalAddress", "PXIMC_enableDeviceAccess",
	"PXIMC_assertEvent", "PXIMC_waitForSessionEvent", "PXIMC_closeWindow", "PXIMC_cleanup",
};

_Static_assert(sizeof(xrma_pximc_entry_names) / sizeof(xrma_pximc_entry_names[0]) ==
		       sizeof(struct xrma_pximc_vendor_fns) / sizeof(void (*)(void)),
	       "one name per entry point");

struct xrma_pximc_vendor {
	void *dl;
	struct xrma_pximc_vendor_fns fn;
};

struct xrma_pximc_route {
	uint32_t id;          /* the Dispatcher's number */
	uint32_t vendor_id;   /* the vendor's number */
	unsigned vendor;      /* index into xrma_pximc_dispatch.vendors */
	bool present;         /* interfaces: listed by the vendor's last findInterfaces */
};

static struct {
	pthread_mutex_t lock;        /* guards every field */
	bool loaded;
	unsigned vendor_count;
	struct xrma_pximc_vendor vendors[XRMA_PXIMC_VENDORS_MAX];
	struct xrma_pximc_route *ifaces;
	size_t iface_count, iface_cap;
	struct xrma_pximc_route *sessions;
	size_t session_count, session_cap;
	uint32_t next_iface, next_session;
} xrma_pximc_dispatch = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_iface = 1, .next_session = 1 };

/* ------------------------------------------------------------------ discovery */

static const char *xrma_pximc_vendor_dir(void)
{
	const char *dir = getenv("PXIMC_VENDOR_PATH");

	if (dir && *dir)
		return dir;
	return sizeof(void *) == 8 ? "/opt/pximc/lib64" : "/opt/pximc/lib";
}

/* The Dispatcher's own names (spec 4.4.2, 4.5.3): never loaded as vendors. */
static bool xrma_pximc_own_name(const char *name)
{
	return !strcmp(name, "libpximc32.so") || !strcmp(name, "libpximc64.so") ||
	       !strcmp(name, "pximc64.so") || !strncmp(name, "libpximc.so", 11);
}

static int xrma_pximc_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The load address of this library, to tell its own symbols from a vendor's. */
static void *xrma_pximc_own_base(void)
{
	Dl_info own;

	return dladdr((void *)&xrma_pximc_vendor_dir, &own) ? own.dli_fbase : NULL;
}

/* dlopen path and resolve the 17 entry points; false (and nothing kept) otherwise. */
static bool xrma_pximc_vendor_load(const char *path, struct xrma_pximc_vendor *v)
{
	void **slots = (void **)&v->fn;
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!dl)
		return false;
	for (unsigned i = 0; i < xrma_pximc_dispatch.vendor_count; i++) {
		if (xrma_pximc_dispatch.vendors[i].dl == dl) {
			dlclose(dl);  /* a second link to a library already loaded */
			return false;
		}
	}
	for (size_t i = 0; i < sizeof(xrma_pximc_entry_names) / sizeof(xrma_pximc_entry_names[0]);
	     i++) {
		void *sym = dlsym(dl, xrma_pximc_entry_names[i]);
		Dl_info where;

		/* A name that resolves into this Dispatcher (through a dependency) is not the vendor's. */
		if (!sym || (dladdr(sym, &where) && where.dli_fbase == xrma_pximc_own_base())) {
			dlclose(dl);
			return false;
		}
		slots[i] = sym;
	}
	v->dl = dl;
	return true;
}

/* Load the vendors once (ambiguity 40: at the first call, not at library load). Under lock. */
static void xrma_pximc_vendors_load(void)
{
	const char *dir = xrma_pximc_vendor_dir();
	char **names = NULL;
	size_t count = 0, cap = 0;
	struct dirent *entry;
	DIR *d;

	if (xrma_pximc_dispatch.loaded)
		return;
	xrma_pximc_dispatch.loaded = true;
	d = opendir(dir);
	if (!d)
		return;
	while ((entry = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (entry->d_name[0] == '.' || xrma_pximc_own_name(entry->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
		/* Vendors register by linking their library into the directory (spec 4.4.2). */
		if (lstat(path, &st) || !S_ISLNK(st.st_mode))
			continue;
		if (count == cap) {
			char **more = realloc(names, (cap ? cap * 2 : 8) * sizeof(*names));

			if (!more)
				break;
			names = more;
			cap = cap ? cap * 2 : 8;
		}
		names[count] = strdup(path);
		if (names[count])
			count++;
	}
	closedir(d);
	if (count)
		qsort(names, count, sizeof(*names), xrma_pximc_name_cmp);
	for (size_t i = 0; i < count; i++) {
		struct xrma_pximc_vendor *v =
			&xrma_pximc_dispatch.vendors[xrma_pximc_dispatch.vendor_count];

		if (xrma_pximc_dispatch.vendor_count < XRMA_PXIMC_VENDORS_MAX &&
		    xrma_pximc_vendor_load(names[i], v))
			xrma_pximc_dispatch.vendor_count++;
		free(names[i]);
	}
	free(names);
}

/* ------------------------------------------------------------------ id tables */

static struct xrma_pximc_route *xrma_pximc_route_add(struct xrma_pximc_route **table, size_t *count,
						    size_t *cap, uint32_t *next, unsigned vendor,
						    uint32_t vendor_id)
{
	struct xrma_pximc_route *r;

	if (*count == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct xrma_pximc_route *more = realloc(*table, n * sizeof(*more));

		if (!more)
			return NULL;
		*table = more;
		*cap = n;
	}
	r = &(*table)[(*count)++];
	/* Never 0, never reused: a counter that would wrap only after 2^32 - 1 ids. */
	r->id = (*next)++;
	if (!*next)
		*next = 1;
	r->vendor = vendor;
	r->vendor_id = vendor_id;
	r->present = true;
	return r;
}

static struct xrma_pximc_route *xrma_pximc_route_find(struct xrma_pximc_route *table, size_t count,
						     uint32_t id)
{
	for (size_t i = 0; id && i < count; i++)
		if (table[i].id == id)
			return &table[i];
	return NULL;
}

/* One vendor's current interfaces; a status < 0 is the vendor's error. */
static tPXIMC_Status xrma_pximc_vendor_interfaces(unsigned vendor, uint32_t **ids, uint32_t *count)
{
	const struct xrma_pximc_vendor *v = &xrma_pximc_dispatch.vendors[vendor];
	uint32_t cap = 16, actual = 0;
	tPXIMC_Status status = PXIMC_INSUFFICIENT_SPACE;

	*ids = NULL;
	for (int tries = 0; tries < XRMA_PXIMC_FIND_TRIES && status == PXIMC_INSUFFICIENT_SPACE;
	     tries++) {
		uint32_t *buf = realloc(*ids, cap * sizeof(uint32_t));

		if (!buf)
			return PXIMC_INSUFFICIENT_SPACE;
		*ids = buf;
		status = v->fn.find_interfaces(cap, buf, &actual);
		if (status == PXIMC_INSUFFICIENT_SPACE && actual > cap)
			cap = actual;
		else if (status == PXIMC_INSUFFICIENT_SPACE)
			break;
	}
	*count = actual;
	return status;
}

/* Re-read every vendor's interfaces into the table; the first vendor error, or SUCCESS. */
static tPXIMC_Status xrma_pximc_refresh(void)
{
	tPXIMC_Status first = PXIMC_SUCCESS;

	for (unsigned v = 0; v < xrma_pximc_dispatch.vendor_count; v++) {
		uint32_t *ids, count;
		tPXIMC_Status status = xrma_pximc_vendor_interfaces(v, &ids, &count);

		if (status < 0) {
			if (first == PXIMC_SUCCESS)
				first = status;
			free(ids);
			continue;
		}
		for (size_t i = 0; i < xrma_pximc_dispatch.iface_count; i++)
			if (xrma_pximc_dispatch.ifaces[i].vendor == v)
				xrma_pximc_dispatch.ifaces[i].present = false;
		for (uint32_t k = 0; k < count; k++) {
			bool known = false;

			for (size_t i = 0; i < xrma_pximc_dispatch.iface_count && !known; i++) {
				struct xrma_pximc_route *r = &xrma_pximc_dispatch.ifaces[i];

				if (r->vendor == v && r->vendor_id == ids[k])
					known = r->present = true;
			}
			if (!known)
				xrma_pximc_route_add(&xrma_pximc_dispatch.ifaces,
						     &xrma_pximc_dispatch.iface_count,
						     &xrma_pximc_dispatch.iface_cap,
						     &xrma_pximc_dispatch.next_iface, v, ids[k]);
		}
		free(ids);
	}
	return first;
}

/* Route an interface id, refreshing once when it is unknown (spec 4.3.2-R1). */
static bool xrma_pximc_route_interface(uint32_t id, struct xrma_pximc_vendor_fns *fn,
				       uint32_t *vendor_id)
{
	struct xrma_pximc_route *r;
	bool found = false;

	pthread_mutex_lock(&xrma_pximc_dispatch.lock);
	xrma_pximc_vendors_load();
	for (int pass = 0; pass < 2 && !found; pass++) {
		if (pass)
			xrma_pximc_refresh();
		r = xrma_pximc_route_find(xrma_pximc_dispatch.ifaces, xrma_pximc_dispatch.iface_count,
					  id);
		if (r && r->present) {
			*fn = xrma_pximc_dispatch.vendors[r->vendor].fn;
			*vendor_id = r->vendor_id;
			found = true;
		}
	}
	pthread_mutex_unlock(&xrma_pximc_dispatch.lock);
	return found;
}

static bool xrma_pximc_route_session(uint32_t number, struct xrma_pximc_vendor_fns *fn,
				     uint32_t *vendor_number)
{
	struct xrma_pximc_route *r;

	pthread_mutex_lock(&xrma_pximc_dispatch.lock);
	r = xrma_pximc_route_find(xrma_pximc_dispatch.sessions, xrma_pximc_dispatch.session_count,
				  number);
	if (r) {
		*fn = xrma_pximc_dispatch.vendors[r->vendor].fn;
		*vendor_number = r->vendor_id;
	}
	pthread_mutex_unlock(&xrma_pximc_dispatch.lock);
	return r != NULL;
}

/* Record a vendor's new session and hand out the Dispatcher's number for it. */
static tPXIMC_Status xrma_pximc_session_new(tPXIMC_Status status, uint32_t interface_id,
					    uint32_t vendor_number, uint32_t *number)
{
	struct xrma_pximc_route *iface, *r = NULL;

	if (status != PXIMC_SUCCESS)
		return status;
	pthread_mutex_lock(&xrma_pximc_dispatch.lock);
	iface = xrma_pximc_route_find(xrma_pximc_dispatch.ifaces, xrma_pximc_dispatch.iface_count,
				      interface_id);
	if (iface)
		r = xrma_pximc_route_add(&xrma_pximc_dispatch.sessions,
					 &xrma_pximc_dispatch.session_count,
					 &xrma_pximc_dispatch.session_cap,
					 &xrma_pximc_dispatch.next_session, iface->vendor,
					 vendor_number);
	if (r)
		*number = r->id;
	pthread_mutex_unlock(&xrma_pximc_dispatch.lock);
	return r ? PXIMC_SUCCESS : PXIMC_SPACE_NOT_AVAILABLE;
}

/* ------------------------------------------------------------------ the entry points */

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_findInterfaces(uint32_t maxNumberOfInterfaces,
								 uint32_t *interfaceIDs,
								 uint32_t *actualNumberOfInterfaces)
{
	XRMA_ERRNO_KEEP(NULL);
	tPXIMC_Status status;
	uint32_t total = 0;

	if (!actualNumberOfInterfaces || (maxNumberOfInterfaces && !interfaceIDs))
		return PXIMC_INVALID_ARGUMENT;
	pthread_mutex_lock(&xrma_pximc_dispatch.lock);
	xrma_pximc_vendors_load();
	if (!xrma_pximc_dispatch.vendor_count) {
		pthread_mutex_unlock(&xrma_pximc_dispatch.lock);
		*actualNumberOfInterfaces = 0;
		return PXIMC_NO_PROVIDER;
	}
	status = xrma_pximc_refresh();
	if (status == PXIMC_SUCCESS) {
		for (size_t i = 0; i < xrma_pximc_dispatch.iface_count; i++)
			total += xrma_pximc_dispatch.ifaces[i].present;
		*actualNumberOfInterfaces = total;
		if (total > maxNumberOfInterfaces) {
			status = PXIMC_INSUFFICIENT_SPACE;
		} else {
			total = 0;
			for (size_t i = 0; i < xrma_pximc_dispatch.iface_count; i++)
				if (xrma_pximc_dispatch.ifaces[i].present)
					interfaceIDs[total++] = xrma_pximc_dispatch.ifaces[i].id;
		}
	}
	pthread_mutex_unlock(&xrma_pximc_dispatch.lock);
	return status;
}

/* Interface calls: route or INVALID_INTERFACE, then pass through untouched. */
#define XRMA_PXIMC_BY_INTERFACE(id, call)                         \
	do {                                                      \
		struct xrma_pximc_vendor_fns fn;                  \
		uint32_t vid;                                     \
		if (!xrma_pximc_route_interface((id), &fn, &vid)) \
			return PXIMC_INVALID_INTERFACE;           \
		return call;                                      \
	} while (0)

/* Session calls: route or INVALID_SESSION (no refresh for sessions, 4.3.4-R1). */
#define XRMA_PXIMC_BY_SESSION(number, call)                          \
	do {                                                         \
		struct xrma_pximc_vendor_fns fn;                     \
		uint32_t vnum;                                       \
		if (!xrma_pximc_route_session((number), &fn, &vnum)) \
			return PXIMC_INVALID_SESSION;                \
		return call;                                         \
	} while (0)

/*
 * Window requests: route, call with a vendor session number, then number it ourselves.
 * The call runs first: it writes vnum.
 */
#define XRMA_PXIMC_REQUEST(id, session, call)                                        \
	do {                                                                         \
		struct xrma_pximc_vendor_fns fn;                                     \
		tPXIMC_Status status_;                                               \
		uint32_t vid, vnum = 0;                                              \
		if (!xrma_pximc_route_interface((id), &fn, &vid))                    \
			return PXIMC_INVALID_INTERFACE;                              \
		status_ = call;                                                      \
		if (!(session))                                                      \
			return status_;                                              \
		return xrma_pximc_session_new(status_, (id), vnum, (session));       \
	} while (0)

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_queryInterfaceInformation(
	uint32_t interfaceID, uint32_t attributeID, uint32_t maxSizeOfAttributeValue,
	void *attributeValue, uint32_t *actualSizeOfAttributeValue)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_BY_INTERFACE(interfaceID,
				fn.query_interface(vid, attributeID, maxSizeOfAttributeValue,
						   attributeValue, actualSizeOfAttributeValue));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_waitForInterfaceEvent(uint32_t interfaceID,
									uint32_t timeoutInMilliseconds,
									uint32_t *reasonCode)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_BY_INTERFACE(interfaceID,
				fn.wait_interface_event(vid, timeoutInMilliseconds, reasonCode));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_findWindows(uint32_t interfaceID,
							      uint32_t maxNumberOfWindowIDs,
							      uint32_t *windowIDs,
							      uint32_t *actualNumberOfWindowIDs)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_BY_INTERFACE(interfaceID, fn.find_windows(vid, maxNumberOfWindowIDs, windowIDs,
							     actualNumberOfWindowIDs));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_queryWindowInformation(
	uint32_t interfaceID, uint32_t windowID, uint32_t attributeID,
	uint32_t maxSizeOfAttributeValue, void *attributeValue, uint32_t *actualSizeOfAttributeValue)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_BY_INTERFACE(interfaceID,
				fn.query_window(vid, windowID, attributeID, maxSizeOfAttributeValue,
						attributeValue, actualSizeOfAttributeValue));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowLogicalAsServer(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxLocalSize, uint64_t minLocalSize,
	uint64_t maxRemoteSize, uint64_t minRemoteSize, uint32_t uniqueIdentifier,
	const uint8_t *windowData, uint32_t windowDataSize, uint32_t *sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_REQUEST(interfaceID, sessionNumber,
			   fn.logical_server(vid, protocolNumber, maxLocalSize, minLocalSize,
					     maxRemoteSize, minRemoteSize, uniqueIdentifier,
					     windowData, windowDataSize,
					     sessionNumber ? &vnum : NULL));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowLogicalAsClient(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxLocalSize, uint64_t minLocalSize,
	uint64_t maxRemoteSize, uint64_t minRemoteSize, uint32_t uniqueIdentifier,
	uint32_t *sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_REQUEST(interfaceID, sessionNumber,
			   fn.logical_client(vid, protocolNumber, maxLocalSize, minLocalSize,
					     maxRemoteSize, minRemoteSize, uniqueIdentifier,
					     sessionNumber ? &vnum : NULL));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowLogicalAsPeer(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxLocalSize, uint64_t minLocalSize,
	uint64_t maxRemoteSize, uint64_t minRemoteSize, uint32_t uniqueIdentifier,
	const uint8_t *windowData, uint32_t windowDataSize, uint32_t *sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_REQUEST(interfaceID, sessionNumber,
			   fn.logical_peer(vid, protocolNumber, maxLocalSize, minLocalSize,
					   maxRemoteSize, minRemoteSize, uniqueIdentifier, windowData,
					   windowDataSize, sessionNumber ? &vnum : NULL));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowPhysicalAsServer(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t localSize, uint32_t uniqueIdentifier,
	uint64_t physicalAddress, const uint8_t *windowData, uint32_t windowDataSize,
	uint32_t *sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_REQUEST(interfaceID, sessionNumber,
			   fn.physical_server(vid, protocolNumber, localSize, uniqueIdentifier,
					      physicalAddress, windowData, windowDataSize,
					      sessionNumber ? &vnum : NULL));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_requestWindowPhysicalAsClient(
	uint32_t interfaceID, uint32_t protocolNumber, uint64_t maxRemoteSize,
	uint64_t minRemoteSize, uint32_t uniqueIdentifier, uint32_t *sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_REQUEST(interfaceID, sessionNumber,
			   fn.physical_client(vid, protocolNumber, maxRemoteSize, minRemoteSize,
					      uniqueIdentifier, sessionNumber ? &vnum : NULL));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_waitForConnection(
	uint32_t sessionNumber, uint32_t timeoutInMilliseconds, void **mappedRemoteAddress,
	uint64_t *remoteSizeInBytes, void **mappedLocalAddress, uint64_t *localSizeInBytes)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_BY_SESSION(sessionNumber,
			      fn.wait_connection(vnum, timeoutInMilliseconds, mappedRemoteAddress,
						 remoteSizeInBytes, mappedLocalAddress,
						 localSizeInBytes));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_getPhysicalAddress(uint32_t sessionNumber,
								     uint64_t *physicalAddress)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_BY_SESSION(sessionNumber, fn.physical_address(vnum, physicalAddress));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_enableDeviceAccess(uint32_t sessionNumber,
								     uint32_t accessMode,
								     uint32_t deviceBusNumber,
								     uint32_t deviceDevNumber,
								     uint32_t deviceFuncNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_BY_SESSION(sessionNumber, fn.device_access(vnum, accessMode, deviceBusNumber,
							      deviceDevNumber, deviceFuncNumber));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_assertEvent(uint32_t sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_BY_SESSION(sessionNumber, fn.assert_event(vnum));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_waitForSessionEvent(uint32_t sessionNumber,
								      uint32_t timeoutInMilliseconds,
								      uint32_t *reasonCode)
{
	XRMA_ERRNO_KEEP(NULL);
	XRMA_PXIMC_BY_SESSION(sessionNumber,
			      fn.wait_session_event(vnum, timeoutInMilliseconds, reasonCode));
}

XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_closeWindow(uint32_t sessionNumber)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_pximc_vendor_fns fn;
	tPXIMC_Status status;
	uint32_t vnum;

	if (!xrma_pximc_route_session(sessionNumber, &fn, &vnum))
		return PXIMC_INVALID_SESSION;
	status = fn.close_window(vnum);
	/* Closed, or unknown to its vendor (gone with a vendor cleanup): forget the number. */
	if (status == PXIMC_SUCCESS || status == PXIMC_INVALID_SESSION) {
		pthread_mutex_lock(&xrma_pximc_dispatch.lock);
		for (size_t i = 0; i < xrma_pximc_dispatch.session_count; i++) {
			if (xrma_pximc_dispatch.sessions[i].id == sessionNumber) {
				xrma_pximc_dispatch.sessions[i] =
					xrma_pximc_dispatch.sessions[--xrma_pximc_dispatch.session_count];
				break;
			}
		}
		pthread_mutex_unlock(&xrma_pximc_dispatch.lock);
	}
	return status;
}

/* Every vendor's cleanup, once each; the session table empties, interface ids stay valid. */
XRMA_PXIMC_EXPORT tPXIMC_Status _PXIMC_FUNC PXIMC_cleanup(void)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_pximc_vendor_fns fns[XRMA_PXIMC_VENDORS_MAX];
	unsigned count;

	pthread_mutex_lock(&xrma_pximc_dispatch.lock);
	count = xrma_pximc_dispatch.vendor_count;
	for (unsigned v = 0; v < count; v++)
		fns[v] = xrma_pximc_dispatch.vendors[v].fn;
	xrma_pximc_dispatch.session_count = 0;
	pthread_mutex_unlock(&xrma_pximc_dispatch.lock);
	for (unsigned v = 0; v < count; v++)
		fns[v].cleanup();
	return PXIMC_SUCCESS;
}
