#!/usr/bin/env bash
# make demo: the main jobs of sbx on bundled inputs (snippets in tests/data/snippets,
# workloads in tests/workloads). Each step prints the command it runs.
set -eu
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
snippets=tests/data/snippets

step() {
	printf '\n\033[1m$ %s\033[0m\n' "$*"
	"$@"
}

step ./sbx help

# sbx run: latency of dependent chains; without a PMU the cycles are estimated from the TSC
step ./sbx run $snippets/add-chain.s $snippets/imul-chain.s
step ./sbx run --mode inverse_throughput $snippets/add-independent.s
step ./sbx run --asm 'imul %rax, %rax' --format yaml
# a crashing snippet is an error of its own, the others are still measured (exit status 1)
printf '\n\033[1m$ %s\033[0m\n' "./sbx run $snippets/segv.s $snippets/add-chain.s"
if ./sbx run $snippets/segv.s $snippets/add-chain.s; then
	echo "demo: a crashing snippet should make sbx run exit 1" >&2
	exit 1
fi

# sbx record / report / script: four processes of one PIE binary at once, each in its own
# function; every sample is attributed through its own process's address space
step ./sbx record -o "$out/perf.data" -- tests/workloads/forker 4 100
step ./sbx report -i "$out/perf.data" --sort pid,comm,sym -n --limit 8
step ./sbx report -i "$out/perf.data" --sort sym --json --limit 3
printf '\n\033[1m$ %s\033[0m\n' "./sbx script -i $out/perf.data | head -n 5"
./sbx script -i "$out/perf.data" | head -n 5
printf '\n\033[1m$ %s\033[0m\n' "./sbx script --json -i $out/perf.data | head -n 2"
./sbx script --json -i "$out/perf.data" | head -n 2

# pipe mode: record straight into report
printf '\n\033[1m$ %s\033[0m\n' "./sbx record -q -o - -- tests/workloads/noploop | ./sbx report -i - --limit 3"
./sbx record -q -o - -- tests/workloads/noploop | ./sbx report -i - --limit 3

# call stacks: folded for flamegraph.pl and friends, and an SVG flame graph of our own
step ./sbx record -q -g -o "$out/cxx.data" -- tests/workloads/cxxhot
# perf report -g's call graphs under the rows (Children and Self, callers first)
step ./sbx report -g -i "$out/cxx.data" -s sym --percent-limit 10
printf '\n\033[1m$ %s\033[0m\n' "./sbx report --folded -i $out/cxx.data | sort -k2 -nr | head -n 3"
./sbx report --folded -i "$out/cxx.data" | sort -t' ' -k2 -nr | head -n 3
mkdir -p build/demo
step ./sbx report --flamegraph build/demo/cxxhot.svg -i "$out/cxx.data"
echo "(open build/demo/cxxhot.svg in a browser; Documentation/examples/cxxhot-flamegraph.svg is one)"

# the judge: Linux perf reads what sbx wrote
if command -v perf >/dev/null; then
	printf '\n\033[1m$ %s\033[0m\n' "perf report --stdio -i $out/perf.data --sort pid,sym | grep spin_"
	perf report --stdio -i "$out/perf.data" --sort pid,sym 2>/dev/null | grep spin_
fi

# sbx profgen: an LLVM sample profile from IP-only samples, each process on its own,
# then clang builds with it (two processes of one PIE run at once: none is lost)
w=tests/workloads/profgen-loops
printf '\n\033[1m$ %s\033[0m\n' "./sbx record -q -g -o $out/pgo.data -- sh -c '$w 1 200 & $w calls 30000000 & wait'"
./sbx record -q -g -o "$out/pgo.data" -- sh -c "$w 1 200 & $w calls 30000000 & wait"
step ./sbx profgen --binary $w -o "$out/app.prof" "$out/pgo.data"
printf '\n\033[1m$ %s\033[0m\n' "head -n 12 $out/app.prof"
head -n 12 "$out/app.prof"
step ./sbx profgen --json --binary $w "$out/pgo.data"
printf '\n\033[1m$ %s\033[0m\n' "clang -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=$out/app.prof -S -emit-llvm -o - $w.c | grep -m 3 'function_entry_count\|branch_weights'"
clang -O2 -g -fdebug-info-for-profiling -fprofile-sample-use="$out/app.prof" -S -emit-llvm \
	-o - $w.c | grep -m 3 'function_entry_count\|branch_weights'

# jitted code: the tiny JIT (libsbx-jit) moves a function and reuses its
# address; sbx report reads its jitdump directly, sbx jit-inject hands it to perf
mkdir -p "$out/jit"
printf '\n\033[1m$ %s\033[0m\n' "SBX_JIT_DIR=$out/jit ./sbx record -q -o $out/jit.data -- tests/workloads/tinyjit"
SBX_JIT_DIR="$out/jit" ./sbx record -q -o "$out/jit.data" -- tests/workloads/tinyjit >/dev/null
step ./sbx report -i "$out/jit.data" --sort sym --limit 3
step ./sbx jit-inject -i "$out/jit.data" -o "$out/jit.inj.data"
if command -v perf >/dev/null; then
	printf '\n\033[1m$ %s\033[0m\n' "perf report --stdio -i $out/jit.inj.data --sort dso,sym | grep jit_"
	perf report --stdio -i "$out/jit.inj.data" --sort dso,sym 2>/dev/null | grep jit_
fi
