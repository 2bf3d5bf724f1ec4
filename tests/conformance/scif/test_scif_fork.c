/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_fork.c: fork() in a SCIF program (§3.5.1).
 * A child forked while other threads of the parent work in the library starts
 * SCIF of its own without hanging on a lock copied held; registered windows the
 * program marked MADV_DONTFORK after scif_register are absent from the child,
 * as under MPSS; the parent's endpoints and windows go on.
 */
#include "tests/conformance/scif/scif_test.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#define FORK_TIMEOUT_MS 20000
#define FORKS 16
#define RW (SCIF_PROT_READ | SCIF_PROT_WRITE)

/*
 * Reap pid within timeout_ms: its exit code, 128 + signal, or -1 when it hung
 * (it is then killed, so a hang fails the test instead of stalling it).
 */
static int child_wait(pid_t pid, int timeout_ms)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), status = 0;
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	assert_true(pidfd >= 0);
	if (poll(&pfd, 1, timeout_ms) != 1)
		kill(pid, SIGKILL);
	close(pidfd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (pfd.revents == 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct busy {
	struct scif_test_pair *pair;
	bool stop;   /* atomic */
	long rounds; /* atomic */
};

/* Keeps the library's locks busy: a byte to and fro, polls, opens and closes. */
static void *busy_main(void *arg)
{
	struct busy *b = arg;
	char c = 'b';

	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) {
		struct scif_pollepd pe = { .epd = b->pair->server, .events = SCIF_POLLIN };
		scif_epd_t epd = scif_open();

		if (epd >= 0)
			scif_close(epd);
		if (scif_send(b->pair->client, &c, 1, SCIF_SEND_BLOCK) == 1 &&
		    scif_poll(&pe, 1, FORK_TIMEOUT_MS) == 1)
			scif_recv(b->pair->server, &c, 1, SCIF_RECV_BLOCK);
		__atomic_add_fetch(&b->rounds, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_scif_fork_while_threads_work_child_opens_its_own(void **state)
{
	struct scif_test_pair p;
	struct busy b = { .pair = &p };
	pthread_t thread;
	char c = 'f';

	(void)state;
#if defined(__SANITIZE_THREAD__)
	/* ThreadSanitizer cannot start threads in the child of a threaded process. */
	skip();
#endif
	scif_test_pair_open(&p);
	assert_int_equal(pthread_create(&thread, NULL, busy_main, &b), 0);
	for (int i = 0; i < FORKS; i++) {
		long seen = __atomic_load_n(&b.rounds, __ATOMIC_ACQUIRE);
		pid_t pid;

		/* Fork while the other thread is inside the library, not between runs. */
		while (__atomic_load_n(&b.rounds, __ATOMIC_ACQUIRE) == seen)
			sched_yield();
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			scif_epd_t epd = scif_open();
			uint16_t self;

			/* Where a node is one process (ofi, pximc), the parent holds the node. */
			if (epd < 0)
				_exit(errno == EADDRINUSE ? 0 : 1);
			_exit(scif_get_nodeIDs(NULL, 0, &self) >= 1 && scif_close(epd) == 0 ? 0 : 2);
		}
		assert_int_equal(child_wait(pid, FORK_TIMEOUT_MS), 0);
	}
	__atomic_store_n(&b.stop, true, __ATOMIC_RELEASE);
	assert_int_equal(fixture_join(thread, FORK_TIMEOUT_MS, NULL), 0);
	/* The parent's endpoints are untouched. */
	assert_int_equal(scif_send(p.client, &c, 1, SCIF_SEND_BLOCK), 1);
	c = 0;
	assert_int_equal(scif_recv(p.server, &c, 1, SCIF_RECV_BLOCK), 1);
	assert_int_equal(c, 'f');
	scif_test_pair_close(&p);
}

/* mincore(2) fails with ENOMEM on a range that is not mapped. */
static bool range_mapped(void *addr, size_t len)
{
	unsigned char vec[8];

	return mincore(addr, len, vec) == 0;
}

/*
 * The program marks the first of two registered pages MADV_DONTFORK after
 * registering them (the guide's order): the child lacks that page only.
 */
static void test_scif_fork_dontfork_marked_after_register_stays_out_of_child(void **state)
{
	struct scif_test_pair p;
	char *mem = scif_test_pages(2);
	pid_t pid;

	(void)state;
	scif_test_pair_open(&p);
	memset(mem, 0x5a, 2 * SCIF_TEST_PAGE);
	assert_int_equal(scif_register(p.client, mem, 2 * SCIF_TEST_PAGE, 0, RW, SCIF_MAP_FIXED), 0);
	assert_int_equal(madvise(mem, SCIF_TEST_PAGE, MADV_DONTFORK), 0);
	/* The window still holds what the program wrote. */
	assert_int_equal((unsigned char)mem[0], 0x5a);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The marked page is gone; its unmarked neighbour is the child's copy. */
		bool ok = !range_mapped(mem, SCIF_TEST_PAGE) &&
			  range_mapped(mem + SCIF_TEST_PAGE, SCIF_TEST_PAGE) &&
			  (unsigned char)mem[SCIF_TEST_PAGE] == 0x5a;

		_exit(ok ? 0 : 1);
	}
	assert_int_equal(child_wait(pid, FORK_TIMEOUT_MS), 0);
	/* The parent keeps both pages and the window. */
	assert_true(range_mapped(mem, 2 * SCIF_TEST_PAGE));
	assert_int_equal((unsigned char)mem[0], 0x5a);
	assert_scif_ok(scif_unregister(p.client, 0, 2 * SCIF_TEST_PAGE));
	scif_test_pair_close(&p);
	scif_test_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scif_fork_while_threads_work_child_opens_its_own),
		cmocka_unit_test(test_scif_fork_dontfork_marked_after_register_stays_out_of_child),
	};

	scif_test_env("scif-fork");
	return cmocka_run_group_tests_name("scif_fork", tests, NULL, NULL);
}
