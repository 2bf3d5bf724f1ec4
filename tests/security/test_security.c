/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/security/test_security.c: the security promises of the default provider (ntb
 * over the host fabric), through real processes:
 *   - what a node leaves on the machine is the user's alone: its directory file and
 *     its segments' memory are mode 0600, its sockets are abstract (no file to open);
 *   - a process of another user (nobody, when we are root) is refused at each API
 *     with that API's documented error: its connections fail the owner's SO_PEERCRED;
 *   - read-only stays read-only: a SISCI SCI_FLAG_READONLY_MAP map and a SCIF mapping
 *     of a PROT_READ window are PROT_READ (a store kills the storer with SIGSEGV and
 *     the owner's bytes are unchanged), and RMA writes into a read-only window fail;
 *     below libscif, the core import of a read-only window's segment is refused write
 *     access by the owner, also where a writable window shares the pages.
 * tests/multiproc/test_ntb.c covers the core-level other-user import (refused, and
 * let in by host.allow_uids); this program does not repeat it.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"
#define SISCI_STRICT_CALLBACKS 1
#include <sisci_api.h>
#include <scif.h>
#include <pximc.h>

#define SEG_ID 77u
#define SEG_LEN 4096u
#define SEED 0x3c
#define WAIT_MS 10000
#define NOBODY 65534
#define PX_PROTO 0xF0003000u
#define PX_UID 4242u

enum { MSG_READY = 1, MSG_GO, MSG_DONE };

static char *runtime_dir(void)
{
	char *dir = getenv("XRMA_HOST_RUNTIME_DIR");

	return dir && *dir ? dir : "/dev/shm";
}

static int open_ctx(const char *fabric, uint32_t node, struct xrma_ctx **ctx)
{
	const struct xrma_ctx_attr attr = { .fabric = fabric, .node_id = node };

	return xrma_ctx_open(&attr, ctx);
}

/* ------------------------------------------------------------------ child roles */

/* Become nobody and join the fabric of user 0 by name (host.fabric_uid). */
static int become_nobody(void)
{
	if (setgid(NOBODY) || setuid(NOBODY))
		return -1;
	setenv("XRMA_HOST_FABRIC_UID", "0", 1);
	return 0;
}

/* SISCI owner: segment SEG_ID with the pattern, available, until told to go. */
static int child_sisci_owner(int sock, const char *arg)
{
	sci_desc_t sd;
	sci_local_segment_t seg;
	sci_map_t map;
	sci_error_t err;
	unsigned char *p;

	(void)arg;
	SCIOpen(&sd, 0, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	SCICreateSegment(sd, &seg, SEG_ID, SEG_LEN, NULL, NULL, 0, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	p = SCIMapLocalSegment(seg, &map, 0, SEG_LEN, NULL, 0, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	fixture_pattern(p, SEG_LEN, SEED, 0);
	SCIPrepareSegment(seg, 0, 0, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, WAIT_MS) == 0);
	/* Whatever the other process tried, the bytes are the pattern still. */
	PROC_CHECK(fixture_pattern_check(p, SEG_LEN, SEED, 0) == FIXTURE_MATCH);
	SCISetSegmentUnavailable(seg, 0, SCI_FLAG_FORCE_DISCONNECT, &err);
	SCIUnmapSegment(map, 0, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	SCIRemoveSegment(seg, 0, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	SCIClose(sd, 0, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/* SISCI, as another user: connecting to node 1's segment is refused. */
static int child_sisci_intruder(int sock, const char *arg)
{
	sci_desc_t sd;
	sci_remote_segment_t r;
	sci_error_t err;

	(void)arg;
	PROC_CHECK(become_nobody() == 0);
	SCIOpen(&sd, 0, &err);
	if (err == SCI_ERR_OK) {
		SCIConnectSegment(sd, &r, 1, SEG_ID, 0, NULL, NULL, 2000, 0, &err);
		if (err != SCI_ERR_CONNECTION_REFUSED)
			fprintf(stderr, "sisci intruder: %s\n", SCIGetErrorString(err));
		PROC_CHECK(err == SCI_ERR_CONNECTION_REFUSED);
		SCIClose(sd, 0, &err);
	}
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/* SISCI reader: a read-only map reads the pattern; then a store must kill us. */
static int child_sisci_readonly(int sock, const char *arg)
{
	sci_desc_t sd;
	sci_remote_segment_t r;
	sci_map_t map;
	sci_error_t err;
	volatile unsigned char *p;
	unsigned char copy[SEG_LEN];

	(void)arg;
	SCIOpen(&sd, 0, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	SCIConnectSegment(sd, &r, 1, SEG_ID, 0, NULL, NULL, WAIT_MS, 0, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	p = SCIMapRemoteSegment(r, &map, 0, SEG_LEN, NULL, SCI_FLAG_READONLY_MAP, &err);
	PROC_CHECK(err == SCI_ERR_OK);
	memcpy(copy, (const void *)p, SEG_LEN);
	PROC_CHECK(fixture_pattern_check(copy, SEG_LEN, SEED, 0) == FIXTURE_MATCH);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	signal(SIGSEGV, SIG_DFL);   /* the helpers' crash report would turn it into exit 1 */
	p[7] = (unsigned char)~p[7];
	/* Still here: the store went through. */
	return 99;
}

/* SCIF owner (host, node 0): a PROT_READ window at offset 0 and a listener. */
static int child_scif_owner(int sock, const char *arg)
{
	scif_epd_t l, ep;
	struct scif_portID peer;
	unsigned char *mem;
	int port;

	(void)arg;
	mem = mmap(NULL, SEG_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	PROC_CHECK(mem != MAP_FAILED);
	fixture_pattern(mem, SEG_LEN, SEED, 0);
	PROC_CHECK((l = scif_open()) >= 0);
	PROC_CHECK((port = scif_bind(l, 0)) > 0);
	PROC_CHECK(scif_listen(l, 1) == 0);
	PROC_CHECK(proc_send(sock, (uint64_t)port) == 0);
	if (arg && !strcmp(arg, "refuse")) {
		/* Nobody may connect: wait for the parent's word only. */
		PROC_CHECK(proc_expect(sock, MSG_GO, WAIT_MS) == 0);
		scif_close(l);
		PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
		return 0;
	}
	PROC_CHECK(scif_accept(l, &peer, &ep, SCIF_ACCEPT_SYNC) == 0);
	PROC_CHECK(scif_register(ep, mem, SEG_LEN, 0, SCIF_PROT_READ, SCIF_MAP_FIXED) == 0);
	PROC_CHECK(scif_send(ep, "r", 1, SCIF_SEND_BLOCK) == 1);
	PROC_CHECK(proc_expect(sock, MSG_GO, WAIT_MS) == 0);
	PROC_CHECK(fixture_pattern_check(mem, SEG_LEN, SEED, 0) == FIXTURE_MATCH);
	scif_close(ep);
	scif_close(l);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/* SCIF, node 1: arg "nobody" is refused at connect; else map the read-only window. */
static int child_scif_peer(int sock, const char *arg)
{
	struct scif_portID dst = { .node = 0 };
	unsigned char buf[SEG_LEN], *local;
	volatile unsigned char *m;
	uint64_t port;
	scif_epd_t ep;
	off_t loff;
	char c;

	PROC_CHECK(proc_recv(sock, &port, WAIT_MS) == 0);
	dst.port = (uint16_t)port;
	if (arg && !strcmp(arg, "nobody")) {
		PROC_CHECK(become_nobody() == 0);
		ep = scif_open();
		if (ep >= 0) {
			int rc = scif_connect(ep, &dst);

			if (rc != -1 || errno != EACCES)
				fprintf(stderr, "scif intruder: %d, %s\n", rc, strerror(errno));
			PROC_CHECK(rc == -1 && errno == EACCES);
			scif_close(ep);
		}
		PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
		return 0;
	}
	PROC_CHECK((ep = scif_open()) >= 0);
	PROC_CHECK(scif_connect(ep, &dst) >= 0);
	PROC_CHECK(scif_recv(ep, &c, 1, SCIF_RECV_BLOCK) == 1);
	/* Writing into the read-only window: refused by RMA, by a writable mapping. */
	local = mmap(NULL, SEG_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	PROC_CHECK(local != MAP_FAILED);
	memset(local, 0xee, SEG_LEN);
	PROC_CHECK((loff = scif_register(ep, local, SEG_LEN, 0, SCIF_PROT_READ | SCIF_PROT_WRITE, 0)) >= 0);
	PROC_CHECK(scif_writeto(ep, loff, SEG_LEN, 0, SCIF_RMA_SYNC) == -1 && errno == EACCES);
	PROC_CHECK(scif_vwriteto(ep, local, SEG_LEN, 0, SCIF_RMA_SYNC) == -1 && errno == EACCES);
	PROC_CHECK(scif_mmap(NULL, SEG_LEN, SCIF_PROT_READ | SCIF_PROT_WRITE, 0, ep, 0) == SCIF_MMAP_FAILED &&
		   errno == EACCES);
	/* Reading works, by RMA and through a PROT_READ mapping. */
	PROC_CHECK(scif_vreadfrom(ep, buf, SEG_LEN, 0, SCIF_RMA_SYNC) == 0);
	PROC_CHECK(fixture_pattern_check(buf, SEG_LEN, SEED, 0) == FIXTURE_MATCH);
	m = scif_mmap(NULL, SEG_LEN, SCIF_PROT_READ, 0, ep, 0);
	PROC_CHECK(m != SCIF_MMAP_FAILED);
	memcpy(buf, (const void *)m, SEG_LEN);
	PROC_CHECK(fixture_pattern_check(buf, SEG_LEN, SEED, 0) == FIXTURE_MATCH);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	signal(SIGSEGV, SIG_DFL);   /* the helpers' crash report would turn it into exit 1 */
	m[7] = (unsigned char)~m[7];
	return 99;
}

/*
 * SCIF, node 0: page 0 in a read-only window (offset 0), page 1 in a writable
 * window (offset PAGE) and in a read-only one (offset 2 PAGE). Told to go, checks
 * page 0 is untouched and page 1 holds what the peer wrote (SEED + 2).
 */
static int child_scif_split_owner(int sock, const char *arg)
{
	scif_epd_t l, ep;
	struct scif_portID peer;
	unsigned char *mem;
	int port;

	(void)arg;
	mem = mmap(NULL, 2 * SEG_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	PROC_CHECK(mem != MAP_FAILED);
	fixture_pattern(mem, SEG_LEN, SEED, 0);
	fixture_pattern(mem + SEG_LEN, SEG_LEN, SEED + 1, 0);
	PROC_CHECK((l = scif_open()) >= 0);
	PROC_CHECK((port = scif_bind(l, 0)) > 0);
	PROC_CHECK(scif_listen(l, 1) == 0);
	PROC_CHECK(proc_send(sock, (uint64_t)port) == 0);
	PROC_CHECK(scif_accept(l, &peer, &ep, SCIF_ACCEPT_SYNC) == 0);
	PROC_CHECK(scif_register(ep, mem, SEG_LEN, 0, SCIF_PROT_READ, SCIF_MAP_FIXED) == 0);
	PROC_CHECK(scif_register(ep, mem + SEG_LEN, SEG_LEN, SEG_LEN, SCIF_PROT_READ | SCIF_PROT_WRITE,
				 SCIF_MAP_FIXED) == SEG_LEN);
	PROC_CHECK(scif_register(ep, mem + SEG_LEN, SEG_LEN, 2 * SEG_LEN, SCIF_PROT_READ, SCIF_MAP_FIXED) ==
		   2 * SEG_LEN);
	PROC_CHECK(scif_send(ep, "r", 1, SCIF_SEND_BLOCK) == 1);
	PROC_CHECK(proc_expect(sock, MSG_GO, WAIT_MS) == 0);
	PROC_CHECK(fixture_pattern_check(mem, SEG_LEN, SEED, 0) == FIXTURE_MATCH);
	PROC_CHECK(fixture_pattern_check(mem + SEG_LEN, SEG_LEN, SEED + 2, 0) == FIXTURE_MATCH);
	scif_close(ep);
	scif_close(l);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/*
 * SCIF, node 1: writes into the read-only windows are EACCES (a remote fence
 * signal ENXIO); the writable window takes SEED + 2, seen through the read-only
 * window over the same pages. Stays connected until told to go.
 */
static int child_scif_split_peer(int sock, const char *arg)
{
	struct scif_portID dst = { .node = 0 };
	unsigned char *local;
	uint64_t port;
	scif_epd_t ep;
	off_t loff;
	char c;

	(void)arg;
	PROC_CHECK(proc_recv(sock, &port, WAIT_MS) == 0);
	dst.port = (uint16_t)port;
	PROC_CHECK((ep = scif_open()) >= 0);
	PROC_CHECK(scif_connect(ep, &dst) >= 0);
	PROC_CHECK(scif_recv(ep, &c, 1, SCIF_RECV_BLOCK) == 1);
	local = mmap(NULL, SEG_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	PROC_CHECK(local != MAP_FAILED);
	fixture_pattern(local, SEG_LEN, SEED + 2, 0);
	PROC_CHECK((loff = scif_register(ep, local, SEG_LEN, 0, SCIF_PROT_READ | SCIF_PROT_WRITE, 0)) >= 0);
	PROC_CHECK(scif_writeto(ep, loff, SEG_LEN, 0, SCIF_RMA_SYNC) == -1 && errno == EACCES);
	PROC_CHECK(scif_writeto(ep, loff, SEG_LEN, 2 * SEG_LEN, SCIF_RMA_SYNC) == -1 && errno == EACCES);
	PROC_CHECK(scif_fence_signal(ep, 0, 0, 0, 1, SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE) == -1 &&
		   errno == ENXIO);
	PROC_CHECK(scif_writeto(ep, loff, SEG_LEN, SEG_LEN, SCIF_RMA_SYNC) == 0);
	memset(local, 0, SEG_LEN);
	PROC_CHECK(scif_readfrom(ep, loff, SEG_LEN, 2 * SEG_LEN, SCIF_RMA_SYNC) == 0);
	PROC_CHECK(fixture_pattern_check(local, SEG_LEN, SEED + 2, 0) == FIXTURE_MATCH);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, WAIT_MS) == 0);
	scif_close(ep);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/*
 * Core, node 2: finds the owner's window segments among the ids the core hands
 * out (by their bytes, read through a read-only import) and asks for write access:
 * the read-only window's segment and the read-only one over the writable window's
 * pages refuse it (XRMA_EACCES), the writable window's segment grants it.
 */
static int child_core_prober(int sock, const char *arg)
{
	const uint64_t first = 0x40000000u;   /* the core's default XRMA_ID_ANY range */
	unsigned refused_ro = 0, refused_shared = 0, granted = 0;
	struct fixture_seg local;
	struct xrma_ctx *ctx;
	unsigned char *buf;

	PROC_CHECK(open_ctx(arg, 2, &ctx) == 0);
	PROC_CHECK(fixture_seg_make(ctx, SEG_LEN, XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE, false, 0,
				    &local) == 0);
	buf = local.addr;
	for (uint64_t id = first; id < first + 32; id++) {
		struct xrma_rseg *r, *w;
		size_t len;
		void *map;
		int rc;

		rc = xrma_rseg_open(ctx, 0, id, XRMA_ACCESS_REMOTE_READ, 0, WAIT_MS, &r);
		if (rc)
			continue;
		if (xrma_rseg_size(r, &len) || len != SEG_LEN ||
		    fixture_rma_sync(ctx, XRMA_RMA_READ, local.seg, 0, r, 0, SEG_LEN)) {
			xrma_rseg_close(r);
			continue;
		}
		/* A read-only import maps for loads only. */
		PROC_CHECK(xrma_rseg_map(r, 0, SEG_LEN, XRMA_MAP_READ | XRMA_MAP_WRITE, &map) == -XRMA_EACCES);
		rc = xrma_rseg_open(ctx, 0, id, XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE, 0, WAIT_MS,
				    &w);
		if (fixture_pattern_check(buf, SEG_LEN, SEED, 0) == FIXTURE_MATCH) {
			PROC_CHECK(rc == -XRMA_EACCES);
			refused_ro++;
		} else if (fixture_pattern_check(buf, SEG_LEN, SEED + 2, 0) == FIXTURE_MATCH) {
			PROC_CHECK(rc == 0 || rc == -XRMA_EACCES);
			if (rc)
				refused_shared++;
			else
				granted++;
		}
		if (!rc)
			PROC_CHECK(xrma_rseg_close(w) == 0);
		PROC_CHECK(xrma_rseg_close(r) == 0);
	}
	if (refused_ro != 1 || refused_shared != 1 || granted != 1)
		fprintf(stderr, "prober: refused %u + %u, granted %u\n", refused_ro, refused_shared, granted);
	PROC_CHECK(refused_ro == 1 && refused_shared == 1 && granted == 1);
	PROC_CHECK(fixture_seg_close(&local) == 0);
	PROC_CHECK(xrma_ctx_close(ctx) == 0);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/* PXImc, node 1: a running PXImc system, until told to go. */
static int child_pximc_owner(int sock, const char *arg)
{
	uint32_t ids[8], count = 0;

	(void)arg;
	/* The first call starts the system (its context on node 1). */
	PROC_CHECK(PXIMC_findInterfaces(8, ids, &count) == PXIMC_SUCCESS);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, WAIT_MS) == 0);
	PXIMC_cleanup();
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/*
 * PXImc as another user, node 2: node 1 (interface 2) is not reachable. With arg "same"
 * (the control: our own user) the same request succeeds.
 */
static int child_pximc_intruder(int sock, const char *arg)
{
	bool same = arg && !strcmp(arg, "same");
	tPXIMC_Status want = same ? PXIMC_SUCCESS : PXIMC_INVALID_INTERFACE, s;
	uint32_t session = 0;

	if (!same)
		PROC_CHECK(become_nobody() == 0);
	s = PXIMC_requestWindowLogicalAsServer(2, PX_PROTO, SEG_LEN, SEG_LEN, SEG_LEN, SEG_LEN, PX_UID,
					       NULL, 0, &session);
	if (s != want)
		fprintf(stderr, "pximc intruder: status 0x%x\n", (unsigned)s);
	PROC_CHECK(s == want);
	if (same)
		PROC_CHECK(PXIMC_closeWindow(session) == PXIMC_SUCCESS);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "sisci_owner", child_sisci_owner },
	{ "sisci_intruder", child_sisci_intruder },
	{ "sisci_readonly", child_sisci_readonly },
	{ "scif_owner", child_scif_owner },
	{ "scif_peer", child_scif_peer },
	{ "scif_split_owner", child_scif_split_owner },
	{ "scif_split_peer", child_scif_split_peer },
	{ "core_prober", child_core_prober },
	{ "pximc_owner", child_pximc_owner },
	{ "pximc_intruder", child_pximc_intruder },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ tests */

static void need_processes(void)
{
	if (!proc_provider_multiproc())
		skip();   /* the provider's nodes share one process: nothing to protect between them */
}

static void need_root(void)
{
	if (geteuid() != 0) {
		print_message("not root: cannot become another user; other-user tests skipped\n");
		skip();
	}
}

static void test_security_node_file_is_private_to_the_user(void **state)
{
	char fabric[XRMA_NAME_MAX], path[4096];
	struct xrma_ctx *ctx;
	struct stat st;

	(void)state;
	need_processes();
	fixture_fabric_name(fabric, sizeof(fabric), "sec-file");
	assert_rc(open_ctx(fabric, 1, &ctx), 0);
	snprintf(path, sizeof(path), "%s/xrma.%u.%s.1", runtime_dir(), (unsigned)geteuid(), fabric);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, geteuid());
	assert_rc(xrma_ctx_close(ctx), 0);
}

/* Every descriptor of ours whose link starts with prefix: its mode. Returns the count. */
static int fd_modes(const char *prefix, mode_t *modes, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) && n < max) {
		char link[300], target[256];
		struct stat st;
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (strncmp(target, prefix, strlen(prefix)) || fstat(atoi(e->d_name), &st))
			continue;
		modes[n++] = st.st_mode & 07777;
	}
	closedir(d);
	return n;
}

static void test_security_segment_memory_is_private_to_the_user(void **state)
{
	const struct xrma_seg_attr attr = { .len = SEG_LEN, .id = SEG_ID, .access = XRMA_ACCESS_ALL };
	char fabric[XRMA_NAME_MAX];
	struct xrma_ctx *ctx;
	struct xrma_seg *seg;
	mode_t modes[16];
	int n;

	(void)state;
	need_processes();
	fixture_fabric_name(fabric, sizeof(fabric), "sec-mem");
	assert_rc(open_ctx(fabric, 1, &ctx), 0);
	assert_rc(xrma_seg_open(ctx, &attr, &seg), 0);
	n = fd_modes("/memfd:xrma-", modes, 16);
	assert_true(n >= 1);
	for (int i = 0; i < n; i++)
		assert_int_equal(modes[i], 0600);
	assert_rc(xrma_seg_close(seg), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

static void test_security_sockets_are_abstract(void **state)
{
	char fabric[XRMA_NAME_MAX], name[160], line[512];
	struct xrma_ctx *ctx;
	FILE *f;
	int abstract = 0, named = 0;

	(void)state;
	need_processes();
	fixture_fabric_name(fabric, sizeof(fabric), "sec-sock");
	assert_rc(open_ctx(fabric, 1, &ctx), 0);
	snprintf(name, sizeof(name), "xrma.%u.%s.", (unsigned)geteuid(), fabric);
	f = fopen("/proc/net/unix", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *path = strstr(line, name);

		if (!path)
			continue;
		/* The path column: "@name" for an abstract socket, "/..." for a file. */
		if (path > line && path[-1] == '@')
			abstract++;
		else
			named++;
	}
	fclose(f);
	assert_true(abstract >= 1);
	assert_int_equal(named, 0);
	assert_rc(xrma_ctx_close(ctx), 0);
}

/* Start owner as owner_node, then intruder as intruder_node; both must finish cleanly. */
static void run_owner_and_intruder(const char *tag, const char *owner, uint32_t owner_node,
				   const char *intruder, uint32_t intruder_node, bool pass_port,
				   const char *owner_arg, const char *intruder_arg)
{
	char fabric[XRMA_NAME_MAX];
	struct proc po, pi;
	uint64_t v;

	fixture_fabric_name(fabric, sizeof(fabric), tag);
	assert_int_equal(proc_spawn(&po, fabric, owner_node, owner, owner_arg), 0);
	assert_int_equal(proc_recv(po.sock, &v, WAIT_MS), 0);
	assert_int_equal(proc_spawn(&pi, fabric, intruder_node, intruder, intruder_arg), 0);
	if (pass_port)
		assert_int_equal(proc_send(pi.sock, v), 0);
	assert_int_equal(proc_expect(pi.sock, MSG_DONE, WAIT_MS), 0);
	assert_int_equal(proc_join(&pi, WAIT_MS), 0);
	assert_int_equal(proc_send(po.sock, MSG_GO), 0);
	assert_int_equal(proc_expect(po.sock, MSG_DONE, WAIT_MS), 0);
	assert_int_equal(proc_join(&po, WAIT_MS), 0);
}

static void test_security_sisci_other_user_is_refused(void **state)
{
	(void)state;
	need_processes();
	need_root();
	run_owner_and_intruder("sec-sisci", "sisci_owner", 1, "sisci_intruder", 2, false, NULL, NULL);
}

static void test_security_scif_other_user_is_refused(void **state)
{
	(void)state;
	need_processes();
	need_root();
	run_owner_and_intruder("sec-scif", "scif_owner", 0, "scif_peer", 1, true, "refuse", "nobody");
}

static void test_security_pximc_same_user_reaches_the_interface(void **state)
{
	(void)state;
	need_processes();
	run_owner_and_intruder("sec-pximc-same", "pximc_owner", 1, "pximc_intruder", 2, false, NULL,
			       "same");
}

static void test_security_pximc_other_user_is_refused(void **state)
{
	(void)state;
	need_processes();
	need_root();
	run_owner_and_intruder("sec-pximc", "pximc_owner", 1, "pximc_intruder", 2, false, NULL, NULL);
}

/* The storer dies of SIGSEGV after it read the pattern; the owner then checks its bytes. */
static void run_readonly(const char *tag, const char *owner, uint32_t owner_node, const char *reader,
			 uint32_t reader_node, bool pass_port)
{
	char fabric[XRMA_NAME_MAX];
	struct proc po, pr;
	uint64_t v;

	fixture_fabric_name(fabric, sizeof(fabric), tag);
	assert_int_equal(proc_spawn(&po, fabric, owner_node, owner, NULL), 0);
	assert_int_equal(proc_recv(po.sock, &v, WAIT_MS), 0);
	assert_int_equal(proc_spawn(&pr, fabric, reader_node, reader, NULL), 0);
	if (pass_port)
		assert_int_equal(proc_send(pr.sock, v), 0);
	assert_int_equal(proc_expect(pr.sock, MSG_READY, WAIT_MS), 0);
	assert_int_equal(proc_join(&pr, WAIT_MS), 128 + SIGSEGV);
	assert_int_equal(proc_send(po.sock, MSG_GO), 0);
	assert_int_equal(proc_expect(po.sock, MSG_DONE, WAIT_MS), 0);
	assert_int_equal(proc_join(&po, WAIT_MS), 0);
}

static void test_security_sisci_readonly_map_faults_on_store(void **state)
{
	(void)state;
	need_processes();
	run_readonly("sec-sisci-ro", "sisci_owner", 1, "sisci_readonly", 2, false);
}

static void test_security_scif_readonly_window_stays_readonly(void **state)
{
	(void)state;
	need_processes();
	run_readonly("sec-scif-ro", "scif_owner", 0, "scif_peer", 1, true);
}

static void test_security_scif_readonly_window_refuses_core_writers(void **state)
{
	char fabric[XRMA_NAME_MAX];
	struct proc po, pp, pc;
	uint64_t port;

	(void)state;
	need_processes();
	fixture_fabric_name(fabric, sizeof(fabric), "sec-scif-core");
	assert_int_equal(proc_spawn(&po, fabric, 0, "scif_split_owner", NULL), 0);
	assert_int_equal(proc_recv(po.sock, &port, WAIT_MS), 0);
	assert_int_equal(proc_spawn(&pp, fabric, 1, "scif_split_peer", NULL), 0);
	assert_int_equal(proc_send(pp.sock, port), 0);
	assert_int_equal(proc_expect(pp.sock, MSG_READY, WAIT_MS), 0);
	assert_int_equal(proc_spawn(&pc, fabric, 2, "core_prober", fabric), 0);
	assert_int_equal(proc_expect(pc.sock, MSG_DONE, WAIT_MS), 0);
	assert_int_equal(proc_join(&pc, WAIT_MS), 0);
	assert_int_equal(proc_send(po.sock, MSG_GO), 0);
	assert_int_equal(proc_expect(po.sock, MSG_DONE, WAIT_MS), 0);
	assert_int_equal(proc_join(&po, WAIT_MS), 0);
	assert_int_equal(proc_send(pp.sock, MSG_GO), 0);
	assert_int_equal(proc_expect(pp.sock, MSG_DONE, WAIT_MS), 0);
	assert_int_equal(proc_join(&pp, WAIT_MS), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_security_node_file_is_private_to_the_user, proc_teardown),
		cmocka_unit_test_teardown(test_security_segment_memory_is_private_to_the_user, proc_teardown),
		cmocka_unit_test_teardown(test_security_sockets_are_abstract, proc_teardown),
		cmocka_unit_test_teardown(test_security_sisci_other_user_is_refused, proc_teardown),
		cmocka_unit_test_teardown(test_security_scif_other_user_is_refused, proc_teardown),
		cmocka_unit_test_teardown(test_security_pximc_same_user_reaches_the_interface, proc_teardown),
		cmocka_unit_test_teardown(test_security_pximc_other_user_is_refused, proc_teardown),
		cmocka_unit_test_teardown(test_security_sisci_readonly_map_faults_on_store, proc_teardown),
		cmocka_unit_test_teardown(test_security_scif_readonly_window_stays_readonly, proc_teardown),
		cmocka_unit_test_teardown(test_security_scif_readonly_window_refuses_core_writers, proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	return cmocka_run_group_tests_name("security", tests, NULL, NULL);
}
