#!/usr/bin/env bash
# sbx record overhead, side by side with perf record at the same event and
# frequency, on the same workloads, runs interleaved:
#
#   scripts/bench/record.sh [N]      N runs per figure (default 5; ~3 minutes)
#
# For each recorder: the wall time of the whole command (workload +
# recording + writing the file), its CPU time (user+sys, children
# included), and the samples it wrote; the workload alone is the baseline.
# Ratios sbx/perf below 1 mean sbx costs less. SBX names the binary
# (default build/default/sbx). On a loaded machine the spread grows: say so with the
# figures. Needs perf and the tests/workloads binaries (make).
set -eu
cd "$(dirname "$0")/../.."
SBX=${SBX:-$PWD/build/default/sbx}	# the optimized build: ./sbx is whichever build ran last
N=${1:-5}
NOPLOOP=tests/workloads/noploop
FREQ=4000

[ -x "$NOPLOOP" ] || { echo "record.sh: build the workloads first (make)" >&2; exit 1; }
command -v perf >/dev/null || { echo "record.sh: perf is not installed" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median of a file of numbers
median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.4f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# run NAME CMD...: one run; appends wall s, cpu s to $tmp/NAME.{wall,cpu}
run() {
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" > /dev/null 2> "$tmp/$name.err" ||
		{ echo "record.sh: $name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
	read -r wall user sys < "$tmp/time"
	echo "$wall" >> "$tmp/$name.wall"
	awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }' >> "$tmp/$name.cpu"
}

samples_perf() { perf script -F period -i "$1" 2>/dev/null | wc -l; }
samples_sbx() { sed -n 's/^\[ sbx record: \([0-9]*\) samples.*/\1/p' "$tmp/sbx.err"; }

# bench TITLE EVENT-ARGS... -- WORKLOAD...
bench() {
	local title=$1
	shift
	local ev=()
	while [ "$1" != -- ]; do ev+=("$1"); shift; done
	shift
	rm -f "$tmp"/*.wall "$tmp"/*.cpu
	for _ in $(seq "$N"); do
		run base "$@"
		run perf perf record -q "${ev[@]}" -o "$tmp/perf.data" -- "$@"
		run sbx "$SBX" record "${ev[@]}" -o "$tmp/sbx.data" -- "$@"
	done
	local bw pw sw bc pc sc ps ss
	bw=$(median "$tmp/base.wall") pw=$(median "$tmp/perf.wall") sw=$(median "$tmp/sbx.wall")
	bc=$(median "$tmp/base.cpu") pc=$(median "$tmp/perf.cpu") sc=$(median "$tmp/sbx.cpu")
	ps=$(samples_perf "$tmp/perf.data")
	ss=$(samples_sbx)
	echo "### $title"
	echo
	echo "| | wall s (median) | CPU s (median) | samples (last run) | MB |"
	echo "|---|---|---|---|---|"
	echo "| workload alone | $bw | $bc | | |"
	echo "| perf record | $pw | $pc | $ps | $(du -m "$tmp/perf.data" | cut -f1) |"
	echo "| sbx record | $sw | $sc | $ss | $(du -m "$tmp/sbx.data" | cut -f1) |"
	echo
	awk -v b="$bw" -v p="$pw" -v s="$sw" -v bc="$bc" -v pc="$pc" -v sc="$sc" 'BEGIN {
		printf "wall overhead: perf +%.1f%%, sbx +%.1f%%; sbx/perf wall ratio %.3f, CPU ratio %.3f\n\n",
			100 * (p - b) / b, 100 * (s - b) / b, s / p, sc / pc }'
}

echo "# sbx record vs perf record ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $N runs each, interleaved)"
echo
bench "cpu-clock at $FREQ Hz, noploop 1500 (CPU-bound, ~1.8 s)" \
	-e cpu-clock -F "$FREQ" -- "$NOPLOOP" 1500
bench "cpu-clock at $FREQ Hz with call chains (-g), noploop 1500" \
	-e cpu-clock -F "$FREQ" -g -- "$NOPLOOP" 1500
if [ -d /sys/kernel/tracing/events/raw_syscalls ]; then
	bench "raw_syscalls:sys_enter, every hit (-c 1), 200k system calls (data-heavy)" \
		-e raw_syscalls:sys_enter -c 1 -- tests/workloads/sysloop 200000
fi
