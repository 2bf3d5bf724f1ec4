#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/multiproc/run_conformance_on_ofi.sh: the personalities' multi-process
# conformance programs on the ofi provider (tcp;ofi_rxm over 127.0.0.1 unless
# XRMA_OFI_PROVIDER says otherwise), with a node file made here that gives nodes
# 0..8 a free port each (SCIF's host is node 0; tests/multiproc/ofi_node_file).
# Part of make check, and `make check-ofi-conformance` runs it alone. Prints one
# line per program and exits non-zero if any failed. The liveness timeout is
# short (1.5 s) so the killed-peer cases end soon.
set -u
top_builddir=${1:-${XRMA_TEST_BUILDDIR:-.}}
[ -x "$top_builddir/tests/multiproc/ofi_node_file" ] || { echo "FAIL: ofi_node_file not built"; exit 1; }
dir=$(mktemp -d /tmp/xrma-ofi-conf-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

"$top_builddir/tests/multiproc/ofi_node_file" 0 8 > "$dir/nodes" || exit 1

XRMA_PROVIDER=ofi
XRMA_OFI_NODES=$dir/nodes
XRMA_OFI_LIVENESS_MS=${XRMA_OFI_LIVENESS_MS:-1500}
# The provider is a module: this build's, also when run alone (make check sets the same).
XRMA_PROVIDER_PATH=${XRMA_PROVIDER_PATH:-$top_builddir/providers/ofi/.libs}
# Only read by ThreadSanitizer builds: libfabric's own copies are not the programs' races.
TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS }suppressions=$(cd "$(dirname "$0")" && pwd)/ofi_tsan.supp"
export XRMA_PROVIDER XRMA_OFI_NODES XRMA_OFI_LIVENESS_MS XRMA_PROVIDER_PATH TSAN_OPTIONS

# A program that hangs is killed after this long; sanitized builds get more (XRMA_TEST_TIME_SCALE).
limit=${XRMA_OFI_CONFORMANCE_TIMEOUT:-$((120 * ${XRMA_TEST_TIME_SCALE:-1}))}

failed=0
for t in tests/conformance/sisci/test_sisci_multiproc \
	 tests/conformance/scif/test_scif_multiproc \
	 tests/conformance/pximc/test_pximc_multiproc; do
	log=$dir/$(basename "$t").log
	# Its own session (a program that signals its process group leaves us alone),
	# and a bound: a program that hangs is reported as failed.
	timeout -s KILL "$limit" setsid -w "$top_builddir/$t" >"$log" 2>&1
	st=$?
	if [ $st -eq 0 ]; then
		echo "PASS: $t on ofi"
	else
		echo "FAIL: $t on ofi (exit status $st; 137: killed after $limit s)"
		grep -v '^libfabric' "$log" | sed 's/^/    /'
		failed=1
	fi
done
exit $failed
