#!/bin/sh
# tests/conformance/sisci/check_sisci_exports.sh: fail if libsisci exports a symbol not named SCI*
# (other than Dolphin's Set/GetSciMemCopyFunction), or misses one of the 46 functions of the
# specification. Skipped (77) only when libtool built no shared library (--disable-shared).

builddir=${XRMA_TEST_BUILDDIR:-.}
la=$builddir/libsisci.la
[ -f "$la" ] || { echo "FAIL: $la not built"; exit 1; }
dlname=$(sed -n "s/^dlname='\(.*\)'$/\1/p" "$la")
if [ -z "$dlname" ]; then
	echo "SKIP: configured without shared libraries"
	exit 77
fi
lib=$builddir/.libs/$dlname
[ -f "$lib" ] || { echo "FAIL: $lib missing although $la names it"; exit 1; }
nm=${NM:-nm}
command -v "${nm%% *}" >/dev/null 2>&1 || { echo "FAIL: $nm not found"; exit 1; }

names=$($nm -D --defined-only "$lib" | awk 'NF >= 2 && $(NF-1) != "A" { n = $NF; sub(/@.*/, "", n); print n }' |
	grep -v -E '^(_init|_fini|__bss_start|_edata|_end)$')
bad=$(printf '%s\n' "$names" | grep -v '^SCI' | grep -v -x -E '(Set|Get)SciMemCopyFunction')
if [ -n "$bad" ]; then
	echo "FAIL: $lib exports non-SISCI symbols:"; printf '  %s\n' $bad; exit 1
fi
for f in SCIAbortBlockTransfer SCIAbortDMAQueue SCICheckSequence SCIClose SCIConnectInterrupt \
	SCIConnectSCISpace SCIConnectSegment SCICreateDMAQueue SCICreateInterrupt SCICreateMapSequence \
	SCICreateSegment SCIDisconnectInterrupt SCIDisconnectSegment SCIDMAQueueState \
	SCIEnqueueDMATransfer SCIFlushReadBuffers SCIGetCSRRegister SCIGetRemoteSegmentSize \
	SCIMapLocalSegment SCIMapRemoteSegment SCIMemCopy SCIOpen SCIPostDMAQueue SCIPrepareSegment \
	SCIProbeNode SCIQuery SCIRegisterSegmentMemory SCIRemoveDMAQueue SCIRemoveInterrupt \
	SCIRemoveSegment SCIRemoveSequence SCIResetDMAQueue SCISetCSRRegister SCISetSegmentAvailable \
	SCISetSegmentUnavailable SCIStartSequence SCIStoreBarrier SCITransferBlock SCITransferBlockAsync \
	SCITriggerInterrupt SCIUnmapSegment SCIWaitForBlockTransfer SCIWaitForDMAQueue \
	SCIWaitForInterrupt SCIWaitForLocalSegmentEvent SCIWaitForRemoteSegmentEvent \
	SCIAttachPhysicalMemory SetSciMemCopyFunction GetSciMemCopyFunction; do
	printf '%s\n' "$names" | grep -qx "$f" || { echo "FAIL: $f missing"; exit 1; }
done
echo "PASS: $lib exports $(printf '%s\n' "$names" | wc -l) SCI* symbols, the 46 of the spec among them"
