#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz/ for SECONDS each (default 60), seeded
# with real inputs: perf.data files from perf record and sbx record (file and
# pipe mode) and the snippets of tests/data/snippets. A crash leaves its input in
# build/fuzz/crashes/; turn it into a regression test under tests/data/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
make -s fuzz sbx workloads
work=build/fuzz
mkdir -p "$work/crashes" "$work/seed-perf-data" "$work/seed-snippet"

seeds=$work/seed-perf-data
if [ -z "$(ls -A "$seeds")" ]; then
	w=tests/workloads/noploop
	./sbx record -q -F 500 -o "$seeds/sbx.data" -- $w 200 2>/dev/null
	./sbx record -q -F 500 -g -o - -- $w 200 > "$seeds/sbx-pipe.data" 2>/dev/null
	if command -v perf >/dev/null; then
		perf record -q -e cpu-clock -F 500 -o "$seeds/perf.data" -- $w 200 2>/dev/null
		perf record -q -e cpu-clock -F 500 -g -o - -- $w 200 > "$seeds/perf-pipe.data" 2>/dev/null
	fi
fi
# perf record -z: zstd streams through COMPRESSED records (-m 4: records straddle them)
if command -v perf >/dev/null && [ ! -e "$seeds/perf-z.data" ]; then
	w=tests/workloads/noploop
	perf record -q -z -m 4 -e cpu-clock -F 500 -g -o "$seeds/perf-z.data" -- $w 200 2>/dev/null
	perf record -q -z -e cpu-clock -F 500 -o - -- $w 200 > "$seeds/perf-z-pipe.data" 2>/dev/null
fi
cp -n tests/data/snippets/*.s "$work/seed-snippet/" 2>/dev/null || true

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(perf-data snippet)
for t in "${targets[@]}"; do
	corpus=$work/corpus-$t
	mkdir -p "$corpus"
	echo "fuzz: $t for $secs s" >&2
	"$work/fuzz-$t" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix="$work/crashes/$t-" -print_final_stats=1 "$corpus" "$work/seed-$t" \
		2>&1 | grep -E '^(#[0-9]+ +DONE|==[0-9]+==ERROR|SUMMARY|stat::number_of_executed_units|artifact_prefix|Test unit written)' || true
done
ls "$work/crashes"
