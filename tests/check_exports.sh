#!/bin/sh
# tests/check_exports.sh: fail if the shared libxrma exports any symbol not named xrma_*
# or needs libfabric, or if the ofi module exports anything but its entry symbol.
# The version script (core/libxrma.map) and -fvisibility=hidden should make this hold;
# this test catches a change to either. Skipped (77) only when libtool built no shared
# library (--disable-shared); a library that should exist and does not is a failure.

builddir=${XRMA_TEST_BUILDDIR:-.}
la=$builddir/libxrma.la
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

syms=$($nm -D --defined-only "$lib") || { echo "FAIL: nm -D $lib failed"; exit 1; }

# nm prints "address type name[@[@]version]". Absolute (A) symbols are version nodes;
# _init/_fini and the linker's section markers are not ours to name.
bad=$(printf '%s\n' "$syms" | awk '
	NF >= 2 {
		type = $(NF - 1); name = $NF
		sub(/@.*/, "", name)
		if (type == "A") next
		if (name ~ /^(_init|_fini|__bss_start|_edata|_end)$/) next
		if (name !~ /^xrma_/) print name
	}')

if [ -n "$bad" ]; then
	echo "FAIL: $lib exports symbols outside the xrma_ namespace:"
	printf '%s\n' "$bad" | sed 's/^/  /'
	exit 1
fi

count=$(printf '%s\n' "$syms" | awk '$NF ~ /^xrma_/' | wc -l)

# libfabric is the ofi module's alone: libxrma must not need it, and the module exports
# its entry symbol and nothing else (providers/provider_module.h).
if ${OBJDUMP:-objdump} -p "$lib" 2>/dev/null | grep -q 'NEEDED.*libfabric'; then
	echo "FAIL: $lib needs libfabric (the ofi provider must stay a module)"
	exit 1
fi
module=$builddir/providers/ofi/.libs/libxrma-ofi.so
if [ -f "$builddir/providers/ofi/libxrma-ofi.la" ]; then
	[ -f "$module" ] || { echo "FAIL: $module missing"; exit 1; }
	msyms=$($nm -D --defined-only "$module" | awk 'NF >= 2 && $(NF - 1) != "A" {
		name = $NF; sub(/@.*/, "", name)
		if (name !~ /^(_init|_fini|__bss_start|_edata|_end)$/) print name }')
	if [ "$msyms" != xrma_prov_module ]; then
		echo "FAIL: $module exports more or less than xrma_prov_module:"
		printf '%s\n' "$msyms" | sed 's/^/  /'
		exit 1
	fi
fi

echo "PASS: $lib exports $count symbols, all named xrma_*, and needs no libfabric"
exit 0
