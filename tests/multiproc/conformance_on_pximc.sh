#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/multiproc/conformance_on_pximc.sh: the personalities' multi-process conformance
# programs directly on ntb and then on pximc over xrma's PXImc vendor library (itself on ntb,
# both libraries from this build), one line per test case with both results. Passes when
# every case has the same result on both, or is a case listed below that PXImc cannot reach
# (docs/porting.md). Run by make check; each program is bounded.
#   tests/multiproc/conformance_on_pximc.sh [BUILDDIR]
set -u
build=$(cd "${1:-${XRMA_TEST_BUILDDIR:-.}}" && pwd)
limit=${XRMA_PXIMC_CONFORMANCE_TIMEOUT:-$((120 * ${XRMA_TEST_TIME_SCALE:-1}))}
# The vendor library is loaded with dlopen: without shared libraries (--disable-shared)
# there is nothing to load, the one reason to skip. Anything else missing is a failure.
[ -f "$build/libpximc_xrma.la" ] || { echo "FAIL: $build/libpximc_xrma.la not built"; exit 1; }
if ! grep -q "^dlname='..*'$" "$build/libpximc_xrma.la"; then
	echo "SKIP: configured without shared libraries"
	exit 77
fi
vendor=$build/.libs/libpximc_xrma.so
[ -e "$vendor" ] || { echo "FAIL: $vendor not built"; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/xrma-pximc-conf-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
ln -s "$vendor" "$dir/libpximc_xrma.so"
export PXIMC_VENDOR_PATH="$dir" XRMA_PXIMC_DISPATCHER="$build/.libs/libpximc.so.0"
export XRMA_PXIMC_VENDOR_PROVIDER=ntb

# Cases whose pximc result differs from ntb's: the result expected on pximc, then why. What
# PXImc cannot carry is a capability the cases check (one importer per segment, one process
# per node), so they pass on both; only a case that cannot be reached through PXImc at all
# is listed, as SKIPPED.
known() {
	case $1 in
	test_link_down_is_interface_down_on_both_sides)
		echo "SKIPPED the ntb link fault is not reachable through PXImc" ;;
	*) return 1 ;;
	esac
}

# "name result" per case, from cmocka's output of one program on one provider.
run() {
	XRMA_PROVIDER=$2 timeout -s KILL "$limit" setsid -w "$build/$1" >"$dir/out" 2>&1
	sed -n 's/^\[ *\(OK\|FAILED\|SKIPPED\) *\] \(test_[A-Za-z0-9_]*\)$/\2 \1/p' "$dir/out" | sort -u
}

status=0
printf "%-52s %-8s %-8s %s\n" case ntb pximc note
for t in tests/conformance/sisci/test_sisci_multiproc tests/conformance/scif/test_scif_multiproc \
	 tests/conformance/pximc/test_pximc_multiproc; do
	[ -x "$build/$t" ] || { echo "FAIL: $t not built"; exit 1; }
	run "$t" ntb > "$dir/ntb"
	run "$t" pximc > "$dir/pximc"
	[ -s "$dir/ntb" ] || { echo "FAIL: $t printed no results on ntb"; status=1; }
	while read -r name ntb; do
		pximc=$(sed -n "s/^$name //p" "$dir/pximc")
		note=
		if [ "$pximc" != "$ntb" ]; then
			if expect=$(known "$name") && [ "${expect%% *}" = "$pximc" ]; then
				note=${expect#* }
			else
				note=UNEXPECTED
				status=1
			fi
		fi
		printf "%-52s %-8s %-8s %s\n" "$name" "$ntb" "${pximc:-none}" "$note"
	done < "$dir/ntb"
done
[ $status -eq 0 ] || echo "FAIL: a result on pximc differs from ntb beyond the known limits"
exit $status
