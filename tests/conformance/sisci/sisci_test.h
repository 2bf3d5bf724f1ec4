/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/sisci_test.h: helpers of the SISCI conformance
 * programs. A test acts as several SISCI nodes in one process by opening a
 * descriptor per node (libsisci takes the node from XRMA_NODE_ID at SCIOpen);
 * every program runs on a fabric of its own so parallel programs never meet.
 * Checks compare sci_error_t values and print both names on mismatch.
 */
#ifndef XRMA_TEST_SISCI_H
#define XRMA_TEST_SISCI_H

#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <xrma/xrma.h>
#include "tests/helpers/fixture.h"
#include "tests/helpers/proc.h"
#define SISCI_STRICT_CALLBACKS 1
#include <sisci_api.h>

#define SISCI_TIMEOUT 2000u
#define SISCI_SHORT 50u

#define assert_sci(actual, expected)                                                            \
	do {                                                                                    \
		sci_error_t sci_a_ = (actual), sci_e_ = (expected);                             \
		if (sci_a_ != sci_e_) {                                                         \
			print_error("%s:%d: got 0x%x (%s), expected 0x%x (%s)\n", __FILE__,     \
				    __LINE__, (unsigned)sci_a_, SCIGetErrorString(sci_a_),      \
				    (unsigned)sci_e_, SCIGetErrorString(sci_e_));               \
			fail();                                                                 \
		}                                                                               \
	} while (0)

/*
 * Node n of the suite as the provider numbers it: n times XRMA_TEST_NODE_STEP
 * (default 1), so the suite also runs where node ids go in steps (sci: 4, 8, ...).
 */
static inline unsigned int sisci_node(unsigned int n)
{
	const char *step = getenv("XRMA_TEST_NODE_STEP");
	unsigned long s = step ? strtoul(step, NULL, 0) : 1;

	return n * (unsigned int)(s ? s : 1);
}

/* Set variable name to the provider's id of suite node n. */
static inline void sisci_test_setenv_node(const char *name, unsigned int n)
{
	char id[16];

	snprintf(id, sizeof(id), "%u", sisci_node(n));
	setenv(name, id, 1);
}

/* Whether the provider the suite runs on (XRMA_PROVIDER, the config, the default) has cap. */
static inline bool sisci_test_provider_has(uint64_t cap)
{
	return (proc_provider_caps() & cap) == cap;
}

/* Use a fabric unique to this program; call once in main. */
static inline void sisci_test_fabric(const char *tag)
{
	char fabric[XRMA_NAME_MAX];

	fixture_fabric_name(fabric, sizeof(fabric), tag);
	setenv("XRMA_FABRIC", fabric, 1);
}

/* A descriptor acting as node. */
static inline sci_desc_t sisci_test_open(unsigned int node)
{
	char id[16];
	sci_desc_t sd = NULL;
	sci_error_t err;

	snprintf(id, sizeof(id), "%u", node);
	setenv("XRMA_NODE_ID", id, 1);
	SCIOpen(&sd, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	return sd;
}

static inline void sisci_test_close(sci_desc_t sd)
{
	sci_error_t err;

	SCIClose(sd, 0, &err);
	assert_sci(err, SCI_ERR_OK);
}

/* A segment of size bytes with id, prepared and available on adapter 0. */
static inline sci_local_segment_t sisci_test_segment(sci_desc_t sd, unsigned int id, size_t size)
{
	sci_local_segment_t seg = NULL;
	sci_error_t err;

	SCICreateSegment(sd, &seg, id, size, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	return seg;
}

static inline void sisci_test_remove(sci_local_segment_t seg)
{
	sci_error_t err;

	SCIRemoveSegment(seg, 0, &err);
	assert_sci(err, SCI_ERR_OK);
}

static inline sci_remote_segment_t sisci_test_connect(sci_desc_t sd, unsigned int node, unsigned int id)
{
	sci_remote_segment_t r = NULL;
	sci_error_t err;

	SCIConnectSegment(sd, &r, node, id, 0, NULL, NULL, SISCI_TIMEOUT, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	return r;
}

static inline void sisci_test_disconnect(sci_remote_segment_t r)
{
	sci_error_t err;

	SCIDisconnectSegment(r, 0, &err);
	assert_sci(err, SCI_ERR_OK);
}

/*
 * The parent's side of a test with another process: start role as node on
 * fabric (NULL: this program's) and wait for its first report, stored in
 * *first (NULL: any value will do). The child is joined by the test, or
 * killed by proc_teardown when an assertion failed.
 */
static inline void sisci_test_spawn(struct proc *child, const char *fabric, unsigned int node,
				    const char *role, const char *arg, uint64_t *first)
{
	uint64_t value = 0;

	assert_int_equal(proc_spawn(child, fabric, node, role, arg), 0);
	assert_int_equal(proc_recv(child->sock, &value, 20000), 0);
	if (first)
		*first = value;
}

/*
 * A child's side (no cmocka there): a descriptor of its node and a segment of
 * size bytes with id, created with flags, prepared and available. The first
 * error is returned, and nothing is left open then.
 */
static inline sci_error_t sisci_child_owner(sci_desc_t *sd, unsigned int id, size_t size,
					    unsigned int flags, sci_local_segment_t *seg)
{
	sci_error_t err, ignored;

	SCIOpen(sd, 0, &err);
	if (err != SCI_ERR_OK)
		return err;
	SCICreateSegment(*sd, seg, id, size, NULL, NULL, flags, &err);
	if (err != SCI_ERR_OK)
		goto close_desc;
	SCIPrepareSegment(*seg, 0, 0, &err);
	if (err == SCI_ERR_OK)
		SCISetSegmentAvailable(*seg, 0, 0, &err);
	if (err == SCI_ERR_OK)
		return err;
	SCIRemoveSegment(*seg, 0, &ignored);
close_desc:
	SCIClose(*sd, 0, &ignored);
	return err;
}

#endif
