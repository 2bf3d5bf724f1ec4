# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/bench/test_xrma_bench.sh: the benchmark harness end to end on one tiny program (the
# floor, a few thousand iterations): it must run it, and write a results.csv whose rows have
# every column, a results.json that parses (python3 when there is one, else its shape) with as
# many rows, and a targets.csv. No figure is judged: benchmarks are programs, not tests.
set -u

build=${XRMA_TEST_BUILDDIR:-.}
out=$(mktemp -d "${TMPDIR:-/tmp}/xrma-bench-test.XXXXXX") || exit 99
trap 'rm -rf "$out"' EXIT
fail() {
	echo "FAIL: $*"
	for f in "$out"/logs/*; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done
	exit 1
}

sh "$build/tools/xrma-bench" --programs=xrma_bench_floor --sizes=4096 --repeat=1 --no-plots \
	--out="$out" >"$out/harness.txt" 2>&1 || fail "the harness exited $?: $(cat "$out/harness.txt")"

[ -s "$out/results.csv" ] || fail "no results.csv"
head -n 1 "$out/results.csv" | grep -q '^program,api,provider,operation,kind,bytes,' ||
	fail "results.csv has no column line"
rows=$(awk -F, 'NR > 1' "$out/results.csv" | wc -l)
[ "$rows" -ge 5 ] || fail "results.csv has $rows rows, expected the floor's latencies and copies"
bad=$(awk -F, 'NR > 1 && (NF != 22 || $1 != "xrma_bench_floor" || $9 !~ /^[0-9.]+$/)' "$out/results.csv")
[ -z "$bad" ] || fail "malformed rows: $bad"
grep -q ',memcpy,bandwidth,4096,' "$out/results.csv" || fail "no memcpy row at the largest size"

[ -s "$out/results.json" ] || fail "no results.json"
json_rows=$(grep -c '"program": "xrma_bench_floor"' "$out/results.json")
[ "$json_rows" -eq "$rows" ] || fail "results.json has $json_rows rows, results.csv $rows"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["rows"] and d["targets"]' \
		"$out/results.json" || fail "results.json does not parse"
else
	head -c 1 "$out/results.json" | grep -q '{' || fail "results.json is not an object"
fi
grep -q '^target,measure,goal,value,result$' "$out/targets.csv" || fail "no targets.csv"
# The floor alone measures none of the targets: none may claim a result.
judged=$(awk -F, 'NR > 1 && $5 != "not measured"' "$out/targets.csv")
[ -z "$judged" ] || fail "targets judged without their programs: $judged"
echo "PASS: harness ran the floor: $rows rows in CSV and JSON"
