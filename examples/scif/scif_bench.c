/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/scif/scif_bench.c: the host/card set-up of scif_bench.h.
 */
#include "scif_bench.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xrma/xrma.h>

#define CARD_FLAG "--scif-bench-card"
#define LINK_TIMEOUT_MS 20000

enum { CMD_ECHO = 1, CMD_RAW_ECHO, CMD_QUIT };

struct card_args {
	int sock;
	uint16_t port;
	size_t window;
};

static const char *me = "scif_bench";
static int link_sock = -1;
static pid_t card_pid;
static pthread_t card_thread;

void scif_bench_die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", me, what, strerror(errno));
	exit(1);
}

/* A header page in front of the pages records the length. */
void *scif_bench_pages(size_t len)
{
	size_t span = ((len ? len : 1) + SCIF_BENCH_PAGE - 1) / SCIF_BENCH_PAGE * SCIF_BENCH_PAGE;
	char *base = mmap(NULL, span + SCIF_BENCH_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	if (base == MAP_FAILED)
		scif_bench_die("mmap");
	*(size_t *)base = span;
	return base + SCIF_BENCH_PAGE;
}

void scif_bench_free(void *pages)
{
	char *base = (char *)pages - SCIF_BENCH_PAGE;

	munmap(base, *(size_t *)base + SCIF_BENCH_PAGE);
}

/*
 * Whether libscif's threads belong on their node's CPU. Over ofi the provider's
 * progress thread is the only thing that moves a target's data (libfabric
 * progresses only when called), as the raw baseline's target thread is: it
 * stays on its node's CPU instead of landing beside the other node's spinning
 * thread. Elsewhere they stay free to run on any CPU.
 */
static bool threads_follow_node(void)
{
	const char *prov = getenv("XRMA_PROVIDER");

	return prov && !strcmp(prov, "ofi");
}

/* The card: connect, register its window, echo on request. */
static int card_run(const struct card_args *a)
{
	struct scif_portID host = { .node = 0, .port = a->port };
	bool pin_threads = threads_follow_node();
	scif_epd_t epd;
	void *win = scif_bench_pages(a->window), *buf;
	uint64_t cmd;

	if (pin_threads)
		bench_pin_thread(1);
	epd = scif_open();
	if (epd < 0 || scif_connect(epd, &host) < 0)
		scif_bench_die("card: scif_connect");
	/* Otherwise pinned once libscif's threads exist: they stay free to run elsewhere. */
	if (!pin_threads)
		bench_pin_thread(1);
	if (scif_register(epd, win, a->window, 0, SCIF_PROT_READ | SCIF_PROT_WRITE, SCIF_MAP_FIXED) != 0)
		scif_bench_die("card: scif_register");
	buf = scif_bench_pages(a->window);
	bench_link_send(a->sock, 1);
	/* No timeout for the next command: RMA-only runs (scif_rma_bw) send none for minutes. */
	while ((cmd = bench_link_recv(a->sock, -1)) == CMD_ECHO || cmd == CMD_RAW_ECHO) {
		size_t len = (size_t)bench_link_recv(a->sock, LINK_TIMEOUT_MS);
		int iterations = (int)bench_link_recv(a->sock, LINK_TIMEOUT_MS);

		bench_link_send(a->sock, 1);
		for (int i = 0; i < iterations; i++) {
			if (cmd == CMD_RAW_ECHO) {
				if (recv(a->sock, buf, len, MSG_WAITALL) != (ssize_t)len ||
				    send(a->sock, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
					scif_bench_die("card: raw echo");
			} else if (scif_recv(epd, buf, (int)len, SCIF_RECV_BLOCK) != (int)len ||
				   scif_send(epd, buf, (int)len, SCIF_SEND_BLOCK) != (int)len) {
				scif_bench_die("card: echo");
			}
		}
	}
	scif_unregister(epd, 0, a->window);
	scif_close(epd);
	scif_bench_free(win);
	scif_bench_free(buf);
	return 0;
}

static void *card_thread_main(void *arg)
{
	card_run(arg);
	return NULL;
}

static bool provider_multiproc(const char **name)
{
	struct xrma_config_entry entry;
	struct xrma_provider_info info;
	static char found[sizeof(entry.value)];

	snprintf(found, sizeof(found), "%s", xrma_provider_default());
	for (int i = 0; xrma_config_get(i, &entry) == 0; i++) {
		if (!strcmp(entry.key, "provider") && entry.value[0]) {
			snprintf(found, sizeof(found), "%s", entry.value);
			break;
		}
	}
	*name = found;
	for (int i = 0; xrma_provider_get(i, &info) == 0; i++)
		if (!strcmp(info.name, found))
			return info.caps.flags & XRMA_CAP_MULTIPROC;
	return false;
}

void scif_bench_card_dispatch(int argc, char **argv, const char *name)
{
	struct card_args args;

	me = name;
	if (argc == 5 && !strcmp(argv[1], CARD_FLAG)) {
		args = (struct card_args){ .sock = atoi(argv[2]), .port = (uint16_t)atoi(argv[3]),
					   .window = (size_t)strtoull(argv[4], NULL, 10) };
		exit(card_run(&args));
	}
}

void scif_bench_start(char **argv, size_t window_len, struct scif_bench *b)
{
	static struct card_args args;
	struct scif_portID peer;
	char fabric[64], exe[4096];
	int sv[2], port;
	scif_epd_t listener;

	memset(b, 0, sizeof(*b));
	b->card_window = window_len;
	b->card_is_process = provider_multiproc(&b->provider);
	snprintf(fabric, sizeof(fabric), "scifbench-%ld", (long)getpid());
	setenv("XRMA_FABRIC", fabric, 1);
	setenv("XRMA_NODE_ID", "0", 1);
	if (threads_follow_node())
		bench_pin_thread(0);
	listener = scif_open();
	if (listener < 0 || (port = scif_bind(listener, 0)) < 0 || scif_listen(listener, 1))
		scif_bench_die("host: listen");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		scif_bench_die("socketpair");
	args = (struct card_args){ .sock = sv[1], .port = (uint16_t)port, .window = window_len };
	if (b->card_is_process) {
		/* The path, not /proc/self/exe itself: under valgrind that is valgrind's tool. */
		ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (len < 0)
			scif_bench_die("readlink");
		exe[len] = '\0';
		card_pid = fork();
		if (card_pid < 0)
			scif_bench_die("fork");
		if (card_pid == 0) {
			char sock_arg[16], port_arg[16], len_arg[32];

			close(sv[0]);
			snprintf(sock_arg, sizeof(sock_arg), "%d", sv[1]);
			snprintf(port_arg, sizeof(port_arg), "%d", port);
			snprintf(len_arg, sizeof(len_arg), "%zu", window_len);
			setenv("XRMA_NODE_ID", "1", 1);
			execl(exe, argv[0], CARD_FLAG, sock_arg, port_arg, len_arg, (char *)NULL);
			_exit(127);
		}
		close(sv[1]);
	} else if (pthread_create(&card_thread, NULL, card_thread_main, &args)) {
		scif_bench_die("pthread_create");
	}
	link_sock = sv[0];
	if (scif_accept(listener, &peer, &b->epd, SCIF_ACCEPT_SYNC))
		scif_bench_die("host: scif_accept");
	scif_close(listener);
	bench_link_recv(link_sock, LINK_TIMEOUT_MS);   /* the card's window is registered */
	/*
	 * The core starts its DMA engine thread at the first asynchronous RMA, and
	 * threads inherit the creator's CPU set: start it now, then pin ourselves,
	 * so it is not tied to the CPU we spin on.
	 */
	{
		uint64_t zero = 0;
		int mark;

		if (scif_vwriteto(b->epd, &zero, sizeof(zero), 0, 0) ||
		    scif_fence_mark(b->epd, SCIF_FENCE_INIT_SELF, &mark) || scif_fence_wait(b->epd, mark))
			scif_bench_die("host: first asynchronous RMA");
	}
	bench_pin_thread(0);
	bench_set_context("scif", b->provider);
}

static void card_command(uint64_t cmd, size_t len, int iterations)
{
	bench_link_send(link_sock, cmd);
	bench_link_send(link_sock, len);
	bench_link_send(link_sock, (uint64_t)iterations);
	bench_link_recv(link_sock, LINK_TIMEOUT_MS);
}

const char *scif_bench_setup(const struct scif_bench *b)
{
	static char setup[160];

	snprintf(setup, sizeof(setup), "provider=%s nodes=0<->1 card=%s", b->provider,
		 b->card_is_process ? "process" : "thread");
	return setup;
}

size_t scif_bench_round(size_t len)
{
	return (len + SCIF_BENCH_PAGE - 1) / SCIF_BENCH_PAGE * SCIF_BENCH_PAGE;
}

void scif_bench_card_echo(struct scif_bench *b, size_t len, int iterations)
{
	(void)b;
	card_command(CMD_ECHO, len, iterations);
}

void scif_bench_card_raw_echo(struct scif_bench *b, size_t len, int iterations)
{
	(void)b;
	card_command(CMD_RAW_ECHO, len, iterations);
}

int scif_bench_link(const struct scif_bench *b)
{
	(void)b;
	return link_sock;
}

typedef void (*round_fn)(void *arg, int iterations);

/* Untimed warm-up iterations before a series. */
static int warm_up_iterations(int iterations)
{
	return iterations < 10 ? iterations : 10;
}

/* Run one timed repetition; microseconds per iteration. */
static double round_us(round_fn body, void *arg, int iterations)
{
	uint64_t t0 = bench_now_ns();

	body(arg, iterations);
	return (double)(bench_now_ns() - t0) / 1000.0 / iterations;
}

void scif_bench_measure(round_fn body, void *arg, int iterations, int repetitions, double *med,
			double *min)
{
	double *us = calloc((size_t)repetitions, sizeof(*us));

	if (!us)
		scif_bench_die("calloc");
	body(arg, warm_up_iterations(iterations));
	for (int r = 0; r < repetitions; r++)
		us[r] = round_us(body, arg, iterations);
	*min = bench_min(us, repetitions);
	*med = bench_median(us, repetitions);
	free(us);
}

void scif_bench_row_vs(const struct bench_opts *opts, size_t bytes, round_fn body, round_fn baseline,
		       void *arg, int iterations)
{
	int reps = opts->repetitions;
	double *ours = calloc((size_t)reps, sizeof(*ours)), *base = calloc((size_t)reps, sizeof(*base));

	if (!ours || !base)
		scif_bench_die("calloc");
	body(arg, warm_up_iterations(iterations));
	baseline(arg, warm_up_iterations(iterations));
	for (int r = 0; r < reps; r++) {
		ours[r] = round_us(body, arg, iterations);
		base[r] = round_us(baseline, arg, iterations);
	}
	bench_row_samples(opts, bytes, iterations, ours, base, reps);
	free(ours);
	free(base);
}

void scif_bench_stop(struct scif_bench *b)
{
	int status;

	bench_link_send(link_sock, CMD_QUIT);
	if (b->card_is_process) {
		if (waitpid(card_pid, &status, 0) != card_pid || !WIFEXITED(status) || WEXITSTATUS(status))
			fprintf(stderr, "%s: the card failed\n", me);
	} else {
		pthread_join(card_thread, NULL);
	}
	scif_close(b->epd);
	close(link_sock);
}
