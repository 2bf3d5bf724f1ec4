#!/bin/sh
# tests/conformance/scif/check_scif_exports.sh: libscif exports exactly the SCIF user-mode
# calls, each under the SCIF_0.0 version node (as MPSS libscif does), and nothing else.
# Skipped (77) only when libtool built no shared library (--disable-shared).

builddir=${XRMA_TEST_BUILDDIR:-.}
la=$builddir/libscif.la
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

want="scif_accept scif_bind scif_close scif_connect scif_fence_mark scif_fence_signal
scif_fence_wait scif_get_nodeIDs scif_listen scif_mmap scif_munmap scif_open scif_poll
scif_readfrom scif_recv scif_register scif_send scif_unregister scif_vreadfrom scif_vwriteto
scif_writeto"

syms=$($nm -D --defined-only "$lib") || { echo "FAIL: nm -D $lib"; exit 1; }
got=$(printf '%s\n' "$syms" | awk '
	NF >= 2 {
		type = $(NF - 1); name = $NF
		if (type == "A") next
		if (name ~ /^(_init|_fini|__bss_start|_edata|_end)(@.*)?$/) next
		print name
	}' | sort)
expected=$(for s in $want; do echo "$s@@SCIF_0.0"; done | sort)

if [ "$got" != "$expected" ]; then
	echo "FAIL: libscif exports differ from the SCIF API:"
	printf 'got:\n%s\nexpected:\n%s\n' "$got" "$expected"
	exit 1
fi
echo "PASS: $(printf '%s\n' "$got" | wc -l) symbols, all @@SCIF_0.0"
