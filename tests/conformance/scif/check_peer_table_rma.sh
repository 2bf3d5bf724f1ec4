#!/bin/sh
# tests/conformance/scif/check_peer_table_rma.sh: the SCIF suites that read the peer's
# registered address space again, with the peer's table read by RMA instead of mapped
# (XRMA_SCIF_PEER_TABLE=rma): the path libscif takes on providers that cannot map.

builddir=${XRMA_TEST_BUILDDIR:-.}
status=0
for t in test_scif_ras test_scif_rma test_scif_fence test_scif_multiproc; do
	prog=$builddir/tests/conformance/scif/$t
	if [ ! -x "$prog" ]; then
		echo "FAIL: $prog not built"
		exit 1
	fi
	if XRMA_SCIF_PEER_TABLE=rma "$prog"; then
		echo "PASS: $t with the peer table read by RMA"
	else
		echo "FAIL: $t with the peer table read by RMA"
		status=1
	fi
done
exit $status
