#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/check_layout.sh: README.md's layout table against the source tree, read from disk.
# The table's first column names folders (`tests/`, `tests/faults/`); a row's second column
# names their subfolders (`unit/`). Fails when a named folder does not exist, when a top-level
# folder has no row, or when a subfolder of a row's folder is neither named in that row nor a
# row of its own. Hidden folders and what the build makes (autom4te.cache, build-aux,
# bench-results, build trees, distcheck's _build and _inst) are not part of the layout.

srcdir=${XRMA_TEST_SRCDIR:-.}
readme=$srcdir/README.md
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0

[ -f "$readme" ] || { echo "FAIL: $readme not found"; exit 1; }

# One line per row: "row FOLDER" for each folder of the first column, then "sub NAME" for
# each `name/` of the second column. A row with several folders accepts a name under any.
awk '
	/^## / { inside = ($0 == "## Layout"); next }
	!inside || !/^\|/ || /^\|[- |]*$/ { next }
	{
		n = split($0, cell, "|")
		if (n < 4 || cell[2] ~ /^ *folder *$/)
			next
		print "begin"
		text = cell[2]
		while (match(text, /`[^`]*`/)) {
			print "row " substr(text, RSTART + 1, RLENGTH - 2)
			text = substr(text, RSTART + RLENGTH)
		}
		text = cell[3]
		while (match(text, /`[^`]*`/)) {
			word = substr(text, RSTART + 1, RLENGTH - 2)
			if (word ~ /^[A-Za-z0-9_.-]+\/$/)
				print "sub " word
			else if (word ~ /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.\/-]*\/$/)
				print "path " word
			text = substr(text, RSTART + RLENGTH)
		}
	}
' "$readme" >"$tmp/table"

grep -q '^row ' "$tmp/table" || { echo "FAIL: README.md has no layout table under ## Layout"; exit 1; }
grep '^row ' "$tmp/table" | cut -c5- | sed 's|/*$|/|' | sort -u >"$tmp/rows"

# Folders of the tree under DIR (relative to srcdir), one level, as "dir/sub/".
subfolders() {
	for d in "$srcdir/$1"*/; do
		[ -d "$d" ] || continue
		name=$(basename "$d")
		case $name in
		.* | autom4te.cache | build-aux | bench-results | _build | _inst) continue ;;
		esac
		# A build tree inside the source tree (mkdir build && ../configure; distcheck's _build).
		[ -n "$(find "$d" -maxdepth 2 -name config.status 2>/dev/null)" ] && continue
		echo "$1$name/"
	done
}

# Named folders exist.
while read -r row; do
	[ -d "$srcdir/$row" ] || { echo "FAIL: README.md's layout names $row, which does not exist"; status=1; }
done <"$tmp/rows"

# Each row's names exist under one of its folders; collect "folder/name/" for the coverage check.
: >"$tmp/named"
awk '
	$1 == "begin" { if (rows != "") print rows "\t" subs; rows = subs = ""; next }
	$1 == "row" { rows = rows " " $2; next }
	$1 == "sub" || $1 == "path" { subs = subs " " $1 ":" $2 }
	END { if (rows != "") print rows "\t" subs }
' "$tmp/table" | while IFS='	' read -r rows subs; do
	for s in $subs; do
		kind=${s%%:*}
		word=${s#*:}
		if [ "$kind" = path ]; then
			if [ -d "$srcdir/$word" ]; then
				echo "$word" >>"$tmp/named"
			else
				echo "FAIL: README.md's layout names $word, which does not exist"
				echo x >>"$tmp/failed"
			fi
			continue
		fi
		found=
		for r in $rows; do
			r=${r%/}/
			if [ -d "$srcdir/$r$word" ]; then
				echo "$r$word" >>"$tmp/named"
				found=1
			fi
		done
		if [ -z "$found" ]; then
			echo "FAIL: README.md's layout names $word under$(printf ' %s' $rows), which does not exist"
			echo x >>"$tmp/failed"
		fi
	done
done
[ -f "$tmp/failed" ] && status=1

# Every top-level folder is a row; every subfolder of a row is named in it or is a row.
for top in $(subfolders ""); do
	grep -qx "$top" "$tmp/rows" || { echo "FAIL: $top is missing from README.md's layout table"; status=1; }
done
while read -r row; do
	[ -d "$srcdir/$row" ] || continue
	for sub in $(subfolders "$row"); do
		grep -qx "$sub" "$tmp/rows" "$tmp/named" ||
			{ echo "FAIL: $sub is missing from README.md's layout table (row $row)"; status=1; }
	done
done <"$tmp/rows"

[ $status -eq 0 ] && echo "PASS: README.md's layout table matches the folders of $srcdir"
exit $status
