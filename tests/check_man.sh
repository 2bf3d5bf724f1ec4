#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/check_man.sh: every function declared in xrma/*.h, sisci_api.h, scif.h and pximc.h
# has a section 3 page; the committed pages and docs/man/pages.am are what docs/man/mkman.sh makes
# from docs/man/src today; and, where groff is installed, every page (the generated ones, the
# overview pages and the section 1 pages) renders without a warning.

srcdir=${XRMA_TEST_SRCDIR:-.}
man=$srcdir/docs/man
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0

for h in "$srcdir"/include/xrma/*.h "$srcdir/include/sisci_api.h" "$srcdir/include/scif.h" \
	"$srcdir/include/pximc.h"; do
	for f in $(sh "$man/mkman.sh" --list "$h"); do
		if [ ! -f "$man/man3/$f.3" ]; then
			echo "FAIL: $f (${h#"$srcdir"/include/}) has no page docs/man/man3/$f.3"
			status=1
		fi
	done
done

if ! sh "$man/mkman.sh" "$srcdir" "$tmp/man3"; then
	echo "FAIL: docs/man/mkman.sh failed"
	exit 1
fi
for page in "$tmp"/man3/*.3; do
	name=$(basename "$page")
	if ! cmp -s "$page" "$man/man3/$name"; then
		echo "FAIL: docs/man/man3/$name differs from its source: run docs/man/mkman.sh . docs/man/man3"
		status=1
	fi
done
for page in "$man"/man3/*.3; do
	[ -f "$tmp/man3/$(basename "$page")" ] || {
		echo "FAIL: $page has no source entry"
		status=1
	}
done
sh "$man/mkman.sh" --am "$srcdir" >"$tmp/pages.am"
if ! cmp -s "$tmp/pages.am" "$man/pages.am"; then
	echo "FAIL: docs/man/pages.am is stale: run docs/man/mkman.sh --am . > docs/man/pages.am"
	status=1
fi

if command -v groff >/dev/null 2>&1; then
	for page in "$man"/man3/*.3 "$man"/*.3 "$man"/*.1; do
		out=$(groff -man -z -ww "$page" 2>&1)
		if [ -n "$out" ]; then
			echo "FAIL: groff warns about $page:"
			echo "$out"
			status=1
		fi
	done
else
	echo "groff not installed: pages not rendered"
fi
exit $status
