#!/usr/bin/env bash
# sbx report vs perf report --stdio on the same large perf.data, made by
# scripts/gen-perf-data.c (8 processes mapping the C library, samples spread
# over its functions, rounds of 10,000), runs interleaved:
#
#   scripts/bench/report.sh [NSAMPLES [N]]   default 1000000 samples, 3 runs
#
# Both sort by comm,dso,sym without call graphs (perf: --no-children) and
# print every row. sbx script vs perf script on the same file is timed too. Prints the median wall time of each and the ratio
# perf/sbx (above 1: sbx is faster; the target is 3 or more). The two
# outputs are also compared: the top 20 rows must be the same. SBX names
# the binary (default build/default/sbx); B the build folder with libsbx.a (default
# build/default).
set -eu
cd "$(dirname "$0")/../.."
SBX=${SBX:-$PWD/build/default/sbx}	# the optimized build: ./sbx is whichever build ran last
B=${B:-build/default}
NS=${1:-1000000}
N=${2:-3}

command -v perf >/dev/null || { echo "report.sh: perf is not installed" >&2; exit 1; }
[ -f "$B/libsbx.a" ] || { echo "report.sh: build first (make, or B=build/NAME)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make -s B="$B" "$B/scripts/gen-perf-data"
"$B/scripts/gen-perf-data" "$tmp/perf.data" "$NS"
size=$(stat -c %s "$tmp/perf.data")

median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

run() {	# NAME CMD...: appends the wall time to $tmp/NAME.wall, output to $tmp/NAME.out
	local name=$1
	shift
	/usr/bin/time -f '%e' -o "$tmp/time" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" ||
		{ echo "report.sh: $name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
	cat "$tmp/time" >> "$tmp/$name.wall"
}

for _ in $(seq "$N"); do
	run perf perf report --stdio --no-children -s comm,dso,sym -i "$tmp/perf.data"
	run sbx "$SBX" report -s comm,dso,sym -i "$tmp/perf.data"
	run perf-script perf script -i "$tmp/perf.data"
	run sbx-script "$SBX" script -i "$tmp/perf.data"
done

# the same answer: the first 20 rows (percent, comm, dso, symbol) agree
rows() { grep -E '^ +[0-9]+\.[0-9]+%' "$1" | head -20 | awk '{ print $1, $2, $3, $5 }'; }
if ! diff <(rows "$tmp/perf.out") <(rows "$tmp/sbx.out") > "$tmp/diff"; then
	echo "report.sh: the top rows differ:" >&2
	cat "$tmp/diff" >&2
	exit 1
fi

pw=$(median "$tmp/perf.wall") sw=$(median "$tmp/sbx.wall")
printf 'perf.data: %s samples, %.1f MB\n' "$NS" "$(echo "$size / 1048576" | bc -l)"
printf 'perf report --stdio: %6.3f s (median of %d)\n' "$pw" "$N"
printf 'sbx report:          %6.3f s\n' "$sw"
printf 'ratio perf/sbx:      %6.2f\n' "$(echo "$pw / $sw" | bc -l)"
psw=$(median "$tmp/perf-script.wall") ssw=$(median "$tmp/sbx-script.wall")
printf 'perf script:         %6.3f s   (one line per sample, for information)\n' "$psw"
printf 'sbx script:          %6.3f s\n' "$ssw"
printf 'ratio perf/sbx:      %6.2f\n' "$(echo "$psw / $ssw" | bc -l)"
