#!/bin/sh
# tests/conformance/scif/check_peer_table_rma.sh: the SCIF suites that read the peer's
# registered address space again, with the peer's table read by RMA instead of mapped: the
# path the core takes on providers that cannot map. The programs are copies linked with the
# test-only libraries, whose test hook XRMA_TEST_RWIN_COPY=1 takes that path.

builddir=${XRMA_TEST_BUILDDIR:-.}
status=0
for t in test_scif_ras test_scif_rma test_scif_fence test_scif_multiproc; do
	prog=$builddir/tests/conformance/scif/${t}_copy
	if [ ! -x "$prog" ]; then
		echo "FAIL: $prog not built"
		exit 1
	fi
	if XRMA_TEST_RWIN_COPY=1 "$prog"; then
		echo "PASS: $t with the peer table read by RMA"
	else
		echo "FAIL: $t with the peer table read by RMA"
		status=1
	fi
done
exit $status
