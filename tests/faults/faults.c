/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/faults/faults.c: victims armed with a kill point, step acknowledgements over the
 * proc link, descriptor and mapping counts, the host leftover check and the cmocka driver
 * of a campaign table (faults.h).
 */
#include "tests/faults/faults.h"

#include <dirent.h>
#include <stdbool.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <xrma/xrma.h>
#include "tests/helpers/fixture.h"

const char *faults_child_arm(const char *arg)
{
	static char point[128];
	const char *bar;
	size_t n;

	if (!arg)
		return "";
	bar = strchr(arg, '|');
	n = bar ? (size_t)(bar - arg) : strlen(arg);
	if (n && n < sizeof(point)) {
		memcpy(point, arg, n);
		point[n] = '\0';
		setenv("XRMA_TEST_KILL_POINT", point, 1);
	}
	return bar ? bar + 1 : "";
}

int faults_spawn(struct proc *p, const char *fabric, uint32_t node, const char *role,
		 const char *point, const char *rest)
{
	char arg[256];

	snprintf(arg, sizeof(arg), "%s|%s", point ? point : "", rest ? rest : "");
	return proc_spawn(p, fabric, node, role, arg);
}

int faults_step_done(int sock, unsigned step)
{
	return proc_send(sock, step);
}

int faults_step_wait(int sock, unsigned step)
{
	return proc_expect(sock, step, FAULTS_WAIT_MS);
}

bool faults_dead(const struct proc *p)
{
	struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/*
 * Node directories (providers/util/hostfab_dir.c) are mapped once per peer node reached
 * and kept while the node lives, so a survivor holds one more descriptor and mapping for
 * each peer node it has talked to. Those are not counted; a second one for the same node
 * (a directory of a restarted node kept after its node went away) is.
 */
struct dir_seen {
	size_t count;
	char name[64][128];
};

/* Whether text names a node directory counted once already (it is remembered). */
static bool directory_seen_before(struct dir_seen *seen, const char *text)
{
	const char *p = strstr(text, "/dev/shm/xrma.");
	size_t len;

	if (!p)
		return false;
	len = strcspn(p, " \n");
	if (len >= sizeof(seen->name[0]))
		len = sizeof(seen->name[0]) - 1;
	for (size_t i = 0; i < seen->count; i++)
		if (strlen(seen->name[i]) == len && !strncmp(seen->name[i], p, len))
			return true;
	if (seen->count < 64) {
		memcpy(seen->name[seen->count], p, len);
		seen->name[seen->count++][len] = '\0';
	}
	return false;
}

/* Whether text is counted: not a node directory, or a second one of the same node. */
static bool counted(struct dir_seen *seen, const char *text)
{
	return !strstr(text, "/dev/shm/xrma.") || directory_seen_before(seen, text);
}

size_t faults_fd_count(void)
{
	char path[300], target[256];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	struct dir_seen seen = { 0 };
	size_t n = 0;

	if (!d)
		return SIZE_MAX;
	while ((de = readdir(d))) {
		ssize_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		target[len > 0 ? len : 0] = '\0';
		n += counted(&seen, target);
	}
	closedir(d);
	/* The descriptor opendir held is not one of ours. */
	return n ? n - 1 : 0;
}

void faults_fd_dump(const char *why)
{
	char path[300], target[256];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");

	fprintf(stderr, "%s: open descriptors of pid %ld\n", why, (long)getpid());
	while (d && (de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "  %s -> %s\n", de->d_name, target);
	}
	if (d)
		closedir(d);
}

/* Whether a /proc/self/maps line names a file (anonymous memory is malloc's business). */
static bool file_mapping(const char *line)
{
	const char *p = line;

	/* address perms offset dev inode [path] */
	for (int field = 0; field < 5 && p; field++) {
		p = strchr(p, ' ');
		while (p && *p == ' ')
			p++;
	}
	return p && *p == '/';
}

static uintptr_t ignored_start, ignored_end;

void faults_map_ignore(const void *addr, size_t len)
{
	ignored_start = (uintptr_t)addr;
	ignored_end = (uintptr_t)addr + len;
}

/* Whether the line's range lies inside the range faults_map_ignore named. */
static bool ignored_mapping(const char *line)
{
	unsigned long start = 0, end = 0;

	return sscanf(line, "%lx-%lx", &start, &end) == 2 && start >= ignored_start &&
	       end <= ignored_end;
}

size_t faults_map_count(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	struct dir_seen seen = { 0 };
	char line[512];
	size_t n = 0;

	if (!f)
		return SIZE_MAX;
	while (fgets(line, sizeof(line), f))
		n += file_mapping(line) && counted(&seen, line) && !ignored_mapping(line);
	fclose(f);
	return n;
}

void faults_map_dump(const char *why)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	fprintf(stderr, "%s: mappings of pid %ld\n", why, (long)getpid());
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "  %s", line);
	if (f)
		fclose(f);
}

int faults_counts_back(size_t fds, size_t maps)
{
	uint64_t end = fixture_now_ms() + FAULTS_WAIT_MS;

	/*
	 * Service threads close a dead peer's descriptors asynchronously: wait for them. A
	 * count may end below the baseline when the baseline caught a descriptor of an earlier
	 * exchange still closing; a leak shows as a count that stays above it.
	 */
	while (faults_fd_count() > fds || faults_map_count() > maps) {
		if (fixture_now_ms() > end) {
			fprintf(stderr, "descriptors %zu (were %zu), file mappings %zu (were %zu)\n",
				faults_fd_count(), fds, faults_map_count(), maps);
			faults_fd_dump("now");
			faults_map_dump("now");
			return ETIMEDOUT;
		}
		sched_yield();
	}
	return 0;
}

size_t faults_leftovers(const char *fabric)
{
	char prefix[160], line[512];
	size_t n = 0, plen;
	struct dirent *de;
	DIR *d;
	FILE *f;

	/* hostfab names files xrma.<uid>.<fabric>.<node> and sockets @xrma.<uid>.<fabric>.<node>.<ep>. */
	plen = (size_t)snprintf(prefix, sizeof(prefix), "xrma.%u.%s.", (unsigned)getuid(), fabric);
	d = opendir("/dev/shm");
	while (d && (de = readdir(d))) {
		if (!strncmp(de->d_name, prefix, plen)) {
			fprintf(stderr, "leftover file /dev/shm/%s\n", de->d_name);
			n++;
		}
	}
	if (d)
		closedir(d);
	f = fopen("/proc/net/unix", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *at = strstr(line, " @");

		if (at && !strncmp(at + 2, prefix, plen)) {
			fprintf(stderr, "leftover socket %s", at + 1);
			n++;
		}
	}
	if (f)
		fclose(f);
	return n;
}

int faults_sweep(const char *fabric)
{
	char name[96];
	struct xrma_ctx_attr attr = { .fabric = name, .node_id = 1 };
	struct xrma_ctx *ctx;
	int ret;

	snprintf(name, sizeof(name), "%s-sweep", fabric);
	ret = xrma_ctx_open(&attr, &ctx);
	return ret ? ret : xrma_ctx_close(ctx);
}

void faults_fabric(char *buf, size_t len, const char *tag, size_t index)
{
	snprintf(buf, len, "t-%s-%ld-%zu", tag, (long)getpid(), index);
}

const struct faults_case *faults_case_of(const char *arg, const struct faults_case *cases, size_t count)
{
	size_t i = arg ? strtoul(arg, NULL, 10) : count;

	return i < count ? &cases[i] : NULL;
}

/* ------------------------------------------------------------------ cmocka driver */

struct faults_run_state {
	const char *tag;
	const struct faults_case *cases;
	uint32_t survivor_node;
};

static struct faults_run_state run_state;

static void faults_case_test(void **state)
{
	size_t index = (size_t)(uintptr_t)*state;
	char fabric[64], arg[32];
	struct proc survivor;

	faults_fabric(fabric, sizeof(fabric), run_state.tag, index);
	snprintf(arg, sizeof(arg), "%zu", index);
	assert_int_equal(proc_spawn(&survivor, fabric, run_state.survivor_node, "survivor", arg), 0);
	/* Everything of the case happens in the survivor; it reports failures by exit code. */
	assert_int_equal(proc_join(&survivor, 4 * FAULTS_WAIT_MS), 0);
	/*
	 * Processes that exit without closing (SCIF never closes its context) or die leave
	 * their node files to the next context open on the host, which sweeps dead nodes'
	 * files (docs/host-fabric.md): after one, nothing of the fabric may remain.
	 */
	assert_int_equal(faults_sweep(fabric), 0);
	assert_int_equal(faults_leftovers(fabric), 0);
}

int faults_run(const char *group, const char *tag, const struct faults_case *cases, size_t count,
	       uint32_t survivor_node)
{
	struct CMUnitTest *tests = calloc(count, sizeof(*tests));
	int rc;

	if (!tests)
		return 1;
	run_state = (struct faults_run_state){ tag, cases, survivor_node };
	for (size_t i = 0; i < count; i++) {
		tests[i].name = cases[i].point;
		tests[i].test_func = faults_case_test;
		tests[i].initial_state = (void *)(uintptr_t)i;
	}
	/* One point only, while working on it: XRMA_TEST_FAULTS_FILTER=scif.close.* */
	if (getenv("XRMA_TEST_FAULTS_FILTER"))
		cmocka_set_test_filter(getenv("XRMA_TEST_FAULTS_FILTER"));
	rc = _cmocka_run_group_tests(group, tests, count, NULL, NULL);
	free(tests);
	return rc;
}

int faults_main(int argc, char **argv, const struct proc_role *roles, bool need_map,
		const char *group, const char *tag, const struct faults_case *cases, size_t count,
		uint32_t survivor_node)
{
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	if (!proc_provider_multiproc() || (need_map && !(proc_provider_caps() & XRMA_CAP_MAP)))
		return 77;
	return faults_run(group, tag, cases, count, survivor_node);
}
