/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/test_faults_limits.c: the default provider at the machine's limits,
 * through real processes: a full runtime directory (a small tmpfs mounted in a
 * private mount namespace, root only) fails cleanly with XRMA_ENOSPC and recovers;
 * truncated or overwritten node files are swept, not fatal; a SCIF connector out of
 * descriptors never makes the listener's scif_accept fail; a node whose runtime file
 * is removed under it (RemoveIPC, tmp cleaners) is never started a second time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"
#include <scif.h>

#define WAIT_MS 20000
#define TMPFS_SIZE "4m"
#define SEG_LEN 4096u

enum { MSG_READY = 1, MSG_SKIP, MSG_GO, MSG_DONE };
#define RUNNING_SEG_ID 4001
#define RUNNING_SEG_ID2 4002

static int open_ctx(const char *fabric, uint32_t node, struct xrma_ctx **ctx)
{
	const struct xrma_ctx_attr attr = { .fabric = fabric, .node_id = node };

	return xrma_ctx_open(&attr, ctx);
}

/* A segment of this node, exported: the step that touched unbacked pages. */
static int make_exported_segment(struct xrma_ctx *ctx)
{
	const struct xrma_seg_attr attr = { .len = SEG_LEN, .id = XRMA_ID_ANY,
					    .access = XRMA_ACCESS_LOCAL_READ | XRMA_ACCESS_LOCAL_WRITE |
						      XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE };
	struct xrma_seg *seg;
	int ret = xrma_seg_open(ctx, &attr, &seg);

	if (ret)
		return ret;
	ret = xrma_seg_export(seg, 0);
	xrma_seg_close(seg);
	return ret;
}

/*
 * A private mount namespace with a small tmpfs as the runtime directory, so the
 * machine's /dev/shm is never filled. Writes the directory to dir; false if this
 * process may not mount (not root, or no namespaces here).
 */
static bool private_runtime_dir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/xrma-limits-XXXXXX");
	if (!mkdtemp(dir))
		return false;
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("xrma-limits", dir, "tmpfs", 0, "size=" TMPFS_SIZE ",mode=0700") != 0) {
		rmdir(dir);
		return false;
	}
	setenv("XRMA_HOST_RUNTIME_DIR", dir, 1);
	return true;
}

static void drop_runtime_dir(const char *dir)
{
	umount(dir);
	rmdir(dir);
}

/* Take all of dir's free space but keep bytes; the file's descriptor. */
static int fill_but(const char *dir, off_t keep)
{
	char path[4200];
	struct statvfs vfs;
	off_t len;
	int fd;

	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || statvfs(dir, &vfs) != 0)
		return -1;
	len = (off_t)vfs.f_bavail * (off_t)vfs.f_frsize - keep;
	if (len <= 0 || posix_fallocate(fd, 0, len) != 0)
		return -1;
	return fd;
}

/* Role: node 1 in a nearly full, then full, then emptied runtime directory. */
static int child_full_dir(int sock, const char *arg)
{
	char dir[64], path[4200];
	struct xrma_ctx *ctx;
	int filler;

	if (!private_runtime_dir(dir, sizeof(dir))) {
		PROC_CHECK(proc_send(sock, MSG_SKIP) == 0);
		return 0;
	}
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	/* A few pages left: enough for a sparse file's first touches, not for a node file. */
	filler = fill_but(dir, 4 * 4096);
	PROC_CHECK(filler >= 0);
	xrma_error_detail_clear();
	PROC_CHECK_RC(open_ctx(arg, 1, &ctx), XRMA_ENOSPC);
	PROC_CHECK(strstr(xrma_error_detail(), dir) != NULL);
	/* Nothing left at all. */
	PROC_CHECK(ftruncate(filler, 0) == 0);
	close(filler);
	filler = fill_but(dir, 0);
	PROC_CHECK(filler >= 0);
	PROC_CHECK_RC(open_ctx(arg, 1, &ctx), XRMA_ENOSPC);
	/* Space returns: the node works, without anything to clean by hand. */
	close(filler);
	snprintf(path, sizeof(path), "%s/filler", dir);
	PROC_CHECK(unlink(path) == 0);
	PROC_CHECK_RC(open_ctx(arg, 1, &ctx), 0);
	PROC_CHECK_RC(make_exported_segment(ctx), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	drop_runtime_dir(dir);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/* Role: nodes 1 and 2 find a truncated and an overwritten file under their names. */
static int child_broken_files(int sock, const char *arg)
{
	static const char garbage[4096] = "not a node file";
	char dir[64], small[4200], junk[4200];
	struct xrma_ctx *ctx;
	struct stat st;
	int fd;

	if (!private_runtime_dir(dir, sizeof(dir))) {
		PROC_CHECK(proc_send(sock, MSG_SKIP) == 0);
		return 0;
	}
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	/* The names a node's file takes: learn the size of a whole one on the way. */
	snprintf(small, sizeof(small), "%s/xrma.%u.%s.1", dir, (unsigned)geteuid(), arg);
	snprintf(junk, sizeof(junk), "%s/xrma.%u.%s.2", dir, (unsigned)geteuid(), arg);
	PROC_CHECK_RC(open_ctx(arg, 1, &ctx), 0);
	PROC_CHECK(stat(small, &st) == 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	PROC_CHECK(access(small, F_OK) != 0);

	fd = open(small, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	PROC_CHECK(fd >= 0);
	PROC_CHECK(write(fd, garbage, 100) == 100);
	close(fd);
	fd = open(junk, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	PROC_CHECK(fd >= 0);
	PROC_CHECK(ftruncate(fd, st.st_size) == 0);
	PROC_CHECK(write(fd, garbage, sizeof(garbage)) == (ssize_t)sizeof(garbage));
	close(fd);

	/* Each node opens over its broken file, and works. */
	PROC_CHECK_RC(open_ctx(arg, 1, &ctx), 0);
	PROC_CHECK_RC(make_exported_segment(ctx), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	PROC_CHECK_RC(open_ctx(arg, 2, &ctx), 0);
	PROC_CHECK_RC(make_exported_segment(ctx), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);

	/* A broken file of a node nobody runs goes at the next node's start. */
	fd = open(junk, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	PROC_CHECK(fd >= 0);
	PROC_CHECK(write(fd, garbage, 100) == 100);
	close(fd);
	PROC_CHECK_RC(open_ctx(arg, 1, &ctx), 0);
	PROC_CHECK(access(junk, F_OK) != 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	drop_runtime_dir(dir);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/* Role: a SCIF listener that must accept every connector able to finish. */
static int child_listener(int sock, const char *arg)
{
	scif_epd_t l, ep;
	struct scif_portID peer;
	char tag;
	int port;

	(void)arg;
	PROC_CHECK((l = scif_open()) >= 0);
	PROC_CHECK((port = scif_bind(l, 0)) > 0);
	PROC_CHECK(scif_listen(l, 16) == 0);
	PROC_CHECK(proc_send(sock, (uint64_t)port) == 0);
	for (;;) {
		int ret = scif_accept(l, &peer, &ep, SCIF_ACCEPT_SYNC);

		/* A requester that died mid-way is a reset; nothing else may fail the listener. */
		if (ret != 0 && errno == ECONNRESET)
			continue;
		if (ret != 0)
			fprintf(stderr, "scif_accept: %s\n", strerror(errno));
		PROC_CHECK(ret == 0);
		/* Connectors that got this far and died leave a reset; the healthy one says 'H'. */
		if (scif_recv(ep, &tag, 1, SCIF_RECV_BLOCK) == 1 && tag == 'H')
			break;
		scif_close(ep);
	}
	PROC_CHECK(scif_send(ep, "A", 1, SCIF_SEND_BLOCK) == 1);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, WAIT_MS) == 0);
	scif_close(ep);
	scif_close(l);
	return 0;
}

/* How many descriptors this process has open. */
static int open_descriptors(void)
{
	int count = 0;

	for (int fd = 0; fd < 4096; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			count++;
	return count;
}

/* Role: connect to node 0 with arg descriptors to spare after scif_open, then exit. */
static int child_starved_connector(int sock, const char *arg)
{
	struct scif_portID to = { .node = 0 };
	uint64_t port;
	scif_epd_t ep;
	struct rlimit rl;

	PROC_CHECK(proc_recv(sock, &port, WAIT_MS) == 0);
	to.port = (uint16_t)port;
	PROC_CHECK((ep = scif_open()) >= 0);
	rl.rlim_cur = rl.rlim_max = (rlim_t)(open_descriptors() + atoi(arg));
	PROC_CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	/* Whatever the connect gives, the process leaves at once, as a failed program would. */
	(void)scif_connect(ep, &to);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/* Role: an ordinary connector. */
static int child_connector(int sock, const char *arg)
{
	struct scif_portID to = { .node = 0 };
	uint64_t port;
	scif_epd_t ep;
	char tag;

	(void)arg;
	PROC_CHECK(proc_recv(sock, &port, WAIT_MS) == 0);
	to.port = (uint16_t)port;
	PROC_CHECK((ep = scif_open()) >= 0);
	PROC_CHECK(scif_connect(ep, &to) >= 0);
	PROC_CHECK(scif_send(ep, "H", 1, SCIF_SEND_BLOCK) == 1);
	PROC_CHECK(scif_recv(ep, &tag, 1, SCIF_RECV_BLOCK) == 1 && tag == 'A');
	scif_close(ep);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

/*
 * Role: node 1, running while its runtime file is removed. Exports a segment,
 * then, once told the file is gone, must be refused a new name (XRMA_EIO,
 * saying why) while what it has keeps working.
 */
static int child_running_node(int sock, const char *arg)
{
	const struct xrma_seg_attr attr = { .len = SEG_LEN, .id = RUNNING_SEG_ID,
					    .access = XRMA_ACCESS_ALL };
	struct xrma_seg_attr attr2 = attr;
	struct xrma_ctx *ctx;
	struct xrma_seg *seg, *seg2;

	PROC_CHECK_RC(open_ctx(arg, 1, &ctx), 0);
	PROC_CHECK_RC(xrma_seg_open(ctx, &attr, &seg), 0);
	PROC_CHECK_RC(xrma_seg_export(seg, 0), 0);
	PROC_CHECK(proc_send(sock, MSG_READY) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, WAIT_MS) == 0);
	attr2.id = RUNNING_SEG_ID2;
	xrma_error_detail_clear();
	PROC_CHECK_RC(xrma_seg_open(ctx, &attr2, &seg2), XRMA_EIO);
	PROC_CHECK(strstr(xrma_error_detail(), "removed") != NULL);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	PROC_CHECK(proc_expect(sock, MSG_GO, WAIT_MS) == 0);
	PROC_CHECK_RC(xrma_seg_close(seg), 0);
	PROC_CHECK_RC(xrma_ctx_close(ctx), 0);
	return 0;
}

/* Role: a second process for node 1 after its file went: refused while node 1 runs. */
static int child_second_copy(int sock, const char *arg)
{
	struct xrma_ctx *ctx;

	xrma_error_detail_clear();
	PROC_CHECK_RC(open_ctx(arg, 1, &ctx), XRMA_EADDRINUSE);
	PROC_CHECK(strstr(xrma_error_detail(), "node 1") != NULL);
	PROC_CHECK(proc_send(sock, MSG_DONE) == 0);
	return 0;
}

static const struct proc_role roles[] = {
	{ "running_node", child_running_node },
	{ "second_copy", child_second_copy },
	{ "full_dir", child_full_dir },
	{ "broken_files", child_broken_files },
	{ "listener", child_listener },
	{ "starved_connector", child_starved_connector },
	{ "connector", child_connector },
	{ 0 },
};

/* ------------------------------------------------------------------ tests */

static void need_processes(void)
{
	if (!proc_provider_multiproc())
		skip();   /* the provider's nodes share one process and file nothing */
}

/* Run a runtime-directory role to its end; skip where no tmpfs can be mounted. */
static void run_dir_role(const char *role, const char *tag)
{
	char fabric[XRMA_NAME_MAX];
	struct proc p;
	uint64_t first;

	need_processes();
	fixture_fabric_name(fabric, sizeof(fabric), tag);
	assert_int_equal(proc_spawn(&p, fabric, 1, role, fabric), 0);
	assert_int_equal(proc_recv(p.sock, &first, WAIT_MS), 0);
	if (first == MSG_SKIP) {
		assert_int_equal(proc_join(&p, WAIT_MS), 0);
		skip();   /* not root, or no mount namespaces: no private tmpfs */
	}
	assert_int_equal(first, MSG_READY);
	/* A SIGBUS would end the child here with 128 + SIGBUS. */
	assert_int_equal(proc_expect(p.sock, MSG_DONE, WAIT_MS), 0);
	assert_int_equal(proc_join(&p, WAIT_MS), 0);
}

static void test_limits_full_runtime_dir_gives_enospc_then_recovers(void **state)
{
	(void)state;
	run_dir_role("full_dir", "lim-full");
}

static void test_limits_broken_node_files_are_swept(void **state)
{
	(void)state;
	run_dir_role("broken_files", "lim-broken");
}

static void test_limits_scif_accept_survives_starved_connectors(void **state)
{
	char fabric[XRMA_NAME_MAX], spare[16];
	struct proc listener, c;
	uint64_t port;

	(void)state;
	need_processes();
	fixture_fabric_name(fabric, sizeof(fabric), "lim-accept");
	assert_int_equal(proc_spawn(&listener, fabric, 0, "listener", NULL), 0);
	assert_int_equal(proc_recv(listener.sock, &port, WAIT_MS), 0);
	/* The descriptor limit falls at each step of connect and handshake in turn. */
	for (int n = 0; n < 12; n++) {
		snprintf(spare, sizeof(spare), "%d", n);
		assert_int_equal(proc_spawn(&c, fabric, 1, "starved_connector", spare), 0);
		assert_int_equal(proc_send(c.sock, port), 0);
		assert_int_equal(proc_join(&c, WAIT_MS), 0);
	}
	assert_int_equal(proc_spawn(&c, fabric, 1, "connector", NULL), 0);
	assert_int_equal(proc_send(c.sock, port), 0);
	assert_int_equal(proc_expect(listener.sock, MSG_DONE, WAIT_MS), 0);
	assert_int_equal(proc_expect(c.sock, MSG_DONE, WAIT_MS), 0);
	assert_int_equal(proc_join(&c, WAIT_MS), 0);
	assert_int_equal(proc_send(listener.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&listener, WAIT_MS), 0);
}

static void test_limits_node_file_removed_under_a_running_node(void **state)
{
	char fabric[XRMA_NAME_MAX], path[PATH_MAX];
	const char *dir = getenv("XRMA_HOST_RUNTIME_DIR");
	struct fixture_seg local;
	struct proc node1, second;
	struct xrma_rseg *r;
	struct xrma_ctx *ctx;

	(void)state;
	need_processes();
	fixture_fabric_name(fabric, sizeof(fabric), "lim-removed");
	snprintf(path, sizeof(path), "%s/xrma.%u.%s.1", dir && *dir ? dir : "/dev/shm",
		 (unsigned)geteuid(), fabric);
	assert_int_equal(proc_spawn(&node1, fabric, 1, "running_node", fabric), 0);
	assert_int_equal(proc_expect(node1.sock, MSG_READY, WAIT_MS), 0);
	assert_rc(open_ctx(fabric, 2, &ctx), 0);
	assert_rc(fixture_seg_make(ctx, SEG_LEN, XRMA_ACCESS_ALL, false, 3, &local), 0);
	assert_rc(xrma_rseg_open(ctx, 1, RUNNING_SEG_ID,
				 XRMA_ACCESS_REMOTE_READ | XRMA_ACCESS_REMOTE_WRITE, 0, WAIT_MS, &r), 0);

	/* What RemoveIPC or a tmp cleaner does. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(proc_spawn(&second, fabric, 1, "second_copy", fabric), 0);
	assert_int_equal(proc_expect(second.sock, MSG_DONE, WAIT_MS), 0);
	assert_int_equal(proc_join(&second, WAIT_MS), 0);
	assert_int_equal(access(path, F_OK), -1);   /* no second copy of node 1's names */
	assert_int_equal(proc_send(node1.sock, MSG_GO), 0);
	assert_int_equal(proc_expect(node1.sock, MSG_DONE, WAIT_MS), 0);

	/* What node 1 already had keeps working. */
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_WRITE, local.seg, 0, r, 0, SEG_LEN), 0);
	assert_rc(fixture_rma_sync(ctx, XRMA_RMA_READ, local.seg, 0, r, 0, SEG_LEN), 0);
	assert_true(fixture_pattern_check(local.addr, SEG_LEN, 3, 0) == FIXTURE_MATCH);
	assert_rc(xrma_rseg_close(r), 0);
	assert_rc(fixture_seg_close(&local), 0);
	assert_rc(xrma_ctx_close(ctx), 0);
	assert_int_equal(proc_send(node1.sock, MSG_GO), 0);
	assert_int_equal(proc_join(&node1, WAIT_MS), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_limits_full_runtime_dir_gives_enospc_then_recovers,
					  proc_teardown),
		cmocka_unit_test_teardown(test_limits_broken_node_files_are_swept, proc_teardown),
		cmocka_unit_test_teardown(test_limits_scif_accept_survives_starved_connectors,
					  proc_teardown),
		cmocka_unit_test_teardown(test_limits_node_file_removed_under_a_running_node,
					  proc_teardown),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	return cmocka_run_group_tests_name("faults_limits", tests, NULL, NULL);
}
