#!/usr/bin/env bash
# What an sbx profgen profile is worth to clang, on a real program this project
# did not write: SQLite (the amalgamation that the better-sqlite3 npm package
# ships), driven by scripts/bench/sqlite-workload.c (inserts, an index, GROUP BY,
# LIKE, ORDER BY, UPDATE, DELETE on a fixed pseudo-random data set).
#
#   scripts/bench/profgen-pgo.sh [RUNS [PROFILES]]
#
# RUNS timed runs of each build (default 5); PROFILES independent profiles of
# each kind (default 1), each from recordings of its own: one profile's
# recordings may land a threshold of clang's either way, and several show
# how far that moves the result.
#
# Builds, all with clang -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer
# (frame pointers, so that the call chains of sbx record -g are real ones):
#   base       no profile
#   sample     -fprofile-sample-use with sbx profgen's profile of IP-only samples
#              (sbx record, no branch stacks: what a VM gives)
#   sample-g   the profile of sbx record -g recordings (call chains add call
#              targets and the callers' inline contexts)
#   sample-g0  the same recordings with --ignore-stack-samples: sample-g
#              against sample-g0 is what the call chains are worth, apart from
#              the noise of two sets of recordings
#   instr      instrumented PGO (-fprofile-instr-generate, then -use): the upper bound
# then runs them interleaved, in a new random order each round, and prints the
# minimum time of each, and the share of instr's gain over base that each
# sample profile recovers (with several profiles: each, and their mean).
# base is timed a second time as base-again: its "gain" is the noise of the
# measurement, in the same units. On a shared cloud host the run time of one
# binary can move by half between minutes, so take several profiles and many
# runs before reading anything into one figure.
set -eu
cd "$(dirname "$0")/../.."
RUNS=${1:-5}
PROFILES=${2:-1}
SBX=${SBX:-$PWD/build/default/sbx}	# the optimized build: ./sbx is whichever build ran last
PROFDATA=${PROFDATA:-$(command -v llvm-profdata-14 || command -v llvm-profdata)}
work=build/bench/pgo
mkdir -p "$work"

[ -x "$SBX" ] || { echo "profgen-pgo.sh: build sbx first (make)" >&2; exit 1; }
# shellcheck source=scripts/bench/sqlite.sh
. scripts/bench/sqlite.sh
build() { sqlite_build "$@" -fno-omit-frame-pointer; }
builds=base
kinds="sample sample-g sample-g0"

# the profiles: samples of three runs of the base build, with and without -g
build base
for ((p = 1; p <= PROFILES; p++)); do
	for i in 1 2 3; do
		"$SBX" record -q -F 10000 -o "$work/ip$i.data" -- "$work/base" >/dev/null
		"$SBX" record -q -g -F 10000 -o "$work/g$i.data" -- "$work/base" >/dev/null
	done
	"$SBX" profgen --binary "$work/base" -o "$work/ip-$p.prof" "$work"/ip[123].data
	"$SBX" profgen --binary "$work/base" -o "$work/g-$p.prof" "$work"/g[123].data
	"$SBX" profgen --ignore-stack-samples --binary "$work/base" -o "$work/g0-$p.prof" \
		"$work"/g[123].data
	build "sample-$p" -fprofile-sample-use="$work/ip-$p.prof"
	build "sample-g-$p" -fprofile-sample-use="$work/g-$p.prof"
	build "sample-g0-$p" -fprofile-sample-use="$work/g0-$p.prof"
	builds="$builds sample-$p sample-g-$p sample-g0-$p"
done
build instr-gen -fprofile-instr-generate="$work/instr-%p.profraw"
rm -f "$work"/instr-*.profraw
"$work/instr-gen" >/dev/null
"$PROFDATA" merge -o "$work/instr.profdata" "$work"/instr-*.profraw
build instr -fprofile-instr-use="$work/instr.profdata"
builds="$builds instr"

# interleaved runs in a new order each round: the machine's drift hits every build alike
cp "$work/base" "$work/base-again"
builds="$builds base-again"
declare -A best
for b in $builds; do best[$b]=999; done
for ((r = 0; r < RUNS; r++)); do
	# shellcheck disable=SC2086
	for b in $(printf '%s\n' $builds | shuf); do
		s=$(date +%s.%N)
		"$work/$b" >/dev/null
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		best[$b]=$(echo "if ($t < ${best[$b]}) $t else ${best[$b]}" | bc)
	done
done
printf '%-10s %8s\n' build "min (s)"
for b in $builds; do
	printf '%-10s %8.3f\n' "$b" "${best[$b]}"
done
gain() { echo "scale=1; 100 * (${best[base]} - ${best[$1]}) / (${best[base]} - ${best[instr]})" | bc; }
echo "instr: base $(echo "scale=1; 100 * (${best[base]} - ${best[instr]}) / ${best[base]}" | bc)% faster"
echo "noise: base-again \"recovers\" $(gain base-again)% (the same binary: 0 on a quiet machine)"
for k in $kinds; do
	all= sum=0
	for ((p = 1; p <= PROFILES; p++)); do
		g=$(gain "$k-$p")
		all="$all $g%"
		sum=$(echo "$sum + $g" | bc)
	done
	echo "$k recovers of instr's gain:$all (mean $(echo "scale=1; $sum / $PROFILES" | bc)%)"
done
