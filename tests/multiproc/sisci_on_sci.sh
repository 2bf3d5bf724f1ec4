#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/multiproc/sisci_on_sci.sh: the SISCI conformance suite on the sci provider. The suite
# numbers its nodes 1, 2, 3...; SCI node ids go in steps of 4, so XRMA_TEST_NODE_STEP=4 makes
# them 4, 8, 12... (tests/conformance/sisci/sisci_test.h). Each program runs on a fabric of its
# own, as under make check.

builddir=${XRMA_TEST_BUILDDIR:-.}
status=0
for t in test_sisci_segment test_sisci_transfer test_sisci_multiproc test_sisci_broadcast \
	test_sisci_dolphin test_sisci_behaviour; do
	prog=$builddir/tests/conformance/sisci/$t
	[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
	echo "# $t on sci"
	XRMA_PROVIDER=sci XRMA_TEST_NODE_STEP=4 "$prog" || { echo "FAIL: $t on sci"; status=1; }
done
exit $status
