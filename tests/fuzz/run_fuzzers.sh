#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/fuzz/run_fuzzers.sh: run each libFuzzer target (built by `make fuzz`) for a bounded
# time, starting from a copy of its committed seeds and regression inputs. A finding is
# kept in tests/fuzz/findings/ and fails the run: add the file to tests/fuzz/regress/TARGET/
# (make check replays it from then on) and fix the code.
# Usage: run_fuzzers.sh SRCDIR SECONDS TARGET...   (from the build directory)
set -u

srcdir=$1
seconds=$2
shift 2
passed=0
failed=0
for t in "$@"; do
	work=tests/fuzz/work/$t
	findings=tests/fuzz/findings
	rm -rf "$work"
	mkdir -p "$work" "$findings"
	cp "$srcdir/tests/fuzz/corpus/$t/"* "$work/"
	find "$srcdir/tests/fuzz/regress/$t" -type f ! -name README -exec cp {} "$work/" \;
	echo "fuzz: $t for ${seconds}s"
	if "tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$findings/$t-" "$work" > "tests/fuzz/$t.log" 2>&1; then
		passed=$((passed + 1))
		grep -E '^stat::number_of_executed_units|^Done' "tests/fuzz/$t.log" || true
	else
		failed=$((failed + 1))
		tail -n 60 "tests/fuzz/$t.log"
		echo "fuzz: $t FAILED; inputs kept in $findings/ (add them to tests/fuzz/regress/$t/):"
		ls -l "$findings"
	fi
	rm -rf "$work"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
