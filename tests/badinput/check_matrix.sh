#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/badinput/check_matrix.sh: the bad-input matrix covers every public function. Lists
# the functions declared in sisci_api.h, scif.h and pximc.h (exported prototypes and inline
# helpers) and fails when one has no "fn" row in matrix.def, or when a row names a function
# no header declares (a typo would otherwise drop its cases silently).
set -eu

srcdir=${XRMA_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
def=$srcdir/tests/badinput/matrix.def
tmp=${TMPDIR:-/tmp}/check_matrix.$$
trap 'rm -f "$tmp".*' EXIT INT TERM

# The declarations, as the man pages' generator reads them (the one header parser).
for h in sisci_api.h scif.h pximc.h; do
	sh "$srcdir/docs/man/mkman.sh" --list "$srcdir/include/$h"
done | sort -u > "$tmp.headers"
awk '$1 == "fn" { print $3 }' "$def" | sort > "$tmp.table"

count=$(wc -l < "$tmp.headers")
if [ "$count" -lt 100 ]; then
	echo "check_matrix: only $count functions found in the headers: the parser is broken" >&2
	exit 1
fi
status=0
missing=$(comm -23 "$tmp.headers" "$tmp.table")
unknown=$(comm -13 "$tmp.headers" "$tmp.table" | sort -u)
twice=$(uniq -d "$tmp.table")
if [ -n "$missing" ]; then
	echo "check_matrix: functions without a row in matrix.def:" $missing >&2
	status=1
fi
if [ -n "$unknown" ]; then
	echo "check_matrix: rows naming no declared function:" $unknown >&2
	status=1
fi
if [ -n "$twice" ]; then
	echo "check_matrix: functions with more than one row:" $twice >&2
	status=1
fi
[ $status -eq 0 ] && echo "1 passed, 0 failed: $count functions, each with a row"
exit $status
