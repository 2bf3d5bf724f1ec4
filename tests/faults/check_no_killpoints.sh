#!/bin/sh
# tests/faults/check_no_killpoints.sh: fail if a library that gets installed carries the
# fault campaign's hook (common/killpoint.h): no xrma_killpoint symbol and no point name in
# libxrma, libscif, libsisci or libpximc_xrma. Only the test-only copies may have them.
# Skipped (77) only when libtool built no shared libraries (--disable-shared); a library
# that should exist and does not is a failure.

builddir=${XRMA_TEST_BUILDDIR:-.}
found=0
checked=0

for name in libxrma libscif libsisci libpximc_xrma; do
	la=$builddir/$name.la
	[ -f "$la" ] || { echo "FAIL: $la not built"; exit 1; }
	dlname=$(sed -n "s/^dlname='\(.*\)'$/\1/p" "$la")
	[ -n "$dlname" ] || continue
	lib=$builddir/.libs/$dlname
	[ -f "$lib" ] || { echo "FAIL: $lib missing although $la names it"; exit 1; }
	checked=$((checked + 1))
	# The function's name, and the names of points of every layer.
	if grep -a -q -e xrma_killpoint -e after_request -e mid_transfer -e mid_copy "$lib"; then
		echo "FAIL: $lib carries the kill point hook"
		found=1
	fi
done
if [ "$checked" -eq 0 ]; then
	echo "SKIP: configured without shared libraries"
	exit 77
fi
[ "$found" -eq 0 ] && echo "PASS: $checked installed libraries carry no kill point"
exit $found
