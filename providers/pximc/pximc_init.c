/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/pximc/pximc_init.c: the pximc provider's capabilities, open and close, the
 * Dispatcher it loads, and its ops table. One PXImc system per process (the PXImc API has
 * no context argument), so one pximc context per process; a second is XRMA_EADDRINUSE.
 */
#include "providers/pximc/pximc.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "core/config.h"
#include "common/detail.h"
#include <xrma/errors.h>

/*
 * What PXImc carries: load/store mapping (a window's mapped remote address) and processes
 * as nodes. Not: registering user memory (windows are the vendor's memory, allocated at
 * pairing), atomics (a window mapping need not be coherent), doorbells and scratchpads, bus
 * addresses. max_seg_size is the window resource xrma's vendor library grants (64 MiB).
 * Segments are one window each, paired with one other node: max_importers is 1.
 */
static const struct xrma_caps pxp_caps = {
	.flags = XRMA_CAP_MAP | XRMA_CAP_MULTIPROC | XRMA_CAP_LOCAL_VIRTUAL,
	.page_size = 4096,
	.max_seg_size = (size_t)64 << 20,
	.rma_offset_align = 1,
	.rma_size_align = 1,
	.max_segs = 4096,
	.max_maps = 0,
	.doorbell_count = 0,
	.max_nodes = 0,
	.max_node_id = 65535,
	.ctrl_msg_max = PXP_CTRL_MSG_MAX,
	.spad_count = 0,
	.mw_count = 0,
	.mw_size = 0,
	.xlat_align = 0,
	.max_importers = 1,   /* a window has one partner (pximc_mem.c) */
};

/* The process's PXImc system is taken by one context at a time; opening marks the thread
 * that is inside open, so a vendor that would run on pximc itself is refused, not deadlocked. */
/*
 * The fabric's name as the hello message carries it (a fixed field): itself
 * when it fits, else '~' and a hash of it (fabric names start with no '~' in
 * practice, and a clash only lets two fabrics' hellos meet, as before).
 */
static void pxp_fabric_token(const char *fabric, char *out, size_t len)
{
	uint64_t hash = 1469598103934665603ull;

	if (strlen(fabric) < len) {
		snprintf(out, len, "%s", fabric);
		return;
	}
	for (const char *c = fabric; *c; c++)
		hash = (hash ^ (unsigned char)*c) * 1099511628211ull;
	snprintf(out, len, "~%016llx", (unsigned long long)hash);
}

static pthread_mutex_t pxp_process_lock = PTHREAD_MUTEX_INITIALIZER;
static bool pxp_process_taken;   /* under pxp_process_lock */
static pid_t pxp_process_owner;  /* under pxp_process_lock: the process that took it */
static struct pxp_prov *pxp_live;  /* under pxp_process_lock: the open context's state */
static bool pxp_atexit_set;        /* under pxp_process_lock */

/*
 * At exit, library destructors run after atexit handlers, and a vendor library closes its
 * sessions in its destructor (spec 3.3.5.1-O5: the implicit close). Our threads stop first,
 * so none reads a window the vendor has just unmapped; the state stays for the core.
 */
static void pxp_at_exit(void)
{
	/* Held throughout: a close() on another thread waits, then finds nothing left to stop. */
	pthread_mutex_lock(&pxp_process_lock);
	if (pxp_live)
		pxp_control_quiesce(pxp_live);
	pthread_mutex_unlock(&pxp_process_lock);
}
static _Thread_local bool pxp_opening;

void pxp_detail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xrma_detail_vset(fmt, ap);
	va_end(ap);
}

int pxp_error(tPXIMC_Status status)
{
	switch (status) {
	case PXIMC_SUCCESS:
		return 0;
	case PXIMC_TIMEOUT:
		return -XRMA_ETIMEDOUT;
	case PXIMC_INTERFACE_DOWN:
		return -XRMA_ENETDOWN;
	case PXIMC_INVALID_INTERFACE:
		return -XRMA_ENODEV;
	case PXIMC_SPACE_NOT_AVAILABLE:
	case PXIMC_INSUFFICIENT_SPACE:
		return -XRMA_ENOSPC;
	case PXIMC_UID_CONFLICT:
		return -XRMA_EADDRINUSE;
	case PXIMC_NO_PAIRING:
		return -XRMA_ECONNREFUSED;
	case PXIMC_SESSION_CLOSED:
	case PXIMC_INVALID_SESSION:
		return -XRMA_ECONNRESET;
	case PXIMC_NO_PROVIDER:
		return -XRMA_ENODEV;
	default:
		return -XRMA_EIO;
	}
}

void pxp_deadline(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int pxp_wait(struct pxp_prov *p, const struct timespec *deadline)
{
	return pthread_cond_timedwait(&p->cond, &p->lock, deadline);
}

#define PXP_SYM(field, name) { offsetof(struct pxp_api, field), "PXIMC_" name }

static int pxp_load_dispatcher(const char *name, struct pxp_api *api)
{
	static const struct { size_t offset; const char *name; } syms[] = {
		PXP_SYM(findInterfaces, "findInterfaces"),
		PXP_SYM(queryInterfaceInformation, "queryInterfaceInformation"),
		PXP_SYM(requestWindowLogicalAsServer, "requestWindowLogicalAsServer"),
		PXP_SYM(requestWindowLogicalAsClient, "requestWindowLogicalAsClient"),
		PXP_SYM(requestWindowLogicalAsPeer, "requestWindowLogicalAsPeer"),
		PXP_SYM(waitForConnection, "waitForConnection"),
		PXP_SYM(assertEvent, "assertEvent"),
		PXP_SYM(waitForSessionEvent, "waitForSessionEvent"),
		PXP_SYM(closeWindow, "closeWindow"),
	};
	/* Kept loaded for the process's life: vendors it loaded may hold threads. */
	void *dl = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	char beside[4096];
	Dl_info self;

	/* A bare name not on the search path: the Dispatcher installed beside libxrma. */
	if (!dl && !strchr(name, '/') && dladdr((void *)pxp_load_dispatcher, &self) &&
	    self.dli_fname && strrchr(self.dli_fname, '/')) {
		snprintf(beside, sizeof(beside), "%.*s/%s",
			 (int)(strrchr(self.dli_fname, '/') - self.dli_fname), self.dli_fname, name);
		dl = dlopen(beside, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	}
	if (!dl) {
		pxp_detail("pximc: cannot load the PXImc Dispatcher '%s' (pximc.dispatcher): %s",
			   name, dlerror());
		return -XRMA_ENODEV;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *fn = dlsym(dl, syms[i].name);

		if (!fn) {
			pxp_detail("pximc: '%s' has no %s: not a PXImc Dispatcher", name, syms[i].name);
			dlclose(dl);
			return -XRMA_ENODEV;
		}
		memcpy((char *)api + syms[i].offset, &fn, sizeof(fn));
	}
	return 0;
}

static int pxp_take_process(void)
{
	int ret = 0;

	if (pxp_opening) {
		pxp_detail("pximc: the PXImc vendor library itself runs on pximc; set "
			   "pximc.vendor_provider to the provider under it (ntb)");
		return -XRMA_ECONFIG;
	}
	pthread_mutex_lock(&pxp_process_lock);
	if (pxp_process_taken && pxp_process_owner != getpid()) {
		/* A forked child: the node is its parent's, and PXImc has one system per node. */
		pxp_detail("pximc: this node's PXImc system belongs to the parent process (pid %d); "
			   "a forked child cannot open its own", (int)pxp_process_owner);
		ret = -XRMA_EADDRINUSE;
	} else if (pxp_process_taken) {
		pxp_detail("pximc: this process's PXImc system is in use by another context "
			   "(one pximc context per process)");
		ret = -XRMA_EADDRINUSE;
	} else {
		pxp_process_taken = true;
		pxp_process_owner = getpid();
	}
	pthread_mutex_unlock(&pxp_process_lock);
	return ret;
}

static void pxp_release_process(void)
{
	pthread_mutex_lock(&pxp_process_lock);
	pxp_process_taken = false;
	pthread_mutex_unlock(&pxp_process_lock);
}

static int pxp_open(const struct xrma_prov_open_args *args, void **state, struct xrma_prov_addr *self)
{
	pthread_condattr_t cattr;
	struct pxp_prov *p;
	uint32_t count = 0;
	tPXIMC_Status st;
	int ret;

	if (!args || !args->config || !args->fabric || !state || !self)
		return -XRMA_EINVAL;
	ret = pxp_take_process();
	if (ret)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p) {
		ret = -XRMA_ENOMEM;
		goto err_release;
	}
	ret = pxp_load_dispatcher(xrma_config_table_value(args->config, &xrma_prov_pximc_config,
						      PXIMC_CONFIG_DISPATCHER),
				  &p->api);
	if (ret)
		goto err_free;
	/* The first call brings the PXImc system up (vendors load, xrma's opens its context). */
	xrma_error_detail_clear();
	pxp_opening = true;
	st = p->api.findInterfaces(0, NULL, &count);
	pxp_opening = false;
	if (st != PXIMC_SUCCESS && st != PXIMC_INSUFFICIENT_SPACE) {
		if (!xrma_error_detail()[0] || st != PXIMC_NO_PROVIDER)
			pxp_detail("pximc: no PXImc system (PXIMC_findInterfaces: 0x%08x); is a vendor "
				   "library in PXIMC_VENDOR_PATH or /opt/pximc/lib64, and is this node "
				   "free?", (unsigned)st);
		ret = st == PXIMC_NO_PROVIDER ? -XRMA_ENODEV : pxp_error(st);
		goto err_free;
	}
	p->self.node = args->node_id;
	/* Endpoint numbers tell a restarted process from its predecessor. */
	p->self.ep = (uint32_t)getpid() ^ (uint32_t)time(NULL) << 16;
	pxp_fabric_token(args->fabric, p->fabric, sizeof(p->fabric));
	p->upcalls = *args->upcalls;
	p->core = args->core;
	p->next_uid = 0x58500000u | (p->self.ep & 0xfff) << 8;
	p->next_mem = 1;
	p->next_req = 1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &cattr);
	pthread_condattr_destroy(&cattr);
	p->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (p->event_fd < 0) {
		ret = -XRMA_EIO;
		goto err_destroy;
	}
	ret = pxp_control_start(p);
	if (ret)
		goto err_close_fd;
	pthread_mutex_lock(&pxp_process_lock);
	pxp_live = p;
	if (!pxp_atexit_set)
		pxp_atexit_set = atexit(pxp_at_exit) == 0;
	pthread_mutex_unlock(&pxp_process_lock);
	*state = p;
	*self = p->self;
	return 0;

err_close_fd:
	close(p->event_fd);
err_destroy:
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
err_free:
	free(p);
err_release:
	pxp_release_process();
	return ret;
}

static void pxp_close(void *state)
{
	struct pxp_prov *p = state;

	if (!p)
		return;
	pthread_mutex_lock(&pxp_process_lock);
	pxp_live = NULL;
	pthread_mutex_unlock(&pxp_process_lock);
	pxp_control_stop(p);
	while (p->in_head) {
		struct pxp_inbound *in = p->in_head;

		p->in_head = in->next;
		free(in);
	}
	free(p->names);
	close(p->event_fd);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
	pxp_release_process();
}

static const struct xrma_provider_ops pxp_ops = {
	.open = pxp_open,
	.close = pxp_close,
	.progress_fd = pxp_progress_fd,
	.progress = pxp_progress,
	.node_list = pxp_node_list,
	.node_probe = pxp_node_probe,
	.name_bind = pxp_name_bind,
	.name_unbind = pxp_name_unbind,
	.name_lookup = pxp_name_lookup,
	.ctrl_send = pxp_ctrl_send,
	.mem_alloc = pxp_mem_alloc,
	.mem_free = pxp_mem_free,
	.mem_export = pxp_mem_export,
	.mem_unexport = pxp_mem_unexport,
	.mem_import = pxp_mem_import,
	.mem_unimport = pxp_mem_unimport,
	.rma = pxp_rma,
	.map = pxp_map,
	.unmap = pxp_unmap,
};

const struct xrma_provider xrma_prov_pximc = {
	.name = "pximc",
	.description = "PXImc through the Dispatcher: any vendor library as the transport",
	.caps = &pxp_caps,
	.ops = &pxp_ops,
};
