#!/usr/bin/env bash
# sbx profgen's speed and memory, side by side with its peers in one run,
# runs interleaved, on SQLite built with clang -O2 -g -fdebug-info-for-profiling
# (scripts/bench/sqlite.sh):
#
#   scripts/bench/profgen.sh [N [NSAMPLES]]   N runs (default 3), NSAMPLES IP samples
#                                             (default 1000000)
#
# IP-only samples: a perf.data of NSAMPLES samples made by scripts/gen-perf-data.c
# (8 processes mapping the SQLite binary at their own bases). llvm-profgen
# refuses such data, so the peer is the least any perf-script-based tool
# pays: perf script -F ip,pid alone.
#
# Branch stacks: tests/tools/swlbr traces the SQLite workload (a branch stack
# of 32 every third taken branch, 20,000 distinct stacks, each written 10
# times: 200,000 samples). The peer is llvm-profgen 19 --perfdata (which runs
# perf script itself); both profiles must be the same text.
#
# Prints the median wall time and peak RSS of each, the ratios peer/sbx
# (above 1: sbx is faster), and the bound on the IP run's peak RSS (the
# input's size plus the binary's debug info). SBX names the binary (default
# build/default/sbx), B the build folder (default build/default).
set -eu
cd "$(dirname "$0")/../.."
SBX=${SBX:-$PWD/build/default/sbx}	# the optimized build: ./sbx is whichever build ran last
B=${B:-build/default}
N=${1:-3}
NS=${2:-1000000}
PROFGEN19=${PROFGEN19:-$(llvm-config-19 --bindir 2>/dev/null)/llvm-profgen}
work=build/bench/pgo
mkdir -p "$work"

command -v perf >/dev/null || { echo "profgen.sh: perf is not installed" >&2; exit 1; }
[ -x "$PROFGEN19" ] || { echo "profgen.sh: llvm-profgen 19 is not installed (llvm-19)" >&2; exit 1; }
[ -x "$SBX" ] && [ -f "$B/libsbx.a" ] || { echo "profgen.sh: build first (make)" >&2; exit 1; }
# shellcheck source=scripts/bench/sqlite.sh
. scripts/bench/sqlite.sh
[ -x "$work/base" ] || sqlite_build base

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make -s B="$B" "$B/scripts/gen-perf-data" "$B/tests/tools/swlbr"
"$B/scripts/gen-perf-data" "$tmp/ip.data" "$NS" "$PWD/$work/base"
echo "profgen.sh: tracing branches (some 40 s)" >&2
"$B/tests/tools/swlbr" -p 3 -N 20000 -r 10 -o "$tmp/lbr.data" -- "$work/base" 2000 \
	2> "$tmp/swlbr.err" >/dev/null || { cat "$tmp/swlbr.err" >&2; exit 1; }

median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

run() {	# NAME CMD...: wall time and peak RSS (KiB) to $tmp/NAME.{wall,rss}
	local name=$1 t0 t1 rss
	shift
	# the wall time to the microsecond (time(1) gives hundredths: too coarse
	# for runs of a tenth of a second), the peak RSS from time(1)
	t0=$EPOCHREALTIME
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" ||
		{ echo "profgen.sh: $name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
	t1=$EPOCHREALTIME
	read -r _ rss < "$tmp/time"
	echo "$t1 - $t0" | bc -l >> "$tmp/$name.wall"
	echo "$rss" >> "$tmp/$name.rss"
}

for _ in $(seq "$N"); do
	run perf-script perf script -F ip,pid -i "$tmp/ip.data"
	run sbx-ip "$SBX" profgen --binary "$work/base" -o "$tmp/ip.prof" "$tmp/ip.data"
	run llvm-lbr "$PROFGEN19" --binary="$work/base" --perfdata="$tmp/lbr.data" \
		--output="$tmp/llvm.prof" --format=text
	run sbx-lbr "$SBX" profgen --binary "$work/base" -o "$tmp/sbx.prof" "$tmp/lbr.data"
done
if ! cmp -s "$tmp/llvm.prof" "$tmp/sbx.prof"; then
	echo "profgen.sh: the branch-stack profiles differ:" >&2
	diff "$tmp/llvm.prof" "$tmp/sbx.prof" | head -20 >&2
	exit 1
fi

line() {	# LABEL NAME
	printf '%-34s %7.3f s %8.1f MiB\n' "$1" "$(median "$tmp/$2.wall")" \
		"$(echo "$(median "$tmp/$2.rss") / 1024" | bc -l)"
}
ratio() { echo "$(median "$tmp/$1.wall") / $(median "$tmp/$2.wall")" | bc -l; }
echo "IP-only: $NS samples, $(stat -c %s "$tmp/ip.data" | awk '{ printf "%.1f", $1 / 1048576 }') MB;" \
	"$(tail -1 "$tmp/sbx-ip.err" | sed 's/^sbx profgen: //')"
line "perf script -F ip,pid" perf-script
line "sbx profgen" sbx-ip
# the issue's bound on sbx's peak RSS: the input's size plus the binary's debug info
debug=$(size -A -d "$work/base" | awk '$1 ~ /^\.z?debug_/ { s += $2 } END { print s + 0 }')
printf 'peak RSS bound (input + debug info) %7.1f MiB\n' \
	"$(echo "($(stat -c %s "$tmp/ip.data") + $debug) / 1048576" | bc -l)"
printf 'ratio perf script/sbx profgen:     %6.2f\n' "$(ratio perf-script sbx-ip)"
echo "branch stacks: $(tail -1 "$tmp/swlbr.err" | sed 's/^swlbr: //'), " \
	"$(stat -c %s "$tmp/lbr.data" | awk '{ printf "%.1f", $1 / 1048576 }') MB"
line "llvm-profgen 19 --perfdata" llvm-lbr
line "sbx profgen" sbx-lbr
printf 'ratio llvm-profgen/sbx profgen:    %6.2f   (same profile, byte for byte)\n' \
	"$(ratio llvm-lbr sbx-lbr)"
echo "(median of $N runs; peak RSS)"
