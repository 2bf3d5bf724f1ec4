/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/scif/test_scif_mmap_any.c: scif_mmap of windows over any
 * memory a program registers (issue 34 items 2 and 9). This program is the
 * owner, node 0; a card (node 1, a real process: proc.h) maps each window,
 * checks the owner's bytes and stores new ones, which the owner must see at
 * its own addresses. Kinds: brk-heap blocks (malloc and free still work
 * after), .data, .bss and stack arrays, MAP_SHARED files and shm_open memory
 * (the bytes reach the file), private and shared anonymous memory, huge
 * pages where the kernel has them; a fork after registration (the child's
 * copy stays private, MADV_DONTFORK ranges stay out of it, forks from frames
 * over a window on the stack); a 1 GiB window
 * mapped at its last page and reached by RMA near its end.
 * Skipped where nodes share one process or the provider cannot map.
 */
#include "tests/conformance/scif/scif_test.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"

#define MP_TIMEOUT_MS 20000
#define PAGE SCIF_TEST_PAGE
#define RW (SCIF_PROT_READ | SCIF_PROT_WRITE)
#define CARD_WIN 0x10000
#define WIN 0x100000
#define BIG_LEN ((size_t)1 << 30)

enum { CMD_MAP = 1, CMD_RMA, CMD_QUIT };

struct card_cmd {
	uint64_t cmd, offset, len, seed;
};

static int send_u64(scif_epd_t epd, uint64_t v)
{
	return scif_send(epd, &v, sizeof(v), SCIF_SEND_BLOCK) == sizeof(v) ? 0 : -1;
}

/* ------------------------------------------------------------------ the card */

/* Map [offset, +len) of the owner's space, check seed there, store seed + 1. */
static uint64_t card_map(scif_epd_t epd, const struct card_cmd *c)
{
	unsigned char *p = scif_mmap(NULL, c->len, RW, 0, epd, (off_t)c->offset);
	bool seen;

	if (p == SCIF_MMAP_FAILED)
		return (uint64_t)errno;
	seen = fixture_pattern_check(p, c->len, (uint8_t)c->seed, 0) == FIXTURE_MATCH;
	fixture_pattern(p, c->len, (uint8_t)(c->seed + 1), 0);
	if (scif_munmap(p, c->len))
		return (uint64_t)errno;
	return seen ? 0 : EIO;
}

/* Write seed + 1 into the owner's page at offset, read its next page (seed) back. */
static uint64_t card_rma(scif_epd_t epd, unsigned char *win, const struct card_cmd *c)
{
	fixture_pattern(win, PAGE, (uint8_t)(c->seed + 1), 0);
	if (scif_writeto(epd, CARD_WIN, PAGE, (off_t)c->offset, SCIF_RMA_SYNC))
		return (uint64_t)errno;
	memset(win, 0, PAGE);
	if (scif_readfrom(epd, CARD_WIN, PAGE, (off_t)(c->offset + PAGE), SCIF_RMA_SYNC))
		return (uint64_t)errno;
	return fixture_pattern_check(win, PAGE, (uint8_t)c->seed, 0) == FIXTURE_MATCH ? 0 : EIO;
}

static int card_main(int sock, const char *arg)
{
	struct scif_portID host = { .node = 0, .port = (uint16_t)atoi(arg) };
	unsigned char *win = scif_test_pages(1);
	struct card_cmd c;
	scif_epd_t epd;

	(void)sock;
	epd = scif_open();
	PROC_CHECK(epd >= 0);
	PROC_CHECK(scif_connect(epd, &host) >= 0);
	PROC_CHECK(scif_register(epd, win, PAGE, CARD_WIN, RW, SCIF_MAP_FIXED) == CARD_WIN);
	PROC_CHECK(send_u64(epd, 1) == 0);
	for (;;) {
		uint64_t answer;

		PROC_CHECK(scif_recv(epd, &c, sizeof(c), SCIF_RECV_BLOCK) == sizeof(c));
		if (c.cmd == CMD_QUIT)
			break;
		answer = c.cmd == CMD_MAP ? card_map(epd, &c) : card_rma(epd, win, &c);
		PROC_CHECK(send_u64(epd, answer) == 0);
	}
	PROC_CHECK(scif_close(epd) == 0);
	scif_test_free(win);
	return 0;
}

static const struct proc_role roles[] = {
	{ "card", card_main },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ the owner */

static scif_epd_t listener, epd = -1;
static struct proc card;

static int any_up(void **state)
{
	struct scif_portID peer;
	char port_arg[16];
	uint64_t hello = 0;
	int port;

	(void)state;
	if (!proc_provider_multiproc() || !(proc_provider_caps() & XRMA_CAP_MAP))
		return 0;
	listener = scif_open();
	port = scif_bind(listener, 0);
	if (listener < 0 || port < 0 || scif_listen(listener, 1))
		return -1;
	snprintf(port_arg, sizeof(port_arg), "%d", port);
	if (proc_spawn(&card, getenv("XRMA_FABRIC"), 1, "card", port_arg) ||
	    scif_accept(listener, &peer, &epd, SCIF_ACCEPT_SYNC) ||
	    scif_recv(epd, &hello, sizeof(hello), SCIF_RECV_BLOCK) != sizeof(hello))
		return -1;
	return 0;
}

static int any_down(void **state)
{
	struct card_cmd quit = { .cmd = CMD_QUIT };
	int rc = 0;

	(void)state;
	if (epd < 0)
		return 0;
	scif_send(epd, &quit, sizeof(quit), SCIF_SEND_BLOCK);
	rc = proc_join(&card, MP_TIMEOUT_MS);
	scif_close(epd);
	scif_close(listener);
	return rc;
}

static void need_card(void)
{
	if (epd < 0)
		skip();
}

static uint64_t card_do(uint64_t cmd, uint64_t offset, size_t len, uint8_t seed)
{
	struct card_cmd c = { .cmd = cmd, .offset = offset, .len = len, .seed = seed };
	uint64_t answer = 0;

	assert_int_equal(scif_send(epd, &c, sizeof(c), SCIF_SEND_BLOCK), sizeof(c));
	assert_int_equal(scif_recv(epd, &answer, sizeof(answer), SCIF_RECV_BLOCK), sizeof(answer));
	return answer;
}

/*
 * Register mem, let the card map it and store, see its bytes here; then ours
 * reach the card, which stores seed + 3 last. The window goes again.
 */
static void owner_shares(void *mem, size_t len, uint8_t seed)
{
	fixture_pattern(mem, len, seed, 0);
	assert_int_equal(scif_register(epd, mem, len, WIN, RW, SCIF_MAP_FIXED), WIN);
	assert_int_equal(card_do(CMD_MAP, WIN, len, seed), 0);
	assert_int_equal(fixture_pattern_check(mem, len, (uint8_t)(seed + 1), 0), FIXTURE_MATCH);
	/* Our own stores reach the card through the window too. */
	fixture_pattern(mem, len, (uint8_t)(seed + 2), 0);
	assert_int_equal(card_do(CMD_MAP, WIN, len, (uint8_t)(seed + 2)), 0);
	assert_scif_ok(scif_unregister(epd, WIN, len));
}

static void test_scif_mmap_heap_block_and_malloc_still_works(void **state)
{
	char *before, *block = NULL, *after, *many[256];

	(void)state;
	need_card();
	/* Small blocks come from the brk heap; the window shares pages with their neighbours. */
	before = malloc(40);
	assert_int_equal(posix_memalign((void **)&block, PAGE, 2 * PAGE), 0);
	after = malloc(40);
	assert_non_null(before);
	assert_non_null(after);
	memset(before, 0xb1, 40);
	memset(after, 0xa1, 40);
	owner_shares(block, 2 * PAGE, 0x10);
	assert_int_equal(fixture_check(before, 40, 0xb1), FIXTURE_MATCH);
	assert_int_equal(fixture_check(after, 40, 0xa1), FIXTURE_MATCH);
	/* The allocator goes on using the same pages. */
	free(before);
	free(after);
	for (size_t i = 0; i < 256; i++) {
		many[i] = malloc(24 + i);
		assert_non_null(many[i]);
		memset(many[i], (int)i, 24 + i);
	}
	for (size_t i = 0; i < 256; i++) {
		assert_int_equal(fixture_check(many[i], 24 + i, (uint8_t)i), FIXTURE_MATCH);
		free(many[i]);
	}
	assert_int_equal(fixture_pattern_check(block, 2 * PAGE, 0x13, 0), FIXTURE_MATCH);
	free(block);
}

static char data_array[2 * PAGE] __attribute__((aligned(PAGE))) = { 1 };
static char bss_array[2 * PAGE] __attribute__((aligned(PAGE)));

static void test_scif_mmap_static_arrays(void **state)
{
	(void)state;
	need_card();
	owner_shares(data_array, sizeof(data_array), 0x20);
	owner_shares(bss_array, sizeof(bss_array), 0x24);
}

static void test_scif_mmap_stack_array(void **state)
{
	char frame[3 * PAGE] __attribute__((aligned(PAGE)));

	(void)state;
	need_card();
	owner_shares(frame, sizeof(frame), 0x30);
}

static void test_scif_mmap_shared_file_reaches_the_file(void **state)
{
	char path[] = "/tmp/xrma-mmap-any-XXXXXX", back[2 * PAGE];
	int fd;
	char *mem;

	(void)state;
	need_card();
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(fd, 4 * PAGE), 0);
	/* At file offset PAGE: the window is the file's pages there. */
	mem = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PAGE);
	assert_true(mem != MAP_FAILED);
	owner_shares(mem, 2 * PAGE, 0x40);
	assert_int_equal(pread(fd, back, sizeof(back), PAGE), (ssize_t)sizeof(back));
	assert_int_equal(fixture_pattern_check(back, sizeof(back), 0x43, 0), FIXTURE_MATCH);
	munmap(mem, 2 * PAGE);
	close(fd);
}

static void test_scif_mmap_shm_open_memory(void **state)
{
	char name[64], *mem, *other;
	int fd;

	(void)state;
	need_card();
	snprintf(name, sizeof(name), "/xrma-mmap-any-%d", (int)getpid());
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	shm_unlink(name);
	assert_int_equal(ftruncate(fd, 2 * PAGE), 0);
	mem = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	other = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(mem != MAP_FAILED && other != MAP_FAILED);
	owner_shares(mem, 2 * PAGE, 0x50);
	/* Still the same object: another mapping of it sees the card's bytes. */
	assert_int_equal(fixture_pattern_check(other, 2 * PAGE, 0x53, 0), FIXTURE_MATCH);
	munmap(mem, 2 * PAGE);
	munmap(other, 2 * PAGE);
	close(fd);
}

static void test_scif_mmap_anonymous_private_and_shared(void **state)
{
	char *priv = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *shared = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(priv != MAP_FAILED && shared != MAP_FAILED);
	if (epd >= 0) {
		owner_shares(priv, 2 * PAGE, 0x60);
		owner_shares(shared, 2 * PAGE, 0x64);
	}
	munmap(priv, 2 * PAGE);
	munmap(shared, 2 * PAGE);
	need_card();
}

static void test_scif_mmap_huge_pages(void **state)
{
	size_t huge = 2u << 20;
	char *mem;

	(void)state;
	need_card();
	mem = mmap(NULL, huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (mem == MAP_FAILED) {
		print_message("no 2 MiB huge pages on this machine (vm.nr_hugepages): huge-page case skipped\n");
		skip();
	}
	owner_shares(mem, huge, 0x70);
	munmap(mem, huge);
}

/* Fork; the child checks seed in mem and stores over it; ours must stay seed. */
static void fork_child_stores(char *mem, size_t len, uint8_t seed, char *absent)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned char vec;
		bool ok = fixture_pattern_check(mem, len, seed, 0) == FIXTURE_MATCH;

		memset(mem, 0xee, len);
		/* The child has no mapping there at all. */
		if (absent)
			ok = ok && mincore(absent, PAGE, &vec) == -1 && errno == ENOMEM;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(fixture_pattern_check(mem, len, seed, 0), FIXTURE_MATCH);
}

/*
 * A child forked after registration has its own copy, also once the window is
 * gone (the pages stay re-backed); MADV_DONTFORK pages stay out of it.
 */
static void test_scif_mmap_fork_keeps_private_pages_private(void **state)
{
	char *mem = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *kept = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	(void)state;
	need_card();
	assert_true(mem != MAP_FAILED && kept != MAP_FAILED);
	assert_int_equal(madvise(kept, PAGE, MADV_DONTFORK), 0);
	fixture_pattern(mem, 2 * PAGE, 0x80, 0);
	assert_int_equal(scif_register(epd, mem, 2 * PAGE, WIN, RW, SCIF_MAP_FIXED), WIN);
	assert_int_equal(scif_register(epd, kept, PAGE, WIN + 2 * PAGE, RW, SCIF_MAP_FIXED), WIN + 2 * PAGE);
	fork_child_stores(mem, 2 * PAGE, 0x80, kept);
	/* The window is still the owner's pages. */
	assert_int_equal(card_do(CMD_MAP, WIN, 2 * PAGE, 0x80), 0);
	assert_int_equal(fixture_pattern_check(mem, 2 * PAGE, 0x81, 0), FIXTURE_MATCH);
	assert_scif_ok(scif_unregister(epd, WIN, 3 * PAGE));
	fork_child_stores(mem, 2 * PAGE, 0x81, kept);
	/* Registered again: the same pages, found again. */
	assert_int_equal(scif_register(epd, mem, 2 * PAGE, WIN, RW, SCIF_MAP_FIXED), WIN);
	assert_int_equal(card_do(CMD_MAP, WIN, 2 * PAGE, 0x81), 0);
	assert_int_equal(fixture_pattern_check(mem, 2 * PAGE, 0x82, 0), FIXTURE_MATCH);
	assert_scif_ok(scif_unregister(epd, WIN, 2 * PAGE));
	fork_child_stores(mem, 2 * PAGE, 0x82, NULL);
	munmap(mem, 2 * PAGE);
	munmap(kept, PAGE);
}

/* Reap pid within MP_TIMEOUT_MS: its exit code, 128 + signal, or -1 when it hung (then killed). */
static int child_wait(pid_t pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), status = 0;
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	assert_true(pidfd >= 0);
	if (poll(&pfd, 1, MP_TIMEOUT_MS) != 1)
		kill(pid, SIGKILL);
	close(pidfd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (pfd.revents == 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define DEEP_LEVELS 6
#define DEEP_WIN_PAGES 16
#define DEEP_FORKS 24
#define DEEP_WIN 0x200000

static char *deep_window;

/* A window over this frame's array; the pages stay re-backed after it returns. */
static __attribute__((noinline)) int window_register(void)
{
	char win[DEEP_WIN_PAGES * PAGE] __attribute__((aligned(PAGE)));

	deep_window = win;
	return (int)scif_register(epd, win, sizeof(win), DEEP_WIN, RW, SCIF_MAP_FIXED);
}

/* window_register DEEP_LEVELS frames down: where deep_fork's fork() will run. */
static __attribute__((noinline)) int deep_register(int level)
{
	volatile char pad[PAGE];
	int ret;

	pad[0] = (char)level;
	ret = level ? deep_register(level - 1) : window_register();
	return ret + pad[0] - level;
}

/* Stores over the stack below the caller, where a child's frames would be if still shared. */
static __attribute__((noinline)) void scribble(void)
{
	volatile char junk[8 * PAGE];

	memset((char *)junk, 0, sizeof(junk));
}

/* Forks from frames lying over the window's pages; a child checks its frames and exits. */
static __attribute__((noinline)) int deep_fork(int level)
{
	volatile char pad[PAGE];
	volatile uint64_t canary = 0x5ca1ab1e0000ull + (uint64_t)level;
	int failed = 0;

	pad[0] = (char)level;
	if (level)
		return deep_fork(level - 1) + (canary != 0x5ca1ab1e0000ull + (uint64_t)level);
	for (int i = 0; i < DEEP_FORKS; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(canary == 0x5ca1ab1e0000ull && pad[0] == 0 ? 0 : 1);
		if (pid < 0)
			return 1;
		scribble();
		failed += child_wait(pid) != 0;
	}
	return failed;
}

/*
 * A window registered over stack pages, which the frames of a later fork()
 * use: every child runs on its own copy of them, and the window is still the
 * parent's pages for the card after the forks.
 */
static void test_scif_mmap_stack_window_survives_forks_from_a_deep_frame(void **state)
{
	(void)state;
	need_card();
	assert_int_equal(deep_register(DEEP_LEVELS), DEEP_WIN);
	assert_int_equal(deep_fork(DEEP_LEVELS), 0);
	/* The window's pages lie below this frame, unused now: the card sees and changes them. */
	fixture_pattern(deep_window, DEEP_WIN_PAGES * PAGE, 0xa0, 0);
	assert_int_equal(card_do(CMD_MAP, DEEP_WIN, DEEP_WIN_PAGES * PAGE, 0xa0), 0);
	assert_int_equal(fixture_pattern_check(deep_window, DEEP_WIN_PAGES * PAGE, 0xa1, 0), FIXTURE_MATCH);
	assert_scif_ok(scif_unregister(epd, DEEP_WIN, DEEP_WIN_PAGES * PAGE));
}

/* 1 GiB of untouched memory: registered, its last page mapped, RMA near its end. */
static void test_scif_register_one_gib_maps_its_last_page(void **state)
{
	char *big = mmap(NULL, BIG_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *last = big + BIG_LEN - PAGE, *before = last - PAGE;

	(void)state;
	assert_true(big != MAP_FAILED);
	if (epd < 0) {
		munmap(big, BIG_LEN);
		skip();
	}
	fixture_pattern(last, PAGE, 0x90, 0);
	assert_int_equal(scif_register(epd, big, BIG_LEN, WIN, RW, SCIF_MAP_FIXED), WIN);
	assert_int_equal(card_do(CMD_MAP, WIN + BIG_LEN - PAGE, PAGE, 0x90), 0);
	assert_int_equal(fixture_pattern_check(last, PAGE, 0x91, 0), FIXTURE_MATCH);
	/* The card writes the page before the last and reads the last one back. */
	fixture_pattern(last, PAGE, 0x94, 0);
	assert_int_equal(card_do(CMD_RMA, WIN + BIG_LEN - 2 * PAGE, PAGE, 0x94), 0);
	assert_int_equal(fixture_pattern_check(before, PAGE, 0x95, 0), FIXTURE_MATCH);
	assert_scif_ok(scif_unregister(epd, WIN, BIG_LEN));
	munmap(big, BIG_LEN);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scif_mmap_heap_block_and_malloc_still_works),
		cmocka_unit_test(test_scif_mmap_static_arrays),
		cmocka_unit_test(test_scif_mmap_stack_array),
		cmocka_unit_test(test_scif_mmap_shared_file_reaches_the_file),
		cmocka_unit_test(test_scif_mmap_shm_open_memory),
		cmocka_unit_test(test_scif_mmap_anonymous_private_and_shared),
		cmocka_unit_test(test_scif_mmap_huge_pages),
		cmocka_unit_test(test_scif_mmap_fork_keeps_private_pages_private),
		cmocka_unit_test(test_scif_mmap_stack_window_survives_forks_from_a_deep_frame),
		cmocka_unit_test(test_scif_register_one_gib_maps_its_last_page),
	};
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	scif_test_env("scif-any");
	return cmocka_run_group_tests_name("scif_mmap_any", tests, any_up, any_down);
}
