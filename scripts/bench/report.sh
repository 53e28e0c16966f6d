#!/usr/bin/env bash
# sbx report vs perf report --stdio on the same large perf.data, made by
# scripts/gen-perf-data.c (8 processes mapping the C library, samples spread
# over its functions, rounds of 10,000), runs interleaved:
#
#   scripts/bench/report.sh [NSAMPLES [N]]   default 1000000 samples, 3 runs
#
# Both sort by comm,dso,sym without call graphs (perf: --no-children) and
# print every row. sbx script vs perf script on the same file is timed too.
# Then call graphs: a file of NSAMPLES/5 samples with call chains of 4 to 16
# frames (gen-perf-data -g), perf report --stdio --children -g against sbx
# report -g (both: every row and its graph). Prints the median wall time of
# each and the ratio perf/sbx (above 1: sbx is faster; the target is 3 or
# more), and the peak memory of the -g runs. The two outputs are also
# compared: the top 20 rows must be the same (with -g, the first 200 lines
# byte for byte). SBX names
# the binary (default build/default/sbx); B the build folder with libsbx.a (default
# build/default). SBX_BASE names another sbx (the last landed commit's, built in a
# worktree): it runs in the same interleaved loop, and the ratios base/sbx are
# printed too (above 1: the change made it faster).
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
GNS=$((NS / 5))
"$B/scripts/gen-perf-data" -g "$tmp/g.data" "$GNS"
gsize=$(stat -c %s "$tmp/g.data")

median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

run() {	# NAME CMD...: appends the wall time to $tmp/NAME.wall (peak KB: NAME.rss), output to $tmp/NAME.out
	local name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" ||
		{ echo "report.sh: $name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
	awk '{ print $1 }' "$tmp/time" >> "$tmp/$name.wall"
	awk '{ print $2 }' "$tmp/time" >> "$tmp/$name.rss"
}

BASE=${SBX_BASE:-}
for _ in $(seq "$N"); do
	run perf perf report --stdio --no-children -s comm,dso,sym -i "$tmp/perf.data"
	run sbx "$SBX" report -s comm,dso,sym -i "$tmp/perf.data"
	[ -z "$BASE" ] || run base "$BASE" report -s comm,dso,sym -i "$tmp/perf.data"
	run perf-script perf script -i "$tmp/perf.data"
	run sbx-script "$SBX" script -i "$tmp/perf.data"
	[ -z "$BASE" ] || run base-script "$BASE" script -i "$tmp/perf.data"
	run perf-g perf report --stdio --children -g -s comm,dso,sym -i "$tmp/g.data"
	run sbx-g "$SBX" report -g -s comm,dso,sym -i "$tmp/g.data"
	[ -z "$BASE" ] || run base-g "$BASE" report -g -s comm,dso,sym -i "$tmp/g.data"
done

# the same answer: the first 20 rows (percent, comm, dso, symbol) agree
rows() { grep -E '^ +[0-9]+\.[0-9]+%' "$1" | head -20 | awk '{ print $1, $2, $3, $5 }'; }
if ! diff <(rows "$tmp/perf.out") <(rows "$tmp/sbx.out") > "$tmp/diff"; then
	echo "report.sh: the top rows differ:" >&2
	cat "$tmp/diff" >&2
	exit 1
fi

graph() { grep -v -e '^#' -e '^$' "$1" | head -200; }
if ! diff <(graph "$tmp/perf-g.out") <(graph "$tmp/sbx-g.out") > "$tmp/diff"; then
	echo "report.sh: the top rows and graphs of -g differ:" >&2
	head -40 "$tmp/diff" >&2
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
pgw=$(median "$tmp/perf-g.wall") sgw=$(median "$tmp/sbx-g.wall")
printf 'with call chains:    %s samples, %.1f MB\n' "$GNS" "$(echo "$gsize / 1048576" | bc -l)"
printf 'perf report --children -g: %6.3f s, %s MB peak\n' "$pgw" "$(( $(median "$tmp/perf-g.rss" | cut -d. -f1) / 1024 ))"
printf 'sbx report -g:             %6.3f s, %s MB peak\n' "$sgw" "$(( $(median "$tmp/sbx-g.rss" | cut -d. -f1) / 1024 ))"
printf 'ratio perf/sbx:            %6.2f\n' "$(echo "$pgw / $sgw" | bc -l)"
if [ -n "$BASE" ]; then
	for w in "" -script -g; do
		bw=$(median "$tmp/base$w.wall") nw=$(median "$tmp/sbx$w.wall")
		printf 'base%-8s %6.3f s, sbx %6.3f s: ratio base/sbx %5.3f; peak %s MB / %s MB\n' "$w:" "$bw" \
			"$nw" "$(echo "$bw / $nw" | bc -l)" "$(( $(median "$tmp/base$w.rss" | cut -d. -f1) / 1024 ))" \
			"$(( $(median "$tmp/sbx$w.rss" | cut -d. -f1) / 1024 ))"
	done
fi
