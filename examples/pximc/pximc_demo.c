/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/pximc/pximc_demo.c: the helpers of pximc_demo.h.
 */
#include "pximc_demo.h"
#include "../common/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PEER_FLAG "--pximc-demo-peer"
#define LINK_WAIT_MS 60000

const char *pximc_demo_status(tPXIMC_Status status)
{
	static const struct {
		tPXIMC_Status status;
		const char *name;
	} names[] = {
		{ PXIMC_SUCCESS, "SUCCESS" },
		{ PXIMC_INSUFFICIENT_SPACE, "INSUFFICIENT_SPACE" },
		{ PXIMC_INVALID_INTERFACE, "INVALID_INTERFACE" },
		{ PXIMC_INTERFACE_DOWN, "INTERFACE_DOWN" },
		{ PXIMC_NSUP_ATTRIBUTE, "NSUP_ATTRIBUTE" },
		{ PXIMC_INVALID_ARGUMENT, "INVALID_ARGUMENT" },
		{ PXIMC_SPACE_NOT_AVAILABLE, "SPACE_NOT_AVAILABLE" },
		{ PXIMC_UID_CONFLICT, "UID_CONFLICT" },
		{ PXIMC_NO_PAIRING, "NO_PAIRING" },
		{ PXIMC_PHY_RESOURCE_NOT_AVAILABLE, "PHY_RESOURCE_NOT_AVAILABLE" },
		{ PXIMC_INVALID_SESSION, "INVALID_SESSION" },
		{ PXIMC_NO_WINDOW, "NO_WINDOW" },
		{ PXIMC_SESSION_CLOSED, "SESSION_CLOSED" },
		{ PXIMC_INVALID_WINDOW, "INVALID_WINDOW" },
		{ PXIMC_INVALID_RESOURCE, "INVALID_RESOURCE" },
		{ PXIMC_ALIGNMENT_ERROR, "ALIGNMENT_ERROR" },
		{ PXIMC_NO_PROVIDER, "NO_PROVIDER" },
		{ PXIMC_TIMEOUT, "TIMEOUT" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].status == status)
			return names[i].name;
	return "unknown status";
}

void pximc_demo_expect(tPXIMC_Status status, tPXIMC_Status want, const char *what)
{
	if (status == want)
		return;
	fprintf(stderr, "pximc demo: %s returned %s, expected %s\n", what, pximc_demo_status(status),
		pximc_demo_status(want));
	exit(1);
}

void pximc_demo_send(struct pximc_demo *demo, uint64_t value)
{
	bench_link_send(demo->sock, value);
}

uint64_t pximc_demo_recv(struct pximc_demo *demo)
{
	return bench_link_recv(demo->sock, LINK_WAIT_MS);
}

/* The interface whose name says it leads to node. */
static uint32_t pximc_demo_interface_to(uint32_t node)
{
	uint32_t ids[16], actual = 0;
	char want[32];

	snprintf(want, sizeof(want), " to node %u", node);
	pximc_demo_expect(PXIMC_findInterfaces(16, ids, &actual), PXIMC_SUCCESS, "findInterfaces");
	for (uint32_t i = 0; i < actual; i++) {
		char name[128];
		uint32_t len = 0;
		size_t n;

		if (PXIMC_queryInterfaceInformation(ids[i], PXIMC_STR_INTERFACE_NAME, sizeof(name),
						    name, &len) != PXIMC_SUCCESS)
			continue;
		n = strlen(name);
		if (n >= strlen(want) && !strcmp(name + n - strlen(want), want))
			return ids[i];
	}
	fprintf(stderr, "pximc demo: no interface to node %u (is the provider multi-process?)\n",
		node);
	exit(1);
}

void pximc_demo_start(int argc, char **argv, struct pximc_demo *demo)
{
	char fabric[64], fd[16], exe[4096];
	ssize_t len;
	int pair[2];

	memset(demo, 0, sizeof(*demo));
	if (argc == 3 && !strcmp(argv[1], PEER_FLAG)) {
		demo->self = 2;
		demo->peer = 1;
		demo->sock = atoi(argv[2]);
	} else {
		/* A fabric of our own; XRMA_PROVIDER still chooses the provider (default ntb). */
		snprintf(fabric, sizeof(fabric), "pximc-demo-%d", (int)getpid());
		setenv("XRMA_FABRIC", fabric, 1);
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair)) {
			perror("socketpair");
			exit(1);
		}
		/* The path, not /proc/self/exe itself: under valgrind that is valgrind's tool. */
		len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (len < 0) {
			perror("readlink");
			exit(1);
		}
		exe[len] = '\0';
		demo->child = fork();
		if (demo->child < 0) {
			perror("fork");
			exit(1);
		}
		if (demo->child == 0) {
			close(pair[0]);
			snprintf(fd, sizeof(fd), "%d", pair[1]);
			setenv("XRMA_NODE_ID", "2", 1);
			execl(exe, argv[0], PEER_FLAG, fd, (char *)NULL);
			perror("exec");
			_exit(127);
		}
		close(pair[1]);
		setenv("XRMA_NODE_ID", "1", 1);
		demo->self = 1;
		demo->peer = 2;
		demo->sock = pair[0];
	}
	/* Both systems are up (their instances open) before either looks for the other. */
	{
		uint32_t count;
		tPXIMC_Status status = PXIMC_findInterfaces(0, NULL, &count);

		if (status < 0 && status != PXIMC_INSUFFICIENT_SPACE)
			pximc_demo_expect(status, PXIMC_SUCCESS, "findInterfaces");
	}
	pximc_demo_send(demo, 0xa11ce);
	if (pximc_demo_recv(demo) != 0xa11ce) {
		fprintf(stderr, "pximc demo: bad set-up link\n");
		exit(1);
	}
	demo->iface = pximc_demo_interface_to(demo->peer);
}

int pximc_demo_finish(struct pximc_demo *demo)
{
	int status = 0;

	PXIMC_cleanup();
	if (demo->self != 1)
		return 0;
	if (waitpid(demo->child, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
