#!/usr/bin/env bash
# sbx run: time per snippet and accuracy, side by side with llvm-exegesis
# where the machine lets exegesis measure (a hardware PMU).
#
#   scripts/bench/run.sh [N]      N invocations per figure (default 10)
#   SWEEP=1 scripts/bench/run.sh  and the full llvm-exegesis 19 latency sweep
#
# With the TSC counter it ends with 10 s of scripts/bench/tsc-clock.sh: how
# steady the clock was, which the spreads depend on.
#
# SBX names the binary (default build/default/sbx). Figures are printed as markdown
# tables. On a loaded machine the spread grows: say so with the figures.
set -eu
cd "$(dirname "$0")/../.."
SBX=${SBX:-$PWD/build/default/sbx}	# the optimized build: ./sbx is whichever build ran last
N=${1:-10}
SN=tests/data/snippets
EXEGESIS=$(command -v llvm-exegesis-14 || command -v llvm-exegesis || echo /usr/lib/llvm-14/bin/llvm-exegesis)

now_ns() { date +%s%N; }

# stats FILE: median, min, max, spread (max-min)/median in %
stats() {
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.4f %.4f %.4f %.2f\n", m, v[1], v[NR], m ? 100 * (v[NR] - v[1]) / m : 0 }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# sbx run benchmark ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
echo
counter=$("$SBX" run --json "$SN/add-chain.s" | grep -o '"counter":"[^"]*"' | cut -d'"' -f4)
echo "Counter of cycles: $counter"
echo

echo "## Time per snippet (wall, whole command, default settings, $N invocations)"
echo
echo "| snippet | median ms | min ms | max ms |"
echo "|---|---|---|---|"
for s in add-chain imul-chain pointer-chase; do
	: > "$tmp/t"
	for _ in $(seq "$N"); do
		t0=$(now_ns)
		"$SBX" run "$SN/$s.s" > /dev/null
		t1=$(now_ns)
		echo "$(( (t1 - t0) / 1000 ))" | awk '{ print $1 / 1000 }' >> "$tmp/t"
	done
	read -r med mn mx _ < <(stats "$tmp/t")
	echo "| $s.s | $med | $mn | $mx |"
done
: > "$tmp/t"
t0=$(now_ns)
"$SBX" run "$SN/add-chain.s" "$SN/imul-chain.s" "$SN/pointer-chase.s" "$SN/add-independent.s" \
	"$SN/xmm-defreg.s" > /dev/null
t1=$(now_ns)
echo "| batch of 5 snippets, one command | $(( (t1 - t0) / 1000000 )) (total) | | |"
echo

# The L1 load-to-use latency of a pointer chase: 4 cycles on AMD Zen and on
# Intel cores before Golden Cove; 5 on the Golden, Raptor and Redwood Cove
# P-cores (Alder, Raptor, Meteor and Arrow Lake-U, Bartlett Lake, Sapphire,
# Emerald and Granite Rapids: the family 6 models below). Later cores are
# not listed (4), and on a hybrid chip an E-core differs: the figure is for
# whichever core ran the snippet.
load_latency=4
if grep -q -m1 'GenuineIntel' /proc/cpuinfo &&
	[ "$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')" = 6 ]; then
	case $(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') in
	143 | 151 | 154 | 170 | 172 | 173 | 174 | 181 | 183 | 186 | 191 | 207 | 215) load_latency=5 ;;
	esac
fi
echo "## Accuracy ($N invocations each; expected: add 1.00, imul 3.00 cycles per instruction, the load chain the L1 load-to-use latency: $load_latency.00 on this core)"
echo
echo "| snippet | expected | median value | min | max | error of median | per_snippet_value median | spread (max-min)/median | flagged unsteady | over 1% from the median, not flagged | intervals holding the expected |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for pair in add-chain:1 imul-chain:3 pointer-chase:$load_latency; do
	s=${pair%%:*}
	want=${pair##*:}
	: > "$tmp/v"
	: > "$tmp/p"
	: > "$tmp/u"
	for _ in $(seq "$N"); do
		line=$("$SBX" run --json "$SN/$s.s")
		v=$(grep -o '"value":[-0-9.e+]*' <<<"$line" | head -1 | cut -d: -f2)
		echo "$v" >> "$tmp/v"
		grep -o '"per_snippet_value":[-0-9.e+]*' <<<"$line" | head -1 | cut -d: -f2 >> "$tmp/p"
		# value, uncertainty (null: none), the flag
		echo "$v $(grep -o '"uncertainty":[-0-9.e+a-z]*' <<<"$line" | cut -d: -f2) $(grep -o '"unsteady":[a-z]*' <<<"$line" | cut -d: -f2)" >> "$tmp/u"
	done
	read -r med mn mx _ < <(stats "$tmp/v")
	read -r pmed _ _ pspread < <(stats "$tmp/p")
	err=$(awk -v m="$med" -v w="$want" 'BEGIN { printf "%+.2f%%", 100 * (m - w) / w }')
	read -r flagged missed holds < <(awk -v m="$med" -v w="$want" '{
		f = $3 == "true"; flagged += f
		if (!f && (($1 - m) / m > 0.01 || (m - $1) / m > 0.01)) missed++
		if ($2 != "null" && $1 * (1 - $2) <= w && w <= $1 * (1 + $2)) holds++
	} END { printf "%d %d %d\n", flagged, missed, holds }' "$tmp/u")
	echo "| $s.s | $want.00 | $med | $mn | $mx | $err | $pmed | $pspread% | $flagged of $N | $missed | $holds of $N |"
done
echo

echo "## llvm-exegesis side by side"
echo
if [ ! -x "$EXEGESIS" ]; then
	echo "llvm-exegesis is not installed."
	exit 0
fi
echo "| snippet | sbx run (median of $N) | llvm-exegesis (median of $N) | ratio of times (exegesis / sbx) |"
echo "|---|---|---|---|"
for s in add-chain imul-chain; do
	if ! out=$("$EXEGESIS" --mode=latency --snippets-file="$SN/$s.s" 2>&1); then
		echo "| $s.s | | refused: $(echo "$out" | head -1 | cut -c1-120) | |"
		continue
	fi
	: > "$tmp/e"; : > "$tmp/te"; : > "$tmp/s"; : > "$tmp/ts"
	for _ in $(seq "$N"); do
		t0=$(now_ns)
		"$EXEGESIS" --mode=latency --snippets-file="$SN/$s.s" 2>/dev/null |
			sed -n 's/.*key: latency, value: \([0-9.e+-]*\).*/\1/p' | head -1 >> "$tmp/e"
		t1=$(now_ns)
		echo $(( (t1 - t0) / 1000 )) >> "$tmp/te"
		t0=$(now_ns)
		"$SBX" run --json "$SN/$s.s" | grep -o '"value":[-0-9.e+]*' | head -1 | cut -d: -f2 >> "$tmp/s"
		t1=$(now_ns)
		echo $(( (t1 - t0) / 1000 )) >> "$tmp/ts"
	done
	read -r em _ _ _ < <(stats "$tmp/e")
	read -r sm _ _ _ < <(stats "$tmp/s")
	read -r tem _ _ _ < <(stats "$tmp/te")
	read -r tsm _ _ _ < <(stats "$tmp/ts")
	echo "| $s.s | $sm | $em | $(awk -v a="$tem" -v b="$tsm" 'BEGIN { printf "%.2f", a / b }') |"
done
echo

# The full latency sweep (every opcode llvm-exegesis 19 generates here), with
# SWEEP=1: its wall time, the share measured and the failures by reason.
if [ "${SWEEP:-0}" = 1 ]; then
	echo "## The latency sweep (scripts/bench/exegesis-sweep.sh latency)"
	echo
	SBX=$SBX scripts/bench/exegesis-sweep.sh latency | tail -n +2 | sed 's/^## /### /'
	echo
fi

# The spreads above depend on the host's clock at the time: 10 s of the
# probe right after them (scripts/bench/tsc-clock.sh).
if [ "$counter" = tsc-cycles ] && [ "$(uname -m)" = x86_64 ]; then
	echo "## The clock right after (scripts/bench/tsc-clock.sh 10)"
	echo
	scripts/bench/tsc-clock.sh 10 | tail -n +5 | sed 's/^## /### /'
fi
