#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/valgrind/run_examples.sh: run the examples under valgrind memcheck on the default
# provider (ntb), with short iteration counts. The examples start their peer process
# themselves (fork and exec of /proc/self/exe); --trace-children puts that process under
# memcheck too. Any memcheck error or definite leak in either process fails the example.
# Not part of make check (minutes, not seconds): `make valgrind-examples` and CI run it.
# Usage: run_examples.sh SRCDIR   (from the build directory, after make)
set -u

srcdir=${1:-.}
supp=$srcdir/tests/valgrind/xrma.supp
logdir=tests/valgrind/logs
rm -rf "$logdir"
mkdir -p "$logdir"

# Short runs: a few iterations of small sizes exercise every path the full run takes.
# Not here: scif_mmap_bw (its card registers heap memory in place; under memcheck the heap
# is the tool's private mapping, which cannot be shared, so the example has nothing to
# measure and says so) and ofi_rma_bench (the ofi provider, not the default one).
short="-i 10 -r 1 -s 4096"
examples="
examples/core/xrma_pingpong $short
examples/scif/scif_pingpong $short
examples/scif/scif_rma_bw $short
examples/scif/scif_fence_lat $short
examples/sisci/sisci_scipp $short
examples/sisci/sisci_dma_bench $short
examples/sisci/sisci_intr_bench $short
examples/sisci/sisci_pio_bw $short
examples/sisci/sisci_broadcast $short
examples/pximc/pximc_pingpong $short
examples/pximc/pximc_appendix_a
"

# run_one NAME PROG ARGS...: one run under memcheck; sets status and errors.
run_one() {
	log=$logdir/$1.log
	shift
	rm -f "$log" "$log".*
	# shellcheck disable=SC2086 # args are meant to split
	if timeout 300 ./libtool --mode=execute valgrind --tool=memcheck --trace-children=yes \
		--error-exitcode=99 --leak-check=full --show-leak-kinds=definite \
		--errors-for-leak-kinds=definite --suppressions="$supp" --log-file="$log.%p" \
		"$@" > "$log" 2>&1; then
		status=0
	else
		status=$?
	fi
	# A peer's errors are in its own log; its exit code reaches the parent's only
	# through the example, so read every process's summary.
	errors=$(cat "$log".* 2>/dev/null | grep -E 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]' || true)
}

echo "$examples" | while read -r prog args; do
	[ -n "$prog" ] || continue
	name=$(basename "$prog")
	# shellcheck disable=SC2086 # args are meant to split
	run_one "$name" "$prog" $args
	# The examples give their peer a few seconds; memcheck on a loaded machine can take
	# longer to start one. A run that failed with clean memcheck logs gets one more try.
	if [ "$status" -ne 0 ] && [ "$status" -ne 99 ] && [ -z "$errors" ]; then
		echo "retry: $name (exit $status, memcheck clean)"
		# shellcheck disable=SC2086
		run_one "$name" "$prog" $args
	fi
	if [ "$status" -eq 0 ] && [ -z "$errors" ]; then
		echo "PASS: $name ($(ls "$log".* | wc -l) processes)"
		echo pass >> "$logdir/results"
	else
		echo "FAIL: $name (exit $status)"
		cat "$log" "$log".* | tail -n 80
		echo fail >> "$logdir/results"
	fi
done
passed=$(grep -c pass "$logdir/results" 2>/dev/null || true)
failed=$(grep -c fail "$logdir/results" 2>/dev/null || true)
echo "valgrind: ${passed:-0} passed, ${failed:-0} failed"
[ "${failed:-0}" -eq 0 ] && [ "${passed:-0}" -gt 0 ]
