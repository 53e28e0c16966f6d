#!/usr/bin/env bash
# sbx jit-inject against perf inject --jit, on the same input, in one run:
# node --perf-prof running a hot JS loop (V8's real jitdump, thousands of
# code loads), recorded once by perf record -k mono:
#
#   scripts/bench/jit-inject.sh [N]     N runs each, interleaved (default 5)
#
# Prints the median wall time of each, the files each wrote, the ratios
# (perf/sbx: above 1 means sbx is faster / writes fewer), and the share perf
# report gives the JS function after each inject (they should agree). On a
# loaded machine the spread grows: say so with the figures. Needs perf, node
# and ./sbx (make).
set -eu
cd "$(dirname "$0")/../.."
SBX=${SBX:-$PWD/build/default/sbx}	# the optimized build: ./sbx is whichever build ran last
N=${1:-5}
command -v perf >/dev/null || { echo "jit-inject.sh: perf is not installed" >&2; exit 1; }
command -v node >/dev/null || { echo "jit-inject.sh: node is not installed" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > hot.js <<'JS'
// many small functions, each made hot, so V8 compiles (and logs) thousands
const fns = [];
for (let i = 0; i < 600; i++)
	fns.push(new Function('n', `let x = ${i}; for (let k = 0; k < n; k++) x = (x * 31 + k) % 1000003; return x;`));
function hotLoop(n) {
	let x = 1;
	for (let i = 0; i < n; i++)
		x = (x * 1103515245 + 12345) % 2147483647;
	return x;
}
let s = 0;
for (let r = 0; r < 4; r++)
	for (const f of fns)
		s += f(20000);
for (let k = 0; k < 20; k++)
	s += hotLoop(2000000);
console.log(s);
JS
perf record -q -k mono -e cpu-clock -o rec.data -- node --perf-prof \
	--interpreted-frames-native-stack hot.js > /dev/null 2>&1
loads=$(python3 - jit-*.dump <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, n = 40, 0
while off + 16 <= len(b):
    rid, size = struct.unpack_from("<II", b, off)
    n += rid == 0
    off += max(size, 16)
print(n)
PY
)

median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.4f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for i in $(seq "$N"); do
	rm -f jitted-*.so jit-*.so
	/usr/bin/time -f %e -o t perf inject --jit -i rec.data -o perf.inj.data 2>/dev/null
	cat t >> perf.wall
	perf_files=$(ls jitted-*.so | wc -l)
	mkdir -p img && rm -f img/*
	/usr/bin/time -f %e -o t "$SBX" jit-inject -q -i rec.data -o sbx.inj.data --jit-dir img
	cat t >> sbx.wall
	sbx_files=$(ls img | wc -l)
done

share() {	# perf report's share of the symbols that contain hotLoop
	perf report --stdio --no-children -i "$1" -s sym 2>/dev/null |
		awk '/^#/ { next } $1 ~ /%$/ && index($0, "hotLoop") { sub(/%/, "", $1); t += $1 } END { printf "%.2f", t }'
}

pw=$(median perf.wall) sw=$(median sbx.wall)
printf 'input: node, %s code loads in the jitdump; %s runs each\n' "$loads" "$N"
printf '%-28s %8s s  %6s files\n' "perf inject --jit" "$pw" "$perf_files"
printf '%-28s %8s s  %6s files\n' "sbx jit-inject" "$sw" "$sbx_files"
printf 'ratio perf/sbx: wall %.1fx, files %.0fx\n' "$(echo "$pw / $sw" | bc -l)" \
	"$(echo "$perf_files / $sbx_files" | bc -l)"
printf 'hotLoop share in perf report: %s%% (perf inject), %s%% (sbx jit-inject)\n' \
	"$(share perf.inj.data)" "$(share sbx.inj.data)"
