/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/pximc/pximc_demo.h: what the PXImc examples share: two systems as two processes
 * (the program re-executes itself as system 2 on a fabric of its own, like
 * examples/core/xrma_pingpong), a socket between them for set-up steps only, finding the
 * interface to the other system, and status checks that name the status.
 */
#ifndef XRMA_PXIMC_DEMO_H
#define XRMA_PXIMC_DEMO_H

#include <stdint.h>
#include <pximc.h>

struct pximc_demo {
	uint32_t self;     /* 1 or 2 */
	uint32_t peer;     /* the other system's node */
	int sock;          /* set-up link to the other process */
	int child;         /* system 1: the pid of system 2 */
	uint32_t iface;    /* the interface to the other system */
};

/* Become system 1 (and start system 2) or, when started as such, system 2. */
void pximc_demo_start(int argc, char **argv, struct pximc_demo *demo);
/* System 1 waits for system 2 to exit; returns its exit status. */
int pximc_demo_finish(struct pximc_demo *demo);
void pximc_demo_send(struct pximc_demo *demo, uint64_t value);
uint64_t pximc_demo_recv(struct pximc_demo *demo);
const char *pximc_demo_status(tPXIMC_Status status);
/* Exit with a message unless status == want. */
void pximc_demo_expect(tPXIMC_Status status, tPXIMC_Status want, const char *what);

#endif
