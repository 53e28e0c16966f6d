#!/usr/bin/env bash
# An llvm-exegesis opcode sweep measured by sbx run: llvm-exegesis 19
# generates a snippet for every x86 opcode it can (-opcode-index=-1, no
# counter needed), sbx measures each document as it comes, and llvm-exegesis
# 19's analysis mode reads the result (clusters, and the inconsistencies
# with LLVM's scheduling model of this CPU).
#
#   scripts/bench/exegesis-sweep.sh [MODE [LIMIT]]   MODE latency (default) or
#                                                    inverse_throughput; LIMIT: only
#                                                    the first LIMIT documents
#
# Prints the wall time, the time per document, the share measured without
# error, the errors by kind, and analysis mode's figures. SBX names the
# binary (default build/default/sbx); OUT keeps the YAML (default: a
# temporary folder).
set -eu
cd "$(dirname "$0")/../.."
SBX=${SBX:-$PWD/build/default/sbx}
MODE=${1:-latency}
LIMIT=${2:-0}
E=$(llvm-config-19 --bindir 2>/dev/null)/llvm-exegesis
[ -x "$E" ] || { echo "exegesis-sweep.sh: llvm-exegesis 19 is not installed (llvm-19)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OUT=${OUT:-$tmp}
mkdir -p "$OUT"

now_ns() { date +%s%N; }

echo "# llvm-exegesis opcode sweep, $MODE, measured by sbx run ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
echo
t0=$(now_ns)
"$E" -mode="$MODE" -opcode-index=-1 --benchmark-phase=prepare-and-assemble-snippet \
	--benchmarks-file="$OUT/generated.yaml" 2> "$OUT/generate.err" >/dev/null || true
t1=$(now_ns)
if [ "$LIMIT" -gt 0 ]; then
	awk -v n="$LIMIT" '/^---/ { d++ } d <= n' "$OUT/generated.yaml" > "$OUT/input.yaml"
else
	cp "$OUT/generated.yaml" "$OUT/input.yaml"
fi
docs=$(grep -c '^---' "$OUT/input.yaml")
skipped=$(grep -c . "$OUT/generate.err" || true)
echo "llvm-exegesis 19 generated $(grep -c '^---' "$OUT/generated.yaml") documents in $(( (t1 - t0) / 1000000 )) ms ($skipped opcodes without a snippet: memory operands and the like); measuring $docs."
echo
t0=$(now_ns)
"$SBX" run --benchmarks-file="$OUT/measured.yaml" "$OUT/input.yaml" 2> "$OUT/measure.err" || true
t1=$(now_ns)
ms=$(( (t1 - t0) / 1000000 ))
ok=$(grep -c "^error: *''" "$OUT/measured.yaml" || true)
exited=$(grep -c "^error: *'the snippet exited with code 0" "$OUT/measured.yaml" || true)
out=$(grep -c '^---' "$OUT/measured.yaml")
echo "| documents | measured without error | share | wall time | per document |"
echo "|---|---|---|---|---|"
awk -v d="$out" -v ok="$ok" -v ms="$ms" 'BEGIN {
	printf "| %d | %d | %.1f%% | %.1f s | %.0f ms |\n", d, ok, d ? 100 * ok / d : 0, ms / 1000, d ? ms / d : 0 }'
echo
# sbx's own closing line: the documents by what became of them
grep ' documents: ' "$OUT/measure.err" | tail -1 | sed 's/^sbx run: [^:]*: /sbx: /'
echo
echo "Errors by kind:"
echo
echo "| count | error |"
echo "|---|---|"
grep '^error:' "$OUT/measured.yaml" | grep -v "^error: *''" |
	sed -e "s/^error: *'//" -e "s/'$//" -e 's/0x[0-9a-f]*/ADDR/g' -e 's/snippet+ADDR: .*/snippet+ADDR/' |
	sort | uniq -c | sort -rn | head -12 | awk '{ c = $1; $1 = ""; printf "| %d |%s |\n", c, $0 }'
[ "$exited" -eq 0 ] || echo "($exited snippets exited 0 before they were measured.)"
echo
echo "llvm-exegesis 19 -mode=analysis on the result:"
echo
"$E" -mode=analysis -benchmarks-file="$OUT/measured.yaml" \
	-analysis-clusters-output-file="$OUT/clusters.csv" \
	-analysis-inconsistencies-output-file="$OUT/inconsistencies.html" 2>&1 | grep -v '^Printing' | sed 's/^/    /'
clusters=$(awk -F, 'NR > 1 && NF > 1 { print $1 }' "$OUT/clusters.csv" | sort -u | wc -l)
incons=$(grep -c 'class="inconsistency"' "$OUT/inconsistencies.html" || true)
echo
echo "$clusters clusters; $incons scheduling classes whose measurements disagree with LLVM's model of $(grep -m1 '^cpu_name' "$OUT/measured.yaml" | awk '{ print $2 }')."
