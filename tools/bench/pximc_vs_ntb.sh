#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/bench/pximc_vs_ntb.sh: the SISCI PIO ping-pong (sisci_scipp), DMA bandwidth
# (sisci_dma_bench) and SCIF RMA time per transfer (scif_rma_bw) run directly on ntb and on
# pximc (xrma's PXImc vendor library on ntb), back to back in one run, and one table of the
# slowdown of pximc against ntb per size (latency and time: pximc/ntb; bandwidth: ntb/pximc;
# 1.00 = equal). Medians and best runs both, since a shared machine makes medians noisy.
#   tools/bench/pximc_vs_ntb.sh [BUILDDIR] [extra benchmark options, e.g. -s 65536]
set -e
build=$(cd "${1:-.}" && pwd)
[ $# -gt 0 ] && shift
vendors=$(mktemp -d /tmp/pximc-bench-XXXXXX)
out=$(mktemp -d /tmp/pximc-bench-out-XXXXXX)
trap 'rm -rf "$vendors" "$out"' EXIT
ln -s "$build/.libs/libpximc_xrma.so" "$vendors/libpximc_xrma.so"
export PXIMC_VENDOR_PATH="$vendors"
export XRMA_PXIMC_DISPATCHER="$build/.libs/libpximc.so.0"
export XRMA_PXIMC_VENDOR_PROVIDER=ntb

for bench in sisci/sisci_scipp sisci/sisci_dma_bench; do
	for provider in ntb pximc; do
		XRMA_PROVIDER=$provider "$build/examples/$bench" --csv "$@" \
			> "$out/${bench#*/}.$provider.csv"
	done
done
# scif_rma_bw's sections are named only in its table form.
for provider in ntb pximc; do
	XRMA_PROVIDER=$provider "$build/examples/scif/scif_rma_bw" "$@" > "$out/scif_rma_bw.$provider.txt"
done

# The harness's CSV (examples/common/bench.h): "program,api,provider,operation,kind,bytes,
# iterations,repetitions,median_ns,best_ns,...", one row per operation and size. Bandwidth
# rows are shown as GB/s (bytes per ns of one transfer); slowdowns are times either way.
compare() {
	awk -F, -v kind="$2" -v name="$1" '
		FNR == 1 { file++ }
		$1 != name { next }
		{ key = $4 "," $6
		  if (file == 1) { nmed[key] = $9; nmin[key] = $10; order[++n] = key }
		  else { pmed[key] = $9; pmin[key] = $10 } }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]; split(k, part, ",")
				if (!(k in pmed) || pmed[k] == 0 || nmed[k] == 0 || pmin[k] == 0 || nmin[k] == 0)
					continue
				label = name (kind == "bw" ? " " part[1] : "")
				if (kind == "lat") { a = nmed[k]; b = pmed[k]; c = nmin[k]; d = pmin[k] }
				else { a = part[2] / nmed[k]; b = part[2] / pmed[k]
				       c = part[2] / nmin[k]; d = part[2] / pmin[k] }
				printf "%-22s %10s %12.4f %12.4f %7.3f %12.4f %12.4f %7.3f\n", label, part[2],
				       a, b, pmed[k] / nmed[k], c, d, pmin[k] / nmin[k]
			}
		}' "$out/$1.ntb.csv" "$out/$1.pximc.csv"
}

# Table form: "# name[flags] provider=..." starts a section, rows are "bytes iters median min ...".
compare_table() {
	awk -v name="$1" '
		FNR == 1 { file++ }
		/^# / { label = $2; next }
		/^ *[0-9]/ { key = label " " $1
			     if (file == 1) { nmed[key] = $3; nmin[key] = $4; order[++n] = key }
			     else { pmed[key] = $3; pmin[key] = $4 } }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]; split(k, part, " ")
				if (!(k in pmed) || nmed[k] == 0 || nmin[k] == 0) continue
				printf "%-34s %10s %12.4f %12.4f %7.3f %12.4f %12.4f %7.3f\n", part[1], part[2],
				       nmed[k], pmed[k], pmed[k] / nmed[k], nmin[k], pmin[k], pmin[k] / nmin[k]
			}
		}' "$out/$1.ntb.txt" "$out/$1.pximc.txt"
}

echo "# pximc (xrma PXImc vendor library on ntb) against ntb, $(nproc) cpus, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# latency rows: ns (slowdown pximc/ntb); bandwidth rows: GB/s (slowdown ntb/pximc)"
printf "%-22s %10s %12s %12s %7s %12s %12s %7s\n" benchmark bytes ntb_median pximc_median \
	slow ntb_best pximc_best slow_best
compare sisci_scipp lat
compare sisci_dma_bench bw
echo "# SCIF RMA: us per transfer (slowdown pximc/ntb)"
compare_table scif_rma_bw
