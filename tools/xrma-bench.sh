#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/xrma-bench: the benchmark suite's harness. Runs the bundled benchmark pairs (the
# examples and the baseline programs of tools/bench) over the chosen providers, collects their
# rows (the one CSV format of examples/common/bench.h), adds ratios to the baselines measured
# in the same run (the floor: cache-line ping-pong, memcpy; the peer: libfabric shm), checks the
# performance targets, and writes results.csv, results.json, targets.csv, machine.txt and,
# when gnuplot is installed, latency and bandwidth plots (PNG and SVG). docs/benchmarks.md
# says what each benchmark measures. Built as tools/xrma-bench from tools/xrma-bench.sh.
set -u

me=xrma-bench
# The build tree is the one this script sits in (BUILDDIR/tools/xrma-bench), found at run
# time so a copied or moved tree runs its own programs.
builddir=${XRMA_BENCH_BUILDDIR:-$(cd "$(dirname "$0")/.." && pwd)}
# The ofi provider is a module: this tree's, unless the caller names other directories.
XRMA_PROVIDER_PATH=${XRMA_PROVIDER_PATH:-$builddir/providers/ofi/.libs}
export XRMA_PROVIDER_PATH

usage() {
	cat <<EOF
usage: $me [--full] [--providers=LIST] [--programs=LIST] [--sizes=MAX] [--repeat=N]
                  [--fabrics=LIST] [--out=DIR] [--no-plots] [--list]
  --full            the full suite (more iterations and sizes); default: the short suite
  --providers=LIST  xrma providers, comma-separated (default ntb,ofi); host programs run on
                    each provider but ofi, the ofi program when ofi is listed
  --programs=LIST   only these programs (names as --list prints them)
  --sizes=MAX       largest transfer in bytes (passed as -s)
  --repeat=N        repetitions of every measurement (passed as -r)
  --fabrics=LIST    libfabric providers of the peer baseline (default shm,tcp;ofi_rxm)
  --out=DIR         where results go (default ./bench-results)
  --no-plots        do not render plots
Environment: XRMA_BENCH_BUILDDIR, the build tree holding the programs.
EOF
}

# The suite: name|program|where it runs|short-suite options|full-suite options.
# where: once (a baseline), host (on each provider whose nodes are processes), ofi.
# The targets read 1 MiB rows: programs whose sizes step past it end on it (-s 1048576).
suite() {
	cat <<'EOF'
xrma_bench_floor|tools/bench/xrma_bench_floor|once|-i 2000 -r 41 -s 1048576|-i 5000 -r 63 -s 16777216
xrma_bench_fabric|tools/bench/xrma_bench_fabric|once|-i 100 -r 11 -s 1048576|-i 200 -r 11 -s 1048576
xrma_pingpong|examples/core/xrma_pingpong|host|-i 2000 -r 41 -s 1048576|-i 5000 -r 63 -s 1048576
sisci_scipp|examples/sisci/sisci_scipp|host|-i 1000 -r 41 -s 8192|-i 2000 -r 63 -s 65536
sisci_dma_bench|examples/sisci/sisci_dma_bench|host|-i 2000 -r 21 -s 1048576|-i 4000 -r 41 -s 16777216
sisci_pio_bw|examples/sisci/sisci_pio_bw|host|-i 1000 -r 21 -s 1048576|-i 4000 -r 41 -s 4194304
sisci_intr_bench|examples/sisci/sisci_intr_bench|host|-i 200 -r 21|-i 300 -r 31
scif_pingpong|examples/scif/scif_pingpong|host|-i 200 -r 21 -s 65536|-i 200 -r 21 -s 262144
scif_rma_bw|examples/scif/scif_rma_bw|host|-i 20 -r 11 -s 1048576|-i 50 -r 21 -s 1048576
scif_fence_lat|examples/scif/scif_fence_lat|host|-i 200 -r 21|-i 300 -r 31
scif_mmap_bw|examples/scif/scif_mmap_bw|host|-i 20 -r 11 -s 1048576|-i 50 -r 21 -s 4194304
pximc_pingpong|examples/pximc/pximc_pingpong|host|-i 500 -r 21|-i 1000 -r 31
ofi_rma_bench|examples/ofi/ofi_rma_bench|ofi|-i 100 -r 11 -s 1048576|-i 200 -r 11 -s 1048576
EOF
}

full=0 providers=ntb,ofi programs= sizes= repeat= out=bench-results plots=1
fabrics='shm,tcp;ofi_rxm'
for arg in "$@"; do
	case $arg in
	--full) full=1 ;;
	--providers=*) providers=${arg#*=} ;;
	--programs=*) programs=${arg#*=} ;;
	--sizes=*) sizes=${arg#*=} ;;
	--repeat=*) repeat=${arg#*=} ;;
	--fabrics=*) fabrics=${arg#*=} ;;
	--out=*) out=${arg#*=} ;;
	--no-plots) plots=0 ;;
	--list) suite | cut -d'|' -f1,3 | tr '|' ' '; exit 0 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
case $sizes in *[!0-9]*) echo "$me: --sizes takes a number of bytes" >&2; exit 2 ;; esac
case $repeat in *[!0-9]* | 0) echo "$me: --repeat takes a positive number" >&2; exit 2 ;; esac

in_list() { # in_list WORD COMMA-LIST
	case ",$2," in *",$1,"*) return 0 ;; esac
	return 1
}

# The runs: program|provider|path|options, one a line.
plan=$(suite | while IFS='|' read -r name path where short long; do
	[ -z "$programs" ] || in_list "$name" "$programs" || continue
	[ "$full" = 1 ] && opts=$long || opts=$short
	[ -z "$sizes" ] || opts=$(echo "$opts" | sed "s/-s [0-9]*/-s $sizes/")
	[ -z "$repeat" ] || opts=$(echo "$opts" | sed "s/-r [0-9]*/-r $repeat/")
	case $where in
	once) echo "$name|-|$path|$opts" ;;
	ofi) in_list ofi "$providers" && echo "$name|ofi|$path|$opts" ;;
	host) for p in $(echo "$providers" | tr ',' ' '); do
		[ "$p" = ofi ] || echo "$name|$p|$path|$opts"
	done ;;
	esac
done)
total=$(printf '%s\n' "$plan" | grep -c .)
if [ "$total" -eq 0 ]; then
	echo "$me: nothing to run (see --list)" >&2
	exit 2
fi

mkdir -p "$out/logs" || exit 1
out=$(cd "$out" && pwd)
rows=$out/rows.csv
: >"$rows"
: >"$out/skipped.txt"

# The machine, once: what the figures were measured on.
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
	echo "processing units: $(getconf _NPROCESSORS_ONLN 2>/dev/null)"
	echo "kernel: $(uname -sr)"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
	echo "suite: $([ "$full" = 1 ] && echo full || echo short)"
	echo "providers: $providers; libfabric baseline providers: $fabrics"
} >"$out/machine.txt"

tty=0
[ -t 1 ] && tty=1
bar() { # bar DONE LABEL
	if [ "$tty" = 1 ]; then
		hashes=$(awk -v n=$(($1 * 30 / total)) 'BEGIN { while (n-- > 0) printf "#" }')
		printf '\r[%-30s] %2d/%d %-40.40s' "$hashes" "$1" "$total" "$2"
	fi
}

limit=
command -v timeout >/dev/null 2>&1 && limit="timeout 600"
start=$(date +%s)
n=0
printf '%s\n' "$plan" | {
	while IFS='|' read -r name provider path opts; do
		bar "$n" "$name ($provider)"
		log=$out/logs/$name-$(echo "$provider" | tr -c 'A-Za-z0-9\n' _)
		t0=$(date +%s)
		# A program that hangs is stopped (and reported) rather than stopping the suite.
		if [ "$provider" = - ]; then
			# shellcheck disable=SC2086 # options are words
			env XRMA_BENCH_FORMAT=csv XRMA_BENCH_FABRICS="$fabrics" $limit \
				"$builddir/$path" $opts >"$log.csv" 2>"$log.err" </dev/null
		else
			# shellcheck disable=SC2086
			env XRMA_BENCH_FORMAT=csv XRMA_PROVIDER="$provider" $limit \
				"$builddir/$path" $opts >"$log.csv" 2>"$log.err" </dev/null
		fi
		rc=$?
		n=$((n + 1))
		# Rows only: the common format has 16 fields and its own column line.
		awk -F, 'NF == 16 && $1 != "program"' "$log.csv" >>"$rows"
		got=$(awk -F, 'NF == 16 && $1 != "program"' "$log.csv" | wc -l)
		if [ "$rc" -ne 0 ]; then
			why=$(grep -v '^$' "$log.err" | tail -n 1)
			echo "$name ($provider): exit $rc: ${why:-no message}" >>"$out/skipped.txt"
		fi
		if [ "$tty" = 0 ]; then
			echo "$me: [$n/$total] $name ($provider): $got rows, $(($(date +%s) - t0)) s$([ "$rc" -ne 0 ] && echo ", failed (exit $rc)")"
		fi
	done
	bar "$n" "done"
	[ "$tty" = 1 ] && echo
}
echo "$me: $total runs in $(($(date +%s) - start)) s"

# ---- results.csv: the rows plus their ratios to the floor and to libfabric (shm) ----
columns=$(awk -F, 'NR == 1 && $1 == "program"' "$out"/logs/*.csv 2>/dev/null | head -n 1)
[ -n "$columns" ] || columns="program,api,provider,operation,kind,bytes,iterations,repetitions,median_ns,best_ns,worst_ns,mbps,baseline,baseline_median_ns,baseline_best_ns,time_ratio"
awk -F, -v OFS=, -v columns="$columns" '
	# Floors: the faster cache-line ping-pong, memcpy per size; the peer: libfabric shm.
	NR == FNR {
		if ($2 == "floor" && $4 ~ /^cacheline_pingpong/ && (line == "" || $9 < line))
			line = $9
		if ($2 == "floor" && $4 == "memcpy")
			copy[$6] = $9
		if ($2 == "libfabric" && $3 == "shm")
			fab[$4, $6] = $9
		next
	}
	FNR == 1 { print columns, "floor,floor_ns,floor_ratio,libfabric,libfabric_ns,libfabric_ratio" }
	{
		floor = ""; fns = ""; fr = ""; lib = ""; lns = ""; lr = ""
		if ($2 != "floor" && $2 != "libfabric") {
			if ($5 == "bandwidth" && ($6 in copy)) {
				floor = "memcpy"; fns = copy[$6]
			} else if ($5 == "latency" && $6 <= 64 && line != "") {
				floor = "cacheline_pingpong"; fns = line
			}
			lib = $4 ~ /pingpong/ ? "fi_write_pingpong" : $4 ~ /read/ ? "fi_read_sync" : "fi_write_sync"
			if ((lib, $6) in fab) lns = fab[lib, $6]; else lib = ""
			if (fns > 0) fr = sprintf("%.4f", $9 / fns)
			if (lns > 0) lr = sprintf("%.4f", $9 / lns)
		}
		print $0, floor, fns, fr, lib, lns, lr
	}' "$rows" "$rows" >"$out/results.csv"
[ -s "$rows" ] || awk -v c="$columns" 'BEGIN { print c ",floor,floor_ns,floor_ratio,libfabric,libfabric_ns,libfabric_ratio" }' >"$out/results.csv"
rm -f "$rows"

# ---- targets.csv: the goals, each a ratio from this run ----
awk -F, -v OFS=, '
	NR == 1 { next }
	function keep(key, v) { if (!(key in val)) val[key] = v }
	{
		if ($1 == "sisci_scipp" && $6 == 4) { keep("pio", $9); keep("pio_raw", $14) }
		if ($1 == "sisci_dma_bench" && $4 == "dma_write" && $6 == 1048576) keep("dma", $14 / $9)
		if ($1 == "sisci_dma_bench" && $4 == "dma_posted" && $6 == 64) keep("posted64", $16)
		if ($1 == "xrma_pingpong" && $4 == "rma_write_sync" && $6 == 1048576) keep("rma1m", $14 / $9)
		if ($1 == "scif_rma_bw" && $4 == "scif_writeto[sync]" && $6 == 1048576) keep("scif1m", $14 / $9)
		if ($1 == "xrma_pingpong" && $4 == "rma_write_sync" && $6 == 8) keep("rma8", $9)
		if ($2 == "libfabric" && $3 == "shm" && $4 == "fi_write_sync" && $6 == 8) keep("fab8", $9)
		if ($1 == "xrma_pingpong" && $4 == "interrupt_pingpong") { keep("intr", $9); keep("intr_raw", $14) }
		if ($2 == "floor" && $4 ~ /^cacheline_pingpong/ && (!("line" in val) || $9 < val["line"])) val["line"] = $9
		if ($1 == "ofi_rma_bench" && $4 == "rma_write_pingpong" && $6 == 8) keep("ofi_pp", $16)
		if ($1 == "ofi_rma_bench" && $4 ~ /^rma_write_stream/ && $6 == 8) keep("ofi_st8", $16)
		if ($1 == "ofi_rma_bench" && $4 ~ /^rma_write_stream/ && $6 + 0 >= val["ofi_big"] + 0) { val["ofi_big"] = $6; val["ofi_stbig"] = $16 }
	}
	function row(name, what, goal, value, ok) {
		if (value == "") { print name, what, goal, "", "not measured"; return }
		print name, what, goal, sprintf("%.3f", value), ok ? "met" : "missed"
	}
	function ratio(a, b) { return ((a in val) && val[b] > 0) ? val[a] / val[b] : "" }
	END {
		print "target,measure,goal,value,result"
		r = ratio("pio", "line")
		row("pio_4B", "SISCI scipp 4 B one-way / cache-line one-way (floor)", "<= 1.25", r, r != "" && r <= 1.25)
		r = ("pio" in val && val["pio_raw"] > 0) ? val["pio"] / val["pio_raw"] : ""
		row("pio_4B_same_pair", "SISCI scipp 4 B one-way / raw page ping-pong of the same pair", "<= 1.25", r, r != "" && r <= 1.25)
		for (k = 1; k <= 3; k++) {
			key = k == 1 ? "dma" : k == 2 ? "rma1m" : "scif1m"
			what = k == 1 ? "SISCI DMA write 1 MiB bandwidth / memcpy" : k == 2 ? "xrma RMA write (sync) 1 MiB bandwidth / memcpy" : "SCIF scif_writeto (sync) 1 MiB bandwidth / memcpy"
			r = (key in val) ? val[key] : ""
			row("dma_rma_1MiB", what, ">= 0.9", r, r != "" && r >= 0.9)
		}
		r = ("posted64" in val) ? val["posted64"] : ""
		row("dma_posted_64B", "SISCI posted 64 B DMA start-to-wait time / SCIStartDmaTransfer(DMA_WAIT) time (same run)", "<= 2", r, r != "" && r <= 2)
		r = ("rma8" in val) ? val["rma8"] / 1000 : ""
		row("rma_8B_us", "xrma RMA write (sync) 8 B in microseconds", "<= 0.3", r, r != "" && r <= 0.3)
		r = ("rma8" in val && val["fab8"] > 0) ? val["fab8"] / val["rma8"] : ""
		row("rma_8B_vs_libfabric", "libfabric shm fi_write (sync) 8 B time / xrma time (speed-up)", ">= 3", r, r != "" && r >= 3)
		r = ("intr" in val && val["intr_raw"] > 0) ? val["intr"] / val["intr_raw"] : ""
		row("interrupt_rt", "interrupt round trip / cache-line round trip (same pair)", "<= 1.5", r, r != "" && r <= 1.5)
		r = ratio("intr", "line")
		row("interrupt_rt_floor", "interrupt round trip / cache-line round trip (floor)", "<= 1.5", r, r != "" && r <= 1.5)
		r = ("ofi_pp" in val) ? val["ofi_pp"] : ""
		row("ofi_pingpong_8B", "xrma over ofi / raw libfabric: 8 B write ping-pong", "<= 1.15", r, r != "" && r <= 1.15)
		r = ("ofi_st8" in val) ? val["ofi_st8"] : ""
		row("ofi_stream_8B", "xrma over ofi / raw libfabric: 8 B writes 16 in flight", "<= 1.15", r, r != "" && r <= 1.15)
		r = ("ofi_stbig" in val) ? val["ofi_stbig"] : ""
		row("ofi_stream_largest", "xrma over ofi / raw libfabric: " (val["ofi_big"] != "" ? val["ofi_big"] " B" : "largest") " writes 16 in flight", "<= 1.15", r, r != "" && r <= 1.15)
	}' "$out/results.csv" >"$out/targets.csv"

# ---- results.json: the machine, the rows, the targets ----
awk -F, '
	function str(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
	function value(s) { return s ~ /^-?[0-9]+(\.[0-9]+)?$/ ? s : s == "" ? "null" : str(s) }
	FILENAME ~ /machine.txt$/ {
		split($0, kv, ": "); k = kv[1]; v = substr($0, length(k) + 3)
		machine = machine (machine == "" ? "" : ", ") str(k) ": " str(v); next
	}
	FNR == 1 { n = split($0, head, ","); section = FILENAME ~ /targets.csv$/ ? "targets" : "rows"; next }
	{
		line = "{"
		for (i = 1; i <= n; i++) line = line (i > 1 ? ", " : "") str(head[i]) ": " value($i)
		list[section] = list[section] (list[section] == "" ? "\n    " : ",\n    ") line "}"
	}
	END {
		printf "{\n  \"machine\": {%s},\n  \"rows\": [%s\n  ],\n  \"targets\": [%s\n  ]\n}\n", machine, list["rows"], list["targets"]
	}' "$out/machine.txt" "$out/results.csv" "$out/targets.csv" >"$out/results.json"

# ---- summary.md: the targets and one line per series, for docs/benchmarks.md ----
{
	echo "| target | measure | goal | value | result |"
	echo "|---|---|---|---|---|"
	awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$out/targets.csv"
	echo
	echo "| program | api/provider | operation | smallest size: median (best) | x same-run baseline | x floor | largest size: median | x same-run baseline |"
	echo "|---|---|---|---|---|---|---|---|"
	awk -F, '
		NR == 1 { next }
		{
			key = $1 SUBSEP $2 "/" $3 SUBSEP $4
			if (!(key in first)) { order[++n] = key; first[key] = $0 }
			last[key] = $0
		}
		function cell(v, f) { return v == "" ? "-" : sprintf(f, v) }
		END {
			for (i = 1; i <= n; i++) {
				split(order[i], k, SUBSEP); split(first[order[i]], a, ","); split(last[order[i]], b, ",")
				# Latency series: time, time ratio; bandwidth series end in MB/s and its ratio.
				bw = b[5] == "bandwidth"
				printf "| %s | %s | %s | %s B: %s ns (%s) | %s | %s | %s B: %s | %s |\n", k[1], k[2], k[3],
					a[6], cell(a[9], "%.0f"), cell(a[10], "%.0f"), cell(a[16], "%.2f"), cell(a[19], "%.2f"),
					b[6], bw ? cell(b[12], "%.0f MB/s") : cell(b[9], "%.0f ns"),
					b[16] == "" ? "-" : sprintf("%.2f", bw ? 1 / b[16] : b[16])
			}
		}' "$out/results.csv"
} >"$out/summary.md"

# ---- plots: latency and bandwidth against size, every series, beside the floor and libfabric ----
plot() {
	data=$out/plot-data
	rm -rf "$data"
	mkdir -p "$data"
	# One file per series; SCIF's RMA modes other than sync would crowd the plot (CSV has them).
	awk -F, -v dir="$data" '
		NR == 1 || $6 == 0 || ($4 ~ /\[/ && $4 !~ /\[sync\]/) { next }
		{
			key = $5 "|" $2 "/" $3 " " $1 ":" $4
			if (!(key in file)) {
				file[key] = sprintf("%s/%s-%03d.dat", dir, $5, ++count[$5])
				print "# " $2 "/" $3 " " $4 >file[key]
			}
			print $6, ($5 == "latency" ? $9 : $12) >>file[key]
		}' "$out/results.csv"
	for kind in latency bandwidth; do
		set -- "$data/$kind"-*.dat
		[ -e "$1" ] || continue
		{
			if [ "$kind" = latency ]; then
				echo 'set ylabel "one-way or per-operation time (ns, median)"'
				echo 'set title "Latency against size (lower is better)"'
			else
				echo 'set ylabel "MB/s (median)"'
				echo 'set title "Bandwidth against size (higher is better)"'
			fi
			echo 'set xlabel "bytes"; set logscale xy 2; set format x "%.0b%B"; set grid'
			echo 'set key outside right top font ",8" spacing 0.9; set termoption noenhanced'
			printf 'plot'
			sep=' '
			for f in "$@"; do
				title=$(head -n 1 "$f" | sed 's/^# //; s/"/'"'"'/g')
				style='linespoints'
				case $title in floor/* | libfabric/*) style='linespoints dt 2 lw 2 pt 7' ;; esac
				printf '%s"plot-data/%s" using 1:2 with %s title "%s"' "$sep" "${f##*/}" "$style" "$title"
				sep=', '
			done
			echo
		} >"$out/$kind.gp"
		for term in "pngcairo size 1200,700 font \",10\"|png" "svg size 1200,700 dynamic|svg"; do
			ext=${term#*|}
			{ echo "set terminal ${term%|*}"; echo "set output \"$kind.$ext\""; cat "$out/$kind.gp"; } |
				(cd "$out" && gnuplot) 2>>"$out/logs/gnuplot.err" || echo "$me: gnuplot failed on $kind.$ext (see logs/gnuplot.err)" >&2
		done
	done
}
if [ "$plots" = 1 ]; then
	if command -v gnuplot >/dev/null 2>&1; then
		plot && echo "$me: plots: $out/latency.{png,svg} $out/bandwidth.{png,svg}"
	else
		echo "$me: gnuplot is not installed: no plots, the figures are in $out/results.csv (scripts/setup-debian.sh --bench installs it)"
	fi
fi

echo "$me: results: $out/results.csv $out/results.json"
echo "$me: targets (each a ratio from this run; $out/targets.csv):"
awk -F, 'NR > 1 { printf "  %-22s %-9s %8s  %-12s %s\n", $1, $3, $4, $5, $2 }' "$out/targets.csv"
if [ -s "$out/skipped.txt" ]; then
	echo "$me: runs that failed or were skipped:"
	sed 's/^/  /' "$out/skipped.txt"
fi
exit 0
