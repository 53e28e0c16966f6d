#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz/ for SECONDS each (default 60), seeded
# with real inputs made here: perf.data files from perf record and sbx record
# (file and pipe mode, zstd), jitdumps from node --perf-prof, llvm-jitlink and
# libsbx-jit, perf maps from node --perf-basic-prof, perf script text of the
# LBR recording in tests/data/lbr and of IP samples, ELF files from gcc and
# clang with DWARF, and the snippets of tests/data/snippets; the inputs of
# tests/data/fuzz/TARGET/ (what once broke a target, replayed by make check)
# seed it too. A crash leaves its input in build/fuzz/crashes/; put it in
# tests/data/fuzz/TARGET/ with the fix.
#   scripts/fuzz.sh [SECONDS] [TARGET...]      (make fuzz FUZZ_SECONDS=N runs them all)
# FUZZ_SEED=N fixes libFuzzer's random seed and seeds each target with the
# bundled inputs alone (tests/data/fuzz/TARGET/, the snippets), in a fresh
# corpus: the same inputs on every machine, so that a short CI pass replays a
# prefix of what a longer run here found clean.
# Prints, per target, the executions and seconds it ran, and what it found.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
make -s fuzz-build sbx workloads examples
work=build/fuzz
targets_all=(perf-data snippet jitdump perf-map perfscript binary exegesis-yaml)
for t in "${targets_all[@]}"; do mkdir -p "$work/seed-$t"; done
mkdir -p "$work/crashes"

make_seeds() {
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

	# jitdumps: node, llvm-jitlink (the dump perf inject refuses), libsbx-jit
	seeds=$work/seed-jitdump
	if [ -z "$(ls -A "$seeds")" ]; then
		tmp=$(mktemp -d)
		if command -v node >/dev/null; then
			echo 'function f(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
			      for (let k = 0; k < 200; k++) f(10000);' > "$tmp/hot.js"
			(cd "$tmp" && node --perf-prof hot.js && node --perf-basic-prof hot.js) || true
			for f in "$tmp"/jit-*.dump; do [ -e "$f" ] && head -c 65536 "$f" > "$seeds/node.dump"; done
			for f in /tmp/perf-*.map; do
				[ -O "$f" ] && [ "$f" -nt "$tmp/hot.js" ] && head -c 65536 "$f" > "$work/seed-perf-map/node.map" && rm -f "$f"
			done
		fi
		jitlink=$(llvm-config-19 --bindir 2>/dev/null)/llvm-jitlink
		if [ -x "$jitlink" ] && command -v clang >/dev/null; then
			echo 'int main(void) { return 7; }' > "$tmp/prog.c"
			clang -c -O1 -g -o "$tmp/prog.o" "$tmp/prog.c" &&
				(cd "$tmp" && JITDUMPDIR=$tmp "$jitlink" -perf-support prog.o) >/dev/null 2>&1 || true
			find "$tmp" -name 'jit-*.dump' -newer "$tmp/prog.c" -exec cp {} "$seeds/jitlink.dump" \; 2>/dev/null || true
		fi
		if [ -x build/default/examples/lljit-sbx ]; then
			mkdir -p "$tmp/sbx"
			SBX_JIT_DIR=$tmp/sbx build/default/examples/lljit-sbx >/dev/null 2>&1 || true
			for f in "$tmp"/sbx/jit-*.dump; do [ -e "$f" ] && head -c 65536 "$f" > "$seeds/libsbx-jit.dump"; done
		fi
		rm -rf "$tmp"
	fi
	# perf maps: node's (above), and a hand-written one with odd lines
	[ -e "$work/seed-perf-map/hand.map" ] || printf '%s\n' '7f0000001000 40 LazyCompile:*f hot.js:1' \
		'7f0000001040 0x20 _ZN3foo3barEv' '7f0000000fff 1 overlap' 'zz 10 bad' \
		'7f0000002000 ffffffffffffffff to the end' > "$work/seed-perf-map/hand.map"
	# perf script text, as llvm-profgen reads it: branch stacks (the real LBR recording), IPs
	if command -v perf >/dev/null && [ -z "$(ls -A "$work/seed-perfscript")" ]; then
		perf script -F ip,brstack --show-mmap-events -i tests/data/lbr/propeller_sample_1.perfdata \
			2>/dev/null | head -c 65536 > "$work/seed-perfscript/lbr.txt" || true
		perf script -F ip,pid --show-mmap-events -i "$work/seed-perf-data/perf.data" \
			2>/dev/null | head -c 65536 > "$work/seed-perfscript/ip.txt" || true
		perf script -F ip --show-mmap-events -i "$work/seed-perf-data/perf.data" \
			2>/dev/null | head -c 65536 > "$work/seed-perfscript/ip-only.txt" || true
	fi
	# ELF files with DWARF: gcc's and clang's, PIE and not, DWARF 4 and 5
	seeds=$work/seed-binary
	if [ -z "$(ls -A "$seeds")" ]; then
		cp tests/workloads/noploop "$seeds/noploop"
		cat > "$seeds/.p.c" <<-'C'
	static inline int sq(int x) { return x * x; }
	__attribute__((noinline)) int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i) % 7; return s; }
	int main(int argc, char **argv) { (void)argv; return f(argc * 1000) & 1; }
	C
		gcc -O2 -g -o "$seeds/gcc-pie" "$seeds/.p.c"
		gcc -O2 -g -no-pie -gdwarf-4 -o "$seeds/gcc-nopie" "$seeds/.p.c"
		if command -v clang >/dev/null; then
			clang -O2 -g -fdebug-info-for-profiling -o "$seeds/clang" "$seeds/.p.c"
			clang -O2 -g -gdwarf-5 -fdebug-info-for-profiling -ffunction-sections \
				-o "$seeds/clang-dwarf5" "$seeds/.p.c"
		fi
		gcc -O2 -o "$seeds/stripped" -s "$seeds/.p.c"
		rm -f "$seeds/.p.c"
	fi
}
[ -n "${FUZZ_SEED:-}" ] || make_seeds

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${targets_all[@]}")
found=0
for t in "${targets[@]}"; do
	corpus=$work/corpus-$t
	seeds=$work/seed-$t
	if [ -n "${FUZZ_SEED:-}" ]; then
		corpus=$work/fixed-$t
		seeds=$work/fixed-seed-$t
		rm -rf "$corpus" "$seeds"
		mkdir -p "$seeds"
		[ "$t" = snippet ] && cp tests/data/snippets/*.s "$seeds/"
	fi
	mkdir -p "$corpus"
	[ -d "tests/data/fuzz/$t" ] && cp -n "tests/data/fuzz/$t"/* "$seeds/" 2>/dev/null
	before=$(ls "$work/crashes" | grep -c "^$t-" || true)
	start=$(date +%s)
	"$work/fuzz-$t" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix="$work/crashes/$t-" -print_final_stats=1 "$corpus" "$seeds" \
		> "$work/log-$t" 2>&1 || true
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log-$t")
	after=$(ls "$work/crashes" | grep -c "^$t-" || true)
	printf 'fuzz: %-10s %4d s %10s executions, %d new finding(s)\n' "$t" \
		$(( $(date +%s) - start )) "${runs:-?}" $(( after - before ))
	if [ "$after" -gt "$before" ]; then
		found=1
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|Test unit written|artifact_prefix)' \
			"$work/log-$t" | head -5
	fi
done
[ "$found" -eq 0 ] || { echo "fuzz: findings in $work/crashes (logs: $work/log-TARGET)" >&2; exit 1; }
